#include "sapcontact/solver/sap/sap_solver.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sapcontact/solver/sap/rtsafe.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

[[noreturn]] void Invalid(const char* name, double value, const char* rule) {
  std::ostringstream os;
  os << "SapSolverParameters: invalid " << name << " = " << value << " ("
     << rule << ")";
  throw std::invalid_argument(os.str());
}

}  // namespace

const char* ToString(SapSolverStatus status) {
  switch (status) {
    case SapSolverStatus::kConverged:
      return "converged";
    case SapSolverStatus::kMaxIterations:
      return "max_iterations";
    case SapSolverStatus::kStalled:
      return "stalled";
    case SapSolverStatus::kIllConditioned:
      return "ill_conditioned";
    case SapSolverStatus::kFactorizationFailed:
      return "factorization_failed";
  }
  return "unknown";
}

void Validate(const SapSolverParameters& p) {
  Validate(p.regularization, "SapSolverParameters");
  if (!(p.abs_tolerance >= 0) || !std::isfinite(p.abs_tolerance))
    Invalid("abs_tolerance", p.abs_tolerance, "finite, >= 0");
  if (!(p.rel_tolerance >= 0) || !std::isfinite(p.rel_tolerance))
    Invalid("rel_tolerance", p.rel_tolerance, "finite, >= 0");
  if (!(p.cost_stall_tolerance >= 0) || !std::isfinite(p.cost_stall_tolerance))
    Invalid("cost_stall_tolerance", p.cost_stall_tolerance, "finite, >= 0");
  if (!(p.stall_residual_tolerance >= 0))
    Invalid("stall_residual_tolerance", p.stall_residual_tolerance, ">= 0");
  if (p.max_iterations < 0) Invalid("max_iterations", p.max_iterations, ">= 0");
  if (!(p.max_step >= 1.0) || !std::isfinite(p.max_step))
    Invalid("max_step", p.max_step, "finite, >= 1");
  if (p.max_line_search_iterations < 1)
    Invalid("max_line_search_iterations", p.max_line_search_iterations, ">= 1");
  if (!(p.armijo_c > 0 && p.armijo_c < 1))
    Invalid("armijo_c", p.armijo_c, "in (0, 1)");
  if (!(p.backtracking_rho > 0 && p.backtracking_rho < 1))
    Invalid("backtracking_rho", p.backtracking_rho, "in (0, 1)");
  if (p.dense_size_threshold < 0)
    Invalid("dense_size_threshold", p.dense_size_threshold, ">= 0");
  if (!(p.min_reciprocal_condition >= 0) || !(p.min_reciprocal_condition < 1))
    Invalid("min_reciprocal_condition", p.min_reciprocal_condition,
            "in [0, 1)");
}

SapSolver::SapSolver(const SapSolverParameters& parameters) {
  set_parameters(parameters);
}

SapSolver::~SapSolver() = default;

void SapSolver::set_parameters(const SapSolverParameters& parameters) {
  Validate(parameters);
  parameters_ = parameters;
}

int SapSolver::total_symbolic_analyses() const {
  return factorization_ ? factorization_->statistics().symbolic_analyses : 0;
}

void SapSolver::EnsureFactorization(int size) {
  LinearSolverType type = parameters_.linear_solver;
  if (type == LinearSolverType::kAuto) {
    type = size <= parameters_.dense_size_threshold
               ? LinearSolverType::kDense
               : LinearSolverType::kCholmod;
  }
  if (!factorization_ || factorization_->type() != type) {
    factorization_ = MakeHessianFactorization(type, size);
  }
}

double SapSolver::LineSearch(const SapModel& model, double cost0, double dcost0,
                             int* iterations) {
  const int nc = model.num_contacts();
  // l(alpha) and its first two derivatives along dv, in O(n + nc) from the
  // precomputed A dv, J dv and dv' A dv (SAP paper §IV-C).
  auto eval = [&](double alpha, double* cost, double* d1, double* d2) {
    vc_alpha_ = vc_ + alpha * dvc_;
    double constraint_cost = 0.0;
    double dvc_gamma = 0.0, dvc_G_dvc = 0.0;
    ContactConstraintState s;
    for (int k = 0; k < nc; ++k) {
      const auto& c = model.contacts()[k].constraint;
      c.Evaluate(vc_alpha_.segment<3>(3 * k), d2 != nullptr, &s);
      const Vector3 dvc = dvc_.segment<3>(3 * k);
      constraint_cost += s.cost;
      dvc_gamma += dvc.dot(s.gamma);
      if (d2) dvc_G_dvc += dvc.dot(s.G * dvc);
    }
    if (cost)
      *cost = lA0_ + alpha * a1_ + 0.5 * alpha * alpha * a2_ + constraint_cost;
    if (d1) *d1 = a1_ + alpha * a2_ - dvc_gamma;
    if (d2) *d2 = a2_ + dvc_G_dvc;
  };

  if (parameters_.line_search == LineSearchType::kBacktracking) {
    double alpha = 1.0, cost = 0.0;
    for (int it = 0; it < parameters_.max_line_search_iterations; ++it) {
      eval(alpha, &cost, nullptr, nullptr);
      ++*iterations;
      if (cost <= cost0 + parameters_.armijo_c * alpha * dcost0) break;
      alpha *= parameters_.backtracking_rho;
    }
    return alpha;
  }

  // Exact: l is convex along the ray, so dl/dalpha is nondecreasing; its
  // root is the minimizer. If l still decreases at max_step, take max_step.
  const double alpha_max = parameters_.max_step;
  double d1 = 0.0;
  eval(alpha_max, nullptr, &d1, nullptr);
  ++*iterations;
  if (d1 <= 0.0) return alpha_max;
  // dl/dalpha = a1 + alpha a2 - dvc' gamma(alpha) is zero to machine
  // precision once it is below the round-off of its terms.
  const double eps = std::numeric_limits<double>::epsilon();
  const double f_tolerance =
      16 * eps * (std::abs(a1_) + alpha_max * std::abs(a2_) + dvc_gamma0_);
  const RtsafeResult root = Rtsafe(
      [&](double alpha, double* f, double* df) { eval(alpha, nullptr, f, df); },
      0.0, alpha_max, 1.0, 4 * eps, f_tolerance,
      parameters_.max_line_search_iterations);
  *iterations += root.iterations;
  return root.x;
}

SapSolverResults SapSolver::Solve(const SapProblem& problem,
                                  const Eigen::VectorXd* v_guess) {
  const auto t_start = Clock::now();
  Validate(problem, /*check_positive_definite=*/false);  // the model checks
  const int nv_full = problem.num_velocities();
  if (v_guess) {
    if (v_guess->size() != nv_full) {
      throw std::invalid_argument("SapSolver::Solve: v_guess has size " +
                                  std::to_string(v_guess->size()) +
                                  ", expected " + std::to_string(nv_full) +
                                  " (all trees' velocities)");
    }
    if (!v_guess->allFinite()) {
      throw std::invalid_argument(
          "SapSolver::Solve: v_guess has non-finite entries");
    }
  }

  SapSolverResults results;
  SapSolverStatistics& stats = results.statistics;
  const SapModel model(problem, parameters_.regularization);
  stats.time_model = Seconds(t_start);
  stats.participating_trees = model.num_trees();
  stats.participating_velocities = model.num_velocities();
  stats.patches = static_cast<int>(model.patches().size());
  const int nc = model.num_contacts();

  double t_assembly = 0, t_factor = 0, t_line = 0;
  results.status = SapSolverStatus::kMaxIterations;
  if (nc == 0) {
    results.status = SapSolverStatus::kConverged;
  } else {
    EnsureFactorization(model.num_velocities());
    const int symbolic_start = factorization_->statistics().symbolic_analyses;
    if (H_.pattern() != model.pattern()) {
      H_ = BlockSparseSymmetricMatrix(model.pattern());
    }
    const Eigen::VectorXd& D = model.scaling();
    if (v_guess) {
      model.Gather(*v_guess, &v_);
    } else {
      v_ = model.v_star();
    }
    model.MultiplyA(model.v_star(), &Avstar_);
    const double min_rcond = parameters_.min_reciprocal_condition;
    double previous_cost = std::numeric_limits<double>::infinity();
    for (int iter = 0;; ++iter) {
      // Gradient, cost and residual at v_k.
      r_ = v_ - model.v_star();
      model.MultiplyA(r_, &Ar_);
      model.MultiplyJ(v_, &vc_);
      const double constraint_cost =
          model.EvaluateConstraints(vc_, &gamma_, &G_);
      model.MultiplyJTranspose(gamma_, &jtg_);
      grad_ = Ar_ - jtg_;
      Av_ = Ar_ + Avstar_;  // A v
      const double cost = 0.5 * r_.dot(Ar_) + constraint_cost;
      const double scale =
          std::max(D.cwiseProduct(Av_).norm(), D.cwiseProduct(jtg_).norm());
      const double residual = D.cwiseProduct(grad_).norm();
      const double relative_residual = scale > 0 ? residual / scale : residual;
      stats.final_cost = cost;
      stats.final_scaled_residual = relative_residual;
      if (!std::isfinite(cost) || !grad_.allFinite()) {
        results.status = SapSolverStatus::kFactorizationFailed;
        results.message = "non-finite cost or gradient at Newton iteration " +
                          std::to_string(iter);
        break;
      }
      // Optimality, checked before factorizing: an optimal warm start costs
      // no factorization.
      if (residual <=
          parameters_.abs_tolerance + parameters_.rel_tolerance * scale) {
        results.status = SapSolverStatus::kConverged;
        break;
      }
      // Cost stall: no decrease beyond round-off.
      if (iter > 0 &&
          previous_cost - cost <= parameters_.cost_stall_tolerance * cost) {
        if (relative_residual <= parameters_.stall_residual_tolerance) {
          results.status = SapSolverStatus::kConverged;
        } else {
          results.status = SapSolverStatus::kStalled;
          std::ostringstream os;
          os << "cost stalled at round-off after " << iter
             << " Newton iterations with scaled residual " << relative_residual
             << " (> stall_residual_tolerance "
             << parameters_.stall_residual_tolerance
             << "): the problem is too ill-conditioned to solve to tolerance";
          results.message = os.str();
        }
        break;
      }
      if (iter >= parameters_.max_iterations) {
        results.status = SapSolverStatus::kMaxIterations;
        std::ostringstream os;
        os << "not converged in " << parameters_.max_iterations
           << " Newton iterations; scaled residual " << relative_residual;
        results.message = os.str();
        break;
      }
      previous_cost = cost;

      // Newton direction dv = -H^-1 grad.
      auto t0 = Clock::now();
      model.AssembleHessian(G_, &H_);
      t_assembly += Seconds(t0);
      t0 = Clock::now();
      const bool factored = factorization_->Factor(H_);
      if (factored) {
        dv_ = -grad_;
        factorization_->SolveInPlace(&dv_);
      }
      t_factor += Seconds(t0);
      ++stats.newton_iterations;
      if (!factored) {
        results.status = SapSolverStatus::kFactorizationFailed;
        results.message =
            "the Hessian A + J'GJ is not numerically positive definite at "
            "Newton iteration " +
            std::to_string(iter);
        break;
      }
      stats.reciprocal_condition =
          factorization_->ReciprocalConditionEstimate();
      if (stats.reciprocal_condition < min_rcond || !dv_.allFinite()) {
        results.status = SapSolverStatus::kIllConditioned;
        std::ostringstream os;
        os << "the Hessian A + J'GJ is too ill-conditioned to trust the "
              "impulses (reciprocal condition estimate "
           << stats.reciprocal_condition << " < " << min_rcond
           << "); use a near-rigid threshold beta > 0 or a softer contact";
        results.message = os.str();
        break;
      }

      // Line search along dv.
      t0 = Clock::now();
      model.MultiplyA(dv_, &Adv_);
      model.MultiplyJ(dv_, &dvc_);
      lA0_ = 0.5 * r_.dot(Ar_);
      a1_ = dv_.dot(Ar_);
      a2_ = dv_.dot(Adv_);
      const double dcost0 = dv_.dot(grad_);
      dvc_gamma0_ = 0.0;
      for (int k = 0; k < nc; ++k) {
        dvc_gamma0_ +=
            std::abs(dvc_.segment<3>(3 * k).dot(gamma_.segment<3>(3 * k)));
      }
      int ls_iterations = 0;
      const double alpha = LineSearch(model, cost, dcost0, &ls_iterations);
      t_line += Seconds(t0);
      stats.cost.push_back(cost);
      stats.alpha.push_back(alpha);
      stats.scaled_residual.push_back(relative_residual);
      stats.line_search_iterations_per_newton.push_back(ls_iterations);
      stats.line_search_iterations += ls_iterations;
      v_ += alpha * dv_;
    }
    stats.symbolic_analyses =
        factorization_->statistics().symbolic_analyses - symbolic_start;
  }

  // Results in the user's order.
  results.delassus_estimate.resize(nc);
  results.R_n.resize(nc);
  results.R_t.resize(nc);
  for (int k = 0; k < nc; ++k) {
    const SapModel::ModelContact& c = model.contacts()[k];
    results.delassus_estimate(k) = c.w;
    results.R_n(k) = c.constraint.regularization().R_n;
    results.R_t(k) = c.constraint.regularization().R_t;
  }
  results.v = StackedVStar(problem);
  if (nc > 0) {
    model.Scatter(v_, &results.v);
    results.v_c = vc_;
    results.gamma = gamma_;
    results.generalized_impulse = Eigen::VectorXd::Zero(nv_full);
    model.Scatter(jtg_, &results.generalized_impulse);
  } else {
    results.v_c.resize(0);
    results.gamma.resize(0);
    results.generalized_impulse = Eigen::VectorXd::Zero(nv_full);
  }
  stats.time_assembly = t_assembly;
  stats.time_factorization = t_factor;
  stats.time_line_search = t_line;
  stats.time_total = Seconds(t_start);
  stats.time_other =
      stats.time_total - stats.time_model - t_assembly - t_factor - t_line;
  return results;
}

InverseDynamicsResult CalcInverseDynamics(const SapProblem& problem,
                                          const RegularizationParameters& reg,
                                          const Eigen::VectorXd& v) {
  Validate(problem);
  if (v.size() != problem.num_velocities() || !v.allFinite()) {
    throw std::invalid_argument(
        "CalcInverseDynamics: v must be finite with size " +
        std::to_string(problem.num_velocities()));
  }
  const SapModel model(problem, reg);
  InverseDynamicsResult out;
  Eigen::VectorXd vp, jtg;
  model.Gather(v, &vp);
  model.MultiplyJ(vp, &out.v_c);
  model.EvaluateConstraints(out.v_c, &out.gamma, nullptr);
  model.MultiplyJTranspose(out.gamma, &jtg);
  out.generalized_impulse = Eigen::VectorXd::Zero(v.size());
  model.Scatter(jtg, &out.generalized_impulse);
  return out;
}

}  // namespace sapcontact
