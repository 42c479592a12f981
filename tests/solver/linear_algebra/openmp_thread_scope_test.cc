// SingleThreadOpenMpScope (solver/linear_algebra/openmp_thread_scope.h):
// inside the scope the calling thread's OpenMP regions are confined to it;
// afterwards the embedder's own settings are back, and a CHOLMOD
// factorization leaves them untouched.
#include "sapcontact/solver/linear_algebra/openmp_thread_scope.h"

#include <gtest/gtest.h>
#include <omp.h>

#include "sapcontact/solver/linear_algebra/cholmod_hessian_factorization.h"
#include "tests/solver/linear_algebra/random_block_sparse_matrices.h"

namespace sapcontact {
namespace {

TEST(SingleThreadOpenMpScope, ConfinesAndRestoresTheCallersSettings) {
  omp_set_max_active_levels(3);
  omp_set_num_threads(2);
  {
    SingleThreadOpenMpScope scope;
    EXPECT_EQ(omp_get_max_active_levels(), 0);
    EXPECT_EQ(omp_get_max_threads(), 1);
    {
      SingleThreadOpenMpScope nested;  // nesting restores the outer scope's
      EXPECT_EQ(omp_get_max_threads(), 1);
    }
    EXPECT_EQ(omp_get_max_active_levels(), 0);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_active_levels(), 3);
  EXPECT_EQ(omp_get_max_threads(), 2);
}

TEST(SingleThreadOpenMpScope, CholmodFactorizationKeepsTheCallersSettings) {
  omp_set_max_active_levels(2);
  omp_set_num_threads(3);
  std::mt19937 rng(7);
  BlockSparseSymmetricMatrix H(
      BlockSparsityPattern(std::vector<int>(100, 6), test::GridEdges(10, 10)));
  test::FillRandomSpd(&H, &rng);
  CholmodHessianFactorization f;
  ASSERT_TRUE(f.Factor(H));
  EXPECT_EQ(omp_get_max_active_levels(), 2);
  EXPECT_EQ(omp_get_max_threads(), 3);
}

}  // namespace
}  // namespace sapcontact
