// The "pizza saver" (an equilateral triangle on three point contacts under a
// torque about the vertical axis) against its closed-form solutions.
#include <gtest/gtest.h>

#include "sapcontact/contact_model/regime_estimates.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::CostIsMonotone;
using testing::PizzaSaver;

// R_t of the (identical) contacts, computed as the model does.
double ContactRt(const PizzaSaver& ps) {
  const SapProblem p = ps.Build();
  const Matrix3 W = p.contacts[0].first.J * p.trees[0].A.inverse() *
                    p.contacts[0].first.J.transpose();
  return ps.reg.friction_regularization * DelassusDiagonalEstimate(W);
}

void ExpectStiction(const PizzaSaver& ps, const SapSolverResults& r) {
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_TRUE(CostIsMonotone(r.statistics));
  // Closed form: v = (0, 0, 0, 0, 0, w) with w (I_z + 3 r^2 / R_t) = tau dt.
  const double Rt = ContactRt(ps);
  const double w = ps.tau * ps.dt / (ps.I_z + 3 * ps.r * ps.r / Rt);
  const double vscale = ps.g * ps.dt;
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r.v(i), 0.0, 1e-9 * vscale) << i;
  EXPECT_NEAR(r.v(5), w, 1e-9 * std::abs(w) + 1e-12);
  const double gn = ps.m * ps.g * ps.dt / 3;
  for (int k = 0; k < 3; ++k) {
    const Vector3 gamma = r.gamma.segment<3>(3 * k);
    EXPECT_NEAR(gamma(kNormal), gn, 1e-8 * gn) << "contact " << k;
    // Friction is tangent to the circle, opposing the rotation, with
    // |gamma_t| = r w / R_t inside the cone.
    EXPECT_NEAR(Tangential(gamma).norm(), ps.r * w / Rt, 1e-8 * gn);
    EXPECT_LE(Tangential(gamma).norm(), ps.contact.friction * gamma(kNormal));
    const Vector3 p = ps.ContactPoint(k);
    const double torque = p(0) * gamma(kTangent2) - p(1) * gamma(kTangent1);
    EXPECT_LE(torque * ps.tau, 0.0);
    // Slip speed r w = R_t |gamma_t| is below the bound sigma mu g dt.
    EXPECT_LE(ps.r * std::abs(w),
              PointMassStictionSlipBound(ps.reg.friction_regularization,
                                         ps.contact.friction, ps.g, ps.dt));
  }
}

TEST(PizzaSaver, StictionBelowTheFrictionTorque) {
  PizzaSaver ps;
  ps.tau = 0.5 * ps.contact.friction * ps.m * ps.g * ps.r;  // < mu m g r
  const SapProblem p = ps.Build();
  SapSolver solver;
  ExpectStiction(ps, solver.Solve(p));
}

TEST(PizzaSaver, SlidingAboveTheFrictionTorque) {
  PizzaSaver ps;
  ps.tau = 3.0 * ps.contact.friction * ps.m * ps.g * ps.r;  // > mu m g r
  const SapProblem p = ps.Build();
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_TRUE(CostIsMonotone(r.statistics));
  // Closed form with all three contacts in region II (docs/theory.md §4): with
  // v = (0, 0, v_z, 0, 0, w), each contact has v_n = v_z, slip r w, and
  //   gamma_n = (v_hat - v_z + mu r w) / Q,  Q = R_n + mu^2 R_t,
  // (the mu r w term is the convex relaxation's "gliding"), and momentum
  // balance gives the 2x2 system
  //   m (v_z + g dt) = 3 gamma_n,   I_z (w - w*) = -3 r mu gamma_n.
  const double mu = ps.contact.friction;
  const Matrix3 Wkk = p.contacts[0].first.J * p.trees[0].A.inverse() *
                      p.contacts[0].first.J.transpose();
  const ContactRegularization reg =
      ComputeRegularization(ps.contact, ps.reg, ps.dt,
                            DelassusDiagonalEstimate(Wkk), p.contacts[0].phi0);
  const double Q = reg.R_n + mu * mu * reg.R_t, vh = reg.v_hat_n;
  const double w_star = p.trees[0].v_star(5);
  Eigen::Matrix2d M;
  M << ps.m + 3 / Q, -3 * mu * ps.r / Q, -3 * mu * ps.r / Q,
      ps.I_z + 3 * ps.r * ps.r * mu * mu / Q;
  const Eigen::Vector2d rhs(3 * vh / Q - ps.m * ps.g * ps.dt,
                            ps.I_z * w_star - 3 * ps.r * mu * vh / Q);
  const Eigen::Vector2d sol = M.lu().solve(rhs);
  const double gn = (vh - sol(0) + mu * ps.r * sol(1)) / Q;
  EXPECT_NEAR(r.v(2), sol(0), 1e-9 * std::abs(sol(0)));
  EXPECT_NEAR(r.v(5), sol(1), 1e-9 * std::abs(sol(1)));
  EXPECT_GT(r.v(2), 0.0);  // the relaxation lifts a sliding body off
  double sum_torque = 0.0;
  for (int k = 0; k < 3; ++k) {
    const Vector3 gamma = r.gamma.segment<3>(3 * k);
    EXPECT_NEAR(gamma(kNormal), gn, 1e-9 * gn);
    // On the cone surface: ||gamma_t|| = mu gamma_n.
    EXPECT_NEAR(Tangential(gamma).norm(), mu * gamma(kNormal),
                1e-10 * gamma(kNormal));
    // Friction opposes the slip velocity.
    const Vector3 vc = r.v_c.segment<3>(3 * k);
    EXPECT_LT(Tangential(vc).dot(Tangential(gamma)), 0.0);
    const Vector3 pk = ps.ContactPoint(k);
    sum_torque += pk(0) * gamma(kTangent2) - pk(1) * gamma(kTangent1);
  }
  EXPECT_NEAR(-sum_torque, 3 * ps.r * mu * gn, 1e-9 * std::abs(sum_torque));
  EXPECT_GT(r.v(5), 0.0);  // still spinning up
}

TEST(PizzaSaver, Frictionless) {
  PizzaSaver ps;
  ps.contact.friction = 0.0;
  ps.tau = 0.1;
  const SapProblem p = ps.Build();
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_NEAR(r.v(5), ps.tau * ps.dt / ps.I_z, 1e-12);  // free spin
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(r.gamma(3 * k), ps.m * ps.g * ps.dt / 3, 1e-12);
    EXPECT_EQ(r.gamma(3 * k + 1), 0.0);
    EXPECT_EQ(r.gamma(3 * k + 2), 0.0);
  }
}

TEST(PizzaSaver, NearRigidStiction) {
  PizzaSaver ps;
  ps.contact.stiffness = 1e20;  // R_n at the near-rigid floor
  ps.tau = 0.5 * ps.contact.friction * ps.m * ps.g * ps.r;
  for (double dt : {1e-3, 1e-2}) {
    ps.dt = dt;
    SapSolver solver;
    ExpectStiction(ps, solver.Solve(ps.Build()));
  }
}

TEST(PizzaSaver, RigidWithoutNearRigidFloorIsReportedNotWrong) {
  // beta = 0 and k = 1e20: R_n ~ 1e-15, the Hessian has condition ~1e15.
  PizzaSaver ps;
  ps.contact.stiffness = 1e20;
  ps.reg.near_rigid_threshold = 0.0;
  ps.tau = 0.5 * ps.contact.friction * ps.m * ps.g * ps.r;
  SapSolverParameters params;
  params.regularization = ps.reg;
  SapSolver solver(params);
  const SapSolverResults r = solver.Solve(ps.Build());
  EXPECT_FALSE(r.converged()) << "status " << ToString(r.status) << " residual "
                              << r.statistics.final_scaled_residual;
  EXPECT_FALSE(r.message.empty());
  std::printf("beta = 0, k = 1e20: status %s: %s\n", ToString(r.status),
              r.message.c_str());
}

}  // namespace
}  // namespace sapcontact
