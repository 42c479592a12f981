#include "sapcontact/sim/scene/robot_spec.h"

#include <stdexcept>

namespace sapcontact {
namespace {

// The entry of 1-DOF joint `joint` in q (positions) or v.
int Entry(const MultibodyTree& tree, int joint, bool positions) {
  if (joint < 0 || joint >= tree.num_links()) {
    throw std::invalid_argument("robot joint index " + std::to_string(joint) +
                                " is out of range");
  }
  const JointType type = tree.joint(joint).type;
  if (type != JointType::kRevolute && type != JointType::kPrismatic) {
    throw std::invalid_argument("robot joint '" + tree.joint(joint).name +
                                "' is not a 1-DOF joint");
  }
  return positions ? tree.position_start(joint) : tree.velocity_start(joint);
}

void ApplyCouplings(const RobotDescription& d, bool positions,
                    Eigen::VectorXd* x) {
  // A follower may lead another follower: repeat until every one is set
  // (as many passes as couplings at most).
  for (size_t pass = 0; pass < d.couplings.size(); ++pass) {
    for (const JointCoupling& c : d.couplings) {
      const int f = Entry(d.tree, c.follower, positions);
      const int l = Entry(d.tree, c.leader, positions);
      (*x)[f] = c.multiplier * (*x)[l] + (positions ? c.offset : 0.0);
    }
  }
}

}  // namespace

Eigen::VectorXd RobotInitialPositions(const RobotSpec& robot) {
  const MultibodyTree& tree = robot.description.tree;
  Eigen::VectorXd q = robot.description.initial_positions;
  if (q.size() != tree.num_positions()) q = tree.ZeroPositions();
  for (const JointInitialState& j : robot.joints) {
    q[Entry(tree, j.joint, true)] = j.position;
  }
  ApplyCouplings(robot.description, true, &q);
  return q;
}

Eigen::VectorXd RobotInitialVelocities(const RobotSpec& robot) {
  const MultibodyTree& tree = robot.description.tree;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(tree.num_velocities());
  if (tree.num_links() > 0 && tree.joint(0).type == JointType::kFloating) {
    v.segment<3>(tree.velocity_start(0)) = robot.base_velocity;
    v.segment<3>(tree.velocity_start(0) + 3) = robot.base_angular_velocity;
  }
  for (const JointInitialState& j : robot.joints) {
    v[Entry(tree, j.joint, false)] = j.velocity;
  }
  ApplyCouplings(robot.description, false, &v);
  return v;
}

LinkCollisionFilter RobotCollisionFilter(const RobotSpec& robot) {
  LinkCollisionFilter filter(robot.description.tree, robot.collision_adjacent);
  for (const auto& [a, b] : robot.collision_filter_pairs) filter.Exclude(a, b);
  return filter;
}

}  // namespace sapcontact
