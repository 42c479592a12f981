// Block-sparse symmetric matrices with the tree/patch block pattern of the
// SAP Newton Hessian H = A + J' G J (SAP paper §IV-D): one dense
// diagonal block per tree (n_t x n_t) and one dense off-diagonal block per
// pair of distinct trees coupled by a contact patch. Only the lower triangle
// (block (i, j) with i > j) is stored; the upper triangle is its transpose.
// Units are those of the stored quantity (for the Hessian: kg-like, see
// solver/sap/sap_problem.h).
#pragma once

#include <Eigen/Core>
#include <utility>
#include <vector>

namespace sapcontact {

/// Block pattern of a symmetric matrix: diagonal blocks of the given sizes
/// (always present) and the lower-triangular off-diagonal blocks (i, j), i > j.
class BlockSparsityPattern {
 public:
  BlockSparsityPattern() = default;
  /// Throws std::invalid_argument on sizes <= 0, i <= j, out of range or
  /// duplicate pairs. The off-diagonal list is stored in the order given (its
  /// index k names the block).
  BlockSparsityPattern(std::vector<int> block_sizes,
                       std::vector<std::pair<int, int>> off_diagonal_blocks);
  /// The same as constructing from copies of the arguments, into this
  /// pattern's storage (no allocation once it is large enough). On a throw
  /// the pattern is left empty.
  void Assign(const std::vector<int>& block_sizes,
              const std::vector<std::pair<int, int>>& off_diagonal_blocks);

  int num_blocks() const { return static_cast<int>(block_sizes_.size()); }
  int block_size(int i) const { return block_sizes_[i]; }
  /// First row (and column) of block i.
  int block_offset(int i) const { return block_offsets_[i]; }
  /// Total number of rows.
  int size() const { return size_; }
  const std::vector<int>& block_sizes() const { return block_sizes_; }
  const std::vector<std::pair<int, int>>& off_diagonal_blocks() const {
    return off_diagonal_blocks_;
  }
  int num_off_diagonal_blocks() const {
    return static_cast<int>(off_diagonal_blocks_.size());
  }
  /// Index k of the off-diagonal block (i, j), i > j, or -1 if the pattern
  /// has no such block (also -1 when i <= j or out of range). O(log E).
  int off_diagonal_block_index(int i, int j) const;
  /// Number of scalar entries in the lower triangle including the diagonal
  /// (the nonzeros of the CHOLMOD stype = -1 matrix).
  long long num_lower_triangle_entries() const;

  /// Same block sizes and the same off-diagonal list in the same order.
  bool operator==(const BlockSparsityPattern& other) const;
  bool operator!=(const BlockSparsityPattern& other) const {
    return !(*this == other);
  }
  /// Same block sizes and the same set of off-diagonal blocks, in any order:
  /// the scalar sparsity pattern is identical (a symbolic factorization can be
  /// reused) even if the block numbering k differs.
  bool HasSameStructureAs(const BlockSparsityPattern& other) const;

 private:
  std::vector<int> block_sizes_;
  std::vector<int> block_offsets_;
  int size_{0};
  std::vector<std::pair<int, int>> off_diagonal_blocks_;
  // Off-diagonal pairs sorted by (i, j) together with their index k.
  std::vector<std::pair<std::pair<int, int>, int>> sorted_blocks_;
  // Checks the sizes and pairs and builds the offsets and the sorted list.
  void Index();
};

/// A symmetric matrix with a BlockSparsityPattern. Blocks are dense
/// column-major Eigen matrices allocated once by the constructor; the caller
/// fills them (e.g. every Newton iteration) and must not resize blocks
/// (checked by ToDense, Multiply and the factorizations, which throw
/// std::invalid_argument naming the block). Diagonal blocks should be kept
/// symmetric; every reader (ToDense, Multiply, the factorizations) uses only
/// their lower triangle, so all of them see the same matrix.
class BlockSparseSymmetricMatrix {
 public:
  BlockSparseSymmetricMatrix() = default;
  /// All blocks allocated and zero.
  explicit BlockSparseSymmetricMatrix(BlockSparsityPattern pattern);

  const BlockSparsityPattern& pattern() const { return pattern_; }
  int size() const { return pattern_.size(); }

  /// Sets every block to zero without reallocating.
  void SetZero();

  /// Takes `pattern` with every block zero, as the constructor does, but
  /// keeps the blocks it already has: a block whose size does not change
  /// is not reallocated (a solver whose pattern changes every step but
  /// whose blocks are all 6 x 6 allocates only when the block count grows).
  void Reset(BlockSparsityPattern pattern);

  /// Diagonal block i, n_i x n_i.
  Eigen::MatrixXd& diagonal_block(int i) { return diagonal_blocks_[i]; }
  const Eigen::MatrixXd& diagonal_block(int i) const {
    return diagonal_blocks_[i];
  }
  /// Off-diagonal block (i, j) = pattern().off_diagonal_blocks()[k], i > j,
  /// n_i x n_j: rows of block i, columns of block j.
  Eigen::MatrixXd& off_diagonal_block(int k) { return off_diagonal_blocks_[k]; }
  const Eigen::MatrixXd& off_diagonal_block(int k) const {
    return off_diagonal_blocks_[k];
  }

  /// Full symmetric dense matrix (tests, small problems).
  Eigen::MatrixXd ToDense() const;
  /// Writes the full symmetric dense matrix into *dense, resizing it only if
  /// its size differs (no allocation when called repeatedly).
  void ToDense(Eigen::MatrixXd* dense) const;

  /// y = H x with the symmetric product (each off-diagonal block used twice).
  /// y is resized only if needed; y must not alias x. Throws
  /// std::invalid_argument if x.size() != size().
  void Multiply(const Eigen::VectorXd& x, Eigen::VectorXd* y) const;

  /// Throws std::invalid_argument if a block was resized away from the
  /// pattern's sizes. O(number of blocks).
  void ValidateBlockShapes() const;

  /// Throws std::invalid_argument naming the first block with a NaN or
  /// infinite entry (lower triangle of diagonal blocks, all of off-diagonal
  /// blocks).
  void ValidateFinite() const;

 private:
  BlockSparsityPattern pattern_;
  std::vector<Eigen::MatrixXd> diagonal_blocks_;
  std::vector<Eigen::MatrixXd> off_diagonal_blocks_;
};

}  // namespace sapcontact
