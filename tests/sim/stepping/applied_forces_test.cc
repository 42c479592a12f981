// TimeStepper::SetAppliedWrench / SetAppliedGeneralizedForces (forces a
// caller applies between steps, e.g. a Python controller): with gravity
// off, a constant force F on a free body gives v_n = n dt F / m and the
// symplectic position x_n = x_0 + dt^2 F/m n(n+1)/2; a torque on a sphere
// w_n = n dt tau / I; a generalized force on the pendulum's joint
// qdot_n = n dt tau / I_pivot. Forces stay until replaced or cleared; bad
// arguments are invalid_argument naming the body or robot.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

constexpr char kScene[] =
    "time_step: 1.0e-3\n"
    "duration: 1.0\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: box\n"
    "    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
    "    mass: 2.0\n"
    "    position: [0, 0, 1]\n"
    "  - name: ball\n"
    "    shape: {type: sphere, radius: 0.1}\n"
    "    mass: 0.5\n"
    "    position: [1, 0, 1]\n";

Scene LoadText(const std::string& text) {
  return LoadSceneFromString(text, "applied_forces.yaml");
}

TEST(AppliedForces, ConstantWrenchGivesUniformAcceleration) {
  const Scene scene = LoadText(kScene);
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box"), ball = scene.FindBody("ball");
  const Vector3 force(2.0, -1.0, 0.5);
  const Vector3 torque(0, 0, 0.02);
  stepper.SetAppliedWrench(box, force, Vector3::Zero());
  stepper.SetAppliedWrench(ball, Vector3::Zero(), torque);
  const double dt = scene.time_step;
  const int n = 100;
  for (int i = 0; i < n; ++i) stepper.Step();
  const BodyState& b = stepper.state()[box];
  EXPECT_LT((b.velocity - n * dt * force / 2.0).norm(), 1e-12);
  const Vector3 x = Vector3(0, 0, 1) + dt * dt * force / 2.0 * n * (n + 1) / 2;
  EXPECT_LT((b.pose.position - x).norm(), 1e-12);
  EXPECT_LT(b.angular_velocity.norm(), 1e-15);
  const double I = 0.4 * 0.5 * 0.1 * 0.1;
  EXPECT_NEAR(stepper.state()[ball].angular_velocity.z(), n * dt * 0.02 / I,
              1e-12);
  EXPECT_LT(stepper.state()[ball].velocity.norm(), 1e-15);

  // Cleared: the velocities stay.
  stepper.ClearAppliedForces();
  const Vector3 v = b.velocity;
  for (int i = 0; i < 10; ++i) stepper.Step();
  EXPECT_LT((stepper.state()[box].velocity - v).norm(), 1e-15);
}

TEST(AppliedForces, GeneralizedForceAcceleratesTheJoint) {
  const Scene scene = scene_tests::LoadShippedScene(
      "pendulum",
      {"gravity=[0,0,0]", "robots.pendulum.joints.pivot.position=0"});
  TimeStepper stepper(scene);
  Eigen::VectorXd tau(1);
  tau << 1.0;
  stepper.SetAppliedGeneralizedForces(0, tau);
  const int n = 100;
  for (int i = 0; i < n; ++i) stepper.Step();
  // I_pivot = m l^2 + 2/5 m r^2 (pendulum.urdf).
  const double I = 1.0 * 0.25 + 0.00016;
  EXPECT_NEAR(stepper.robot_states()[0].v(0), n * 1e-3 * 1.0 / I, 1e-9);
}

TEST(AppliedForces, BadArgumentsAreInvalidArgumentsNamingTheTarget) {
  const Scene scene = LoadText(kScene);
  TimeStepper stepper(scene);
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string fixed = message(
      [&] { stepper.SetAppliedWrench(0, Vector3::UnitX(), Vector3::Zero()); });
  EXPECT_NE(fixed.find("body 0 ('ground') is fixed"), std::string::npos)
      << fixed;
  EXPECT_NE(message([&] {
              stepper.SetAppliedWrench(7, Vector3::Zero(), Vector3::Zero());
            }).find("body 7"),
            std::string::npos);
  const std::string nan = message([&] {
    stepper.SetAppliedWrench(1, Vector3(NAN, 0, 0), Vector3::Zero());
  });
  EXPECT_NE(nan.find("'box': force and torque must be finite"),
            std::string::npos)
      << nan;
  EXPECT_NE(message([&] {
              stepper.SetAppliedGeneralizedForces(0, Eigen::VectorXd(1));
            }).find("no robot 0"),
            std::string::npos);
}

}  // namespace
}  // namespace sapcontact
