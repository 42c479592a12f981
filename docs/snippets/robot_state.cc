// A robot's joints and links by name: state, poses, velocities, Jacobians.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cstdio>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadScene("config/scenes/arm_push.yaml");
  TimeStepper stepper(scene);
  const int arm = stepper.FindRobot("pusher");
  for (int i = 0; i < 100; ++i) stepper.Step();

  // 1-DOF joints in tree order; q [rad or m], v, effort [N m or N].
  const std::vector<std::string> joints = stepper.JointNames(arm);
  const Eigen::VectorXd q = stepper.JointPositions(arm);
  const Eigen::VectorXd v = stepper.JointVelocities(arm);
  const Eigen::VectorXd effort = stepper.JointEfforts(arm);
  for (size_t j = 0; j < joints.size(); ++j) {
    std::printf("%s: q %.4f v %.4f effort %.3f\n", joints[j].c_str(), q(j),
                v(j), effort(j));
  }
  // Link frames, world frame; the Jacobian of a point on the link.
  const Eigen::Isometry3d X_WL = stepper.LinkPose(arm, "link3");
  const SpatialVelocity V = stepper.LinkVelocity(arm, "link3");
  const Vector3 tip(0.4, 0.0, -0.175);  // link3 frame [m]
  const Eigen::MatrixXd J = stepper.LinkJacobian(arm, "link3", tip);  // 6 x nv
  const Vector3 tip_velocity = J.topRows<3>() * stepper.robot_states()[arm].v;
  std::printf("link3 at (%.3f, %.3f, %.3f), |w| %.3f rad/s, tip |v| %.3f m/s\n",
              X_WL.translation().x(), X_WL.translation().y(),
              X_WL.translation().z(), V.angular.norm(), tip_velocity.norm());

  // Replace the state: the full q and v of the tree (robot_states order).
  RobotState s = stepper.robot_states()[arm];
  s.q(stepper.FindJoint(arm, "joint1")) = 0.0;
  s.v.setZero();
  stepper.SetRobotState(arm, s);
  return stepper.JointPositions(arm)(0) == 0.0 ? 0 : 1;
}
