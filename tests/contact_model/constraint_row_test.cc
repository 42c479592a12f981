// ConstraintRow (limits, holonomic constraints, PD actuation) against finite
// differences in every region, and the regularization formulas of
// docs/theory.md §17 against their closed forms.
#include "sapcontact/contact_model/constraint_row.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sapcontact/contact_model/constraint_regularization.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kInf;
using test_constants::kPi;

// Region of a row at v: -1 below the lower bound, 0 inside, 1 above.
int Region(const ConstraintRow& r, double v) {
  const double y = (r.v_hat - v) / r.R;
  return y < r.lower ? -1 : (y > r.upper ? 1 : 0);
}

TEST(ConstraintRow, ImpulseAndHessianAreDerivativesOfTheCostInEveryRegion) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int seen[3] = {0, 0, 0};
  for (int trial = 0; trial < 300; ++trial) {
    ConstraintRow row;
    row.R = std::pow(10.0, 3 * U(rng));
    row.inverse_R = 1.0 / row.R;
    row.v_hat = U(rng);
    const int kind = trial % 3;  // limit, bounded holonomic, unbounded
    row.lower = kind == 0 ? 0.0 : (kind == 1 ? -std::abs(U(rng)) : -kInf);
    row.upper = kind == 0 ? kInf : (kind == 1 ? std::abs(U(rng)) : kInf);
    const double v = row.v_hat + 2.0 * row.R * U(rng);
    const int region = Region(row, v);
    const double h = 1e-6 * std::max(1.0, row.R);
    if (Region(row, v + h) != region || Region(row, v - h) != region) continue;
    ++seen[region + 1];
    const ConstraintRowState s = row.Evaluate(v);
    const ConstraintRowState sp = row.Evaluate(v + h);
    const ConstraintRowState sm = row.Evaluate(v - h);
    // gamma = -dl/dv and G = -dgamma/dv.
    const double dl = (sp.cost - sm.cost) / (2 * h);
    EXPECT_NEAR(-dl, s.gamma, 1e-6 * (1 + std::abs(s.gamma))) << trial;
    const double dg = (sp.gamma - sm.gamma) / (2 * h);
    EXPECT_NEAR(-dg, s.G, 1e-6 * (1 + s.G)) << trial;
    EXPECT_GE(s.G, 0.0);
    EXPECT_GE(s.gamma, row.lower);
    EXPECT_LE(s.gamma, row.upper);
  }
  EXPECT_GT(seen[0], 20);  // below the lower bound
  EXPECT_GT(seen[1], 20);  // inside
  EXPECT_GT(seen[2], 20);  // above the upper bound
}

TEST(ConstraintRow, CostIsContinuousAcrossTheBounds) {
  ConstraintRow row;
  row.R = 0.5;
  row.inverse_R = 2.0;
  row.v_hat = 0.1;
  row.lower = -0.3;
  row.upper = 0.2;
  for (double b : {row.lower, row.upper}) {
    const double v = row.v_hat - b * row.R;  // y = b exactly
    const double eps = 1e-9;
    EXPECT_NEAR(row.Evaluate(v - eps).cost, row.Evaluate(v + eps).cost, 1e-8);
    EXPECT_NEAR(row.Evaluate(v - eps).gamma, row.Evaluate(v + eps).gamma, 1e-8);
  }
}

TEST(ConstraintRegularization, LimitRowFollowsTheFormulas) {
  const double dt = 1e-3, w = 2.0, g0 = 0.01;
  // Compliant: R = 1 / (dt k (dt + tau)), v_hat = -g0 / (dt + tau).
  const ConstraintRow c = LimitRow(g0, 1e4, 0.02, dt, w, 0.1);
  EXPECT_NEAR(c.R, 1.0 / (dt * 1e4 * (dt + 0.02)), 1e-15);
  EXPECT_NEAR(c.v_hat, -g0 / (dt + 0.02), 1e-15);
  EXPECT_FALSE(c.near_rigid);
  EXPECT_EQ(c.lower, 0.0);
  EXPECT_EQ(c.upper, kInf);
  // Rigid: the floor, tau = dt by default.
  const ConstraintRow r = LimitRow(g0, kInf, -1.0, dt, w, 0.1);
  EXPECT_NEAR(r.R, 0.01 * w / (4 * kPi * kPi), 1e-15);
  EXPECT_NEAR(r.v_hat, -g0 / (2 * dt), 1e-12);
  EXPECT_TRUE(r.near_rigid);
  EXPECT_THROW(LimitRow(g0, kInf, -1.0, dt, w, 0.0), std::invalid_argument);
  EXPECT_THROW(LimitRow(g0, -1.0, -1.0, dt, w, 0.1), std::invalid_argument);
}

TEST(ConstraintRegularization, HolonomicRowUsesDtWhenTheFloorWins) {
  const double dt = 1e-3, w = 1.0;
  const ConstraintRow r = HolonomicRow(0.002, kInf, 0.0, dt, w, 0.1, -1, 1);
  EXPECT_NEAR(r.v_hat, -0.002 / (2 * dt), 1e-12);
  const ConstraintRow c =
      HolonomicRow(0.002, 100.0, 0.01, dt, w, 0.1, -kInf, kInf);
  EXPECT_NEAR(c.R, 1.0 / (dt * (dt + 0.01) * 100.0), 1e-12);
  EXPECT_NEAR(c.v_hat, -0.002 / (dt + 0.01), 1e-15);
  EXPECT_THROW(HolonomicRow(0, 1, 0, dt, w, 0.1, 1.0, -1.0),
               std::invalid_argument);
}

// The PD row's impulse is dt times the clamped implicit PD effort.
TEST(ConstraintRegularization, ActuationRowIsTheImplicitPdLaw) {
  const double dt = 2e-3, q0 = 0.3, qd = 0.5, vd = 0.1, u0 = 1.5, kp = 200,
               kd = 5, e = 3.0;
  const ConstraintRow r =
      ActuationRow(q0, qd, vd, u0, kp, kd, e, dt, 1e-3, 0.1);
  EXPECT_FALSE(r.near_rigid);
  for (double v : {-2.0, -0.1, 0.0, 0.05, 0.4, 3.0}) {
    const double u = -kp * (q0 + dt * v - qd) - kd * (v - vd) + u0;
    const double expected = dt * std::clamp(u, -e, e);
    EXPECT_NEAR(r.Evaluate(v).gamma, expected, 1e-12) << v;
  }
  // Gains stiffer than the floor allows are scaled down together.
  const double w = 1e3;
  const ConstraintRow s =
      ActuationRow(q0, qd, 0, 0, 1e9, 1e6, kInf, dt, w, 0.1);
  EXPECT_TRUE(s.near_rigid);
  EXPECT_NEAR(s.R, 0.01 * w / (4 * kPi * kPi), 1e-12 * s.R);
  // With v_d = u0 = 0 the scaled law keeps v_hat = kp (q_d - q0) / c.
  const double c = dt * 1e9 + 1e6;
  EXPECT_NEAR(s.v_hat, 1e9 * (qd - q0) / c, 1e-9);
  EXPECT_THROW(ActuationRow(q0, qd, vd, u0, 0, 0, e, dt, 1, 0.1),
               std::invalid_argument);
  EXPECT_THROW(ActuationRow(q0, qd, vd, u0, 1, 1, 0.0, dt, 1, 0.1),
               std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
