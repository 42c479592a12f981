// Dense implementation of ConeQpKktSolver
// (solver/rigid_qp/cone_qp_kkt_solver.h): K is assembled in a preallocated
// matrix, Jacobi-scaled to unit diagonal and factored by Eigen's LLT.
#include <Eigen/Cholesky>
#include <cmath>

#include "sapcontact/solver/rigid_qp/cone_qp_kkt_solver.h"

namespace sapcontact {
namespace {

class DenseConeQpKktSolver final : public ConeQpKktSolver {
 public:
  explicit DenseConeQpKktSolver(const NormalizedConeQp& qp)
      : qp_(qp), K_(qp.n, qp.n), scale_(qp.n), llt_(qp.n) {}

  bool Factor(const std::vector<Matrix3>& H, double regularization) override {
    K_ = qp_.P;
    for (size_t k = 0; k < qp_.cones.size(); ++k) {
      const ConeBlock& cone = qp_.cones[k];
      K_.block(cone.offset, cone.offset, cone.dim, cone.dim) +=
          H[k].topLeftCorner(cone.dim, cone.dim);
    }
    // Symmetric Jacobi scaling S K S (unit diagonal), then regularization.
    for (int i = 0; i < qp_.n; ++i) {
      const double d = K_(i, i);
      if (!(d > 0.0) || !std::isfinite(d)) return false;
      scale_(i) = 1.0 / std::sqrt(d);
    }
    K_ = scale_.asDiagonal() * K_ * scale_.asDiagonal();
    if (regularization != 0.0) K_.diagonal().array() += regularization;
    llt_.compute(K_);
    return llt_.info() == Eigen::Success;
  }

  void Solve(Eigen::VectorXd* b) override {
    b->array() *= scale_.array();
    llt_.solveInPlace(*b);
    b->array() *= scale_.array();
  }

  bool is_sparse() const override { return false; }

 private:
  const NormalizedConeQp& qp_;
  Eigen::MatrixXd K_;
  Eigen::VectorXd scale_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
};

}  // namespace

std::unique_ptr<ConeQpKktSolver> MakeDenseConeQpKktSolver(
    const NormalizedConeQp& qp) {
  return std::make_unique<DenseConeQpKktSolver>(qp);
}

}  // namespace sapcontact
