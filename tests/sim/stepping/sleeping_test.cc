// Sleeping islands (solver.sleep; docs/scenes.md "Sleeping"): still islands
// fall asleep as a whole and cost nothing (no contacts, no Newton
// iterations); a moving body's contact, a force, a moving kinematic body or
// a new state wakes them, after which the motion matches the run without
// sleeping; islands sleep independently; with a threshold nothing reaches,
// the run is bitwise the run without sleeping.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
namespace {

// A 10 kg box resting on the ground (released 1 mm above it), a second box
// 2 m away, a ball 0.5 m above the first box (falls onto it after 0.3 s
// unless `ball` is false).
std::string Scene3(bool sleep, bool ball, const std::string& extra = "") {
  std::string s =
      "time_step: 1.0e-3\nduration: 2\n"
      "materials:\n  default: {friction: 0.5}\n"
      "solver: {sleep: " +
      std::string(sleep ? "true" : "false") + extra +
      "}\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane}}\n"
      "  - name: box\n    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
      "    mass: 10\n    position: [0, 0, 0.101]\n"
      "  - name: other\n    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
      "    mass: 10\n    position: [2, 0, 0.101]\n";
  if (ball) {
    s += "  - name: ball\n    shape: {type: sphere, radius: 0.05}\n"
         "    mass: 1\n    position: [0.02, 0, 0.7]\n";
  }
  return s;
}

Scene Load(const std::string& text) {
  return LoadSceneFromString(text, "sleeping.yaml");
}

TEST(Sleeping, RestingBoxesFallAsleepAndCostNothing) {
  const Scene scene = Load(Scene3(true, false));
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box"), other = scene.FindBody("other");
  int slept_at = -1;
  for (int n = 0; n < 1000; ++n) {
    const StepInfo info = stepper.Step();
    if (slept_at < 0 && info.sleeping_bodies == 2) slept_at = n;
  }
  // Released 1 mm high: about 15 ms of fall and the contact's settling,
  // then sleep_time (0.2 s) of stillness.
  ASSERT_GE(slept_at, 200);
  ASSERT_LT(slept_at, 600);
  EXPECT_TRUE(stepper.IsAsleep(box));
  EXPECT_TRUE(stepper.IsAsleep(other));
  EXPECT_FALSE(stepper.IsAsleep(scene.FindBody("ground")));
  EXPECT_EQ(stepper.num_sleeping(), 2);
  // Frozen exactly where the awake run rests (its residual motion is below
  // the threshold), with zero velocities, no contacts and no iterations.
  TimeStepper awake(Load(Scene3(false, false)));
  for (int n = 0; n < 1000; ++n) awake.Step();
  const Pose rest = stepper.state()[box].pose;
  EXPECT_LT((rest.position - awake.state()[box].pose.position).norm(), 1e-6);
  for (int n = 0; n < 100; ++n) {
    const StepInfo info = stepper.Step();
    EXPECT_EQ(info.contacts, 0);
    EXPECT_EQ(info.newton_iterations, 0);
    EXPECT_EQ(info.sleeping_bodies, 2);
  }
  EXPECT_EQ(stepper.state()[box].pose.position, rest.position);
  EXPECT_EQ(stepper.state()[box].velocity, Vector3::Zero());
  EXPECT_EQ(stepper.last_problem().trees.size(), 0u);
  EXPECT_EQ(stepper.KineticEnergy(), 0.0);
}

TEST(Sleeping, AFallingBallWakesTheBoxAndTheMotionMatchesTheAwakeRun) {
  const Scene scene = Load(Scene3(true, true));
  TimeStepper sleepy(scene), awake(Load(Scene3(false, true)));
  const int box = scene.FindBody("box"), ball = scene.FindBody("ball");
  const int other = scene.FindBody("other");
  bool box_slept = false, box_woke = false;
  auto distance = [&](int b) {
    return (sleepy.state()[b].pose.position - awake.state()[b].pose.position)
        .norm();
  };
  for (int n = 0; n < 1500; ++n) {
    sleepy.Step();
    awake.Step();
    if (sleepy.IsAsleep(box)) box_slept = true;
    if (box_slept && !sleepy.IsAsleep(box)) box_woke = true;
    if (n == 400) {
      // 0.1 s after the impact (at 0.3 s): the box was frozen at its rest
      // pose, so the two runs agree to the awake box's residual motion.
      EXPECT_TRUE(box_woke);
      EXPECT_LT(distance(box), 1e-6);
      EXPECT_LT(distance(ball), 1e-6);
      EXPECT_GT(sleepy.state()[box].velocity.norm(), 0.0);
    }
  }
  EXPECT_TRUE(box_slept);  // asleep before the ball arrived
  EXPECT_TRUE(box_woke);
  EXPECT_TRUE(sleepy.IsAsleep(other));  // slept through it all
  // At the end both rest again; the ball still rolls slowly on the awake
  // box (under the 1 mm/s threshold), the sleeping one stopped: heights
  // agree, horizontal positions within what 1 mm/s moves in a second.
  EXPECT_TRUE(sleepy.IsAsleep(ball));
  for (int b : {box, ball}) {
    const Vector3 d =
        sleepy.state()[b].pose.position - awake.state()[b].pose.position;
    EXPECT_LT(std::abs(d.z()), 1e-6) << scene.bodies[b].name;
    EXPECT_LT(d.norm(), 1e-3) << scene.bodies[b].name;
  }
}

TEST(Sleeping, AForceWakesTheIslandAndTheBoxSlides) {
  const Scene scene = Load(Scene3(true, false));
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box"), other = scene.FindBody("other");
  for (int n = 0; n < 800; ++n) stepper.Step();
  ASSERT_TRUE(stepper.IsAsleep(box));
  // 80 N against mu m g = 49.05 N of sliding friction: a = 3.095 m/s^2.
  stepper.SetAppliedWrench(box, Vector3(80, 0, 0), Vector3::Zero());
  EXPECT_FALSE(stepper.IsAsleep(box));
  const int steps = 200;
  for (int n = 0; n < steps; ++n) stepper.Step();
  const double a = 80.0 / 10.0 - 0.5 * 9.81;
  EXPECT_NEAR(stepper.state()[box].velocity.x(), a * steps * 1e-3, 2e-3);
  EXPECT_FALSE(stepper.IsAsleep(box));  // a force keeps it awake
  EXPECT_TRUE(stepper.IsAsleep(other));
  // Released: it stops (friction) and sleeps again.
  stepper.ClearAppliedForces();
  for (int n = 0; n < 600; ++n) stepper.Step();
  EXPECT_TRUE(stepper.IsAsleep(box));
}

TEST(Sleeping, AStackSleepsAndWakesAsOneIsland) {
  const Scene scene = Load(
      "time_step: 1.0e-3\nduration: 2\nsolver: {sleep: true}\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane}}\n"
      "  - name: bottom\n    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
      "    mass: 10\n    position: [0, 0, 0.1]\n"
      "  - name: top\n    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
      "    mass: 1\n    position: [0, 0, 0.3]\n");
  TimeStepper stepper(scene);
  const int bottom = scene.FindBody("bottom"), top = scene.FindBody("top");
  int bottom_at = -1, top_at = -1;
  for (int n = 0; n < 1000; ++n) {
    stepper.Step();
    if (bottom_at < 0 && stepper.IsAsleep(bottom)) bottom_at = n;
    if (top_at < 0 && stepper.IsAsleep(top)) top_at = n;
  }
  ASSERT_GE(bottom_at, 0);
  EXPECT_EQ(bottom_at, top_at);  // one island
  stepper.WakeUp(bottom);
  EXPECT_FALSE(stepper.IsAsleep(top));
  EXPECT_EQ(stepper.num_sleeping(), 0);
  // Awake again, the stack rests where it was: contacts carry the weight.
  const StepInfo info = stepper.Step();
  EXPECT_EQ(info.contacts, 8);  // two face-face manifolds of 4 points
  EXPECT_LT(stepper.state()[top].velocity.norm(), 1e-3);
  EXPECT_THROW(stepper.WakeUp(7), std::invalid_argument);
}

TEST(Sleeping, AMovingPlatformWakesTheBoxItCarries) {
  // The platform starts rising at 0.1 m/s at t = 0.5 s; the box slept on it
  // before and rides up with it.
  const std::string yaml =
      "time_step: 1.0e-3\nduration: 2\nsolver: {sleep: true}\n"
      "bodies:\n"
      "  - name: platform\n    fixed: true\n"
      "    shape: {type: box, size: [1, 1, 0.1]}\n    position: [0, 0, "
      "-0.05]\n"
      "    prescribed: {velocity: {times: [0, 0.5, 0.5001], values: [[0, 0, "
      "0], [0, 0, 0], [0, 0, 0.1]]}}\n"
      "  - name: box\n    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
      "    mass: 10\n    position: [0, 0, 0.1]\n";
  const Scene scene = Load(yaml);
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box");
  for (int n = 0; n < 450; ++n) stepper.Step();
  ASSERT_TRUE(stepper.IsAsleep(box));
  const double z0 = stepper.state()[box].pose.position.z();
  for (int n = 0; n < 500; ++n) stepper.Step();
  EXPECT_FALSE(stepper.IsAsleep(box));  // carried: never still relative
  // Risen with the platform by 0.1 m/s over about 0.45 s.
  const double rise = stepper.state()[box].pose.position.z() - z0;
  EXPECT_NEAR(rise, 0.1 * 0.45, 2e-3);
  EXPECT_NEAR(stepper.state()[box].velocity.z(), 0.1, 1e-3);
}

TEST(Sleeping, AnUnreachableThresholdLeavesTheRunBitwiseUnchanged) {
  // Without the rest start (solver.warm_start_at_rest): it stops resting
  // islands at v = 0 exactly, which is below any threshold.
  TimeStepper plain(Load(Scene3(false, true, ", warm_start_at_rest: false")));
  TimeStepper never(Load(
      Scene3(true, true, ", warm_start_at_rest: false, sleep_speed: 1e-300")));
  for (int n = 0; n < 600; ++n) {
    const StepInfo a = plain.Step();
    const StepInfo b = never.Step();
    ASSERT_EQ(a.contacts, b.contacts) << n;
    ASSERT_EQ(a.newton_iterations, b.newton_iterations) << n;
  }
  for (size_t b = 0; b < plain.state().size(); ++b) {
    EXPECT_EQ(plain.state()[b].pose.position, never.state()[b].pose.position);
    EXPECT_EQ(plain.state()[b].velocity, never.state()[b].velocity);
  }
  EXPECT_EQ(never.num_sleeping(), 0);
}

TEST(Sleeping, SettingAStateWakesTheBodies) {
  const Scene scene = Load(Scene3(true, false));
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box");
  for (int n = 0; n < 800; ++n) stepper.Step();
  ASSERT_TRUE(stepper.IsAsleep(box));
  BodyState lifted = stepper.state()[box];
  lifted.pose.position.z() += 0.05;
  stepper.SetBodyState(box, lifted);
  EXPECT_FALSE(stepper.IsAsleep(box));
  for (int n = 0; n < 50; ++n) stepper.Step();
  // Falling freely: 50 ms of gravity.
  EXPECT_NEAR(stepper.state()[box].velocity.z(), -9.81 * 0.05, 1e-9);
  EXPECT_EQ(stepper.num_sleeping(), 1);  // the other box
  // A whole new state wakes everything.
  stepper.SetState(stepper.state());
  EXPECT_EQ(stepper.num_sleeping(), 0);
  EXPECT_EQ(stepper.Step().sleeping_bodies, 0);
}

TEST(Sleeping, BadSettingsNameTheField) {
  for (const char* bad : {", sleep_speed: 0", ", sleep_speed: 5",
                          ", sleep_time: -1", ", sleep: 3"}) {
    try {
      Load(Scene3(true, false, bad));
      ADD_FAILURE() << bad;
    } catch (const SceneError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("solver.sleep"), std::string::npos) << what;
      EXPECT_NE(what.find("sleeping.yaml"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace sapcontact
