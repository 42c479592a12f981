// Error measures of a candidate solution r of an FCLib local problem
// (fclib/fclib_io.h), exactly as defined in ../shared/fclib/README.md
// (Siconos 4.4 fc3d_compute_error normalisation). P_K is the blockwise
// Euclidean projection onto the friction cones K_i = { ||r_t|| <= mu_i r_n }
// (normal first, contact_model/conventions.h):
//
//   Coulomb (W as stored):  u = W r + q,  uhat_i = u_i + mu_i ||u_t,i|| e_n,
//                           e_C = || r - P_K(r - uhat) ||_2,
//   convex relaxation:      Wsym = (W + W')/2,  u_s = Wsym r + q,
//                           e_S = || r - P_K(r - u_s) ||_2,
//   relative:  e_C / max(||q||, ||r||, ||u||),  e_S / max(||q||, ||r||,
//   ||u_s||) (a zero denominator is replaced by 1), objective: 1/2 r' Wsym r +
//   q' r  (that of the convex relaxation).
//
// e_C = 0 iff r solves the Coulomb problem; e_S = 0 iff r solves the convex
// QP min 1/2 r'Wsym r + q'r over the cones (the rigid QP of
// solver/rigid_qp/rigid_contact_problem.h with W = Wsym, c = q). libfclib's
// fclib_merit_local(MERIT_1) returns e_C / (1 + sqrt(||q||)).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace sapcontact {

struct FclibResiduals {
  /// 1/2 r'Wsym r + q'r [N*s * m/s].
  double objective{0.0};
  /// Relative e_S and e_C (see the file comment).
  double convex_residual{0.0};
  double coulomb_residual{0.0};
  /// Absolute e_S and e_C [N*s].
  double convex_residual_abs{0.0};
  double coulomb_residual_abs{0.0};
  /// u = W r + q and u_s = Wsym r + q (3 nc) [m/s].
  Eigen::VectorXd u;
  Eigen::VectorXd u_sym;
};

/// Evaluates the measures for r (3 nc) on the local problem (W, q, mu).
/// @throws std::invalid_argument naming the field on size mismatch or
///         non-finite r.
FclibResiduals ComputeFclibResiduals(const Eigen::SparseMatrix<double>& W,
                                     const Eigen::VectorXd& q,
                                     const Eigen::VectorXd& mu,
                                     const Eigen::VectorXd& r);

/// Euclidean projection of x onto K = { ||x_t|| <= mu x_n }, mu >= 0 (for
/// mu = 0 the half-line x_t = 0, x_n >= 0).
Eigen::Vector3d ProjectOntoFrictionCone(const Eigen::Vector3d& x, double mu);

/// The symmetric part (W + W')/2 of a square sparse matrix.
Eigen::SparseMatrix<double> SymmetricPart(const Eigen::SparseMatrix<double>& W);

}  // namespace sapcontact
