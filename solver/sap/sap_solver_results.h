// Results and statistics of one SAP solve, in the user's order (trees and
// contacts as in the SapProblem). Ordering and signs of per-contact
// components: contact_model/conventions.h.
#pragma once

#include <Eigen/Core>
#include <chrono>
#include <string>
#include <vector>

namespace sapcontact {

/// Wall-clock seconds from `since` to now (the statistics' time_* fields).
inline double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

enum class SapSolverStatus {
  kConverged,            ///< Optimality criterion met (or stalled within it).
  kMaxIterations,        ///< Not converged within max_iterations.
  kStalled,              ///< Cost stalled at round-off far from optimality.
  kIllConditioned,       ///< Hessian too ill-conditioned to trust the step.
  kFactorizationFailed,  ///< Hessian not numerically positive definite.
};

/// Human-readable name of a status.
const char* ToString(SapSolverStatus status);

/// One island of a solve: a connected component of the participating trees
/// linked by contacts (docs/theory.md §8), solved as its own Newton problem.
struct SapIslandStatistics {
  int trees{0};
  int velocities{0};
  int contacts{0};
  /// Newton iterations this island took (its own count).
  int newton_iterations{0};
  int line_search_iterations{0};
  /// Of these, iterations whose direction used stiction prediction
  /// (docs/theory.md §16), and those rejected (not a descent direction, or
  /// alpha below stiction_prediction_min_step).
  int predicted_iterations{0};
  int rejected_predictions{0};
  /// Factored on its own with a dense LLT (else by a sparse factorization,
  /// its own or, with kBlockSparse and kCholmod, all islands' together).
  bool dense{false};
  /// Where Newton started: -1 at v*, g >= 0 at the caller's guess g
  /// (SapSolver::SolveFromCandidates; SapSolverParameters::
  /// warm_start_lowest_cost), kStartAtRest at v = 0
  /// (warm_start_at_rest), kStartFromIterate where Newton went on after
  /// left-out contacts came back.
  int start_candidate{-1};
  static constexpr int kStartFromIterate = -2;
  static constexpr int kStartAtRest = -3;
  /// Scaled residual (relative) and cost [J] at the end.
  double final_scaled_residual{0.0};
  double final_cost{0.0};
};

struct SapSolverStatistics {
  /// Newton rounds: in each, every island not yet converged takes one Newton
  /// step (its own direction, line search and convergence test). Equal to
  /// the most iterations any island needed; with one island, its Newton
  /// iterations.
  int newton_iterations{0};
  /// Newton iterations summed over the islands (the work done).
  int island_newton_iterations{0};
  /// Hessian factorizations performed: one per stepping island per round
  /// (with kBlockSparse and kCholmod, one per round for all the islands
  /// together when any of them steps; none for a stale step,
  /// factor_reuse_rate).
  int factorizations{0};
  /// Low-rank updates and downdates applied to a kept factorization instead
  /// of factoring again (each a rank-1 modification of the factor).
  int low_rank_updates{0};
  /// What a low-rank update of the island's previous factorization would
  /// have had to apply instead of each factorization after an island's
  /// first in the solve: the contacts and constraint rows whose Hessian
  /// block G changed since that factorization (a contact's 3 x 3 G: rank
  /// up to 3 each), and those whose G did not change.
  int changed_hessian_blocks{0};
  int unchanged_hessian_blocks{0};
  /// Islands of the participating trees (0 without contacts), and each
  /// one's statistics in order of its first tree; the largest island's
  /// trees and velocities.
  int islands{0};
  std::vector<SapIslandStatistics> island_statistics;
  int largest_island_trees{0};
  int largest_island_velocities{0};
  /// The problem's contacts by their signed distance at the start of the
  /// step: penetrating (phi0 < 0) and speculative (phi0 >= 0); of the
  /// speculative ones, those left out of the contact graph at the solution
  /// (no impulse: SapSolverParameters::exclude_separated_contacts), and
  /// those brought back into it because they would have pushed.
  int penetrating_contacts{0};
  int speculative_contacts{0};
  int excluded_contacts{0};
  int reincluded_contacts{0};
  /// Stiction prediction (docs/theory.md §16), summed over the islands:
  /// Newton iterations whose direction used it, contacts modeled as sticking
  /// in them (summed over those iterations), and predicted steps rejected
  /// (followed by an exact Newton step).
  int predicted_iterations{0};
  int predicted_contacts{0};
  int rejected_predictions{0};
  /// Line-search iterations (evaluations of the cost along a direction),
  /// total over the solve and over the islands.
  int line_search_iterations{0};
  /// Per Newton round k = 0..: the cost l(v_k) before the step [J] (all
  /// islands), the smallest step size alpha_k accepted by a stepping island,
  /// the largest scaled residual ||D grad|| / max(||D A v||, ||D J' gamma||)
  /// of a stepping island (norms over the island), and the line-search
  /// iterations of the round.
  std::vector<double> cost;
  std::vector<double> alpha;
  std::vector<double> scaled_residual;
  std::vector<int> line_search_iterations_per_newton;
  /// Final scaled residual (relative; the largest over the islands) and
  /// cost [J] (all islands).
  double final_scaled_residual{0.0};
  double final_cost{0.0};
  /// Reciprocal condition estimate of the last factored Hessian (the
  /// smallest over the factorizations of the last round; 0 if none).
  double reciprocal_condition{0.0};
  /// Sparse symbolic analyses performed during this solve (0 when the
  /// previous analysis was reused, or on the dense path).
  int symbolic_analyses{0};
  int participating_trees{0};
  int participating_velocities{0};
  int patches{0};
  /// Wall time per phase [s]: model construction, Hessian assembly,
  /// factorization (and solve), line search, everything else.
  double time_model{0.0};
  double time_assembly{0.0};
  double time_factorization{0.0};
  double time_line_search{0.0};
  double time_other{0.0};
  double time_total{0.0};
};

/// Every vector is finite, whatever the status: when a failed solve's last
/// iterate is not (inputs so large that the cost overflows, status
/// kFactorizationFailed "non-finite cost or gradient"), the results are
/// v = v* with zero impulses and the velocities of v* (0 where even they
/// overflow).
struct SapSolverResults {
  SapSolverStatus status{SapSolverStatus::kMaxIterations};
  /// Explanation when status != kConverged.
  std::string message;
  /// Generalized velocities of all trees, stacked in problem order [m/s,
  /// rad/s per DOF]; trees without contact or constraint get v = v*.
  Eigen::VectorXd v;
  /// Impulses gamma (3 per contact, contact-major) [N*s].
  Eigen::VectorXd gamma;
  /// Constraint velocities v_c = J v (3 per contact) [m/s].
  Eigen::VectorXd v_c;
  /// Rows of the limit, holonomic and actuation constraints (problem order:
  /// limits, then holonomic, then actuation; rows stacked): their
  /// velocities J_i v [m/s or rad/s] and impulses [N*s or N m s] (an
  /// actuation row's impulse is dt times its effort).
  Eigen::VectorXd constraint_velocities;
  Eigen::VectorXd constraint_impulses;
  /// Generalized impulse of all contacts and constraints, J' gamma (size of
  /// v): A (v - v*) = J' gamma at the solution.
  Eigen::VectorXd generalized_impulse;
  /// Per contact: the Delassus estimate w_k [1/kg] and the regularization
  /// R_n, R_t [(m/s)/(N*s)] used this step (contact_model/regularization.h).
  /// For the Hunt-Crossley models R_n is 1 / (dt^2 k_eff), the inverse of
  /// the normal Hessian entry of an undamped contact at v_n = 0.
  Eigen::VectorXd delassus_estimate;
  Eigen::VectorXd R_n;
  Eigen::VectorXd R_t;
  /// Per contact: the effective normal stiffness k_eff [N/m] this step, after
  /// the near-rigid floor (docs/theory.md §5, §18): 1 / (dt (dt + tau_d) R_n)
  /// for kSap, the floored k of the Hunt-Crossley models. The elastic
  /// energy of a contact in penetration phi < 0 is k_eff phi^2 / 2.
  Eigen::VectorXd effective_stiffness;
  SapSolverStatistics statistics;

  bool converged() const { return status == SapSolverStatus::kConverged; }
};

}  // namespace sapcontact
