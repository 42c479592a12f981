// The block Cholesky on the tree graph against the dense LLT and CHOLMOD
// (independent factorizations) on random SPD matrices of many block
// patterns, mixed sizes and all 6 x 6, and the fixed-size kernels' failure
// modes. Analysis reuse, failures of the general kernels and the condition
// estimate: hessian_factorization_test.cc, with the other factorizations.
#include <gtest/gtest.h>

#include <Eigen/Dense>
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

// The fixed-size kernels (every block 6 x 6) on failures; the general ones
// are checked with the other factorizations (hessian_factorization_test.cc).
TEST(BlockSparseCholesky, AllSixNotPositiveDefiniteAndNonFiniteInput) {
  std::mt19937 rng(5);
  const int num_blocks = 40;
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(
      std::vector<int>(num_blocks, 6), test::ChainEdges(num_blocks)));
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

// The AVX kernels of all-6 x 6 patterns do the portable kernels'
// arithmetic in the same order: the same solution bit for bit, on patterns
// whose columns have from 0 to dozens of block rows (the grid's separators)
// and with a failing pivot in the middle.
TEST(BlockSparseCholesky, AvxAndPortableKernelsAgreeBitwise) {
  BlockSparseCholeskyFactorization avx;
  if (!avx.uses_avx()) GTEST_SKIP() << "this CPU has no AVX";
  std::mt19937 rng(11);
  const std::vector<PatternCase> cases = {
      {"chain 300", 300, test::ChainEdges(300)},
      {"star 150", 150, test::StarEdges(150)},
      {"grid 16x16", 256, test::GridEdges(16, 16)},
      {"random 400", 400, test::RandomEdges(400, 900, &rng)},
  };
  for (const PatternCase& c : cases) {
    SCOPED_TRACE(c.name);
    BlockSparseSymmetricMatrix H(
        BlockSparsityPattern(std::vector<int>(c.num_blocks, 6), c.edges));
    BlockSparseCholeskyFactorization portable;
    portable.set_use_avx(false);
    EXPECT_FALSE(portable.uses_avx());
    for (int trial = 0; trial < 2; ++trial) {  // the second reuses the analysis
      test::FillRandomSpd(&H, &rng);
      ASSERT_TRUE(avx.Factor(H));
      ASSERT_TRUE(portable.Factor(H));
      const Eigen::VectorXd b = test::RandomVector(H.size(), &rng);
      Eigen::VectorXd x = b, x_portable = b;
      avx.SolveInPlace(&x);
      portable.SolveInPlace(&x_portable);
      EXPECT_LT(RelativeResidual(H, x, b), 1e-14);
      EXPECT_EQ((x - x_portable).cwiseAbs().maxCoeff(), 0.0);
      EXPECT_EQ(avx.ReciprocalConditionEstimate(),
                portable.ReciprocalConditionEstimate());
    }
    H.diagonal_block(c.num_blocks / 2)(0, 0) = -1e3;
    EXPECT_FALSE(avx.Factor(H));
    EXPECT_FALSE(portable.Factor(H));
  }
}

}  // namespace
}  // namespace sapcontact
