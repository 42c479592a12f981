#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sapcontact {
namespace {

std::string PairName(int k, const std::pair<int, int>& ij) {
  return "off-diagonal block " + std::to_string(k) + " (" +
         std::to_string(ij.first) + ", " + std::to_string(ij.second) + ")";
}

}  // namespace

BlockSparsityPattern::BlockSparsityPattern(
    std::vector<int> block_sizes,
    std::vector<std::pair<int, int>> off_diagonal_blocks)
    : block_sizes_(std::move(block_sizes)),
      off_diagonal_blocks_(std::move(off_diagonal_blocks)) {
  Index();
}

void BlockSparsityPattern::Assign(
    const std::vector<int>& block_sizes,
    const std::vector<std::pair<int, int>>& off_diagonal_blocks) {
  block_sizes_.assign(block_sizes.begin(), block_sizes.end());
  off_diagonal_blocks_.assign(off_diagonal_blocks.begin(),
                              off_diagonal_blocks.end());
  try {
    Index();
  } catch (...) {
    *this = BlockSparsityPattern();  // no half-checked pattern
    throw;
  }
}

void BlockSparsityPattern::Index() {
  const int n = num_blocks();
  block_offsets_.resize(n);
  long long offset = 0;
  for (int i = 0; i < n; ++i) {
    if (block_sizes_[i] <= 0) {
      throw std::invalid_argument(
          "BlockSparsityPattern: block " + std::to_string(i) + " has size " +
          std::to_string(block_sizes_[i]) + " (must be > 0)");
    }
    block_offsets_[i] = static_cast<int>(offset);
    offset += block_sizes_[i];
    if (offset > 1'000'000'000LL) {
      throw std::invalid_argument(
          "BlockSparsityPattern: total size exceeds 1e9 rows at block " +
          std::to_string(i));
    }
  }
  size_ = static_cast<int>(offset);

  const int num_off = num_off_diagonal_blocks();
  sorted_blocks_.clear();
  sorted_blocks_.reserve(num_off);
  for (int k = 0; k < num_off; ++k) {
    const auto& ij = off_diagonal_blocks_[k];
    if (ij.first < 0 || ij.first >= n || ij.second < 0 || ij.second >= n) {
      throw std::invalid_argument("BlockSparsityPattern: " + PairName(k, ij) +
                                  " is out of range [0, " + std::to_string(n) +
                                  ")");
    }
    if (ij.first <= ij.second) {
      throw std::invalid_argument("BlockSparsityPattern: " + PairName(k, ij) +
                                  " is not strictly lower (need i > j)");
    }
    sorted_blocks_.push_back({ij, k});
  }
  std::sort(sorted_blocks_.begin(), sorted_blocks_.end());
  for (int s = 1; s < num_off; ++s) {
    if (sorted_blocks_[s].first == sorted_blocks_[s - 1].first) {
      const int k =
          std::max(sorted_blocks_[s].second, sorted_blocks_[s - 1].second);
      const int first =
          std::min(sorted_blocks_[s].second, sorted_blocks_[s - 1].second);
      throw std::invalid_argument(
          "BlockSparsityPattern: " + PairName(k, off_diagonal_blocks_[k]) +
          " duplicates off-diagonal block " + std::to_string(first));
    }
  }
}

int BlockSparsityPattern::off_diagonal_block_index(int i, int j) const {
  const std::pair<int, int> key{i, j};
  auto it = std::lower_bound(
      sorted_blocks_.begin(), sorted_blocks_.end(), key,
      [](const std::pair<std::pair<int, int>, int>& entry,
         const std::pair<int, int>& k) { return entry.first < k; });
  if (it == sorted_blocks_.end() || it->first != key) return -1;
  return it->second;
}

long long BlockSparsityPattern::num_lower_triangle_entries() const {
  long long count = 0;
  for (int n_i : block_sizes_) {
    count += static_cast<long long>(n_i) * (n_i + 1) / 2;
  }
  for (const auto& [i, j] : off_diagonal_blocks_) {
    count += static_cast<long long>(block_sizes_[i]) * block_sizes_[j];
  }
  return count;
}

bool BlockSparsityPattern::operator==(const BlockSparsityPattern& other) const {
  return block_sizes_ == other.block_sizes_ &&
         off_diagonal_blocks_ == other.off_diagonal_blocks_;
}

bool BlockSparsityPattern::HasSameStructureAs(
    const BlockSparsityPattern& other) const {
  if (block_sizes_ != other.block_sizes_ ||
      sorted_blocks_.size() != other.sorted_blocks_.size()) {
    return false;
  }
  for (size_t s = 0; s < sorted_blocks_.size(); ++s) {
    if (sorted_blocks_[s].first != other.sorted_blocks_[s].first) return false;
  }
  return true;
}

BlockSparseSymmetricMatrix::BlockSparseSymmetricMatrix(
    BlockSparsityPattern pattern)
    : pattern_(std::move(pattern)) {
  diagonal_blocks_.reserve(pattern_.num_blocks());
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const int n_i = pattern_.block_size(i);
    diagonal_blocks_.push_back(Eigen::MatrixXd::Zero(n_i, n_i));
  }
  off_diagonal_blocks_.reserve(pattern_.num_off_diagonal_blocks());
  for (const auto& [i, j] : pattern_.off_diagonal_blocks()) {
    off_diagonal_blocks_.push_back(
        Eigen::MatrixXd::Zero(pattern_.block_size(i), pattern_.block_size(j)));
  }
}

void BlockSparseSymmetricMatrix::Reset(BlockSparsityPattern pattern) {
  pattern_ = std::move(pattern);
  diagonal_blocks_.resize(pattern_.num_blocks());
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const int n_i = pattern_.block_size(i);
    diagonal_blocks_[i].setZero(n_i, n_i);
  }
  const auto& off = pattern_.off_diagonal_blocks();
  off_diagonal_blocks_.resize(off.size());
  for (size_t b = 0; b < off.size(); ++b) {
    off_diagonal_blocks_[b].setZero(pattern_.block_size(off[b].first),
                                    pattern_.block_size(off[b].second));
  }
}

void BlockSparseSymmetricMatrix::SetZero() {
  for (auto& block : diagonal_blocks_) block.setZero();
  for (auto& block : off_diagonal_blocks_) block.setZero();
}

void BlockSparseSymmetricMatrix::ValidateBlockShapes() const {
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const int n_i = pattern_.block_size(i);
    const auto& D = diagonal_blocks_[i];
    if (D.rows() != n_i || D.cols() != n_i) {
      throw std::invalid_argument(
          "BlockSparseSymmetricMatrix: diagonal block " + std::to_string(i) +
          " is " + std::to_string(D.rows()) + " x " + std::to_string(D.cols()) +
          ", pattern says " + std::to_string(n_i) + " x " +
          std::to_string(n_i));
    }
  }
  const auto& pairs = pattern_.off_diagonal_blocks();
  for (int k = 0; k < pattern_.num_off_diagonal_blocks(); ++k) {
    const int rows = pattern_.block_size(pairs[k].first);
    const int cols = pattern_.block_size(pairs[k].second);
    const auto& B = off_diagonal_blocks_[k];
    if (B.rows() != rows || B.cols() != cols) {
      throw std::invalid_argument(
          "BlockSparseSymmetricMatrix: " + PairName(k, pairs[k]) + " is " +
          std::to_string(B.rows()) + " x " + std::to_string(B.cols()) +
          ", pattern says " + std::to_string(rows) + " x " +
          std::to_string(cols));
    }
  }
}

void BlockSparseSymmetricMatrix::ValidateFinite() const {
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const auto& D = diagonal_blocks_[i];
    for (int c = 0; c < D.cols(); ++c) {
      if (!D.col(c).tail(D.rows() - c).allFinite()) {
        throw std::invalid_argument(
            "BlockSparseSymmetricMatrix: diagonal block " + std::to_string(i) +
            " has a non-finite entry in column " + std::to_string(c));
      }
    }
  }
  for (int k = 0; k < pattern_.num_off_diagonal_blocks(); ++k) {
    if (!off_diagonal_blocks_[k].allFinite()) {
      throw std::invalid_argument(
          "BlockSparseSymmetricMatrix: " +
          PairName(k, pattern_.off_diagonal_blocks()[k]) +
          " has a non-finite entry");
    }
  }
}

void BlockSparseSymmetricMatrix::ToDense(Eigen::MatrixXd* dense) const {
  ValidateBlockShapes();
  const int n = size();
  if (dense->rows() != n || dense->cols() != n) dense->resize(n, n);
  dense->setZero();
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const int o = pattern_.block_offset(i);
    const int n_i = pattern_.block_size(i);
    dense->block(o, o, n_i, n_i) =
        diagonal_blocks_[i].selfadjointView<Eigen::Lower>();
  }
  const auto& pairs = pattern_.off_diagonal_blocks();
  for (int k = 0; k < pattern_.num_off_diagonal_blocks(); ++k) {
    const int oi = pattern_.block_offset(pairs[k].first);
    const int oj = pattern_.block_offset(pairs[k].second);
    const auto& B = off_diagonal_blocks_[k];
    dense->block(oi, oj, B.rows(), B.cols()) = B;
    dense->block(oj, oi, B.cols(), B.rows()) = B.transpose();
  }
}

Eigen::MatrixXd BlockSparseSymmetricMatrix::ToDense() const {
  Eigen::MatrixXd dense;
  ToDense(&dense);
  return dense;
}

void BlockSparseSymmetricMatrix::Multiply(const Eigen::VectorXd& x,
                                          Eigen::VectorXd* y) const {
  ValidateBlockShapes();
  const int n = size();
  if (x.size() != n) {
    throw std::invalid_argument(
        "BlockSparseSymmetricMatrix::Multiply: x has size " +
        std::to_string(x.size()) + ", matrix size is " + std::to_string(n));
  }
  if (y->size() != n) y->resize(n);
  for (int i = 0; i < pattern_.num_blocks(); ++i) {
    const int o = pattern_.block_offset(i);
    const int n_i = pattern_.block_size(i);
    y->segment(o, n_i).noalias() =
        diagonal_blocks_[i].selfadjointView<Eigen::Lower>() * x.segment(o, n_i);
  }
  const auto& pairs = pattern_.off_diagonal_blocks();
  for (int k = 0; k < pattern_.num_off_diagonal_blocks(); ++k) {
    const int oi = pattern_.block_offset(pairs[k].first);
    const int oj = pattern_.block_offset(pairs[k].second);
    const auto& B = off_diagonal_blocks_[k];
    y->segment(oi, B.rows()).noalias() += B * x.segment(oj, B.cols());
    y->segment(oj, B.cols()).noalias() +=
        B.transpose() * x.segment(oi, B.rows());
  }
}

}  // namespace sapcontact
