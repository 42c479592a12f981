#include "sapcontact/sim/robot/mjcf_loader.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "sapcontact/geometry/mesh_file.h"
#include "sapcontact/geometry/triangle_mesh.h"
#include "sapcontact/sim/robot/mjcf_document.h"
#include "sapcontact/sim/robot/mjcf_geom.h"
#include "sapcontact/sim/robot/visual_mesh_cache.h"

namespace sapcontact {
namespace {

using Element = MjcfDocument::Element;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

Isometry3d Translation(const Vector3d& p) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = p;
  return X;
}

Pose ToPose(const Isometry3d& X) {
  Pose p;
  p.position = X.translation();
  p.orientation = Eigen::Quaterniond(X.linear()).normalized();
  return p;
}

// Mass properties given in the body frame B, in a frame L with X_LB.
LinkInertia InLink(const LinkInertia& in_body, const Isometry3d& X_LB) {
  LinkInertia li = in_body;
  li.com = X_LB * in_body.com;
  li.inertia = X_LB.linear() * in_body.inertia * X_LB.linear().transpose();
  return li;
}

Isometry3d ToIsometry(const Pose& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = p.rotation();
  X.translation() = p.position;
  return X;
}

// Mass properties accumulated about a common point.
struct MassSum {
  double mass{0.0};
  Vector3d first_moment{Vector3d::Zero()};
  Matrix3d inertia_origin{Matrix3d::Zero()};  // about the body origin

  void Add(double m, const Vector3d& com, const Matrix3d& I_com) {
    mass += m;
    first_moment += m * com;
    inertia_origin += I_com + m * (com.squaredNorm() * Matrix3d::Identity() -
                                   com * com.transpose());
  }
  LinkInertia ToLinkInertia() const {
    LinkInertia li;
    li.mass = mass;
    if (mass <= 0.0) return li;
    li.com = first_moment / mass;
    li.inertia =
        inertia_origin - mass * (li.com.squaredNorm() * Matrix3d::Identity() -
                                 li.com * li.com.transpose());
    li.inertia = 0.5 * (li.inertia + li.inertia.transpose());
    return li;
  }
};

// Counts of attributes read but not modelled, reported once per robot.
struct Unmodelled {
  std::map<std::string, int> count;
  std::map<std::string, std::string> first;
  void Add(const std::string& what, const std::string& where) {
    if (count[what]++ == 0) first[what] = where;
  }
  void Report(std::vector<std::string>* warnings) const {
    for (const auto& [what, n] : count) {
      warnings->push_back(first.at(what) + ": " + what + " of " +
                          std::to_string(n) + " joint" + (n == 1 ? "" : "s") +
                          " ignored (not modelled), the first here");
    }
  }
};

class MjcfReader {
 public:
  MjcfReader(const MjcfDocument& doc, const MjcfOptions& options)
      : doc_(doc), options_(options) {}

  MjcfModel Read();

 private:
  bool HasJoint(const Element* body) const;
  void ReadOptions();
  void ReadAssets();
  void ReadStatic(const Element* body, const std::string& cls,
                  const Isometry3d& X_W_parent, int parent_body);
  MjcfGeom ReadWorldGeom(const Element* g, const std::string& cls,
                         const Isometry3d& X_WB, int index);
  void ScaleToTotalMass();
  void ReadActuators();
  void ReadContactExcludes();
  void ReadKeyframes();
  // Adds body `e` (and its subtree) to robot `d`.
  void ReadBody(const Element* e, const std::string& inherited, int parent_link,
                const Isometry3d& X_PL_parent, const Isometry3d& X_W_parent,
                int parent_body, int robot, RobotDescription* d,
                Unmodelled* unmodelled);
  bool MovesByHingeOrSlide(const Element* body) const;
  bool SelfCollides(int robot) const;
  int AddJointChain(const Element* body, const std::string& body_name,
                    const std::vector<const Element*>& joints,
                    const std::string& cls, int parent_link,
                    const Isometry3d& X_PL_B0, const Isometry3d& X_WB,
                    const LinkInertia& in_body, RobotDescription* d,
                    Unmodelled* unmodelled, Isometry3d* X_LB,
                    std::vector<double>* q0);
  LinkInertia BodyInertia(const Element* e, const Isometry3d& X_WB,
                          const std::vector<MjcfGeom>& geoms);
  void CountIgnored(const Element* e);

  const MjcfDocument& doc_;
  const MjcfOptions& options_;
  MjcfModel model_;
  // Mass of the static bodies (settotalmass counts them, as MuJoCo does).
  double static_mass_{0.0};
  std::map<std::string, const Element*> meshes_;
  std::map<std::string, int> ignored_;
  // A mesh file's triangles, scaled, for the visuals.
  VisualMeshCache visual_meshes_{options_.mesh_limits};
  // Per robot: the collision geoms' masks and bodies (SelfCollides).
  struct GeomMask {
    int contype, conaffinity, body;
  };
  std::vector<std::vector<GeomMask>> masks_;
  // MuJoCo's qpos layout: every MJCF joint in document order, its robot and
  // the tree index of its (first) joint.
  struct QposSlot {
    const Element* e;
    enum Kind { kFree, kBall, kScalar } kind;
    int robot, joint;
  };
  std::vector<QposSlot> qpos_slots_;
};

bool MjcfReader::HasJoint(const Element* body) const {
  for (const Element* c : doc_.Children(body)) {
    const std::string t = MjcfDocument::Tag(c);
    if (t == "joint" || t == "freejoint") return true;
    if (t == "body" && HasJoint(c)) return true;
  }
  return false;
}

void MjcfReader::ReadOptions() {
  for (const Element* o : doc_.Children(doc_.root(), "option")) {
    model_.time_step = doc_.Number(o, "timestep", "", model_.time_step);
    if (!(model_.time_step > 0.0)) doc_.Fail(o, "timestep must be > 0");
    model_.gravity = doc_.Numbers(o, "gravity", "", model_.gravity);
    const std::string integrator = doc_.Text(o, "integrator", "", "Euler");
    if (integrator != "Euler") {
      model_.warnings.push_back(
          doc_.Where(o) + ": integrator '" + integrator +
          "' is not ours: the model steps with the convex implicit step "
          "(docs/theory.md)");
    }
  }
}

void MjcfReader::ReadAssets() {
  for (const Element* a : doc_.Children(doc_.root(), "asset")) {
    for (const Element* m : doc_.Children(a, "mesh")) {
      const char* name = m->Attribute("name");
      const char* file = m->Attribute("file");
      std::string key = name != nullptr ? std::string(name) : std::string();
      if (key.empty() && file != nullptr) {
        key = std::filesystem::path(file).stem().string();
      }
      if (key.empty()) doc_.Fail(m, "a <mesh> needs a name or a file");
      meshes_[key] = m;
    }
  }
}

void MjcfReader::CountIgnored(const Element* e) {
  ++ignored_[MjcfDocument::Tag(e)];
}

MjcfGeom MjcfReader::ReadWorldGeom(const Element* g, const std::string& cls,
                                   const Isometry3d& X_WB, int index) {
  MjcfGeom geom = ReadMjcfGeom(doc_, g, doc_.ClassOf(g, cls), X_WB, meshes_,
                               options_.mesh_limits, &model_.warnings);
  if (!geom.collides) return geom;
  WorldGeometry w;
  w.name = "world/" + (geom.name.empty() ? std::to_string(index) : geom.name);
  w.shape = geom.shape;
  w.pose = ToPose(X_WB * ToIsometry(geom.pose));
  w.friction = geom.friction;
  w.mesh_file = geom.mesh_file;
  w.contype = geom.contype;
  w.conaffinity = geom.conaffinity;
  model_.world_geometries.push_back(w);
  return geom;
}

void MjcfReader::ReadStatic(const Element* body, const std::string& cls,
                            const Isometry3d& X_W_parent, int parent_body) {
  const std::string own = doc_.ChildClassOf(body, cls);
  Isometry3d X_WB =
      Translation(doc_.Numbers(body, "pos", "", Vector3d::Zero()));
  X_WB.linear() = doc_.Orientation(body).toRotationMatrix();
  if (!doc_.compiler().global) X_WB = X_W_parent * X_WB;
  MjcfBody b;
  b.name = body->Attribute("name") ? body->Attribute("name") : "";
  b.parent = parent_body;
  b.body_in_link = ToPose(X_WB);
  const int self = static_cast<int>(model_.bodies.size());
  model_.bodies.push_back(b);
  int index = static_cast<int>(model_.world_geometries.size());
  std::vector<MjcfGeom> geoms;
  for (const Element* c : doc_.Children(body)) {
    const std::string t = MjcfDocument::Tag(c);
    if (t == "geom") {
      geoms.push_back(ReadWorldGeom(c, own, X_WB, index++));
    } else if (t == "body") {
      ReadStatic(c, own, X_WB, self);
    } else if (t != "inertial") {
      CountIgnored(c);
    }
  }
  static_mass_ += BodyInertia(body, X_WB, geoms).mass;
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
    if (doc_.Number(j, "frictionloss", jcls, 0.0) != 0.0) {
      unmodelled->Add("frictionloss", doc_.Where(j));
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
      model_.geometry_friction[robot].push_back(g.friction);
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

// <actuator>: motors, position and velocity servos, and <general>
// actuators that reduce to one of them (gain fixed, no activation
// dynamics, bias none or MuJoCo's servo bias) on hinge and slide joints
// become RobotActuators of the robot that has the joint; others are warned.
void MjcfReader::ReadActuators() {
  const double inf = std::numeric_limits<double>::infinity();
  for (const Element* section : doc_.Children(doc_.root(), "actuator")) {
    int index = 0;
    for (const Element* a : doc_.Children(section)) {
      const std::string tag = MjcfDocument::Tag(a);
      const std::string cls = doc_.ClassOf(a, "main");
      RobotActuator m;
      double motor_gain = 1.0;  // <general> motors: f = gain u
      if (tag == "motor") {
        m.kind = ActuatorKind::kMotor;
      } else if (tag == "position") {
        m.kind = ActuatorKind::kPosition;
        m.kp = doc_.Number(a, "kp", cls, 1.0);
        m.kv = doc_.Number(a, "kv", cls, 0.0);
        if (!(m.kp > 0.0) || !(m.kv >= 0.0)) {
          doc_.Fail(a, "kp must be > 0 and kv >= 0");
        }
      } else if (tag == "velocity") {
        m.kind = ActuatorKind::kVelocity;
        m.kv = doc_.Number(a, "kv", cls, 1.0);
        if (!(m.kv > 0.0)) doc_.Fail(a, "kv must be > 0");
      } else if (tag == "general") {
        // f = g0 u + b0 + b1 L + b2 Ldot, L = gear q.
        const std::string dyn = doc_.Text(a, "dyntype", cls, "none");
        const std::string gain = doc_.Text(a, "gaintype", cls, "fixed");
        const std::string bias = doc_.Text(a, "biastype", cls, "none");
        const VectorXd g =
            doc_.Numbers(a, "gainprm", cls, VectorXd::Unit(10, 0), 1);
        const VectorXd b =
            doc_.Numbers(a, "biasprm", cls, VectorXd::Zero(10), 1);
        const double b0 = b.size() > 0 ? b[0] : 0.0;
        const double b1 = b.size() > 1 ? b[1] : 0.0;
        const double b2 = b.size() > 2 ? b[2] : 0.0;
        bool reduces = dyn == "none" && gain == "fixed" && g[0] > 0.0;
        if (reduces && bias == "none") {
          m.kind = ActuatorKind::kMotor;
          motor_gain = g[0];
        } else if (reduces && bias == "affine" && b0 == 0.0 && b1 == -g[0] &&
                   b2 <= 0.0) {
          m.kind = ActuatorKind::kPosition;
          m.kp = g[0];
          m.kv = -b2;
        } else if (reduces && bias == "affine" && b0 == 0.0 && b1 == 0.0 &&
                   b2 == -g[0]) {
          m.kind = ActuatorKind::kVelocity;
          m.kv = g[0];
        } else {
          reduces = false;
        }
        if (!reduces) {
          model_.warnings.push_back(
              doc_.Where(a) +
              ": a <general> actuator that is not a motor, position or "
              "velocity servo (activation dynamics, a gain or bias other than "
              "u and a servo's) is not applied");
          ++index;
          continue;
        }
      } else {
        model_.warnings.push_back(doc_.Where(a) + ": <" + tag +
                                  "> actuators are not applied (motor, "
                                  "position, velocity and general are)");
        ++index;
        continue;
      }
      m.name = a->Attribute("name") ? a->Attribute("name")
                                    : "actuator" + std::to_string(index);
      ++index;
      const char* joint = a->Attribute("joint");
      if (joint == nullptr) {
        model_.warnings.push_back(
            doc_.Where(a) +
            ": an actuator on a tendon, site or body is not applied (joint "
            "actuators are)");
        continue;
      }
      int robot = -1;
      for (size_t r = 0; r < model_.robots.size() && robot < 0; ++r) {
        const int k = model_.robots[r].tree.FindJoint(joint);
        if (k >= 0) {
          robot = static_cast<int>(r);
          m.joint = k;
        }
      }
      if (robot < 0) {
        bool ball = false;
        for (const RobotDescription& d : model_.robots) {
          ball = ball || d.tree.FindJoint(std::string(joint) + "_x") >= 0;
        }
        if (ball) {
          model_.warnings.push_back(
              doc_.Where(a) + ": an actuator on the ball joint '" + joint +
              "' is not applied (hinge and slide "
              "actuators are)");
          continue;
        }
        doc_.Fail(a, "no hinge or slide joint named '" + std::string(joint) +
                         "' in a moving body");
      }
      const JointType type = model_.robots[robot].tree.joint(m.joint).type;
      if (type != JointType::kRevolute && type != JointType::kPrismatic) {
        doc_.Fail(a, "joint '" + std::string(joint) +
                         "' is not a hinge or slide joint");
      }
      const VectorXd gear =
          doc_.Numbers(a, "gear", cls, VectorXd::Unit(6, 0), 1);
      m.gear = gear[0] * motor_gain;
      if (!(m.gear != 0.0)) doc_.Fail(a, "gear must not be 0");
      // ctrllimited / forcelimited: true, false, or auto (a range given).
      const auto range = [&](const char* limited, const char* name, double* lo,
                             double* hi) {
        const int l = doc_.Bool(a, limited, cls, -1);
        if (l == 0 || (l == -1 && doc_.Find(a, name, cls) == nullptr)) {
          *lo = -inf;
          *hi = inf;
          return;
        }
        const VectorXd r = doc_.Numbers(a, name, cls, VectorXd::Zero(2));
        if (!(r[0] < r[1])) {
          doc_.Fail(a,
                    std::string(name) + " needs lower < upper when " + limited);
        }
        *lo = r[0];
        *hi = r[1];
      };
      range("ctrllimited", "ctrlrange", &m.ctrl_lower, &m.ctrl_upper);
      range("forcelimited", "forcerange", &m.force_lower, &m.force_upper);
      // The force range bounds gain u: in units of u for the gear above.
      m.force_lower /= motor_gain;
      m.force_upper /= motor_gain;
      if (m.kind != ActuatorKind::kMotor && m.force_lower != -m.force_upper) {
        model_.warnings.push_back(
            doc_.Where(a) +
            ": the servo's forcerange is not symmetric: its effort is "
            "limited to the larger bound's magnitude");
      }
      model_.robots[robot].actuators.push_back(m);
    }
  }
}

// <contact><exclude body1 body2>: pairs of bodies of one robot, which the
// scene never lets collide; pairs across robots or with the world are
// warned (bit masks and filters are per robot).
void MjcfReader::ReadContactExcludes() {
  for (const Element* section : doc_.Children(doc_.root(), "contact")) {
    for (const Element* e : doc_.Children(section, "exclude")) {
      int index[2];
      const char* names[2] = {e->Attribute("body1"), e->Attribute("body2")};
      for (int k = 0; k < 2; ++k) {
        if (names[k] == nullptr) doc_.Fail(e, "needs body1 and body2");
        index[k] = -1;
        for (size_t b = 0; b < model_.bodies.size(); ++b) {
          if (model_.bodies[b].name == names[k]) index[k] = b;
        }
        if (index[k] < 0 && std::string(names[k]) != "world") {
          doc_.Fail(e, "no body named '" + std::string(names[k]) + "'");
        }
      }
      if (index[0] >= 0 && index[1] >= 0 &&
          model_.bodies[index[0]].robot >= 0 &&
          model_.bodies[index[0]].robot == model_.bodies[index[1]].robot) {
        model_.excluded_bodies.emplace_back(index[0], index[1]);
      } else {
        model_.warnings.push_back(
            doc_.Where(e) +
            ": an exclude between different robots or with the world is not "
            "applied (excludes within one robot are)");
      }
    }
  }
}

// <keyframe><key>: qpos and qvel in MuJoCo's layout (qpos_slots_) into
// each robot's q and v; ctrl, act, mpos and mquat are warned.
void MjcfReader::ReadKeyframes() {
  int nq = 0, nv = 0;
  for (const QposSlot& s : qpos_slots_) {
    nq += s.kind == QposSlot::kFree ? 7 : s.kind == QposSlot::kBall ? 4 : 1;
    nv += s.kind == QposSlot::kFree ? 6 : s.kind == QposSlot::kBall ? 3 : 1;
  }
  for (const Element* section : doc_.Children(doc_.root(), "keyframe")) {
    for (const Element* e : doc_.Children(section, "key")) {
      MjcfKeyframe key;
      key.name = e->Attribute("name")
                     ? e->Attribute("name")
                     : "key" + std::to_string(model_.keyframes.size());
      key.time = doc_.Number(e, "time", "", 0.0);
      for (const RobotDescription& d : model_.robots) {
        key.q.push_back(d.initial_positions);
        key.v.push_back(VectorXd::Zero(d.tree.num_velocities()));
      }
      const auto numbers = [&](const char* name, int n) {
        if (e->Attribute(name) == nullptr) return VectorXd();
        const VectorXd x = doc_.Numbers(e, name, "", VectorXd::Zero(n));
        return x;
      };
      const VectorXd qpos = numbers("qpos", nq);
      const VectorXd qvel = numbers("qvel", nv);
      int iq = 0, iv = 0;
      for (const QposSlot& s : qpos_slots_) {
        const MultibodyTree& tree = model_.robots[s.robot].tree;
        VectorXd& q = key.q[s.robot];
        VectorXd& v = key.v[s.robot];
        const int pq = tree.position_start(s.joint);
        const int pv = tree.velocity_start(s.joint);
        if (s.kind == QposSlot::kFree) {
          if (qpos.size() > 0) q.segment<7>(pq) = qpos.segment<7>(iq);
          const Eigen::Quaterniond R(q[pq + 3], q[pq + 4], q[pq + 5],
                                     q[pq + 6]);
          if (qvel.size() > 0) {
            v.segment<3>(pv) = qvel.segment<3>(iv);
            // MuJoCo's angular velocity is in the body frame, ours in the
            // world frame.
            v.segment<3>(pv + 3) =
                R.normalized() * Vector3d(qvel.segment<3>(iv + 3));
          }
          iq += 7, iv += 6;
        } else if (s.kind == QposSlot::kBall) {
          // R = Rx(a) Ry(b) Rz(c): the three hinges' angles.
          Matrix3d R = Matrix3d::Identity();
          if (qpos.size() > 0) {
            R = Eigen::Quaterniond(qpos[iq], qpos[iq + 1], qpos[iq + 2],
                                   qpos[iq + 3])
                    .normalized()
                    .toRotationMatrix();
            const Vector3d abc = R.eulerAngles(0, 1, 2);
            q.segment<3>(pq) = abc;
          }
          if (qvel.size() > 0 && qvel.segment<3>(iv).norm() > 0.0) {
            // Body-frame angular velocity = E (a', b', c').
            const Vector3d abc = q.segment<3>(pq);
            const Matrix3d Rz =
                Eigen::AngleAxisd(abc[2], Vector3d::UnitZ()).toRotationMatrix();
            const Matrix3d Ry =
                Eigen::AngleAxisd(abc[1], Vector3d::UnitY()).toRotationMatrix();
            Matrix3d E;
            E.col(0) = Rz.transpose() * Ry.transpose() * Vector3d::UnitX();
            E.col(1) = Rz.transpose() * Vector3d::UnitY();
            E.col(2) = Vector3d::UnitZ();
            if (std::abs(std::cos(abc[1])) < 1e-9) {
              doc_.Fail(e, "qvel of ball joint '" +
                               std::string(s.e->Attribute("name")
                                               ? s.e->Attribute("name")
                                               : "") +
                               "' at the hinges' gimbal lock (y angle +-90 "
                               "degrees)");
            }
            v.segment<3>(pv) = E.inverse() * Vector3d(qvel.segment<3>(iv));
          }
          iq += 4, iv += 3;
        } else {
          if (qpos.size() > 0) q[pq] = qpos[iq];
          if (qvel.size() > 0) v[pv] = qvel[iv];
          iq += 1, iv += 1;
        }
      }
      for (const char* unused : {"ctrl", "act", "mpos", "mquat"}) {
        if (e->Attribute(unused) != nullptr) {
          model_.warnings.push_back(doc_.Where(e) + ": " + unused +
                                    " of a keyframe is not applied (qpos "
                                    "and qvel are)");
        }
      }
      model_.keyframes.push_back(std::move(key));
    }
  }
}

// compiler settotalmass: every body's mass and inertia times one factor.
void MjcfReader::ScaleToTotalMass() {
  const double target = doc_.compiler().total_mass;
  if (!(target > 0.0)) return;
  double total = static_mass_;
  for (const RobotDescription& d : model_.robots) total += d.tree.TotalMass();
  if (!(total > 0.0)) return;
  const double factor = target / total;
  const Element* compiler = doc_.Children(doc_.root(), "compiler").back();
  if (!std::isfinite(factor) || !(factor > 0.0)) {
    doc_.Fail(compiler,
              "settotalmass scales the masses by a factor that is "
              "not finite");
  }
  for (RobotDescription& d : model_.robots) {
    MultibodyTree scaled;
    for (int i = 0; i < d.tree.num_links(); ++i) {
      Link l = d.tree.link(i);
      l.inertia.mass *= factor;
      l.inertia.inertia *= factor;
      try {
        scaled.AddLink(l, d.tree.joint(i));
      } catch (const std::invalid_argument& e) {
        doc_.Fail(compiler, std::string("settotalmass: ") + e.what());
      }
    }
    d.tree = std::move(scaled);
  }
}

MjcfModel MjcfReader::Read() {
  model_.name = doc_.model_name();
  // MuJoCo's sections; anything else in <mujoco> (a <body> of a file
  // written to be included inside <worldbody>) is refused, as MuJoCo does.
  static const char* const kSections[] = {
      "compiler",  "option",   "size",   "visual",    "statistic", "default",
      "extension", "custom",   "asset",  "worldbody", "contact",   "equality",
      "tendon",    "actuator", "sensor", "keyframe"};
  for (const Element* c : doc_.Children(doc_.root())) {
    const std::string t = MjcfDocument::Tag(c);
    bool known = false;
    for (const char* s : kSections) known = known || t == s;
    if (!known) {
      doc_.Fail(c, "<" + t +
                       "> is not a section of <mujoco> (a file meant to be "
                       "<include>d inside another element?)");
    }
  }
  ReadOptions();
  ReadAssets();
  for (const Element* wb : doc_.Children(doc_.root(), "worldbody")) {
    int index = 0;
    for (const Element* c : doc_.Children(wb)) {
      const std::string t = MjcfDocument::Tag(c);
      if (t == "geom") {
        ReadWorldGeom(c, "main", Isometry3d::Identity(), index++);
      } else if (t == "body" && !HasJoint(c)) {
        ReadStatic(c, "main", Isometry3d::Identity(), -1);
      } else if (t == "body") {
        RobotDescription d;
        d.name = c->Attribute("name")
                     ? c->Attribute("name")
                     : "robot" + std::to_string(model_.robots.size());
        Unmodelled unmodelled;
        const int robot = static_cast<int>(model_.robots.size());
        model_.geometry_friction.emplace_back();
        model_.geometry_masks.emplace_back();
        masks_.emplace_back();
        int root = -1;
        if (MovesByHingeOrSlide(c)) {
          // Link 0 is welded to the world (RobotDescription's rule).
          Link world;
          world.name = "world";
          Joint weld;
          weld.name = d.name + "_base";
          weld.type = JointType::kFixed;
          root = d.tree.AddLink(world, weld);
        }
        ReadBody(c, "main", root, Isometry3d::Identity(),
                 Isometry3d::Identity(), -1, robot, &d, &unmodelled);
        unmodelled.Report(&d.warnings);
        model_.robot_self_collision.push_back(SelfCollides(robot));
        if (d.collision_counts.loaded == 0) {
          d.warnings.push_back(doc_.Where(c) +
                               ": the robot has no collision geometry");
        }
        model_.robots.push_back(std::move(d));
      } else {
        CountIgnored(c);
      }
    }
  }
  ScaleToTotalMass();
  ReadActuators();
  ReadContactExcludes();
  ReadKeyframes();
  // Sections this reader does not apply yet, and elements it ignores.
  for (const char* section : {"tendon", "equality", "contact", "sensor"}) {
    for (const Element* s : doc_.Children(doc_.root(), section)) {
      int n = 0;
      for (const Element* c : doc_.Children(s)) {
        n += MjcfDocument::Tag(c) != "exclude";
      }
      if (n > 0) {
        model_.warnings.push_back(doc_.Where(s) + ": " + std::to_string(n) +
                                  " element" + (n == 1 ? "" : "s") + " of <" +
                                  section + "> ignored (not supported yet)");
      }
    }
  }
  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [tag, n] : ignored_) {
      list += (list.empty() ? "" : ", ") + std::to_string(n) + " <" + tag + ">";
    }
    model_.warnings.push_back(
        doc_.Where(doc_.root()) + ": ignored " + list +
        " (cameras, lights, sites and other elements that do not simulate)");
  }
  return std::move(model_);
}

}  // namespace

MjcfModel ParseMjcf(const std::string& xml, const std::string& source,
                    const MjcfOptions& options) {
  try {
    const MjcfDocument doc(xml, source);
    return MjcfReader(doc, options).Read();
  } catch (const MjcfError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw MjcfError(e.what());
  }
}

MjcfModel LoadMjcf(const std::string& path, const MjcfOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MjcfError(path + ": cannot open the MJCF file");
  std::ostringstream s;
  s << in.rdbuf();
  return ParseMjcf(s.str(), path, options);
}

}  // namespace sapcontact
