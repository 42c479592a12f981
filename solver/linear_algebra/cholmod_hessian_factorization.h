// Sparse Cholesky factorization of the SAP Newton Hessian (SAP paper §IV-D,
// "Problem Sparsity": the block pattern of A + J' G J is the tree/patch
// graph) with CHOLMOD's LL', supernodal by default (CholmodFactorKind).
//
// When the block pattern is new, the lower triangle (stype = -1) is laid out
// in compressed-column form directly from the blocks (rows sorted within each
// column), a map from every block column to its position in the value array
// is precomputed and cholmod_analyze computes the fill-reducing ordering and
// the supernodal symbolic factorization. Every further Factor() with the same
// pattern (Newton iterations, following time steps) only copies the block
// values and calls cholmod_factorize: no allocation in our code, and the
// analysis is reused.
//
// Performance notes (bench/hessian_factorization_bench.cc): CHOLMOD's
// supernodal kernels call the system BLAS/LAPACK. With Debian's reference
// BLAS (libblas3) they run at about 1 GFlop/s; with OpenBLAS
// (libopenblas0-serial) the numeric factorization of a 64 x 64 grid of 6-DOF
// bodies is about 5x faster. CHOLMOD's default ordering (AMD, METIS when AMD
// fills badly) beats an unweighted AMD of the block graph by 1.5-4x in
// factorization flops on grids with mixed block sizes, so it is kept.
// libcholmod's OpenMP regions (teams of 4 requested) run on the calling
// thread only (solver/linear_algebra/openmp_thread_scope.h).
//
// Threads: one object per thread. Separate objects may factor and solve
// concurrently (each owns its cholmod_common and workspace); one object must
// not be used by two threads at once, not even SolveInPlace() (const, but
// it reuses workspace owned by the object).
#pragma once

#include <memory>

#include "sapcontact/solver/linear_algebra/hessian_factorization.h"

namespace sapcontact {

/// CHOLMOD (SuiteSparse 5.x, int indices) LL', supernodal, simplicial or
/// chosen by cholmod_analyze (CholmodFactorKind). Owns its
/// cholmod_common (cholmod_start/cholmod_finish) and every CHOLMOD object;
/// movable, not copyable. CHOLMOD's own printing is disabled: failures are
/// reported by Factor()'s return value and exceptions.
class CholmodHessianFactorization final : public HessianFactorization {
 public:
  explicit CholmodHessianFactorization(
      CholmodFactorKind kind = CholmodFactorKind::kSupernodal);
  ~CholmodHessianFactorization() override;
  CholmodHessianFactorization(CholmodHessianFactorization&&) noexcept;
  CholmodHessianFactorization& operator=(
      CholmodHessianFactorization&&) noexcept;
  CholmodHessianFactorization(const CholmodHessianFactorization&) = delete;
  CholmodHessianFactorization& operator=(const CholmodHessianFactorization&) =
      delete;

  bool Factor(const BlockSparseSymmetricMatrix& H) override;
  /// cholmod_solve2(CHOLMOD_A, ...) reusing the solution and workspace
  /// dense matrices between calls.
  void SolveInPlace(Eigen::VectorXd* b) const override;
  /// cholmod_rcond: (min diag L / max diag L)^2 for LL'.
  double ReciprocalConditionEstimate() const override;
  const FactorizationStatistics& statistics() const override;
  LinearSolverType type() const override { return LinearSolverType::kCholmod; }
  bool is_factored() const override;
  int size() const override;

  /// True if the current factor is supernodal (always, after a Factor() of
  /// a non-empty matrix, with kSupernodal; exposed for tests).
  bool factor_is_supernodal() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sapcontact
