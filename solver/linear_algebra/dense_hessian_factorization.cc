#include "sapcontact/solver/linear_algebra/dense_hessian_factorization.h"

#include <stdexcept>
#include <string>

namespace sapcontact {

bool DenseHessianFactorization::Factor(const BlockSparseSymmetricMatrix& H) {
  factored_ = false;
  size_ = H.size();
  H.ValidateBlockShapes();
  // Eigen's LLT accepts NaN pivots (x <= 0 is false for NaN): reject
  // non-finite input explicitly so nothing silently produces NaN.
  H.ValidateFinite();
  H.ToDense(&dense_);
  statistics_.factor_nonzeros = static_cast<long long>(size_) * (size_ + 1) / 2;
  ++statistics_.numeric_factorizations;
  llt_.compute(dense_);
  if (llt_.info() != Eigen::Success) {
    ++statistics_.failed_factorizations;
    return false;
  }
  factored_ = true;
  return true;
}

void DenseHessianFactorization::SolveInPlace(Eigen::VectorXd* b) const {
  if (!factored_) {
    throw std::logic_error(
        "DenseHessianFactorization::SolveInPlace: no successful Factor()");
  }
  if (b == nullptr || b->size() != size_) {
    throw std::invalid_argument(
        "DenseHessianFactorization::SolveInPlace: b " +
        (b == nullptr ? std::string("is null")
                      : "has size " + std::to_string(b->size())) +
        ", factored size is " + std::to_string(size_));
  }
  if (size_ == 0) return;
  llt_.solveInPlace(*b);
}

double DenseHessianFactorization::ReciprocalConditionEstimate() const {
  if (!factored_) return 0.0;
  if (size_ == 0) return 1.0;
  return llt_.rcond();
}

std::unique_ptr<HessianFactorization> MakeDenseHessianFactorization() {
  return std::make_unique<DenseHessianFactorization>();
}

}  // namespace sapcontact
