// Random rigid-contact problems (1 to 200 contacts, mu in [0, 1.5], W
// positive definite from random J and A) with a designed optimum that mixes
// separating, sticking and sliding contacts: the interior-point solution
// passes the KKT checker to 1e-8, equals the designed optimum and has the
// designed contact modes; dense and CHOLMOD paths agree; the SapProblem entry
// point assembles W, c and v consistently with dense algebra.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <iostream>

#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "tests/solver/rigid_qp/random_rigid_problems.h"
#include "tests/solver/rigid_qp/rigid_qp_test_utils.h"

namespace sapcontact {
namespace {

using testing_rigid_qp::MakeRandomRigidProblem;
using testing_rigid_qp::RandomRigidProblem;
using testing_rigid_qp::SolveAndCheck;

double RelativeError(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() /
         std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

TEST(RandomProblems, PassKktAndRecoverDesignedOptimum) {
  int counts[3] = {0, 0, 0};
  double max_error = 0.0;
  unsigned seed = 1;
  for (int nc : {1, 2, 3, 7, 20, 60, 200}) {
    for (int rep = 0; rep < (nc <= 20 ? 4 : 1); ++rep, ++seed) {
      const RandomRigidProblem rp = MakeRandomRigidProblem(nc, seed, false);
      const std::string label =
          "random nc=" + std::to_string(nc) + " seed=" + std::to_string(seed);
      const RigidQpResult r = SolveAndCheck(rp.rigid, label, 1e-8);
      // Distance to the designed optimum. At a sliding contact the gap and
      // the KKT measures are quadratic in the angular error of the friction
      // direction (l'u = mu l_n |u_t| (1 - cos theta)), so without the
      // solver's polishing (Jordan-product complementarity) the impulse error
      // would be ~ sqrt(gap) ~ 1e-5; with it, it is ~ cond(W) * gap.
      EXPECT_LT(RelativeError(r.impulses, rp.l_star), 1e-6) << label;
      max_error = std::max(max_error, RelativeError(r.impulses, rp.l_star));
      const KktReport kkt = CheckRigidContactKkt(rp.rigid, r.impulses, 1e-4);
      for (int k = 0; k < nc; ++k) {
        EXPECT_EQ(kkt.contacts[k].mode, rp.modes[k])
            << label << " contact " << k << " mu " << rp.rigid.mu(k);
      }
      counts[0] += kkt.Count(ContactMode::kSeparating);
      counts[1] += kkt.Count(ContactMode::kSticking);
      counts[2] += kkt.Count(ContactMode::kSliding);
    }
  }
  std::cout << "[rigid_qp] modes over all random problems: separating "
            << counts[0] << ", sticking " << counts[1] << ", sliding "
            << counts[2] << "; max relative impulse error " << max_error
            << "\n";
  EXPECT_GT(counts[0], 50);
  EXPECT_GT(counts[1], 50);
  EXPECT_GT(counts[2], 50);
}

TEST(RandomProblems, DenseAndSparsePathsAgree) {
  for (int nc : {10, 50, 200}) {
    const unsigned seed = 100 + nc;
    const RandomRigidProblem dense = MakeRandomRigidProblem(nc, seed, false);
    const RandomRigidProblem sparse = MakeRandomRigidProblem(nc, seed, true);
    ASSERT_TRUE(sparse.rigid.use_sparse_storage);
    // Same data in both storages.
    EXPECT_LT((Eigen::MatrixXd(sparse.rigid.W_sparse) - dense.rigid.W)
                  .lpNorm<Eigen::Infinity>(),
              1e-14 * dense.rigid.W.lpNorm<Eigen::Infinity>());
    RigidQpSolverOptions dense_options, sparse_options;
    dense_options.linear_solver = RigidQpLinearSolver::kDense;
    sparse_options.linear_solver = RigidQpLinearSolver::kSparse;
    const std::string label = "nc=" + std::to_string(nc);
    const RigidQpResult rd =
        SolveAndCheck(dense.rigid, "dense " + label, 1e-8, dense_options);
    const RigidQpResult rs =
        SolveAndCheck(sparse.rigid, "sparse " + label, 1e-8, sparse_options);
    EXPECT_FALSE(rd.used_sparse);
    EXPECT_TRUE(rs.used_sparse);
    // Both paths pass the KKT checker to 1e-8 (measured ~1e-11); the impulses
    // themselves are only determined to about cond(W) times the residuals,
    // so they agree to ~1e-8 and the exact figure depends on the BLAS's
    // round-off (2.1e-8 measured at nc = 10 with Debian's reference BLAS).
    constexpr double kAgreement = 1e-7;
    EXPECT_LT(RelativeError(rs.impulses, rd.impulses), kAgreement) << label;
    // The sparse path on dense storage, and the dense path on sparse storage.
    const RigidQpResult rsd = SolveAndCheck(
        dense.rigid, "sparse on dense " + label, 1e-8, sparse_options);
    const RigidQpResult rds = SolveAndCheck(
        sparse.rigid, "dense on sparse " + label, 1e-8, dense_options);
    EXPECT_LT(RelativeError(rsd.impulses, rd.impulses), kAgreement) << label;
    EXPECT_LT(RelativeError(rds.impulses, rd.impulses), kAgreement) << label;
  }
}

TEST(RandomProblems, AutomaticPathSelection) {
  const RandomRigidProblem small = MakeRandomRigidProblem(20, 7, false);
  EXPECT_FALSE(SolveRigidContactQp(small.rigid).used_sparse);
  RigidQpSolverOptions options;
  options.sparse_min_variables = 30;  // 20 contacts have >= 30 variables
  options.sparse_max_density = 1.0;
  EXPECT_TRUE(SolveRigidContactQp(small.rigid, options).used_sparse);
}

// The SapProblem entry point: W = J A^-1 J', c = J v* + phi0 / (dt + tau_d)
// (normal rows), v = v* + A^-1 J' l, all against dense algebra.
TEST(RandomProblems, SapProblemEntryPoint) {
  std::mt19937 rng(42);
  SapProblem sap = testing_rigid_qp::RandomSapProblem(30, &rng);
  for (size_t k = 0; k < sap.contacts.size(); ++k) {
    sap.contacts[k].parameters.dissipation_time_scale = 0.01 * (k % 3);
  }
  const Eigen::MatrixXd J = DenseContactJacobian(sap);
  const Eigen::MatrixXd A = DenseA(sap);
  const Eigen::VectorXd v_star = StackedVStar(sap);
  const Eigen::LLT<Eigen::MatrixXd> llt(A);
  const Eigen::MatrixXd W = J * llt.solve(J.transpose());
  Eigen::VectorXd c = J * v_star;
  for (size_t k = 0; k < sap.contacts.size(); ++k) {
    c(3 * k) +=
        sap.contacts[k].phi0 /
        (sap.time_step + sap.contacts[k].parameters.dissipation_time_scale);
  }
  for (const bool sparse : {false, true}) {
    const RigidContactProblem rigid = MakeRigidContactProblem(sap, sparse);
    const Eigen::MatrixXd W_built =
        sparse ? Eigen::MatrixXd(rigid.W_sparse) : rigid.W;
    EXPECT_LT((W_built - W).lpNorm<Eigen::Infinity>(),
              1e-12 * W.lpNorm<Eigen::Infinity>());
    EXPECT_LT((rigid.c - c).lpNorm<Eigen::Infinity>(),
              1e-12 * c.lpNorm<Eigen::Infinity>());

    RigidQpSolverOptions options;
    options.linear_solver =
        sparse ? RigidQpLinearSolver::kSparse : RigidQpLinearSolver::kDense;
    const RigidQpResult r = SolveRigidContactQp(sap, options);
    ASSERT_EQ(r.status, RigidQpStatus::kSolved) << r.reason;
    EXPECT_LE(CheckRigidContactKkt(rigid, r.impulses).worst_violation, 1e-9);
    const Eigen::VectorXd v = v_star + llt.solve(J.transpose() * r.impulses);
    EXPECT_LT((r.velocities - v).lpNorm<Eigen::Infinity>(),
              1e-10 * v.lpNorm<Eigen::Infinity>());
    // u = W l + c = J v - v_hat.
    EXPECT_LT((r.constraint_velocities - (J * v + (c - J * v_star)))
                  .lpNorm<Eigen::Infinity>(),
              1e-9 * c.lpNorm<Eigen::Infinity>());
  }
}

}  // namespace
}  // namespace sapcontact
