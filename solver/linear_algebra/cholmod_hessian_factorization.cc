#include "sapcontact/solver/linear_algebra/cholmod_hessian_factorization.h"

#include <cholmod.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sapcontact/solver/linear_algebra/openmp_thread_scope.h"

namespace sapcontact {

struct CholmodHessianFactorization::Impl {
  explicit Impl(CholmodFactorKind kind) {
    cholmod_start(&common);
    common.print = 0;  // We report failures ourselves.
    common.error_handler = nullptr;
    switch (kind) {
      case CholmodFactorKind::kAuto:
        common.supernodal = CHOLMOD_AUTO;
        break;
      case CholmodFactorKind::kSupernodal:
        common.supernodal = CHOLMOD_SUPERNODAL;
        break;
      case CholmodFactorKind::kSimplicial:
        common.supernodal = CHOLMOD_SIMPLICIAL;
        break;
    }
    common.final_ll = true;  // LL' (a supernodal factor always is).
    common.quick_return_if_not_posdef = true;
  }
  ~Impl() {
    FreeFactor();
    FreeMatrix();
    cholmod_free_dense(&X, &common);
    cholmod_free_dense(&Y, &common);
    cholmod_free_dense(&E, &common);
    cholmod_finish(&common);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void FreeFactor() {
    if (L != nullptr) cholmod_free_factor(&L, &common);
  }
  void FreeMatrix() {
    if (A != nullptr) cholmod_free_sparse(&A, &common);
  }

  // Lays out the lower triangle of `pattern` in compressed-column form into
  // A (allocated if `allocate`; else A's structure is already this one) and
  // builds the value map.
  void BuildStructure(const BlockSparsityPattern& pattern, bool allocate);
  // Copies H's values into A->x through the map. No allocation.
  void CopyValues(const BlockSparseSymmetricMatrix& H);
  void ThrowOnError(const char* what) const {
    if (common.status < CHOLMOD_OK) {
      throw std::runtime_error(std::string("CholmodHessianFactorization: ") +
                               what + " failed with CHOLMOD status " +
                               std::to_string(common.status));
    }
  }

  mutable cholmod_common common;
  cholmod_sparse* A{nullptr};
  cholmod_factor* L{nullptr};
  // Solution and workspace of cholmod_solve2, reused between solves.
  mutable cholmod_dense* X{nullptr};
  mutable cholmod_dense* Y{nullptr};
  mutable cholmod_dense* E{nullptr};

  bool has_pattern{false};
  BlockSparsityPattern pattern;  // The one A and the map describe.
  // Value map. Diagonal block i, column c: A->x[diagonal_start[
  // diagonal_map_offset[i] + c]] is entry (c, c), followed by rows c+1..n_i-1.
  // Off-diagonal block k, column c: A->x[off_diagonal_start[
  // off_diagonal_map_offset[k] + c]] is entry (0, c), followed by rows
  // 1..n_i-1. (Each block column is contiguous in A's column.)
  std::vector<int> diagonal_map_offset;
  std::vector<int> diagonal_start;
  std::vector<int> off_diagonal_map_offset;
  std::vector<int> off_diagonal_start;

  FactorizationStatistics statistics;
  bool factored{false};
  int size{0};
};

void CholmodHessianFactorization::Impl::BuildStructure(
    const BlockSparsityPattern& new_pattern, bool allocate) {
  const long long nnz_ll = new_pattern.num_lower_triangle_entries();
  if (nnz_ll > INT_MAX) {
    throw std::invalid_argument(
        "CholmodHessianFactorization: the pattern has " +
        std::to_string(nnz_ll) +
        " lower-triangle entries, more than the int CHOLMOD interface holds");
  }
  const int n = new_pattern.size();
  const int nnz = static_cast<int>(nnz_ll);
  if (allocate) {
    FreeFactor();
    FreeMatrix();
    A = cholmod_allocate_sparse(n, n, nnz, /*sorted=*/true, /*packed=*/true,
                                /*stype=*/-1, CHOLMOD_REAL, &common);
    if (A == nullptr) {
      ThrowOnError("cholmod_allocate_sparse");
      throw std::runtime_error(
          "CholmodHessianFactorization: cholmod_allocate_sparse failed");
    }
  }

  // Off-diagonal blocks grouped by block column j, sorted by block row i.
  const int num_blocks = new_pattern.num_blocks();
  const int num_off = new_pattern.num_off_diagonal_blocks();
  std::vector<std::tuple<int, int, int>> by_column;  // (j, i, k)
  by_column.reserve(num_off);
  for (int k = 0; k < num_off; ++k) {
    const auto& [i, j] = new_pattern.off_diagonal_blocks()[k];
    by_column.emplace_back(j, i, k);
  }
  std::sort(by_column.begin(), by_column.end());

  diagonal_map_offset.assign(num_blocks + 1, 0);
  for (int i = 0; i < num_blocks; ++i) {
    diagonal_map_offset[i + 1] =
        diagonal_map_offset[i] + new_pattern.block_size(i);
  }
  diagonal_start.assign(diagonal_map_offset.back(), 0);
  off_diagonal_map_offset.assign(num_off + 1, 0);
  for (int k = 0; k < num_off; ++k) {
    off_diagonal_map_offset[k + 1] =
        off_diagonal_map_offset[k] +
        new_pattern.block_size(new_pattern.off_diagonal_blocks()[k].second);
  }
  off_diagonal_start.assign(off_diagonal_map_offset.back(), 0);

  int* Ap = static_cast<int*>(A->p);
  int* Ai = static_cast<int*>(A->i);
  int position = 0;
  size_t next = 0;  // Cursor in by_column.
  for (int j = 0; j < num_blocks; ++j) {
    const int n_j = new_pattern.block_size(j);
    const int o_j = new_pattern.block_offset(j);
    const size_t first = next;
    while (next < by_column.size() && std::get<0>(by_column[next]) == j) {
      ++next;
    }
    for (int c = 0; c < n_j; ++c) {
      Ap[o_j + c] = position;
      diagonal_start[diagonal_map_offset[j] + c] = position;
      for (int r = c; r < n_j; ++r) Ai[position++] = o_j + r;
      for (size_t s = first; s < next; ++s) {
        const int i = std::get<1>(by_column[s]);
        const int k = std::get<2>(by_column[s]);
        off_diagonal_start[off_diagonal_map_offset[k] + c] = position;
        const int o_i = new_pattern.block_offset(i);
        for (int r = 0; r < new_pattern.block_size(i); ++r) {
          Ai[position++] = o_i + r;
        }
      }
    }
  }
  Ap[n] = position;
  pattern = new_pattern;
  has_pattern = true;
}

void CholmodHessianFactorization::Impl::CopyValues(
    const BlockSparseSymmetricMatrix& H) {
  double* Ax = static_cast<double*>(A->x);
  for (int i = 0; i < pattern.num_blocks(); ++i) {
    const Eigen::MatrixXd& D = H.diagonal_block(i);
    const int n_i = static_cast<int>(D.rows());
    const int* start = diagonal_start.data() + diagonal_map_offset[i];
    for (int c = 0; c < n_i; ++c) {
      const double* column = D.data() + static_cast<Eigen::Index>(c) * n_i;
      std::copy(column + c, column + n_i, Ax + start[c]);
    }
  }
  for (int k = 0; k < pattern.num_off_diagonal_blocks(); ++k) {
    const Eigen::MatrixXd& B = H.off_diagonal_block(k);
    const Eigen::Index rows = B.rows();
    const int* start = off_diagonal_start.data() + off_diagonal_map_offset[k];
    for (Eigen::Index c = 0; c < B.cols(); ++c) {
      const double* column = B.data() + c * rows;
      std::copy(column, column + rows, Ax + start[c]);
    }
  }
}

CholmodHessianFactorization::CholmodHessianFactorization(CholmodFactorKind kind)
    : impl_(std::make_unique<Impl>(kind)) {}
CholmodHessianFactorization::~CholmodHessianFactorization() = default;
CholmodHessianFactorization::CholmodHessianFactorization(
    CholmodHessianFactorization&&) noexcept = default;
CholmodHessianFactorization& CholmodHessianFactorization::operator=(
    CholmodHessianFactorization&&) noexcept = default;

namespace {
void RequireImpl(const void* impl) {
  if (impl == nullptr) {
    throw std::logic_error(
        "CholmodHessianFactorization: use of a moved-from object");
  }
}
}  // namespace

bool CholmodHessianFactorization::Factor(const BlockSparseSymmetricMatrix& H) {
  RequireImpl(impl_.get());
  Impl& m = *impl_;
  m.factored = false;
  m.size = H.size();
  H.ValidateBlockShapes();
  const BlockSparsityPattern& pattern = H.pattern();
  if (!m.has_pattern || pattern != m.pattern) {
    if (m.has_pattern && pattern.HasSameStructureAs(m.pattern)) {
      // Same scalar structure, blocks renumbered: keep A's layout and the
      // analysis, rebuild only the map.
      m.BuildStructure(pattern, /*allocate=*/false);
      ++m.statistics.block_renumberings;
    } else {
      m.BuildStructure(pattern, /*allocate=*/true);
      m.has_pattern = false;  // Until the analysis below succeeds.
      if (pattern.size() > 0) {
        m.L = cholmod_analyze(m.A, &m.common);
        if (m.L == nullptr) m.ThrowOnError("cholmod_analyze");
        if (m.L == nullptr) {
          throw std::runtime_error(
              "CholmodHessianFactorization: cholmod_analyze returned no "
              "factor");
        }
        ++m.statistics.symbolic_analyses;
        m.statistics.factor_nonzeros = static_cast<long long>(m.common.lnz);
      } else {
        m.statistics.factor_nonzeros = 0;
      }
      m.has_pattern = true;
    }
  }
  if (pattern.size() == 0) {
    ++m.statistics.numeric_factorizations;
    m.factored = true;
    return true;
  }

  m.CopyValues(H);
  const Eigen::Map<const Eigen::VectorXd> values(
      static_cast<const double*>(m.A->x),
      static_cast<Eigen::Index>(m.A->nzmax));
  // Names the offending block; CHOLMOD would accept an infinite pivot.
  if (!values.allFinite()) {
    H.ValidateFinite();
    throw std::logic_error(
        "CholmodHessianFactorization: non-finite value after assembly");
  }

  ++m.statistics.numeric_factorizations;
  {
    SingleThreadOpenMpScope calling_thread_only;  // no OpenMP team per caller
    cholmod_factorize(m.A, m.L, &m.common);
  }
  if (m.common.status == CHOLMOD_NOT_POSDEF ||
      m.L->minor < static_cast<size_t>(m.size)) {
    ++m.statistics.failed_factorizations;
    return false;
  }
  m.ThrowOnError("cholmod_factorize");
  m.factored = true;
  return true;
}

void CholmodHessianFactorization::SolveInPlace(Eigen::VectorXd* b) const {
  RequireImpl(impl_.get());
  const Impl& m = *impl_;
  if (!m.factored) {
    throw std::logic_error(
        "CholmodHessianFactorization::SolveInPlace: no successful Factor()");
  }
  if (b == nullptr || b->size() != m.size) {
    throw std::invalid_argument(
        "CholmodHessianFactorization::SolveInPlace: b " +
        (b == nullptr ? std::string("is null")
                      : "has size " + std::to_string(b->size())) +
        ", factored size is " + std::to_string(m.size));
  }
  if (m.size == 0) return;
  // View b as a cholmod_dense (CHOLMOD only reads B).
  cholmod_dense B{};
  B.nrow = static_cast<size_t>(m.size);
  B.ncol = 1;
  B.nzmax = B.nrow;
  B.d = B.nrow;
  B.x = b->data();
  B.z = nullptr;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  const int ok = cholmod_solve2(CHOLMOD_A, m.L, &B, nullptr, &m.X, nullptr,
                                &m.Y, &m.E, &m.common);
  if (!ok || m.X == nullptr) m.ThrowOnError("cholmod_solve2");
  if (!ok || m.X == nullptr) {
    throw std::runtime_error(
        "CholmodHessianFactorization: cholmod_solve2 failed");
  }
  const double* x = static_cast<const double*>(m.X->x);
  std::copy(x, x + m.size, b->data());
}

double CholmodHessianFactorization::ReciprocalConditionEstimate() const {
  RequireImpl(impl_.get());
  const Impl& m = *impl_;
  if (!m.factored) return 0.0;
  if (m.size == 0) return 1.0;
  return cholmod_rcond(m.L, &m.common);
}

const FactorizationStatistics& CholmodHessianFactorization::statistics() const {
  RequireImpl(impl_.get());
  return impl_->statistics;
}

bool CholmodHessianFactorization::is_factored() const {
  return impl_ != nullptr && impl_->factored;
}

int CholmodHessianFactorization::size() const {
  return impl_ == nullptr ? 0 : impl_->size;
}

bool CholmodHessianFactorization::factor_is_supernodal() const {
  return impl_ != nullptr && impl_->L != nullptr && impl_->L->is_super;
}

std::unique_ptr<HessianFactorization> MakeCholmodHessianFactorization() {
  return std::make_unique<CholmodHessianFactorization>();
}

std::unique_ptr<HessianFactorization> MakeCholmodHessianFactorizationOfKind(
    CholmodFactorKind kind) {
  return std::make_unique<CholmodHessianFactorization>(kind);
}

}  // namespace sapcontact
