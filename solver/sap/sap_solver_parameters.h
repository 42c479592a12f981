// Settings of the SAP Newton solver: a plain struct with documented defaults.
#pragma once

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/solver/linear_algebra/hessian_factorization.h"

namespace sapcontact {

/// Line search along the Newton direction.
enum class LineSearchType {
  /// Exact: the root of dl/dalpha by safeguarded Newton/bisection (rtsafe,
  /// SAP paper §IV-B), to near machine precision.
  kExact,
  /// Backtracking with the Armijo sufficient-decrease condition.
  kBacktracking,
};

struct SapSolverParameters {
  /// beta, sigma and the soft-norm tolerance (defaults 1, 1e-3, 1e-8).
  RegularizationParameters regularization;
  /// Convergence: ||D grad|| <= abs_tolerance + rel_tolerance *
  /// max(||D A v||, ||D J' gamma||), D = diag(A)^-1/2 (units of
  /// sqrt(kg) m/s).
  double abs_tolerance{1.0e-14};
  double rel_tolerance{1.0e-6};
  /// Cost stall: the iteration stops when the cost decrease of a Newton
  /// iteration is below cost_stall_tolerance * cost (round-off level). It then
  /// reports kConverged only if the scaled residual is below
  /// stall_residual_tolerance (relative), else kStalled (a failure).
  double cost_stall_tolerance{1.0e-14};
  double stall_residual_tolerance{1.0e-3};
  /// Maximum Newton iterations; more is reported as kMaxIterations.
  int max_iterations{100};
  LineSearchType line_search{LineSearchType::kExact};
  /// Exact line search: search interval [0, max_step] and iteration limit.
  double max_step{1.5};
  int max_line_search_iterations{100};
  /// Exact line search: it also stops at the first alpha where the strong
  /// Wolfe conditions hold, |dl/dalpha| <= line_search_slope_ratio
  /// |dl/dalpha(0)| and l(alpha) <= l(0) + armijo_c alpha dl/dalpha(0);
  /// 0 minimizes l along the ray to round-off (the SAP paper's search).
  /// 0.9 (docs/theory.md §7): Newton iterations per step on the sphere
  /// piles 5-13% fewer than with 0, line-search evaluations 1.6-3.5 times
  /// fewer.
  double line_search_slope_ratio{0.9};
  /// Armijo constant c (backtracking, and the exact search's Wolfe test) and
  /// the backtracking's reduction factor rho.
  double armijo_c{1.0e-4};
  double backtracking_rho{0.8};
  /// Linear solver for the Newton system: kAuto picks dense Eigen LLT for an
  /// island of up to dense_size_threshold participating DOFs or of a single
  /// tree (one dense block), and each other island on its own with the
  /// block Cholesky on its tree graph (block_sparse_cholesky_factorization.h);
  /// kBlockSparse and kCholmod factor all islands together in one sparse
  /// factorization, with the block Cholesky or with CHOLMOD; kDense factors
  /// each island densely.
  LinearSolverType linear_solver{LinearSolverType::kAuto};
  /// 30: measured (callgrind) on the 48-body clutter at dt = 1e-2, 33% fewer
  /// instructions than 100 and 14% fewer than 12; the 10-box stack 18% fewer
  /// than 100 (docs/theory.md §8).
  int dense_size_threshold{30};
  /// Stale sparse factorization (docs/theory.md §8): a Newton iteration of
  /// a sparsely factored island solves with its last factorization of this
  /// solve (no assembly, no factorization; still a descent direction, the
  /// line search exact) while the island (kBlockSparse and kCholmod: every
  /// stepping island of the one factorization) reduced its
  /// scaled residual at its last iteration by at least this factor
  /// (residual ratio <= factor_reuse_rate) and none uses stiction
  /// prediction; else it factors again. 0: a fresh factorization at every
  /// iteration (exact Newton steps).
  double factor_reuse_rate{0.0};
  /// CHOLMOD's method when linear_solver is kCholmod. kAuto (cholmod_analyze
  /// decides by flops per factor entry) picks simplicial for piles, where it
  /// measured 30-40% faster than supernodal with the reference BLAS, and
  /// supernodal for dense-ish 2-D patterns.
  CholmodFactorKind cholmod_factor{CholmodFactorKind::kAuto};
  /// Islands (docs/theory.md §8): true solves each connected component of
  /// the contact graph as its own Newton problem, with its own line search
  /// and convergence test (and, with kAuto, its own dense factorization when
  /// it has at most dense_size_threshold DOFs); false runs one Newton
  /// iteration over all participating trees (the monolithic SAP iteration).
  bool islands{true};
  /// Speculative contacts (phi0 >= 0) that carry no impulse at v* and at
  /// every guess are left out of the contact graph: no Hessian block, no
  /// island, no Newton work (docs/theory.md §8). At the solution they are
  /// evaluated; those that would push come back and Newton goes on, so the
  /// solution is the full problem's. false: every contact is a constraint.
  bool exclude_separated_contacts{true};
  /// With guesses given to Solve() or SolveFromCandidates(): true starts
  /// each island from the guess or v* of lowest cost l(v) on that island
  /// (each costs one evaluation of l, no factorization); false always
  /// starts from the first guess.
  bool warm_start_lowest_cost{true};
  /// With guesses and warm_start_lowest_cost: true first tries v = 0 on an
  /// island whose first guess carries less momentum than the step adds, ||D A
  /// v_g|| <= ||D A (v* - v_g)|| (an island at rest); it starts there if v = 0
  /// passes the optimality test (docs/theory.md §7, "Start at rest"). One
  /// evaluation of l per resting island; moving islands never try it.
  bool warm_start_at_rest{true};
  /// Stiction prediction (docs/theory.md §16): a sliding contact whose slip
  /// the Newton step reverses (v_t . (v_t + dv_t) < 0 at the full step) is,
  /// at the next Newton iteration while it still slides, modeled as sticking
  /// (impulse y instead of P_F(y), Hessian block R^-1): its exact model
  /// (friction constant along the slip) overshoots through v_t = 0 and the
  /// exact line search then stops at that one kink. Iterations on the
  /// 64-sphere pile at dt = 1e-3: 14.4 -> 8.6 per step. The gradient and the
  /// line search stay exact; a predicted direction that is not a descent
  /// direction, or whose step alpha is below stiction_prediction_min_step,
  /// makes the island's next iteration an exact Newton step. Used with the
  /// exact line search only. false: exact Newton steps only (the SAP
  /// paper's iteration).
  bool stiction_prediction{true};
  double stiction_prediction_min_step{0.05};
  /// The Hessian is declared ill-conditioned (status kIllConditioned) when
  /// the reciprocal condition estimate of its factorization falls below this:
  /// round-off alone (eps * cond(H) > 2e-4) then leaves fewer than ~4
  /// trustworthy digits in the impulses gamma = -R^-1 (v_c - v_hat). This
  /// happens when contacts are stiffer than the near-rigid floor allows
  /// (beta = 0 with k -> inf). 0 disables the check.
  double min_reciprocal_condition{1.0e-12};
  /// Threads of one solve, >= 1 (docs/solver.md "Threads"): with more than one,
  /// the per-island work of each Newton round (evaluation, stiction prediction,
  /// Hessian assembly, dense factorizations, line searches) runs on a pool
  /// of this many threads, the caller included, and so do the islands' sparse
  /// factorizations (kCholmod's stay on one thread). Results are bitwise
  /// identical for every value: islands are independent and every sum over
  /// islands is taken in island order.
  int threads{1};
};

/// Throws std::invalid_argument naming the field if a setting is out of range.
void Validate(const SapSolverParameters& p);

}  // namespace sapcontact
