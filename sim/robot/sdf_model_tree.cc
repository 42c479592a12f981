#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/sdf_reader.h"

namespace sapcontact {
namespace sdf_loader_internal {

namespace fs = std::filesystem;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;

void SdfReader::Flatten(const sdf::Model& model, const std::string& prefix,
                        const Isometry3d& X_MN, std::vector<LinkInfo>* links,
                        std::vector<JointInfo>* joints) {
  for (uint64_t i = 0; i < model.LinkCount(); ++i) {
    const sdf::Link* link = model.LinkByIndex(i);
    ignition::math::Pose3d X;
    const sdf::Errors errors = link->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) Fail(link->Element(), errors[0].Message());
    links->push_back({prefix + link->Name(), link, X_MN * ToIsometry(X)});
  }
  for (uint64_t i = 0; i < model.JointCount(); ++i) {
    const sdf::Joint* joint = model.JointByIndex(i);
    JointInfo info;
    info.name = prefix + joint->Name();
    info.joint = joint;
    std::string parent, child;
    sdf::Errors errors = joint->ResolveParentLink(parent);
    if (errors.empty()) errors = joint->ResolveChildLink(child);
    if (!errors.empty()) Fail(joint->Element(), errors[0].Message());
    info.parent = parent == "world" ? parent : prefix + parent;
    info.child = prefix + child;
    ignition::math::Pose3d X;
    errors = joint->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) Fail(joint->Element(), errors[0].Message());
    info.X_MJ = X_MN * ToIsometry(X);
    joints->push_back(info);
  }
  for (uint64_t i = 0; i < model.ModelCount(); ++i) {
    const sdf::Model* nested = model.ModelByIndex(i);
    ignition::math::Pose3d X;
    const sdf::Errors errors = nested->SemanticPose().Resolve(X, "__model__");
    if (!errors.empty()) Fail(nested->Element(), errors[0].Message());
    Flatten(*nested, prefix + nested->Name() + "::", X_MN * ToIsometry(X),
            links, joints);
  }
}

void SdfReader::ReadModel(const sdf::Model& model, const Isometry3d& X_WM) {
  if (model.Static()) {
    ReadStatic(model, X_WM);
    return;
  }
  std::vector<LinkInfo> links;
  std::vector<JointInfo> joints;
  Flatten(model, "", Isometry3d::Identity(), &links, &joints);
  std::map<std::string, int> link_index;
  for (size_t i = 0; i < links.size(); ++i) link_index[links[i].name] = i;
  // The joint that moves each link; children of each link (and of the
  // world, key "") in file order.
  std::vector<int> moved_by(links.size(), -1);
  std::map<std::string, std::vector<int>> children;
  for (size_t j = 0; j < joints.size(); ++j) {
    const JointInfo& info = joints[j];
    const sdf::ElementPtr e = info.joint->Element();
    auto child = link_index.find(info.child);
    if (child == link_index.end()) {
      Fail(e, "the child '" + info.child + "' is not a link of the model");
    }
    if (info.parent != "world" && !link_index.count(info.parent)) {
      Fail(e, "the parent '" + info.parent + "' is not a link of the model");
    }
    if (moved_by[child->second] >= 0) {
      Fail(e, "link '" + info.child + "' is already the child of joint '" +
                  joints[moved_by[child->second]].name +
                  "' (kinematic loops are not supported)");
    }
    moved_by[child->second] = static_cast<int>(j);
    children[info.parent == "world" ? "" : info.parent].push_back(
        static_cast<int>(j));
  }
  // Every link must hang from a root: a cycle of joints has none.
  {
    std::vector<bool> reached(links.size(), false);
    std::vector<std::string> stack = {""};
    for (size_t i = 0; i < links.size(); ++i) {
      if (moved_by[i] < 0) stack.push_back(links[i].name), reached[i] = true;
    }
    while (!stack.empty()) {
      const std::string l = stack.back();
      stack.pop_back();
      for (int j : children[l]) {
        const int c = link_index[joints[j].child];
        if (!reached[c]) reached[c] = true, stack.push_back(joints[j].child);
      }
    }
    for (size_t i = 0; i < links.size(); ++i) {
      if (!reached[i]) {
        Fail(joints[moved_by[i]].joint->Element(),
             "the joints form a kinematic loop through link '" + links[i].name +
                 "' (not supported)");
      }
    }
  }
  const std::vector<int>& world_joints = children[""];
  std::vector<int> free_roots;
  for (size_t i = 0; i < links.size(); ++i) {
    if (moved_by[i] < 0) free_roots.push_back(static_cast<int>(i));
  }
  const size_t num_robots = (world_joints.empty() ? 0 : 1) + free_roots.size();

  // Adds the subtree below SDFormat link `l` (already tree link `tl`, with
  // X_WT its frame at q = 0).
  std::function<void(const std::string&, int, const Isometry3d&, int,
                     RobotDescription*)>
      add_children;
  const auto add_joint = [&](int j, int parent_tl, const Isometry3d& X_WTp,
                             int robot, RobotDescription* d) {
    const JointInfo& info = joints[j];
    const sdf::Joint& sj = *info.joint;
    const sdf::ElementPtr e = sj.Element();
    const LinkInfo& child = links[link_index[info.child]];
    const Isometry3d X_WJ = X_WM * info.X_MJ;
    const Isometry3d X_WL = X_WM * child.X_ML;
    struct Motion {
      std::string name;
      JointType type;
      Vector3d axis;
      const sdf::JointAxis* sdf_axis;
    };
    std::vector<Motion> motions;
    const auto axis_of = [&](unsigned index) {
      const sdf::JointAxis* a = sj.Axis(index);
      if (a == nullptr) Fail(e, "the joint needs an <axis>");
      ignition::math::Vector3d xyz;
      const sdf::Errors errors = a->ResolveXyz(xyz);
      if (!errors.empty()) Fail(e, errors[0].Message());
      const Vector3d v = ToVector(xyz);
      if (!v.allFinite() || v.norm() < 1e-12) {
        Fail(a->Element(), "the axis <xyz> must be a finite nonzero vector");
      }
      return v.normalized();
    };
    switch (sj.Type()) {
      case sdf::JointType::FIXED:
        motions.push_back(
            {info.name, JointType::kFixed, Vector3d::UnitZ(), nullptr});
        break;
      case sdf::JointType::REVOLUTE:
      case sdf::JointType::CONTINUOUS:
        motions.push_back(
            {info.name, JointType::kRevolute, axis_of(0), sj.Axis(0)});
        break;
      case sdf::JointType::PRISMATIC:
        motions.push_back(
            {info.name, JointType::kPrismatic, axis_of(0), sj.Axis(0)});
        break;
      case sdf::JointType::BALL:
        d->warnings.push_back(
            Where(e) +
            ": a ball joint is modelled as three revolute joints about the "
            "joint frame's x, y and z axes ('" +
            info.name + "_x', '_y', '_z')");
        for (int a = 0; a < 3; ++a) {
          motions.push_back({info.name + "_" + std::string(1, char('x' + a)),
                             JointType::kRevolute, Vector3d::Unit(a), nullptr});
        }
        break;
      case sdf::JointType::UNIVERSAL:
      case sdf::JointType::REVOLUTE2:
        motions.push_back(
            {info.name + "_1", JointType::kRevolute, axis_of(0), sj.Axis(0)});
        motions.push_back(
            {info.name + "_2", JointType::kRevolute, axis_of(1), sj.Axis(1)});
        break;
      default:
        // screw, gearbox: no tree joint of ours moves as they do.
        d->warnings.push_back(
            Where(e) +
            ": this joint type (screw, gearbox) is not supported: it is "
            "loaded as a fixed joint (revolute, continuous, prismatic, "
            "fixed, ball, universal and revolute2 are)");
        motions.push_back(
            {info.name, JointType::kFixed, Vector3d::UnitZ(), nullptr});
    }
    int parent = parent_tl;
    Isometry3d X_WP = X_WTp;
    for (size_t k = 0; k < motions.size(); ++k) {
      const Motion& m = motions[k];
      const bool last = k + 1 == motions.size();
      Link link;
      link.name = last ? child.name : child.name + "/" + m.name;
      Joint joint;
      joint.name = m.name;
      joint.type = m.type;
      joint.parent = parent;
      joint.origin = k == 0 ? X_WP.inverse() * X_WJ : Isometry3d::Identity();
      joint.axis = m.axis;
      if (const sdf::JointAxis* a = m.sdf_axis) {
        const sdf::ElementPtr ae = a->Element();
        joint.damping = a->Damping();
        if (sj.Type() == sdf::JointType::REVOLUTE ||
            sj.Type() == sdf::JointType::PRISMATIC) {
          if (a->Lower() > -kNoLimit) joint.lower = a->Lower();
          if (a->Upper() < kNoLimit) joint.upper = a->Upper();
          if (joint.lower > joint.upper) {
            Fail(ae, "limit lower > upper");
          }
        }
        if (a->Effort() > 0.0 && a->Effort() < kNoLimit) {
          joint.effort_limit = a->Effort();
        }
        if (a->MaxVelocity() > 0.0 && a->MaxVelocity() < kNoLimit) {
          joint.velocity_limit = a->MaxVelocity();
        }
        if (a->SpringStiffness() != 0.0) {
          joint.stiffness = a->SpringStiffness();
          joint.spring_reference = a->SpringReference();
        }
        if (a->Friction() < 0.0) Fail(ae, "friction must be >= 0");
        if (a->Friction() > 0.0) {
          joint.friction_loss = a->Friction();  // a hinge or a slide
        }
      }
      if (last) {
        // The child link's mass, inertia and geometry, in the joint frame.
        const Isometry3d X_TL = X_WJ.inverse() * X_WL;
        const ignition::math::Inertiald& in = child.link->Inertial();
        const Isometry3d X_LI = ToIsometry(in.Pose());
        const Isometry3d X_TI = X_TL * X_LI;
        link.inertia.mass = in.MassMatrix().Mass();
        link.inertia.com = X_TI.translation();
        const auto& moi = in.MassMatrix().Moi();
        Matrix3d I;
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) I(r, c) = moi(r, c);
        }
        link.inertia.inertia = X_TI.linear() * I * X_TI.linear().transpose();
        try {
          parent = d->tree.AddLink(link, joint);
        } catch (const std::invalid_argument& ex) {
          Fail(e, ex.what());
        }
        AddLinkGeometry(child, parent, X_TL, robot, d);
        add_children(child.name, parent, X_WJ, robot, d);
      } else {
        try {
          parent = d->tree.AddLink(link, joint);
        } catch (const std::invalid_argument& ex) {
          Fail(e, ex.what());
        }
        X_WP = X_WJ;
      }
    }
  };
  add_children = [&](const std::string& l, int tl, const Isometry3d& X_WT,
                     int robot, RobotDescription* d) {
    for (int j : children[l]) add_joint(j, tl, X_WT, robot, d);
  };

  const auto start_robot = [&](const std::string& name) {
    RobotDescription d;
    d.name = name;
    world_.geometry_surfaces.emplace_back();
    world_.geometry_masks.emplace_back();
    world_.robot_self_collision.push_back(model.SelfCollide());
    world_.robot_filter_pairs.emplace_back();
    return d;
  };
  const auto finish_robot = [&](RobotDescription* d) {
    d->initial_positions = d->tree.ZeroPositions();
    if (d->collision_counts.loaded == 0) {
      d->warnings.push_back(Where(model.Element()) +
                            ": the robot has no collision geometry");
    }
    world_.robots.push_back(std::move(*d));
  };

  if (!world_joints.empty()) {
    const int robot = static_cast<int>(world_.robots.size());
    RobotDescription d = start_robot(model.Name());
    const JointInfo& first = joints[world_joints[0]];
    if (world_joints.size() == 1 &&
        first.joint->Type() == sdf::JointType::FIXED) {
      add_joint(world_joints[0], -1, Isometry3d::Identity(), robot, &d);
    } else {
      Link world;
      world.name = "world";
      Joint weld;
      weld.name = model.Name() + "_base";
      weld.type = JointType::kFixed;
      weld.origin = X_WM;
      const int tl = d.tree.AddLink(world, weld);
      add_children("", tl, X_WM, robot, &d);
    }
    finish_robot(&d);
  }
  for (int root : free_roots) {
    const LinkInfo& info = links[root];
    const int robot = static_cast<int>(world_.robots.size());
    RobotDescription d = start_robot(
        num_robots == 1 ? model.Name() : model.Name() + "::" + info.name);
    Link link;
    link.name = info.name;
    const ignition::math::Inertiald& in = info.link->Inertial();
    const Isometry3d X_LI = ToIsometry(in.Pose());
    link.inertia.mass = in.MassMatrix().Mass();
    link.inertia.com = X_LI.translation();
    const auto& moi = in.MassMatrix().Moi();
    Matrix3d I;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) I(r, c) = moi(r, c);
    }
    link.inertia.inertia = X_LI.linear() * I * X_LI.linear().transpose();
    Joint joint;
    joint.name = info.name + "_base";
    joint.type = JointType::kFloating;
    try {
      d.tree.AddLink(link, joint);
    } catch (const std::invalid_argument& ex) {
      Fail(info.link->Element(), ex.what());
    }
    AddLinkGeometry(info, 0, Isometry3d::Identity(), robot, &d);
    const Isometry3d X_WL = X_WM * info.X_ML;
    add_children(info.name, 0, X_WL, robot, &d);
    d.initial_positions = d.tree.ZeroPositions();
    const Eigen::Quaterniond q(X_WL.linear());
    d.initial_positions.head<7>() << X_WL.translation(), q.w(), q.x(), q.y(),
        q.z();
    if (d.collision_counts.loaded == 0) {
      d.warnings.push_back(Where(info.link->Element()) +
                           ": the robot has no collision geometry");
    }
    world_.robots.push_back(std::move(d));
  }
}

}  // namespace sdf_loader_internal
}  // namespace sapcontact
