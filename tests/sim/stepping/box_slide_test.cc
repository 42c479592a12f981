// box_slide (config/scenes/box_slide.yaml): a 10 kg box launched at 1 m/s on
// the ground, mu = 0.5. Coulomb friction stops it after v / (mu g) =
// 0.204 s at v^2 / (2 mu g) = 0.1019 m; then it stays.
//
// Both contact models (SAP and the rigid QP) are convex relaxations: while
// the box slides, the contacts "glide" (a normal velocity of about
// mu |v_t|, the box hops by a few mm, docs/scenes.md). The momentum balance
// is unaffected: the normal impulse over time still equals m g t, so the
// friction impulse while sliding is mu m g t and the stopping time and
// distance are those of Coulomb friction, up to the lumpiness of the hops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::MaxPointSpeed;
using scene_tests::Simulate;

struct SlideResult {
  SimulationSummary summary;
  double distance{0};     // x(T) - x(0) [m]
  double x_half{0};       // x at T / 2 [m]
  double stop_time{-1};   // first time the speed drops below 1e-3 m/s [s]
  double max_lateral{0};  // max |y| [m]
};

SlideResult RunBoxSlide(const std::vector<std::string>& overrides) {
  const Scene scene = LoadShippedScene("box_slide", overrides);
  const int box = scene.FindBody("box");
  const double x0 = scene.bodies[box].pose.position.x();
  const int steps =
      static_cast<int>(std::llround(scene.duration / scene.time_step));
  SlideResult r;
  r.summary = Simulate(scene, [&](const TimeStepper& s, const StepInfo&) {
    const BodyState& b = s.state()[box];
    if (r.stop_time < 0 && b.velocity.head<2>().norm() < 1e-3) {
      r.stop_time = s.time();
    }
    if (s.steps_taken() == steps / 2) r.x_half = b.pose.position.x();
    r.max_lateral = std::max(r.max_lateral, std::abs(b.pose.position.y()));
  });
  r.distance = r.summary.final_state[box].pose.position.x() - x0;
  r.x_half -= x0;
  return r;
}

SlideResult ExpectCoulombStop(const std::vector<std::string>& overrides,
                              const char* label) {
  const Scene scene = LoadShippedScene("box_slide", overrides);
  const int box = scene.FindBody("box");
  const double v = scene.bodies[box].velocity.norm();
  const double mu = scene.PairParameters(0, box).friction;
  const double g = scene.gravity.norm();
  const double expected = v * v / (2 * mu * g);
  const SlideResult r = RunBoxSlide(overrides);
  std::printf(
      "[box_slide %s] stopping distance %.6f m, v^2/(2 mu g) = %.6f m "
      "(%+.2f%%); stopped at %.4f s (v/(mu g) = %.4f s); energy "
      "increase %.2e\n",
      label, r.distance, expected, 100 * (r.distance / expected - 1),
      r.stop_time, v / (mu * g), r.summary.energy_max_increase_rel);
  EXPECT_NEAR(r.distance, expected, 0.02 * expected);
  EXPECT_NEAR(r.stop_time, v / (mu * g), 0.05 * v / (mu * g));
  // It stops moving and stays: no creep over the second half.
  EXPECT_LT(MaxPointSpeed(scene, r.summary.final_state, 0.18), 1e-6);
  EXPECT_NEAR(r.distance, r.x_half, 1e-6);
  // Straight along x, and it ends level on the ground.
  EXPECT_LT(r.max_lateral, 1e-9);
  const BodyState& f = r.summary.final_state[box];
  EXPECT_LT(f.pose.orientation.angularDistance(Eigen::Quaterniond::Identity()),
            1e-6);
  EXPECT_NEAR(f.pose.position.z(), 0.1, 1e-4);
  EXPECT_LE(r.summary.energy_max_increase_rel, 1e-3);
  EXPECT_EQ(r.summary.failed_steps, 0) << r.summary.first_failure;
  return r;
}

TEST(BoxSlide, SapStopsAtTheCoulombDistance) { ExpectCoulombStop({}, "sap"); }

TEST(BoxSlide, RigidQpStopsAtTheCoulombDistance) {
  ExpectCoulombStop({"solver.model=rigid"}, "rigid");
}

// Gliding is reported, never hidden (StepInfo::max_hover,
// SimulationSummary::max_hover_m): while the box slides its pushing
// contacts are apart from the ground (docs/theory.md §10: a gap pushes
// with v_hat_n = -phi0 / dt, about dt mu |v_t| = 0.5 mm at 1 m/s); once it
// has stopped nothing hovers.
void ExpectGlidingReported(const std::vector<std::string>& overrides,
                           const char* label) {
  const Scene scene = LoadShippedScene("box_slide", overrides);
  const int box = scene.FindBody("box");
  double stop_time = -1, hover_after_stop = 0, hover_first_50ms = 0;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo& info) {
        const BodyState& b = st.state()[box];
        if (stop_time < 0 && b.velocity.head<2>().norm() < 1e-3) {
          stop_time = st.time();
        }
        if (stop_time >= 0 && st.time() > stop_time + 0.05) {
          hover_after_stop = std::max(hover_after_stop, info.max_hover);
        }
        if (st.time() <= 0.05) {
          hover_first_50ms = std::max(hover_first_50ms, info.max_hover);
        }
        if (info.max_hover > 0) {
          // The reported contact pushes and is apart at the step's end.
          EXPECT_GE(info.hover_contact, 0);
          EXPECT_LT(info.hover_contact, info.contacts);
        } else {
          EXPECT_EQ(info.hover_contact, -1);
        }
      });
  std::printf(
      "[box_slide %s] max hover %.4e m at t = %.4f s between '%s' and '%s' "
      "at z = %.3e m; first 50 ms %.4e m; after stopping (%.4f s) %.1e m\n",
      label, s.max_hover_m, s.max_hover_time_s,
      s.max_hover_bodies.size() == 2 ? s.max_hover_bodies[0].c_str() : "",
      s.max_hover_bodies.size() == 2 ? s.max_hover_bodies[1].c_str() : "",
      s.max_hover_point_m.z(), hover_first_50ms, stop_time, hover_after_stop);
  EXPECT_GT(s.max_hover_m, 2.5e-4);
  EXPECT_LT(s.max_hover_m, 0.03);  // a few times the estimate at most
  EXPECT_GT(hover_first_50ms, 2.5e-4);
  // While it slides (it stops at v / (mu g) = 0.204 s).
  EXPECT_GT(s.max_hover_time_s, 0.0);
  EXPECT_LT(s.max_hover_time_s, 0.21);
  ASSERT_EQ(s.max_hover_bodies.size(), 2u);
  EXPECT_TRUE(
      (s.max_hover_bodies[0] == "ground" && s.max_hover_bodies[1] == "box") ||
      (s.max_hover_bodies[0] == "box" && s.max_hover_bodies[1] == "ground"))
      << s.max_hover_bodies[0] << ", " << s.max_hover_bodies[1];
  // A corner of the box's bottom face, near the ground.
  EXPECT_LT(std::abs(s.max_hover_point_m.z()), 0.03);
  EXPECT_NEAR(std::abs(s.max_hover_point_m.y()), 0.1, 1e-6);
  ASSERT_GT(stop_time, 0);
  EXPECT_EQ(hover_after_stop, 0.0);
}

TEST(BoxSlide, SapGlidingIsReported) {
  ExpectGlidingReported({"solver.contact_model=sap"}, "sap");
}

TEST(BoxSlide, RigidQpGlidingIsReported) {
  ExpectGlidingReported({"solver.model=rigid"}, "rigid");
}

// The lagged Hunt-Crossley model does not glide (docs/theory.md §18): the
// same slide reports no hover where sap's is a fraction of a millimetre.
TEST(BoxSlide, LaggedModelReportsNoGliding) {
  const SimulationSummary sap =
      Simulate(LoadShippedScene("box_slide", {"solver.contact_model=sap"}));
  // The scenes' default.
  const SimulationSummary lagged = Simulate(LoadShippedScene("box_slide"));
  std::printf("[box_slide] max hover: sap %.4e m, lagged %.4e m\n",
              sap.max_hover_m, lagged.max_hover_m);
  EXPECT_GT(sap.max_hover_m, 2.5e-4);
  EXPECT_LT(lagged.max_hover_m, 1e-6);
  EXPECT_EQ(lagged.failed_steps, 0) << lagged.first_failure;
}

// A box at rest pushes without sliding: no hover.
TEST(BoxSlide, RestingBoxDoesNotHover) {
  const SimulationSummary s =
      Simulate(LoadShippedScene("box_slide", {"bodies.box.velocity=[0,0,0]"}));
  EXPECT_EQ(s.max_hover_m, 0.0);
  EXPECT_EQ(s.max_hover_time_s, 0.0);
  EXPECT_TRUE(s.max_hover_bodies.empty());
}

}  // namespace
}  // namespace sapcontact
