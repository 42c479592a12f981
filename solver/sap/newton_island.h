// The per-island state of SAP's Newton iteration and the tests made at the
// start of each iteration (docs/theory.md §7-8), shared by SapSolver and
// ContactSpaceSapSolver.
#pragma once

#include <limits>
#include <string>

#include "sapcontact/solver/sap/sap_solver_parameters.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact {

/// One island's Newton state.
struct NewtonIslandState {
  /// False once the island has converged (or stalled within tolerance).
  bool active{true};
  int iterations{0}, line_search_iterations{0};
  /// Newton iterations made before this state was started (the solve went
  /// on from its iterate with a changed contact graph): they count toward
  /// max_iterations.
  int earlier_iterations{0};
  /// Cost at the last evaluation and at the previous Newton iteration [J].
  double cost{0.0}, previous_cost{std::numeric_limits<double>::infinity()};
  /// residual / scale of the stopping test at the last evaluation.
  double relative_residual{0.0};
  /// The last step used stiction prediction (docs/theory.md §16): the cost
  /// stall test, meant for exact Newton steps, is skipped after it.
  bool last_step_predicted{false};
  /// The last step solved with a stale factorization (factor_reuse_rate):
  /// the cost stall test is skipped after it too; a slow stale step makes
  /// the next one factor again.
  bool last_step_stale{false};
  /// Step size alpha of the last step.
  double last_alpha{0.0};
  /// The next step is an exact Newton step (a predicted step was rejected).
  bool suspend_prediction{false};
  int predicted_iterations{0}, rejected_predictions{0};
  /// SapSolverStatistics::changed_hessian_blocks and
  /// unchanged_hessian_blocks of this island.
  int changed_hessian_blocks{0}, unchanged_hessian_blocks{0};
};

/// What the tests decided for one island.
enum class NewtonIslandDecision {
  kStep,  ///< take a Newton step
  kDone,  ///< converged (or stalled within stall_residual_tolerance)
  kFail,  ///< status and message say why
};

/// At the start of a Newton iteration of island `island` (of `num_islands`,
/// for the messages): records cost and residual / scale in *state, then
/// tests in order: non-finite cost or residual (kFactorizationFailed),
/// optimality residual <= abs_tolerance + rel_tolerance * scale, cost stall
/// after an exact Newton step (previous_cost - cost <= cost_stall_tolerance *
/// cost: done if the relative residual is within stall_residual_tolerance,
/// else kStalled),
/// and the iteration limit (kMaxIterations). On kFail sets *status and
/// *message. On kStep remembers the cost for the next stall test.
NewtonIslandDecision DecideNewtonIsland(const SapSolverParameters& p,
                                        int island, int num_islands,
                                        double cost, double residual,
                                        double scale, NewtonIslandState* state,
                                        SapSolverStatus* status,
                                        std::string* message);

}  // namespace sapcontact
