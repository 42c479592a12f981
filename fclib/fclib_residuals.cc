#include "sapcontact/fclib/fclib_residuals.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {
namespace {

// || r - P_K(r - v) ||^2 summed over contacts.
double NaturalMapSquared(const Eigen::VectorXd& r, const Eigen::VectorXd& v,
                         const Eigen::VectorXd& mu) {
  double sum = 0.0;
  for (int i = 0; i < mu.size(); ++i) {
    const Vector3 ri = r.segment<3>(3 * i);
    const Vector3 d =
        ri - ProjectOntoFrictionCone(ri - v.segment<3>(3 * i), mu(i));
    sum += d.squaredNorm();
  }
  return sum;
}

double Relative(double e, double a, double b, double c) {
  const double scale = std::max({a, b, c});
  return scale > 0.0 ? e / scale : e;
}

}  // namespace

Eigen::Vector3d ProjectOntoFrictionCone(const Eigen::Vector3d& x, double mu) {
  const double xn = x(kNormal);
  const double norm_t = Tangential(x).norm();
  if (norm_t <= mu * xn) return x;                 // inside K
  if (mu * norm_t <= -xn) return Vector3::Zero();  // inside the polar cone
  // On the boundary: norm_t > mu xn >= -norm_t / mu, so norm_t > 0.
  const double rn = (mu * norm_t + xn) / (mu * mu + 1.0);
  Vector3 p;
  p(kNormal) = rn;
  p.segment<2>(kTangent1) = (mu * rn / norm_t) * Tangential(x);
  return p;
}

Eigen::SparseMatrix<double> SymmetricPart(
    const Eigen::SparseMatrix<double>& W) {
  Eigen::SparseMatrix<double> Wt = W.transpose();
  Eigen::SparseMatrix<double> S = 0.5 * (W + Wt);
  S.makeCompressed();
  return S;
}

FclibResiduals ComputeFclibResiduals(const Eigen::SparseMatrix<double>& W,
                                     const Eigen::VectorXd& q,
                                     const Eigen::VectorXd& mu,
                                     const Eigen::VectorXd& r) {
  const Eigen::Index n = 3 * mu.size();
  if (W.rows() != n || W.cols() != n || q.size() != n || r.size() != n) {
    std::ostringstream os;
    os << "FCLib residuals: sizes W " << W.rows() << " x " << W.cols() << ", q "
       << q.size() << ", r " << r.size() << " do not match 3 nc = " << n;
    throw std::invalid_argument(os.str());
  }
  if (!r.allFinite()) {
    throw std::invalid_argument("FCLib residuals: r has non-finite entries");
  }
  FclibResiduals out;
  out.u = W * r + q;
  // Wsym r = (W r + W' r) / 2 without forming Wsym.
  out.u_sym = 0.5 * (W * r + W.transpose() * r) + q;
  out.objective = 0.5 * r.dot(out.u_sym - q) + q.dot(r);
  Eigen::VectorXd uhat = out.u;
  for (int i = 0; i < mu.size(); ++i) {
    uhat(3 * i + kNormal) += mu(i) * out.u.segment<2>(3 * i + kTangent1).norm();
  }
  out.coulomb_residual_abs = std::sqrt(NaturalMapSquared(r, uhat, mu));
  out.convex_residual_abs = std::sqrt(NaturalMapSquared(r, out.u_sym, mu));
  const double nq = q.norm(), nr = r.norm();
  out.coulomb_residual =
      Relative(out.coulomb_residual_abs, nq, nr, out.u.norm());
  out.convex_residual =
      Relative(out.convex_residual_abs, nq, nr, out.u_sym.norm());
  return out;
}

}  // namespace sapcontact
