#include "sapcontact/fclib/fclib_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "sapcontact/fclib/global_problem_primal_form.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

const char* RigidStatus(RigidQpStatus s) {
  switch (s) {
    case RigidQpStatus::kSolved:
      return "solved";
    case RigidQpStatus::kSolvedReducedAccuracy:
      return "solved_reduced_accuracy";
    case RigidQpStatus::kMaxIterations:
      return "max_iterations";
    case RigidQpStatus::kInfeasible:
      return "infeasible";
    case RigidQpStatus::kNumericalError:
      return "numerical_error";
  }
  return "unknown";
}

// SAP with continuation in (beta, sigma); returns the last stage's results
// with newton_iterations summed over the stages.
SapSolverResults SolveSapStiffLimit(const SapProblem& problem,
                                    const FclibSolverOptions& o) {
  SapSolver solver(o.sap);
  if (!o.continuation) return solver.Solve(problem);
  const RegularizationParameters target = o.sap.regularization;
  const RegularizationParameters start;  // SAP's defaults (1, 1e-3)
  double beta =
      std::max(start.near_rigid_threshold, target.near_rigid_threshold);
  double sigma =
      std::max(start.friction_regularization, target.friction_regularization);
  const double factor = std::max(o.continuation_factor, 1.0 + 1e-12);
  SapSolverResults r;
  Eigen::VectorXd v;
  int total = 0, line_search = 0;
  while (true) {
    SapSolverParameters stage = o.sap;
    stage.regularization.near_rigid_threshold =
        std::max(beta, target.near_rigid_threshold);
    stage.regularization.friction_regularization =
        std::max(sigma, target.friction_regularization);
    solver.set_parameters(stage);
    r = solver.Solve(problem, v.size() > 0 ? &v : nullptr);
    total += r.statistics.newton_iterations;
    line_search += r.statistics.line_search_iterations;
    const bool last = stage.regularization.near_rigid_threshold <=
                          target.near_rigid_threshold &&
                      stage.regularization.friction_regularization <=
                          target.friction_regularization;
    if (last || !r.converged()) {
      if (!last && r.message.empty()) r.message = "continuation stage failed";
      break;
    }
    v = r.v;
    beta /= factor;
    sigma /= factor;
  }
  r.statistics.newton_iterations = total;
  r.statistics.line_search_iterations = line_search;
  return r;
}

void FinishSap(const SapSolverResults& r, double impulse_scale,
               FclibSolveResult* out) {
  out->status = ToString(r.status);
  out->success = r.converged();
  out->message = r.message;
  out->iterations = r.statistics.newton_iterations;
  out->r = impulse_scale * r.gamma;
}

// A solve counts as solved only with finite impulses and finite residuals
// and objective: a NaN residual (e.g. from W entries whose products
// overflow) never does.
void RequireFiniteMeasures(FclibSolveResult* out) {
  const FclibResiduals& m = out->residuals;
  const bool finite = out->r.size() > 0 && out->r.allFinite() &&
                      std::isfinite(m.convex_residual) &&
                      std::isfinite(m.coulomb_residual) &&
                      std::isfinite(m.objective);
  if (finite || !out->success) return;
  out->success = false;
  out->status = "non_finite_residual";
  out->message = "the solver reported " + out->status +
                 " but the impulses, residuals or objective are not "
                 "finite: not solved";
}

}  // namespace

const char* ToString(FclibSolverKind kind) {
  return kind == FclibSolverKind::kRigid ? "rigid" : "sap";
}

FclibSolverOptions::FclibSolverOptions() {
  rigid.feasibility_tolerance = 1e-12;
  rigid.gap_tolerance = 1e-12;
  rigid.validation.psd_tolerance = 1e-6;
  sap.regularization.near_rigid_threshold = 1e-3;
  sap.regularization.friction_regularization = 1e-6;
  sap.rel_tolerance = 1e-8;
  sap.max_iterations = 200;
  sap.min_reciprocal_condition = 0.0;
}

FclibSolveResult SolveFclibLocal(const FclibLocalProblem& problem,
                                 const FclibSolverOptions& options) {
  FclibSolveResult out;
  out.solver = options.solver;
  out.contacts = problem.num_contacts();
  const auto t0 = Clock::now();
  try {
    if (options.solver == FclibSolverKind::kRigid) {
      const Eigen::SparseMatrix<double> S = SymmetricPart(problem.W);
      const RigidContactProblem qp =
          MakeSparseRigidContactProblem(S, problem.q, problem.mu);
      const RigidQpResult r = SolveRigidContactQp(qp, options.rigid);
      out.status = RigidStatus(r.status);
      out.success = r.status == RigidQpStatus::kSolved ||
                    r.status == RigidQpStatus::kSolvedReducedAccuracy;
      out.message = r.reason;
      out.iterations = r.iterations;
      out.r = r.impulses;
      if (out.success && options.refine) {
        const NaturalMapRefinementResult ref = RefineContactQpSolution(
            S, problem.q, problem.mu, r.impulses, options.refinement);
        out.r = ref.r;
        out.refinement_iterations = ref.iterations;
      }
    } else {
      const LocalPrimalForm form = MakeLocalPrimalForm(
          problem.W, problem.q, problem.mu, options.primal_form);
      FinishSap(SolveSapStiffLimit(form.problem, options), form.impulse_scale,
                &out);
    }
  } catch (const std::exception& e) {
    out.status = "error";
    out.success = false;
    out.message = e.what();
    out.r.resize(0);
  }
  out.solve_time_s = Seconds(t0);
  if (out.r.size() == 3 * problem.num_contacts() && out.r.allFinite()) {
    out.residuals =
        ComputeFclibResiduals(problem.W, problem.q, problem.mu, out.r);
  } else if (out.status != "error") {
    out.success = false;
    out.message += " (no finite impulses returned)";
  }
  RequireFiniteMeasures(&out);
  return out;
}

FclibSolveResult SolveFclibGlobal(const FclibGlobalProblem& problem,
                                  const FclibSolverOptions& options) {
  FclibSolveResult out;
  out.solver = options.solver;
  out.contacts = problem.num_contacts();
  FclibLocalProblem local;
  try {
    local = CondenseGlobalProblem(problem);
  } catch (const std::exception& e) {
    out.message = e.what();
    return out;
  }
  if (options.solver == FclibSolverKind::kRigid) {
    return SolveFclibLocal(local, options);
  }
  const auto t0 = Clock::now();
  try {
    const GlobalPrimalForm form =
        MakeGlobalPrimalForm(problem, options.primal_form);
    const SapSolverResults r = SolveSapStiffLimit(form.problem, options);
    FinishSap(r, form.impulse_scale, &out);
    out.v = GlobalVelocities(form, r.v);
  } catch (const std::exception& e) {
    out.status = "error";
    out.success = false;
    out.message = e.what();
    out.r.resize(0);
  }
  out.solve_time_s = Seconds(t0);
  if (out.r.size() == 3 * problem.num_contacts() && out.r.allFinite()) {
    out.residuals = ComputeFclibResiduals(local.W, local.q, local.mu, out.r);
  } else if (out.status != "error") {
    out.success = false;
    out.message += " (no finite impulses returned)";
  }
  RequireFiniteMeasures(&out);
  return out;
}

}  // namespace sapcontact
