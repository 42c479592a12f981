// Dense Cholesky factorization of the SAP Newton Hessian (SAP paper §IV): the
// block-sparse H is assembled into a dense matrix and factored with
// Eigen::LLT. O(n^3) per Factor(); meant for small problems (a few hundred
// DOFs), see MakeHessianFactorization's kAuto threshold.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "sapcontact/solver/linear_algebra/hessian_factorization.h"

namespace sapcontact {

/// Eigen::LLT (lower) of the dense assembled H. The dense buffer and the
/// factor are reused between calls of the same size (no allocation in
/// Factor()/SolveInPlace() then). Copyable and movable.
class DenseHessianFactorization final : public HessianFactorization {
 public:
  DenseHessianFactorization() = default;

  bool Factor(const BlockSparseSymmetricMatrix& H) override;
  void SolveInPlace(Eigen::VectorXd* b) const override;
  /// Eigen's LLT::rcond(): estimate of 1 / (||H||_1 ||H^-1||_1), O(n^2).
  double ReciprocalConditionEstimate() const override;
  const FactorizationStatistics& statistics() const override {
    return statistics_;
  }
  LinearSolverType type() const override { return LinearSolverType::kDense; }
  bool is_factored() const override { return factored_; }
  int size() const override { return size_; }

 private:
  Eigen::MatrixXd dense_;
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt_;
  FactorizationStatistics statistics_;
  bool factored_{false};
  int size_{0};
};

}  // namespace sapcontact
