#include "sapcontact/sim/stepping/robot_dynamics.h"

#include <stdexcept>

#include "sapcontact/multibody/multibody_tree.h"

namespace sapcontact {
namespace {

const RobotSpec& Robot(const TimeStepper& stepper, int r, const char* who) {
  const int n = static_cast<int>(stepper.scene().robots.size());
  if (r < 0 || r >= n) {
    throw std::invalid_argument(std::string(who) + ": no robot " +
                                std::to_string(r) + " (the scene has " +
                                std::to_string(n) + ")");
  }
  return stepper.scene().robots[r];
}

}  // namespace

Eigen::MatrixXd RobotMassMatrix(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotMassMatrix");
  Eigen::MatrixXd M;
  CalcMassMatrix(robot.description.tree, stepper.robot_states()[r].q, &M);
  return M;
}

Eigen::VectorXd RobotBiasForces(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotBiasForces");
  const RobotState& st = stepper.robot_states()[r];
  Eigen::VectorXd c;
  CalcBiasForces(robot.description.tree, st.q, st.v, stepper.scene().gravity,
                 &c);
  return c;
}

Eigen::VectorXd RobotGravityForces(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotGravityForces");
  const RobotState& st = stepper.robot_states()[r];
  Eigen::VectorXd g;
  CalcBiasForces(robot.description.tree, st.q,
                 Eigen::VectorXd::Zero(st.v.size()), stepper.scene().gravity,
                 &g);
  return g;
}

Vector3 RobotCenterOfMass(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotCenterOfMass");
  return CalcCenterOfMass(robot.description.tree, stepper.robot_states()[r].q);
}

Eigen::MatrixXd RobotCenterOfMassJacobian(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotCenterOfMassJacobian");
  const MultibodyTree& tree = robot.description.tree;
  const Eigen::VectorXd& q = stepper.robot_states()[r].q;
  std::vector<Eigen::Isometry3d> X_WL;
  CalcLinkPoses(tree, q, &X_WL);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, tree.num_velocities());
  Eigen::MatrixXd J_link;
  double total = 0.0;
  for (int l = 0; l < tree.num_links(); ++l) {
    const LinkInertia& inertia = tree.link(l).inertia;
    if (inertia.mass == 0.0) continue;
    CalcPointJacobian(tree, X_WL, l, X_WL[l] * inertia.com, &J_link);
    J += inertia.mass * J_link;
    total += inertia.mass;
  }
  if (total > 0.0) J /= total;
  return J;
}

RobotJointLimits RobotLimits(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotLimits");
  const MultibodyTree& tree = robot.description.tree;
  RobotJointLimits limits;
  limits.joints = stepper.JointNames(r);
  const int n = static_cast<int>(limits.joints.size());
  limits.lower.resize(n);
  limits.upper.resize(n);
  limits.velocity.resize(n);
  limits.effort.resize(n);
  for (int i = 0; i < n; ++i) {
    const Joint& j = tree.joint(tree.FindJoint(limits.joints[i]));
    limits.lower(i) = j.lower;
    limits.upper(i) = j.upper;
    limits.velocity(i) = j.velocity_limit;
    limits.effort(i) = j.effort_limit;
  }
  return limits;
}

RobotLinkInertias RobotInertias(const TimeStepper& stepper, int r) {
  const RobotSpec& robot = Robot(stepper, r, "RobotInertias");
  const MultibodyTree& tree = robot.description.tree;
  RobotLinkInertias out;
  out.mass.resize(tree.num_links());
  for (int l = 0; l < tree.num_links(); ++l) {
    const LinkInertia& inertia = tree.link(l).inertia;
    out.links.push_back(tree.link(l).name);
    out.mass(l) = inertia.mass;
    out.com.push_back(inertia.com);
    out.inertia.push_back(inertia.inertia);
  }
  return out;
}

}  // namespace sapcontact
