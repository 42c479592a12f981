// Dense (Eigen LLT), block Cholesky and CHOLMOD factorizations of
// block-sparse SPD matrices with tree/patch patterns (SAP paper §IV-D): the
// solvers are independent, and every solution is also checked by its
// residual with the block product.
#include "sapcontact/solver/linear_algebra/hessian_factorization.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sapcontact/solver/linear_algebra/block_sparse_cholesky_factorization.h"
#include "sapcontact/solver/linear_algebra/cholmod_hessian_factorization.h"
#include "sapcontact/solver/linear_algebra/dense_hessian_factorization.h"
#include "tests/solver/linear_algebra/random_block_sparse_matrices.h"

namespace sapcontact {
namespace {

struct HessianPattern {
  std::string name;
  std::vector<int> sizes;
  std::vector<std::pair<int, int>> edges;
};

std::vector<HessianPattern> MakeCases() {
  std::mt19937 rng(2022);
  std::vector<HessianPattern> cases;
  auto add = [&](std::string name, int num_blocks,
                 std::vector<std::pair<int, int>> edges) {
    cases.push_back({std::move(name),
                     test::RandomBlockSizes(num_blocks, 12, &rng),
                     std::move(edges)});
  };
  add("single block", 1, {});
  add("chain 2", 2, test::ChainEdges(2));
  add("chain 50", 50, test::ChainEdges(50));
  add("chain 200", 200, test::ChainEdges(200));
  add("star 7", 7, test::StarEdges(7));
  add("star 120", 120, test::StarEdges(120));
  add("grid 3x4", 12, test::GridEdges(3, 4));
  add("grid 10x10", 100, test::GridEdges(10, 10));
  add("grid 14x14", 196, test::GridEdges(14, 14));
  add("disconnected 20", 20, {});
  add("random 5", 5, test::RandomEdges(5, 10, &rng));  // complete graph
  add("random 40", 40, test::RandomEdges(40, 80, &rng));
  add("random 200", 200, test::RandomEdges(200, 300, &rng));
  return cases;
}

// ||H x - b|| / (||H||_F ||x|| + ||b||), with the block product.
double HessianResidual(const BlockSparseSymmetricMatrix& H,
                       const Eigen::VectorXd& x, const Eigen::VectorXd& b) {
  Eigen::VectorXd Hx;
  H.Multiply(x, &Hx);
  return (Hx - b).norm() / (H.ToDense().norm() * x.norm() + b.norm());
}

TEST(HessianFactorization, DenseAndCholmodAgreeOnRandomPatterns) {
  std::mt19937 rng(1);
  for (const HessianPattern& c : MakeCases()) {
    SCOPED_TRACE(c.name);
    BlockSparseSymmetricMatrix H(BlockSparsityPattern(c.sizes, c.edges));
    test::FillRandomSpd(&H, &rng);
    const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);

    DenseHessianFactorization dense;
    CholmodHessianFactorization cholmod;
    ASSERT_TRUE(dense.Factor(H));
    ASSERT_TRUE(cholmod.Factor(H));
    EXPECT_TRUE(cholmod.factor_is_supernodal());
    Eigen::VectorXd x_dense = b, x_cholmod = b;
    dense.SolveInPlace(&x_dense);
    cholmod.SolveInPlace(&x_cholmod);

    EXPECT_LT((x_dense - x_cholmod).norm(), 1e-10 * x_dense.norm());
    EXPECT_LT(HessianResidual(H, x_dense, b), 1e-14);
    EXPECT_LT(HessianResidual(H, x_cholmod, b), 1e-14);
    EXPECT_EQ(dense.size(), H.size());
    EXPECT_EQ(cholmod.size(), H.size());
    // nnz(L) is at least the lower triangle of H and at most dense.
    const long long n = H.size();
    EXPECT_GE(cholmod.statistics().factor_nonzeros,
              H.pattern().num_lower_triangle_entries());
    EXPECT_LE(cholmod.statistics().factor_nonzeros, n * (n + 1) / 2);
    EXPECT_EQ(dense.statistics().factor_nonzeros, n * (n + 1) / 2);
  }
}

TEST(HessianFactorization, SymbolicAnalysisOncePerPattern) {
  std::mt19937 rng(3);
  const int num_blocks = 60;
  const std::vector<int> sizes = test::RandomBlockSizes(num_blocks, 12, &rng);
  const std::vector<std::pair<int, int>> edges0 =
      test::RandomEdges(60, 120, &rng);

  for (auto make : {MakeCholmodHessianFactorization,
                    MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> sparse = make();
    HessianFactorization& f = *sparse;
    SCOPED_TRACE(ToString(f.type()));
    DenseHessianFactorization dense;
    std::vector<std::pair<int, int>> edges = edges0;
    BlockSparseSymmetricMatrix H(BlockSparsityPattern(sizes, edges));
    for (int iteration = 0; iteration < 5; ++iteration) {
      test::FillRandomSpd(&H, &rng, 0.1 + iteration);  // New values.
      ASSERT_TRUE(f.Factor(H));
      ASSERT_TRUE(dense.Factor(H));
      const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);
      Eigen::VectorXd x = b, x_dense = b;
      f.SolveInPlace(&x);
      dense.SolveInPlace(&x_dense);
      EXPECT_LT(HessianResidual(H, x, b), 1e-14);
      EXPECT_LT((x - x_dense).norm(), 1e-10 * x_dense.norm());
    }
    EXPECT_EQ(f.statistics().symbolic_analyses, 1);
    EXPECT_EQ(f.statistics().numeric_factorizations, 5);
    EXPECT_EQ(dense.statistics().symbolic_analyses, 0);
    EXPECT_EQ(dense.statistics().numeric_factorizations, 5);

    // An equal pattern held by another matrix (the next time step) reuses it.
    BlockSparseSymmetricMatrix H_next(BlockSparsityPattern(sizes, edges));
    test::FillRandomSpd(&H_next, &rng);
    ASSERT_TRUE(f.Factor(H_next));
    EXPECT_EQ(f.statistics().symbolic_analyses, 1);

    // The same blocks listed in another order: the analysis is reused, the
    // value map is rebuilt (the solution proves the values went to the right
    // places).
    std::vector<std::pair<int, int>> reversed(edges.rbegin(), edges.rend());
    BlockSparseSymmetricMatrix H_reordered(
        BlockSparsityPattern(sizes, reversed));
    test::FillRandomSpd(&H_reordered, &rng);
    ASSERT_TRUE(f.Factor(H_reordered));
    EXPECT_EQ(f.statistics().symbolic_analyses, 1);
    EXPECT_EQ(f.statistics().block_renumberings, 1);
    Eigen::VectorXd b = test::RandomVector(H.size(), &rng), x = b;
    f.SolveInPlace(&x);
    EXPECT_LT(HessianResidual(H_reordered, x, b), 1e-14);

    // A new contact patch changes the pattern: a new analysis.
    int a = 0;
    while (H.pattern().off_diagonal_block_index(a + 1, a) >= 0) ++a;
    edges.emplace_back(a + 1, a);
    BlockSparseSymmetricMatrix H_new(BlockSparsityPattern(sizes, edges));
    test::FillRandomSpd(&H_new, &rng);
    ASSERT_TRUE(f.Factor(H_new));
    EXPECT_EQ(f.statistics().symbolic_analyses, 2);
    b = test::RandomVector(H.size(), &rng);
    x = b;
    f.SolveInPlace(&x);
    EXPECT_LT(HessianResidual(H_new, x, b), 1e-14);
    EXPECT_EQ(f.statistics().numeric_factorizations, 8);

    // Same graph, one block size changed: a new analysis.
    std::vector<int> new_sizes = sizes;
    new_sizes[7] = sizes[7] % 12 + 1;
    BlockSparseSymmetricMatrix H_resized(
        BlockSparsityPattern(new_sizes, edges));
    test::FillRandomSpd(&H_resized, &rng);
    ASSERT_TRUE(f.Factor(H_resized));
    EXPECT_EQ(f.statistics().symbolic_analyses, 3);
    b = test::RandomVector(H_resized.size(), &rng);
    x = b;
    f.SolveInPlace(&x);
    EXPECT_LT(HessianResidual(H_resized, x, b), 1e-14);
    EXPECT_EQ(f.statistics().failed_factorizations, 0);
  }
}

TEST(HessianFactorization, NotPositiveDefiniteReturnsFalseSilently) {
  std::mt19937 rng(5);
  const int num_blocks = 40;
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern(test::RandomBlockSizes(num_blocks, 6, &rng),
                           test::ChainEdges(num_blocks)));
  for (auto make :
       {MakeDenseHessianFactorization, MakeCholmodHessianFactorization,
        MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> f = make();
    SCOPED_TRACE(ToString(f->type()));
    // Indefinite: one negative diagonal entry deep inside the chain.
    test::FillRandomSpd(&H, &rng);
    H.diagonal_block(num_blocks / 2)(0, 0) = -1.0;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const bool indefinite_ok = f->Factor(H);
    // Zero matrix: positive semidefinite, singular.
    H.SetZero();
    const bool zero_ok = f->Factor(H);
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(indefinite_ok);
    EXPECT_FALSE(zero_ok);
    EXPECT_EQ(out, "");
    EXPECT_EQ(err, "");
    EXPECT_FALSE(f->is_factored());
    EXPECT_EQ(f->ReciprocalConditionEstimate(), 0.0);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(H.size());
    EXPECT_THROW(f->SolveInPlace(&b), std::logic_error);
    EXPECT_EQ(f->statistics().failed_factorizations, 2);

    // Same pattern, SPD values again: works, no new analysis.
    test::FillRandomSpd(&H, &rng);
    ASSERT_TRUE(f->Factor(H));
    f->SolveInPlace(&b);
    EXPECT_LT(HessianResidual(H, b, Eigen::VectorXd::Ones(H.size())), 1e-14);
    EXPECT_EQ(f->statistics().numeric_factorizations, 3);
    EXPECT_EQ(f->statistics().failed_factorizations, 2);
    EXPECT_EQ(f->statistics().symbolic_analyses,
              f->type() == LinearSolverType::kDense ? 0 : 1);
  }
}

TEST(HessianFactorization, NonFiniteEntriesThrowNamingTheBlock) {
  BlockSparseSymmetricMatrix H(BlockSparsityPattern({2, 3, 1}, {{2, 1}}));
  for (int i = 0; i < 3; ++i) {
    H.diagonal_block(i).setIdentity();
  }
  H.off_diagonal_block(0)(0, 1) = std::numeric_limits<double>::infinity();
  for (auto make :
       {MakeDenseHessianFactorization, MakeCholmodHessianFactorization,
        MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> f = make();
    try {
      f->Factor(H);
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("off-diagonal block 0 (2, 1)"),
                std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(f->is_factored());
  }
  // A block resized by the caller is rejected before any work.
  H.off_diagonal_block(0).setZero();
  H.diagonal_block(1).resize(2, 2);
  for (auto make :
       {MakeDenseHessianFactorization, MakeCholmodHessianFactorization,
        MakeBlockSparseCholeskyFactorization}) {
    EXPECT_THROW(make()->Factor(H), std::invalid_argument);
  }
}

// Diagonal H with entries spread over [1e-6, 1]: cond = 1e6 exactly.
TEST(HessianFactorization, ConditionEstimateOfDiagonalMatrix) {
  const int num_blocks = 30;
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(
      std::vector<int>(num_blocks, 4), test::ChainEdges(num_blocks)));
  const int n = H.size();
  for (int i = 0; i < num_blocks; ++i) {
    for (int r = 0; r < 4; ++r) {
      const int row = 4 * i + r;
      // Permuted so that the extremes are not at the ends.
      const int t = (row * 37) % n;
      H.diagonal_block(i)(r, r) = std::pow(1e-6, t / double(n - 1));
    }
  }
  for (auto make :
       {MakeDenseHessianFactorization, MakeCholmodHessianFactorization,
        MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> f = make();
    SCOPED_TRACE(ToString(f->type()));
    ASSERT_TRUE(f->Factor(H));
    const double rcond = f->ReciprocalConditionEstimate();
    EXPECT_GT(rcond, 0.5e-6);
    EXPECT_LT(rcond, 2.0e-6);
  }
}

// Non-diagonal H = Q diag(lambda) Q' with a known spectrum: CHOLMOD's pivot
// ratio never underestimates 1/cond_2; Eigen's 1-norm estimate lies between
// the true 1-norm value and 10 times it.
TEST(HessianFactorization, ConditionEstimateBoundsOnKnownSpectrum) {
  std::mt19937 rng(11);
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern({5, 7, 4}, {{1, 0}, {2, 0}, {2, 1}}));
  const int n = H.size();
  const Eigen::MatrixXd R = Eigen::MatrixXd::NullaryExpr(n, n, [&]() {
    return std::uniform_real_distribution<double>(-1, 1)(rng);
  });
  const Eigen::MatrixXd Q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(R).householderQ();
  Eigen::VectorXd lambda(n);
  for (int i = 0; i < n; ++i) lambda(i) = std::pow(1e-5, i / double(n - 1));
  const Eigen::MatrixXd dense = Q * lambda.asDiagonal() * Q.transpose();
  const auto& p = H.pattern();
  for (int i = 0; i < p.num_blocks(); ++i) {
    H.diagonal_block(i) = dense.block(p.block_offset(i), p.block_offset(i),
                                      p.block_size(i), p.block_size(i));
  }
  for (int k = 0; k < p.num_off_diagonal_blocks(); ++k) {
    const auto [i, j] = p.off_diagonal_blocks()[k];
    H.off_diagonal_block(k) = dense.block(p.block_offset(i), p.block_offset(j),
                                          p.block_size(i), p.block_size(j));
  }
  const double rcond_2 = 1e-5;
  const double rcond_1 =
      1.0 / (dense.cwiseAbs().colwise().sum().maxCoeff() *
             dense.inverse().cwiseAbs().colwise().sum().maxCoeff());

  DenseHessianFactorization dense_factorization;
  ASSERT_TRUE(dense_factorization.Factor(H));
  const double dense_rcond = dense_factorization.ReciprocalConditionEstimate();
  EXPECT_GE(dense_rcond, rcond_1 * (1 - 1e-8));
  EXPECT_LE(dense_rcond, 10 * rcond_1);

  // The pivot ratio of either sparse factorization.
  for (auto make : {MakeCholmodHessianFactorization,
                    MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> f = make();
    ASSERT_TRUE(f->Factor(H));
    const double pivot_rcond = f->ReciprocalConditionEstimate();
    EXPECT_GE(pivot_rcond, rcond_2 * (1 - 1e-8));
    EXPECT_LE(pivot_rcond, 1.0);
  }
}

TEST(HessianFactorization, FactoryPreconditionsAndMoves) {
  EXPECT_EQ(MakeHessianFactorization(LinearSolverType::kAuto, 100)->type(),
            LinearSolverType::kDense);
  EXPECT_EQ(MakeHessianFactorization(LinearSolverType::kAuto, 101)->type(),
            LinearSolverType::kCholmod);
  EXPECT_EQ(MakeHessianFactorization(LinearSolverType::kAuto, 50, 10)->type(),
            LinearSolverType::kCholmod);
  EXPECT_EQ(MakeHessianFactorization(LinearSolverType::kDense, 5000)->type(),
            LinearSolverType::kDense);
  EXPECT_EQ(MakeHessianFactorization(LinearSolverType::kCholmod, 3)->type(),
            LinearSolverType::kCholmod);
  EXPECT_THROW(MakeHessianFactorization(LinearSolverType::kAuto, -1),
               std::invalid_argument);
  EXPECT_THROW(MakeHessianFactorization(LinearSolverType::kAuto, 5, -1),
               std::invalid_argument);

  std::mt19937 rng(13);
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(
      test::RandomBlockSizes(10, 6, &rng), test::ChainEdges(10)));
  test::FillRandomSpd(&H, &rng);
  CholmodHessianFactorization original;
  Eigen::VectorXd unfactored = Eigen::VectorXd::Ones(H.size());
  EXPECT_THROW(original.SolveInPlace(&unfactored), std::logic_error);
  ASSERT_TRUE(original.Factor(H));
  Eigen::VectorXd wrong_size = Eigen::VectorXd::Ones(H.size() + 1);
  EXPECT_THROW(original.SolveInPlace(&wrong_size), std::invalid_argument);
  EXPECT_THROW(original.SolveInPlace(nullptr), std::invalid_argument);

  CholmodHessianFactorization moved(std::move(original));
  const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);
  Eigen::VectorXd x = b;
  moved.SolveInPlace(&x);
  EXPECT_LT(HessianResidual(H, x, b), 1e-14);
  EXPECT_THROW(original.Factor(H), std::logic_error);  // NOLINT: moved-from
  CholmodHessianFactorization assigned;
  assigned = std::move(moved);
  x = b;
  assigned.SolveInPlace(&x);
  EXPECT_LT(HessianResidual(H, x, b), 1e-14);
  EXPECT_EQ(assigned.statistics().symbolic_analyses, 1);

  // The empty matrix (no trees) factors trivially.
  BlockSparseSymmetricMatrix empty((BlockSparsityPattern()));
  for (auto make :
       {MakeDenseHessianFactorization, MakeCholmodHessianFactorization,
        MakeBlockSparseCholeskyFactorization}) {
    const std::unique_ptr<HessianFactorization> f = make();
    ASSERT_TRUE(f->Factor(empty));
    Eigen::VectorXd e(0);
    f->SolveInPlace(&e);
    EXPECT_EQ(f->ReciprocalConditionEstimate(), 1.0);
  }
}

}  // namespace
}  // namespace sapcontact
