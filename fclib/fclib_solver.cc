#include "sapcontact/fclib/fclib_solver.h"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>

#include "sapcontact/fclib/global_problem_primal_form.h"
#include "sapcontact/solver/sap/contact_space_sap_solver.h"
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

template <typename Results>
void FinishSap(const Results& r, double impulse_scale, FclibSolveResult* out) {
  out->status = ToString(r.status);
  out->success = r.converged();
  out->message = r.message;
  out->iterations = r.statistics.newton_iterations;
  out->r = impulse_scale * r.gamma;
}

// SAP with continuation in (beta, sigma): `solve_stage(parameters,
// previous)` solves one stage warm-started from the previous stage's
// results (null at the first); returns the last stage's results with the
// Newton and line-search iterations summed over the stages.
template <typename Results, typename SolveStage>
Results SolveSapStiffLimit(const FclibSolverOptions& o,
                           const SolveStage& solve_stage) {
  if (!o.continuation) return solve_stage(o.sap, nullptr);
  const RegularizationParameters target = o.sap.regularization;
  const RegularizationParameters start;  // SAP's defaults (1, 1e-3)
  double beta =
      std::max(start.near_rigid_threshold, target.near_rigid_threshold);
  double sigma =
      std::max(start.friction_regularization, target.friction_regularization);
  const double factor = std::max(o.continuation_factor, 1.0 + 1e-12);
  Results r, previous;
  int total = 0, line_search = 0;
  for (bool first = true;; first = false) {
    SapSolverParameters stage = o.sap;
    stage.regularization.near_rigid_threshold =
        std::max(beta, target.near_rigid_threshold);
    stage.regularization.friction_regularization =
        std::max(sigma, target.friction_regularization);
    r = solve_stage(stage, first ? nullptr : &previous);
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
    previous = r;
    beta /= factor;
    sigma /= factor;
  }
  r.statistics.newton_iterations = total;
  r.statistics.line_search_iterations = line_search;
  return r;
}

// SAP in velocity space on a primal form (a SapProblem).
SapSolverResults SolvePrimalForm(const SapProblem& problem,
                                 const FclibSolverOptions& o) {
  SapSolver solver(o.sap);
  return SolveSapStiffLimit<SapSolverResults>(
      o,
      [&](const SapSolverParameters& stage, const SapSolverResults* previous) {
        solver.set_parameters(stage);
        return solver.Solve(problem, previous ? &previous->v : nullptr);
      });
}

// Whether Wn (scaled to a unit largest diagonal entry) is positive
// semidefinite to within `tolerance`: Wn + tolerance I has a sparse
// Cholesky factorization.
bool IsPositiveSemidefinite(const Eigen::SparseMatrix<double>& Wn,
                            double tolerance) {
  Eigen::SparseMatrix<double> shifted = Wn;
  for (int i = 0; i < shifted.rows(); ++i) shifted.coeffRef(i, i) += tolerance;
  const Eigen::SimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower> llt(
      shifted);
  return llt.info() == Eigen::Success;
}

// SAP in contact space (docs/theory.md §15) on (Wsym, q, mu) scaled as the
// primal form is (local_problem_primal_form.h, step 1). Returns false, and
// leaves *out alone, when Wsym is indefinite beyond
// options.primal_form.indefinite_tolerance: the primal form then truncates
// its negative part.
bool SolveContactSpace(const Eigen::SparseMatrix<double>& S,
                       const FclibLocalProblem& local,
                       const FclibSolverOptions& o, FclibSolveResult* out) {
  const int nc = local.num_contacts();
  const double w_scale = S.diagonal().maxCoeff();
  if (!(w_scale > 0) || !std::isfinite(w_scale)) return false;
  ContactSpaceSapProblem p;
  p.time_step = 1.0;
  p.W = S / w_scale;
  if (!IsPositiveSemidefinite(p.W, o.primal_form.indefinite_tolerance)) {
    return false;
  }
  const double q_norm = local.q.lpNorm<Eigen::Infinity>();
  const double q_scale = q_norm > 0 ? q_norm : 1.0;
  p.v_free = local.q / q_scale;
  p.phi0.setZero(nc);
  p.parameters.resize(nc);
  for (int k = 0; k < nc; ++k) {
    p.parameters[k] = ContactParameters{std::numeric_limits<double>::infinity(),
                                        0.0, local.mu(k)};
  }
  ContactSpaceSapSolver solver(o.sap);
  const ContactSpaceSapResults r = SolveSapStiffLimit<ContactSpaceSapResults>(
      o, [&](const SapSolverParameters& stage,
             const ContactSpaceSapResults* previous) {
        solver.set_parameters(stage);
        return solver.Solve(p, previous ? &previous->x : nullptr);
      });
  FinishSap(r, q_scale / w_scale, out);
  return true;
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
      if (!options.sap_contact_space ||
          !SolveContactSpace(SymmetricPart(problem.W), problem, options,
                             &out)) {
        const LocalPrimalForm form = MakeLocalPrimalForm(
            problem.W, problem.q, problem.mu, options.primal_form);
        FinishSap(SolvePrimalForm(form.problem, options), form.impulse_scale,
                  &out);
      }
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
    out.r.resize(0);
    out.v.resize(0);
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
    const SapSolverResults r = SolvePrimalForm(form.problem, options);
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
    out.r.resize(0);
    out.v.resize(0);
  }
  RequireFiniteMeasures(&out);
  return out;
}

}  // namespace sapcontact
