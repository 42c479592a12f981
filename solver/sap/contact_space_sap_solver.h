// SAP in contact space (docs/theory.md §15): the same convex problem as
// SapSolver for a caller who has the Delassus operator W = J A^-1 J' and the
// free contact velocity v_free = J v* instead of (A, J, v*), e.g. an FCLib
// local problem. With v = v* + A^-1 J' x the SAP cost becomes
//   l(x) = 1/2 x' W x + sum_k l_k(v_free,k + (W x)_k),
// gradient W (x - gamma) and Newton step (the image of SapSolver's Newton
// step on v)
//   dx = -(I + G W)^-1 (x - gamma)
//      = -(r - U (I + U' W U)^-1 U' W r),  r = x - gamma,  G = U U',
// where I + U'WU is symmetric positive definite with W's block pattern
// (3 x 3 blocks, one per contact): one symbolic analysis per problem, a
// sparse numeric factorization per Newton iteration (block Cholesky or
// CHOLMOD, solver/linear_algebra/). At the optimum W (x - gamma) = 0: the
// impulses gamma and contact velocities v_c = v_free + W gamma solve SAP's
// regularized QP (SAP paper §III-C) whatever the rank of W.
//
// Ordering and signs: contact_model/conventions.h (3 rows per contact,
// normal first).
//
// Threads: as SapSolver (one object per thread; the object keeps its
// workspace and factorization).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/solver/linear_algebra/hessian_factorization.h"
#include "sapcontact/solver/sap/newton_island.h"
#include "sapcontact/solver/sap/sap_solver_parameters.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact {

/// One time step in contact space.
struct ContactSpaceSapProblem {
  /// Time step dt [s], > 0.
  double time_step{0.0};
  /// Delassus operator W = J A^-1 J' [(m/s)/(N*s)], 3 nc x 3 nc, symmetric
  /// positive semidefinite; only its lower triangle (row >= column) is
  /// read. Each contact's 3 x 3 diagonal block gives its Delassus estimate
  /// w_k = ||W_kk||_F / 3 (contact_model/regularization.h), which must be
  /// > 0.
  Eigen::SparseMatrix<double> W;
  /// Free contact velocity v_free = J v* [m/s], 3 per contact.
  Eigen::VectorXd v_free;
  /// Per contact: stiffness, dissipation time scale, friction.
  std::vector<ContactParameters> parameters;
  /// Per contact: signed distance at the start of the step [m].
  Eigen::VectorXd phi0;

  int num_contacts() const { return static_cast<int>(parameters.size()); }
};

/// Throws std::invalid_argument naming the field on inconsistent sizes,
/// non-finite entries or invalid contact parameters.
void Validate(const ContactSpaceSapProblem& problem);

/// Always-on statistics of one contact-space solve.
struct ContactSpaceSapStatistics {
  /// Connected components of W's block graph, each solved as its own
  /// Newton problem (docs/theory.md §8).
  int islands{0};
  /// Newton rounds (every island not yet converged steps once per round:
  /// the most iterations any island needed), and island iterations summed
  /// over the islands.
  int newton_iterations{0};
  int island_newton_iterations{0};
  int line_search_iterations{0};
  int factorizations{0};
  /// Symbolic analyses of I + U'WU in this solve (0 when the pattern of W
  /// is that of the previous solve).
  int symbolic_analyses{0};
  /// Per Newton round k: cost before the step [J] (all islands), the
  /// smallest step size of a stepping island, and the largest scaled
  /// residual of a stepping island before the step.
  std::vector<double> cost, alpha, scaled_residual;
  /// ||x - gamma||_W / max(||x||_W, ||gamma||_W) at the end, the largest
  /// over the islands (the
  /// W-seminorm ||z||_W = sqrt(z' W z) is SapSolver's ||.||_A-norm of the
  /// velocity difference A^-1 J' z).
  double final_scaled_residual{0.0};
  double final_cost{0.0};
  /// Reciprocal condition estimate of the last factored I + U'WU.
  double reciprocal_condition{0.0};
  /// Wall time [s]: setup (regularization, W's blocks), assembly of
  /// I + U'WU, its factorization and solves, line search, total.
  double time_setup{0.0};
  double time_assembly{0.0};
  double time_factorization{0.0};
  double time_line_search{0.0};
  double time_total{0.0};
};

struct ContactSpaceSapResults {
  SapSolverStatus status{SapSolverStatus::kMaxIterations};
  /// Explanation when status != kConverged.
  std::string message;
  /// Impulses gamma [N*s] and contact velocities v_c = v_free + W x [m/s],
  /// 3 per contact.
  Eigen::VectorXd gamma;
  Eigen::VectorXd v_c;
  /// The iterate x [N*s] (W x = v_c - v_free; x = gamma on range(W) at the
  /// optimum): pass it back as a warm start.
  Eigen::VectorXd x;
  /// Per contact: Delassus estimate w_k [1/kg] and R_n, R_t.
  Eigen::VectorXd delassus_estimate;
  Eigen::VectorXd R_n;
  Eigen::VectorXd R_t;
  ContactSpaceSapStatistics statistics;

  bool converged() const { return status == SapSolverStatus::kConverged; }
};

/// Newton's method with the exact line search on l(x). Uses from
/// SapSolverParameters: regularization, tolerances, max_iterations, the line
/// search settings, min_reciprocal_condition, and linear_solver (kAuto and
/// kBlockSparse: the block Cholesky; kCholmod: CHOLMOD of cholmod_factor's
/// kind; kDense: dense LLT). Islands are always on: each connected component
/// of W's block graph takes its own Newton steps, line search and
/// convergence test (SapSolverParameters::islands and
/// warm_start_lowest_cost do not apply).
/// Convergence: ||r||_W <= abs_tolerance + rel_tolerance max(||x||_W,
/// ||gamma||_W), r = x - gamma: SapSolver's test with A = I in the
/// coordinates where W = L L' (docs/theory.md §15).
class ContactSpaceSapSolver {
 public:
  explicit ContactSpaceSapSolver(const SapSolverParameters& parameters = {});
  ~ContactSpaceSapSolver();

  const SapSolverParameters& parameters() const { return parameters_; }
  /// @throws std::invalid_argument naming the field if out of range.
  void set_parameters(const SapSolverParameters& parameters);

  /// Solves from x = x_guess (e.g. a previous solve's x or impulses), else
  /// from x = 0 (v = v*).
  /// @throws std::invalid_argument on an invalid problem or guess.
  ContactSpaceSapResults Solve(const ContactSpaceSapProblem& problem,
                               const Eigen::VectorXd* x_guess = nullptr);

 private:
  // W's 3 x 3 blocks into W_ (pattern rebuilt only when it changes).
  void LoadDelassusBlocks(const Eigen::SparseMatrix<double>& W);
  // islands_: the connected components of W_'s block graph.
  void FindIslands();
  // The phases of Solve(), in order. SetUp: W's blocks, each contact's
  // constraint (and the results' R), the factorization object, workspaces
  // and the first iterate. EvaluateAndDecide: v_c, gamma, G and the
  // gradient at x_, every active island's stopping test; whether any
  // island steps (false with *failed set on a failed test).
  // ComputeDirection: M = I + U'WU, its factorization and dx (false on
  // failure, results' status and message say why). SearchAlongDirections:
  // the exact line search per stepping island and the step.
  void SetUp(const ContactSpaceSapProblem& problem,
             const Eigen::VectorXd* x_guess, ContactSpaceSapResults* results);
  bool EvaluateAndDecide(const ContactSpaceSapProblem& problem,
                         ContactSpaceSapResults* results, bool* failed);
  bool ComputeDirection(int round, ContactSpaceSapResults* results);
  void SearchAlongDirections(ContactSpaceSapStatistics* stats);
  // a' b over island i's contacts.
  double IslandDot(int i, const Eigen::VectorXd& a,
                   const Eigen::VectorXd& b) const;

  SapSolverParameters parameters_;
  std::unique_ptr<HessianFactorization> factorization_;
  LinearSolverType factorization_type_{LinearSolverType::kAuto};
  CholmodFactorKind factorization_kind_{CholmodFactorKind::kAuto};
  BlockSparseSymmetricMatrix W_, M_;
  std::vector<ContactConstraint> constraints_;
  std::vector<Matrix3> G_, U_;
  Eigen::VectorXd x_, dx_, vc_, dvc_, gamma_, r_, Wr_, Wx_, z_, refine_,
      product_, constraint_cost_;
  std::vector<std::vector<int>> islands_;  // contacts of each island
  std::vector<char> stepping_;
  std::vector<NewtonIslandState> island_state_;
  // The current round's cost (all islands) and largest scaled residual of
  // a stepping island.
  double round_cost_{0.0}, round_residual_{0.0};
};

}  // namespace sapcontact
