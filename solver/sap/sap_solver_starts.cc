// Where SapSolver's Newton iteration starts (docs/theory.md §7, "Start
// v_0" and "Start at rest"): the caller's guesses in the model's order
// (GatherGuesses), and per island the start of lowest cost among them and
// v* (ChooseStarts), or v = 0 for an island at rest (AtRest). The iteration
// is in sap_solver.cc.
#include <vector>

#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

void SapSolver::GatherGuesses(
    const std::vector<const Eigen::VectorXd*>& guesses) {
  const int num_guesses = static_cast<int>(guesses.size());
  if (static_cast<int>(gathered_guesses_.size()) < num_guesses) {
    gathered_guesses_.resize(num_guesses);
  }
  for (int g = 0; g < num_guesses; ++g) {
    model_.Gather(*guesses[g], &gathered_guesses_[g]);
  }
  num_guesses_ = num_guesses;
}

void SapSolver::ChooseStarts(const std::vector<SapModel::Island>& islands) {
  const SapModel& model = model_;
  const int num_guesses = num_guesses_;
  // Per island: the lowest cost l(v) among v* (where the quadratic term
  // vanishes) and the guesses (GatherGuesses).
  // Whether v already meets the stopping test of the Newton loop matters
  // first (then it costs no factorization, whatever the other candidates
  // cost): optimal beats not optimal, then the lower cost wins.
  auto better = [](const IslandEvaluation& a, const IslandEvaluation& b) {
    return a.optimal() != b.optimal() ? a.optimal() : a.cost < b.cost;
  };
  ForEachIsland(static_cast<int>(islands.size()), [&](int i, int) {
    const SapModel::Island& island = islands[i];
    // Guesses in the caller's order; the first optimal one ends the
    // search (resting islands: one evaluation), v* comes last.
    if (parameters_.warm_start_at_rest &&
        AtRest(island, gathered_guesses_[0])) {
      const IslandEvaluation at_rest =
          EvaluateIsland(island, rest_start_, nullptr);
      if (at_rest.optimal()) {
        NewtonIslandState& st = island_state_[i];
        st.active = false;
        st.cost = at_rest.cost;
        st.relative_residual = at_rest.relative_residual();
        start_candidate_[i] = SapIslandStatistics::kStartAtRest;
        for (int p : island.trees) {
          v_.segment(model.offset(p), model.size(p)).setZero();
        }
        return;
      }
    }
    int best = 0;
    IslandEvaluation best_start =
        EvaluateIsland(island, gathered_guesses_[0], nullptr);
    for (int g = 1; g < num_guesses && !best_start.optimal(); ++g) {
      const IslandEvaluation e =
          EvaluateIsland(island, gathered_guesses_[g], nullptr);
      if (better(e, best_start)) {
        best = g;
        best_start = e;
      }
    }
    NewtonIslandState& st = island_state_[i];
    if (best_start.optimal()) {
      // Converged at the start: the workspaces (v_c, gamma, gradient)
      // hold this island's last evaluation, which was this guess's.
      st.active = false;
      st.cost = best_start.cost;
      st.relative_residual = best_start.relative_residual();
    } else if (better(EvaluateIsland(island, model.v_star(), nullptr),
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
  });
}

bool SapSolver::AtRest(const SapModel::Island& island,
                       const Eigen::VectorXd& guess) {
  // r_ and Ar_ are workspaces here (EvaluateIsland writes them next); each
  // island touches only its own trees' segments.
  const SapModel& model = model_;
  for (int p : island.trees) {
    const int o = model.offset(p), n = model.size(p);
    r_.segment(o, n) = guess.segment(o, n);
  }
  model.MultiplyA(island, r_, &Ar_);
  const double momentum = IslandNorm(island, Ar_);
  for (int p : island.trees) {
    const int o = model.offset(p), n = model.size(p);
    r_.segment(o, n) = model.v_star().segment(o, n) - guess.segment(o, n);
  }
  model.MultiplyA(island, r_, &Ar_);
  return momentum <= IslandNorm(island, Ar_);
}

}  // namespace sapcontact
