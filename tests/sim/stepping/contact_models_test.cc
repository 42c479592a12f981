// The three contact models in scenes (docs/theory.md §18): the lagged model
// does not glide and stops a sliding box where Coulomb friction does; sap and
// similar hover at their predicted heights; Hunt-Crossley restitution; the
// stiff stack with and without the near-rigid floor; the heavy-on-light stack
// at default settings (docs/theory.md §19).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::Simulate;

// box_slide with the lagged model: no hover beyond 0.1 mm while it slides,
// and it stops within 1 % of v0^2 / (2 mu g).
TEST(ContactModels, LaggedBoxSlideDoesNotHoverAndStopsAtTheCoulombDistance) {
  const Scene scene =
      LoadShippedScene("box_slide", {"materials.default.model=lagged"});
  const int box = scene.FindBody("box");
  const double v0 = scene.bodies[box].velocity.norm();
  const double mu = scene.PairParameters(0, box).friction;
  const double g = scene.gravity.norm();
  const double x0 = scene.bodies[box].pose.position.x();
  double z_max_sliding = -1e9;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& t, const StepInfo&) {
        const BodyState& b = t.state()[box];
        if (t.time() > 0.01 && b.velocity.head<2>().norm() > 1e-2) {
          z_max_sliding = std::max(z_max_sliding, b.pose.position.z());
        }
      });
  ASSERT_EQ(s.failed_steps, 0) << s.first_failure;
  const BodyState& f = s.final_state[box];
  const double distance = f.pose.position.x() - x0;
  const double expected = v0 * v0 / (2 * mu * g);
  const double hover = z_max_sliding - f.pose.position.z();
  std::printf(
      "[box_slide lagged] stopping distance %.6f m vs v0^2/(2 mu g) = %.6f m "
      "(%+.3f%%); max height above rest while sliding %.3e m; reported "
      "hover %.3e m\n",
      distance, expected, 100 * (distance / expected - 1), hover,
      s.max_hover_m);
  EXPECT_NEAR(distance, expected, 0.01 * expected);
  EXPECT_LT(hover, 1e-4);
  EXPECT_LT(s.max_hover_m, 1e-4);
  EXPECT_LT(f.velocity.norm(), 1e-4);
}

// The box of box_slide on an incline of slope tan(theta) = mu (gravity
// tilted) launched downhill slides at constant speed, so the hover reaches
// its steady value: for sap h = (dt + tau_d) mu v - delta_rest (tau_d of the
// pair: 2 x 0.01 s), or dt / (dt + tau_d) h once h is a gap (the
// speculative v_hat_n = -phi0 / dt), and dt mu v + delta_rest d mu v /
// (1 + d mu v) for similar, lagged ~0 (docs/theory.md §3, §10, §18). Height
// measured at the box centre against the same box at rest (-delta_rest).
double SteadyHeight(const std::string& model, double v0, double* rest_z,
                    double* mean_speed) {
  const double mu = 0.5, g = 9.81;
  const double theta = std::atan(mu);
  auto run = [&](double v) {
    const Scene scene = LoadShippedScene(
        "box_slide",
        {"materials.default.model=" + model,
         "gravity.0=" + std::to_string(g * std::sin(theta)),
         "gravity.2=" + std::to_string(-g * std::cos(theta)),
         "bodies.box.velocity.0=" + std::to_string(v), "duration=0.3",
         // Contacts are generated within the margin only: a margin well
         // above the hover keeps the gliding contacts in every step.
         "collision.margin=0.05"});
    const int box = scene.FindBody("box");
    double z_sum = 0, v_sum = 0;
    int n = 0;
    const SimulationSummary s =
        Simulate(scene, [&](const TimeStepper& t, const StepInfo&) {
          if (t.time() < 0.2) return;  // past the landing transient
          z_sum += t.state()[box].pose.position.z();
          v_sum += t.state()[box].velocity.x();
          ++n;
        });
    EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
    if (mean_speed) *mean_speed = v_sum / n;
    return z_sum / n;
  };
  *rest_z = run(0.0);
  return run(v0);
}

TEST(ContactModels, SapAndSimilarHoverAtTheirPredictedHeightsLaggedDoesNot) {
  const double mu = 0.5, g = 9.81, dt = 1e-3, m = 10.0;
  const double theta = std::atan(mu);
  for (double v0 : {0.5, 1.0}) {
    double rest, v;
    // k of the pair 5e5 N/m over 4 contacts.
    const double delta_rest = m * g * std::cos(theta) / (4 * 5e5);
    // sap: tau_d of two default materials, 0.02 s.
    const double h_sap = SteadyHeight("sap", v0, &rest, &v) - rest;
    const double T = dt + 0.02, h_paper = T * mu * v - delta_rest;
    const double sap_expected =
        (h_paper > 0 ? dt / T * h_paper : h_paper) + delta_rest;
    // similar: d = 50 s/m.
    const double h_sim = SteadyHeight("similar", v0, &rest, &v) - rest;
    const double d = 50.0;
    const double dmv = d * mu * v;
    const double sim_expected = dt * mu * v + delta_rest * dmv / (1 + dmv);
    const double h_lag = SteadyHeight("lagged", v0, &rest, &v) - rest;
    std::printf(
        "[incline tan = mu, v = %.3f m/s] hover: sap %.4e m (predicted "
        "%.4e), similar %.4e m (predicted %.4e), lagged %.2e m\n",
        v, h_sap, sap_expected, h_sim, sim_expected, h_lag);
    EXPECT_NEAR(v, v0, 0.02 * v0);  // it does slide at constant speed
    EXPECT_NEAR(h_sap, sap_expected, 0.1 * sap_expected);
    EXPECT_NEAR(h_sim, sim_expected, 0.1 * sim_expected);
    EXPECT_LT(std::abs(h_lag), 1e-5);
  }
}

// A ball thrown at the ground without gravity (so only the contact acts):
// Hunt-Crossley restitution e = sqrt(1 - (4/3) d v) to first order in d v,
// i.e. 1 - (2/3) d v; within 5 % of the closed form for d v <= 0.2.
TEST(ContactModels, HuntCrossleyRestitutionMatchesTheClosedForm) {
  const std::string yaml_head = R"(time_step: 1.0e-5
duration: 0.012
gravity: [0, 0, 0]
materials:
  default: {stiffness: 2.0e5, friction: 0.5, model: MODEL,
            hunt_crossley_dissipation: D}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - name: ball
    shape: {type: sphere, radius: 0.05}
    mass: 1.0
    position: [0, 0, 0.0505]
    velocity: [0, 0, -1.0]
)";
  for (const char* model : {"similar", "lagged"}) {
    for (double dv : {0.02, 0.1, 0.2}) {
      std::string yaml = yaml_head;
      yaml.replace(yaml.find("MODEL"), 5, model);
      yaml.replace(yaml.find("D}"), 1, std::to_string(dv));  // v = 1 m/s
      const Scene scene = LoadSceneFromString(yaml, "ball");
      const int ball = scene.FindBody("ball");
      const SimulationSummary s = Simulate(scene);
      ASSERT_EQ(s.failed_steps, 0) << s.first_failure;
      const double e = s.final_state[ball].velocity.z() / 1.0;
      const double closed_form = 1 - 2.0 / 3.0 * dv;
      std::printf(
          "[ball, %s] d v = %.2f: restitution %.5f, 1 - (2/3) d v = %.5f "
          "(%+.2f%%), sqrt(1 - (4/3) d v) = %.5f\n",
          model, dv, e, closed_form, 100 * (e / closed_form - 1),
          std::sqrt(1 - 4.0 / 3.0 * dv));
      EXPECT_NEAR(e, closed_form, 0.05 * closed_form);
      // Separated by the end of the run: the contact is over.
      EXPECT_GT(s.final_state[ball].pose.position.z(), 0.0505);
    }
  }
}

// The 10-box stack at k = 1e12 with lagged contact, dropped from 1 mm gaps,
// at dt = 1 ms and 10 ms: with the near-rigid floor it stands for 5 s; at
// 10 ms without it (beta = 0) the Hessian is too ill-conditioned to solve
// and the stack falls through (docs/theory.md §18).
struct StackRun {
  SimulationSummary summary;
  double top_drift{0}, top_z{0};
};

StackRun RunStiffStack(double beta, double dt, double duration) {
  const Scene scene = LoadShippedScene(
      "stack",
      {"materials.default.stiffness=1e12", "materials.default.model=lagged",
       "solver.near_rigid_threshold=" + std::to_string(beta),
       "time_step=" + std::to_string(dt), "bodies.box.grid.spacing.2=0.101",
       "duration=" + std::to_string(duration)});
  StackRun r;
  r.summary = Simulate(scene);
  const int top = scene.FindBody("box_0_0_9");
  const BodyState& f = r.summary.final_state[top];
  r.top_drift = f.pose.position.head<2>().norm();
  r.top_z = f.pose.position.z();
  return r;
}

TEST(ContactModels, StiffLaggedStackStandsWithTheFloorAndFailsWithout) {
  for (double dt : {1e-3, 1e-2}) {
    const StackRun r = RunStiffStack(1.0, dt, 5.0);
    std::printf(
        "[stack k = 1e12 lagged, floored, dt = %g] failed steps %d, "
        "Newton iterations mean %.2f max %d, top box drift %.2e m, height "
        "%.5f m (0.95 stacked)\n",
        dt, r.summary.failed_steps, r.summary.mean_newton_iterations,
        r.summary.max_newton_iterations, r.top_drift, r.top_z);
    EXPECT_EQ(r.summary.failed_steps, 0) << r.summary.first_failure;
    EXPECT_LT(r.top_drift, 1e-3);
    EXPECT_NEAR(r.top_z, 0.95, 3e-3);
  }
  const StackRun bad = RunStiffStack(0.0, 1e-2, 1.0);
  std::printf(
      "[stack k = 1e12 lagged, no floor, dt = 0.01] failed steps %d of "
      "100 (%s), top box at %.4f m\n",
      bad.summary.failed_steps, bad.summary.first_failure.c_str(), bad.top_z);
  EXPECT_GT(bad.summary.failed_steps, 0);
}

// A 1e6 kg box on a 1 kg box on the ground, rigid contact at the default
// beta = 1 and dt = 1 ms, 2 s: the supported Delassus estimate keeps the
// sink below 1 mm (docs/theory.md §19); SAP's plain estimate
// (solver.supported_delassus_estimate: false) lets it sink by centimetres.
double HeavyOnLightSink(bool supported, SimulationSummary* summary) {
  const Scene scene = LoadShippedScene(
      "mass_ratio",
      {"materials.default.stiffness=.inf", "bodies.heavy.mass=1e6",
       std::string("solver.supported_delassus_estimate=") +
           (supported ? "true" : "false")});
  const int heavy = scene.FindBody("heavy");
  const double z0 = scene.bodies[heavy].pose.position.z();
  *summary = Simulate(scene);
  return z0 - summary->final_state[heavy].pose.position.z();
}

TEST(ContactModels, HeavyOnLightStackAtDefaultSettingsSinksLessThanAMm) {
  SimulationSummary s, plain_summary;
  const double sink = HeavyOnLightSink(true, &s);
  const double plain = HeavyOnLightSink(false, &plain_summary);
  std::printf(
      "[mass_ratio 1:1e6, rigid, beta = 1, dt = 1 ms, 2 s] heavy box sinks "
      "%.3e m (Newton iterations mean %.2f max %d); with SAP's estimate "
      "%.3e m\n",
      sink, s.mean_newton_iterations, s.max_newton_iterations, plain);
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LT(std::abs(sink), 1e-3);
  EXPECT_GT(plain, 1e-2);
}

}  // namespace
}  // namespace sapcontact
