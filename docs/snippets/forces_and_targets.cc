// Held inputs: wrenches on bodies and links, joint torques, PD targets.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadScene("config/scenes/arm_push.yaml");
  TimeStepper stepper(scene);
  const int arm = stepper.FindRobot("pusher");

  // 1 N along the box's own x axis at a point on its top face (body frame,
  // from the centre of mass): a force and the torque r x f.
  stepper.ApplyWrench("box_a", Vector3(1, 0, 0), Vector3::Zero(),
                      Vector3(0, 0, 0.05), WrenchFrame::kBody);
  // 5 N down at the pusher's tip, world frame: J' w on the arm's joints.
  stepper.ApplyWrench("pusher/link3", Vector3(0, 0, -5), Vector3::Zero(),
                      Vector3(0.4, 0, -0.175));
  // An extra torque on one joint [N m], and new PD targets for another
  // (position, velocity, feed-forward) instead of the scene's functions.
  stepper.SetJointTorque(arm, "joint2", 2.0);
  stepper.SetActuationTarget(arm, "joint1", 0.3, 0.0, 0.0);
  for (int i = 0; i < 2000; ++i) stepper.Step();  // all held every step
  const double q1 = stepper.JointPositions(arm)(0);
  std::printf("joint1 at %.4f rad (target 0.3)\n", q1);

  stepper.ClearAppliedForces();        // wrenches and joint torques
  stepper.ClearActuationTargets(arm);  // back to the scene's targets
  return std::abs(q1 - 0.3) < 1e-3 ? 0 : 1;
}
