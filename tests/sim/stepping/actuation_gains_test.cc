// PD gains for every joint (docs/robots.md, "Actuation at run time"):
// `actuation: {default: ..., <pattern>: ...}` in the scene, and
// TimeStepper::SetActuationGains / SetActuationTargets at run time, all
// through the implicit PD rows. Against closed forms: at rest the PD law
// balances gravity exactly (kp e = g(q)), a joint given gains holds the
// position it had, and gains far beyond an explicit step's stability limit
// (kd dt / I >> 2) stay stable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/robot_dynamics.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

// arm7 (7 revolute joints, config/scenes/robots/arm7.urdf) on a fixed base,
// bent so that gravity loads joints 2 to 6, with `actuation` as given.
Scene Arm(const std::string& actuation, double gravity = -9.81) {
  namespace fs = std::filesystem;
  const std::string urdf =
      (fs::path(scene_tests::FindSceneFile("arm_hold")).parent_path() /
       "robots" / "arm7.urdf")
          .string();
  return LoadSceneFromString(
      "time_step: 1.0e-3\nduration: 1\ngravity: [0, 0, " +
          std::to_string(gravity) +
          "]\nrobots:\n  - name: arm\n    urdf: " + urdf +
          "\n    joints: {joint2: {position: 0.6}, joint4: {position: -0.9}, "
          "joint6: {position: 0.5}}\n" +
          actuation,
      "arm.yaml");
}

TEST(ActuationGains, DefaultAndPatternsActuateEveryJoint) {
  const Scene scene =
      Arm("    actuation:\n"
          "      joint1: {kp: 10.0, kd: 1.0}\n"
          "      \"*7\": {kp: 70.0, kd: 7.0}\n"
          "      default: {kp: 50.0, kd: 5.0, effort_limit: 40.0}\n");
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  ASSERT_EQ(robot.actuation.size(), 7u);
  for (const JointActuation& a : robot.actuation) {
    const std::string& name = tree.joint(a.joint).name;
    const double kp = name == "joint1" ? 10.0 : name == "joint7" ? 70.0 : 50.0;
    EXPECT_EQ(a.kp, kp) << name;
    EXPECT_EQ(a.kd, kp / 10.0) << name;
    EXPECT_EQ(a.effort_limit,
              kp == 50.0 ? 40.0 : tree.joint(a.joint).effort_limit)
        << name;
  }
  // A pattern that matches no joint is an error at its line.
  try {
    Arm("    actuation:\n      \"*9\": {kp: 1.0}\n");
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.field(), "robots.arm.actuation.*9") << e.what();
    EXPECT_EQ(e.line(), 9) << e.what();
    EXPECT_NE(std::string(e.what()).find("matches none of robot 'arm'"),
              std::string::npos)
        << e.what();
  }
}

// Gains given at run time to joints without actuation hold the pose they
// had: at rest kp (q0 - q) = g(q) exactly, and the efforts are g(q).
TEST(ActuationGains, GainsAtRunTimeHoldThePoseAgainstGravity) {
  TimeStepper stepper(Arm(""));
  ASSERT_TRUE(stepper.scene().robots[0].actuation.empty());
  const Eigen::VectorXd q0 = stepper.JointPositions(0);
  const int n = static_cast<int>(q0.size());
  const double kp = 2000.0, kd = 50.0;
  stepper.SetActuationGains(0, Eigen::VectorXd::Constant(n, kp),
                            Eigen::VectorXd::Constant(n, kd));
  ASSERT_EQ(stepper.scene().robots[0].actuation.size(), 7u);
  for (int k = 0; k < 2000; ++k) ASSERT_FALSE(stepper.Step().failed);
  const Eigen::VectorXd q = stepper.JointPositions(0);
  const Eigen::VectorXd g = RobotGravityForces(stepper, 0);  // joints only
  const Eigen::VectorXd effort = stepper.JointEfforts(0);
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const double e = q0(i) - q(i), expected = g(i) / kp;
    EXPECT_NEAR(e, expected, 1e-6 * std::abs(g(i)) / kp + 1e-10) << i;
    EXPECT_NEAR(effort(i), g(i), 1e-5 * std::abs(g(i)) + 1e-8) << i;
    worst = std::max(worst, std::abs(e));
  }
  EXPECT_GT(worst, 1e-4);  // gravity did load the joints
  std::printf("[run-time gains] largest kp e = g(q) offset %.3e rad\n", worst);
}

// Gains far beyond an explicit PD's stability limit (kd dt / I < 2) track
// targets set for every joint at once.
TEST(ActuationGains, VectorTargetsWithHugeGainsStayStable) {
  TimeStepper stepper(Arm("", 0.0));
  const int n = static_cast<int>(stepper.JointPositions(0).size());
  const double kp = 1e8, kd = 1e6, dt = stepper.scene().time_step;
  stepper.SetActuationGains(0, Eigen::VectorXd::Constant(n, kp),
                            Eigen::VectorXd::Constant(n, kd));
  const Eigen::MatrixXd M = RobotMassMatrix(stepper, 0);
  EXPECT_GT(kd * dt / M.diagonal().maxCoeff(), 100.0);
  Eigen::VectorXd target(n);
  // Offsets of 1e-7 rad: kp e = 10 N m stays inside the effort limits
  // (30 to 300 N m), so the PD law is linear throughout.
  const Eigen::VectorXd q0 = stepper.JointPositions(0);
  for (int i = 0; i < n; ++i) target(i) = q0(i) + 1e-7 * (i % 2 ? 1 : -1);
  stepper.SetActuationTargets(0, target);
  for (int k = 0; k < 300; ++k) ASSERT_FALSE(stepper.Step().failed);
  const Eigen::VectorXd q = stepper.JointPositions(0);
  ASSERT_TRUE(q.allFinite());
  EXPECT_LT((q - target).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT(stepper.JointVelocities(0).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(ActuationGains, BadCallsNameTheProblem) {
  TimeStepper stepper(Arm(""));
  auto expect = [](auto f, const std::string& part) {
    try {
      f();
      ADD_FAILURE() << "expected an error mentioning " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << e.what();
    }
  };
  expect([&] { stepper.SetActuationGains(0, "joint2", -1.0, 1.0); },
         "expected finite gains >= 0 with kp + kd > 0");
  expect([&] { stepper.SetActuationGains(0, "joint2", 0.0, 0.0); },
         "kp + kd > 0");
  expect([&] { stepper.SetActuationGains(0, "jiont2", 1.0, 1.0); }, "joint2");
  expect(
      [&] {
        stepper.SetActuationGains(0, Eigen::VectorXd::Ones(3),
                                  Eigen::VectorXd::Ones(3));
      },
      "has 7 joints (JointNames), got 3 kp and 3 kd");
  expect([&] { stepper.SetActuationTargets(0, Eigen::VectorXd::Zero(7)); },
         "joint 'joint1' has no actuation: give it gains first");
  // Nothing was set by the failed calls.
  EXPECT_TRUE(stepper.scene().robots[0].actuation.empty());
  // A mimic follower moves with its leader.
  TimeStepper gripper(scene_tests::LoadShippedScene("gripper"));
  expect([&] { gripper.SetActuationGains(0, "right_finger", 1.0, 1.0); },
         "follows another joint (URDF <mimic>): actuate its leader");
}

// An explicit damper (torque -kd v from the state at the start of each
// step) on the arm's wrist joint7 (effective inertia I = 1 / (M^-1)_77 =
// 5.5e-4 kg m^2) is stable for kd dt / I < 2 and diverges beyond: kd = 1
// N m s/rad (1.8) damps a 0.1 rad/s swing, kd = 5 (9.1) runs away within a
// few steps. The velocity and effort limits are warned about once each, and
// a step that fails afterwards names the divergence.
std::string RunExplicitDamper(double kd, double* final_speed) {
  TimeStepper stepper(Arm(""));
  RobotState state = stepper.robot_states()[0];
  const int joint7 = stepper.FindJoint(0, "joint7");
  state.v(joint7) = 0.1;
  stepper.SetRobotState(0, state);
  for (int k = 0; k < 200; ++k) {
    stepper.SetJointTorque(0, "joint7",
                           -kd * stepper.JointVelocities(0)(joint7));
    stepper.Step();
  }
  *final_speed = std::abs(stepper.JointVelocities(0)(joint7));
  std::string warnings;
  for (const std::string& w : stepper.scene().warnings) {
    if (w.find("'joint7'") != std::string::npos) warnings += w + "\n";
  }
  if (kd > 2.0) {
    // A torque whose step overflows: the failure names the divergence.
    stepper.SetJointTorque(0, "joint7", 1e308);
    try {
      const StepInfo info = stepper.Step();
      EXPECT_TRUE(info.failed);
      warnings += info.failure;
    } catch (const SimulationError& e) {
      warnings += e.what();
    }
  }
  return warnings;
}

TEST(ActuationGains, ExplicitDamperPastItsLimitDivergesAndIsNamed) {
  TimeStepper probe(Arm(""));
  const Eigen::MatrixXd M = RobotMassMatrix(probe, 0);
  const double I = 1.0 / M.inverse()(6, 6), dt = probe.scene().time_step;
  EXPECT_NEAR(I, 5.49e-4, 1e-6);
  double stable_speed = 0.0, runaway_speed = 0.0;
  const std::string stable = RunExplicitDamper(1.0, &stable_speed);
  const std::string runaway = RunExplicitDamper(5.0, &runaway_speed);
  std::printf(
      "[explicit damper] kd dt / I = %.2f: |v| %.2e rad/s after 0.2 s; "
      "%.2f: %.4g rad/s\n%s",
      1.0 * dt / I, stable_speed, 5.0 * dt / I, runaway_speed, runaway.c_str());
  EXPECT_LT(stable_speed, 1e-4);
  EXPECT_TRUE(stable.empty()) << stable;
  EXPECT_GT(runaway_speed, 1000.0);
  EXPECT_NE(runaway.find("robot 'arm': joint 'joint7' reached -7.58 rad/s at "
                         "step 3 (t = 0.003 s), past its URDF velocity limit "
                         "of 3 rad/s"),
            std::string::npos)
      << runaway;
  EXPECT_NE(runaway.find("past its URDF effort limit of 30 N m"),
            std::string::npos);
  EXPECT_NE(runaway.find("(robot 'arm' diverged: joint 'joint7' has been "
                         "past its URDF velocity limit of 3 rad/s since step "
                         "3, now at"),
            std::string::npos)
      << runaway;
}

}  // namespace
}  // namespace sapcontact
