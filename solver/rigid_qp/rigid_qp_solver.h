// The rigid-contact QP solver: a primal-dual interior-point method over the
// product of friction cones (Nesterov-Todd scaling, Mehrotra
// predictor-corrector; solver/rigid_qp/cone_qp_interior_point.h) for
//
//   minimize 1/2 l'W l + c'l   s.t.  ||l_t,i|| <= mu_i l_n,i
//
// (solver/rigid_qp/rigid_contact_problem.h; docs/theory.md §12). Shares no code
// with the SAP Newton solver. Ordering and signs: contact_model/conventions.h.
//
// Frictionless contacts (mu_i = 0) are solved exactly: l_t,i = 0 is imposed
// by eliminating the tangential variables, and l_n,i >= 0 is a 1-D cone.
//
// Threads (docs/solver.md "Threads"): SolveRigidContactQp() is reentrant. Calls
// may run at the same time in separate threads, on different or the same
// (const) problems; each owns its workspace and gives results bitwise
// identical to the same call run alone
// (tests/solver/rigid_qp/concurrent_solves_test.cc). A call creates no
// threads (the CHOLMOD KKT factorization's OpenMP regions run on the caller).
//
// W only needs to be positive semidefinite. l = 0 is always feasible; the
// QP is bounded below iff c'd >= 0 for every d in the cones with W d = 0
// (then the infimum is finite; it is attained except in degenerate
// non-polyhedral cases). When the iterates diverge along such a d with
// c'd < 0, the solver reports kInfeasible (the dual problem is infeasible:
// the QP is unbounded below). With W singular the minimizer may be
// non-unique (e.g. duplicated contacts): the method returns one minimizer
// (close to the analytic center of the optimal set).
#pragma once

#include <Eigen/Core>
#include <string>

#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

enum class RigidQpStatus {
  /// Converged to the tolerances.
  kSolved,
  /// The tolerances were not reached (stall, iteration limit or numerical
  /// trouble), but the returned iterate's residuals and gap are below
  /// RigidQpSolverOptions::reduced_tolerance (as ECOS's "optimal
  /// (inaccurate)"). Typical of a rank-deficient W with many redundant
  /// contacts, whose KKT systems become too ill-conditioned for 1e-10. The
  /// impulses are usable; the reason string gives the reached accuracy.
  kSolvedReducedAccuracy,
  /// Iteration limit reached first; the returned impulses are the best
  /// iterate (in the cones, not optimal to tolerance).
  kMaxIterations,
  /// Dual infeasible: the QP is unbounded below (W d = 0, c'd < 0 for a
  /// direction d in the cones). The primal is never infeasible (l = 0).
  kInfeasible,
  /// Factorization failure, loss of interiority, stall or divergence
  /// without a certificate; the impulses must not be used.
  kNumericalError,
};

const char* ToString(RigidQpStatus status);

/// Which factorization path the interior-point method uses.
enum class RigidQpLinearSolver {
  /// Dense for small problems, sparse (CHOLMOD) when the number of
  /// variables is at least RigidQpSolverOptions::sparse_min_variables and
  /// the fraction of nonzero entries of W is at most sparse_max_density.
  kAuto,
  kDense,
  kSparse,
};

struct RigidQpSolverOptions {
  int max_iterations{100};
  /// Relative primal and dual residual tolerance (see RigidQpResult).
  double feasibility_tolerance{1e-10};
  /// Relative duality gap tolerance (see RigidQpResult).
  double gap_tolerance{1e-10};
  /// Polishing iterations after convergence, made while
  /// relative_complementarity > gap_tolerance; the converged iterate with the
  /// smallest relative_complementarity is returned. Without polishing,
  /// friction directions of sliding contacts are accurate to only ~sqrt(gap)
  /// (~1e-5); with it, to ~1e-9 (a few more iterations). 0 disables it.
  int max_polish_iterations{10};
  /// Accuracy of kSolvedReducedAccuracy (residuals and gap).
  double reduced_tolerance{1e-6};
  RigidQpLinearSolver linear_solver{RigidQpLinearSolver::kAuto};
  /// kAuto thresholds (variables = 3 per frictional, 1 per frictionless
  /// contact).
  int sparse_min_variables{300};
  double sparse_max_density{0.2};
  /// Input validation (RigidContactProblem entry point only; for SapProblem
  /// input W = J A^-1 J' is PSD by construction and only Validate(SapProblem)
  /// runs).
  RigidProblemValidationOptions validation{};
};

/// Solution and statistics. The residuals and the gap are those of the
/// interior-point method in its normalized units
/// (solver/rigid_qp/normalized_cone_qp.h: impulses in units of beta D,
/// velocities in units of beta D^-1), hence dimensionless and scale invariant:
///   primal_residual = ||s - T x|| / max(1, ||T x||)   (cone membership),
///   dual_residual   = ||P x + q - T'z|| / max(1, ||q||)  (u = W l + c in the
///                     dual cones, with the dual variable z),
///   relative_gap    = s'z / max(1, |objective|)  (complementarity l'u),
///   relative_complementarity = sum_k ||s_k o z_k|| / max(1, |objective|)
///                     (the Jordan product, which vanishes iff s_k'z_k = 0;
///                     unlike s'z it is linear, not quadratic, in the angular
///                     error of a sliding contact's friction direction).
/// The returned impulses lie in the friction cones to rounding (they are
/// recovered from the slack s, which is strictly inside the cones).
struct RigidQpResult {
  RigidQpStatus status{RigidQpStatus::kNumericalError};
  /// Human-readable reason, e.g. "converged" or the failure.
  std::string reason;
  /// Impulses l, 3 nc [N*s].
  Eigen::VectorXd impulses;
  /// Constraint velocities u = W l + c, 3 nc [m/s].
  Eigen::VectorXd constraint_velocities;
  /// Post-step generalized velocities v = v* + A^-1 J' l (SapProblem input
  /// only; empty otherwise) [m/s, rad/s].
  Eigen::VectorXd velocities;
  /// Objective 1/2 l'Wl + c'l [N*s * m/s = J].
  double objective{0.0};
  int iterations{0};
  double primal_residual{0.0};
  double dual_residual{0.0};
  double relative_gap{0.0};
  double relative_complementarity{0.0};
  /// Whether the CHOLMOD path was used.
  bool used_sparse{false};
  /// When kInfeasible: a unit direction d (3 nc) in the cones with W d ~ 0
  /// and c'd < 0.
  Eigen::VectorXd unbounded_direction;
};

/// Solves the QP. @throws std::invalid_argument (see Validate()) on bad
/// input; numerical failures are reported in the status, never thrown.
RigidQpResult SolveRigidContactQp(const RigidContactProblem& problem,
                                  const RigidQpSolverOptions& options = {});

/// Solves the rigid limit of the SAP problem: W = J A^-1 J' (assembled per
/// tree, solver/rigid_qp/delassus_operator.h), c = J v* - v_hat with v_hat =
/// (v_hat_n, 0, 0) per contact (NormalStabilizationVelocity,
/// contact_model/regularization.h); fills velocities.
/// @throws std::invalid_argument from Validate(SapProblem).
RigidQpResult SolveRigidContactQp(const SapProblem& problem,
                                  const RigidQpSolverOptions& options = {});

}  // namespace sapcontact
