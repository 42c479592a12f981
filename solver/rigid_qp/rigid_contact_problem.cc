#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace sapcontact {
namespace {

[[noreturn]] void Throw(const std::string& what) {
  throw std::invalid_argument("RigidContactProblem: " + what);
}

std::string WName(const RigidContactProblem& p) {
  return p.use_sparse_storage ? "W_sparse" : "W";
}

// Throws if the first non-finite entry of W exists.
void CheckFiniteW(const RigidContactProblem& p) {
  auto report = [&](int i, int j, double v) {
    std::ostringstream os;
    os << WName(p) << "(" << i << ", " << j << ") = " << v << " is not finite";
    Throw(os.str());
  };
  if (p.use_sparse_storage) {
    for (int k = 0; k < p.W_sparse.outerSize(); ++k) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(p.W_sparse, k); it;
           ++it) {
        if (!std::isfinite(it.value())) report(it.row(), it.col(), it.value());
      }
    }
  } else {
    for (int j = 0; j < p.W.cols(); ++j) {
      for (int i = 0; i < p.W.rows(); ++i) {
        if (!std::isfinite(p.W(i, j))) report(i, j, p.W(i, j));
      }
    }
  }
}

void CheckSymmetric(const RigidContactProblem& p, double tol) {
  double worst = 0.0, scale = 0.0;
  int wi = 0, wj = 0;
  if (p.use_sparse_storage) {
    const Eigen::SparseMatrix<double> Wt = p.W_sparse.transpose();
    const Eigen::SparseMatrix<double> D = p.W_sparse - Wt;
    for (int k = 0; k < D.outerSize(); ++k) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(D, k); it; ++it) {
        if (std::abs(it.value()) > worst) {
          worst = std::abs(it.value());
          wi = it.row();
          wj = it.col();
        }
      }
    }
    for (int k = 0; k < p.W_sparse.outerSize(); ++k) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(p.W_sparse, k); it;
           ++it) {
        scale = std::max(scale, std::abs(it.value()));
      }
    }
  } else {
    for (int j = 0; j < p.W.cols(); ++j) {
      for (int i = j + 1; i < p.W.rows(); ++i) {
        const double d = std::abs(p.W(i, j) - p.W(j, i));
        if (d > worst) {
          worst = d;
          wi = i;
          wj = j;
        }
      }
    }
    scale = p.W.cwiseAbs().maxCoeff();
  }
  if (worst > tol * scale) {
    std::ostringstream os;
    os << WName(p) << " is not symmetric: |W(" << wi << ", " << wj << ") - W("
       << wj << ", " << wi << ")| = " << worst << " exceeds " << tol
       << " * max|W_ij| = " << tol * scale;
    Throw(os.str());
  }
}

void CheckPsd(const RigidContactProblem& p, double tol) {
  const Eigen::VectorXd d = PerContactJacobiScaling(p);
  const int n = p.rows();
  Eigen::VectorXd drow(n);
  for (int i = 0; i < n; ++i) drow(i) = d(i / 3);
  bool ok = false;
  if (p.use_sparse_storage) {
    Eigen::SparseMatrix<double> S =
        drow.asDiagonal() * p.W_sparse * drow.asDiagonal();
    Eigen::SparseMatrix<double> I(n, n);
    I.setIdentity();
    S += tol * I;
    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt(S);
    ok = llt.info() == Eigen::Success;
  } else {
    Eigen::MatrixXd S = drow.asDiagonal() * p.W * drow.asDiagonal();
    S.diagonal().array() += tol;
    Eigen::LLT<Eigen::MatrixXd> llt(S);
    ok = llt.info() == Eigen::Success;
  }
  if (!ok) {
    std::ostringstream os;
    os << WName(p)
       << " is not positive semidefinite (the Cholesky factorization of the "
          "Jacobi-scaled W + "
       << tol << " I failed)";
    Throw(os.str());
  }
}

}  // namespace

int RigidContactProblem::rows() const {
  return static_cast<int>(use_sparse_storage ? W_sparse.rows() : W.rows());
}

int RigidContactProblem::cols() const {
  return static_cast<int>(use_sparse_storage ? W_sparse.cols() : W.cols());
}

Eigen::VectorXd RigidContactProblem::MultiplyW(const Eigen::VectorXd& x) const {
  if (use_sparse_storage) return W_sparse * x;
  return W * x;
}

Eigen::VectorXd RigidContactProblem::WDiagonal() const {
  if (use_sparse_storage) return W_sparse.diagonal();
  return W.diagonal();
}

RigidContactProblem MakeDenseRigidContactProblem(Eigen::MatrixXd W,
                                                 Eigen::VectorXd c,
                                                 Eigen::VectorXd mu) {
  RigidContactProblem p;
  p.W = std::move(W);
  p.c = std::move(c);
  p.mu = std::move(mu);
  p.use_sparse_storage = false;
  return p;
}

RigidContactProblem MakeSparseRigidContactProblem(Eigen::SparseMatrix<double> W,
                                                  Eigen::VectorXd c,
                                                  Eigen::VectorXd mu) {
  RigidContactProblem p;
  p.W_sparse = std::move(W);
  p.W_sparse.makeCompressed();
  p.c = std::move(c);
  p.mu = std::move(mu);
  p.use_sparse_storage = true;
  return p;
}

Eigen::VectorXd PerContactJacobiScaling(const RigidContactProblem& p) {
  const int nc = p.num_contacts();
  const Eigen::VectorXd diag = p.WDiagonal();
  const double global = diag.size() > 0 ? diag.maxCoeff() : 0.0;
  Eigen::VectorXd d(nc);
  for (int i = 0; i < nc; ++i) {
    const double w = diag.segment<3>(3 * i).maxCoeff();
    if (w > 1e-300 && w >= 1e-30 * global) {
      d(i) = 1.0 / std::sqrt(w);
    } else {
      d(i) = global > 0.0 ? 1.0 / std::sqrt(global) : 1.0;
    }
  }
  return d;
}

void Validate(const RigidContactProblem& p,
              const RigidProblemValidationOptions& options) {
  const int nc = p.num_contacts();
  const int n = 3 * nc;
  if (p.rows() != n || p.cols() != n) {
    std::ostringstream os;
    os << WName(p) << " is " << p.rows() << " x " << p.cols()
       << ", expected 3 nc x 3 nc = " << n << " x " << n
       << " (nc = mu.size() = " << nc << ")";
    Throw(os.str());
  }
  if (p.c.size() != n) {
    std::ostringstream os;
    os << "c has size " << p.c.size() << ", expected 3 nc = " << n
       << " (nc = mu.size() = " << nc << ")";
    Throw(os.str());
  }
  for (int i = 0; i < nc; ++i) {
    if (!std::isfinite(p.mu(i)) || p.mu(i) < 0.0) {
      std::ostringstream os;
      os << "mu(" << i << ") = " << p.mu(i)
         << " is invalid (must be finite and >= 0)";
      Throw(os.str());
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(p.c(i))) {
      std::ostringstream os;
      os << "c(" << i << ") = " << p.c(i) << " is not finite";
      Throw(os.str());
    }
  }
  if (n == 0) return;
  CheckFiniteW(p);
  CheckSymmetric(p, options.symmetry_tolerance);
  const Eigen::VectorXd diag = p.WDiagonal();
  for (int i = 0; i < n; ++i) {
    if (diag(i) < 0.0) {
      std::ostringstream os;
      os << WName(p) << " is not positive semidefinite: diagonal entry W(" << i
         << ", " << i << ") = " << diag(i) << " < 0";
      Throw(os.str());
    }
  }
  if (options.check_psd) CheckPsd(p, options.psd_tolerance);
}

}  // namespace sapcontact
