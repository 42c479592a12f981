// Prescribed motion and external forces (docs/scenes.md "Prescribed motion",
// "external_forces") against closed forms: a constant force on a free body
// in zero gravity, a box carried by a conveyor belt's surface velocity, a
// box lifted by a platform rising at constant speed, and a force on a robot
// link (a pendulum held out by it in static balance).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

TEST(ExternalForces, ConstantForceAndTorqueOnAFreeBody) {
  // m dv/dt = F and I dw/dt = tau exactly (symplectic Euler, no contact);
  // the sphere's inertia 2/5 m r^2 = 0.008 kg m^2.
  const Scene scene = LoadSceneFromString(
      "time_step: 0.01\nduration: 1\ngravity: [0, 0, 0]\nbodies:\n"
      "  - name: ball\n    shape: {type: sphere, radius: 0.1}\n    mass: 2\n"
      "external_forces:\n  - body: ball\n    force: [3, 0, -1]\n"
      "    torque: {times: [0, 1], values: [[0, 0, 0.008], [0, 0, 0.008]]}\n",
      "force");
  TimeStepper stepper(scene);
  for (int n = 0; n < 50; ++n) stepper.Step();
  const BodyState& s = stepper.state()[0];
  const double t = stepper.time();
  EXPECT_NEAR(s.velocity.x(), 3.0 / 2.0 * t, 1e-12);
  EXPECT_NEAR(s.velocity.z(), -1.0 / 2.0 * t, 1e-12);
  EXPECT_NEAR(s.angular_velocity.z(), t, 1e-12);  // tau / I = 1 rad/s^2
}

TEST(PrescribedMotion, ConveyorBeltCarriesABoxAtItsSurfaceSpeed) {
  // A box dropped on a belt moving at 0.3 m/s along x: friction accelerates
  // it at most at mu g until it moves with the surface; then it rides along
  // (the belt itself never moves).
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\nmaterials:\n"
      "  default: {friction: 0.5}\nbodies:\n"
      "  - name: belt\n    fixed: true\n    shape: {type: box, size: [4, 1, "
      "0.1]}\n    position: [0, 0, -0.05]\n"
      "    prescribed: {surface_velocity: [0.3, 0, 0]}\n"
      "  - name: box\n    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
      "    mass: 1\n    position: [0, 0, 0.05]\n",
      "belt");
  TimeStepper stepper(scene);
  double x_at_half = 0.0;
  for (int n = 0; n < 1000; ++n) {
    stepper.Step();
    if (n == 499) x_at_half = stepper.state()[1].pose.position.x();
    // Still slipping at 30 ms (friction needs about v / (mu g) = 61 ms).
    if (n == 29) {
      EXPECT_LT(stepper.state()[1].velocity.x(), 0.25);
    }
  }
  const BodyState& box = stepper.state()[1];
  EXPECT_NEAR(box.velocity.x(), 0.3, 1e-3);
  EXPECT_NEAR(box.pose.position.x() - x_at_half, 0.3 * 0.5, 2e-3);
  EXPECT_NEAR(stepper.state()[0].pose.position.x(), 0.0, 0.0);  // belt fixed
}

TEST(PrescribedMotion, RisingPlatformLiftsABoxAtItsSpeed) {
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\nbodies:\n"
      "  - name: platform\n    fixed: true\n    shape: {type: box, size: [1, "
      "1, 0.1]}\n    position: [0, 0, -0.05]\n"
      "    prescribed: {velocity: {times: [0.2, 0.3], values: [[0, 0, 0], "
      "[0, 0, 0.2]]}}\n"
      "  - name: box\n    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
      "    mass: 1\n    position: [0, 0, 0.05]\n",
      "platform");
  TimeStepper stepper(scene);
  for (int n = 0; n < 1000; ++n) stepper.Step();
  // The platform rose 0.2 m/s * (1 - 0.3) + the ramp's 0.2 * 0.1 / 2.
  const double rise = 0.2 * 0.7 + 0.01;
  EXPECT_NEAR(stepper.state()[0].pose.position.z(), -0.05 + rise, 1e-3);
  EXPECT_NEAR(stepper.state()[1].velocity.z(), 0.2, 1e-3);
  // The box rests on it: its bottom within the compliant sink of the top.
  EXPECT_NEAR(stepper.state()[1].pose.position.z(), 0.05 + rise, 1e-3);
}

TEST(ExternalForces, ForceOnARobotLinkHoldsAPendulumOut) {
  // A horizontal force F on the bob of a pendulum (l = 0.5 m, m = 1 kg)
  // balances at tan(theta) = F / (m g); a pure-damping actuator (kd only)
  // settles it.
  const double F = 4.0;
  const std::string pendulum_scene = scene_tests::FindSceneFile("pendulum");
  ASSERT_FALSE(pendulum_scene.empty());
  const std::string urdf = pendulum_scene.substr(0, pendulum_scene.rfind('/')) +
                           "/robots/pendulum.urdf";
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\nrobots:\n"
      "  - name: p\n    urdf: " +
          urdf +
          "\n"
          "    base: {position: [0, 0, 1]}\n"
          "    actuation: {pivot: {kd: 2.0}}\n"
          "external_forces:\n  - body: p/bob\n    force: [-4, 0, 0]\n"
          "    point: [0, 0, -0.5]\n",
      "pendulum_force");
  TimeStepper stepper(scene);
  for (int n = 0; n < 6000; ++n) stepper.Step();
  const double q = stepper.robot_states()[0].q(0);
  // Rotation about +y by q moves the bob (0, 0, -l) to -l (sin q, 0, cos q):
  // a force along -x swings it to positive q.
  EXPECT_NEAR(std::tan(q), F / 9.81, 1e-3);
  EXPECT_NEAR(stepper.robot_states()[0].v(0), 0.0, 1e-4);
}

TEST(RobotInput, MasslessMovingLinkIsBadInput) {
  // A revolute joint moving a link without <inertial>: M is singular. The
  // time stepper rejects it up front (std::invalid_argument: exit 2 in
  // sapsim), not at step 1 as a numerical failure.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "sapcontact_massless_robot";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "m.urdf")
      << "<robot name=\"m\"><link name=\"base\"/><joint name=\"j\" "
         "type=\"continuous\"><parent link=\"base\"/><child "
         "link=\"l\"/><axis xyz=\"0 1 0\"/></joint><link "
         "name=\"l\"/></robot>\n";
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 0.1\nrobots:\n  - name: r\n    urdf: " +
          (dir / "m.urdf").string() + "\n",
      "massless");
  try {
    TimeStepper stepper(scene);
    FAIL() << "a massless moving link was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("robots.r"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("no mass"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sapcontact
