// The rigid-contact QP (solver/rigid_qp/rigid_contact_problem.h) rewritten in
// the normalized form solved by the interior-point method
// (solver/rigid_qp/cone_qp_interior_point.h):
//
//   minimize 1/2 x'Px + q'x   subject to  s = T x,  s in Q_1 x ... x Q_m,
//
// where each Q_k is a standard second-order cone of dimension 3 (a contact
// with mu > 0) or 1 (a frictionless contact: the half-line), T is diagonal.
//
// Construction (all exact, no approximation):
//  - frictionless contacts (mu_i = 0): l_t,i = 0 is imposed by removing the
//    tangential variables; l_n,i >= 0 is the 1-D cone (the "1-D nonnegative
//    orthant" treatment);
//  - impulses are measured in units of beta D: l_i = beta d_i x_i with
//    d_i = PerContactJacobiScaling() (unit largest diagonal entry of every
//    block of P = D W D) and beta = ||D c||_inf [N*s] (so ||q||_inf = 1);
//  - the friction cone ||l_t|| <= mu l_n becomes (a x_n, b x_t) in Q with
//    (a, b) = (mu, 1) / max(1, mu), so that T has entries in (0, 1].
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"

namespace sapcontact {

/// One cone of the normalized problem: the variables [offset, offset + dim)
/// of x (and of s, z), belonging to contact `contact`.
struct ConeBlock {
  int offset{0};
  int dim{3};
  int contact{0};
};

/// The normalized problem. Dense (P) or sparse (P_lower) storage of P.
struct NormalizedConeQp {
  /// Number of variables (3 per frictional contact, 1 per frictionless).
  int n{0};
  int num_contacts{0};
  std::vector<ConeBlock> cones;
  /// Linear term, size n, ||q||_inf = 1 (or q = 0 when beta = 0).
  Eigen::VectorXd q;
  /// Diagonal of T, size n, entries in (0, 1].
  Eigen::VectorXd t;
  /// Storage of P: dense (full n x n) or sparse (lower triangle including
  /// the diagonal, compressed column storage).
  bool sparse{false};
  Eigen::MatrixXd P;
  Eigen::SparseMatrix<double> P_lower;
  /// Impulse unit beta [N*s] and per-contact scaling d [sqrt(kg)]: l_i =
  /// beta d_i x_i. beta = 0 means D c = 0 on the kept variables: then l = 0
  /// is optimal and the normalized problem is not built (P, q empty).
  double beta{0.0};
  Eigen::VectorXd d;
  /// For each variable of x, its index in the contact-stacked l (3 nc).
  std::vector<int> full_index;

  /// y = P x.
  void MultiplyP(const Eigen::VectorXd& x, Eigen::VectorXd* y) const;
};

/// Builds the normalized problem, with sparse storage of P if `sparse`.
/// Expects a validated problem (see Validate()).
NormalizedConeQp NormalizeRigidContactProblem(const RigidContactProblem& p,
                                              bool sparse);

/// Maps a normalized x (size n) back to impulses l (size 3 nc) [N*s];
/// removed tangential components of frictionless contacts are 0.
Eigen::VectorXd ImpulsesFromNormalized(const NormalizedConeQp& qp,
                                       const Eigen::VectorXd& x);

/// The inverse map: x from l (tangential components of frictionless
/// contacts are dropped).
Eigen::VectorXd NormalizedFromImpulses(const NormalizedConeQp& qp,
                                       const Eigen::VectorXd& l);

}  // namespace sapcontact
