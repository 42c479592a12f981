// Primal-dual interior-point method with Nesterov-Todd scaling and Mehrotra
// predictor-corrector for the normalized cone QP of
// solver/rigid_qp/normalized_cone_qp.h (the method family of CVXOPT's coneqp
// and ECOS; our own implementation):
//
//   primal:  minimize 1/2 x'Px + q'x  s.t.  s = T x,  s in K = Q_1 x ... x Q_m
//   dual:    z in K with  P x + q = T' z
//   optimality:  r_x = P x + q - T'z = 0,  r_z = s - T x = 0,  s'z = 0.
//
// Each iteration computes the NT scaling W_k of (s_k, z_k) and the scaled
// point lambda_k = W_k z_k = W_k^-1 s_k (solver/rigid_qp/second_order_cone.h)
// and solves two Newton systems (affine predictor, then the Mehrotra-corrected
// and centered step with sigma = (1 - alpha_affine)^3) with one
// factorization of K = P + blockdiag(T W_k^-2 T)
// (solver/rigid_qp/cone_qp_kkt_solver.h), plus iterative refinement against the
// unregularized K. The eliminated steps are recovered applying only W^-1
// (cond(W) ~ 1/mu near the boundary, so forms with W^2 lose accuracy), with the
// slack step from the linear equation ds = T dx - r_z: this is what lets the
// method reach gaps of 1e-10 and below. Steps stay a fraction 0.99 inside the
// cone. Starting point: the CVXOPT coneqp initialization (the solution with W =
// I, shifted into the cone).
#pragma once

#include <Eigen/Core>
#include <string>

#include "sapcontact/solver/rigid_qp/cone_qp_kkt_solver.h"
#include "sapcontact/solver/rigid_qp/normalized_cone_qp.h"

namespace sapcontact {

/// Settings of the interior-point method (normalized units: see
/// solver/rigid_qp/normalized_cone_qp.h; all measures below are dimensionless).
struct ConeQpIpmSettings {
  int max_iterations{100};
  /// Convergence: primal_residual and dual_residual <= this.
  double feasibility_tolerance{1e-10};
  /// Convergence: relative_gap <= this.
  double gap_tolerance{1e-10};
  /// Polishing: once converged, at most this many further iterations are
  /// made while relative_complementarity > gap_tolerance (and the residuals
  /// and gap stay within tolerance); the converged iterate of smallest
  /// relative_complementarity is returned. 0 disables polishing.
  int max_polish_iterations{10};
  /// Fraction of the step to the cone boundary that is taken.
  double step_fraction{0.99};
  /// The method stops (stalled) when, with residuals and gap already below
  /// reduced_tolerance, the merit max(residuals / tolerance, gap /
  /// gap_tolerance) has not halved in this many iterations.
  int stall_iterations{5};
  /// When the tolerances are not reached (stall, iteration limit, numerical
  /// failure), the best iterate is still reported as converged to reduced
  /// accuracy if its residuals and gap are at most this.
  double reduced_tolerance{1e-6};
  /// Maximum iterative-refinement steps per Newton solve.
  int max_refinement_steps{3};
  /// ||x||_inf above which the iterates are deemed divergent and tested
  /// for a certificate of unboundedness.
  double divergence_threshold{1e12};
};

enum class ConeQpIpmStatus {
  kConverged,
  /// The tolerances were not reached, but the best iterate's residuals and
  /// gap are below ConeQpIpmSettings::reduced_tolerance (typically a
  /// rank-deficient W whose KKT systems become too ill-conditioned).
  kConvergedReducedAccuracy,
  kMaxIterations,
  /// Dual infeasible: a direction d with T d in K, P d = 0, q'd < 0 was found
  /// (the QP is unbounded below along d).
  kUnbounded,
  kNumericalError,
};

/// Outcome of SolveNormalizedConeQp(). Measures of the returned iterate:
///   primal_residual = ||s - T x||_2 / max(1, ||T x||_2),
///   dual_residual   = ||P x + q - T'z||_2 / max(1, ||q||_2),
///   relative_gap    = s'z / max(1, |1/2 x'Px + q'x|),
///   relative_complementarity = sum_k ||s_k o z_k||_2 / max(1, |cost|).
/// The Jordan product s_k o z_k vanishes iff s_k'z_k = 0; at a sliding
/// contact s'z is quadratic in the misalignment angle of the friction
/// direction while ||s o z|| is linear in it, hence the polishing (see
/// ConeQpIpmSettings::max_polish_iterations): with relative_gap ~ 1e-10
/// alone friction directions are accurate to ~1e-5 only.
struct ConeQpIpmOutcome {
  ConeQpIpmStatus status{ConeQpIpmStatus::kNumericalError};
  std::string reason;
  Eigen::VectorXd x, s, z;
  /// When kUnbounded: the normalized direction d (||d||_2 = 1).
  Eigen::VectorXd unbounded_direction;
  int iterations{0};
  double primal_residual{0.0};
  double dual_residual{0.0};
  double relative_gap{0.0};
  double relative_complementarity{0.0};
  double primal_cost{0.0};
};

/// Runs the method. `kkt` must have been built for `qp`.
ConeQpIpmOutcome SolveNormalizedConeQp(const NormalizedConeQp& qp,
                                       ConeQpKktSolver* kkt,
                                       const ConeQpIpmSettings& settings);

}  // namespace sapcontact
