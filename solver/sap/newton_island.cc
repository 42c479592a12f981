#include "sapcontact/solver/sap/newton_island.h"

#include <cmath>
#include <sstream>

namespace sapcontact {

NewtonIslandDecision DecideNewtonIsland(const SapSolverParameters& p,
                                        int island, int num_islands,
                                        double cost, double residual,
                                        double scale, NewtonIslandState* st,
                                        SapSolverStatus* status,
                                        std::string* message) {
  st->cost = cost;
  st->relative_residual = scale > 0 ? residual / scale : residual;
  if (!std::isfinite(cost) || !std::isfinite(residual)) {
    *status = SapSolverStatus::kFactorizationFailed;
    std::ostringstream os;
    os << "island " << island
       << ": non-finite cost or gradient at Newton iteration "
       << st->iterations;
    *message = os.str();
    return NewtonIslandDecision::kFail;
  }
  // Optimality, checked before factorizing: an optimal warm start costs no
  // factorization.
  if (residual <= p.abs_tolerance + p.rel_tolerance * scale) {
    st->active = false;
    return NewtonIslandDecision::kDone;
  }
  // Cost stall: no decrease beyond round-off.
  if (st->iterations > 0 && !st->last_step_predicted && !st->last_step_stale &&
      st->previous_cost - cost <= p.cost_stall_tolerance * cost) {
    st->active = false;
    if (st->relative_residual <= p.stall_residual_tolerance) {
      return NewtonIslandDecision::kDone;
    }
    *status = SapSolverStatus::kStalled;
    std::ostringstream os;
    os << "island " << island << ": cost stalled at round-off after "
       << st->iterations << " Newton iterations with scaled residual "
       << st->relative_residual << " (> stall_residual_tolerance "
       << p.stall_residual_tolerance
       << "): the problem is too ill-conditioned to solve to tolerance";
    *message = os.str();
    return NewtonIslandDecision::kFail;
  }
  if (st->iterations + st->earlier_iterations >= p.max_iterations) {
    *status = SapSolverStatus::kMaxIterations;
    std::ostringstream os;
    os << "not converged in " << p.max_iterations
       << " Newton iterations; scaled residual " << st->relative_residual
       << (num_islands > 1 ? " (island " + std::to_string(island) + ")"
                           : std::string());
    *message = os.str();
    return NewtonIslandDecision::kFail;
  }
  st->previous_cost = cost;
  return NewtonIslandDecision::kStep;
}

}  // namespace sapcontact
