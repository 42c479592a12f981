// Block-sparse Cholesky factorization H = L L' of the SAP Newton Hessian on
// its own tree/patch block pattern (SAP paper §IV-D "Problem Sparsity";
// docs/theory.md §8). One block row/column per tree: the fill-reducing
// ordering (AMD) and the symbolic factorization work on the graph of trees,
// and the numeric factorization is a right-looking block Cholesky whose
// column j is the dense diagonal block L_jj and one dense panel stacking the
// blocks L_ij of the rows below it. Per column: an in-place LLT of L_jj, one
// triangular solve of the panel, one rank update P P' scattered into the
// later columns through positions computed by the symbolic analysis.
//
// When every block is 6 x 6 (free bodies), the columns run fixed-size
// kernels: scalar ones anywhere, and on x86-64 CPUs with AVX (detected at
// run time; the build stays baseline x86-64) AVX versions of the panel
// solve and the rank update that do the same multiplications and additions
// in the same order without fused multiply-adds, so the factor is bitwise
// the same on every machine.
//
// Why next to CHOLMOD: the Hessians of piles and stacks of free bodies have
// 6 x 6 blocks and little fill (the 512-sphere pile at dt = 1e-3: n = 3054,
// 4.1 Mflop per factorization; at dt = 1e-2: 22 Mflop), where CHOLMOD's
// per-call overheads (transposes, workspace allocation, one BLAS or OpenMP
// call per tiny supernode) cost 3-5 times the arithmetic. SapSolver uses
// CHOLMOD only when asked (LinearSolverType::kCholmod).
//
// The symbolic analysis is redone only when the block pattern's structure
// changes (a renumbering of the same blocks only rebuilds the value map).
// No allocation in Factor() or SolveInPlace() while the pattern stays.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <utility>
#include <vector>

#include "sapcontact/solver/linear_algebra/hessian_factorization.h"

namespace sapcontact {

/// Block LL' of a BlockSparseSymmetricMatrix (header comment). Copyable and
/// movable.
class BlockSparseCholeskyFactorization final : public HessianFactorization {
 public:
  BlockSparseCholeskyFactorization();

  bool Factor(const BlockSparseSymmetricMatrix& H) override;
  void SolveInPlace(Eigen::VectorXd* b) const override;
  /// (min diag L / max diag L)^2 over every diagonal entry of L, O(n): the
  /// same estimate as CHOLMOD's cholmod_rcond (never below the true 2-norm
  /// value, can overestimate).
  double ReciprocalConditionEstimate() const override;
  const FactorizationStatistics& statistics() const override {
    return statistics_;
  }
  LinearSolverType type() const override {
    return LinearSolverType::kBlockSparse;
  }
  bool is_factored() const override { return factored_; }
  int size() const override { return size_; }

  /// Floating-point operations of one numeric factorization of the current
  /// pattern (multiply-adds counted as 2, as CHOLMOD's Common->fl); 0 before
  /// the first Factor().
  double factorization_flops() const { return flops_; }

  /// Whether the numeric factorization of all-6 x 6 patterns runs its AVX
  /// kernels (x86-64 CPUs with AVX, detected at construction). They do the
  /// same arithmetic as the portable kernels in the same order, without
  /// fused multiply-adds: the factor is bitwise the same either way.
  bool uses_avx() const { return use_avx_; }
  /// false: the portable kernels (tests compare the two); true: AVX where
  /// the CPU has it.
  void set_use_avx(bool use_avx);

 private:
  // Fill-reducing ordering and symbolic factorization of `pattern`.
  void Analyze(const BlockSparsityPattern& pattern);
  // H's blocks into their places in values_ (any sizes; all 6 x 6). Throw
  // (H.ValidateFinite) on a NaN or infinite entry.
  void CopyBlocks(const BlockSparseSymmetricMatrix& H);
  void CopyBlocksOfSixes(const BlockSparseSymmetricMatrix& H);
  // Column j when every block is 6 x 6 (free bodies): fixed-size kernels,
  // the rank update's blocks multiplied straight into their targets.
  // Returns false on a non-positive pivot.
  bool FactorColumnOfSixes(int j);
  // Forward and back substitution on the permuted vector; kSize = 6 when
  // every block is 6 x 6 (fixed-size kernels), else Eigen::Dynamic.
  template <int kSize>
  void Substitute(Eigen::VectorXd* x) const;
  // Where each block of H goes in values_ (after Analyze, or after a
  // renumbering of the same blocks).
  void BuildValueMap(const BlockSparsityPattern& pattern);

  BlockSparsityPattern pattern_;  // The one analysed and mapped.
  bool has_pattern_{false};
  bool all_six_{false};  // every block is 6 x 6

  // Ordering: block perm_[b] of H is block b of L (b = "new" index).
  std::vector<int> perm_, inverse_perm_;
  std::vector<int> size_of_;          // block size, new index
  std::vector<int> offset_of_;        // first scalar row, new index
  std::vector<int> original_offset_;  // first scalar row in H, new index
  // Column j of L: rows row_block_[row_start_[j] .. row_start_[j+1]) (new
  // block indices > j, ascending), each at scalar row panel_row_[.] of the
  // panel; panel_rows_[j] rows in all.
  std::vector<int> row_start_, row_block_, panel_row_, panel_rows_;
  // L_jj (size_of_[j]^2, column-major) at diagonal_position_[j]; the panel
  // (panel_rows_[j] x size_of_[j], column-major) at panel_position_[j].
  std::vector<long long> diagonal_position_, panel_position_;
  // Rank update of column j: pair p in [update_start_[j],
  // update_start_[j+1]) subtracts block (a, b) of P P' (a >= b, rows a and b
  // of column j) from L at update_target_[p], leading dimension
  // update_ld_[p]; update_source_[p] = (panel row of a, panel row of b).
  std::vector<int> update_start_;
  std::vector<long long> update_target_;
  std::vector<int> update_ld_;
  std::vector<std::pair<int, int>> update_source_;
  std::vector<std::pair<int, int>> update_shape_;  // (rows, cols)
  // Scratch of the AVX kernels: one panel block row's update pairs as
  // (source, target, target leading dimension), as many as a column has
  // block rows.
  std::vector<const double*> pair_source_;
  std::vector<double*> pair_target_;
  std::vector<std::ptrdiff_t> pair_ld_;
  bool use_avx_{false};
  // Value map of H's off-diagonal block k: position in values_, leading
  // dimension, and whether it is stored transposed (new row < new column).
  std::vector<long long> off_diagonal_position_;
  std::vector<int> off_diagonal_ld_;
  std::vector<char> off_diagonal_transposed_;

  // The fill: panel blocks of L that no block of H covers, as (column j,
  // index into row_block_), zeroed before each numeric factorization.
  std::vector<std::pair<int, int>> fill_blocks_;

  std::vector<double> values_;  // L
  // Scratch: P P' of one column (general sizes), the permuted vector.
  Eigen::MatrixXd update_;
  mutable Eigen::VectorXd permuted_;

  FactorizationStatistics statistics_;
  double flops_{0.0};
  bool factored_{false};
  int size_{0};
};

}  // namespace sapcontact
