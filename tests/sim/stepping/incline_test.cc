// incline (config/scenes/incline.yaml): a 10 kg box on a plane inclined by
// theta (gravity tilted about y, "down the slope" = +x), mu = 0.5.
//   20 deg (tan = 0.364 < mu): it sticks; SAP's regularized friction lets
//     the contact creep at most sigma mu g dt (SAP paper Eq. (31),
//     PointMassStictionSlipBound), so over the duration T the contact point
//     drifts less than sigma mu g dt T (+1e-6 m).
//   30 deg (tan = 0.577 > mu): it slides with a = g (sin - mu cos).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

#include "sapcontact/contact_model/regime_estimates.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::Simulate;

const char* const k30Degrees = "gravity=[4.905,0,-8.495709211]";

// The material point at the centre of the box's bottom face (body frame
// (0, 0, -0.1)): where the box touches the incline. Its motion is the slip;
// the centre of mass also moves by the elastic tilt of the compliant
// contacts (the downhill corners carry more load), which is not slip.
Vector3 BottomCentre(const BodyState& s) {
  return s.pose.ToWorld(Vector3(0, 0, -0.1));
}

TEST(Incline, TwentyDegreesSticks) {
  // SAP's stiction: creep R_t |gamma_t| (the lagged model's regularized
  // friction creeps at up to its stiction tolerance).
  const Scene scene = LoadShippedScene("incline", {"solver.contact_model=sap"});
  const int box = scene.FindBody("box");
  const double g = scene.gravity.norm();
  const double theta = std::atan2(scene.gravity.x(), -scene.gravity.z());
  ASSERT_NEAR(theta, 20 * M_PI / 180, 1e-8);
  const double mu = scene.PairParameters(0, box).friction;
  ASSERT_LT(std::tan(theta), mu);
  const Vector3 p0 = BottomCentre(BodyState{scene.bodies[box].pose, {}, {}});
  double max_drift = 0.0;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        const Vector3 d = BottomCentre(st.state()[box]) - p0;
        max_drift = std::max(max_drift, d.head<2>().norm());
      });
  const double bound =
      PointMassStictionSlipBound(scene.solver.friction_regularization, mu, g,
                                 scene.time_step) *
          scene.duration +
      1e-6;
  const Vector3 com_drift =
      s.final_state[box].pose.position - scene.bodies[box].pose.position;
  std::printf(
      "[incline 20 deg] contact drift %.3e m (bound %.3e m); centre "
      "of mass moved %.3e m (elastic tilt); energy increase %.2e\n",
      max_drift, bound, com_drift.head<2>().norm(), s.energy_max_increase_rel);
  EXPECT_LT(max_drift, bound);
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);
}

TEST(Incline, ThirtyDegreesSlidesWithCoulombAcceleration) {
  const Scene scene = LoadShippedScene("incline", {k30Degrees});
  const int box = scene.FindBody("box");
  const double g = scene.gravity.norm();
  const double theta = std::atan2(scene.gravity.x(), -scene.gravity.z());
  ASSERT_NEAR(theta, 30 * M_PI / 180, 1e-8);
  const double mu = scene.PairParameters(0, box).friction;
  const double expected = g * (std::sin(theta) - mu * std::cos(theta));
  // Least-squares fit x(t) = c0 + c1 t + a t^2 / 2 over every step: the
  // mean acceleration (the box hops while it glides, docs/scenes.md, so the
  // instantaneous velocity is lumpy; the momentum balance is not).
  std::vector<double> t, x;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        t.push_back(st.time());
        x.push_back(st.state()[box].pose.position.x());
      });
  Eigen::MatrixXd M(t.size(), 3);
  Eigen::VectorXd b(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    M.row(i) << 1.0, t[i], 0.5 * t[i] * t[i];
    b(i) = x[i];
  }
  const Eigen::Vector3d c = M.colPivHouseholderQr().solve(b);
  const double T = t.back();
  std::printf(
      "[incline 30 deg] fitted acceleration %.5f m/s^2, g (sin - mu "
      "cos) = %.5f m/s^2 (%+.2f%%); 2 x(T) / T^2 = %.5f; energy "
      "increase %.2e\n",
      c(2), expected, 100 * (c(2) / expected - 1), 2 * x.back() / (T * T),
      s.energy_max_increase_rel);
  EXPECT_NEAR(c(2), expected, 0.02 * expected);
  EXPECT_NEAR(2 * x.back() / (T * T), expected, 0.02 * expected);
  // Straight down the slope, still upright.
  EXPECT_LT(std::abs(s.final_state[box].pose.position.y()), 1e-9);
  EXPECT_LT(s.final_state[box].pose.orientation.angularDistance(
                Eigen::Quaterniond::Identity()),
            0.05);
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);
}

}  // namespace
}  // namespace sapcontact
