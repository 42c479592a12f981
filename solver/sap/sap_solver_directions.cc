// SapSolver's Newton directions (docs/theory.md §8): which islands are
// factored densely and which sparsely, alone or together (PlanFactorization),
// the assembly and factorization of the stepping islands' Hessians H = A + J' G
// J and the solve for dv = -H^-1 grad (ComputeDirections, SolveDenseIsland,
// SolveSparseGroup). The iteration around them is in sap_solver.cc.
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
  // are factored densely (LLT), the other ones sparsely (the block
  // Cholesky), each on its own; kDense: every island densely; kBlockSparse
  // and kCholmod: all sparsely in one group, by the block Cholesky or
  // CHOLMOD.
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
  if (H_.pattern() != model.pattern()) H_.Reset(model.pattern());
  // The sparse groups: with kAuto each sparse island is its own (factored
  // only while it iterates, on the pool when there are threads), with
  // kBlockSparse and kCholmod every island is in one.
  const bool one_group = parameters_.linear_solver != LinearSolverType::kAuto;
  group_of_island_.assign(num_islands, -1);
  num_groups_ = 0;
  for (int i = 0; i < num_islands; ++i) {
    if (!sparse_island_[i]) continue;
    if (!one_group || num_groups_ == 0) {
      if (num_groups_ == static_cast<int>(groups_.size())) {
        groups_.emplace_back();
      }
      groups_[num_groups_].islands.clear();
      ++num_groups_;
    }
    group_of_island_[i] = num_groups_ - 1;
    groups_[num_groups_ - 1].islands.push_back(i);
  }
  const bool use_cholmod =
      parameters_.linear_solver == LinearSolverType::kCholmod;
  local_of_tree_.resize(model.num_trees());
  for (int g = 0; g < num_groups_; ++g) {
    SparseGroup& group = groups_[g];
    group.factored = false;
    // The group's factorization: CHOLMOD when asked for, else the block
    // Cholesky on the tree graph.
    if (!group.factorization ||
        (group.factorization->type() == LinearSolverType::kCholmod) !=
            use_cholmod ||
        (use_cholmod && group.kind != parameters_.cholmod_factor)) {
      if (group.factorization) {
        symbolic_analyses_ +=
            group.factorization->statistics().symbolic_analyses;
      }
      group.factorization = use_cholmod
                                ? MakeCholmodHessianFactorizationOfKind(
                                      parameters_.cholmod_factor)
                                : MakeBlockSparseCholeskyFactorization();
      group.kind = parameters_.cholmod_factor;
    }
    group.trees.clear();
    if (group.islands.size() == 1) {
      const std::vector<int>& trees = islands[group.islands[0]].trees;
      group.trees.assign(trees.begin(), trees.end());
    } else {
      for (int p = 0; p < model.num_trees(); ++p) {
        const int i = island_of_tree_[p];  // -1: outside the graph
        if (i >= 0 && group_of_island_[i] == g) group.trees.push_back(p);
      }
    }
    group.is_everything =
        static_cast<int>(group.trees.size()) == model.num_trees();
    if (group.is_everything) continue;
    // The group's sub-pattern, trees renumbered in increasing order (which
    // keeps every off-diagonal block (i, j) with i > j).
    group.sizes.clear();
    for (size_t t = 0; t < group.trees.size(); ++t) {
      local_of_tree_[group.trees[t]] = static_cast<int>(t);
      group.sizes.push_back(model.size(group.trees[t]));
    }
    group.off.clear();
    group.off_diagonal_source.clear();
    const auto& blocks = model.pattern().off_diagonal_blocks();
    auto add_block = [&](int b) {
      group.off.emplace_back(local_of_tree_[blocks[b].first],
                             local_of_tree_[blocks[b].second]);
      group.off_diagonal_source.push_back(b);
    };
    if (group.islands.size() == 1) {
      for (int patch : islands[group.islands[0]].patches) {
        const int b = model.patches()[patch].off_diagonal_block;
        if (b >= 0) add_block(b);
      }
    } else {
      for (size_t b = 0; b < blocks.size(); ++b) {
        const int i = island_of_tree_[blocks[b].first];
        if (i >= 0 && group_of_island_[i] == g) add_block(static_cast<int>(b));
      }
    }
    group.pattern.Assign(group.sizes, group.off);
    if (group.H.pattern() != group.pattern) group.H.Reset(group.pattern);
  }
}

bool SapSolver::ComputeDirections(const std::vector<SapModel::Island>& islands,
                                  int round, SapSolverResults* results) {
  const SapModel& model = model_;
  SapSolverStatistics& stats = results->statistics;
  const int num_islands = static_cast<int>(islands.size());
  // dv = -H^-1 grad: stepping dense islands one by one, each sparse group
  // once if any of its islands steps (all its islands' blocks assembled:
  // the factorization needs them).
  auto t0 = std::chrono::steady_clock::now();
  for (int g = 0; g < num_groups_; ++g) {
    SparseGroup& group = groups_[g];
    group.steps = false;
    for (int i : group.islands) group.steps = group.steps || stepping_[i];
    // The group's last factorization serves again while each of its
    // stepping islands converged fast enough with it (factor_reuse_rate).
    group.stale =
        group.steps && group.factored && parameters_.factor_reuse_rate > 0.0;
    for (int i : group.islands) {
      if (group.stale && stepping_[i]) {
        group.stale = !island_predicted_[i] &&
                      island_rate_[i] <= parameters_.factor_reuse_rate;
      }
    }
    for (int i : group.islands) island_state_[i].last_step_stale = group.stale;
  }
  for (int i = 0; i < num_islands; ++i) {
    if (!sparse_island_[i]) island_state_[i].last_step_stale = false;
  }
  ForEachIsland(num_islands, [&](int i, int) {
    const int g = group_of_island_[i];
    if (g >= 0 ? groups_[g].steps && !groups_[g].stale : stepping_[i]) {
      model.AssembleHessian(islands[i], G_, &H_);
      CountChangedHessianBlocks(islands[i], &island_state_[i]);
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
  // The stepping sparse groups, concurrently when there are several (each
  // its own factorization object; CHOLMOD's stay on this thread), their
  // outcomes in group order.
  int stepping_groups = 0;
  for (int g = 0; g < num_groups_; ++g) {
    if (groups_[g].steps) groups_[stepping_groups++].ok = true;
  }
  auto solve_group = [&](int g, int) {
    SparseGroup& group = groups_[g];
    if (!group.steps) return;
    if (group.stale) {
      SolveWithGroupFactor(&group, /*refine=*/false);
      group.ok = true;
    } else {
      group.factored = false;
      group.ok = SolveSparseGroup(&group);
      group.factored = group.ok;
    }
  };
  if (pool_ && stepping_groups > 1 &&
      model.num_contacts() >= kMinParallelContacts &&
      parameters_.linear_solver != LinearSolverType::kCholmod) {
    pool_->ForEach(num_groups_, solve_group);
  } else {
    for (int g = 0; g < num_groups_; ++g) solve_group(g, 0);
  }
  for (int g = 0; g < num_groups_ && !failed; ++g) {
    const SparseGroup& group = groups_[g];
    if (!group.steps) continue;
    if (!group.stale) ++stats.factorizations;
    if (!group.ok) {
      results->status = SapSolverStatus::kFactorizationFailed;
      results->message =
          (num_groups_ > 1
               ? "island " + std::to_string(group.islands[0]) + ": the"
               : std::string("the")) +
          " Hessian A + J'GJ is not numerically positive definite at "
          "Newton iteration " +
          std::to_string(num_groups_ > 1
                             ? island_state_[group.islands[0]].iterations
                             : round);
      failed = true;
    }
    round_rcond = std::min(round_rcond, group.rcond);
    for (int i : group.islands) island_rcond_[i] = group.rcond;
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

void SapSolver::CountChangedHessianBlocks(const SapModel::Island& island,
                                          NewtonIslandState* st) {
  // After the island's first assembly of the solve, which blocks changed.
  const bool first = st->iterations == 0;
  for (int k : island.contacts) {
    Matrix3& last = G_assembled_.contacts[k];
    if (!first) {
      ++(last == G_.contacts[k] ? st->unchanged_hessian_blocks
                                : st->changed_hessian_blocks);
    }
    last = G_.contacts[k];
  }
  const SapModel& model = model_;
  for (int k : island.constraints) {
    const SapModel::ModelConstraint& m = model.constraints()[k];
    for (int r = m.first_row; r < m.first_row + m.rows; ++r) {
      if (!first) {
        ++(G_assembled_.rows(r) == G_.rows(r) ? st->unchanged_hessian_blocks
                                              : st->changed_hessian_blocks);
      }
      G_assembled_.rows(r) = G_.rows(r);
    }
  }
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

bool SapSolver::SolveSparseGroup(SparseGroup* group) {
  const BlockSparseSymmetricMatrix* H = &H_;
  if (!group->is_everything) {
    for (size_t t = 0; t < group->trees.size(); ++t) {
      group->H.diagonal_block(static_cast<int>(t)) =
          H_.diagonal_block(group->trees[t]);
    }
    for (size_t b = 0; b < group->off_diagonal_source.size(); ++b) {
      group->H.off_diagonal_block(static_cast<int>(b)) =
          H_.off_diagonal_block(group->off_diagonal_source[b]);
    }
    H = &group->H;
  }
  if (!group->factorization->Factor(*H)) return false;
  group->rcond = group->factorization->ReciprocalConditionEstimate();
  // One step of iterative refinement (docs/theory.md §8): the Newton steps
  // of stiff contact (R ~ sigma w) solve systems with cond(H) up to ~1e10,
  // and the step's accuracy bounds the converged impulses'. Refined only
  // when the unrefined solve's relative round-off, about eps / rcond, comes
  // within a factor 100 of the requested relative tolerance; else it cannot
  // change what the stopping test sees.
  const double eps = std::numeric_limits<double>::epsilon();
  SolveWithGroupFactor(group,
                       eps > 1e-2 * parameters_.rel_tolerance * group->rcond);
  return true;
}

void SapSolver::SolveWithGroupFactor(SparseGroup* group, bool refine) {
  const SapModel& model = model_;
  // Right-hand side: -grad (with stiction prediction's impulses, §16) on the
  // stepping islands' trees, 0 on the others (islands do not couple, so
  // their dv is exactly 0).
  const BlockSparseSymmetricMatrix& H = group->is_everything ? H_ : group->H;
  Eigen::VectorXd& rhs = group->rhs;
  rhs.setZero(H.size());
  int offset = 0;
  for (int p : group->trees) {
    if (stepping_[island_of_tree_[p]]) {
      rhs.segment(offset, model.size(p)) =
          -newton_grad_.segment(model.offset(p), model.size(p));
    }
    offset += model.size(p);
  }
  if (refine) {
    group->refine_rhs = rhs;
    group->factorization->SolveInPlace(&rhs);
    H.Multiply(rhs, &group->refine_product);
    group->refine_rhs -= group->refine_product;
    group->factorization->SolveInPlace(&group->refine_rhs);
    rhs += group->refine_rhs;
  } else {
    group->factorization->SolveInPlace(&rhs);
  }
  offset = 0;
  for (int p : group->trees) {
    if (stepping_[island_of_tree_[p]]) {
      dv_.segment(model.offset(p), model.size(p)) =
          rhs.segment(offset, model.size(p));
    }
    offset += model.size(p);
  }
}

}  // namespace sapcontact
