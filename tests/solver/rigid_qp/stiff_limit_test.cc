// Stiff-limit study: SAP with k = inf, tau_d = 0 and
// beta = sigma = s converges to the rigid-contact QP as s -> 0.
//
// Order, and why: with k = inf and tau_d = 0 SAP's regularization is
// R_n = beta^2 / (4 pi^2) w (the near-rigid floor) and R_t = sigma w
// (contact_model/regularization.h), and SAP's problem is, in impulse space,
// the rigid QP with W replaced by W + R (same c = J v* - v_hat, same cones).
// The optimum of a strongly convex QP moves by O(||R||) when its Hessian is
// perturbed by R, so the error is O(R_t) = O(sigma) = O(s): FIRST order, set
// by the friction regularization (R_n = O(s^2) is negligible). When no
// contact has friction (half-line cones, R_t plays no role) the error is
// O(R_n) = O(s^2): SECOND order.
//
// SAP's own round-off: SAP computes the impulses as gamma = -R^-1 (v_c -
// v_hat), so their relative round-off error is about eps w / R_n =
// 4 pi^2 eps / s^2 (9e-7 at s = 1e-4, 9e-5 at s = 1e-5), growing as s
// shrinks while the regularization error decreases. The velocities carry no
// such amplification. "The smallest s that SAP still solves" is therefore
// the smallest s at which SAP converges AND this round-off bound is below
// the error it is compared with (the error expected from the previous decade
// and the stated order); SAP's own ill-conditioning guard
// (min_reciprocal_condition, a cruder condition-number bound) is disabled in
// favour of this one.
//
// Where the rigid impulses are not unique (W singular: three or four
// contacts on one rigid body) only the velocities are determined; SAP's
// limit is then one particular rigid solution (the one of least R-norm) and
// the velocities are compared (errors relative to max(|v|, |v*|)).
//
// The table is printed in the test log.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"
#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/constants.h"
#include "tests/solver/rigid_qp/random_rigid_problems.h"

namespace sapcontact {
namespace {

using test_constants::kInf;

// Rigid contact parameters: k = inf, tau_d = 0.
ContactParameters Rigid(double mu) { return ContactParameters{kInf, 0.0, mu}; }

// 3 x 6 Jacobian of world-frame point r (relative to the centre of mass) of
// a free body with twist (v, w), in the ground frame (n, t1, t2) = (z, x, y).
Eigen::MatrixXd GroundJacobian(const Eigen::Vector3d& r) {
  Eigen::Matrix3d skew, rows;
  skew << 0, -r(2), r(1), r(2), 0, -r(0), -r(1), r(0), 0;
  rows << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  Eigen::Matrix<double, 3, 6> point;
  point << Eigen::Matrix3d::Identity(), -skew;
  return rows * point;
}

Tree Body(double m, const Eigen::Vector3d& inertia, const Eigen::VectorXd& v0,
          double dt) {
  Tree t;
  t.A = Eigen::MatrixXd::Zero(6, 6);
  t.A.diagonal() << m, m, m, inertia;
  t.v_star = v0;
  t.v_star(2) -= 9.81 * dt;
  return t;
}

Contact GroundContact(int tree, const Eigen::Vector3d& r, double phi0,
                      double mu) {
  Contact c;
  c.first = {tree, GroundJacobian(r)};
  c.phi0 = phi0;
  c.parameters = Rigid(mu);
  return c;
}

// One contact below the centre of a box (m = 1 kg), with lever arm.
SapProblem SingleContact(const Eigen::Vector3d& v0) {
  SapProblem p;
  p.time_step = 1e-3;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(6);
  v.head<3>() = v0;
  p.trees.push_back(Body(1.0, Eigen::Vector3d(4e-3, 4e-3, 4e-3), v, 1e-3));
  p.contacts.push_back(
      GroundContact(0, Eigen::Vector3d(0.02, 0, -0.05), -1e-4, 0.5));
  return p;
}

// The pizza saver: a triangle (1.5 kg) on three contacts at radius 0.2 m
// under a torque about z: `torque_ratio` times the friction torque mu m g r.
SapProblem PizzaSaver(double torque_ratio) {
  const double m = 1.5, r = 0.2, mu = 0.5, dt = 1e-3, Iz = 0.03;
  SapProblem p;
  p.time_step = dt;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(6);
  v(5) = torque_ratio * mu * m * 9.81 * r * dt / Iz;
  p.trees.push_back(Body(m, Eigen::Vector3d(0.01, 0.01, Iz), v, dt));
  for (int k = 0; k < 3; ++k) {
    const double th = 2 * M_PI * k / 3;
    p.contacts.push_back(GroundContact(
        0, Eigen::Vector3d(r * std::cos(th), r * std::sin(th), 0), 0.0, mu));
  }
  return p;
}

// Two stacked 0.1 m boxes (1 kg each) at rest, the top one pushed slightly:
// four ground contacts under the lower box and four between the boxes, all
// sticking. (W is singular: four contacts per face.)
SapProblem TwoBoxStack() {
  const double h = 0.05, dt = 1e-3, I = 1.0 * 0.01 / 6.0;
  SapProblem p;
  p.time_step = dt;
  Eigen::VectorXd v1 = Eigen::VectorXd::Zero(6), v2 = v1;
  v2(0) = 0.002;  // the top box is pushed slightly: everything sticks
  p.trees.push_back(Body(1.0, Eigen::Vector3d(I, I, I), v1, dt));
  p.trees.push_back(Body(1.0, Eigen::Vector3d(I, I, I), v2, dt));
  for (double x : {-h, h}) {
    for (double y : {-h, h}) {
      p.contacts.push_back(
          GroundContact(0, Eigen::Vector3d(x, y, -h), -1e-5, 0.6));
      // Between the boxes: normal from box 0 (A) to box 1 (B).
      Contact c;
      c.first = {0, -GroundJacobian(Eigen::Vector3d(x, y, h))};
      c.second =
          ContactJacobianBlock{1, GroundJacobian(Eigen::Vector3d(x, y, -h))};
      c.phi0 = -1e-5;
      c.parameters = Rigid(0.4);
      p.contacts.push_back(c);
    }
  }
  return p;
}

// Random problem (W positive definite), rigid parameters.
SapProblem RandomRigid(int nc, unsigned seed, bool frictionless) {
  std::mt19937 rng(seed);
  // 8 DOFs per contact: a well-conditioned W (with 3, SAP stalls at
  // s = 1e-4 on 50 contacts).
  SapProblem p = testing_rigid_qp::RandomSapProblem(nc, &rng, 8);
  for (Contact& c : p.contacts) {
    if (frictionless) c.parameters.friction = 0.0;
  }
  return p;
}

struct StudyCase {
  std::string name;
  SapProblem problem;
  bool unique_impulses;  // W positive definite
  double expected_order;
};

double RelErr(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
              double floor = 0.0) {
  return (a - b).lpNorm<Eigen::Infinity>() /
         std::max(floor, b.lpNorm<Eigen::Infinity>());
}

void RunStudy(const StudyCase& study) {
  const RigidQpResult rigid = SolveRigidContactQp(study.problem);
  ASSERT_EQ(rigid.status, RigidQpStatus::kSolved) << rigid.reason;
  const RigidContactProblem qp = MakeRigidContactProblem(study.problem, false);
  const KktReport kkt = CheckRigidContactKkt(qp, rigid.impulses);
  ASSERT_LE(kkt.worst_violation, 1e-9);
  const double v_scale = StackedVStar(study.problem).lpNorm<Eigen::Infinity>();
  std::printf(
      "[stiff limit] %s: %d contacts (rigid QP: separating %d, sticking %d, "
      "sliding %d); compared: %s; expected order %.0f\n",
      study.name.c_str(), qp.num_contacts(),
      kkt.Count(ContactMode::kSeparating), kkt.Count(ContactMode::kSticking),
      kkt.Count(ContactMode::kSliding),
      study.unique_impulses ? "impulses" : "velocities", study.expected_order);
  std::printf("  %7s %11s %11s %11s %6s %7s\n", "s", "err impulse",
              "err velocity", "round-off", "order", "Newton");
  std::vector<double> s_values, errors, roundoffs;
  for (double s = 1e-1; s > 0.5e-6; s /= 10) {
    SapSolverParameters prm;
    prm.regularization.near_rigid_threshold = s;
    prm.regularization.friction_regularization = s;
    prm.rel_tolerance = 1e-10;
    prm.min_reciprocal_condition = 0.0;  // see the round-off bound above
    SapSolver sap(prm);
    const SapSolverResults r = sap.Solve(study.problem);
    if (!r.converged()) {
      std::printf("  %7.0e SAP %s: %s\n", s, ToString(r.status),
                  r.message.c_str());
      break;
    }
    const double e_l = RelErr(r.gamma, rigid.impulses);
    const double e_v = RelErr(r.v, rigid.velocities, v_scale);
    const double e = study.unique_impulses ? e_l : e_v;
    const double roundoff =
        study.unique_impulses
            ? 4 * M_PI * M_PI * std::numeric_limits<double>::epsilon() / (s * s)
            : 0.0;
    const double order = errors.empty() ? 0.0 : std::log10(errors.back() / e);
    const bool trusted =
        errors.empty() ||
        roundoff <= errors.back() * std::pow(10.0, -study.expected_order);
    std::printf("  %7.0e %11.3e %11.3e %11.1e %6.2f %7d%s\n", s, e_l, e_v,
                roundoff, order, r.statistics.newton_iterations,
                trusted ? "" : "  (SAP round-off dominates: stop)");
    if (!trusted) break;
    s_values.push_back(s);
    errors.push_back(e);
    roundoffs.push_back(roundoff);
  }
  // SAP solves at least three decades; the error decreases monotonically
  // with the stated order (from the second decade on: the first is
  // pre-asymptotic) and is below 1e-4 at the smallest s SAP solves.
  ASSERT_GE(s_values.size(), 3u) << study.name;
  EXPECT_LT(errors.back(), 1e-4) << study.name;
  // A decade's error is the previous one's times 10^-order, within a
  // quarter of an order, plus the round-off bound of that s (which the
  // last trusted decade may approach: SAP's error there is both).
  for (size_t i = 1; i < errors.size(); ++i) {
    EXPECT_LT(errors[i], errors[i - 1]) << study.name << " s = " << s_values[i];
    if (i >= 2) {
      const double predicted =
          errors[i - 1] * std::pow(10.0, -study.expected_order);
      EXPECT_LE(errors[i], predicted * std::pow(10.0, 0.25) + roundoffs[i])
          << study.name << " s = " << s_values[i];
      EXPECT_GE(errors[i], predicted * std::pow(10.0, -0.25) - roundoffs[i])
          << study.name << " s = " << s_values[i];
    }
  }
}

TEST(StiffLimit, SingleContactSliding) {
  RunStudy({"single contact, sliding",
            SingleContact(Eigen::Vector3d(0.5, 0.2, 0.0)), true, 1.0});
}

TEST(StiffLimit, SingleContactSticking) {
  RunStudy({"single contact, sticking",
            SingleContact(Eigen::Vector3d(0.005, 0.0, -0.5)), true, 1.0});
}

TEST(StiffLimit, PizzaSaver) {
  RunStudy({"pizza saver, torque 0.5 mu m g r (sticks)", PizzaSaver(0.5), false,
            1.0});
  RunStudy(
      {"pizza saver, torque 3 mu m g r (slides)", PizzaSaver(3.0), false, 1.0});
}

TEST(StiffLimit, TwoBoxStack) {
  RunStudy({"two-box stack", TwoBoxStack(), false, 1.0});
}

TEST(StiffLimit, RandomProblems) {
  for (const int nc : {5, 20, 50}) {
    RunStudy({"random, " + std::to_string(nc) + " contacts",
              RandomRigid(nc, 1000 + nc, false), true, 1.0});
  }
}

TEST(StiffLimit, RandomFrictionlessIsSecondOrder) {
  RunStudy({"random frictionless, 20 contacts", RandomRigid(20, 77, true), true,
            2.0});
}

}  // namespace
}  // namespace sapcontact
