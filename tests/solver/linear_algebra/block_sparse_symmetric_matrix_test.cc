#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "tests/solver/linear_algebra/random_block_sparse_matrices.h"

namespace sapcontact {
namespace {

// Expects std::invalid_argument whose message contains `fragment`.
template <typename F>
void ExpectInvalid(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument containing '" << fragment
                  << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << e.what();
  }
}

TEST(BlockSparsityPattern, RejectsInvalidInput) {
  ExpectInvalid([] { BlockSparsityPattern({2, 0, 3}, {}); }, "block 1");
  ExpectInvalid([] { BlockSparsityPattern({2, -1}, {}); }, "block 1");
  ExpectInvalid(
      [] {
        BlockSparsityPattern({2, 3}, {{0, 1}});
      },
      "off-diagonal block 0 (0, 1)");
  ExpectInvalid([] { BlockSparsityPattern({2, 3}, {{1, 1}}); }, "need i > j");
  ExpectInvalid([] { BlockSparsityPattern({2, 3}, {{2, 0}}); }, "out of range");
  ExpectInvalid(
      [] {
        BlockSparsityPattern({2, 3}, {{1, -1}});
      },
      "out of range");
  ExpectInvalid(
      [] {
        BlockSparsityPattern({1, 1, 1}, {{1, 0}, {2, 1}, {1, 0}});
      },
      "off-diagonal block 2 (1, 0) duplicates off-diagonal block 0");
}

TEST(BlockSparsityPattern, OffsetsSizesAndLookup) {
  const BlockSparsityPattern p({2, 3, 1, 4}, {{3, 1}, {2, 0}, {1, 0}});
  EXPECT_EQ(p.num_blocks(), 4);
  EXPECT_EQ(p.size(), 10);
  EXPECT_EQ(p.block_offset(0), 0);
  EXPECT_EQ(p.block_offset(1), 2);
  EXPECT_EQ(p.block_offset(2), 5);
  EXPECT_EQ(p.block_offset(3), 6);
  EXPECT_EQ(p.off_diagonal_block_index(3, 1), 0);
  EXPECT_EQ(p.off_diagonal_block_index(2, 0), 1);
  EXPECT_EQ(p.off_diagonal_block_index(1, 0), 2);
  EXPECT_EQ(p.off_diagonal_block_index(0, 1), -1);
  EXPECT_EQ(p.off_diagonal_block_index(3, 0), -1);
  // Lower triangle: 3 + 6 + 1 + 10 diagonal, 12 + 2 + 6 off-diagonal.
  EXPECT_EQ(p.num_lower_triangle_entries(), 40);

  const BlockSparsityPattern same({2, 3, 1, 4}, {{3, 1}, {2, 0}, {1, 0}});
  const BlockSparsityPattern reordered({2, 3, 1, 4}, {{1, 0}, {3, 1}, {2, 0}});
  const BlockSparsityPattern other_sizes({2, 3, 2, 4},
                                         {{3, 1}, {2, 0}, {1, 0}});
  EXPECT_TRUE(p == same);
  EXPECT_FALSE(p != same);
  EXPECT_TRUE(p != reordered);
  EXPECT_TRUE(p.HasSameStructureAs(reordered));
  EXPECT_FALSE(p.HasSameStructureAs(other_sizes));
  EXPECT_FALSE(p.HasSameStructureAs(BlockSparsityPattern({2, 3, 1, 4}, {})));
}

// The example of SAP paper §IV-D (Figs. 2-3): 4 trees, patches (3,1), (3,2) and
// tree 4 alone (0-based: blocks 0..3, off-diagonal blocks (2, 0) and (2, 1)).
TEST(BlockSparseSymmetricMatrix, ToDenseAndMultiplyMatchHandBuiltMatrix) {
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern({2, 1, 2, 1}, {{2, 0}, {2, 1}}));
  EXPECT_EQ(H.ToDense(), Eigen::MatrixXd::Zero(6, 6));
  H.diagonal_block(0) << 4, 1, 1, 5;
  H.diagonal_block(1) << 6;
  H.diagonal_block(2) << 7, 2, 2, 8;
  H.diagonal_block(3) << 9;
  H.off_diagonal_block(0) << 0.5, -1.5, 2.5, 3.5;  // rows 3-4, cols 0-1
  H.off_diagonal_block(1) << -0.25, 0.75;          // rows 3-4, col 2

  Eigen::MatrixXd expected(6, 6);
  // clang-format off
  expected <<
      4.0,  1.0,  0.0,   0.5,  2.5, 0.0,
      1.0,  5.0,  0.0,  -1.5,  3.5, 0.0,
      0.0,  0.0,  6.0,  -0.25, 0.75, 0.0,
      0.5, -1.5, -0.25,  7.0,  2.0, 0.0,
      2.5,  3.5,  0.75,  2.0,  8.0, 0.0,
      0.0,  0.0,  0.0,   0.0,  0.0, 9.0;
  // clang-format on
  EXPECT_EQ(H.ToDense(), expected);

  const Eigen::VectorXd x =
      (Eigen::VectorXd(6) << 1, -2, 3, 0.5, -1, 2).finished();
  Eigen::VectorXd y;
  H.Multiply(x, &y);
  EXPECT_LT((y - expected * x).norm(), 1e-14 * (expected * x).norm());

  // Only the lower triangle of a diagonal block is read.
  H.diagonal_block(0)(0, 1) = 100.0;
  EXPECT_EQ(H.ToDense(), expected);
  H.Multiply(x, &y);
  EXPECT_LT((y - expected * x).norm(), 1e-14 * (expected * x).norm());

  H.SetZero();
  EXPECT_EQ(H.ToDense(), Eigen::MatrixXd::Zero(6, 6));
  EXPECT_EQ(H.off_diagonal_block(0).rows(), 2);
  EXPECT_EQ(H.off_diagonal_block(1).cols(), 1);
}

TEST(BlockSparseSymmetricMatrix, MultiplyMatchesDenseOnRandomGraph) {
  std::mt19937 rng(7);
  const int num_blocks = 30;
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern(test::RandomBlockSizes(num_blocks, 12, &rng),
                           test::RandomEdges(num_blocks, 60, &rng)));
  test::FillRandomSpd(&H, &rng);
  const Eigen::MatrixXd dense = H.ToDense();
  EXPECT_EQ(dense, dense.transpose());
  const Eigen::VectorXd x = test::RandomVector(H.size(), &rng);
  Eigen::VectorXd y = Eigen::VectorXd::Constant(H.size(), 1e300);
  H.Multiply(x, &y);
  EXPECT_LT((y - dense * x).norm(), 1e-13 * (dense * x).norm());
}

// Reset is the constructor on a used matrix: every block zero and shaped
// by the new pattern, whatever the old one held, and blocks of unchanged
// size keep their storage.
TEST(BlockSparseSymmetricMatrix, ResetMatchesAFreshlyConstructedMatrix) {
  std::mt19937 rng(3);
  BlockSparseSymmetricMatrix H;
  for (int trial = 0; trial < 20; ++trial) {
    const int num_blocks = 1 + trial % 9;
    BlockSparsityPattern pattern(
        test::RandomBlockSizes(num_blocks, trial % 2 ? 6 : 1 + trial % 4, &rng),
        test::RandomEdges(num_blocks, 2 * num_blocks, &rng));
    H.Reset(pattern);
    const BlockSparseSymmetricMatrix fresh(pattern);
    ASSERT_EQ(H.pattern(), fresh.pattern());
    EXPECT_EQ(H.ToDense(), fresh.ToDense()) << "trial " << trial;
    EXPECT_EQ(H.ToDense(), Eigen::MatrixXd::Zero(H.size(), H.size()));
    // Usable as a fresh one: filled, it multiplies as its dense form.
    test::FillRandomSpd(&H, &rng);
    const Eigen::VectorXd x = test::RandomVector(H.size(), &rng);
    Eigen::VectorXd y;
    H.Multiply(x, &y);
    const Eigen::MatrixXd dense = H.ToDense();
    EXPECT_LT((y - dense * x).norm(), 1e-13 * (1.0 + (dense * x).norm()));
  }
  // Same block sizes: the storage stays where it was.
  BlockSparseSymmetricMatrix K(BlockSparsityPattern({6, 6, 6}, {{1, 0}}));
  const double* diagonal = K.diagonal_block(2).data();
  const double* off = K.off_diagonal_block(0).data();
  K.diagonal_block(2).setOnes();
  K.Reset(BlockSparsityPattern({6, 6, 6}, {{2, 1}}));
  EXPECT_EQ(K.diagonal_block(2).data(), diagonal);
  EXPECT_EQ(K.off_diagonal_block(0).data(), off);
  EXPECT_EQ(K.ToDense(), Eigen::MatrixXd::Zero(18, 18));
}

TEST(BlockSparseSymmetricMatrix, RejectsBadShapesSizesAndNonFinite) {
  BlockSparseSymmetricMatrix H(BlockSparsityPattern({2, 3}, {{1, 0}}));
  Eigen::VectorXd y;
  ExpectInvalid([&] { H.Multiply(Eigen::VectorXd::Zero(4), &y); },
                "x has size 4");
  H.ValidateFinite();
  H.off_diagonal_block(0)(2, 1) = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid([&] { H.ValidateFinite(); }, "off-diagonal block 0 (1, 0)");
  H.off_diagonal_block(0).setZero();
  H.diagonal_block(1)(2, 1) = std::numeric_limits<double>::infinity();
  ExpectInvalid([&] { H.ValidateFinite(); }, "diagonal block 1");
  H.diagonal_block(1).setZero();
  H.diagonal_block(1)(1, 2) = std::numeric_limits<double>::infinity();
  H.ValidateFinite();  // Upper triangle of a diagonal block is not read.

  H.diagonal_block(1).resize(2, 2);
  ExpectInvalid([&] { H.ValidateBlockShapes(); }, "diagonal block 1");
  ExpectInvalid([&] { H.ToDense(); }, "diagonal block 1 is 2 x 2");
  H.diagonal_block(1).setZero(3, 3);
  H.off_diagonal_block(0).resize(2, 3);
  ExpectInvalid([&] { H.ToDense(); }, "off-diagonal block 0 (1, 0) is 2 x 3");
}

}  // namespace
}  // namespace sapcontact
