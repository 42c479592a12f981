#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

#include <memory>

#include "sapcontact/solver/rigid_qp/cone_qp_interior_point.h"
#include "sapcontact/solver/rigid_qp/cone_qp_kkt_solver.h"
#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "sapcontact/solver/rigid_qp/normalized_cone_qp.h"

namespace sapcontact {
namespace {

int NumVariables(const RigidContactProblem& p) {
  int n = 0;
  for (int i = 0; i < p.num_contacts(); ++i) n += p.mu(i) > 0.0 ? 3 : 1;
  return n;
}

bool UseSparsePath(const RigidContactProblem& p,
                   const RigidQpSolverOptions& options) {
  switch (options.linear_solver) {
    case RigidQpLinearSolver::kDense:
      return false;
    case RigidQpLinearSolver::kSparse:
      return true;
    case RigidQpLinearSolver::kAuto:
      break;
  }
  if (NumVariables(p) < options.sparse_min_variables) return false;
  const double n = p.rows();
  const double nnz = p.use_sparse_storage
                         ? static_cast<double>(p.W_sparse.nonZeros())
                         : static_cast<double>((p.W.array() != 0.0).count());
  return nnz <= options.sparse_max_density * n * n;
}

RigidQpStatus FromIpm(ConeQpIpmStatus s) {
  switch (s) {
    case ConeQpIpmStatus::kConverged:
      return RigidQpStatus::kSolved;
    case ConeQpIpmStatus::kConvergedReducedAccuracy:
      return RigidQpStatus::kSolvedReducedAccuracy;
    case ConeQpIpmStatus::kMaxIterations:
      return RigidQpStatus::kMaxIterations;
    case ConeQpIpmStatus::kUnbounded:
      return RigidQpStatus::kInfeasible;
    case ConeQpIpmStatus::kNumericalError:
      break;
  }
  return RigidQpStatus::kNumericalError;
}

void FillVelocitiesAndObjective(const RigidContactProblem& p,
                                RigidQpResult* r) {
  const Eigen::VectorXd Wl = p.MultiplyW(r->impulses);
  r->constraint_velocities = Wl + p.c;
  r->objective = 0.5 * r->impulses.dot(Wl) + p.c.dot(r->impulses);
}

// Solves a validated problem.
RigidQpResult SolveValidated(const RigidContactProblem& p,
                             const RigidQpSolverOptions& options) {
  RigidQpResult result;
  const bool sparse = UseSparsePath(p, options);
  result.used_sparse = sparse;
  const NormalizedConeQp qp = NormalizeRigidContactProblem(p, sparse);
  if (qp.beta == 0.0) {
    // D c = 0 on every constrained variable (this includes nc = 0): the
    // objective is 1/2 l'Wl >= 0 = its value at l = 0.
    result.status = RigidQpStatus::kSolved;
    result.reason = "c = 0 on the constrained variables: l = 0 is optimal";
    result.impulses = Eigen::VectorXd::Zero(3 * p.num_contacts());
    FillVelocitiesAndObjective(p, &result);
    return result;
  }
  std::unique_ptr<ConeQpKktSolver> kkt =
      sparse ? MakeCholmodConeQpKktSolver(qp) : MakeDenseConeQpKktSolver(qp);
  ConeQpIpmSettings settings;
  settings.max_iterations = options.max_iterations;
  settings.feasibility_tolerance = options.feasibility_tolerance;
  settings.gap_tolerance = options.gap_tolerance;
  settings.max_polish_iterations = options.max_polish_iterations;
  settings.reduced_tolerance = options.reduced_tolerance;
  const ConeQpIpmOutcome out = SolveNormalizedConeQp(qp, kkt.get(), settings);

  result.status = FromIpm(out.status);
  result.reason = out.reason;
  result.iterations = out.iterations;
  result.primal_residual = out.primal_residual;
  result.dual_residual = out.dual_residual;
  result.relative_gap = out.relative_gap;
  result.relative_complementarity = out.relative_complementarity;
  // Impulses from the slack: s = T x is strictly inside the cones, so
  // T^-1 s is inside the friction cones (to rounding).
  result.impulses = ImpulsesFromNormalized(qp, out.s.cwiseQuotient(qp.t));
  FillVelocitiesAndObjective(p, &result);
  if (out.status == ConeQpIpmStatus::kUnbounded) {
    Eigen::VectorXd d = ImpulsesFromNormalized(qp, out.unbounded_direction);
    result.unbounded_direction = d / d.norm();
  }
  return result;
}

}  // namespace

const char* ToString(RigidQpStatus status) {
  switch (status) {
    case RigidQpStatus::kSolved:
      return "solved";
    case RigidQpStatus::kSolvedReducedAccuracy:
      return "solved to reduced accuracy";
    case RigidQpStatus::kMaxIterations:
      return "max iterations";
    case RigidQpStatus::kInfeasible:
      return "infeasible (unbounded QP)";
    case RigidQpStatus::kNumericalError:
      return "numerical error";
  }
  return "unknown";
}

RigidQpResult SolveRigidContactQp(const RigidContactProblem& problem,
                                  const RigidQpSolverOptions& options) {
  Validate(problem, options.validation);
  return SolveValidated(problem, options);
}

RigidQpResult SolveRigidContactQp(const SapProblem& problem,
                                  const RigidQpSolverOptions& options) {
  bool sparse_storage = false;
  switch (options.linear_solver) {
    case RigidQpLinearSolver::kDense:
      break;
    case RigidQpLinearSolver::kSparse:
      sparse_storage = true;
      break;
    case RigidQpLinearSolver::kAuto:
      sparse_storage = 3 * static_cast<int>(problem.contacts.size()) >=
                       options.sparse_min_variables;
      break;
  }
  const RigidContactProblem rigid =
      MakeRigidContactProblem(problem, sparse_storage);  // validates
  RigidQpResult result = SolveValidated(rigid, options);
  result.velocities = PostStepVelocities(problem, result.impulses);
  return result;
}

}  // namespace sapcontact
