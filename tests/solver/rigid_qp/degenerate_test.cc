// Degenerate rigid-contact problems: rank-deficient W (duplicated contacts;
// a W with a null direction that is bounded or unbounded), all contacts
// separating, frictionless everywhere, no contacts.
#include <gtest/gtest.h>

#include <iostream>

#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "tests/solver/rigid_qp/random_rigid_problems.h"
#include "tests/solver/rigid_qp/rigid_qp_test_utils.h"

namespace sapcontact {
namespace {

using testing_rigid_qp::SolveAndCheck;

// A free rigid body (mass 2 kg, inertia diag(0.1, 0.2, 0.3)) resting on the
// ground on contact points; each contact's Jacobian maps the body twist
// (v, w) to the contact velocity in the frame (n = z, t1 = x, t2 = y).
SapProblem BoxOnGround(const std::vector<Eigen::Vector3d>& points, double mu,
                       const Eigen::VectorXd& v_star) {
  SapProblem p;
  p.time_step = 1e-2;
  Tree body;
  body.A = Eigen::MatrixXd::Zero(6, 6);
  body.A.topLeftCorner<3, 3>() = 2.0 * Eigen::Matrix3d::Identity();
  body.A.bottomRightCorner<3, 3>() =
      Eigen::Vector3d(0.1, 0.2, 0.3).asDiagonal();
  body.v_star = v_star;
  p.trees.push_back(body);
  Eigen::Matrix3d R;  // rows: n, t1, t2 in world coordinates
  R << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  for (const Eigen::Vector3d& r : points) {
    Eigen::Matrix3d rx;  // v_point = v + w x r = v - r x w
    rx << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
    Contact c;
    c.first.tree = 0;
    c.first.J.resize(3, 6);
    c.first.J << R, -R * rx;
    c.phi0 = 0.0;
    c.parameters.stiffness = std::numeric_limits<double>::infinity();
    c.parameters.dissipation_time_scale = 0.0;
    c.parameters.friction = mu;
    p.contacts.push_back(c);
  }
  return p;
}

// Four coincident contacts at the center of mass (W has rank 3, 12 rows),
// the body falling and sliding: only the sum of the impulses is determined;
// it must equal the single-contact solution.
TEST(Degenerate, DuplicatedContactsDetermineOnlyTheSum) {
  Eigen::VectorXd v_star(6);
  v_star << 0.5, 0.0, -1.0, 0.0, 0.0, 0.0;  // sliding along x, falling
  const Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  const SapProblem one = BoxOnGround({origin}, 0.3, v_star);
  const SapProblem four =
      BoxOnGround({origin, origin, origin, origin}, 0.3, v_star);
  const RigidQpResult r1 =
      SolveAndCheck(MakeRigidContactProblem(one, false), "single contact");
  const RigidContactProblem p4 = MakeRigidContactProblem(four, false);
  const RigidQpResult r4 = SolveAndCheck(p4, "4 duplicated contacts");
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (int k = 0; k < 4; ++k) sum += r4.impulses.segment<3>(3 * k);
  EXPECT_LT((sum - r1.impulses).norm(), 1e-8 * r1.impulses.norm());
  // Single contact at the center of mass: W = I / 2, so the optimum is the
  // projection of -2 c = (2, -1, 0) onto mu = 0.3: sliding.
  const Eigen::Vector3d expected =
      testing_rigid_qp::ProjectOntoCone(Eigen::Vector3d(2.0, -1.0, 0.0), 0.3);
  EXPECT_LT((r1.impulses - expected).norm(), 1e-8);
  // Same post-step velocities.
  const RigidQpResult v1 = SolveRigidContactQp(one);
  const RigidQpResult v4 = SolveRigidContactQp(four);
  ASSERT_EQ(v4.status, RigidQpStatus::kSolved);
  EXPECT_LT((v1.velocities - v4.velocities).norm(), 1e-8);
}

// Worked QP example 4 without regularization is covered in
// worked_examples_test.cc; here a W with a null direction along which the
// objective is bounded (c'd >= 0): W = diag(0, 1, 1), c = (0.3, 1, 0),
// mu = 1. Along the cone boundary l = (a, -a, 0): f = -0.7 a + a^2 / 2, so
// the unique optimum is l = (0.7, -0.7, 0), u = (0.3, 0.3, 0) (on the dual
// cone boundary, l'u = 0).
TEST(Degenerate, SingularWBoundedBelow) {
  const RigidContactProblem p = MakeDenseRigidContactProblem(
      Eigen::Vector3d(0.0, 1.0, 1.0).asDiagonal().toDenseMatrix(),
      Eigen::Vector3d(0.3, 1.0, 0.0), Eigen::VectorXd::Constant(1, 1.0));
  const RigidQpResult r = SolveAndCheck(p, "singular W, bounded");
  EXPECT_LT((r.impulses - Eigen::Vector3d(0.7, -0.7, 0.0)).norm(), 1e-5);
  EXPECT_NEAR(r.objective, -0.245, 1e-9);
}

// Unbounded QPs (W d = 0, c'd < 0 for d in the cone): reported as
// kInfeasible with a certificate, never as solved.
TEST(Degenerate, UnboundedBelowIsReported) {
  struct Case {
    Eigen::Vector3d w_diag, c;
    double mu;
  };
  for (const Case& k : {Case{{0.0, 1.0, 1.0}, {-1.0, 0.0, 0.0}, 0.5},
                        Case{{0.0, 0.0, 0.0}, {-1.0, 0.0, 0.0}, 0.0},
                        Case{{0.0, 0.0, 0.0}, {0.1, 1.0, 0.0}, 0.5}}) {
    const RigidContactProblem p =
        MakeDenseRigidContactProblem(k.w_diag.asDiagonal().toDenseMatrix(), k.c,
                                     Eigen::VectorXd::Constant(1, k.mu));
    const RigidQpResult r = SolveRigidContactQp(p);
    std::cout << "[rigid_qp] unbounded case: " << ToString(r.status) << " ("
              << r.reason << "), iterations " << r.iterations << "\n";
    EXPECT_EQ(r.status, RigidQpStatus::kInfeasible) << r.reason;
    ASSERT_EQ(r.unbounded_direction.size(), 3);
    const Eigen::Vector3d d = r.unbounded_direction;
    EXPECT_LT(p.c.dot(d), 0.0);
    EXPECT_LT((p.W * d).norm(), 1e-6);
    EXPECT_LT(DistanceToFrictionCone(d, k.mu), 1e-6);
  }
}

// Every contact separating: the optimum is l = 0 and u = c.
TEST(Degenerate, AllSeparating) {
  const testing_rigid_qp::RandomRigidProblem rp =
      testing_rigid_qp::MakeRandomRigidProblem(30, 5, false);
  RigidContactProblem p = rp.rigid;
  for (int k = 0; k < p.num_contacts(); ++k) {
    p.c(3 * k) = 1.0 + p.mu(k) * p.c.segment<2>(3 * k + 1).norm();
  }
  const RigidQpResult r = SolveAndCheck(p, "all separating");
  EXPECT_LT(r.impulses.lpNorm<Eigen::Infinity>(), 1e-9);
  const KktReport kkt = CheckRigidContactKkt(p, r.impulses);
  EXPECT_EQ(kkt.Count(ContactMode::kSeparating), p.num_contacts());
}

// Frictionless everywhere: tangential impulses exactly 0, and the normal
// impulses solve the LCP 0 <= l_n  _|_  W_nn l_n + c_n >= 0.
TEST(Degenerate, FrictionlessEverywhere) {
  for (const bool sparse : {false, true}) {
    testing_rigid_qp::RandomRigidProblem rp =
        testing_rigid_qp::MakeRandomRigidProblem(40, 11, sparse);
    RigidContactProblem p = rp.rigid;
    p.mu.setZero();
    RigidQpSolverOptions options;
    options.linear_solver =
        sparse ? RigidQpLinearSolver::kSparse : RigidQpLinearSolver::kDense;
    const RigidQpResult r = SolveAndCheck(
        p, sparse ? "frictionless (sparse)" : "frictionless", 1e-9, options);
    int active = 0;
    for (int k = 0; k < p.num_contacts(); ++k) {
      EXPECT_EQ(r.impulses(3 * k + 1), 0.0);
      EXPECT_EQ(r.impulses(3 * k + 2), 0.0);
      const double ln = r.impulses(3 * k), un = r.constraint_velocities(3 * k);
      EXPECT_GE(ln, 0.0);
      EXPECT_GE(un, -1e-9);
      EXPECT_LT(std::abs(ln * un), 1e-9);
      active += ln > 1e-6;
    }
    EXPECT_GT(active, 0);
    EXPECT_LT(active, p.num_contacts());
  }
}

TEST(Degenerate, NoContactsAndZeroVelocity) {
  const RigidContactProblem empty = MakeDenseRigidContactProblem(
      Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), Eigen::VectorXd(0));
  const RigidQpResult r0 = SolveRigidContactQp(empty);
  EXPECT_EQ(r0.status, RigidQpStatus::kSolved);
  EXPECT_EQ(r0.impulses.size(), 0);
  // c = 0: l = 0 is optimal.
  const RigidContactProblem zero = MakeDenseRigidContactProblem(
      Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d::Zero(),
      Eigen::VectorXd::Constant(1, 0.5));
  const RigidQpResult r1 = SolveRigidContactQp(zero);
  EXPECT_EQ(r1.status, RigidQpStatus::kSolved);
  EXPECT_EQ(r1.impulses.norm(), 0.0);
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

// Unreachable tolerances: the solver stalls and says so. With the default
// reduced tolerance (1e-6) the best iterate is reported as solved to reduced
// accuracy (and is accurate); with an unreachable reduced tolerance too, it
// is a failure. Never kSolved.
TEST(Degenerate, UnreachableTolerancesAreReported) {
  const testing_rigid_qp::RandomRigidProblem rp =
      testing_rigid_qp::MakeRandomRigidProblem(20, 3, false);
  RigidQpSolverOptions options;
  options.feasibility_tolerance = 1e-20;
  options.gap_tolerance = 1e-20;
  const RigidQpResult r = SolveRigidContactQp(rp.rigid, options);
  std::cout << "[rigid_qp] unreachable tolerances: " << ToString(r.status)
            << " (" << r.reason << ")\n";
  EXPECT_EQ(r.status, RigidQpStatus::kSolvedReducedAccuracy);
  EXPECT_LE(CheckRigidContactKkt(rp.rigid, r.impulses).worst_violation, 1e-9);
  options.reduced_tolerance = 1e-20;
  const RigidQpResult f = SolveRigidContactQp(rp.rigid, options);
  EXPECT_TRUE(f.status == RigidQpStatus::kNumericalError ||
              f.status == RigidQpStatus::kMaxIterations)
      << ToString(f.status);
}

}  // namespace
}  // namespace sapcontact
