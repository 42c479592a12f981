#include "sapcontact/fclib/natural_map_refinement.h"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/fclib/fclib_residuals.h"

namespace sapcontact {
namespace {

using SpMat = Eigen::SparseMatrix<double>;

void ProjectAll(const Eigen::VectorXd& z, const Eigen::VectorXd& mu,
                Eigen::VectorXd* p) {
  p->resize(z.size());
  for (int i = 0; i < mu.size(); ++i) {
    p->segment<3>(3 * i) = ProjectOntoFrictionCone(z.segment<3>(3 * i), mu(i));
  }
}

// Relative e_S of r for (W, q) (fclib/fclib_residuals.h with W symmetric).
double RelativeConvexResidual(const SpMat& W, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& mu,
                              const Eigen::VectorXd& r) {
  const Eigen::VectorXd u = W * r + q;
  Eigen::VectorXd p;
  ProjectAll(r - u, mu, &p);
  const double scale = std::max({q.norm(), r.norm(), u.norm()});
  const double e = (r - p).norm();
  return scale > 0 ? e / scale : e;
}

}  // namespace

Eigen::Matrix3d FrictionConeProjectionJacobian(const Eigen::Vector3d& x,
                                               double mu) {
  const double xn = x(kNormal);
  const double rho = Tangential(x).norm();
  if (rho <= mu * xn) return Matrix3::Identity();
  if (mu * rho <= -xn) return Matrix3::Zero();
  const Vector2 t = Tangential(x) / rho;
  const double k = 1.0 / (1.0 + mu * mu);
  const double a = (mu * rho + xn) * k;
  Matrix3 P;
  P(0, 0) = k;
  P.block<1, 2>(0, 1) = mu * k * t.transpose();
  P.block<2, 1>(1, 0) = mu * k * t;
  P.block<2, 2>(1, 1) =
      mu * mu * k * t * t.transpose() +
      (mu * a / rho) * (Eigen::Matrix2d::Identity() - t * t.transpose());
  return P;
}

NaturalMapRefinementResult RefineContactQpSolution(
    const SpMat& W, const Eigen::VectorXd& q, const Eigen::VectorXd& mu,
    const Eigen::VectorXd& r0, const NaturalMapRefinementOptions& options) {
  const int nc = static_cast<int>(mu.size()), n = 3 * nc;
  if (W.rows() != n || W.cols() != n || q.size() != n || r0.size() != n) {
    std::ostringstream os;
    os << "natural-map refinement: sizes W " << W.rows() << " x " << W.cols()
       << ", q " << q.size() << ", r0 " << r0.size()
       << " do not match 3 nc = " << n;
    throw std::invalid_argument(os.str());
  }
  if (!q.allFinite() || !r0.allFinite() || !mu.allFinite()) {
    throw std::invalid_argument(
        "natural-map refinement: q, r0 or mu has non-finite entries");
  }
  NaturalMapRefinementResult out;
  out.r = r0;
  out.initial_residual = RelativeConvexResidual(W, q, mu, r0);
  out.final_residual = out.initial_residual;
  if (out.initial_residual <= options.tolerance) return out;

  // Per-contact Jacobi scaling: r = d .* x.
  Eigen::VectorXd d(n);
  const double wmax = std::max(W.diagonal().maxCoeff(), 0.0);
  for (int i = 0; i < nc; ++i) {
    const double w = W.diagonal().segment<3>(3 * i).maxCoeff();
    d.segment<3>(3 * i).setConstant(
        1.0 / std::sqrt(w > 0 ? w : (wmax > 0 ? wmax : 1.0)));
  }
  SpMat Ws = d.asDiagonal() * W * d.asDiagonal();
  Ws.makeCompressed();
  const Eigen::VectorXd qs = d.cwiseProduct(q);

  Eigen::VectorXd x = r0.cwiseQuotient(d), z, p, F, x_try, F_try, r_try;
  auto evaluate = [&](const Eigen::VectorXd& xv, Eigen::VectorXd* zv,
                      Eigen::VectorXd* Fv) {
    *zv = xv - (Ws * xv + qs);
    ProjectAll(*zv, mu, &p);
    *Fv = xv - p;
  };
  evaluate(x, &z, &F);
  double f = F.norm();
  double lambda_factor = options.lm_factor;
  std::vector<Eigen::Triplet<double>> triplets;
  std::vector<Matrix3> Pz(nc);
  Eigen::SimplicialLDLT<SpMat> ldlt;
  for (int it = 0; it < options.max_iterations; ++it) {
    // G = I - Pz + Pz Ws (block rows of Ws premultiplied by Pz_i).
    for (int i = 0; i < nc; ++i) {
      Pz[i] = FrictionConeProjectionJacobian(z.segment<3>(3 * i), mu(i));
    }
    triplets.clear();
    for (int i = 0; i < nc; ++i) {
      const Matrix3 B = Matrix3::Identity() - Pz[i];
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          if (B(a, b) != 0.0)
            triplets.emplace_back(3 * i + a, 3 * i + b, B(a, b));
        }
      }
    }
    for (int j = 0; j < Ws.outerSize(); ++j) {
      for (SpMat::InnerIterator e(Ws, j); e; ++e) {
        const int row = static_cast<int>(e.row()), i = row / 3;
        for (int a = 0; a < 3; ++a) {
          const double v = Pz[i](a, row % 3) * e.value();
          if (v != 0.0) triplets.emplace_back(3 * i + a, j, v);
        }
      }
    }
    SpMat G(n, n);
    G.setFromTriplets(triplets.begin(), triplets.end());
    SpMat GtG = SpMat(G.transpose()) * G;
    const Eigen::VectorXd g = G.transpose() * F;
    bool accepted = false;
    for (int rej = 0; rej <= options.max_rejections && !accepted; ++rej) {
      const double lambda = lambda_factor * f + options.lm_floor;
      SpMat A = GtG;
      for (int k = 0; k < n; ++k) A.coeffRef(k, k) += lambda;
      ldlt.compute(A);
      if (ldlt.info() != Eigen::Success) {
        lambda_factor *= 10.0;
        continue;
      }
      x_try = x - ldlt.solve(g);
      evaluate(x_try, &z, &F_try);
      const double f_try = F_try.norm();
      if (std::isfinite(f_try) && f_try < f) {
        accepted = true;
        x = x_try;
        F = F_try;
        f = f_try;
        lambda_factor = std::max(lambda_factor / 10.0, options.lm_factor);
      } else {
        lambda_factor *= 10.0;
      }
    }
    if (!accepted) {
      evaluate(x, &z, &F);  // restore z for x
      break;
    }
    out.iterations = it + 1;
    // Candidate: r = d .* P_K(z), in the cones.
    ProjectAll(z, mu, &p);
    r_try = d.cwiseProduct(p);
    const double e = RelativeConvexResidual(W, q, mu, r_try);
    if (e < out.final_residual) {
      out.final_residual = e;
      out.r = r_try;
    }
    if (out.final_residual <= options.tolerance) break;
  }
  return out;
}

}  // namespace sapcontact
