#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/mjcf_reader.h"

namespace sapcontact {
namespace mjcf_loader_internal {

bool MjcfReader::HasJoint(const Element* body) const {
  for (const Element* c : doc_.Children(body)) {
    const std::string t = MjcfDocument::Tag(c);
    if (t == "joint" || t == "freejoint") return true;
    if (t == "body" && HasJoint(c)) return true;
  }
  return false;
}

int MjcfReader::AddJointChain(const Element* body, const std::string& body_name,
                              const std::vector<const Element*>& joints,
                              const std::string& cls, int parent_link,
                              const Isometry3d& X_PL_B0, const Isometry3d& X_WB,
                              const LinkInertia& in_body, RobotDescription* d,
                              Unmodelled* unmodelled, Isometry3d* X_LB,
                              std::vector<double>* q0) {
  const bool global = doc_.compiler().global;
  const double unit = doc_.compiler().degrees ? M_PI / 180.0 : 1.0;
  Isometry3d X_prev = X_PL_B0;
  int link = parent_link;
  // Expand ball joints into three hinges about the body's x, y, z axes.
  struct Motion {
    const Element* e;
    std::string name, type;
    Vector3d axis;
  };
  std::vector<Motion> motions;
  for (size_t k = 0; k < joints.size(); ++k) {
    const Element* j = joints[k];
    const std::string jcls = doc_.ClassOf(j, cls);
    const std::string name = j->Attribute("name")
                                 ? j->Attribute("name")
                                 : body_name + "_joint" + std::to_string(k);
    const std::string type = MjcfDocument::Tag(j) == "freejoint"
                                 ? "free"
                                 : doc_.Text(j, "type", jcls, "hinge");
    if (type == "ball") {
      d->warnings.push_back(doc_.Where(j) +
                            ": a ball joint is modelled as three hinges about "
                            "the body's x, y and z axes ('" +
                            name + "_x', '_y', '_z')");
      for (int a = 0; a < 3; ++a) {
        motions.push_back({j, name + "_" + std::string(1, char('x' + a)),
                           "hinge", Vector3d::Unit(a)});
      }
    } else if (type == "hinge" || type == "slide" || type == "free") {
      motions.push_back({j, name, type, Vector3d::Zero()});
    } else {
      doc_.Fail(j, "unknown joint type '" + type + "'");
    }
  }
  for (size_t k = 0; k < motions.size(); ++k) {
    const Motion& m = motions[k];
    const Element* j = m.e;
    const std::string jcls =
        MjcfDocument::Tag(j) == "freejoint" ? "" : doc_.ClassOf(j, cls);
    const bool last = k + 1 == motions.size();
    Joint joint;
    joint.name = m.name;
    joint.parent = link;
    Link l;
    l.name = last ? body_name : body_name + "/" + m.name;
    if (m.type == "free") {
      if (parent_link != -1 || motions.size() != 1) {
        doc_.Fail(j,
                  "a free joint must be the only joint of a top-level "
                  "body");
      }
      joint.type = JointType::kFloating;
      joint.origin = Isometry3d::Identity();
      const Eigen::Quaterniond q(X_WB.linear());
      q0->insert(q0->end(),
                 {X_WB.translation().x(), X_WB.translation().y(),
                  X_WB.translation().z(), q.w(), q.x(), q.y(), q.z()});
      X_prev = Isometry3d::Identity();
    } else {
      Vector3d p = doc_.Numbers(j, "pos", jcls, Vector3d::Zero());
      Vector3d axis =
          m.axis.squaredNorm() > 0
              ? m.axis
              : Vector3d(doc_.Numbers(j, "axis", jcls, Vector3d::UnitZ()));
      if (global && m.axis.squaredNorm() == 0) {
        p = X_WB.inverse() * p;
        axis = X_WB.linear().transpose() * axis;
      } else if (global) {
        p = X_WB.inverse() * p;
      }
      if (axis.norm() < 1e-10) doc_.Fail(j, "the joint axis is zero");
      axis.normalize();
      const bool hinge = m.type == "hinge";
      const double scale = hinge ? unit : 1.0;
      const double ref = doc_.Number(j, "ref", jcls, 0.0) * scale;
      joint.type = hinge ? JointType::kRevolute : JointType::kPrismatic;
      joint.axis = axis;
      Isometry3d motion_ref = Isometry3d::Identity();
      if (hinge) {
        motion_ref.linear() = Eigen::AngleAxisd(-ref, axis).toRotationMatrix();
      } else {
        motion_ref.translation() = -ref * axis;
      }
      joint.origin = X_prev * Translation(p) * motion_ref;
      const int limited = doc_.Bool(j, "limited", jcls, -1);
      const bool has_range = doc_.Find(j, "range", jcls) != nullptr;
      if (limited == 1 || (limited == -1 && has_range)) {
        const VectorXd range =
            doc_.Numbers(j, "range", jcls, VectorXd::Zero(2)) * scale;
        if (!(range[0] < range[1])) {
          doc_.Fail(j, "a limited joint needs range with lower < upper");
        }
        joint.lower = range[0];
        joint.upper = range[1];
        // solreflimit (timeconst, dampratio): MuJoCo's default 0.02 s.
        const VectorXd solref =
            doc_.Numbers(j, "solreflimit", jcls, Eigen::Vector2d(0.02, 1.0));
        if (solref[0] > 0.0) {
          joint.limit_time_constant = solref[0];
          if (solref[1] != 1.0) {
            unmodelled->Add("solreflimit damping ratio other than 1",
                            doc_.Where(j));
          }
        } else {
          unmodelled->Add("solreflimit in direct (negative) form",
                          doc_.Where(j));
        }
      }
      q0->push_back(ref);
      X_prev = Translation(-p);
    }
    joint.damping = doc_.Number(j, "damping", jcls, 0.0);
    if (!(joint.damping >= 0.0)) doc_.Fail(j, "damping must be >= 0");
    if (last) l.inertia = InLink(in_body, X_prev);
    joint.armature = doc_.Number(j, "armature", jcls, 0.0);
    if (!(joint.armature >= 0.0)) doc_.Fail(j, "armature must be >= 0");
    const double stiffness = doc_.Number(j, "stiffness", jcls, 0.0);
    if (!(stiffness >= 0.0)) doc_.Fail(j, "stiffness must be >= 0");
    if (stiffness > 0.0 && (m.type == "free" || m.axis.squaredNorm() > 0)) {
      unmodelled->Add("stiffness (of a free or ball joint)", doc_.Where(j));
    } else if (stiffness > 0.0) {
      joint.stiffness = stiffness;
      joint.spring_reference =
          doc_.Number(j, "springref", jcls, 0.0) *
          (m.type == "hinge" && doc_.compiler().degrees ? M_PI / 180.0 : 1.0);
    }
    const double frictionloss = doc_.Number(j, "frictionloss", jcls, 0.0);
    if (!(frictionloss >= 0.0)) doc_.Fail(j, "frictionloss must be >= 0");
    if (frictionloss > 0.0 && (m.type == "free" || m.axis.squaredNorm() > 0)) {
      unmodelled->Add("frictionloss (of a free or ball joint)", doc_.Where(j));
    } else {
      joint.friction_loss = frictionloss;
    }
    try {
      link = d->tree.AddLink(l, joint);
    } catch (const std::invalid_argument& ex) {
      doc_.Fail(j, ex.what());
    }
    if (k == 0 || motions[k - 1].e != j) {
      qpos_slots_.push_back({j,
                             m.type == "free"             ? QposSlot::kFree
                             : m.axis.squaredNorm() > 0.0 ? QposSlot::kBall
                                                          : QposSlot::kScalar,
                             static_cast<int>(model_.robots.size()), link});
    }
  }
  if (motions.empty()) {
    Joint joint;
    joint.name = parent_link == -1 ? body_name + "_base" : body_name + "_weld";
    joint.type = JointType::kFixed;
    joint.parent = parent_link;
    joint.origin = X_prev;
    Link l;
    l.name = body_name;
    l.inertia = in_body;
    try {
      link = d->tree.AddLink(l, joint);
    } catch (const std::invalid_argument& ex) {
      doc_.Fail(body, ex.what());
    }
    X_prev = Isometry3d::Identity();
  }
  *X_LB = X_prev;
  return link;
}

LinkInertia MjcfReader::BodyInertia(const Element* e, const Isometry3d& X_WB,
                                    const std::vector<MjcfGeom>& geoms) {
  using I = MjcfCompiler::InertiaFromGeom;
  const auto inertials = doc_.Children(e, "inertial");
  const I mode = doc_.compiler().inertia_from_geom;
  MassSum sum;
  if (mode == I::kTrue || (mode == I::kAuto && inertials.empty())) {
    for (const MjcfGeom& g : geoms) {
      if (g.shape.type == ShapeType::kPlane) continue;
      if (!g.mass_error.empty()) {
        doc_.Fail(e, "geom '" + g.name + "': " + g.mass_error);
      }
      sum.Add(g.mass, g.com, g.inertia);
    }
  } else if (!inertials.empty()) {
    const Element* in = inertials.front();
    Isometry3d X = Translation(doc_.Numbers(in, "pos", "", Vector3d::Zero()));
    X.linear() = doc_.Orientation(in).toRotationMatrix();
    if (doc_.compiler().global) X = X_WB.inverse() * X;
    const double m = doc_.Number(in, "mass", "", -1.0);
    if (!(m >= 0.0)) doc_.Fail(in, "<inertial> needs mass >= 0");
    Matrix3d I_c = Matrix3d::Zero();
    if (in->Attribute("fullinertia") != nullptr) {
      const VectorXd f = doc_.Numbers(in, "fullinertia", "", VectorXd::Zero(6));
      I_c << f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2];
    } else {
      const VectorXd diag =
          doc_.Numbers(in, "diaginertia", "", VectorXd::Constant(3, -1.0));
      if (!(diag.minCoeff() >= 0.0)) {
        doc_.Fail(in, "<inertial> needs diaginertia or fullinertia");
      }
      I_c = diag.asDiagonal();
    }
    sum.Add(m, X.translation(), X.linear() * I_c * X.linear().transpose());
  }
  LinkInertia li = sum.ToLinkInertia();
  const double bound_mass = doc_.compiler().bound_mass;
  const double bound_inertia = doc_.compiler().bound_inertia;
  if (li.mass < bound_mass) li.mass = bound_mass;
  if (bound_inertia > 0.0) {
    Eigen::SelfAdjointEigenSolver<Matrix3d> es(li.inertia);
    const Vector3d ev = es.eigenvalues().cwiseMax(bound_inertia);
    li.inertia =
        es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
  }
  return li;
}

void MjcfReader::ReadBody(const Element* e, const std::string& inherited,
                          int parent_link, const Isometry3d& X_PL_parent,
                          const Isometry3d& X_W_parent, int parent_body,
                          int robot, RobotDescription* d,
                          Unmodelled* unmodelled) {
  const std::string cls = doc_.ChildClassOf(e, inherited);
  const std::string name = e->Attribute("name")
                               ? e->Attribute("name")
                               : "body" + std::to_string(model_.bodies.size());
  // The body frame B at qpos0, in its parent body's frame P and the world.
  Isometry3d X_PB = Translation(doc_.Numbers(e, "pos", "", Vector3d::Zero()));
  X_PB.linear() = doc_.Orientation(e).toRotationMatrix();
  Isometry3d X_WB;
  if (doc_.compiler().global) {
    X_WB = X_PB;
    X_PB = X_W_parent.inverse() * X_WB;
  } else {
    X_WB = X_W_parent * X_PB;
  }
  std::vector<const Element*> joints, geoms, bodies;
  for (const Element* c : doc_.Children(e)) {
    const std::string t = MjcfDocument::Tag(c);
    if (t == "joint" || t == "freejoint") {
      joints.push_back(c);
    } else if (t == "geom") {
      geoms.push_back(c);
    } else if (t == "body") {
      bodies.push_back(c);
    } else if (t != "inertial") {
      CountIgnored(c);
    }
  }
  std::vector<MjcfGeom> read;
  for (const Element* g : geoms) {
    read.push_back(ReadMjcfGeom(doc_, g, doc_.ClassOf(g, cls), X_WB, meshes_,
                                options_.mesh_limits, &d->warnings));
  }
  Isometry3d X_LB;
  std::vector<double> q0;
  const int link =
      AddJointChain(e, name, joints, cls, parent_link, X_PL_parent * X_PB, X_WB,
                    BodyInertia(e, X_WB, read), d, unmodelled, &X_LB, &q0);
  const Eigen::Index n0 = d->initial_positions.size();
  d->initial_positions.conservativeResize(n0 + static_cast<int>(q0.size()));
  for (size_t i = 0; i < q0.size(); ++i) d->initial_positions[n0 + i] = q0[i];
  MjcfBody b;
  b.name = name;
  b.parent = parent_body;
  b.robot = robot;
  b.link = link;
  b.body_in_link = ToPose(X_LB);
  const int self = static_cast<int>(model_.bodies.size());
  model_.bodies.push_back(b);

  for (size_t k = 0; k < read.size(); ++k) {
    const MjcfGeom& g = read[k];
    const std::string gname =
        name + "/" + (g.name.empty() ? std::to_string(k) : g.name);
    const Isometry3d X_LG = X_LB * ToIsometry(g.pose);
    if (g.collides && g.shape.type == ShapeType::kPlane) {
      d->warnings.push_back(doc_.Where(geoms[k]) +
                            ": a plane on a moving body takes no part in "
                            "contact");
      ++d->collision_counts.dropped;
    } else if (g.collides) {
      RobotGeometry rg;
      rg.name = gname;
      rg.link = link;
      rg.shape = g.shape;
      rg.pose_in_link = ToPose(X_LG);
      d->geometries.push_back(rg);
      model_.geometry_surfaces[robot].push_back(
          MjcfContactSurface(g, model_.time_step));
      model_.geometry_masks[robot].push_back({g.contype, g.conaffinity});
      masks_[robot].push_back({g.contype, g.conaffinity, self});
      ++d->collision_counts.loaded;
      if (g.approximated) ++d->collision_counts.approximated;
    }
    if (options_.load_visuals && g.supported &&
        g.shape.type != ShapeType::kPlane) {
      VisualGeometry v;
      v.name = gname;
      v.link = link;
      v.type = g.shape.type;
      v.size = g.shape.size;
      v.radius = g.shape.radius;
      v.length = g.shape.length;
      v.pose_in_link = ToPose(X_LG);
      v.rgba = g.rgba;
      v.coloured = true;
      if (g.shape.type == ShapeType::kMesh) {
        v.file = g.mesh_file;
        v.mesh = visual_meshes_.Get(g.mesh_file, g.shape.mesh->scale);
      }
      d->visuals.push_back(v);
      ++d->visual_counts.loaded;
    }
  }
  for (const Element* c : bodies) {
    ReadBody(c, cls, link, X_LB, X_WB, self, robot, d, unmodelled);
  }
}

bool MjcfReader::MovesByHingeOrSlide(const Element* body) const {
  const std::string cls = doc_.ChildClassOf(body, "main");
  bool any = false;
  for (const Element* j : doc_.Children(body)) {
    const std::string t = MjcfDocument::Tag(j);
    if (t == "freejoint") return false;
    if (t != "joint") continue;
    if (doc_.Text(j, "type", doc_.ClassOf(j, cls), "hinge") == "free") {
      return false;
    }
    any = true;
  }
  return any;
}

bool MjcfReader::SelfCollides(int robot) const {
  const std::vector<GeomMask>& m = masks_[robot];
  const auto related = [&](int a, int b) {
    return a == b || model_.bodies[a].parent == b ||
           model_.bodies[b].parent == a;
  };
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = i + 1; j < m.size(); ++j) {
      if (related(m[i].body, m[j].body)) continue;
      if ((m[i].contype & m[j].conaffinity) ||
          (m[j].contype & m[i].conaffinity)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace mjcf_loader_internal
}  // namespace sapcontact
