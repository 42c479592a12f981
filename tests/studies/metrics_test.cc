// Metric and estimate definitions (studies/metrics.h) on small synthetic runs
// whose values are computed by hand, and the recorder's consistency with
// the simulator's own summary on a real run.
#include "sapcontact/studies/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/metrics_recorder.h"
#include "tests/studies/sweep_test_util.h"

namespace sapcontact {
namespace {

double Value(const std::vector<MetricValue>& values, const std::string& name) {
  for (const MetricValue& m : values) {
    if (m.name == name) return m.value;
  }
  ADD_FAILURE() << name << " missing";
  return NAN;
}

ContactSample Contact(double phi0, double gamma_n, double vt, double w = 0.25,
                      double R_n = 1e-3, double R_t = 2.5e-4) {
  ContactSample c;
  c.phi0 = phi0;
  c.impulse = Vector3(gamma_n, -0.1 * gamma_n, 0);
  c.velocity = Vector3(0, vt, 0);
  c.parameters = ContactParameters{1e6, 0.02, 0.5};
  c.w = w;
  c.R_n = R_n;
  c.R_t = R_t;
  return c;
}

// 20 steps: the window is the last 2 (10%).
TEST(MetricsAccumulatorTest, WindowPenetrationSlipIterationsEnergy) {
  MetricsContext ctx;
  ctx.time_step = 0.01;
  ctx.total_steps = 20;
  MetricsAccumulator acc(ctx);
  EXPECT_EQ(acc.window_start(), 18);
  for (int n = 0; n < 20; ++n) {
    StepSample s;
    s.max_penetration = n == 5 ? 1e-3 : 1e-6 * (n + 1);
    s.newton_iterations = n % 4;  // 0 1 2 3 ...
    s.reciprocal_condition = s.newton_iterations > 0 ? 1.0 / (100 + n) : 0.0;
    s.step_time_s = 2e-6;
    s.energy = 10.0 - 0.5 * n;
    s.supported_mass = 2.0;
    // One active contact slipping at (0.1 n + 0.05) mm/s and one inactive
    // one (gamma_n = 0) moving fast: only the active one counts.
    s.contacts = {Contact(-1e-6, 0.2, 1e-4 * n + 5e-5),
                  Contact(1e-3, 0.0, 5.0)};
    acc.Add(s);
  }
  const std::vector<MetricValue> m = acc.Metrics(DefaultMetricNames());
  EXPECT_DOUBLE_EQ(Value(m, "max_penetration_m"), 1e-3);
  EXPECT_DOUBLE_EQ(Value(m, "resting_penetration_m"), 0.5 * (19e-6 + 20e-6));
  EXPECT_NEAR(Value(m, "stiction_slip_speed_mps"), 19e-4, 1e-15);
  EXPECT_DOUBLE_EQ(Value(m, "mean_newton_iterations"), 30.0 / 20);
  EXPECT_DOUBLE_EQ(Value(m, "max_newton_iterations"), 3);
  EXPECT_DOUBLE_EQ(Value(m, "us_per_step"), 2.0);
  // Steps with iterations: n = 1, 2, 3, 5, ..., 19; the worst is n = 19.
  EXPECT_DOUBLE_EQ(Value(m, "hessian_condition_estimate"), 119.0);
  EXPECT_DOUBLE_EQ(Value(m, "energy_drift"), -9.5);
  // Sliding (v_t > 1 mm/s) from n = 10 on: phi0 = -1e-6 each, and the
  // prediction averaged over n = 10..19 (mean v_t = 1.5 mm/s): a gap, so
  // dt mu v_t = dt / (dt + tau_d) (dt + tau_d) mu v_t (metrics.h).
  EXPECT_DOUBLE_EQ(Value(m, "hover_height_m"), -1e-6);
  EXPECT_NEAR(Value(acc.Estimates(), "estimate_hover_height_m"),
              0.01 * 0.5 * 1.5e-3, 1e-15);
}

TEST(MetricsAccumulatorTest, UndefinedMetricsAreNaN) {
  MetricsContext ctx;
  ctx.total_steps = 3;
  MetricsAccumulator acc(ctx);
  StepSample s;  // no contacts, no iterations
  for (int n = 0; n < 3; ++n) acc.Add(s);
  const std::vector<MetricValue> m =
      acc.Metrics({"stiction_slip_speed_mps", "hessian_condition_estimate",
                   "hover_height_m", "rigid_qp_impulse_distance",
                   "rigid_qp_failed_steps", "max_penetration_m"});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(m[i].value)) << m[i].name;
  EXPECT_EQ(m[5].value, 0.0);
  for (const MetricValue& e : acc.Estimates()) {
    EXPECT_TRUE(std::isnan(e.value)) << e.name;
  }
  EXPECT_THROW(acc.Metrics({"no_such_metric"}), std::invalid_argument);
}

TEST(MetricsAccumulatorTest, BadContextNamesTheField) {
  MetricsContext ctx;
  ctx.window_fraction = 0;
  try {
    MetricsAccumulator acc(ctx);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("window_fraction"), std::string::npos);
  }
}

// A 10 kg body on four equal contacts on a 20 degree incline (gravity
// tilted as in config/scenes/incline.yaml): hand-computed estimates.
TEST(MetricsAccumulatorTest, EstimatesOnAnIncline) {
  const double g = 9.81, theta = 20 * M_PI / 180, dt = 1e-2;
  MetricsContext ctx;
  ctx.time_step = dt;
  ctx.total_steps = 1;
  ctx.gravity = Vector3(g * std::sin(theta), 0, -g * std::cos(theta));
  ctx.near_rigid_threshold = 0.5;
  ctx.friction_regularization = 1e-3;
  MetricsAccumulator acc(ctx);
  StepSample s;
  s.supported_mass = 10;
  const double w = 0.26, R_n = 2e-3, R_t = 2.6e-4;
  for (int k = 0; k < 4; ++k)
    s.contacts.push_back(Contact(-1e-5, 0.2, 0, w, R_n, R_t));
  s.contacts.push_back(Contact(0.0, 0.0, 0, 99, 99, 99));  // inactive: ignored
  acc.Add(s);
  const std::vector<MetricValue> e = acc.Estimates();
  const double tau = 0.02, Fn = 10 * g * std::cos(theta) / 4;  // per contact
  EXPECT_NEAR(Value(e, "estimate_resting_penetration_m"),
              Fn * dt * (dt + tau) * R_n, 1e-15);
  EXPECT_NEAR(Value(e, "estimate_compliant_penetration_m"), Fn / 1e6, 1e-15);
  EXPECT_NEAR(Value(e, "estimate_near_rigid_penetration_m"),
              Fn * dt * (dt + tau) * 0.25 * w / (4 * M_PI * M_PI), 1e-15);
  EXPECT_NEAR(Value(e, "estimate_crossover_stiffness_N_per_m"),
              4 * M_PI * M_PI / (dt * (dt + tau) * 0.25 * w), 1e-6);
  EXPECT_NEAR(Value(e, "estimate_stiction_slip_mps"),
              R_t * 10 * g * std::sin(theta) * dt / 4, 1e-15);
  EXPECT_NEAR(Value(e, "estimate_stiction_slip_bound_mps"), 1e-3 * 0.5 * g * dt,
              1e-15);
  EXPECT_EQ(Value(e, "contact_count"), 4);
  EXPECT_EQ(Value(e, "contact_R_t"), R_t);
}

// A probe body hits a surface with normal n at 2 m/s (three steps in
// contact), rebounds at 1.6 m/s: restitution 0.8, estimate 1 - (2/3) d v_i
// from the contact's d (Hunt-Crossley) and none for sap.
StepSample ProbeStep(const Vector3& v0, const Vector3& v, bool in_contact,
                     const Vector3& normal, ContactModel model) {
  StepSample s;
  s.probe.valid = true;
  s.probe.velocity0 = v0;
  s.probe.velocity = v;
  s.probe.in_contact = in_contact;
  s.probe.normal = normal;
  s.probe.parameters.model = model;
  s.probe.parameters.hunt_crossley_dissipation = 0.05;
  return s;
}

TEST(MetricsAccumulatorTest, RestitutionOfTheFirstImpact) {
  // A tilted surface: the tangential part of the velocity does not count.
  const Vector3 n = Vector3(0, 0.6, 0.8);
  const Vector3 t = Vector3(1, 0, 0);
  for (ContactModel model : {ContactModel::kSimilar, ContactModel::kSap}) {
    MetricsContext ctx;
    ctx.total_steps = 8;
    MetricsAccumulator acc(ctx);
    const Vector3 in = -2.0 * n + 0.3 * t, out = 1.6 * n + 0.3 * t;
    acc.Add(ProbeStep(in, in, false, n, model));            // approaching
    acc.Add(ProbeStep(in, -0.5 * n, true, n, model));       // impact starts
    acc.Add(ProbeStep(-0.5 * n, 0.5 * n, true, n, model));  // compression
    acc.Add(ProbeStep(0.5 * n, out, true, n, model));       // restitution
    acc.Add(ProbeStep(out, out, false, n, model));          // separated
    // A second impact (slower, other normal) does not count.
    acc.Add(ProbeStep(out, -out, true, -n, model));
    acc.Add(ProbeStep(-out, Vector3::Zero(), false, -n, model));
    EXPECT_NEAR(Value(acc.Metrics({"restitution"}), "restitution"), 0.8, 1e-14);
    const std::vector<MetricValue> e = acc.Estimates();
    EXPECT_NEAR(Value(e, "impact_speed_mps"), 2.0, 1e-14);
    if (model == ContactModel::kSap) {
      EXPECT_TRUE(std::isnan(Value(e, "estimate_restitution")));
      EXPECT_TRUE(std::isnan(Value(e, "estimate_restitution_exact")));
      EXPECT_TRUE(std::isnan(Value(e, "impact_dissipation_speed")));
    } else {
      EXPECT_NEAR(Value(e, "impact_dissipation_speed"), 0.1, 1e-14);
      EXPECT_NEAR(Value(e, "estimate_restitution"), 1 - 0.2 / 3, 1e-14);
      // The continuous impact conserves G(d v) = d v - ln(1 + d v) between
      // impact (d v = 0.1) and separation (d v = -0.1 e); e = 1 - (2/3) u +
      // (4/9) u^2 + O(u^3) above the first-order estimate.
      const double ex = Value(e, "estimate_restitution_exact");
      EXPECT_NEAR(-0.1 * ex - std::log1p(-0.1 * ex), 0.1 - std::log1p(0.1),
                  1e-14);
      EXPECT_NEAR(ex, 0.93747558, 1e-8);
      EXPECT_NEAR(ex, 1 - 0.2 / 3 + 4.0 / 9 * 0.01, 0.5e-3);
    }
  }
}

TEST(MetricsAccumulatorTest, RestitutionUndefinedWithoutSeparationOrImpact) {
  const Vector3 n = Vector3::UnitZ();
  MetricsContext ctx;
  ctx.total_steps = 3;
  {  // Stays in contact: no rebound yet.
    MetricsAccumulator acc(ctx);
    acc.Add(ProbeStep(-n, -n, false, n, ContactModel::kLagged));
    acc.Add(ProbeStep(-n, Vector3::Zero(), true, n, ContactModel::kLagged));
    acc.Add(ProbeStep(Vector3::Zero(), Vector3::Zero(), true, n,
                      ContactModel::kLagged));
    EXPECT_TRUE(std::isnan(Value(acc.Metrics({"restitution"}), "restitution")));
    EXPECT_NEAR(Value(acc.Estimates(), "impact_speed_mps"), 1.0, 1e-15);
  }
  {  // Touches while moving away (v_i < 0): not an impact.
    MetricsAccumulator acc(ctx);
    acc.Add(ProbeStep(n, n, true, n, ContactModel::kLagged));
    acc.Add(ProbeStep(n, n, false, n, ContactModel::kLagged));
    EXPECT_TRUE(std::isnan(Value(acc.Metrics({"restitution"}), "restitution")));
    EXPECT_TRUE(std::isnan(Value(acc.Estimates(), "estimate_restitution")));
  }
}

// The hover estimate per model (metrics.h): a 4 kg body sliding at 2 m/s
// on four contacts (k_eff = 1e5 N/m, mu = 0.5, dt = 0.01, tau_d = 0.02,
// d = 50 s/m), each resting at delta = 4 g / (4 k_eff) = 9.81e-5 m:
// sap h = (dt + tau_d) mu v - delta, a gap here, so dt / (dt + tau_d) h;
// similar dt mu v - delta / (1 + d mu v), lagged -delta.
TEST(MetricsAccumulatorTest, HoverEstimatePerModel) {
  const double g = 9.81;
  const double delta = 4 * g / (4 * 1e5);
  const std::vector<std::pair<ContactModel, double>> cases = {
      {ContactModel::kSap, 0.01 / 0.03 * (0.03 * 0.5 * 2 - delta)},
      {ContactModel::kSimilar, 0.01 * 0.5 * 2 - delta / (1 + 50 * 0.5 * 2)},
      {ContactModel::kLagged, -delta}};
  for (const auto& [model, expected] : cases) {
    MetricsContext ctx;
    ctx.time_step = 0.01;
    ctx.total_steps = 1;
    MetricsAccumulator acc(ctx);
    StepSample s;
    s.supported_mass = 4;
    for (int k = 0; k < 4; ++k) {
      ContactSample c = Contact(2e-3, 0.1, 2.0);
      c.parameters.model = model;
      c.parameters.hunt_crossley_dissipation = 50;
      c.effective_stiffness = 1e5;
      s.contacts.push_back(c);
    }
    acc.Add(s);
    EXPECT_NEAR(Value(acc.Estimates(), "estimate_hover_height_m"), expected,
                1e-15)
        << ToString(model);
    EXPECT_DOUBLE_EQ(Value(acc.Metrics({"hover_height_m"}), "hover_height_m"),
                     2e-3);
  }
}

// Creep of a Hunt-Crossley contact that should stick: every contact's
// friction mu n0 v / sqrt(v^2 + eps^2) must hold m g sin(theta) dt / n,
// so v = eps r / sqrt(1 - r^2), r = tan(theta) / mu; eps = v_s unless
// mu R_t n0 is larger.
TEST(MetricsAccumulatorTest, HuntCrossleyStictionEstimate) {
  const double g = 9.81, theta = 20 * M_PI / 180, dt = 1e-3, m = 10;
  const double r = std::tan(theta) / 0.5;
  for (const double v_s : {1e-4, 1e-8}) {
    MetricsContext ctx;
    ctx.time_step = dt;
    ctx.total_steps = 1;
    ctx.gravity = Vector3(g * std::sin(theta), 0, -g * std::cos(theta));
    MetricsAccumulator acc(ctx);
    StepSample s;
    s.supported_mass = m;
    const double R_t = 2.6e-4;
    for (int k = 0; k < 4; ++k) {
      ContactSample c = Contact(-1e-5, 0.2, 0, 0.26, 2e-3, R_t);
      c.parameters.model = ContactModel::kLagged;
      c.parameters.stiction_tolerance = v_s;
      s.contacts.push_back(c);
    }
    acc.Add(s);
    const double eps =
        std::max(v_s, 0.5 * R_t * m * g * std::cos(theta) * dt / 4);
    EXPECT_NEAR(Value(acc.Estimates(), "estimate_stiction_slip_mps"),
                eps * r / std::sqrt(1 - r * r), 1e-12 * eps);
  }
  EXPECT_NEAR(r / std::sqrt(1 - r * r), 1.061, 1e-3);  // about v_s tan / mu
}

// On a real run the recorder agrees with the simulator's own summary for
// the quantities both compute, and its energy drift is the dissipated
// kinetic energy of a box that slides to rest.
TEST(MetricsRecorderTest, AgreesWithSimulationSummary) {
  // The SAP model, whose sliding box hovers (hover_height_m > 0).
  const Scene scene =
      LoadScene(sweep_testing::ScenePath("box_slide"),
                {"duration=0.3", "time_step=2e-3", "solver.contact_model=sap"});
  MetricsRecorder recorder(scene, MetricsOptions{});
  SimulationOptions options;
  options.on_step = [&](const TimeStepper& stepper, const StepInfo& info) {
    recorder.OnStep(stepper, info);
  };
  const SimulationSummary summary = RunSimulation(scene, options);
  const std::vector<MetricValue> m = recorder.Metrics();
  EXPECT_EQ(Value(m, "max_penetration_m"), summary.max_penetration_m);
  EXPECT_DOUBLE_EQ(Value(m, "mean_newton_iterations"),
                   summary.mean_newton_iterations);
  EXPECT_EQ(Value(m, "max_newton_iterations"), summary.max_newton_iterations);
  // The box slides 0.1 m and stops: friction dissipated its kinetic energy
  // (1/2 m v^2 = 5 J), give or take the (small) elastic energy.
  EXPECT_NEAR(Value(m, "energy_drift"), -5.0, 0.05);
  EXPECT_LT(Value(m, "energy_drift"), 0.0);
  // Sliding phase: the box hovers (gliding) at a positive height.
  EXPECT_GT(Value(m, "hover_height_m"), 0.0);
  EXPECT_THROW(MetricsRecorder(scene, MetricsOptions{{"bogus"}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
