#include "sapcontact/solver/sap/sap_solver.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sapcontact/solver/linear_algebra/cholesky_condition_estimate.h"
#include "sapcontact/solver/sap/line_search.h"
#include "sapcontact/solver/sap/newton_island.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

// Stiction prediction (docs/theory.md §16): marked contacts still sliding
// after a predicted step of at least this alpha are released (measured on
// the sphere piles and the clutter: 0.9 to 1 alike, 0.5 ~10% more
// iterations).
constexpr double kStictionReleaseStep = 0.95;

// Stiction prediction's state of a contact (SapSolver::predicted_stick_):
// reversed by the last direction, to enter the next Newton system; in the
// system of the last direction; in it, and still sliding at that
// direction's full step.
enum : char {
  kUnmarked = 0,
  kMarked = 1,
  kPredicted = 2,
  kSlidesAtFullStep = 3,
};

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

double SapSolver::LineSearch(const SapModel& model,
                             const SapModel::Island& island, double cost0,
                             double dcost0, double relative_residual,
                             double rcond, int* iterations) {
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
      parameters_, RayQuadratic{lA0_, a1_, a2_, dvc_gamma0_}, cost0, dcost0,
      LineSearchSlopeRatio(parameters_, relative_residual, rcond), constraints,
      iterations);
}

bool SapSolver::SolveDenseIsland(const SapModel& model,
                                 const SapModel::Island& island,
                                 double* rcond) {
  const int n = island.num_velocities;
  if (island.trees.size() == 1 && n == 6) {
    // One free body: fixed-size LLT (the general path's dynamic LLT and
    // condition estimate cost ~5 times more).
    using Matrix6 = Eigen::Matrix<double, 6, 6>;
    using Vector6 = Eigen::Matrix<double, 6, 1>;
    const int p = island.trees[0];
    const Matrix6 H = H_.diagonal_block(p);
    for (int j = 0; j < 6; ++j) {
      if (!H.col(j).tail(6 - j).allFinite()) return false;
    }
    const Eigen::LLT<Matrix6> llt(H);
    if (llt.info() != Eigen::Success) return false;
    *rcond = llt.rcond();
    dv_.segment<6>(model.offset(p)) =
        llt.solve(Vector6(-newton_grad_.segment<6>(model.offset(p))));
    return true;
  }
  // The island's Hessian as a dense matrix (lower triangle) from the blocks
  // of H_, in the island's tree order, in storage kept at the largest size
  // seen (islands of different sizes take turns: no allocation) and
  // factored in place.
  const size_t entries = static_cast<size_t>(n) * n;
  if (dense_storage_.size() < entries) dense_storage_.resize(entries);
  if (dense_rhs_storage_.size() < static_cast<size_t>(4 * n)) {
    dense_rhs_storage_.resize(4 * n);  // the right-hand side, 3 n workspace
  }
  Eigen::Map<Eigen::MatrixXd> dense_H(dense_storage_.data(), n, n);
  Eigen::Map<Eigen::VectorXd> rhs(dense_rhs_storage_.data(), n);
  dense_H.setZero();  // blocks between unlinked trees stay zero
  int offset = 0;
  // Island-local offsets of the island's trees (few: a linear search).
  auto local_offset = [&](int p) {
    int o = 0;
    for (int q : island.trees) {
      if (q == p) return o;
      o += model.size(q);
    }
    return -1;
  };
  for (int p : island.trees) {
    const int np = model.size(p);
    dense_H.block(offset, offset, np, np) = H_.diagonal_block(p);
    rhs.segment(offset, np) = -newton_grad_.segment(model.offset(p), np);
    offset += np;
  }
  for (int patch_index : island.patches) {
    const SapModel::Patch& patch = model.patches()[patch_index];
    if (patch.off_diagonal_block < 0) continue;
    const int oi = local_offset(patch.tree_i), oj = local_offset(patch.tree_j);
    dense_H.block(oi, oj, model.size(patch.tree_i), model.size(patch.tree_j)) =
        H_.off_diagonal_block(patch.off_diagonal_block);
  }
  // Eigen's LLT accepts NaN pivots: reject non-finite input explicitly.
  for (int j = 0; j < n; ++j) {
    if (!dense_H.col(j).tail(n - j).allFinite()) return false;
  }
  const double l1_norm = SymmetricL1Norm(dense_H);
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(dense_H);
  if (llt.info() != Eigen::Success) return false;
  // Eigen's LLT::rcond() estimate, without its temporaries.
  *rcond = CholeskyReciprocalCondition(dense_H, l1_norm,
                                       dense_rhs_storage_.data() + n);
  llt.solveInPlace(rhs);
  offset = 0;
  for (int p : island.trees) {
    dv_.segment(model.offset(p), model.size(p)) =
        rhs.segment(offset, model.size(p));
    offset += model.size(p);
  }
  return true;
}

bool SapSolver::SolveSparseGroup(const SapModel& model, double* rcond) {
  const BlockSparseSymmetricMatrix* H = &H_;
  if (!group_is_everything_) {
    for (size_t g = 0; g < group_trees_.size(); ++g) {
      H_group_.diagonal_block(static_cast<int>(g)) =
          H_.diagonal_block(group_trees_[g]);
    }
    for (size_t b = 0; b < group_off_diagonal_source_.size(); ++b) {
      H_group_.off_diagonal_block(static_cast<int>(b)) =
          H_.off_diagonal_block(group_off_diagonal_source_[b]);
    }
    H = &H_group_;
  }
  if (!factorization_->Factor(*H)) return false;
  *rcond = factorization_->ReciprocalConditionEstimate();
  // Right-hand side: -grad (with stiction prediction's impulses, §16) on the
  // stepping islands' trees, 0 on the others
  // (islands do not couple, so their dv is exactly 0).
  rhs_.setZero(H->size());
  int offset = 0;
  for (int p : group_trees_) {
    if (stepping_[island_of_tree_[p]]) {
      rhs_.segment(offset, model.size(p)) =
          -newton_grad_.segment(model.offset(p), model.size(p));
    }
    offset += model.size(p);
  }
  // dv, then one step of iterative refinement (docs/theory.md §8): the
  // Newton steps of stiff contact (R ~ sigma w) solve systems with cond(H)
  // up to ~1e10, and the step's accuracy bounds the converged impulses'.
  // Refined only when the unrefined solve's relative round-off, about
  // eps / rcond, comes within a factor 100 of the requested relative
  // tolerance; else it cannot change what the stopping test sees.
  const double eps = std::numeric_limits<double>::epsilon();
  if (eps > 1e-2 * parameters_.rel_tolerance * *rcond) {
    refine_rhs_ = rhs_;
    factorization_->SolveInPlace(&rhs_);
    H->Multiply(rhs_, &refine_product_);
    refine_rhs_ -= refine_product_;
    factorization_->SolveInPlace(&refine_rhs_);
    rhs_ += refine_rhs_;
  } else {
    factorization_->SolveInPlace(&rhs_);
  }
  offset = 0;
  for (int p : group_trees_) {
    if (stepping_[island_of_tree_[p]]) {
      dv_.segment(model.offset(p), model.size(p)) =
          rhs_.segment(offset, model.size(p));
    }
    offset += model.size(p);
  }
  return true;
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

  // The caller's results object is refilled (its vectors keep their
  // storage: no allocation per step once the sizes stop growing).
  SapSolverResults& results = *results_out;
  results.message.clear();
  SapSolverStatistics& stats = results.statistics;
  ResetKeepingStorage(&stats);
  model_.Build(problem, parameters_.regularization);
  const SapModel& model = model_;
  stats.time_model = Seconds(t_start);
  stats.participating_trees = model.num_trees();
  stats.participating_velocities = model.num_velocities();
  stats.patches = static_cast<int>(model.patches().size());
  const int nc = model.num_contacts();
  const int n_rows = model.num_constraint_rows();
  // The islands, or one island of everything (parameters_.islands false).
  std::vector<SapModel::Island> merged;
  if (!parameters_.islands && model.islands().size() > 1) {
    merged.resize(1);
    for (int p = 0; p < model.num_trees(); ++p) merged[0].trees.push_back(p);
    for (int k = 0; k < model.num_contacts(); ++k) {
      merged[0].contacts.push_back(k);
    }
    for (int k = 0; k < model.num_constraints(); ++k) {
      merged[0].constraints.push_back(k);
    }
    for (int i = 0; i < static_cast<int>(model.patches().size()); ++i) {
      merged[0].patches.push_back(i);
    }
    merged[0].num_velocities = model.num_velocities();
  }
  const std::vector<SapModel::Island>& islands =
      merged.empty() ? model.islands() : merged;
  const int num_islands = static_cast<int>(islands.size());
  island_of_tree_.assign(model.num_trees(), 0);
  for (int i = 0; i < num_islands; ++i) {
    for (int p : islands[i].trees) island_of_tree_[p] = i;
  }
  stats.islands = num_islands;

  double t_assembly = 0, t_factor = 0, t_line = 0;
  results.status = SapSolverStatus::kConverged;
  if (n_rows > 0) {
    // Factorization plan: with kAuto, islands up to dense_size_threshold
    // DOFs, and islands of one tree (a dense block: nothing for a sparse
    // factorization to exploit), are factored on their own (dense LLT), the
    // other ones together in one sparse factorization (the block Cholesky);
    // kDense: every island on its own; kBlockSparse and kCholmod: all in
    // the sparse group, factored by the block Cholesky or CHOLMOD.
    sparse_island_.assign(num_islands, 0);
    for (int i = 0; i < num_islands; ++i) {
      const LinearSolverType type = parameters_.linear_solver;
      sparse_island_[i] =
          type == LinearSolverType::kCholmod ||
          type == LinearSolverType::kBlockSparse ||
          (type == LinearSolverType::kAuto &&
           islands[i].num_velocities > parameters_.dense_size_threshold &&
           islands[i].trees.size() > 1);
    }
    group_trees_.clear();
    for (int p = 0; p < model.num_trees(); ++p) {
      if (sparse_island_[island_of_tree_[p]]) group_trees_.push_back(p);
    }
    group_is_everything_ =
        static_cast<int>(group_trees_.size()) == model.num_trees();
    if (H_.pattern() != model.pattern()) {
      H_ = BlockSparseSymmetricMatrix(model.pattern());
    }
    int symbolic_start = 0;
    if (!group_trees_.empty()) {
      // The group's factorization: CHOLMOD when asked for, else the block
      // Cholesky on the tree graph.
      const bool use_cholmod =
          parameters_.linear_solver == LinearSolverType::kCholmod;
      if (!factorization_ ||
          (factorization_->type() == LinearSolverType::kCholmod) !=
              use_cholmod ||
          (use_cholmod && factorization_kind_ != parameters_.cholmod_factor)) {
        factorization_ = use_cholmod ? MakeCholmodHessianFactorizationOfKind(
                                           parameters_.cholmod_factor)
                                     : MakeBlockSparseCholeskyFactorization();
        factorization_kind_ = parameters_.cholmod_factor;
      }
      symbolic_start = factorization_->statistics().symbolic_analyses;
      if (!group_is_everything_) {
        // The group's sub-pattern, trees renumbered in order.
        std::vector<int> local(model.num_trees(), -1), sizes;
        for (size_t g = 0; g < group_trees_.size(); ++g) {
          local[group_trees_[g]] = static_cast<int>(g);
          sizes.push_back(model.size(group_trees_[g]));
        }
        std::vector<std::pair<int, int>> off;
        group_off_diagonal_source_.clear();
        const auto& blocks = model.pattern().off_diagonal_blocks();
        for (size_t b = 0; b < blocks.size(); ++b) {
          if (local[blocks[b].first] >= 0) {
            off.emplace_back(local[blocks[b].first], local[blocks[b].second]);
            group_off_diagonal_source_.push_back(static_cast<int>(b));
          }
        }
        BlockSparsityPattern group_pattern(std::move(sizes), std::move(off));
        if (H_group_.pattern() != group_pattern) {
          H_group_ = BlockSparseSymmetricMatrix(group_pattern);
        }
      }
    }

    std::vector<NewtonIslandState>& state = island_state_;
    state.assign(num_islands, NewtonIslandState{});
    stepping_.assign(num_islands, 0);

    const Eigen::VectorXd& D = model.scaling();
    const int num_guesses = static_cast<int>(guesses.size());
    if (num_guesses > 0) {
      model.Gather(*guesses[0], &v_);
    } else {
      v_ = model.v_star();
    }
    const int nv = model.num_velocities();
    r_.resize(nv);
    Ar_.resize(nv);
    jtg_.resize(nv);
    grad_.resize(nv);
    Av_.resize(nv);
    dv_.setZero(nv);
    Adv_.resize(nv);
    vc_.resize(n_rows);
    dvc_.resize(n_rows);
    gamma_.resize(n_rows);
    // Zero, not stale: an island that is optimal at its warm start is never
    // evaluated with G, yet its blocks enter the sparse group's
    // factorization (a previous solve's G there made it fail).
    G_.contacts.assign(nc, Matrix3::Zero());
    G_.rows.setZero(n_rows - 3 * nc);
    regions_.assign(nc, ProjectionRegion::kNoContact);
    predicted_stick_.assign(nc, kUnmarked);
    island_predicted_.assign(num_islands, 0);
    island_rcond_.assign(num_islands, 0.0);
    newton_grad_.resize(nv);
    stick_delta_.setZero(n_rows);
    jt_delta_.resize(nv);
    model.MultiplyA(model.v_star(), &Avstar_);
    // Squared D-norm of x over an island's trees.
    auto island_norm = [&](const SapModel::Island& island,
                           const Eigen::VectorXd& x) {
      double sum = 0.0;
      for (int p : island.trees) {
        sum += D.segment(model.offset(p), model.size(p))
                   .cwiseProduct(x.segment(model.offset(p), model.size(p)))
                   .squaredNorm();
      }
      return std::sqrt(sum);
    };
    // At v on an island: r = v - v*, A r, v_c, gamma (and G), J' gamma, the
    // gradient A r - J' gamma and A v into the workspaces; returns the cost
    // l(v) and the stopping test's norms (§7).
    struct IslandEvaluation {
      double cost, scale, residual, abs_tolerance, rel_tolerance;
      bool optimal() const {
        return residual <= abs_tolerance + rel_tolerance * scale;
      }
      double relative_residual() const {
        return scale > 0 ? residual / scale : residual;
      }
    };
    auto evaluate_island = [&](const SapModel::Island& island,
                               const Eigen::VectorXd& v,
                               SapModel::ConstraintHessians* G) {
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
          std::max(island_norm(island, Av_), island_norm(island, jtg_)),
          island_norm(island, grad_), parameters_.abs_tolerance,
          parameters_.rel_tolerance};
    };
    start_candidate_.assign(num_islands, num_guesses > 0 ? 0 : -1);
    if (num_guesses > 0 && parameters_.warm_start_lowest_cost) {
      // Per island: the lowest cost l(v) among v* (where the quadratic term
      // vanishes) and the guesses.
      if (static_cast<int>(gathered_guesses_.size()) < num_guesses) {
        gathered_guesses_.resize(num_guesses);
      }
      for (int g = 0; g < num_guesses; ++g) {
        model.Gather(*guesses[g], &gathered_guesses_[g]);
      }
      // The cost l(v) on an island, and whether v already meets the
      // stopping test of the Newton loop below (then it costs no
      // factorization, whatever the other candidates cost).
      // Optimal beats not optimal, then the lower cost wins.
      auto better = [](const IslandEvaluation& a, const IslandEvaluation& b) {
        return a.optimal() != b.optimal() ? a.optimal() : a.cost < b.cost;
      };
      for (int i = 0; i < num_islands; ++i) {
        const SapModel::Island& island = islands[i];
        // Guesses in the caller's order; the first optimal one ends the
        // search (resting islands: one evaluation), v* comes last.
        int best = 0;
        IslandEvaluation best_start =
            evaluate_island(island, gathered_guesses_[0], nullptr);
        for (int g = 1; g < num_guesses && !best_start.optimal(); ++g) {
          const IslandEvaluation e =
              evaluate_island(island, gathered_guesses_[g], nullptr);
          if (better(e, best_start)) {
            best = g;
            best_start = e;
          }
        }
        if (best_start.optimal()) {
          // Converged at the start: the workspaces (v_c, gamma, gradient)
          // hold this island's last evaluation, which was this guess's.
          state[i].active = false;
          state[i].cost = best_start.cost;
          state[i].relative_residual = best_start.relative_residual();
        } else if (better(evaluate_island(island, model.v_star(), nullptr),
                          best_start)) {
          best = -1;
        }
        start_candidate_[i] = best;
        const Eigen::VectorXd& start =
            best < 0 ? model.v_star() : gathered_guesses_[best];
        for (int p : island.trees) {
          const int o = model.offset(p), n = model.size(p);
          v_.segment(o, n) = start.segment(o, n);
        }
      }
    }
    const double min_rcond = parameters_.min_reciprocal_condition;
    // Stiction prediction (§16) relies on the exact line search to find how
    // far its direction pays; the backtracking search keeps exact Newton.
    const bool predict = parameters_.stiction_prediction &&
                         parameters_.line_search == LineSearchType::kExact;

    bool failed = false;
    for (int round = 0; !failed; ++round) {
      // Gradient, cost and convergence of every island still iterating.
      bool any_step = false;
      double round_residual = 0.0;
      for (int i = 0; i < num_islands && !failed; ++i) {
        NewtonIslandState& st = state[i];
        stepping_[i] = 0;
        if (!st.active) continue;
        const SapModel::Island& island = islands[i];
        const IslandEvaluation e = evaluate_island(island, v_, &G_);
        const NewtonIslandDecision decision =
            DecideNewtonIsland(parameters_, i, num_islands, e.cost, e.residual,
                               e.scale, &st, &results.status, &results.message);
        if (decision == NewtonIslandDecision::kFail) {
          failed = true;
          break;
        }
        if (decision == NewtonIslandDecision::kDone) continue;
        stepping_[i] = 1;
        any_step = true;
        round_residual = std::max(round_residual, st.relative_residual);
      }
      if (failed || !any_step) break;

      // Stiction prediction (docs/theory.md §16): contacts whose slip the
      // last direction reversed and that still slide enter this Newton
      // system with their stiction model (impulse y, Hessian block R^-1).
      for (int i = 0; i < num_islands; ++i) {
        if (!stepping_[i]) continue;
        const SapModel::Island& island = islands[i];
        for (int p : island.trees) {
          newton_grad_.segment(model.offset(p), model.size(p)) =
              grad_.segment(model.offset(p), model.size(p));
        }
        island_predicted_[i] = 0;
        if (!predict) continue;
        int marked = 0;
        // A contact of the last predicted system that still slides after
        // that step was taken (nearly) in full, and would still have slid
        // at its full step, was predicted wrongly: released. (One that
        // would have stuck at the full step is only short of its band by
        // the step's 1 - alpha: it stays.)
        const bool release = state[i].last_step_predicted &&
                             state[i].last_alpha >= kStictionReleaseStep;
        for (int k : island.contacts) {
          if (predicted_stick_[k] != kUnmarked &&
              !state[i].suspend_prediction &&
              !(release && predicted_stick_[k] == kSlidesAtFullStep) &&
              regions_[k] == ProjectionRegion::kSliding) {
            predicted_stick_[k] = kPredicted;
            Vector3 y;
            model.contacts()[k].constraint.EvaluateAsStiction(
                vc_.segment<3>(3 * k), &y, &G_.contacts[k]);
            stick_delta_.segment<3>(3 * k) = y - gamma_.segment<3>(3 * k);
            ++marked;
          } else {
            predicted_stick_[k] = kUnmarked;
            stick_delta_.segment<3>(3 * k).setZero();
          }
        }
        state[i].suspend_prediction = false;
        if (marked == 0) continue;
        island_predicted_[i] = 1;
        stats.predicted_contacts += marked;
        // grad = A r - J' gamma: the marked contacts' impulses become y.
        model.MultiplyJTranspose(island, stick_delta_, &jt_delta_);
        for (int p : island.trees) {
          newton_grad_.segment(model.offset(p), model.size(p)) -=
              jt_delta_.segment(model.offset(p), model.size(p));
        }
      }

      // Newton directions dv = -H^-1 grad: stepping dense islands one by
      // one, the sparse group once if any of its islands steps (all its
      // islands' blocks assembled: the factorization needs them).
      auto t0 = Clock::now();
      bool group_steps = false;
      for (int i = 0; i < num_islands; ++i) {
        if (sparse_island_[i]) group_steps = group_steps || stepping_[i];
      }
      for (int i = 0; i < num_islands; ++i) {
        if (stepping_[i] || (group_steps && sparse_island_[i])) {
          model.AssembleHessian(islands[i], G_, &H_);
        }
      }
      t_assembly += Seconds(t0);
      t0 = Clock::now();
      double round_rcond = std::numeric_limits<double>::infinity();
      for (int i = 0; i < num_islands && !failed; ++i) {
        if (!stepping_[i] || sparse_island_[i]) continue;
        double rcond = 0.0;
        ++stats.factorizations;
        if (!SolveDenseIsland(model, islands[i], &rcond)) {
          results.status = SapSolverStatus::kFactorizationFailed;
          results.message = "island " + std::to_string(i) +
                            ": the Hessian A + J'GJ is not numerically "
                            "positive definite at Newton iteration " +
                            std::to_string(state[i].iterations);
          failed = true;
        }
        round_rcond = std::min(round_rcond, rcond);
        island_rcond_[i] = rcond;
      }
      if (!failed && group_steps) {
        double rcond = 0.0;
        ++stats.factorizations;
        if (!SolveSparseGroup(model, &rcond)) {
          results.status = SapSolverStatus::kFactorizationFailed;
          results.message =
              "the Hessian A + J'GJ is not numerically positive definite at "
              "Newton iteration " +
              std::to_string(round);
          failed = true;
        }
        round_rcond = std::min(round_rcond, rcond);
        for (int i = 0; i < num_islands; ++i) {
          if (sparse_island_[i]) island_rcond_[i] = rcond;
        }
      }
      t_factor += Seconds(t0);
      ++stats.newton_iterations;
      if (failed) break;
      stats.reciprocal_condition = round_rcond;
      bool dv_finite = true;
      for (int i = 0; i < num_islands; ++i) {
        if (!stepping_[i]) continue;
        for (int p : islands[i].trees) {
          dv_finite = dv_finite &&
                      dv_.segment(model.offset(p), model.size(p)).allFinite();
        }
      }
      if (round_rcond < min_rcond || !dv_finite) {
        results.status = SapSolverStatus::kIllConditioned;
        std::ostringstream os;
        os << "the Hessian A + J'GJ is too ill-conditioned to trust the "
              "impulses (reciprocal condition estimate "
           << round_rcond << " < " << min_rcond
           << "); use a near-rigid threshold beta > 0 or a softer contact";
        results.message = os.str();
        break;
      }

      // Line search along dv, island by island.
      t0 = Clock::now();
      double round_cost = 0.0, round_alpha = 1e300;
      int round_ls = 0;
      for (int i = 0; i < num_islands; ++i) round_cost += state[i].cost;
      for (int i = 0; i < num_islands; ++i) {
        if (!stepping_[i]) continue;
        const SapModel::Island& island = islands[i];
        model.MultiplyA(island, dv_, &Adv_);
        model.MultiplyJ(island, dv_, &dvc_);
        lA0_ = a1_ = a2_ = 0.0;
        double dcost0 = 0.0;
        for (int p : island.trees) {
          const int o = model.offset(p), n = model.size(p);
          lA0_ += 0.5 * r_.segment(o, n).dot(Ar_.segment(o, n));
          a1_ += dv_.segment(o, n).dot(Ar_.segment(o, n));
          a2_ += dv_.segment(o, n).dot(Adv_.segment(o, n));
          dcost0 += dv_.segment(o, n).dot(grad_.segment(o, n));
        }
        dvc_gamma0_ = 0.0;
        for (int k : island.contacts) {
          dvc_gamma0_ +=
              std::abs(dvc_.segment<3>(3 * k).dot(gamma_.segment<3>(3 * k)));
        }
        for (int k : island.constraints) {
          const SapModel::ModelConstraint& m = model.constraints()[k];
          const int o = model.row_offset() + m.first_row;
          dvc_gamma0_ += dvc_.segment(o, m.rows)
                             .cwiseProduct(gamma_.segment(o, m.rows))
                             .cwiseAbs()
                             .sum();
        }
        NewtonIslandState& st = state[i];
        if (predict) {
          // Mark the sliding contacts whose slip this direction reverses at
          // the full step (§16); note the predicted ones that would still
          // slide at the full step.
          for (int k : island.contacts) {
            if (predicted_stick_[k] == kPredicted) {
              ContactConstraintState full;
              model.contacts()[k].constraint.Evaluate(
                  vc_.segment<3>(3 * k) + dvc_.segment<3>(3 * k), false, &full);
              if (full.region == ProjectionRegion::kSliding) {
                predicted_stick_[k] = kSlidesAtFullStep;
              }
              continue;
            }
            if (regions_[k] != ProjectionRegion::kSliding ||
                predicted_stick_[k] != kUnmarked) {
              continue;
            }
            const auto v_t = vc_.segment<2>(3 * k + kTangent1);
            if (v_t.dot(v_t + dvc_.segment<2>(3 * k + kTangent1)) < 0.0) {
              predicted_stick_[k] = kMarked;
            }
          }
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
                LineSearch(model, island, st.cost, dcost0, st.relative_residual,
                           island_rcond_[i], &ls_iterations);
            if (alpha < parameters_.stiction_prediction_min_step) {
              ++st.rejected_predictions;
              st.suspend_prediction = true;
            }
          }
        } else {
          alpha =
              LineSearch(model, island, st.cost, dcost0, st.relative_residual,
                         island_rcond_[i], &ls_iterations);
        }
        for (int p : island.trees) {
          v_.segment(model.offset(p), model.size(p)) +=
              alpha * dv_.segment(model.offset(p), model.size(p));
        }
        ++st.iterations;
        st.last_alpha = alpha;
        st.line_search_iterations += ls_iterations;
        round_ls += ls_iterations;
        round_alpha = std::min(round_alpha, alpha);
      }
      t_line += Seconds(t0);
      stats.cost.push_back(round_cost);
      stats.alpha.push_back(round_alpha);
      stats.scaled_residual.push_back(round_residual);
      stats.line_search_iterations_per_newton.push_back(round_ls);
      stats.line_search_iterations += round_ls;
    }
    if (factorization_ && !group_trees_.empty()) {
      stats.symbolic_analyses =
          factorization_->statistics().symbolic_analyses - symbolic_start;
    }
    stats.final_cost = 0.0;
    stats.final_scaled_residual = 0.0;
    stats.island_statistics.resize(num_islands);
    for (int i = 0; i < num_islands; ++i) {
      SapIslandStatistics& is = stats.island_statistics[i];
      is.trees = static_cast<int>(islands[i].trees.size());
      is.velocities = islands[i].num_velocities;
      is.contacts = static_cast<int>(islands[i].contacts.size());
      is.newton_iterations = state[i].iterations;
      is.line_search_iterations = state[i].line_search_iterations;
      is.predicted_iterations = state[i].predicted_iterations;
      is.rejected_predictions = state[i].rejected_predictions;
      stats.predicted_iterations += state[i].predicted_iterations;
      stats.rejected_predictions += state[i].rejected_predictions;
      is.dense = !sparse_island_[i];
      is.start_candidate = start_candidate_[i];
      is.final_scaled_residual = state[i].relative_residual;
      is.final_cost = state[i].cost;
      stats.island_newton_iterations += state[i].iterations;
      stats.final_cost += state[i].cost;
      stats.final_scaled_residual =
          std::max(stats.final_scaled_residual, state[i].relative_residual);
    }
  }

  // Results in the user's order.
  results.delassus_estimate.resize(nc);
  results.R_n.resize(nc);
  results.R_t.resize(nc);
  results.effective_stiffness.resize(nc);
  for (int k = 0; k < nc; ++k) {
    const SapModel::ModelContact& c = model.contacts()[k];
    results.delassus_estimate(k) = c.w;
    results.R_n(k) = c.constraint.regularization().R_n;
    results.R_t(k) = c.constraint.regularization().R_t;
    results.effective_stiffness(k) = c.constraint.effective_stiffness();
  }
  StackedVStar(problem, &results.v);
  results.generalized_impulse.setZero(nv_full);
  if (n_rows > 0) {
    model.Scatter(v_, &results.v);
    results.v_c = vc_.head(3 * nc);
    results.gamma = gamma_.head(3 * nc);
    results.constraint_velocities = vc_.tail(n_rows - 3 * nc);
    results.constraint_impulses = gamma_.tail(n_rows - 3 * nc);
    model.Scatter(jtg_, &results.generalized_impulse);
  } else {
    results.v_c.resize(0);
    results.gamma.resize(0);
    results.constraint_velocities.resize(0);
    results.constraint_impulses.resize(0);
  }
  stats.time_assembly = t_assembly;
  stats.time_factorization = t_factor;
  stats.time_line_search = t_line;
  stats.time_total = Seconds(t_start);
  stats.time_other =
      stats.time_total - stats.time_model - t_assembly - t_factor - t_line;
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
