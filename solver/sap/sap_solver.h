// The SAP solver (SAP paper §IV, Algorithm 2; docs/theory.md §7): Newton's
// method with an exact line search on the unconstrained convex problem of one
// time step,
//   min_v l(v) = 1/2 ||v - v*||_A^2 + sum_k l_k(J_k v),
// gradient A (v - v*) - J' gamma, Hessian H = A + J' G J (block sparse over
// the graph of trees and patches, factored by the block Cholesky on that
// graph, CHOLMOD or dense LLT; docs/theory.md §8).
//
// Typical use, one object per simulation so that the sparse symbolic
// analysis is reused while the patch graph does not change:
//   SapSolver solver(parameters);
//   SapSolverResults r = solver.Solve(problem, &v_previous);
//   if (!r.converged()) { ... r.status, r.message ... }
//
// Threads (docs/solver.md "Threads"): separate SapSolver objects may Solve() at
// the same time in separate threads, on different or the same (const) problems;
// each result is bitwise identical to the same sequence of solves run alone
// (tests/solver/sap/concurrent_solves_test.cc). One object must not be used by
// two threads at once: Solve() reuses the object's workspace and factorization.
// CalcInverseDynamics() and Validate() are reentrant. With
// SapSolverParameters::threads = 1 (the default) a solve creates no threads:
// CHOLMOD's OpenMP regions run on the calling thread, so one solver per core
// does not oversubscribe the machine; with threads = N > 1 the object owns a
// pool of N - 1 workers that solve islands concurrently, with results bitwise
// identical to one thread (docs/solver.md "Threads").
#pragma once

#include <Eigen/Cholesky>
#include <memory>

#include "sapcontact/parallel/thread_pool.h"
#include "sapcontact/solver/linear_algebra/hessian_factorization.h"
#include "sapcontact/solver/sap/line_search.h"
#include "sapcontact/solver/sap/newton_island.h"
#include "sapcontact/solver/sap/sap_model.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver_parameters.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact {

class SapSolver {
 public:
  explicit SapSolver(const SapSolverParameters& parameters = {});
  ~SapSolver();

  const SapSolverParameters& parameters() const { return parameters_; }
  /// @throws std::invalid_argument naming the field if out of range.
  void set_parameters(const SapSolverParameters& parameters);

  /// Solves one time step. `v_guess`, when given, is a full velocity vector
  /// (all trees, problem order) to start Newton from (warm start, e.g. the
  /// previous step's velocities); else v* is used.
  /// @throws std::invalid_argument on invalid problem or guess (naming the
  ///         item). Non-convergence is not an exception: see results.status.
  SapSolverResults Solve(const SapProblem& problem,
                         const Eigen::VectorXd* v_guess = nullptr);

  /// Solves one time step from several candidate starts (full velocity
  /// vectors, e.g. the previous step's velocities and their extrapolation):
  /// with SapSolverParameters::warm_start_lowest_cost each island starts
  /// from the candidate or v* of lowest cost l(v) on it, else from the first
  /// candidate. Statistics: SapIslandStatistics::start_candidate.
  /// @throws std::invalid_argument as Solve, naming the candidate.
  SapSolverResults SolveFromCandidates(
      const SapProblem& problem,
      const std::vector<const Eigen::VectorXd*>& guesses);
  /// The same into *results, whose vectors are reused: a caller that keeps
  /// one results object across time steps (as TimeStepper does) allocates
  /// nothing per step once the problem sizes stop growing.
  void SolveFromCandidates(const SapProblem& problem,
                           const std::vector<const Eigen::VectorXd*>& guesses,
                           SapSolverResults* results);

  /// The pool of parameters().threads > 1 threads this solver runs islands
  /// on (nullptr with one thread), for a caller's own per-step loops
  /// between solves (the time stepper's collision); never used by two
  /// loops at once.
  ThreadPool* thread_pool() const { return pool_.get(); }

  /// Sparse symbolic analyses over this object's lifetime.
  int total_symbolic_analyses() const;

 private:
  // The stopping test's numbers at one island's iterate (docs/theory.md §7):
  // cost l(v) [J], scale max(||D A v||, ||D J' gamma||), residual
  // ||D grad||, and the tolerances.
  struct IslandEvaluation {
    double cost, scale, residual, abs_tolerance, rel_tolerance;
    bool optimal() const {
      return residual <= abs_tolerance + rel_tolerance * scale;
    }
    double relative_residual() const {
      return scale > 0 ? residual / scale : residual;
    }
  };

  // The steps of SolveFromCandidates, in order (the model is built first).
  // The islands solved: the model's, or one island of everything
  // (parameters_.islands false); fills island_of_tree_.
  const std::vector<SapModel::Island>& SetUpIslands();
  // Which islands are factored densely and which sparsely, in which sparse
  // groups (kAuto: one per sparse island; kBlockSparse and kCholmod: one
  // of every island); each group's pattern and factorization object.
  void PlanFactorization(const std::vector<SapModel::Island>& islands);
  // The caller's guesses in the model's order (gathered_guesses_).
  void GatherGuesses(const std::vector<const Eigen::VectorXd*>& guesses);
  // Leaves out of the model's graph the speculative contacts (phi0 >= 0)
  // that carry no impulse at v* and at every guess
  // (SapSolverParameters::exclude_separated_contacts).
  void ExcludeSeparatedContacts(const SapProblem& problem);
  // Workspaces sized for the model, Newton states reset, the first
  // iterate v_ from the guesses (ChooseStarts) or v*; with from_iterate,
  // Newton goes on from v_ (after contacts came back into the graph) after
  // earlier_rounds rounds.
  void InitializeIterate(const std::vector<SapModel::Island>& islands,
                         bool from_iterate, int earlier_rounds = 0);
  // Per island, the start of lowest cost among the guesses and v*
  // (SapSolverParameters::warm_start_lowest_cost).
  void ChooseStarts(const std::vector<SapModel::Island>& islands);
  // Whether the island's guess carries less momentum than the step adds,
  // ||D A v_g|| <= ||D A (v* - v_g)|| (warm_start_at_rest).
  bool AtRest(const SapModel::Island& island, const Eigen::VectorXd& guess);
  // After Newton: the left-out contacts' velocities at v_ into vc_ (zero
  // impulse into gamma_); true if any of them would push there (marked in
  // pushing_). BringBackPushingContacts returns them to the graph and
  // returns their number.
  bool EvaluateLeftOutContacts();
  int BringBackPushingContacts();
  // One Newton round's tests: evaluates every active island at v_ (with
  // G), decides (DecideNewtonIsland) and marks the stepping ones. Returns
  // whether any island steps; false also on failure (results' status and
  // message say why).
  bool EvaluateAndDecide(const std::vector<SapModel::Island>& islands,
                         SapSolverResults* results);
  // The stepping islands' Newton right-hand side, with stiction prediction
  // (stiction_prediction.h) when enabled.
  void PrepareNewtonGradients(const std::vector<SapModel::Island>& islands,
                              SapSolverStatistics* stats);
  // Assembles and factors the Hessians of the stepping islands and solves
  // for dv_. Returns false on a failed or ill-conditioned factorization
  // (results' status and message say why).
  bool ComputeDirections(const std::vector<SapModel::Island>& islands,
                         int round, SapSolverResults* results);
  // Line search along dv_ on each stepping island and the step v_ += alpha
  // dv_; the round's statistics.
  void SearchAlongDirections(const std::vector<SapModel::Island>& islands,
                             SapSolverStatistics* stats);
  // The islands' statistics (and totals added to *stats).
  void PackStatistics(const std::vector<SapModel::Island>& islands,
                      SapSolverStatistics* stats) const;
  // Velocities, impulses and regularization in the user's order.
  void PackResults(const SapProblem& problem, SapSolverResults* results) const;
  // A failed solve whose iterate is not finite: v*, no impulses
  // (SapSolverResults).
  void FallBackToFreeMotion(const SapProblem& problem,
                            SapSolverResults* results) const;

  // At v on an island: r = v - v*, A r, v_c, gamma (and G with the
  // contacts' regions, when G is given), J' gamma, the gradient
  // A r - J' gamma and A v into the workspaces' island segments.
  IslandEvaluation EvaluateIsland(const SapModel::Island& island,
                                  const Eigen::VectorXd& v,
                                  SapModel::ConstraintHessians* G);
  // Stiction prediction (docs/theory.md §16) is on: it relies on the exact
  // line search to find how far its direction pays; the backtracking search
  // keeps exact Newton.
  bool PredictsStiction() const {
    return parameters_.stiction_prediction &&
           parameters_.line_search == LineSearchType::kExact;
  }
  // The scaled norm ||D x|| over an island's trees.
  double IslandNorm(const SapModel::Island& island,
                    const Eigen::VectorXd& x) const;
  // Exact line search (SAP paper §IV-B) or backtracking along dv from v for
  // one island whose scaled residual is relative_residual, with l_A along
  // the ray given by `quadratic`; returns alpha and adds the iterations
  // made to *iterations.
  double LineSearch(const SapModel::Island& island,
                    const RayQuadratic& quadratic, double cost0, double dcost0,
                    double relative_residual, double rcond,
                    int* iterations) const;
  // After an assembly of the island: adds to *st the Hessian blocks that
  // changed since its previous assembly of the solve and those that did not
  // (SapSolverStatistics::changed_hessian_blocks), and keeps G.
  void CountChangedHessianBlocks(const SapModel::Island& island,
                                 NewtonIslandState* st);
  // Factors the dense island's Hessian (blocks of H_) in worker `worker`'s
  // storage and solves for its dv. Returns false if it is not numerically
  // positive definite.
  bool SolveDenseIsland(const SapModel& model, const SapModel::Island& island,
                        int worker, double* rcond);
  static constexpr int kIslandGrain = 16;
  static constexpr int kMinParallelContacts = 256;
  // body(i, worker) for each island index i in [0, n), on the pool when
  // parameters_.threads > 1, there is more than one hand-out of
  // kIslandGrain islands and the model has kMinParallelContacts contacts or
  // more, else in order on this thread (one hand-out would run on one
  // thread anyway, after waking the pool for nothing; a small scene's
  // islands cost less than moving their data between cores).
  template <class Body>
  void ForEachIsland(int n, Body&& body) {
    if (pool_ && n > kIslandGrain &&
        model_.num_contacts() >= kMinParallelContacts) {
      // Contiguous runs of islands per hand-out: neighbouring islands'
      // segments of the workspaces share cache lines.
      pool_->ForEach(n, body, kIslandGrain);
    } else {
      for (int i = 0; i < n; ++i) body(i, 0);
    }
  }
  // One sparse group's islands factored together, and the solve for dv
  // of the stepping ones among them.
  struct SparseGroup;
  // Factors the group's Hessian (H_ itself when the group is every tree,
  // else its sub-pattern) and solves for dv of its stepping islands.
  // Returns false if it is not numerically positive definite. One step of
  // iterative refinement when round-off asks for it.
  bool SolveSparseGroup(SparseGroup* group);
  // Solves for dv of the group's stepping islands with the group's current
  // factorization (refined once when `refine`, with the group's Hessian,
  // which then must be the factored one).
  void SolveWithGroupFactor(SparseGroup* group, bool refine);

  SapSolverParameters parameters_;
  // The model of the problem being solved, rebuilt in place by each solve.
  SapModel model_;
  std::vector<NewtonIslandState> island_state_;
  // Workspace reused across iterations and solves.
  Eigen::VectorXd v_, dv_, r_, Ar_, Adv_, Av_, Avstar_, vc_, dvc_, gamma_, jtg_,
      grad_;
  Eigen::VectorXd vc_alpha_;
  SapModel::ConstraintHessians G_;
  // G at each island's last assembly (the changed-block counters).
  SapModel::ConstraintHessians G_assembled_;
  // Stiction prediction (docs/theory.md §16): the gradient the Newton system
  // uses (grad_ with marked contacts' impulses replaced by y), y - gamma of
  // the marked contacts and J' of it, the contacts' regions at the current
  // iterate, the contacts marked by the last direction, and the islands
  // whose direction used a prediction this round.
  Eigen::VectorXd newton_grad_, stick_delta_, jt_delta_;
  std::vector<ProjectionRegion> regions_;
  std::vector<char> predicted_stick_, island_predicted_;
  // Reciprocal condition estimate of the factorization that gave each
  // island's current direction.
  std::vector<double> island_rcond_;
  // Per island, the residual ratio of its last Newton iteration
  // (parameters_.factor_reuse_rate).
  std::vector<double> island_rate_;
  // The Hessian's blocks of every participating tree and patch.
  BlockSparseSymmetricMatrix H_;
  // Per island: factored on its own (dense) or in a sparse group, and
  // whether it takes a Newton step this round.
  std::vector<char> sparse_island_, stepping_;
  std::vector<int> start_candidate_;
  std::vector<Eigen::VectorXd> gathered_guesses_;
  // v = 0, the start of an island at rest (warm_start_at_rest).
  Eigen::VectorXd rest_start_;
  int num_guesses_{0};
  // Per contact: in the model's graph, and (left out) pushing at v_.
  std::vector<char> active_, pushing_;
  std::vector<int> island_of_tree_;  // participating tree -> island solved
  // A sparse group: islands factored together by one sparse factorization
  // (docs/theory.md §8). Kept across solves with their factorization
  // objects, so that a group whose pattern repeats reuses its symbolic
  // analysis; the first num_groups_ are this solve's.
  struct SparseGroup {
    std::vector<int> islands;  // increasing
    // Participating tree indices, increasing, and per off-diagonal block of
    // H, the block of H_ it copies.
    std::vector<int> trees, off_diagonal_source;
    bool is_everything{false};  // every tree: H_ is the group's Hessian
    BlockSparseSymmetricMatrix H;
    std::unique_ptr<HessianFactorization> factorization;
    CholmodFactorKind kind{CholmodFactorKind::kAuto};
    // Holds a factorization of this solve's current islands
    // (factor_reuse_rate), its condition estimate; this round: any island
    // steps, solved with the kept factorization, the solve succeeded.
    bool factored{false};
    double rcond{0.0};
    bool steps{false}, stale{false}, ok{true};
    Eigen::VectorXd rhs, refine_rhs, refine_product;
    // Scratch for the pattern (no allocation once large enough).
    std::vector<int> sizes;
    std::vector<std::pair<int, int>> off;
    BlockSparsityPattern pattern;
  };
  std::vector<SparseGroup> groups_;
  int num_groups_{0};
  std::vector<int> group_of_island_;  // -1: dense
  std::vector<int> local_of_tree_;    // scratch: tree -> index in a group
  // Symbolic analyses of groups no longer kept (total_symbolic_analyses).
  int symbolic_analyses_{0};
  // Per thread: a dense island's Hessian, and its right-hand side followed
  // by the condition estimate's workspace and the Jacobi scaling
  // (SolveDenseIsland), sized for the largest island so far.
  struct DenseStorage {
    std::vector<double> H, rhs;
  };
  std::vector<DenseStorage> dense_storage_;
  // The threads of parameters_.threads > 1.
  std::unique_ptr<ThreadPool> pool_;
  // Per island, in the current round (filled concurrently, reduced in
  // island order): its evaluation, whether its dense factorization
  // succeeded, its predicted contacts, line search iterations and step.
  std::vector<IslandEvaluation> evaluation_;
  std::vector<char> factored_;
  std::vector<int> island_marked_, island_ls_;
  std::vector<double> island_alpha_;
  // The single island of everything (parameters_.islands false).
  std::vector<SapModel::Island> merged_islands_;
  // The largest scaled residual among the islands stepping this round.
  double round_residual_{0.0};
};

/// Inverse dynamics (SAP paper §III-B, Eq. (23)): for given velocities v (all
/// trees, problem order) the impulses gamma = P_F(y(J v)) that the SAP model
/// associates with them, and J' gamma.
struct InverseDynamicsResult {
  /// J v and the impulses, stacked as in SapModel: 3 per contact, then the
  /// rows of the limit, holonomic and actuation constraints.
  Eigen::VectorXd v_c;                  ///< [m/s]
  Eigen::VectorXd gamma;                ///< [N*s]
  Eigen::VectorXd generalized_impulse;  ///< J' gamma, size of v
};
InverseDynamicsResult CalcInverseDynamics(const SapProblem& problem,
                                          const RegularizationParameters& reg,
                                          const Eigen::VectorXd& v);

}  // namespace sapcontact
