// Cholesky factorizations of the SAP Newton Hessian H = A + J' G J (SAP paper
// §IV: the Newton iteration and "Problem Sparsity"; H is symmetric positive
// definite when every A_t is). Three implementations share this interface:
//   - dense: Eigen::LLT on the assembled dense matrix (small problems);
//   - block sparse: a block Cholesky on the tree/patch graph itself (AMD
//     ordering of the trees, dense blocks), for patterns with little fill;
//   - CHOLMOD: supernodal (or simplicial) LL' on the block-sparse lower
//     triangle, for large patterns with much fill.
// The sparse ones analyse a block pattern once and reuse the analysis for
// every Newton iteration and time step while the pattern is unchanged.
// Threads: separate objects may be used concurrently from separate threads;
// one object must not be shared between threads (SolveInPlace() is const
// but uses workspace owned by the object).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <stdexcept>
#include <string>

#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"

namespace sapcontact {

/// Which factorization to use. kAuto picks by size (MakeHessianFactorization;
/// SapSolver also by the fill of the sparse pattern, SapSolverParameters).
enum class LinearSolverType { kAuto, kDense, kCholmod, kBlockSparse };

/// "auto", "dense", "cholmod" or "block_sparse".
inline const char* ToString(LinearSolverType type) {
  switch (type) {
    case LinearSolverType::kAuto:
      return "auto";
    case LinearSolverType::kDense:
      return "dense";
    case LinearSolverType::kCholmod:
      return "cholmod";
    case LinearSolverType::kBlockSparse:
      return "block_sparse";
  }
  return "unknown";
}

/// CHOLMOD's factorization method. Supernodal runs dense BLAS kernels on
/// supernodes (best for large, well-connected patterns such as 2-D grids of
/// bodies); simplicial works column by column without BLAS (best for sparse
/// patterns with little fill, such as chains and piles); kAuto lets
/// cholmod_analyze choose by the flop count per factor entry (supernodal at
/// 40 or more, CHOLMOD's Common->supernodal_switch).
enum class CholmodFactorKind { kAuto, kSupernodal, kSimplicial };

/// "auto", "supernodal" or "simplicial".
inline const char* ToString(CholmodFactorKind kind) {
  switch (kind) {
    case CholmodFactorKind::kAuto:
      return "auto";
    case CholmodFactorKind::kSupernodal:
      return "supernodal";
    case CholmodFactorKind::kSimplicial:
      return "simplicial";
  }
  return "unknown";
}

/// Counters accumulated over the lifetime of one factorization object.
struct FactorizationStatistics {
  /// Analyses (fill-reducing ordering + symbolic factorization) performed
  /// by a sparse factorization (always 0 for dense).
  int symbolic_analyses{0};
  /// Numeric factorizations attempted (successful or not).
  int numeric_factorizations{0};
  /// Numeric factorizations that failed because H is not numerically
  /// positive definite.
  int failed_factorizations{0};
  /// Pattern changes that only renumbered the off-diagonal blocks (same set
  /// of blocks, different order): the value map was rebuilt but the symbolic
  /// analysis was reused (always 0 for dense).
  int block_renumberings{0};
  /// Entries stored in the factor L of the current pattern (dense: n(n+1)/2;
  /// CHOLMOD: the analysis' nnz(L), supernodal padding included; block
  /// sparse: full diagonal blocks and panels).
  long long factor_nonzeros{0};
};

/// A Cholesky factorization H = L L' of a BlockSparseSymmetricMatrix.
class HessianFactorization {
 public:
  virtual ~HessianFactorization() = default;

  /// Factors H (symmetric; only the lower triangle of each diagonal block is
  /// read). Returns false if H is not numerically positive definite (a pivot
  /// <= 0), in which case the object holds no valid factorization until the
  /// next successful Factor(). CHOLMOD: performs the symbolic analysis only
  /// when H.pattern() differs from the last analysed one. Throws
  /// std::invalid_argument (naming the block) if a block was resized or holds
  /// a NaN/infinite entry, std::runtime_error if the library fails otherwise
  /// (e.g. out of memory).
  virtual bool Factor(const BlockSparseSymmetricMatrix& H) = 0;

  /// Solves H x = b in place (b <- x) with the last successful factorization.
  /// Throws std::logic_error if there is none, std::invalid_argument if b is
  /// null or b->size() differs from the factored size.
  virtual void SolveInPlace(Eigen::VectorXd* b) const = 0;

  /// Estimate of the reciprocal condition number 1 / cond(H) of the last
  /// factored H, in (0, 1]; 0 if there is no valid factorization. Dense:
  /// Eigen's LLT::rcond(), an estimate of 1 / (||H||_1 ||H^-1||_1) (LAPACK
  /// style, O(n^2) per call); it is within a factor n of the 2-norm value.
  /// CHOLMOD: cholmod_rcond, (min diag L / max diag L)^2, O(n); it is never
  /// smaller than the true 2-norm value (pivots lie in [lambda_min,
  /// lambda_max]), exact for diagonal H, and can overestimate a lot.
  virtual double ReciprocalConditionEstimate() const = 0;

  virtual const FactorizationStatistics& statistics() const = 0;
  /// kDense, kCholmod or kBlockSparse (never kAuto).
  virtual LinearSolverType type() const = 0;

  /// True after a successful Factor() (until a failed one).
  virtual bool is_factored() const = 0;
  /// Size n of the last matrix passed to Factor() (0 before the first).
  virtual int size() const = 0;
};

/// Eigen::LLT on the dense assembled matrix
/// (solver/linear_algebra/dense_hessian_factorization.h).
std::unique_ptr<HessianFactorization> MakeDenseHessianFactorization();
/// CHOLMOD supernodal LL'
/// (solver/linear_algebra/cholmod_hessian_factorization.h).
std::unique_ptr<HessianFactorization> MakeCholmodHessianFactorization();
/// Block Cholesky on the tree graph
/// (solver/linear_algebra/block_sparse_cholesky_factorization.h).
std::unique_ptr<HessianFactorization> MakeBlockSparseCholeskyFactorization();
/// CHOLMOD LL' of the given kind.
std::unique_ptr<HessianFactorization> MakeCholmodHessianFactorizationOfKind(
    CholmodFactorKind kind);

/// kAuto: dense when the total size is <= dense_size_threshold, else CHOLMOD.
/// Throws std::invalid_argument if size < 0 or dense_size_threshold < 0.
inline std::unique_ptr<HessianFactorization> MakeHessianFactorization(
    LinearSolverType type, int size, int dense_size_threshold = 100) {
  if (size < 0) {
    throw std::invalid_argument("MakeHessianFactorization: size is " +
                                std::to_string(size) + " (must be >= 0)");
  }
  if (dense_size_threshold < 0) {
    throw std::invalid_argument(
        "MakeHessianFactorization: dense_size_threshold is " +
        std::to_string(dense_size_threshold) + " (must be >= 0)");
  }
  switch (type) {
    case LinearSolverType::kDense:
      return MakeDenseHessianFactorization();
    case LinearSolverType::kCholmod:
      return MakeCholmodHessianFactorization();
    case LinearSolverType::kBlockSparse:
      return MakeBlockSparseCholeskyFactorization();
    case LinearSolverType::kAuto:
      break;
  }
  return size <= dense_size_threshold ? MakeDenseHessianFactorization()
                                      : MakeCholmodHessianFactorization();
}

}  // namespace sapcontact
