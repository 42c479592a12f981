#include <cmath>

#include "sapcontact/sim/robot/urdf_reader.h"

namespace sapcontact {
namespace urdf_loader_internal {

Eigen::Isometry3d ToIsometry(const urdf::Pose& pose) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() << pose.position.x, pose.position.y, pose.position.z;
  X.linear() = Eigen::Quaterniond(pose.rotation.w, pose.rotation.x,
                                  pose.rotation.y, pose.rotation.z)
                   .normalized()
                   .toRotationMatrix();
  return X;
}

Pose ToPose(const urdf::Pose& pose) {
  Pose p;
  p.position << pose.position.x, pose.position.y, pose.position.z;
  p.orientation = Eigen::Quaterniond(pose.rotation.w, pose.rotation.x,
                                     pose.rotation.y, pose.rotation.z)
                      .normalized();
  return p;
}

double LimitOrInf(double value) { return value > 0.0 ? value : kInf; }

RobotDescription UrdfReader::Build(const urdf::ModelInterface& model,
                                   const std::string& name) {
  RobotDescription robot;
  robot.name = name;
  std::vector<int> tree_index(links_.size(), -1);
  for (int link_index : order_) {
    const LinkInfo& info = links_[link_index];
    const std::string who = "link " + Quoted(info.name);
    urdf::LinkConstSharedPtr ulink = model.getLink(info.name);
    if (!ulink) Fail(info.line, who, "internal error: urdfdom lost the link");

    Link link;
    link.name = info.name;
    if (ulink->inertial) {
      const urdf::Inertial& in = *ulink->inertial;
      const Eigen::Isometry3d X_LI = ToIsometry(in.origin);
      Eigen::Matrix3d I_I;
      I_I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz,
          in.izz;
      const Eigen::Matrix3d R = X_LI.linear();
      link.inertia.mass = in.mass;
      link.inertia.com = X_LI.translation();
      Eigen::Matrix3d I_L = R * I_I * R.transpose();
      link.inertia.inertia = 0.5 * (I_L + I_L.transpose());
    }

    Joint joint;
    if (info.parent_joint < 0) {  // the root
      joint.name = info.name + "_base";
      joint.parent = -1;
      if (options_.floating_base) {
        joint.type = JointType::kFloating;
      } else {
        joint.type = JointType::kFixed;
        joint.origin = Eigen::Isometry3d::Identity();
        joint.origin.translation() = options_.base_pose.position;
        joint.origin.linear() =
            options_.base_pose.orientation.normalized().toRotationMatrix();
      }
    } else {
      const JointInfo& jinfo = joints_[info.parent_joint];
      urdf::JointConstSharedPtr ujoint = model.getJoint(jinfo.name);
      if (!ujoint) {
        Fail(jinfo.line, "joint " + Quoted(jinfo.name),
             "internal error: urdfdom lost the joint");
      }
      joint.name = jinfo.name;
      joint.parent = tree_index[jinfo.parent_link];
      joint.origin = ToIsometry(ujoint->parent_to_joint_origin_transform);
      switch (ujoint->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
          joint.type = JointType::kRevolute;
          break;
        case urdf::Joint::PRISMATIC:
          joint.type = JointType::kPrismatic;
          break;
        case urdf::Joint::FLOATING:
          joint.type = JointType::kFloating;
          break;
        case urdf::Joint::FIXED:
          joint.type = JointType::kFixed;
          break;
        default:  // rejected by the scan
          Fail(jinfo.line, "joint " + Quoted(jinfo.name),
               "unsupported joint type " + Quoted(jinfo.type));
      }
      if (joint.type == JointType::kRevolute ||
          joint.type == JointType::kPrismatic) {
        joint.axis =
            Eigen::Vector3d(ujoint->axis.x, ujoint->axis.y, ujoint->axis.z)
                .normalized();
        if (ujoint->limits) {
          if (ujoint->type != urdf::Joint::CONTINUOUS) {
            joint.lower = ujoint->limits->lower;
            joint.upper = ujoint->limits->upper;
          }
          joint.effort_limit = LimitOrInf(ujoint->limits->effort);
          joint.velocity_limit = LimitOrInf(ujoint->limits->velocity);
        }
      }
      if (ujoint->dynamics && joint.type != JointType::kFixed) {
        joint.damping = ujoint->dynamics->damping;
        if (joint.type == JointType::kRevolute ||
            joint.type == JointType::kPrismatic) {
          joint.friction_loss = ujoint->dynamics->friction;
        }
      }
    }
    try {
      tree_index[link_index] = robot.tree.AddLink(link, joint);
    } catch (const std::invalid_argument& e) {
      Fail(info.line, who, e.what());
    }

    int kept = 0;
    for (const CollisionInfo& c : info.collisions) {
      if (!c.keep) {
        ++robot.collision_counts.dropped;
        continue;
      }
      ++robot.collision_counts.loaded;
      if (c.approximated) ++robot.collision_counts.approximated;
      if (kept >= static_cast<int>(ulink->collision_array.size())) {
        Fail(info.line, who, "internal error: urdfdom lost a collision");
      }
      const urdf::Collision& uc = *ulink->collision_array[kept++];
      RobotGeometry g;
      g.name = info.name + "/" + c.label;
      g.link = tree_index[link_index];
      g.shape = c.shape;  // validated in the scan; urdfdom agrees (or has a
                          // placeholder sphere for a capsule)
      g.pose_in_link = ToPose(uc.origin);
      robot.geometries.push_back(std::move(g));
    }
    for (const VisualGeometry& v : info.visuals) {
      robot.visuals.push_back(v);
      robot.visuals.back().link = tree_index[link_index];
    }
  }
  robot.visual_counts.loaded = static_cast<int>(robot.visuals.size());
  robot.visual_counts.dropped = visuals_dropped_;
  for (const int link_index : order_) {
    const int j = links_[link_index].parent_joint;
    if (j < 0 || joints_[j].mimic_leader.empty()) continue;
    urdf::JointConstSharedPtr ujoint = model.getJoint(joints_[j].name);
    JointCoupling coupling;
    coupling.follower = robot.tree.FindJoint(joints_[j].name);
    coupling.leader = robot.tree.FindJoint(joints_[j].mimic_leader);
    coupling.multiplier = ujoint->mimic->multiplier;
    coupling.offset = ujoint->mimic->offset;
    robot.couplings.push_back(coupling);
  }
  robot.initial_positions = robot.tree.ZeroPositions();
  if (options_.floating_base) {
    const Eigen::Quaterniond q = options_.base_pose.orientation.normalized();
    robot.initial_positions.head<7>() << options_.base_pose.position, q.w(),
        q.x(), q.y(), q.z();
  }
  if (robot.collision_counts.loaded == 0) {
    Warn(0, "robot '" + name +
                "' has no collision geometry: none of its links can touch "
                "anything");
  }
  robot.warnings = warnings_;
  return robot;
}

}  // namespace urdf_loader_internal
}  // namespace sapcontact
