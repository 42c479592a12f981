#include "sapcontact/solver/sap/sap_solver.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sapcontact/solver/sap/line_search.h"
#include "sapcontact/solver/sap/newton_island.h"
#include "sapcontact/solver/sap/stiction_prediction.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxThreads = 1024;

// A fresh SapSolverStatistics whose vectors keep their storage.
void ResetKeepingStorage(SapSolverStatistics* stats) {
  SapSolverStatistics fresh;
  auto keep = [](auto* into, auto* from) {
    into->swap(*from);
    into->clear();
  };
  keep(&fresh.island_statistics, &stats->island_statistics);
  keep(&fresh.cost, &stats->cost);
  keep(&fresh.alpha, &stats->alpha);
  keep(&fresh.scaled_residual, &stats->scaled_residual);
  keep(&fresh.line_search_iterations_per_newton,
       &stats->line_search_iterations_per_newton);
  *stats = std::move(fresh);
}

[[noreturn]] void Invalid(const char* name, double value, const char* rule) {
  std::ostringstream os;
  os << "SapSolverParameters: invalid " << name << " = " << value << " ("
     << rule << ")";
  throw std::invalid_argument(os.str());
}

// Each candidate start: present, full size, finite.
void ValidateGuesses(const SapProblem& problem,
                     const std::vector<const Eigen::VectorXd*>& guesses) {
  const int nv_full = problem.num_velocities();
  for (size_t g = 0; g < guesses.size(); ++g) {
    auto name = [&]() {
      return guesses.size() == 1 ? std::string("v_guess")
                                 : "guess " + std::to_string(g);
    };
    if (guesses[g] == nullptr) {
      throw std::invalid_argument("SapSolver::Solve: " + name() + " is null");
    }
    if (guesses[g]->size() != nv_full) {
      throw std::invalid_argument("SapSolver::Solve: " + name() + " has size " +
                                  std::to_string(guesses[g]->size()) +
                                  ", expected " + std::to_string(nv_full) +
                                  " (all trees' velocities)");
    }
    if (!guesses[g]->allFinite()) {
      throw std::invalid_argument("SapSolver::Solve: " + name() +
                                  " has non-finite entries");
    }
  }
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
  if (!(p.factor_reuse_rate >= 0 && p.factor_reuse_rate < 1))
    Invalid("factor_reuse_rate", p.factor_reuse_rate, "in [0, 1)");
  if (p.max_iterations < 0) Invalid("max_iterations", p.max_iterations, ">= 0");
  if (!(p.max_step >= 1.0) || !std::isfinite(p.max_step))
    Invalid("max_step", p.max_step, "finite, >= 1");
  if (p.max_line_search_iterations < 1)
    Invalid("max_line_search_iterations", p.max_line_search_iterations, ">= 1");
  if (!(p.line_search_slope_ratio >= 0 && p.line_search_slope_ratio < 1))
    Invalid("line_search_slope_ratio", p.line_search_slope_ratio, "in [0, 1)");
  if (!(p.armijo_c > 0 && p.armijo_c < 1))
    Invalid("armijo_c", p.armijo_c, "in (0, 1)");
  if (!(p.backtracking_rho > 0 && p.backtracking_rho < 1))
    Invalid("backtracking_rho", p.backtracking_rho, "in (0, 1)");
  if (p.dense_size_threshold < 0)
    Invalid("dense_size_threshold", p.dense_size_threshold, ">= 0");
  if (!(p.stiction_prediction_min_step >= 0) ||
      !(p.stiction_prediction_min_step <= p.max_step))
    Invalid("stiction_prediction_min_step", p.stiction_prediction_min_step,
            "in [0, max_step]");
  if (p.threads < 1 || p.threads > kMaxThreads)
    Invalid("threads", p.threads, "in [1, 1024]");
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
  if (parameters.threads == 1) {
    pool_.reset();
  } else if (!pool_ || pool_->threads() != parameters.threads) {
    pool_ = std::make_unique<ThreadPool>(parameters.threads);
  }
  dense_storage_.resize(parameters.threads);
}

int SapSolver::total_symbolic_analyses() const {
  int total = symbolic_analyses_;
  for (const SparseGroup& group : groups_) {
    if (group.factorization) {
      total += group.factorization->statistics().symbolic_analyses;
    }
  }
  return total;
}

double SapSolver::LineSearch(const SapModel::Island& island,
                             const RayQuadratic& quadratic, double cost0,
                             double dcost0, double relative_residual,
                             double rcond, int* iterations) const {
  const SapModel& model = model_;
  // l(alpha) and its first two derivatives along dv, in O(n + nc) of the
  // island from the precomputed A dv, J dv and dv' A dv (SAP paper §IV-C).
  auto constraints = [&](double alpha) {
    RaySums sums;
    for (int k : island.contacts) {
      AddAlongRay(model.contacts()[k].constraint, vc_.segment<3>(3 * k),
                  dvc_.segment<3>(3 * k), alpha, &sums);
    }
    const int r0 = model.row_offset();
    for (int k : island.constraints) {
      const SapModel::ModelConstraint& m = model.constraints()[k];
      for (int i = m.first_row; i < m.first_row + m.rows; ++i) {
        AddRowAlongRay(model.rows()[i], vc_(r0 + i), dvc_(r0 + i), alpha,
                       &sums);
      }
    }
    return sums;
  };
  return SearchAlongRay(
      parameters_, quadratic, cost0, dcost0,
      LineSearchSlopeRatio(parameters_, relative_residual, rcond), constraints,
      iterations);
}

SapSolverResults SapSolver::Solve(const SapProblem& problem,
                                  const Eigen::VectorXd* v_guess) {
  std::vector<const Eigen::VectorXd*> guesses;
  if (v_guess) guesses.push_back(v_guess);
  return SolveFromCandidates(problem, guesses);
}

SapSolverResults SapSolver::SolveFromCandidates(
    const SapProblem& problem,
    const std::vector<const Eigen::VectorXd*>& guesses) {
  SapSolverResults results;
  SolveFromCandidates(problem, guesses, &results);
  return results;
}

void SapSolver::SolveFromCandidates(
    const SapProblem& problem,
    const std::vector<const Eigen::VectorXd*>& guesses,
    SapSolverResults* results_out) {
  const auto t_start = Clock::now();
  if (results_out == nullptr) {
    throw std::invalid_argument("SapSolver::Solve: results is null");
  }
  Validate(problem, /*check_positive_definite=*/false);  // the model checks
  ValidateGuesses(problem, guesses);

  // The caller's results object is refilled (its vectors keep their
  // storage: no allocation per step once the sizes stop growing).
  SapSolverResults& results = *results_out;
  results.message.clear();
  SapSolverStatistics& stats = results.statistics;
  ResetKeepingStorage(&stats);
  model_.Build(problem, parameters_.regularization, pool_.get());
  stats.time_model = SecondsSince(t_start);
  stats.participating_trees = model_.num_trees();
  stats.participating_velocities = model_.num_velocities();
  for (const Contact& c : problem.contacts) {
    ++(c.phi0 < 0.0 ? stats.penetrating_contacts : stats.speculative_contacts);
  }
  GatherGuesses(guesses);
  if (parameters_.exclude_separated_contacts) {
    ExcludeSeparatedContacts(problem);
  }

  results.status = SapSolverStatus::kConverged;
  const int symbolic_start = total_symbolic_analyses();
  // Newton rounds (SAP paper Algorithm 2) on the contact graph: every
  // island still iterating takes one Newton step per round. A contact left
  // out of the graph that would push at the current iterate comes back at
  // once (after any round, and at the end), and Newton goes on from there:
  // the solution is the whole problem's (docs/theory.md §8).
  const std::vector<SapModel::Island>* islands = &SetUpIslands();
  PlanFactorization(*islands);
  InitializeIterate(*islands, false);
  for (int round = 0;; ++round) {
    const bool stepping = EvaluateAndDecide(*islands, &results);
    if (stepping) {
      PrepareNewtonGradients(*islands, &stats);
      if (!ComputeDirections(*islands, round, &results)) break;
      SearchAlongDirections(*islands, &stats);
    } else if (results.status != SapSolverStatus::kConverged) {
      break;
    }
    if (!EvaluateLeftOutContacts()) {
      if (stepping) continue;
      break;
    }
    PackStatistics(*islands, &stats);
    stats.reincluded_contacts += BringBackPushingContacts();
    islands = &SetUpIslands();
    PlanFactorization(*islands);
    InitializeIterate(*islands, true, stats.newton_iterations);
  }
  PackStatistics(*islands, &stats);
  stats.symbolic_analyses = total_symbolic_analyses() - symbolic_start;
  stats.patches = static_cast<int>(model_.patches().size());
  stats.excluded_contacts =
      model_.num_contacts() - model_.num_active_contacts();
  PackResults(problem, &results);
  stats.time_total = SecondsSince(t_start);
  stats.time_other = stats.time_total - stats.time_model - stats.time_assembly -
                     stats.time_factorization - stats.time_line_search;
}

void SapSolver::ExcludeSeparatedContacts(const SapProblem& problem) {
  // A speculative contact (phi0 >= 0) with no impulse at v* and at every
  // guess is predicted to carry none at the solution either.
  const SapModel& model = model_;
  const int nc = model.num_contacts();
  active_.assign(nc, 1);
  int excluded = 0;
  ContactConstraintState s;
  // (Also testing each contact with either side at rest, to catch a body
  // meeting one that lands in the same step, left out fewer contacts and
  // cost 12 % more instructions on the 512-sphere pile than bringing the
  // few that push back during Newton.)
  auto pushes = [&](int k, const Eigen::VectorXd& v) {
    model.contacts()[k].constraint.Evaluate(model.ContactVelocity(k, v), false,
                                            &s);
    return !(s.gamma.array() == 0.0).all();
  };
  for (int k = 0; k < nc; ++k) {
    if (!(problem.contacts[k].phi0 >= 0.0)) continue;
    bool idle = !pushes(k, model.v_star());
    for (int g = 0; idle && g < num_guesses_; ++g) {
      idle = !pushes(k, gathered_guesses_[g]);
    }
    if (idle) {
      active_[k] = 0;
      ++excluded;
    }
  }
  if (excluded > 0) model_.SetActiveContacts(active_);
}

bool SapSolver::EvaluateLeftOutContacts() {
  const SapModel& model = model_;
  if (model.num_active_contacts() == model.num_contacts()) return false;
  // The left-out contacts at v_: their velocities (the results report
  // them), no impulse, and whether their constraint would push there.
  const int nc = model.num_contacts();
  bool any = false;
  pushing_.assign(nc, 0);
  ContactConstraintState s;
  for (int k = 0; k < nc; ++k) {
    if (model.contact_active(k)) continue;
    const Vector3 vc = model.ContactVelocity(k, v_);
    vc_.segment<3>(3 * k) = vc;
    gamma_.segment<3>(3 * k).setZero();
    model.contacts()[k].constraint.Evaluate(vc, false, &s);
    if (!(s.gamma.array() == 0.0).all()) {
      pushing_[k] = 1;
      any = true;
    }
  }
  return any;
}

int SapSolver::BringBackPushingContacts() {
  int back = 0;
  for (size_t k = 0; k < pushing_.size(); ++k) {
    if (!pushing_[k]) continue;
    active_[k] = 1;
    ++back;
  }
  model_.SetActiveContacts(active_);
  return back;
}

const std::vector<SapModel::Island>& SapSolver::SetUpIslands() {
  const SapModel& model = model_;
  const std::vector<SapModel::Island>* islands = &model.islands();
  if (!parameters_.islands && model.islands().size() > 1) {
    // One island of everything.
    merged_islands_.resize(1);
    SapModel::Island& all = merged_islands_[0];
    all.trees.clear();
    all.contacts.clear();
    all.constraints.clear();
    all.patches.clear();
    all.num_velocities = 0;
    for (int p = 0; p < model.num_trees(); ++p) {
      if (model.island_of_tree(p) < 0) continue;
      all.trees.push_back(p);
      all.num_velocities += model.size(p);
    }
    for (int k = 0; k < model.num_contacts(); ++k) {
      if (model.contact_active(k)) all.contacts.push_back(k);
    }
    for (int k = 0; k < model.num_constraints(); ++k) {
      all.constraints.push_back(k);
    }
    for (int i = 0; i < static_cast<int>(model.patches().size()); ++i) {
      all.patches.push_back(i);
    }
    islands = &merged_islands_;
  }
  island_of_tree_.assign(model.num_trees(), -1);
  for (int i = 0; i < static_cast<int>(islands->size()); ++i) {
    for (int p : (*islands)[i].trees) island_of_tree_[p] = i;
  }
  return *islands;
}

void SapSolver::InitializeIterate(const std::vector<SapModel::Island>& islands,
                                  bool from_iterate, int earlier_rounds) {
  const SapModel& model = model_;
  const int num_islands = static_cast<int>(islands.size());
  const int nc = model.num_contacts();
  const int n_rows = model.num_constraint_rows();
  island_state_.assign(num_islands, NewtonIslandState{});
  stepping_.assign(num_islands, 0);
  const int nv = model.num_velocities();
  island_predicted_.assign(num_islands, 0);
  island_rcond_.assign(num_islands, 0.0);
  island_rate_.assign(num_islands, std::numeric_limits<double>::infinity());
  for (int g = 0; g < num_groups_; ++g) groups_[g].factored = false;
  if (from_iterate) {
    // Newton goes on from v_ (contacts came back into the graph): the
    // workspaces keep their sizes and values; every island is tested anew,
    // the rounds made so far counting toward max_iterations.
    for (NewtonIslandState& st : island_state_) {
      st.earlier_iterations = earlier_rounds;
    }
    start_candidate_.assign(num_islands,
                            SapIslandStatistics::kStartFromIterate);
    return;
  }
  v_ = num_guesses_ > 0 ? gathered_guesses_[0] : model.v_star();
  r_.resize(nv);
  Ar_.resize(nv);
  jtg_.setZero(nv);
  grad_.resize(nv);
  Av_.resize(nv);
  dv_.setZero(nv);
  Adv_.resize(nv);
  vc_.resize(n_rows);
  dvc_.resize(n_rows);
  gamma_.resize(n_rows);
  // Zero, not stale: an island that is optimal at its warm start is never
  // evaluated with G, yet with kBlockSparse and kCholmod its blocks enter
  // the factorization of all islands (a previous solve's G there made it fail).
  G_.contacts.assign(nc, Matrix3::Zero());
  G_.rows.setZero(n_rows - 3 * nc);
  G_assembled_.contacts.resize(nc);
  G_assembled_.rows.resize(n_rows - 3 * nc);
  regions_.assign(nc, ProjectionRegion::kNoContact);
  predicted_stick_.assign(nc, kUnmarked);
  newton_grad_.resize(nv);
  stick_delta_.setZero(n_rows);
  jt_delta_.resize(nv);
  model.MultiplyA(model.v_star(), &Avstar_);
  // Trees outside the graph (no active contact or constraint): v = v*.
  for (int p = 0; p < model.num_trees(); ++p) {
    if (island_of_tree_[p] < 0) {
      v_.segment(model.offset(p), model.size(p)) =
          model.v_star().segment(model.offset(p), model.size(p));
    }
  }
  start_candidate_.assign(num_islands, num_guesses_ > 0 ? 0 : -1);
  if (num_guesses_ > 0 && parameters_.warm_start_at_rest &&
      rest_start_.size() != nv) {
    rest_start_.setZero(nv);
  }
  if (num_guesses_ > 0 && parameters_.warm_start_lowest_cost) {
    ChooseStarts(islands);
  }
}

double SapSolver::IslandNorm(const SapModel::Island& island,
                             const Eigen::VectorXd& x) const {
  const SapModel& model = model_;
  const Eigen::VectorXd& D = model.scaling();
  double sum = 0.0;
  for (int p : island.trees) {
    sum += D.segment(model.offset(p), model.size(p))
               .cwiseProduct(x.segment(model.offset(p), model.size(p)))
               .squaredNorm();
  }
  return std::sqrt(sum);
}

SapSolver::IslandEvaluation SapSolver::EvaluateIsland(
    const SapModel::Island& island, const Eigen::VectorXd& v,
    SapModel::ConstraintHessians* G) {
  const SapModel& model = model_;
  for (int p : island.trees) {
    const int o = model.offset(p), n = model.size(p);
    r_.segment(o, n) = v.segment(o, n) - model.v_star().segment(o, n);
  }
  model.MultiplyA(island, r_, &Ar_);
  model.MultiplyJ(island, v, &vc_);
  model.AddBias(island, &vc_);
  const double constraint_cost = model.EvaluateConstraints(
      island, vc_, &gamma_, G, G ? &regions_ : nullptr);
  model.MultiplyJTranspose(island, gamma_, &jtg_);
  double r_Ar = 0.0;
  for (int p : island.trees) {
    const int o = model.offset(p), n = model.size(p);
    grad_.segment(o, n) = Ar_.segment(o, n) - jtg_.segment(o, n);
    Av_.segment(o, n) = Ar_.segment(o, n) + Avstar_.segment(o, n);
    r_Ar += r_.segment(o, n).dot(Ar_.segment(o, n));
  }
  return IslandEvaluation{
      0.5 * r_Ar + constraint_cost,
      std::max(IslandNorm(island, Av_), IslandNorm(island, jtg_)),
      IslandNorm(island, grad_), parameters_.abs_tolerance,
      parameters_.rel_tolerance};
}

bool SapSolver::EvaluateAndDecide(const std::vector<SapModel::Island>& islands,
                                  SapSolverResults* results) {
  const int num_islands = static_cast<int>(islands.size());
  evaluation_.resize(num_islands);
  ForEachIsland(num_islands, [&](int i, int) {
    if (island_state_[i].active) {
      evaluation_[i] = EvaluateIsland(islands[i], v_, &G_);
    }
  });
  bool any_step = false;
  round_residual_ = 0.0;
  for (int i = 0; i < num_islands; ++i) {
    NewtonIslandState& st = island_state_[i];
    stepping_[i] = 0;
    if (!st.active) continue;
    const IslandEvaluation& e = evaluation_[i];
    const double before = st.relative_residual;
    const bool has_before = st.iterations > 0;
    const NewtonIslandDecision decision =
        DecideNewtonIsland(parameters_, i, num_islands, e.cost, e.residual,
                           e.scale, &st, &results->status, &results->message);
    if (decision == NewtonIslandDecision::kFail) return false;
    if (decision == NewtonIslandDecision::kDone) continue;
    // The residual ratio of the island's last iteration (infinite at its
    // first evaluation, or from a zero residual).
    island_rate_[i] = has_before && before > 0.0
                          ? st.relative_residual / before
                          : std::numeric_limits<double>::infinity();
    stepping_[i] = 1;
    any_step = true;
    round_residual_ = std::max(round_residual_, st.relative_residual);
  }
  return any_step;
}

void SapSolver::PrepareNewtonGradients(
    const std::vector<SapModel::Island>& islands, SapSolverStatistics* stats) {
  const SapModel& model = model_;
  const bool predict = PredictsStiction();
  const int num_islands = static_cast<int>(islands.size());
  island_marked_.assign(num_islands, 0);
  ForEachIsland(num_islands, [&](int i, int) {
    if (!stepping_[i]) return;
    const SapModel::Island& island = islands[i];
    for (int p : island.trees) {
      newton_grad_.segment(model.offset(p), model.size(p)) =
          grad_.segment(model.offset(p), model.size(p));
    }
    island_predicted_[i] = 0;
    if (!predict) return;
    const int marked =
        MarkPredictedStiction(model, island, island_state_[i], vc_, gamma_,
                              regions_, &predicted_stick_, &G_, &stick_delta_);
    island_state_[i].suspend_prediction = false;
    if (marked == 0) return;
    island_predicted_[i] = 1;
    island_marked_[i] = marked;
    // grad = A r - J' gamma: the marked contacts' impulses become y.
    model.MultiplyJTranspose(island, stick_delta_, &jt_delta_);
    for (int p : island.trees) {
      newton_grad_.segment(model.offset(p), model.size(p)) -=
          jt_delta_.segment(model.offset(p), model.size(p));
    }
  });
  for (int i = 0; i < num_islands; ++i) {
    stats->predicted_contacts += island_marked_[i];
  }
}

void SapSolver::SearchAlongDirections(
    const std::vector<SapModel::Island>& islands, SapSolverStatistics* stats) {
  const SapModel& model = model_;
  const bool predict = PredictsStiction();
  const int num_islands = static_cast<int>(islands.size());
  const auto t0 = Clock::now();
  double round_cost = 0.0, round_alpha = 1e300;
  int round_ls = 0;
  for (int i = 0; i < num_islands; ++i) round_cost += island_state_[i].cost;
  island_ls_.resize(num_islands);
  island_alpha_.resize(num_islands);
  ForEachIsland(num_islands, [&](int i, int) {
    if (!stepping_[i]) return;
    const SapModel::Island& island = islands[i];
    model.MultiplyA(island, dv_, &Adv_);
    model.MultiplyJ(island, dv_, &dvc_);
    // l_A(alpha) = l0 + alpha a1 + alpha^2 a2 / 2 and the scale of
    // dl/dalpha's round-off, sum_k |dvc_k' gamma_k| at alpha = 0.
    RayQuadratic quadratic{0.0, 0.0, 0.0, 0.0};
    double dcost0 = 0.0;
    for (int p : island.trees) {
      const int o = model.offset(p), n = model.size(p);
      quadratic.l0 += 0.5 * r_.segment(o, n).dot(Ar_.segment(o, n));
      quadratic.a1 += dv_.segment(o, n).dot(Ar_.segment(o, n));
      quadratic.a2 += dv_.segment(o, n).dot(Adv_.segment(o, n));
      dcost0 += dv_.segment(o, n).dot(grad_.segment(o, n));
    }
    for (int k : island.contacts) {
      quadratic.dvc_gamma0 +=
          std::abs(dvc_.segment<3>(3 * k).dot(gamma_.segment<3>(3 * k)));
    }
    for (int k : island.constraints) {
      const SapModel::ModelConstraint& m = model.constraints()[k];
      const int o = model.row_offset() + m.first_row;
      quadratic.dvc_gamma0 += dvc_.segment(o, m.rows)
                                  .cwiseProduct(gamma_.segment(o, m.rows))
                                  .cwiseAbs()
                                  .sum();
    }
    NewtonIslandState& st = island_state_[i];
    if (predict) {
      MarkReversedSlip(model, island, vc_, dvc_, regions_, &predicted_stick_);
    }
    st.last_step_predicted = island_predicted_[i] != 0;
    int ls_iterations = 0;
    double alpha = 0.0;
    if (st.last_step_predicted) {
      ++st.predicted_iterations;
      if (!(dcost0 < 0.0)) {
        // Not a descent direction of l: no step; exact Newton next.
        ++st.rejected_predictions;
        st.suspend_prediction = true;
      } else {
        alpha =
            LineSearch(island, quadratic, st.cost, dcost0, st.relative_residual,
                       island_rcond_[i], &ls_iterations);
        if (alpha < parameters_.stiction_prediction_min_step) {
          ++st.rejected_predictions;
          st.suspend_prediction = true;
        }
      }
    } else {
      alpha =
          LineSearch(island, quadratic, st.cost, dcost0, st.relative_residual,
                     island_rcond_[i], &ls_iterations);
    }
    for (int p : island.trees) {
      v_.segment(model.offset(p), model.size(p)) +=
          alpha * dv_.segment(model.offset(p), model.size(p));
    }
    ++st.iterations;
    st.last_alpha = alpha;
    st.line_search_iterations += ls_iterations;
    island_ls_[i] = ls_iterations;
    island_alpha_[i] = alpha;
  });
  for (int i = 0; i < num_islands; ++i) {
    if (!stepping_[i]) continue;
    round_ls += island_ls_[i];
    round_alpha = std::min(round_alpha, island_alpha_[i]);
  }
  stats->time_line_search += SecondsSince(t0);
  stats->cost.push_back(round_cost);
  stats->alpha.push_back(round_alpha);
  stats->scaled_residual.push_back(round_residual_);
  stats->line_search_iterations_per_newton.push_back(round_ls);
  stats->line_search_iterations += round_ls;
}

void SapSolver::PackStatistics(const std::vector<SapModel::Island>& islands,
                               SapSolverStatistics* stats) const {
  stats->islands = static_cast<int>(islands.size());
  stats->largest_island_trees = 0;
  stats->largest_island_velocities = 0;
  for (const SapModel::Island& island : islands) {
    if (island.num_velocities > stats->largest_island_velocities) {
      stats->largest_island_velocities = island.num_velocities;
      stats->largest_island_trees = static_cast<int>(island.trees.size());
    }
  }
  stats->final_cost = 0.0;
  stats->final_scaled_residual = 0.0;
  stats->island_statistics.resize(islands.size());
  for (size_t i = 0; i < islands.size(); ++i) {
    const NewtonIslandState& st = island_state_[i];
    SapIslandStatistics& is = stats->island_statistics[i];
    is.trees = static_cast<int>(islands[i].trees.size());
    is.velocities = islands[i].num_velocities;
    is.contacts = static_cast<int>(islands[i].contacts.size());
    is.newton_iterations = st.iterations;
    is.line_search_iterations = st.line_search_iterations;
    is.predicted_iterations = st.predicted_iterations;
    is.rejected_predictions = st.rejected_predictions;
    stats->predicted_iterations += st.predicted_iterations;
    stats->rejected_predictions += st.rejected_predictions;
    is.dense = !sparse_island_[i];
    is.start_candidate = start_candidate_[i];
    is.final_scaled_residual = st.relative_residual;
    is.final_cost = st.cost;
    stats->island_newton_iterations += st.iterations;
    stats->changed_hessian_blocks += st.changed_hessian_blocks;
    stats->unchanged_hessian_blocks += st.unchanged_hessian_blocks;
    stats->final_cost += st.cost;
    stats->final_scaled_residual =
        std::max(stats->final_scaled_residual, st.relative_residual);
  }
}

void SapSolver::PackResults(const SapProblem& problem,
                            SapSolverResults* results) const {
  const SapModel& model = model_;
  const int nc = model.num_contacts();
  const int n_rows = model.num_constraint_rows();
  results->delassus_estimate.resize(nc);
  results->R_n.resize(nc);
  results->R_t.resize(nc);
  results->effective_stiffness.resize(nc);
  for (int k = 0; k < nc; ++k) {
    const SapModel::ModelContact& c = model.contacts()[k];
    results->delassus_estimate(k) = c.w;
    results->R_n(k) = c.constraint.regularization().R_n;
    results->R_t(k) = c.constraint.regularization().R_t;
    results->effective_stiffness(k) = c.constraint.effective_stiffness();
  }
  StackedVStar(problem, &results->v);
  results->generalized_impulse.setZero(problem.num_velocities());
  if (n_rows > 0) {
    model.Scatter(v_, &results->v);
    results->v_c = vc_.head(3 * nc);
    results->gamma = gamma_.head(3 * nc);
    results->constraint_velocities = vc_.tail(n_rows - 3 * nc);
    results->constraint_impulses = gamma_.tail(n_rows - 3 * nc);
    model.Scatter(jtg_, &results->generalized_impulse);
    if (results->status != SapSolverStatus::kConverged &&
        !(results->v.allFinite() && vc_.allFinite() && gamma_.allFinite() &&
          results->generalized_impulse.allFinite())) {
      FallBackToFreeMotion(problem, results);
    }
  } else {
    results->v_c.resize(0);
    results->gamma.resize(0);
    results->constraint_velocities.resize(0);
    results->constraint_impulses.resize(0);
  }
}

void SapSolver::FallBackToFreeMotion(const SapProblem& problem,
                                     SapSolverResults* results) const {
  // Allocates: a failure path only.
  const SapModel& model = model_;
  const int nc = model.num_contacts();
  const int n_rows = model.num_constraint_rows();
  StackedVStar(problem, &results->v);
  Eigen::VectorXd v, v_c;
  model.Gather(results->v, &v);
  model.MultiplyJ(v, &v_c);
  model.AddBias(&v_c);
  v_c = v_c.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
  results->v_c = v_c.head(3 * nc);
  results->constraint_velocities = v_c.tail(n_rows - 3 * nc);
  results->gamma.setZero(3 * nc);
  results->constraint_impulses.setZero(n_rows - 3 * nc);
  results->generalized_impulse.setZero(problem.num_velocities());
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
  model.AddBias(&out.v_c);
  model.EvaluateConstraints(out.v_c, &out.gamma, nullptr);
  model.MultiplyJTranspose(out.gamma, &jtg);
  out.generalized_impulse = Eigen::VectorXd::Zero(v.size());
  model.Scatter(jtg, &out.generalized_impulse);
  return out;
}

}  // namespace sapcontact
