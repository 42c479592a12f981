#include "sapcontact/solver/linear_algebra/block_sparse_cholesky_factorization.h"

#include <Eigen/Cholesky>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define SAPCONTACT_AVX_KERNELS 1
#else
#define SAPCONTACT_AVX_KERNELS 0
#endif
// Inlined into the AVX functions too (compiled there for AVX).
#if defined(__GNUC__)
#define SAPCONTACT_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define SAPCONTACT_ALWAYS_INLINE inline
#endif

namespace sapcontact {
namespace {

// Whether the CPU (and the operating system) run AVX instructions.
bool CpuHasAvx() {
#if SAPCONTACT_AVX_KERNELS
  __builtin_cpu_init();  // needed when called before main (static objects)
  return __builtin_cpu_supports("avx");
#else
  return false;
#endif
}

}  // namespace

BlockSparseCholeskyFactorization::BlockSparseCholeskyFactorization()
    : use_avx_(CpuHasAvx()) {}

void BlockSparseCholeskyFactorization::set_use_avx(bool use_avx) {
  use_avx_ = use_avx && CpuHasAvx();
}

void BlockSparseCholeskyFactorization::Analyze(
    const BlockSparsityPattern& pattern) {
  const int nb = pattern.num_blocks();
  const auto& off = pattern.off_diagonal_blocks();

  // AMD on the graph of blocks (Eigen's port of Amestoy, Davis and Duff's
  // approximate minimum degree; block sizes are not weighted).
  perm_.resize(nb);
  if (nb > 0) {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(2 * off.size() + nb);
    for (int b = 0; b < nb; ++b) entries.emplace_back(b, b, 1.0);
    for (const auto& [i, j] : off) {
      entries.emplace_back(i, j, 1.0);
      entries.emplace_back(j, i, 1.0);
    }
    Eigen::SparseMatrix<double> graph(nb, nb);
    graph.setFromTriplets(entries.begin(), entries.end());
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> ordering;
    Eigen::AMDOrdering<int>()(graph, ordering);
    // indices()[new] = old (Eigen's SimplicialCholesky convention: it
    // factors P A P' with P the inverse of this ordering).
    for (int b = 0; b < nb; ++b) perm_[b] = ordering.indices()[b];
  }
  inverse_perm_.assign(nb, -1);
  for (int b = 0; b < nb; ++b) inverse_perm_[perm_[b]] = b;
  size_of_.resize(nb);
  offset_of_.resize(nb);
  original_offset_.resize(nb);
  int offset = 0;
  for (int b = 0; b < nb; ++b) {
    size_of_[b] = pattern.block_size(perm_[b]);
    original_offset_[b] = pattern.block_offset(perm_[b]);
    offset_of_[b] = offset;
    offset += size_of_[b];
  }

  // Symbolic factorization on blocks: rows(j) = {i > j: H_ij != 0} united
  // with rows(c) \ {j} over the elimination-tree children c of j (parent(c)
  // = min rows(c)).
  std::vector<std::vector<int>> lower(nb);
  for (const auto& [i, j] : off) {
    const int a = inverse_perm_[i], b = inverse_perm_[j];
    lower[std::min(a, b)].push_back(std::max(a, b));
  }
  std::vector<std::vector<int>> children(nb);
  std::vector<int> mark(nb, -1);
  row_start_.assign(nb + 1, 0);
  row_block_.clear();
  for (int j = 0; j < nb; ++j) {
    const int first = static_cast<int>(row_block_.size());
    for (int i : lower[j]) {
      if (mark[i] != j) {
        mark[i] = j;
        row_block_.push_back(i);
      }
    }
    for (int c : children[j]) {
      for (int r = row_start_[c]; r < row_start_[c + 1]; ++r) {
        const int i = row_block_[r];
        if (i != j && mark[i] != j) {
          mark[i] = j;
          row_block_.push_back(i);
        }
      }
    }
    std::sort(row_block_.begin() + first, row_block_.end());
    row_start_[j + 1] = static_cast<int>(row_block_.size());
    if (row_start_[j + 1] > first) children[row_block_[first]].push_back(j);
  }

  // Layout of L: per column, L_jj then the panel.
  panel_row_.resize(row_block_.size());
  panel_rows_.assign(nb, 0);
  diagonal_position_.resize(nb);
  panel_position_.resize(nb);
  long long position = 0;
  int max_panel = 0;
  flops_ = 0;
  for (int j = 0; j < nb; ++j) {
    const int s = size_of_[j];
    int m = 0;
    for (int r = row_start_[j]; r < row_start_[j + 1]; ++r) {
      panel_row_[r] = m;
      const int i = row_block_[r];
      m += size_of_[i];
    }
    panel_rows_[j] = m;
    max_panel = std::max(max_panel, m);
    diagonal_position_[j] = position;
    position += static_cast<long long>(s) * s;
    panel_position_[j] = position;
    position += static_cast<long long>(m) * s;
    // LLT of L_jj, the panel's triangular solve and the rank update.
    flops_ += s * (s + 1.0) * (2.0 * s + 1.0) / 6.0 + m * s * (s + 1.0) +
              m * (m + 1.0) * s;
  }
  if (position > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        "BlockSparseCholeskyFactorization: the factor has " +
        std::to_string(position) + " entries, more than the int limit");
  }
  values_.assign(position, 0.0);

  // Update targets: block (row a, row b), a >= b, of column j's P P' goes to
  // L_{row_block[a], row_block[b]}: the diagonal block when a == b, else
  // the panel of column row_block[b] at the panel row of row_block[a].
  update_start_.assign(nb + 1, 0);
  update_target_.clear();
  update_ld_.clear();
  update_source_.clear();
  update_shape_.clear();
  for (int j = 0; j < nb; ++j) {
    for (int rb = row_start_[j]; rb < row_start_[j + 1]; ++rb) {
      const int k = row_block_[rb];
      for (int ra = rb; ra < row_start_[j + 1]; ++ra) {
        const int i = row_block_[ra];
        long long target;
        int ld;
        if (ra == rb) {
          target = diagonal_position_[k];
          ld = size_of_[k];
        } else {
          const auto begin = row_block_.begin() + row_start_[k];
          const auto end = row_block_.begin() + row_start_[k + 1];
          const auto it = std::lower_bound(begin, end, i);
          if (it == end || *it != i) {
            throw std::logic_error(
                "BlockSparseCholeskyFactorization: symbolic factorization "
                "missed a fill block");
          }
          const int r = static_cast<int>(it - row_block_.begin());
          target = panel_position_[k] + panel_row_[r];
          ld = panel_rows_[k];
        }
        update_target_.push_back(target);
        update_ld_.push_back(ld);
        update_source_.emplace_back(panel_row_[ra], panel_row_[rb]);
        update_shape_.emplace_back(size_of_[i], size_of_[k]);
      }
    }
    update_start_[j + 1] = static_cast<int>(update_target_.size());
  }

  all_six_ = std::all_of(size_of_.begin(), size_of_.end(),
                         [](int size) { return size == 6; });
  update_.resize(all_six_ ? 0 : max_panel, all_six_ ? 0 : max_panel);
  int max_rows = 0;
  for (int j = 0; j < nb; ++j) {
    max_rows = std::max(max_rows, row_start_[j + 1] - row_start_[j]);
  }
  pair_source_.resize(max_rows);
  pair_target_.resize(max_rows);
  pair_ld_.resize(max_rows);
  permuted_.resize(offset);
  statistics_.factor_nonzeros = position;
  ++statistics_.symbolic_analyses;
}

void BlockSparseCholeskyFactorization::BuildValueMap(
    const BlockSparsityPattern& pattern) {
  const int num_off = pattern.num_off_diagonal_blocks();
  std::vector<char> covered(row_block_.size(), 0);
  off_diagonal_position_.resize(num_off);
  off_diagonal_ld_.resize(num_off);
  off_diagonal_transposed_.resize(num_off);
  for (int k = 0; k < num_off; ++k) {
    const auto& [i, j] = pattern.off_diagonal_blocks()[k];
    const int a = inverse_perm_[i], b = inverse_perm_[j];
    const int row = std::max(a, b), column = std::min(a, b);
    const auto begin = row_block_.begin() + row_start_[column];
    const auto end = row_block_.begin() + row_start_[column + 1];
    const int r = static_cast<int>(std::lower_bound(begin, end, row) -
                                   row_block_.begin());
    off_diagonal_position_[k] = panel_position_[column] + panel_row_[r];
    off_diagonal_ld_[k] = panel_rows_[column];
    off_diagonal_transposed_[k] = a < b;
    covered[r] = 1;
  }
  // The fill: panel blocks that no block of H lands on, zeroed before each
  // numeric factorization (the rest of L is overwritten by H's blocks).
  fill_blocks_.clear();
  for (int j = 0; j < static_cast<int>(size_of_.size()); ++j) {
    for (int r = row_start_[j]; r < row_start_[j + 1]; ++r) {
      if (!covered[r]) fill_blocks_.emplace_back(j, r);
    }
  }
}

void BlockSparseCholeskyFactorization::CopyBlocks(
    const BlockSparseSymmetricMatrix& H) {
  using MapMatrix = Eigen::Map<Eigen::MatrixXd>;
  using Stride = Eigen::OuterStride<>;
  using MapStrided = Eigen::Map<Eigen::MatrixXd, 0, Stride>;
  const BlockSparsityPattern& pattern = H.pattern();
  const int nb = pattern.num_blocks();
  for (int b = 0; b < nb; ++b) {
    const Eigen::MatrixXd& D = H.diagonal_block(perm_[b]);
    if (!D.allFinite()) H.ValidateFinite();
    MapMatrix(values_.data() + diagonal_position_[b], size_of_[b],
              size_of_[b]) = D;
  }
  for (int k = 0; k < pattern.num_off_diagonal_blocks(); ++k) {
    const Eigen::MatrixXd& B = H.off_diagonal_block(k);
    if (!B.allFinite()) H.ValidateFinite();
    if (off_diagonal_transposed_[k]) {
      MapStrided(values_.data() + off_diagonal_position_[k], B.cols(), B.rows(),
                 Stride(off_diagonal_ld_[k])) = B.transpose();
    } else {
      MapStrided(values_.data() + off_diagonal_position_[k], B.rows(), B.cols(),
                 Stride(off_diagonal_ld_[k])) = B;
    }
  }
}

void BlockSparseCholeskyFactorization::CopyBlocksOfSixes(
    const BlockSparseSymmetricMatrix& H) {
  using Block = Eigen::Matrix<double, 6, 6>;
  using Stride = Eigen::OuterStride<>;
  const BlockSparsityPattern& pattern = H.pattern();
  bool finite = true;
  for (int b = 0; b < pattern.num_blocks(); ++b) {
    const Eigen::Map<const Block> D(H.diagonal_block(perm_[b]).data());
    finite = finite && D.allFinite();
    Eigen::Map<Block>(values_.data() + diagonal_position_[b]) = D;
  }
  for (int k = 0; k < pattern.num_off_diagonal_blocks(); ++k) {
    const Eigen::Map<const Block> B(H.off_diagonal_block(k).data());
    finite = finite && B.allFinite();
    Eigen::Map<Block, 0, Stride> target(
        values_.data() + off_diagonal_position_[k],
        Stride(off_diagonal_ld_[k]));
    if (off_diagonal_transposed_[k]) {
      target = B.transpose();
    } else {
      target = B;
    }
  }
  if (!finite) H.ValidateFinite();
}

bool BlockSparseCholeskyFactorization::Factor(
    const BlockSparseSymmetricMatrix& H) {
  factored_ = false;
  size_ = H.size();
  H.ValidateBlockShapes();
  const BlockSparsityPattern& pattern = H.pattern();
  if (!has_pattern_ || pattern != pattern_) {
    if (has_pattern_ && pattern.HasSameStructureAs(pattern_)) {
      ++statistics_.block_renumberings;
    } else {
      has_pattern_ = false;  // Until the analysis succeeds.
      Analyze(pattern);
    }
    BuildValueMap(pattern);
    pattern_ = pattern;
    has_pattern_ = true;
  }
  ++statistics_.numeric_factorizations;
  const int nb = pattern.num_blocks();
  using MapMatrix = Eigen::Map<Eigen::MatrixXd>;
  using Stride = Eigen::OuterStride<>;
  using MapStrided = Eigen::Map<Eigen::MatrixXd, 0, Stride>;

  // Scatter H into L's layout; the fill blocks start at zero.
  for (const auto& [j, r] : fill_blocks_) {
    double* block = values_.data() + panel_position_[j] + panel_row_[r];
    const int rows = size_of_[row_block_[r]];
    for (int c = 0; c < size_of_[j]; ++c) {
      double* column = block + static_cast<std::ptrdiff_t>(c) * panel_rows_[j];
      std::fill(column, column + rows, 0.0);
    }
  }
  if (all_six_) {
    CopyBlocksOfSixes(H);
  } else {
    CopyBlocks(H);
  }

  for (int j = 0; j < nb; ++j) {
    if (all_six_) {
      if (!FactorColumnOfSixes(j)) {
        ++statistics_.failed_factorizations;
        return false;
      }
      continue;
    }
    const int s = size_of_[j];
    MapMatrix D(values_.data() + diagonal_position_[j], s, s);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(D);
    if (llt.info() != Eigen::Success) {
      ++statistics_.failed_factorizations;
      return false;
    }
    const int m = panel_rows_[j];
    if (m == 0) continue;
    MapMatrix P(values_.data() + panel_position_[j], m, s);
    // P <- P L_jj^-T.
    D.triangularView<Eigen::Lower>()
        .transpose()
        .solveInPlace<Eigen::OnTheRight>(P);
    // U = P P' (lower triangle), scattered block by block.
    auto U = update_.topLeftCorner(m, m);
    U.triangularView<Eigen::Lower>().setZero();
    U.selfadjointView<Eigen::Lower>().rankUpdate(P);
    for (int p = update_start_[j]; p < update_start_[j + 1]; ++p) {
      const auto [rows, cols] = update_shape_[p];
      const auto [ra, rb] = update_source_[p];
      MapStrided(values_.data() + update_target_[p], rows, cols,
                 Stride(update_ld_[p])) -= U.block(ra, rb, rows, cols);
    }
  }
  factored_ = true;
  return true;
}

namespace {

// In-place Cholesky factor of a 6 x 6 column-major block (its lower
// triangle is read and overwritten; the upper triangle is left alone).
// False on a pivot that is not positive (or NaN).
bool FactorSixBySix(double* a) {
  for (int c = 0; c < 6; ++c) {
    double d = a[7 * c];
    for (int k = 0; k < c; ++k) d -= a[c + 6 * k] * a[c + 6 * k];
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    a[7 * c] = d;
    const double inverse = 1.0 / d;
    for (int r = c + 1; r < 6; ++r) {
      double v = a[r + 6 * c];
      for (int k = 0; k < c; ++k) v -= a[r + 6 * k] * a[c + 6 * k];
      a[r + 6 * c] = v * inverse;
    }
  }
  return true;
}

// Column C of P <- P L^-T for an m-row panel P (column-major, leading
// dimension m) and a 6 x 6 factor L: X_C = (P_C - sum_{k<C} L_Ck X_k) /
// L_CC, one pass over the panel's rows per column.
template <int C>
SAPCONTACT_ALWAYS_INLINE void SolvePanelColumn(const double* L, int m,
                                               double* P) {
  double l[C > 0 ? C : 1];
  for (int k = 0; k < C; ++k) l[k] = L[C + 6 * k];
  const double inverse = 1.0 / L[7 * C];
  double* column = P + static_cast<std::ptrdiff_t>(C) * m;
  for (int r = 0; r < m; ++r) {
    double v = column[r];
    for (int k = 0; k < C; ++k) {
      v -= l[k] * P[static_cast<std::ptrdiff_t>(k) * m + r];
    }
    column[r] = v * inverse;
  }
}

// P <- P L^-T, the six columns in turn.
SAPCONTACT_ALWAYS_INLINE void SolvePanel(const double* L, int m, double* P) {
  SolvePanelColumn<0>(L, m, P);
  SolvePanelColumn<1>(L, m, P);
  SolvePanelColumn<2>(L, m, P);
  SolvePanelColumn<3>(L, m, P);
  SolvePanelColumn<4>(L, m, P);
  SolvePanelColumn<5>(L, m, P);
}

// target[0..6) -= A s for the 6 x 6 block A at a (column-major, leading
// dimension ld) and the 6-vector s (in registers).
inline void SubtractBlockTimesVector(const double* __restrict a,
                                     std::ptrdiff_t ld, const double* s,
                                     double* __restrict target) {
  double v[6];
  for (int i = 0; i < 6; ++i) {
    v[i] = a[i] * s[0] + a[i + ld] * s[1] + a[i + 2 * ld] * s[2] +
           a[i + 3 * ld] * s[3] + a[i + 4 * ld] * s[4] + a[i + 5 * ld] * s[5];
  }
  for (int i = 0; i < 6; ++i) target[i] -= v[i];
}

#if SAPCONTACT_AVX_KERNELS
// The AVX path of a column of sixes (instruction set extensions of the same
// arithmetic: every entry sees the same multiplications and additions in
// the same order as in the portable path, and no fused multiply-add, so
// the factor is bitwise the same). The panel solve: SolvePanel compiled
// for AVX.
__attribute__((target("avx"))) void SolvePanelAvx(const double* L, int m,
                                                  double* P) {
  SolvePanel(L, m, P);
}

// The rank update of one panel block row b (at `b`, leading dimension ld)
// with the blocks a = b, b + 1, ...: column t of target u gets
// -= A_u B(t, :)'. B's entries are broadcast once into tables; each A_u is
// loaded once into registers for its six target columns, taken two at a
// time: rows 0-3 of each column in one register, rows 4-5 of both columns
// together in another (A_u's rows 4-5 twice times B(t, k), B(t + 1, k)).
__attribute__((target("avx"))) void SubtractPairsAvx(
    const double* b, std::ptrdiff_t ld, int pairs, const double* const* a,
    double* const* target, const std::ptrdiff_t* target_ld) {
  __m256d s[36];  // s[6 t + k]: B(t, k) in every lane
  for (int t = 0; t < 6; ++t) {
    for (int k = 0; k < 6; ++k) {
      s[6 * t + k] = _mm256_broadcast_sd(b + t + k * ld);
    }
  }
  __m256d w[18];  // w[6 q + k]: B(2q, k) twice, then B(2q + 1, k) twice
  for (int q = 0; q < 3; ++q) {
    for (int k = 0; k < 6; ++k) {
      w[6 * q + k] =
          _mm256_permute2f128_pd(s[12 * q + k], s[12 * q + 6 + k], 0x20);
    }
  }
  for (int u = 0; u < pairs; ++u) {
    const double* x = a[u];
    __m256d top[6];     // rows 0-3 of column k of A_u
    __m256d bottom[6];  // rows 4-5 of column k, twice
    for (int k = 0; k < 6; ++k) {
      top[k] = _mm256_loadu_pd(x + k * ld);
      bottom[k] =
          _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(x + k * ld + 4));
    }
    const std::ptrdiff_t ldy = target_ld[u];
    double* y = target[u];
    for (int q = 0; q < 3; ++q, y += 2 * ldy) {
      const __m256d* s0 = s + 12 * q;  // column t = 2q
      const __m256d* s1 = s0 + 6;      // column t + 1
      const __m256d* wq = w + 6 * q;
      __m256d c0 = _mm256_mul_pd(top[0], s0[0]);
      __m256d c1 = _mm256_mul_pd(top[0], s1[0]);
      __m256d d = _mm256_mul_pd(bottom[0], wq[0]);
      for (int k = 1; k < 6; ++k) {
        c0 = _mm256_add_pd(c0, _mm256_mul_pd(top[k], s0[k]));
        c1 = _mm256_add_pd(c1, _mm256_mul_pd(top[k], s1[k]));
        d = _mm256_add_pd(d, _mm256_mul_pd(bottom[k], wq[k]));
      }
      double* y1 = y + ldy;
      _mm256_storeu_pd(y, _mm256_sub_pd(_mm256_loadu_pd(y), c0));
      _mm256_storeu_pd(y1, _mm256_sub_pd(_mm256_loadu_pd(y1), c1));
      _mm_storeu_pd(y + 4,
                    _mm_sub_pd(_mm_loadu_pd(y + 4), _mm256_castpd256_pd128(d)));
      _mm_storeu_pd(y1 + 4, _mm_sub_pd(_mm_loadu_pd(y1 + 4),
                                       _mm256_extractf128_pd(d, 1)));
    }
  }
}

#endif

}  // namespace

bool BlockSparseCholeskyFactorization::FactorColumnOfSixes(int j) {
  double* L = values_.data() + diagonal_position_[j];
  if (!FactorSixBySix(L)) return false;
  const int m = panel_rows_[j];
  if (m == 0) return true;
  double* P = values_.data() + panel_position_[j];
  const std::ptrdiff_t ld = m;
#if SAPCONTACT_AVX_KERNELS
  if (use_avx_) {
    SolvePanelAvx(L, m, P);
    int p = update_start_[j];
    for (int rb = row_start_[j]; rb < row_start_[j + 1]; ++rb) {
      const int pairs = row_start_[j + 1] - rb;
      for (int u = 0; u < pairs; ++u) {
        pair_source_[u] = P + update_source_[p + u].first;
        pair_target_[u] = values_.data() + update_target_[p + u];
        pair_ld_[u] = update_ld_[p + u];
      }
      SubtractPairsAvx(P + panel_row_[rb], ld, pairs, pair_source_.data(),
                       pair_target_.data(), pair_ld_.data());
      p += pairs;
    }
    return true;
  }
#endif
  SolvePanel(L, m, P);
  // Rank update P P'. The update list holds, for each block row b of the
  // panel in turn, the pairs (a, b) for a = b, b + 1, ...: column t of all
  // of them is target(:, t) -= P_a P_b(t, :)', with row t of P_b loaded
  // once (2x fewer instructions than one 6 x 6 x 6 product per pair).
  int p = update_start_[j];
  for (int rb = row_start_[j]; rb < row_start_[j + 1]; ++rb) {
    const int pairs = row_start_[j + 1] - rb;
    const double* b = P + panel_row_[rb];
    for (int t = 0; t < 6; ++t) {
      const double s[6] = {b[t],          b[t + ld],     b[t + 2 * ld],
                           b[t + 3 * ld], b[t + 4 * ld], b[t + 5 * ld]};
      for (int u = p; u < p + pairs; ++u) {
        SubtractBlockTimesVector(
            P + update_source_[u].first, ld, s,
            values_.data() + update_target_[u] +
                static_cast<std::ptrdiff_t>(t) * update_ld_[u]);
      }
    }
    p += pairs;
  }
  return true;
}

void BlockSparseCholeskyFactorization::SolveInPlace(Eigen::VectorXd* b) const {
  if (!factored_) {
    throw std::logic_error(
        "BlockSparseCholeskyFactorization::SolveInPlace: no successful "
        "Factor()");
  }
  if (b == nullptr || b->size() != size_) {
    throw std::invalid_argument(
        "BlockSparseCholeskyFactorization::SolveInPlace: b " +
        (b == nullptr ? std::string("is null")
                      : "has size " + std::to_string(b->size())) +
        ", factored size is " + std::to_string(size_));
  }
  const int nb = static_cast<int>(size_of_.size());
  Eigen::VectorXd& x = permuted_;
  for (int j = 0; j < nb; ++j) {
    x.segment(offset_of_[j], size_of_[j]) =
        b->segment(original_offset_[j], size_of_[j]);
  }
  if (all_six_) {
    Substitute<6>(&x);
  } else {
    Substitute<Eigen::Dynamic>(&x);
  }
  for (int j = 0; j < nb; ++j) {
    b->segment(original_offset_[j], size_of_[j]) =
        x.segment(offset_of_[j], size_of_[j]);
  }
}

template <int kSize>
void BlockSparseCholeskyFactorization::Substitute(Eigen::VectorXd* xp) const {
  // kSize = 6: every block 6 x 6, fixed-size products; Eigen::Dynamic: any.
  using Square = Eigen::Matrix<double, kSize, kSize>;
  using Panel = Eigen::Matrix<double, Eigen::Dynamic, kSize>;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  const int nb = static_cast<int>(size_of_.size());
  double* x = xp->data();
  auto block = [&](int j) {
    return Eigen::Map<Vector>(x + offset_of_[j], size_of_[j]);
  };
  // L y = b, one below-diagonal block of the panel at a time.
  for (int j = 0; j < nb; ++j) {
    const int s = size_of_[j], m = panel_rows_[j];
    Eigen::Map<Vector> xj = block(j);
    Eigen::Map<const Square>(values_.data() + diagonal_position_[j], s, s)
        .template triangularView<Eigen::Lower>()
        .solveInPlace(xj);
    const Eigen::Map<const Panel> P(values_.data() + panel_position_[j], m, s);
    for (int r = row_start_[j]; r < row_start_[j + 1]; ++r) {
      const int i = row_block_[r];
      block(i).noalias() -=
          P.template middleRows<kSize>(panel_row_[r], size_of_[i]) * xj;
    }
  }
  // L' x = y.
  for (int j = nb - 1; j >= 0; --j) {
    const int s = size_of_[j], m = panel_rows_[j];
    Eigen::Map<Vector> xj = block(j);
    const Eigen::Map<const Panel> P(values_.data() + panel_position_[j], m, s);
    for (int r = row_start_[j]; r < row_start_[j + 1]; ++r) {
      const int i = row_block_[r];
      xj.noalias() -=
          P.template middleRows<kSize>(panel_row_[r], size_of_[i]).transpose() *
          block(i);
    }
    Eigen::Map<const Square>(values_.data() + diagonal_position_[j], s, s)
        .transpose()
        .template triangularView<Eigen::Upper>()
        .solveInPlace(xj);
  }
}

double BlockSparseCholeskyFactorization::ReciprocalConditionEstimate() const {
  if (!factored_) return 0.0;
  if (size_ == 0) return 1.0;
  double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
  for (size_t j = 0; j < size_of_.size(); ++j) {
    const int s = size_of_[j];
    for (int c = 0; c < s; ++c) {
      const double d = values_[diagonal_position_[j] + c * (s + 1)];
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
  }
  const double ratio = lo / hi;
  return ratio * ratio;
}

std::unique_ptr<HessianFactorization> MakeBlockSparseCholeskyFactorization() {
  return std::make_unique<BlockSparseCholeskyFactorization>();
}

}  // namespace sapcontact
