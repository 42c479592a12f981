#include "sapcontact/solver/sap/contact_space_sap_solver.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/solver/sap/disjoint_sets.h"
#include "sapcontact/solver/sap/line_search.h"
#include "sapcontact/solver/sap/newton_island.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Invalid(const std::string& what) {
  throw std::invalid_argument("ContactSpaceSapProblem: " + what);
}

// G = U U' for a symmetric positive semidefinite 3 x 3 G, by LDL' with
// pivoting (G = P' L D L' P, U = P' L D^1/2); round-off negative pivots are
// taken as 0.
Matrix3 SquareRootFactor(const Matrix3& G) {
  const Eigen::LDLT<Matrix3> ldlt(G);
  const Vector3 d = ldlt.vectorD().cwiseMax(0.0).cwiseSqrt();
  const Matrix3 L = ldlt.matrixL();
  return ldlt.transpositionsP().transpose() * (L * d.asDiagonal());
}

}  // namespace

void Validate(const ContactSpaceSapProblem& problem) {
  ValidateTimeStep(problem.time_step, "ContactSpaceSapProblem: time_step");
  const int nc = problem.num_contacts();
  const Eigen::Index n = 3 * nc;
  std::ostringstream os;
  if (problem.W.rows() != n || problem.W.cols() != n) {
    os << "W is " << problem.W.rows() << " x " << problem.W.cols()
       << ", expected " << n << " x " << n << " (3 rows per contact)";
    Invalid(os.str());
  }
  if (problem.v_free.size() != n) {
    os << "v_free has " << problem.v_free.size() << " entries, expected " << n;
    Invalid(os.str());
  }
  if (problem.phi0.size() != nc) {
    os << "phi0 has " << problem.phi0.size() << " entries, expected " << nc;
    Invalid(os.str());
  }
  if (!problem.v_free.allFinite()) Invalid("v_free has non-finite entries");
  if (!problem.phi0.allFinite()) Invalid("phi0 has non-finite entries");
  for (int j = 0; j < problem.W.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it;
         ++it) {
      if (!std::isfinite(it.value())) {
        os << "W(" << it.row() << ", " << it.col() << ") is not finite";
        Invalid(os.str());
      }
    }
  }
  for (int k = 0; k < nc; ++k) {
    Validate(problem.parameters[k],
             "ContactSpaceSapProblem: contact " + std::to_string(k));
  }
}

ContactSpaceSapSolver::ContactSpaceSapSolver(
    const SapSolverParameters& parameters) {
  set_parameters(parameters);
}

ContactSpaceSapSolver::~ContactSpaceSapSolver() = default;

void ContactSpaceSapSolver::set_parameters(
    const SapSolverParameters& parameters) {
  Validate(parameters);
  parameters_ = parameters;
}

void ContactSpaceSapSolver::LoadDelassusBlocks(
    const Eigen::SparseMatrix<double>& W) {
  const int nc = static_cast<int>(W.rows() / 3);
  // The lower triangle's 3 x 3 blocks (i, j), i > j, in column order.
  std::vector<std::pair<int, int>> off;
  std::vector<int> last_row_block(nc, -1);
  for (int col = 0; col < W.outerSize(); ++col) {
    const int j = col / 3;
    for (Eigen::SparseMatrix<double>::InnerIterator it(W, col); it; ++it) {
      const int i = static_cast<int>(it.row()) / 3;
      if (i > j && it.value() != 0.0 && last_row_block[i] != j) {
        last_row_block[i] = j;
        off.emplace_back(i, j);
      }
    }
  }
  std::sort(off.begin(), off.end());
  off.erase(std::unique(off.begin(), off.end()), off.end());
  BlockSparsityPattern pattern(std::vector<int>(nc, 3), std::move(off));
  if (W_.pattern() != pattern) {
    W_ = BlockSparseSymmetricMatrix(pattern);
    M_ = BlockSparseSymmetricMatrix(std::move(pattern));
  } else {
    W_.SetZero();
  }
  for (int col = 0; col < W.outerSize(); ++col) {
    const int j = col / 3, c = col % 3;
    for (Eigen::SparseMatrix<double>::InnerIterator it(W, col); it; ++it) {
      const int row = static_cast<int>(it.row());
      const int i = row / 3, r = row % 3;
      if (i == j) {
        if (r >= c) {
          W_.diagonal_block(i)(r, c) = it.value();
          W_.diagonal_block(i)(c, r) = it.value();
        }
      } else if (i > j && it.value() != 0.0) {
        W_.off_diagonal_block(W_.pattern().off_diagonal_block_index(i, j))(
            r, c) = it.value();
      }
    }
  }
}

void ContactSpaceSapSolver::FindIslands() {
  const int nc = W_.pattern().num_blocks();
  DisjointSets components(nc);
  for (const auto& [i, j] : W_.pattern().off_diagonal_blocks()) {
    components.Unite(i, j);
  }
  // Islands in order of their first contact, contacts increasing.
  std::vector<int> index(nc, -1);
  islands_.clear();
  for (int k = 0; k < nc; ++k) {
    const int root = components.Find(k);
    if (index[root] < 0) {
      index[root] = static_cast<int>(islands_.size());
      islands_.emplace_back();
    }
    islands_[index[root]].push_back(k);
  }
  stepping_.assign(islands_.size(), 0);
}

// Solve() runs its phases in order (the shape of SapSolver's
// SolveFromCandidates): set-up and islands, then Newton rounds of
// evaluation and tests, direction and line search, then the results.
ContactSpaceSapResults ContactSpaceSapSolver::Solve(
    const ContactSpaceSapProblem& problem, const Eigen::VectorXd* x_guess) {
  const auto t_start = Clock::now();
  Validate(problem);
  const int n = 3 * problem.num_contacts();
  if (x_guess && (x_guess->size() != n || !x_guess->allFinite())) {
    throw std::invalid_argument(
        "ContactSpaceSapSolver::Solve: x_guess must be finite with " +
        std::to_string(n) + " entries");
  }
  ContactSpaceSapResults results;
  ContactSpaceSapStatistics& stats = results.statistics;
  SetUp(problem, x_guess, &results);
  const int analyses_start = factorization_->statistics().symbolic_analyses;
  stats.time_setup = SecondsSince(t_start);
  FindIslands();
  stats.islands = static_cast<int>(islands_.size());
  island_state_.assign(islands_.size(), NewtonIslandState{});
  bool failed = false;
  for (int round = 0;; ++round) {
    if (!EvaluateAndDecide(problem, &results, &failed)) break;
    if (!ComputeDirection(round, &results)) {
      failed = true;
      break;
    }
    SearchAlongDirections(&stats);
  }
  if (!failed) results.status = SapSolverStatus::kConverged;
  stats.final_cost = 0.0;
  stats.final_scaled_residual = 0.0;
  for (const NewtonIslandState& st : island_state_) {
    stats.final_cost += st.cost;
    stats.final_scaled_residual =
        std::max(stats.final_scaled_residual, st.relative_residual);
  }
  stats.symbolic_analyses =
      factorization_->statistics().symbolic_analyses - analyses_start;
  results.gamma = gamma_;
  results.v_c = vc_;
  results.x = x_;
  stats.time_total = SecondsSince(t_start);
  return results;
}

void ContactSpaceSapSolver::SetUp(const ContactSpaceSapProblem& problem,
                                  const Eigen::VectorXd* x_guess,
                                  ContactSpaceSapResults* results) {
  const int nc = problem.num_contacts();
  const int n = 3 * nc;
  // W's blocks, the regularization of each contact (SAP paper §V).
  LoadDelassusBlocks(problem.W);
  constraints_.resize(nc);
  results->delassus_estimate.resize(nc);
  results->R_n.resize(nc);
  results->R_t.resize(nc);
  const RegularizationParameters& reg = parameters_.regularization;
  for (int k = 0; k < nc; ++k) {
    const double w = DelassusDiagonalEstimate(W_.diagonal_block(k));
    // The problem holds no velocity at the start of the step: the lagged
    // Hunt-Crossley friction bound takes v_n0 = 0.
    constraints_[k] = ContactConstraint::Make(
        problem.parameters[k], reg, problem.time_step, w, problem.phi0(k), 0.0,
        "ContactSpaceSapProblem: contact " + std::to_string(k));
    const ContactRegularization& R = constraints_[k].regularization();
    results->delassus_estimate(k) = w;
    results->R_n(k) = R.R_n;
    results->R_t(k) = R.R_t;
  }
  const LinearSolverType type =
      parameters_.linear_solver == LinearSolverType::kAuto
          ? LinearSolverType::kBlockSparse
          : parameters_.linear_solver;
  if (!factorization_ || factorization_type_ != type ||
      (type == LinearSolverType::kCholmod &&
       factorization_kind_ != parameters_.cholmod_factor)) {
    factorization_ =
        type == LinearSolverType::kCholmod
            ? MakeCholmodHessianFactorizationOfKind(parameters_.cholmod_factor)
            : MakeHessianFactorization(type, n);
    factorization_type_ = type;
    factorization_kind_ = parameters_.cholmod_factor;
  }
  G_.resize(nc);
  U_.resize(nc);
  constraint_cost_.resize(nc);
  z_.resize(n);
  dx_.resize(n);
  if (x_guess) {
    x_ = *x_guess;
  } else {
    x_.setZero(n);
  }
  gamma_.resize(n);
}

double ContactSpaceSapSolver::IslandDot(int i, const Eigen::VectorXd& a,
                                        const Eigen::VectorXd& b) const {
  double sum = 0.0;
  for (int k : islands_[i]) {
    sum += a.segment<3>(3 * k).dot(b.segment<3>(3 * k));
  }
  return sum;
}

bool ContactSpaceSapSolver::EvaluateAndDecide(
    const ContactSpaceSapProblem& problem, ContactSpaceSapResults* results,
    bool* failed) {
  // v_c = v_free + W x, gamma and G, the gradient W r (r = x - gamma);
  // per island the cost 1/2 x'Wx + sum_k l_k and the stopping test.
  const int nc = problem.num_contacts();
  const int num_islands = static_cast<int>(islands_.size());
  W_.Multiply(x_, &Wx_);
  vc_ = problem.v_free + Wx_;
  ContactConstraintState s;
  for (int k = 0; k < nc; ++k) {
    constraints_[k].Evaluate(vc_.segment<3>(3 * k), true, &s);
    gamma_.segment<3>(3 * k) = s.gamma;
    G_[k] = s.G;
    constraint_cost_(k) = s.cost;
  }
  r_ = x_ - gamma_;
  W_.Multiply(r_, &Wr_);
  bool any_step = false;
  round_cost_ = 0.0;
  round_residual_ = 0.0;
  for (int i = 0; i < num_islands; ++i) {
    NewtonIslandState& st = island_state_[i];
    stepping_[i] = 0;
    const double xWx = IslandDot(i, x_, Wx_);
    const double rWr = IslandDot(i, r_, Wr_);
    // gamma' W gamma = (x - r)' W (x - r).
    const double gWg = xWx - 2.0 * IslandDot(i, r_, Wx_) + rWr;
    double cost = 0.5 * xWx;
    for (int k : islands_[i]) cost += constraint_cost_(k);
    round_cost_ += cost;  // unchanged since its last step if inactive
    if (!st.active) continue;
    const NewtonIslandDecision decision = DecideNewtonIsland(
        parameters_, i, num_islands, cost, std::sqrt(std::max(rWr, 0.0)),
        std::sqrt(std::max({xWx, gWg, 0.0})), &st, &results->status,
        &results->message);
    if (decision == NewtonIslandDecision::kFail) {
      *failed = true;
      return false;
    }
    if (decision == NewtonIslandDecision::kDone) continue;
    stepping_[i] = 1;
    any_step = true;
    round_residual_ = std::max(round_residual_, st.relative_residual);
  }
  return any_step;
}

bool ContactSpaceSapSolver::ComputeDirection(int round,
                                             ContactSpaceSapResults* results) {
  ContactSpaceSapStatistics& stats = results->statistics;
  const int nc = static_cast<int>(constraints_.size());
  // M = I + U'WU with G_k = U_k U_k' (docs/theory.md §15), for all
  // islands (one factorization; M is block diagonal over them).
  auto t0 = Clock::now();
  for (int k = 0; k < nc; ++k) U_[k] = SquareRootFactor(G_[k]);
  for (int k = 0; k < nc; ++k) {
    M_.diagonal_block(k).noalias() =
        U_[k].transpose() * W_.diagonal_block(k) * U_[k];
    M_.diagonal_block(k).diagonal().array() += 1.0;
  }
  const auto& blocks = W_.pattern().off_diagonal_blocks();
  for (size_t b = 0; b < blocks.size(); ++b) {
    M_.off_diagonal_block(static_cast<int>(b)).noalias() =
        U_[blocks[b].first].transpose() *
        W_.off_diagonal_block(static_cast<int>(b)) * U_[blocks[b].second];
  }
  stats.time_assembly += SecondsSince(t0);

  // dx = -(r - U z), M z = U' W r, with one step of iterative refinement.
  t0 = Clock::now();
  ++stats.factorizations;
  ++stats.newton_iterations;
  if (!factorization_->Factor(M_)) {
    results->status = SapSolverStatus::kFactorizationFailed;
    results->message =
        "I + U'WU is not numerically positive definite at Newton round " +
        std::to_string(round) + " (is W positive semidefinite?)";
    return false;
  }
  stats.reciprocal_condition = factorization_->ReciprocalConditionEstimate();
  for (int k = 0; k < nc; ++k) {
    z_.segment<3>(3 * k) = U_[k].transpose() * Wr_.segment<3>(3 * k);
  }
  refine_ = z_;
  factorization_->SolveInPlace(&z_);
  M_.Multiply(z_, &product_);
  refine_ -= product_;
  factorization_->SolveInPlace(&refine_);
  z_ += refine_;
  for (int k = 0; k < nc; ++k) {
    dx_.segment<3>(3 * k) = U_[k] * z_.segment<3>(3 * k) - r_.segment<3>(3 * k);
  }
  stats.time_factorization += SecondsSince(t0);
  if (stats.reciprocal_condition < parameters_.min_reciprocal_condition ||
      !dx_.allFinite()) {
    results->status = SapSolverStatus::kIllConditioned;
    std::ostringstream os;
    os << "I + U'WU is too ill-conditioned to trust the impulses "
          "(reciprocal condition estimate "
       << stats.reciprocal_condition << " < "
       << parameters_.min_reciprocal_condition << ")";
    results->message = os.str();
    return false;
  }
  return true;
}

void ContactSpaceSapSolver::SearchAlongDirections(
    ContactSpaceSapStatistics* stats) {
  // Exact line search along dx, island by island: v_c moves along W dx.
  const auto t0 = Clock::now();
  W_.Multiply(dx_, &dvc_);
  double round_alpha = 1e300;
  for (int i = 0; i < static_cast<int>(islands_.size()); ++i) {
    if (!stepping_[i]) continue;
    NewtonIslandState& st = island_state_[i];
    const std::vector<int>& contacts = islands_[i];
    RayQuadratic q;
    q.l0 = 0.5 * IslandDot(i, x_, Wx_);
    q.a1 = IslandDot(i, dx_, Wx_);
    q.a2 = IslandDot(i, dx_, dvc_);
    for (int k : contacts) {
      q.dvc_gamma0 +=
          std::abs(dvc_.segment<3>(3 * k).dot(gamma_.segment<3>(3 * k)));
    }
    auto along = [&](double alpha) {
      RaySums sums;
      for (int k : contacts) {
        AddAlongRay(constraints_[k], vc_.segment<3>(3 * k),
                    dvc_.segment<3>(3 * k), alpha, &sums);
      }
      return sums;
    };
    int ls_iterations = 0;
    const double alpha =
        SearchAlongRay(parameters_, q, st.cost, IslandDot(i, dx_, Wr_),
                       LineSearchSlopeRatio(parameters_, st.relative_residual,
                                            stats->reciprocal_condition),
                       along, &ls_iterations);
    for (int k : contacts) {
      x_.segment<3>(3 * k) += alpha * dx_.segment<3>(3 * k);
    }
    ++st.iterations;
    st.line_search_iterations += ls_iterations;
    ++stats->island_newton_iterations;
    stats->line_search_iterations += ls_iterations;
    round_alpha = std::min(round_alpha, alpha);
  }
  stats->time_line_search += SecondsSince(t0);
  stats->cost.push_back(round_cost_);
  stats->alpha.push_back(round_alpha);
  stats->scaled_residual.push_back(round_residual_);
}

}  // namespace sapcontact
