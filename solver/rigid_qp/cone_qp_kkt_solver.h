// The linear system of one interior-point iteration for the normalized cone
// QP (solver/rigid_qp/normalized_cone_qp.h): after eliminating the slack and
// dual steps, every Newton system of the method reduces to
//
//   K dx = r,   K = P + blockdiag(H_1, ..., H_m) + delta I,
//
// with H_k = T_k W_k^-2 T_k (W_k the Nesterov-Todd scaling of cone k,
// solver/rigid_qp/second_order_cone.h) symmetric positive definite, so K is
// positive definite even when P (the scaled Delassus operator) is only
// semidefinite. K has the sparsity of P plus the cone diagonal blocks. Two
// implementations: dense (Eigen LLT) and sparse (CHOLMOD supernodal
// Cholesky, symbolic analysis once per problem, numeric factorization per
// iteration).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/solver/rigid_qp/normalized_cone_qp.h"

namespace sapcontact {

class ConeQpKktSolver {
 public:
  virtual ~ConeQpKktSolver() = default;
  /// Factors S (P + blockdiag(H)) S + regularization I, with the symmetric
  /// Jacobi scaling S = diag(K_ii^-1/2) (so the regularization is relative
  /// to the unit diagonal), and Solve() applies the inverse of
  /// S^-1 (S K S + regularization I) S^-1 (= K when regularization = 0). H
  /// has one entry per cone of the problem, of which the leading dim x dim
  /// block is used. Returns false if the scaled matrix is not numerically
  /// positive definite.
  virtual bool Factor(const std::vector<Matrix3>& H, double regularization) = 0;
  /// Solves K y = b with the last successful factorization; b is
  /// overwritten with y.
  virtual void Solve(Eigen::VectorXd* b) = 0;
  /// True for the CHOLMOD implementation.
  virtual bool is_sparse() const = 0;
};

/// Dense implementation; qp must use dense storage and outlive the solver.
std::unique_ptr<ConeQpKktSolver> MakeDenseConeQpKktSolver(
    const NormalizedConeQp& qp);

/// CHOLMOD implementation; qp must use sparse storage and outlive the
/// solver. Performs the symbolic analysis (fill-reducing ordering) here.
/// @throws std::runtime_error if CHOLMOD fails to analyze the pattern.
std::unique_ptr<ConeQpKktSolver> MakeCholmodConeQpKktSolver(
    const NormalizedConeQp& qp);

}  // namespace sapcontact
