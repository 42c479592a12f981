// The block Cholesky on the tree graph against the dense LLT and CHOLMOD
// (independent factorizations) on random SPD matrices of many block
// patterns, its analysis reuse, and its failure modes.
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

// ||H x - b|| / (||H||_F ||x|| + ||b||), with the block product.
double RelativeResidual(const BlockSparseSymmetricMatrix& H,
                        const Eigen::VectorXd& x, const Eigen::VectorXd& b) {
  Eigen::VectorXd Hx;
  H.Multiply(x, &Hx);
  return (Hx - b).norm() / (H.ToDense().norm() * x.norm() + b.norm());
}

struct PatternCase {
  std::string name;
  int num_blocks;
  std::vector<std::pair<int, int>> edges;
};

TEST(BlockSparseCholesky, AgreesWithDenseAndCholmodOnRandomPatterns) {
  std::mt19937 rng(7);
  const std::vector<PatternCase> cases = {
      {"single block", 1, {}},
      {"chain 2", 2, test::ChainEdges(2)},
      {"chain 300", 300, test::ChainEdges(300)},
      {"star 150", 150, test::StarEdges(150)},
      {"grid 3x4", 12, test::GridEdges(3, 4)},
      {"grid 16x16", 256, test::GridEdges(16, 16)},
      {"disconnected 20", 20, {}},
      {"complete 6", 6, test::RandomEdges(6, 15, &rng)},
      {"random 60", 60, test::RandomEdges(60, 150, &rng)},
      {"random 400", 400, test::RandomEdges(400, 700, &rng)},
  };
  for (const PatternCase& c : cases) {
    SCOPED_TRACE(c.name);
    // Mixed block sizes (robots beside free bodies), and all 6.
    for (const bool all_six : {false, true}) {
      const std::vector<int> sizes =
          all_six ? std::vector<int>(c.num_blocks, 6)
                  : test::RandomBlockSizes(c.num_blocks, 12, &rng);
      BlockSparseSymmetricMatrix H(BlockSparsityPattern(sizes, c.edges));
      test::FillRandomSpd(&H, &rng);
      const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);

      BlockSparseCholeskyFactorization block;
      DenseHessianFactorization dense;
      CholmodHessianFactorization cholmod;
      ASSERT_TRUE(block.Factor(H));
      ASSERT_TRUE(dense.Factor(H));
      ASSERT_TRUE(cholmod.Factor(H));
      Eigen::VectorXd x = b, x_dense = b;
      block.SolveInPlace(&x);
      dense.SolveInPlace(&x_dense);
      EXPECT_LT(RelativeResidual(H, x, b), 1e-14);
      EXPECT_LT((x - x_dense).norm(), 1e-10 * x_dense.norm());
      EXPECT_EQ(block.size(), H.size());
      EXPECT_EQ(block.type(), LinearSolverType::kBlockSparse);
      // The AMD ordering of the trees keeps the fill near CHOLMOD's scalar
      // AMD (full diagonal blocks count up to twice their lower triangle):
      // a poor ordering of the 16 x 16 grid or the star would fill far more.
      EXPECT_LE(block.statistics().factor_nonzeros,
                2 * cholmod.statistics().factor_nonzeros + 12 * 12);
      EXPECT_GT(block.factorization_flops(), 0.0);
    }
  }
}

TEST(BlockSparseCholesky, AnalysisOncePerPatternValueMapOnRenumbering) {
  std::mt19937 rng(3);
  const std::vector<int> sizes = test::RandomBlockSizes(60, 12, &rng);
  std::vector<std::pair<int, int>> edges = test::RandomEdges(60, 120, &rng);
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(sizes, edges));
  BlockSparseCholeskyFactorization f;
  for (int iteration = 0; iteration < 4; ++iteration) {
    test::FillRandomSpd(&H, &rng, 0.1 + iteration);
    ASSERT_TRUE(f.Factor(H));
    const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);
    Eigen::VectorXd x = b;
    f.SolveInPlace(&x);
    EXPECT_LT(RelativeResidual(H, x, b), 1e-14);
  }
  EXPECT_EQ(f.statistics().symbolic_analyses, 1);
  EXPECT_EQ(f.statistics().numeric_factorizations, 4);

  // The same blocks in reverse order: no new analysis; the solution proves
  // that the values went to the right places.
  std::vector<std::pair<int, int>> reversed(edges.rbegin(), edges.rend());
  BlockSparseSymmetricMatrix H_reordered(BlockSparsityPattern(sizes, reversed));
  test::FillRandomSpd(&H_reordered, &rng);
  ASSERT_TRUE(f.Factor(H_reordered));
  EXPECT_EQ(f.statistics().symbolic_analyses, 1);
  EXPECT_EQ(f.statistics().block_renumberings, 1);
  Eigen::VectorXd b = test::RandomVector(H.size(), &rng), x = b;
  f.SolveInPlace(&x);
  EXPECT_LT(RelativeResidual(H_reordered, x, b), 1e-14);

  // A new patch, then a resized block: new analyses.
  int a = 0;
  while (H.pattern().off_diagonal_block_index(a + 1, a) >= 0) ++a;
  edges.emplace_back(a + 1, a);
  BlockSparseSymmetricMatrix H_new(BlockSparsityPattern(sizes, edges));
  test::FillRandomSpd(&H_new, &rng);
  ASSERT_TRUE(f.Factor(H_new));
  EXPECT_EQ(f.statistics().symbolic_analyses, 2);
  x = b;
  f.SolveInPlace(&x);
  EXPECT_LT(RelativeResidual(H_new, x, b), 1e-14);
  std::vector<int> new_sizes = sizes;
  new_sizes[7] = sizes[7] % 12 + 1;
  BlockSparseSymmetricMatrix H_resized(BlockSparsityPattern(new_sizes, edges));
  test::FillRandomSpd(&H_resized, &rng);
  ASSERT_TRUE(f.Factor(H_resized));
  EXPECT_EQ(f.statistics().symbolic_analyses, 3);
  b = test::RandomVector(H_resized.size(), &rng);
  x = b;
  f.SolveInPlace(&x);
  EXPECT_LT(RelativeResidual(H_resized, x, b), 1e-14);
  EXPECT_EQ(f.statistics().failed_factorizations, 0);
}

class BlockSparseCholeskySizes : public testing::TestWithParam<bool> {};

// Mixed block sizes (the general kernels) and all 6 x 6 (the fixed-size
// ones).
TEST_P(BlockSparseCholeskySizes, NotPositiveDefiniteAndNonFiniteInput) {
  std::mt19937 rng(5);
  const int num_blocks = 40;
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(
      GetParam() ? std::vector<int>(num_blocks, 6)
                 : test::RandomBlockSizes(num_blocks, 6, &rng),
      test::ChainEdges(num_blocks)));
  BlockSparseCholeskyFactorization f;
  test::FillRandomSpd(&H, &rng);
  H.diagonal_block(num_blocks / 2)(0, 0) = -1.0;
  EXPECT_FALSE(f.Factor(H));
  H.SetZero();
  EXPECT_FALSE(f.Factor(H));
  EXPECT_FALSE(f.is_factored());
  EXPECT_EQ(f.ReciprocalConditionEstimate(), 0.0);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(H.size());
  EXPECT_THROW(f.SolveInPlace(&b), std::logic_error);
  EXPECT_EQ(f.statistics().failed_factorizations, 2);
  test::FillRandomSpd(&H, &rng);
  ASSERT_TRUE(f.Factor(H));
  f.SolveInPlace(&b);
  EXPECT_LT(RelativeResidual(H, b, Eigen::VectorXd::Ones(H.size())), 1e-14);
  Eigen::VectorXd wrong(3);
  EXPECT_THROW(f.SolveInPlace(&wrong), std::invalid_argument);

  H.off_diagonal_block(3)(0, 0) = std::numeric_limits<double>::quiet_NaN();
  try {
    f.Factor(H);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("off-diagonal block 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(f.is_factored());
}

INSTANTIATE_TEST_SUITE_P(MixedAndSixes, BlockSparseCholeskySizes,
                         testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "AllSix" : "Mixed";
                         });

// The pivot-ratio estimate (as cholmod_rcond): exact for a diagonal matrix,
// never below 1 / cond_2 for a known spectrum.
TEST(BlockSparseCholesky, ConditionEstimate) {
  const int num_blocks = 30;
  BlockSparseSymmetricMatrix D(BlockSparsityPattern(
      std::vector<int>(num_blocks, 4), test::ChainEdges(num_blocks)));
  const int n = D.size();
  for (int i = 0; i < num_blocks; ++i) {
    for (int r = 0; r < 4; ++r) {
      const int t = ((4 * i + r) * 37) % n;
      D.diagonal_block(i)(r, r) = std::pow(1e-6, t / double(n - 1));
    }
  }
  BlockSparseCholeskyFactorization f;
  ASSERT_TRUE(f.Factor(D));
  EXPECT_NEAR(f.ReciprocalConditionEstimate(), 1e-6, 1e-12);

  std::mt19937 rng(11);
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern({5, 7, 4}, {{1, 0}, {2, 0}, {2, 1}}));
  const int m = H.size();
  const Eigen::MatrixXd R = Eigen::MatrixXd::NullaryExpr(m, m, [&]() {
    return std::uniform_real_distribution<double>(-1, 1)(rng);
  });
  const Eigen::MatrixXd Q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(R).householderQ();
  Eigen::VectorXd lambda(m);
  for (int i = 0; i < m; ++i) lambda(i) = std::pow(1e-5, i / double(m - 1));
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
  ASSERT_TRUE(f.Factor(H));
  EXPECT_GE(f.ReciprocalConditionEstimate(), 1e-5 * (1 - 1e-8));
  EXPECT_LE(f.ReciprocalConditionEstimate(), 1.0);
}

}  // namespace
}  // namespace sapcontact
