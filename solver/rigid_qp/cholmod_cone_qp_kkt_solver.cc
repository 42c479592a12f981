// CHOLMOD implementation of ConeQpKktSolver
// (solver/rigid_qp/cone_qp_kkt_solver.h). The lower triangle of K is stored in
// a cholmod_sparse (stype = -1) whose pattern is that of P plus the cone
// diagonal blocks, built once together with the positions of the block entries;
// each Factor() rewrites the values, scales K to unit diagonal (symmetric
// Jacobi scaling) and runs the numeric supernodal factorization on the fixed
// symbolic analysis. Solves reuse their workspace (cholmod_solve2).
#include <cholmod.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sapcontact/solver/linear_algebra/openmp_thread_scope.h"
#include "sapcontact/solver/rigid_qp/cone_qp_kkt_solver.h"

namespace sapcontact {
namespace {

class CholmodConeQpKktSolver final : public ConeQpKktSolver {
 public:
  explicit CholmodConeQpKktSolver(const NormalizedConeQp& qp) : qp_(qp) {
    cholmod_start(&common_);
    common_.print = 0;
    common_.error_handler = nullptr;
    // Always LL' (supernodal): a non-positive pivot is then always reported.
    common_.supernodal = CHOLMOD_SUPERNODAL;
    try {
      BuildPattern();
      scale_.assign(qp_.n, 1.0);
    } catch (...) {
      Release();
      throw;
    }
    L_ = cholmod_analyze(A_, &common_);
    if (L_ == nullptr || common_.status < CHOLMOD_OK) {
      Release();
      throw std::runtime_error(
          "CholmodConeQpKktSolver: cholmod_analyze failed (status " +
          std::to_string(common_.status) + ")");
    }
    B_ = cholmod_allocate_dense(qp_.n, 1, qp_.n, CHOLMOD_REAL, &common_);
  }

  ~CholmodConeQpKktSolver() override { Release(); }
  CholmodConeQpKktSolver(const CholmodConeQpKktSolver&) = delete;
  CholmodConeQpKktSolver& operator=(const CholmodConeQpKktSolver&) = delete;

  bool Factor(const std::vector<Matrix3>& H, double regularization) override {
    double* x = static_cast<double*>(A_->x);
    std::copy(base_values_.begin(), base_values_.end(), x);
    size_t e = 0;
    for (size_t k = 0; k < qp_.cones.size(); ++k) {
      const int dim = qp_.cones[k].dim;
      for (int c = 0; c < dim; ++c) {
        for (int r = c; r < dim; ++r) x[block_positions_[e++]] += H[k](r, c);
      }
    }
    // Symmetric Jacobi scaling S K S (unit diagonal), then regularization.
    for (int j = 0; j < qp_.n; ++j) {
      const double d = x[diagonal_positions_[j]];
      if (!(d > 0.0) || !std::isfinite(d)) return false;
      scale_[j] = 1.0 / std::sqrt(d);
    }
    const int* colptr = static_cast<const int*>(A_->p);
    const int* rows = static_cast<const int*>(A_->i);
    for (int j = 0; j < qp_.n; ++j) {
      for (int p = colptr[j]; p < colptr[j + 1]; ++p) {
        x[p] *= scale_[rows[p]] * scale_[j];
      }
    }
    if (regularization != 0.0) {
      for (int j = 0; j < qp_.n; ++j) {
        x[diagonal_positions_[j]] += regularization;
      }
    }
    int ok = 0;
    {
      SingleThreadOpenMpScope calling_thread_only;  // no OpenMP team per call
      ok = cholmod_factorize(A_, L_, &common_);
    }
    return ok && common_.status == CHOLMOD_OK &&
           L_->minor == static_cast<size_t>(qp_.n);
  }

  void Solve(Eigen::VectorXd* b) override {
    double* bx = static_cast<double*>(B_->x);
    for (int i = 0; i < qp_.n; ++i) bx[i] = (*b)(i)*scale_[i];
    cholmod_solve2(CHOLMOD_A, L_, B_, nullptr, &X_, nullptr, &Y_, &E_,
                   &common_);
    const double* xx = static_cast<const double*>(X_->x);
    for (int i = 0; i < qp_.n; ++i) (*b)(i) = xx[i] * scale_[i];
  }

  bool is_sparse() const override { return true; }

 private:
  // Lower-triangular pattern of P + blockdiag(cones), sorted per column.
  void BuildPattern() {
    const int n = qp_.n;
    std::vector<int> block_end(n);  // one past the last row of j's cone
    for (const ConeBlock& cone : qp_.cones) {
      for (int k = 0; k < cone.dim; ++k) {
        block_end[cone.offset + k] = cone.offset + cone.dim;
      }
    }
    const Eigen::SparseMatrix<double>& P = qp_.P_lower;
    std::vector<int> colptr(n + 1, 0);
    std::vector<int> rows;
    rows.reserve(P.nonZeros() + 3 * n);
    base_values_.clear();
    base_values_.reserve(P.nonZeros() + 3 * n);
    for (int j = 0; j < n; ++j) {
      // Merge P's column j (rows >= j, sorted) with the block rows
      // [j, block_end[j]).
      Eigen::SparseMatrix<double>::InnerIterator it(P, j);
      int r = j;
      while (it || r < block_end[j]) {
        int row;
        double value = 0.0;
        if (it && (r >= block_end[j] || it.row() <= r)) {
          row = static_cast<int>(it.row());
          value = it.value();
          if (row == r) ++r;
          ++it;
        } else {
          row = r++;
        }
        if (row < j) continue;  // defensive: P_lower holds rows >= j only
        rows.push_back(row);
        base_values_.push_back(value);
      }
      colptr[j + 1] = static_cast<int>(rows.size());
    }
    const size_t nnz = rows.size();
    A_ = cholmod_allocate_sparse(n, n, nnz, /*sorted=*/1, /*packed=*/1,
                                 /*stype=*/-1, CHOLMOD_REAL, &common_);
    if (A_ == nullptr) {
      throw std::runtime_error(
          "CholmodConeQpKktSolver: cholmod_allocate_sparse failed");
    }
    std::copy(colptr.begin(), colptr.end(), static_cast<int*>(A_->p));
    std::copy(rows.begin(), rows.end(), static_cast<int*>(A_->i));
    std::copy(base_values_.begin(), base_values_.end(),
              static_cast<double*>(A_->x));
    // Positions of the diagonal and of the lower cone-block entries, in the
    // order Factor() visits them.
    auto find = [&](int r, int c) {
      const auto first = rows.begin() + colptr[c];
      const auto last = rows.begin() + colptr[c + 1];
      return static_cast<int>(std::lower_bound(first, last, r) - rows.begin());
    };
    diagonal_positions_.resize(n);
    for (int j = 0; j < n; ++j) diagonal_positions_[j] = find(j, j);
    block_positions_.clear();
    for (const ConeBlock& cone : qp_.cones) {
      for (int c = 0; c < cone.dim; ++c) {
        for (int r = c; r < cone.dim; ++r) {
          block_positions_.push_back(find(cone.offset + r, cone.offset + c));
        }
      }
    }
  }

  void Release() {
    if (X_) cholmod_free_dense(&X_, &common_);
    if (Y_) cholmod_free_dense(&Y_, &common_);
    if (E_) cholmod_free_dense(&E_, &common_);
    if (B_) cholmod_free_dense(&B_, &common_);
    if (L_) cholmod_free_factor(&L_, &common_);
    if (A_) cholmod_free_sparse(&A_, &common_);
    cholmod_finish(&common_);
  }

  const NormalizedConeQp& qp_;
  cholmod_common common_{};
  cholmod_sparse* A_{nullptr};
  cholmod_factor* L_{nullptr};
  cholmod_dense* B_{nullptr};
  cholmod_dense* X_{nullptr};
  cholmod_dense* Y_{nullptr};
  cholmod_dense* E_{nullptr};
  std::vector<double> base_values_;
  std::vector<double> scale_;
  std::vector<int> diagonal_positions_;
  std::vector<int> block_positions_;
};

}  // namespace

std::unique_ptr<ConeQpKktSolver> MakeCholmodConeQpKktSolver(
    const NormalizedConeQp& qp) {
  return std::make_unique<CholmodConeQpKktSolver>(qp);
}

}  // namespace sapcontact
