// Refinement of an approximate solution of the convex (Anitescu) contact QP
//   min_r 1/2 r'W r + q'r  s.t.  r_i in K_i = { ||r_t,i|| <= mu_i r_n,i }
// (solver/rigid_qp/rigid_contact_problem.h with c = q; W symmetric PSD) by a
// Levenberg-Marquardt iteration on its natural map
//   F(r) = r - P_K(r - (W r + q)),
// whose zeros are exactly the QP's solutions (fclib/fclib_residuals.h:
// ||F(r)|| is the convex residual e_S). Ordering: contact_model/conventions.h.
//
// Why: an interior-point solution is accurate in the duality gap, which is
// quadratic in the distance to the optimal face; the natural map is linear
// in it, so a sliding contact whose friction direction is off by 1e-8 rad
// shows e_S ~ 1e-8 at a gap of 1e-16. Started that close, semismooth Newton
// converges quadratically (the active cone faces are already identified).
// Because W is often singular (r not unique), the Jacobian of F is
// singular: each step solves the regularized least-squares problem
//   (G'G + lambda I) d = -G'F,  G = I - P'(z)(I - W)  (z = r - W r - q, P'
// the Jacobian of the blockwise cone projection),
// lambda = lm_factor ||F|| + lm_floor (Yamashita-Fukushima: quadratic
// convergence under a local error bound, no nonsingularity needed), accepted
// only if
// ||F|| decreases (else lambda grows tenfold). The work is done in
// per-contact Jacobi-scaled variables (solver/rigid_qp/rigid_contact_problem.h:
// PerContactJacobiScaling; the cones are invariant), with sparse LDLT.
// The returned impulses are P_K of the last point, hence in the cones.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace sapcontact {

struct NaturalMapRefinementOptions {
  /// Stop when the relative convex residual (fclib/fclib_residuals.h) is
  /// at most this.
  double tolerance{1e-13};
  int max_iterations{30};
  /// lambda = lm_factor * ||F|| + lm_floor (scaled units, where the
  /// diagonal blocks of W are O(1)). The floor keeps G'G + lambda I
  /// numerically positive definite when G is singular.
  double lm_factor{1e-3};
  double lm_floor{1e-10};
  /// Step rejections (lambda *= 10) allowed per iteration.
  int max_rejections{8};
};

struct NaturalMapRefinementResult {
  /// The refined impulses (3 nc), in the cones; r0 itself when no step
  /// reduced the residual.
  Eigen::VectorXd r;
  int iterations{0};
  /// Relative convex residual e_S before and after.
  double initial_residual{0.0};
  double final_residual{0.0};
};

/// Refines r0 for (W, q, mu). W must be square 3nc x 3nc and symmetric (its
/// symmetric part is what the QP sees: pass SymmetricPart(W) for an
/// asymmetric one).
/// @throws std::invalid_argument naming the field on inconsistent sizes or
///         non-finite input.
NaturalMapRefinementResult RefineContactQpSolution(
    const Eigen::SparseMatrix<double>& W, const Eigen::VectorXd& q,
    const Eigen::VectorXd& mu, const Eigen::VectorXd& r0,
    const NaturalMapRefinementOptions& options = {});

/// Jacobian (3x3) of the Euclidean projection onto { ||x_t|| <= mu x_n } at
/// x (the B-subdifferential element used by the refinement; at the
/// non-differentiable boundaries, the one of the interior region).
Eigen::Matrix3d FrictionConeProjectionJacobian(const Eigen::Vector3d& x,
                                               double mu);

}  // namespace sapcontact
