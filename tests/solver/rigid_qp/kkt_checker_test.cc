// The KKT checker itself: cone distances against an independent projection
// (certified by Moreau's decomposition), detection of each kind of violation,
// invariance of the normalized measure under changes of units, modes.
#include <gtest/gtest.h>

#include <random>

#include "tests/solver/rigid_qp/rigid_qp_test_utils.h"

namespace sapcontact {
namespace {

using testing_rigid_qp::ProjectOntoCone;

TEST(KktChecker, ConeDistancesMatchCertifiedProjection) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> unif(0.0, 2.0);
  for (int i = 0; i < 2000; ++i) {
    const Eigen::Vector3d x(g(rng), g(rng), g(rng));
    const double mu = i % 10 == 0 ? 0.0 : unif(rng);
    const Eigen::Vector3d p = ProjectOntoCone(x, mu);
    // Moreau: p in F, x - p in the polar cone -F*, p'(x - p) = 0.
    EXPECT_LE(p.tail<2>().norm(), mu * p(0) + 1e-12);
    const Eigen::Vector3d r = x - p;
    EXPECT_GE(-r(0), mu * r.tail<2>().norm() - 1e-12);
    EXPECT_NEAR(p.dot(r), 0.0, 1e-12);
    EXPECT_NEAR(DistanceToFrictionCone(x, mu), r.norm(), 1e-12);
    // The dual cone {u_n >= mu |u_t|} is the friction cone of 1/mu.
    const double expected_dual =
        mu > 0.0 ? DistanceToFrictionCone(x, 1.0 / mu) : std::max(0.0, -x(0));
    EXPECT_NEAR(DistanceToDualFrictionCone(x, mu), expected_dual, 1e-12);
  }
  EXPECT_NEAR(DistanceToFrictionCone(Eigen::Vector3d(0, 1, 0), 1.0),
              std::sqrt(0.5), 1e-15);
  EXPECT_EQ(DistanceToFrictionCone(Eigen::Vector3d(2, 1, 0), 1.0), 0.0);
  EXPECT_NEAR(DistanceToFrictionCone(Eigen::Vector3d(-2, 1, 0), 1.0),
              std::sqrt(5.0), 1e-15);
}

// Worked QP example 3 (worked_examples_test.cc) (W = 0.1 I, c = (-1.5, 3, 4),
// mu = 0.3) with its exact optimum, then perturbed.
class CheckerOnKnownOptimum : public ::testing::Test {
 protected:
  RigidContactProblem p_ = MakeDenseRigidContactProblem(
      0.1 * Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d(-1.5, 3.0, 4.0),
      Eigen::VectorXd::Constant(1, 0.3));
  Eigen::Vector3d l_ = ProjectOntoCone(Eigen::Vector3d(15, -30, -40), 0.3);
};

TEST_F(CheckerOnKnownOptimum, ExactOptimumPasses) {
  const KktReport r = CheckRigidContactKkt(p_, l_);
  EXPECT_LE(r.worst_violation, 1e-14);
  EXPECT_EQ(r.contacts[0].mode, ContactMode::kSliding);
  EXPECT_NEAR(r.total_complementarity, 0.0, 1e-13);
  // u on the boundary of the dual cone: u_n = mu |u_t| (the normal shift).
  EXPECT_NEAR(r.u(0), 0.3 * r.u.tail<2>().norm(), 1e-13);
}

TEST_F(CheckerOnKnownOptimum, DetectsEachViolation) {
  // Outside the friction cone.
  Eigen::Vector3d l = l_;
  l(1) *= 1.01;
  KktReport r = CheckRigidContactKkt(p_, l);
  // dist = (|l_t| - mu l_n) / sqrt(1 + mu^2) = 0.0286 [N s], normalized by
  // L = V / w = 4 / 0.1 = 40 [N s].
  EXPECT_NEAR(r.max_primal_violation,
              (l.tail<2>().norm() - 0.3 * l(0)) / std::sqrt(1.09) / 40.0,
              1e-15);
  EXPECT_FALSE(r.Passes(1e-6));
  // The Coulomb answer (no gliding, docs/theory.md §10): inside the cone but
  // with u_n = 0 < mu |u_t|: dual violation.
  l = Eigen::Vector3d(15.0, -0.3 * 15.0 * 0.6, -0.3 * 15.0 * 0.8);
  r = CheckRigidContactKkt(p_, l);
  EXPECT_EQ(r.max_primal_violation, 0.0);
  EXPECT_GT(r.max_dual_violation, 1e-2);
  // On the cone, dual-feasible, but not complementary: a larger impulse
  // along the same boundary ray.
  l = 1.2 * l_;
  r = CheckRigidContactKkt(p_, l);
  EXPECT_EQ(r.max_primal_violation, 0.0);
  EXPECT_GT(r.max_complementarity, 1e-3);
  EXPECT_GT(r.worst_violation, 1e-3);
  // Zero impulse: u = c outside the dual cone.
  r = CheckRigidContactKkt(p_, Eigen::Vector3d::Zero());
  EXPECT_GT(r.max_dual_violation, 0.5);
}

// The normalized measure does not depend on units: W -> a W, c -> b c,
// l -> (b / a) l.
TEST_F(CheckerOnKnownOptimum, NormalizationIsUnitInvariant) {
  Eigen::Vector3d l = l_;
  l(2) *= 1.001;
  const double w0 = CheckRigidContactKkt(p_, l).worst_violation;
  EXPECT_GT(w0, 1e-6);
  for (const double a : {1e-3, 1.0, 1e4}) {
    for (const double b : {1e-2, 1.0, 1e3}) {
      const RigidContactProblem q =
          MakeDenseRigidContactProblem(a * p_.W, b * p_.c, p_.mu);
      EXPECT_NEAR(CheckRigidContactKkt(q, (b / a) * l).worst_violation, w0,
                  1e-9 * w0);
    }
  }
}

TEST(KktChecker, ModesAndCounts) {
  // Three decoupled contacts: separating, sticking, sliding.
  const Eigen::MatrixXd W = Eigen::MatrixXd::Identity(9, 9);
  Eigen::VectorXd c(9);
  c << 1.0, 0.1, 0.0,  // separating: l = 0, u = c in the dual cone interior
      -1.0, 0.1, 0.0,  // sticking: l = -c inside the cone (mu = 0.5)
      -1.0, 2.0, 0.0;  // sliding
  const Eigen::Vector3d mu(0.5, 0.5, 0.5);
  const RigidContactProblem p = MakeDenseRigidContactProblem(W, c, mu);
  Eigen::VectorXd l(9);
  l << Eigen::Vector3d::Zero(), Eigen::Vector3d(1.0, -0.1, 0.0),
      ProjectOntoCone(Eigen::Vector3d(1.0, -2.0, 0.0), 0.5);
  const KktReport r = CheckRigidContactKkt(p, l);
  EXPECT_LE(r.worst_violation, 1e-14);
  EXPECT_EQ(r.contacts[0].mode, ContactMode::kSeparating);
  EXPECT_EQ(r.contacts[1].mode, ContactMode::kSticking);
  EXPECT_EQ(r.contacts[2].mode, ContactMode::kSliding);
  EXPECT_EQ(r.Count(ContactMode::kSliding), 1);
  // Scales: V = max(|c|_inf, |W l|_inf) = 2, L = max(|l|_inf, V / 1).
  EXPECT_DOUBLE_EQ(r.velocity_scale, 2.0);
  EXPECT_DOUBLE_EQ(r.impulse_scale, 2.0);
}

}  // namespace
}  // namespace sapcontact
