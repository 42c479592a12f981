// Solving FCLib problems (fclib/fclib_io.h) with sapcontact's two solvers,
// and reporting the error measures of fclib/fclib_residuals.h.
//
// Rigid ("rigid"): the convex relaxation min 1/2 r'Wsym r + q'r over the
// friction cones, Wsym = (W + W')/2 (the QP sees only the symmetric part;
// FCLib's W is asymmetric up to 1.4e-3 relative in some sets), solved by the
// interior-point rigid QP (solver/rigid_qp/rigid_qp_solver.h) with c = q, then
// refined by the natural-map Levenberg-Marquardt iteration
// (fclib/natural_map_refinement.h), which takes the interior-point
// solution's e_S from 1e-7...1e-11 to ~1e-15 in 1-4 steps on 30 of the 33
// shared problems (the interior point's accuracy is in the gap, quadratic
// in the distance to the optimal face); on problems with degenerate
// contacts (r ~ 0 and u ~ 0 at once: BoxesStack1, local_problem_test) it
// makes slow or no progress (e_S ~ 2e-9 there), and it never returns a
// point with a larger e_S than its start.
// A Wsym that is indefinite by rounding (Confeti-*: -9.2e-8 lambda_max) is
// passed unchanged: the QP's PSD check is relaxed to 1e-6 (Jacobi-scaled);
// beyond that the problem is rejected (status "error", with the QP's
// message).
//
// SAP ("sap"): local problems in contact space, on W itself
// (solver/sap/contact_space_sap_solver.h, docs/theory.md §15: the same SAP
// problem as the primal form's, solved with a sparse factorization of
// I + U'WU instead of a dense tree per component), unless Wsym is
// indefinite beyond rounding (Confeti-*), which takes the primal form of
// fclib/local_problem_primal_form.h; global problems on M and H
// (fclib/global_problem_primal_form.h). Both in the stiff
// limit: k = inf, tau_d = 0, beta = 1e-3, sigma = 1e-6 by default, so that
// SAP solves the QP with Wsym + R, R_n = beta^2/(4 pi^2) w_k = 2.5e-8 w_k,
// R_t = sigma w_k: the objective is within ~1e-7 relative of the rigid one
// (docs/theory.md §11; the error is O(sigma)). Reached by continuation: SAP is
// solved first at its default regime (beta, sigma) = (1, 1e-3), then beta and
// sigma are divided by continuation_factor per stage, each stage warm-started
// from the previous velocities, until the target (cold starts at beta = 1e-3,
// sigma = 1e-6 need hundreds of Newton iterations on the Capsules and
// RockPile sets, continuation 60-120 in total). The iterations reported are
// the total over the stages.
#pragma once

#include <Eigen/Core>
#include <string>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/fclib/fclib_residuals.h"
#include "sapcontact/fclib/local_problem_primal_form.h"
#include "sapcontact/fclib/natural_map_refinement.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "sapcontact/solver/sap/sap_solver_parameters.h"

namespace sapcontact {

enum class FclibSolverKind { kRigid, kSap };

/// "rigid" or "sap".
const char* ToString(FclibSolverKind kind);

/// Settings; the constructor sets the defaults stated in the file comment.
struct FclibSolverOptions {
  FclibSolverOptions();

  FclibSolverKind solver{FclibSolverKind::kRigid};
  /// Rigid QP: feasibility and gap tolerances 1e-12, PSD tolerance 1e-6.
  RigidQpSolverOptions rigid;
  /// Natural-map refinement of the rigid QP's solution (tolerance 1e-13).
  bool refine{true};
  NaturalMapRefinementOptions refinement;
  /// SAP in the stiff limit: beta = 1e-3, sigma = 1e-6, rel_tolerance 1e-8,
  /// max_iterations 200 (per stage), ill-conditioning guard off (the
  /// stiff limit is ill-conditioned by design; the residuals are reported).
  SapSolverParameters sap;
  /// Continuation in (beta, sigma) from (1, 1e-3); false: one cold solve.
  bool continuation{true};
  double continuation_factor{10.0};
  /// Local problems: true solves SAP in contact space on W itself
  /// (solver/sap/contact_space_sap_solver.h: sparse, one 3 x 3 block per
  /// nonzero block of W), falling back to the primal form when Wsym is
  /// indefinite beyond primal_form.indefinite_tolerance; false always
  /// uses the primal form (one dense tree per component of W).
  bool sap_contact_space{true};
  PrimalFormOptions primal_form;
};

/// One solve. Statuses: rigid "solved", "solved_reduced_accuracy",
/// "max_iterations", "infeasible", "numerical_error"; SAP "converged",
/// "max_iterations", "stalled", "ill_conditioned", "factorization_failed";
/// both "error" when the problem is rejected (message says why), and
/// "non_finite_residual" when the solver reported success but the
/// impulses, residuals or objective are not finite (never counted as
/// solved).
struct FclibSolveResult {
  FclibSolverKind solver{FclibSolverKind::kRigid};
  std::string status{"error"};
  /// Whether the solver reports success (rigid: solved or solved to reduced
  /// accuracy; SAP: converged). The residuals tell how well.
  bool success{false};
  std::string message;
  int contacts{0};
  /// Interior-point iterations, or SAP Newton iterations over all stages.
  int iterations{0};
  /// Natural-map refinement steps (rigid only).
  int refinement_iterations{0};
  /// Wall time of the solve including setup (symmetrization, primal form,
  /// refinement), excluding file reading [s].
  double solve_time_s{0.0};
  /// Impulses r (3 nc) [N*s]; empty on error and when the solver returned
  /// no finite impulses (then success is false and the message says so).
  Eigen::VectorXd r;
  /// Measures of r on the (condensed) local problem.
  FclibResiduals residuals;
  /// Global problems solved by SAP: the velocities v (n).
  Eigen::VectorXd v;
};

/// Solves a local problem. Never throws for solver failures or rejected
/// data: see status and message.
FclibSolveResult SolveFclibLocal(const FclibLocalProblem& problem,
                                 const FclibSolverOptions& options = {});

/// Solves a global problem: rigid on its condensed local form
/// (CondenseGlobalProblem), SAP on M, H directly. Residuals are measured on
/// the condensed local form.
FclibSolveResult SolveFclibGlobal(const FclibGlobalProblem& problem,
                                  const FclibSolverOptions& options = {});

}  // namespace sapcontact
