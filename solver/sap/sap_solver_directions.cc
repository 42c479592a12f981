// SapSolver's Newton directions (docs/theory.md §8): which islands are
// factored on their own and which together (PlanFactorization), the
// assembly and factorization of the stepping islands' Hessians
// H = A + J' G J and the solve for dv = -H^-1 grad (ComputeDirections,
// SolveDenseIsland, SolveSparseGroup). The iteration around them is in
// sap_solver.cc.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "sapcontact/solver/linear_algebra/cholesky_condition_estimate.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

void SapSolver::PlanFactorization(
    const std::vector<SapModel::Island>& islands) {
  const SapModel& model = model_;
  const int num_islands = static_cast<int>(islands.size());
  // With kAuto, islands up to dense_size_threshold DOFs, and islands of one
  // tree (a dense block: nothing for a sparse factorization to exploit),
  // are factored on their own (dense LLT), the other ones together in one
  // sparse factorization (the block Cholesky); kDense: every island on its
  // own; kBlockSparse and kCholmod: all in the sparse group, factored by
  // the block Cholesky or CHOLMOD.
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
  // Every thread's dense storage sized here for the largest dense island of
  // more than one tree (any thread may factor any island): once the island
  // sizes stop growing, no thread allocates.
  size_t largest = 0;
  for (int i = 0; i < num_islands; ++i) {
    if (!sparse_island_[i] && islands[i].trees.size() > 1) {
      largest = std::max<size_t>(largest, islands[i].num_velocities);
    }
  }
  for (DenseStorage& storage : dense_storage_) {
    if (storage.H.size() < largest * largest) {
      storage.H.resize(largest * largest);
    }
    if (storage.rhs.size() < 5 * largest) storage.rhs.resize(5 * largest);
  }
  group_trees_.clear();
  for (int p = 0; p < model.num_trees(); ++p) {
    const int i = island_of_tree_[p];  // -1: outside the graph
    if (i >= 0 && sparse_island_[i]) group_trees_.push_back(p);
  }
  group_is_everything_ =
      static_cast<int>(group_trees_.size()) == model.num_trees();
  if (H_.pattern() != model.pattern()) H_.Reset(model.pattern());
  if (group_trees_.empty()) return;
  // The group's factorization: CHOLMOD when asked for, else the block
  // Cholesky on the tree graph.
  const bool use_cholmod =
      parameters_.linear_solver == LinearSolverType::kCholmod;
  if (!factorization_ ||
      (factorization_->type() == LinearSolverType::kCholmod) != use_cholmod ||
      (use_cholmod && factorization_kind_ != parameters_.cholmod_factor)) {
    factorization_ =
        use_cholmod
            ? MakeCholmodHessianFactorizationOfKind(parameters_.cholmod_factor)
            : MakeBlockSparseCholeskyFactorization();
    factorization_kind_ = parameters_.cholmod_factor;
  }
  if (group_is_everything_) return;
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
    H_group_.Reset(std::move(group_pattern));
  }
}

bool SapSolver::ComputeDirections(const std::vector<SapModel::Island>& islands,
                                  int round, SapSolverResults* results) {
  const SapModel& model = model_;
  SapSolverStatistics& stats = results->statistics;
  const int num_islands = static_cast<int>(islands.size());
  // dv = -H^-1 grad: stepping dense islands one by one, the sparse group
  // once if any of its islands steps (all its islands' blocks assembled:
  // the factorization needs them).
  auto t0 = std::chrono::steady_clock::now();
  bool group_steps = false;
  for (int i = 0; i < num_islands; ++i) {
    if (sparse_island_[i]) group_steps = group_steps || stepping_[i];
  }
  // The group's last factorization serves again while each stepping island
  // of the group converged fast enough with it (factor_reuse_rate).
  bool reuse_group =
      group_steps && group_factored_ && parameters_.factor_reuse_rate > 0.0;
  for (int i = 0; i < num_islands && reuse_group; ++i) {
    if (sparse_island_[i] && stepping_[i]) {
      reuse_group = !island_predicted_[i] &&
                    island_rate_[i] <= parameters_.factor_reuse_rate;
    }
  }
  for (int i = 0; i < num_islands; ++i) {
    island_state_[i].last_step_stale = reuse_group && sparse_island_[i];
  }
  ForEachIsland(num_islands, [&](int i, int) {
    if (sparse_island_[i] ? group_steps && !reuse_group : stepping_[i]) {
      model.AssembleHessian(islands[i], G_, &H_);
    }
  });
  stats.time_assembly += SecondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  bool failed = false;
  double round_rcond = std::numeric_limits<double>::infinity();
  // Dense islands concurrently; their outcomes in island order (up to the
  // first failure, as one thread would have stopped there).
  factored_.resize(num_islands);
  ForEachIsland(num_islands, [&](int i, int worker) {
    if (!stepping_[i] || sparse_island_[i]) return;
    double rcond = 0.0;
    factored_[i] = SolveDenseIsland(model, islands[i], worker, &rcond);
    island_rcond_[i] = rcond;
  });
  for (int i = 0; i < num_islands && !failed; ++i) {
    if (!stepping_[i] || sparse_island_[i]) continue;
    ++stats.factorizations;
    if (!factored_[i]) {
      results->status = SapSolverStatus::kFactorizationFailed;
      results->message = "island " + std::to_string(i) +
                         ": the Hessian A + J'GJ is not numerically "
                         "positive definite at Newton iteration " +
                         std::to_string(island_state_[i].iterations);
      failed = true;
    }
    round_rcond = std::min(round_rcond, island_rcond_[i]);
  }
  if (!failed && reuse_group) {
    SolveWithGroupFactor(model, /*refine=*/false);
    round_rcond = std::min(round_rcond, group_rcond_);
  } else if (!failed && group_steps) {
    double rcond = 0.0;
    ++stats.factorizations;
    group_factored_ = false;
    if (!SolveSparseGroup(model, &rcond)) {
      results->status = SapSolverStatus::kFactorizationFailed;
      results->message =
          "the Hessian A + J'GJ is not numerically positive definite at "
          "Newton iteration " +
          std::to_string(round);
      failed = true;
    }
    round_rcond = std::min(round_rcond, rcond);
    for (int i = 0; i < num_islands; ++i) {
      if (sparse_island_[i]) island_rcond_[i] = rcond;
    }
    group_factored_ = !failed;
    group_rcond_ = rcond;
  }
  stats.time_factorization += SecondsSince(t0);
  ++stats.newton_iterations;
  if (failed) return false;
  stats.reciprocal_condition = round_rcond;
  bool dv_finite = true;
  for (int i = 0; i < num_islands; ++i) {
    if (!stepping_[i]) continue;
    for (int p : islands[i].trees) {
      dv_finite =
          dv_finite && dv_.segment(model.offset(p), model.size(p)).allFinite();
    }
  }
  const double min_rcond = parameters_.min_reciprocal_condition;
  if (round_rcond < min_rcond || !dv_finite) {
    results->status = SapSolverStatus::kIllConditioned;
    std::ostringstream os;
    os << "the Hessian A + J'GJ is too ill-conditioned to trust the "
          "impulses (reciprocal condition estimate "
       << round_rcond << " < " << min_rcond
       << "); use a near-rigid threshold beta > 0 or a softer contact";
    results->message = os.str();
    return false;
  }
  return true;
}

bool SapSolver::SolveDenseIsland(const SapModel& model,
                                 const SapModel::Island& island, int worker,
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
  DenseStorage& storage = dense_storage_[worker];
  const size_t entries = static_cast<size_t>(n) * n;
  if (storage.H.size() < entries) storage.H.resize(entries);
  if (storage.rhs.size() < static_cast<size_t>(5 * n)) {
    // The right-hand side, 3 n workspace, the scaling.
    storage.rhs.resize(5 * n);
  }
  Eigen::Map<Eigen::MatrixXd> dense_H(storage.H.data(), n, n);
  Eigen::Map<Eigen::VectorXd> rhs(storage.rhs.data(), n);
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
  // Symmetric Jacobi scaling, H = S^-1 (S H S) S^-1 with S = diag(H)^-1/2:
  // the LLT's accuracy is that of the scaled matrix (van der Sluis), whose
  // condition is what the ill-conditioning test and the line search must
  // see; the unscaled estimate also counts the spread of the island's
  // masses (a 1 g box under a 1 t box: 1e12 unscaled, harmless).
  Eigen::Map<Eigen::VectorXd> s(storage.rhs.data() + 4 * n, n);
  for (int j = 0; j < n; ++j) {
    if (!(dense_H(j, j) > 0.0)) return false;  // not positive definite
    s(j) = 1.0 / std::sqrt(dense_H(j, j));
  }
  for (int j = 0; j < n; ++j) {
    dense_H.col(j).tail(n - j) =
        dense_H.col(j).tail(n - j).cwiseProduct(s.tail(n - j)) * s(j);
  }
  const double l1_norm = SymmetricL1Norm(dense_H);
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(dense_H);
  if (llt.info() != Eigen::Success) return false;
  // Eigen's LLT::rcond() estimate, without its temporaries.
  *rcond =
      CholeskyReciprocalCondition(dense_H, l1_norm, storage.rhs.data() + n);
  rhs.array() *= s.array();
  llt.solveInPlace(rhs);
  rhs.array() *= s.array();
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
  // One step of iterative refinement (docs/theory.md §8): the Newton steps
  // of stiff contact (R ~ sigma w) solve systems with cond(H) up to ~1e10,
  // and the step's accuracy bounds the converged impulses'. Refined only
  // when the unrefined solve's relative round-off, about eps / rcond, comes
  // within a factor 100 of the requested relative tolerance; else it cannot
  // change what the stopping test sees.
  const double eps = std::numeric_limits<double>::epsilon();
  SolveWithGroupFactor(model, eps > 1e-2 * parameters_.rel_tolerance * *rcond);
  return true;
}

void SapSolver::SolveWithGroupFactor(const SapModel& model, bool refine) {
  // Right-hand side: -grad (with stiction prediction's impulses, §16) on the
  // stepping islands' trees, 0 on the others (islands do not couple, so
  // their dv is exactly 0).
  const BlockSparseSymmetricMatrix& H = group_is_everything_ ? H_ : H_group_;
  rhs_.setZero(H.size());
  int offset = 0;
  for (int p : group_trees_) {
    if (stepping_[island_of_tree_[p]]) {
      rhs_.segment(offset, model.size(p)) =
          -newton_grad_.segment(model.offset(p), model.size(p));
    }
    offset += model.size(p);
  }
  if (refine) {
    refine_rhs_ = rhs_;
    factorization_->SolveInPlace(&rhs_);
    H.Multiply(rhs_, &refine_product_);
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
}

}  // namespace sapcontact
