// The rigid-contact problem in impulse space (docs/theory.md §12;
// Anitescu's convex relaxation, SAP paper §III-A): the convex QP over a product
// of friction cones
//
//   minimize 1/2 l' W l + c' l   subject to ||l_t,i|| <= mu_i l_n,i, i < nc,
//
// with W = J A^-1 J' the Delassus operator (symmetric positive semidefinite,
// 3 nc x 3 nc) and c the constraint velocity at l = 0 (free motion minus any
// stabilization velocity). Ordering and signs: contact_model/conventions.h
// (contact-major, normal first, as in FCLib).
// Written 1/2 l'Al - b'l elsewhere: W = A, c = -b.
//
// Optimality (KKT) conditions, with u = W l + c the post-step constraint
// velocity: l_i in F_i = { ||l_t|| <= mu l_n }, u_i in the dual cone
// F_i* = { u_n >= mu ||u_t|| } and l_i'u_i = 0. The shift of u_n by
// mu ||u_t|| relative to Coulomb's u_n = 0 is the "gliding" of the convex
// (Anitescu) relaxation: see solver/rigid_qp/contact_kkt_checker.h.
//
// Units: W [(m/s)/(N*s)] = [1/kg], c and u [m/s], l [N*s], mu [-].
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace sapcontact {

/// One rigid-contact QP. W is stored either dense (W) or sparse (W_sparse,
/// full symmetric storage: both triangles), as selected by
/// use_sparse_storage; the other member is ignored.
struct RigidContactProblem {
  /// Dense Delassus operator, 3 nc x 3 nc [1/kg].
  Eigen::MatrixXd W;
  /// Sparse Delassus operator, 3 nc x 3 nc, both triangles stored [1/kg].
  Eigen::SparseMatrix<double> W_sparse;
  /// Which of W / W_sparse holds the operator.
  bool use_sparse_storage{false};
  /// Constraint velocity at zero impulse, 3 nc [m/s].
  Eigen::VectorXd c;
  /// Friction coefficients, nc entries, finite and >= 0 [-]. mu_i = 0 is a
  /// frictionless contact: its cone is the half-line l_t = 0, l_n >= 0.
  Eigen::VectorXd mu;

  int num_contacts() const { return static_cast<int>(mu.size()); }
  /// Size 3 nc of W as stored (may differ from 3 nc on invalid input).
  int rows() const;
  int cols() const;
  /// W x.
  Eigen::VectorXd MultiplyW(const Eigen::VectorXd& x) const;
  /// The diagonal of W.
  Eigen::VectorXd WDiagonal() const;
};

/// Builds a problem with dense storage (no validation; see Validate()).
RigidContactProblem MakeDenseRigidContactProblem(Eigen::MatrixXd W,
                                                 Eigen::VectorXd c,
                                                 Eigen::VectorXd mu);
/// Builds a problem with sparse storage (no validation; see Validate()).
RigidContactProblem MakeSparseRigidContactProblem(Eigen::SparseMatrix<double> W,
                                                  Eigen::VectorXd c,
                                                  Eigen::VectorXd mu);

/// Per-contact Jacobi scaling d_i = 1 / sqrt(max of the three diagonal
/// entries of W_ii) [sqrt(kg)]: with D = diag(d_i I_3), D W D has unit
/// largest diagonal entry per contact. Scaling a contact's impulse by a
/// positive scalar maps its friction cone onto itself, so this scaling keeps
/// the cones. A contact whose diagonal block is zero gets 1 / sqrt(max_k
/// W_kk) (or 1 if W = 0).
Eigen::VectorXd PerContactJacobiScaling(const RigidContactProblem& problem);

/// Tolerances of Validate().
struct RigidProblemValidationOptions {
  /// W is symmetric if max |W_ij - W_ji| <= symmetry_tolerance max |W_ij|.
  double symmetry_tolerance{1e-10};
  /// Whether to test positive semidefiniteness (costs one Cholesky
  /// factorization of W).
  bool check_psd{true};
  /// W is accepted as PSD if D W D + psd_tolerance I (D of
  /// PerContactJacobiScaling(), so the largest diagonal entry of every
  /// contact block is 1) has a Cholesky factorization (Eigen::LLT for dense
  /// storage, Eigen::SimplicialLLT for sparse): i.e. if the smallest
  /// eigenvalue of D W D is above about -psd_tolerance.
  double psd_tolerance{1e-8};
};

/// Throws std::invalid_argument naming the field ("W", "W_sparse", "c",
/// "mu", with the offending index) on: sizes that are not W 3nc x 3nc,
/// c 3nc (nc = mu.size()); non-finite entries; mu_i < 0; a non-symmetric
/// W; a negative diagonal entry; a W that is not PSD (see options).
void Validate(const RigidContactProblem& problem,
              const RigidProblemValidationOptions& options = {});

}  // namespace sapcontact
