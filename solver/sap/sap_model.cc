#include "sapcontact/solver/sap/sap_model.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>

#include "sapcontact/contact_model/constraint_regularization.h"

namespace sapcontact {

namespace {

// Solves L Y = B in place for the lower triangle L of `factor` (n x n,
// column-major: a Cholesky factor's matrixLLT()) and M right-hand sides
// stored row by row at y (y[M i + c], n rows), whose rows before `first`
// are zero (and stay zero). Column-oriented, so that L is read down its
// columns: n^2 M / 2 multiply-adds from `first` on, no blocking overhead
// for the small trees of robots.
template <int M>
void ForwardSubstitution(const Eigen::MatrixXd& factor, int first, double* y) {
  const int n = static_cast<int>(factor.rows());
  for (int k = first; k < n; ++k) {
    const double* column = factor.data() + static_cast<size_t>(k) * n;
    double* yk = y + M * k;
    for (int c = 0; c < M; ++c) yk[c] /= column[k];
    for (int i = k + 1; i < n; ++i) {
      const double l = column[i];
      double* yi = y + M * i;
      for (int c = 0; c < M; ++c) yi[c] -= l * yk[c];
    }
  }
}

// Contacts handed to a pool thread at a time in Build (enough work per
// hand-out to hide its atomic increment).
constexpr int kContactGrain = 32;
// Fewer contacts (trees) than this run on the calling thread even with a
// pool: measured on 2 cores, the 48-body clutter (160 contacts, 48 trees)
// ran 4 % slower with 2 threads than with 1 when its contact loops went to
// the pool (the workers' share is smaller than moving its data between
// cores).
constexpr int kMinParallelContacts = 256;
constexpr int kMinParallelTrees = 128;

// A^-1 = L^-T L^-1 of a 6 x 6 SPD A from its Cholesky factor (the lower
// triangle of `llt`), with L^-1 by forward substitution: fixed-size loops,
// where Eigen's LLT::solve(Identity) runs its general blocked triangular
// solve (2-4 times the instructions of the whole model of one box).
Eigen::Matrix<double, 6, 6> InverseFromCholesky(
    const Eigen::Matrix<double, 6, 6>& llt) {
  Eigen::Matrix<double, 6, 6> L_inverse = Eigen::Matrix<double, 6, 6>::Zero();
  for (int j = 0; j < 6; ++j) {
    L_inverse(j, j) = 1.0 / llt(j, j);
    for (int i = j + 1; i < 6; ++i) {
      double sum = 0.0;
      for (int k = j; k < i; ++k) sum += llt(i, k) * L_inverse(k, j);
      L_inverse(i, j) = -sum / llt(i, i);
    }
  }
  return L_inverse.transpose() * L_inverse;
}

}  // namespace

SapModel::SapModel(const SapProblem& problem,
                   const RegularizationParameters& reg) {
  Build(problem, reg);
}

std::vector<int> SapModel::TakeList() {
  if (spare_lists_.empty()) return {};
  std::vector<int> list = std::move(spare_lists_.back());
  spare_lists_.pop_back();
  list.clear();
  return list;
}

void SapModel::GiveList(std::vector<int>* list) {
  spare_lists_.push_back(std::move(*list));
}

int SapModel::PatchOf(int i, int j) {
  for (int q = patch_head_[i]; q >= 0; q = patch_next_[q]) {
    if (patches_[q].tree_j == j) return q;
  }
  const int q = static_cast<int>(patches_.size());
  Patch patch;
  patch.tree_i = i;
  patch.tree_j = j;
  patch.contacts = TakeList();
  patch.constraints = TakeList();
  patches_.push_back(std::move(patch));
  patch_next_.push_back(patch_head_[i]);
  patch_head_[i] = q;
  return q;
}

// Build() runs its phases in order: the participating trees and their
// A^-1, the contacts' Delassus blocks and patches, their regularization,
// the other constraints, then the Hessian pattern, the islands and the wide
// trees' stacked Jacobians.
void SapModel::Build(const SapProblem& problem,
                     const RegularizationParameters& reg, ThreadPool* pool) {
  problem_ = &problem;
  SelectTrees(problem);
  FactorTrees(problem, pool);
  BuildContacts(problem, pool);
  if (reg.supported_delassus_estimate) ComputeSupportScales();
  RegularizeContacts(problem, reg, pool);
  AddConstraints(problem, reg);
  active_.assign(num_contacts(), 1);
  num_active_contacts_ = num_contacts();
  BuildPattern();
  BuildIslands();
  BuildWideTrees();
}

void SapModel::SetActiveContacts(const std::vector<char>& active) {
  if (active.size() != contacts_.size()) {
    throw std::invalid_argument(
        "SapModel::SetActiveContacts: " + std::to_string(active.size()) +
        " flags for " + std::to_string(contacts_.size()) + " contacts");
  }
  active_ = active;
  num_active_contacts_ = 0;
  for (char a : active_) num_active_contacts_ += a ? 1 : 0;
  // The graph again: patches of the active contacts and of every other
  // constraint, then the pattern, the islands and the wide trees.
  for (Patch& patch : patches_) {
    GiveList(&patch.contacts);
    GiveList(&patch.constraints);
  }
  patches_.clear();
  patch_head_.assign(num_trees(), -1);
  patch_next_.clear();
  for (int k = 0; k < num_contacts(); ++k) {
    if (!active_[k]) continue;
    const ModelContact& m = contacts_[k];
    patches_[PatchOfTrees(m.tree_a, m.tree_b)].contacts.push_back(k);
  }
  for (int k = 0; k < num_constraints(); ++k) {
    const ModelConstraint& m = constraints_[k];
    patches_[PatchOfTrees(m.tree_a, m.tree_b)].constraints.push_back(k);
  }
  BuildPattern();
  BuildIslands();
  BuildWideTrees();
}

Vector3 SapModel::ContactVelocity(int k, const Eigen::VectorXd& v) const {
  const ModelContact& m = contacts_[k];
  auto product = [&](const Eigen::MatrixXd& J, int p) -> Vector3 {
    if (sizes_[p] == 6) {
      return Eigen::Map<const Eigen::Matrix<double, 3, 6>>(J.data()) *
             v.segment<6>(offsets_[p]);
    }
    return J.lazyProduct(v.segment(offsets_[p], sizes_[p]));
  };
  Vector3 vc = product(*m.J_a, m.tree_a) + m.bias;
  if (m.J_b) vc += product(*m.J_b, m.tree_b);
  return vc;
}

template <class Body>
void SapModel::ForEachContact(ThreadPool* pool, int n, const Body& body) {
  // Every contact's work writes its own entries only.
  if (pool == nullptr || n < kMinParallelContacts) {
    for (int k = 0; k < n; ++k) body(k);
  } else {
    pool->ForEach(
        n, [&](int k, int) { body(k); }, kContactGrain);
  }
}

void SapModel::SelectTrees(const SapProblem& problem) {
  const int nt = static_cast<int>(problem.trees.size());
  // Participating trees, in problem order.
  touched_.assign(nt, 0);
  for (const Contact& c : problem.contacts) {
    touched_[c.first.tree] = 1;
    if (c.second) touched_[c.second->tree] = 1;
  }
  for (const LimitConstraint& c : problem.limits) {
    touched_[c.first.tree] = 1;
    if (c.second) touched_[c.second->tree] = 1;
  }
  for (const HolonomicConstraint& c : problem.holonomic) {
    touched_[c.first.tree] = 1;
    if (c.second) touched_[c.second->tree] = 1;
  }
  for (const ActuationConstraint& c : problem.actuation) {
    touched_[c.first.tree] = 1;
  }
  participating_.assign(nt, -1);
  tree_of_.clear();
  offsets_.clear();
  full_offsets_.clear();
  sizes_.clear();
  num_velocities_ = 0;
  int full_offset = 0;
  for (int t = 0; t < nt; ++t) {
    const int n = static_cast<int>(problem.trees[t].A.rows());
    if (touched_[t]) {
      participating_[t] = static_cast<int>(tree_of_.size());
      tree_of_.push_back(t);
      offsets_.push_back(num_velocities_);
      full_offsets_.push_back(full_offset);
      sizes_.push_back(n);
      num_velocities_ += n;
    }
    full_offset += n;
  }
}

void SapModel::FactorTrees(const SapProblem& problem, ThreadPool* pool) {
  v_star_.resize(num_velocities_);
  D_.resize(num_velocities_);
  // Per participating tree, once per step, what the Delassus estimates
  // need: A_t^-1 of a free body (6 DOFs: a fixed-size path, no
  // allocation), the Cholesky factor L of a wider tree (J A^-1 J' =
  // (L^-1 J')' (L^-1 J'): triangular solves with the rows, no inverse). The
  // factorization also checks that A_t is SPD.
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  A_inv6_.resize(tree_of_.size());
  A_llt_.resize(tree_of_.size());
  // Per tree, on the pool when there is one (each tree writes its own
  // entries); a tree that is not SPD: the lowest such one is named.
  std::atomic<int> first_not_spd{num_trees()};
  auto invert_tree = [&](int p, int) {
    const Tree& tree = problem.trees[tree_of_[p]];
    v_star_.segment(offsets_[p], sizes_[p]) = tree.v_star;
    D_.segment(offsets_[p], sizes_[p]) =
        tree.A.diagonal().cwiseSqrt().cwiseInverse();
    bool spd = true;
    if (sizes_[p] == 6) {
      const Eigen::LLT<Matrix6> llt(tree.A);
      spd = llt.info() == Eigen::Success;
      if (spd) A_inv6_[p] = InverseFromCholesky(llt.matrixLLT());
    } else {
      A_llt_[p].compute(tree.A);
      spd = A_llt_[p].info() == Eigen::Success;
    }
    if (!spd) {
      int seen = first_not_spd.load();
      while (p < seen && !first_not_spd.compare_exchange_weak(seen, p)) {
      }
    }
  };
  if (pool == nullptr || num_trees() < kMinParallelTrees) {
    for (int p = 0; p < num_trees(); ++p) invert_tree(p, 0);
  } else {
    pool->ForEach(num_trees(), invert_tree, kContactGrain);
  }
  if (first_not_spd < num_trees()) {
    const int t = tree_of_[first_not_spd];
    const Tree& tree = problem.trees[t];
    throw std::invalid_argument(
        "tree " + std::to_string(t) +
        (tree.name.empty() ? std::string() : " ('" + tree.name + "')") +
        ": matrix A is not positive definite");
  }
}

Matrix3 SapModel::JAinvJt(const Eigen::MatrixXd& J, int p) const {
  if (sizes_[p] == 6) {
    const Eigen::Map<const Eigen::Matrix<double, 3, 6>> J6(J.data());
    return J6 * A_inv6_[p] * J6.transpose();
  }
  // Y = L^-1 J' (3 x n here, column i = Y's row i; per thread: concurrent
  // contacts), J A^-1 J' = Y' Y.
  thread_local Eigen::Matrix<double, 3, Eigen::Dynamic> Y;
  Y = J;
  const int n = sizes_[p];
  int first = 0;
  while (first < n && Y.col(first).isZero(0.0)) ++first;
  ForwardSubstitution<3>(A_llt_[p].matrixLLT(), first, Y.data());
  Matrix3 W = Matrix3::Zero();
  for (int i = first; i < n; ++i) {
    W.noalias() += Y.col(i) * Y.col(i).transpose();
  }
  return W;
}

double SapModel::RowDelassus(const Eigen::MatrixXd& J, int p, int i) const {
  if (sizes_[p] == 6) {
    const Eigen::Matrix<double, 1, 6> row = J.row(i);
    return row * A_inv6_[p] * row.transpose();
  }
  // |L^-1 r|^2 for the row r: its leading zeros (a joint's unit row, a
  // coupling's two entries) stay zeros in L^-1 r, so the substitution
  // starts at the first nonzero entry.
  const int n = sizes_[p];
  int first = 0;
  while (first < n && J(i, first) == 0.0) ++first;
  if (first == n) return 0.0;
  thread_local Eigen::VectorXd y;
  y = J.row(i).transpose();
  ForwardSubstitution<1>(A_llt_[p].matrixLLT(), first, y.data());
  return y.tail(n - first).squaredNorm();
}

void SapModel::BuildContacts(const SapProblem& problem, ThreadPool* pool) {
  // Contacts: each side's Delassus block; patches by tree pair.
  // Contacts of one pair usually come together (collision detection lists
  // them so): the previous contact's patch is tried before the lookup.
  spare_lists_.reserve(spare_lists_.size() + patches_.size() +
                       3 * islands_.size());
  for (Patch& patch : patches_) {
    GiveList(&patch.contacts);
    GiveList(&patch.constraints);
  }
  patches_.clear();
  patch_head_.assign(num_trees(), -1);
  patch_next_.clear();
  std::pair<int, int> last_pair{-2, -2};
  int last_patch = -1;
  const int nc = static_cast<int>(problem.contacts.size());
  contacts_.resize(nc);
  has_bias_ = false;
  side_W_.resize(2 * nc);
  patch_of_contact_.resize(nc);
  ForEachContact(pool, nc, [&](int k) {
    const Contact& c = problem.contacts[k];
    ModelContact& m = contacts_[k];
    m.tree_a = participating_[c.first.tree];
    m.J_a = &c.first.J;
    side_W_[2 * k] = JAinvJt(c.first.J, m.tree_a);
    side_W_[2 * k + 1].setZero();
    m.tree_b = -1;
    m.J_b = nullptr;
    if (c.second) {
      m.tree_b = participating_[c.second->tree];
      m.J_b = &c.second->J;
      side_W_[2 * k + 1] = JAinvJt(c.second->J, m.tree_b);
    }
    m.bias = c.bias_velocity;
  });
  for (int k = 0; k < nc; ++k) {
    const ModelContact& m = contacts_[k];
    if (!m.bias.isZero(0.0)) has_bias_ = true;
    const int i = std::max(m.tree_a, m.tree_b);
    const int j = m.tree_b < 0 ? -1 : std::min(m.tree_a, m.tree_b);
    if (std::make_pair(i, j) != last_pair) {
      last_pair = {i, j};
      last_patch = PatchOf(i, j);
    }
    patches_[last_patch].contacts.push_back(k);
    patch_of_contact_[k] = last_patch;
  }
}

void SapModel::RegularizeContacts(const SapProblem& problem,
                                  const RegularizationParameters& reg,
                                  ThreadPool* pool) {
  // Regularization (a contact that cannot be regularized, e.g. k = inf
  // with beta = 0, throws: the lowest such contact, named).
  auto regularize = [&](int k) {
    const Contact& c = problem.contacts[k];
    ModelContact& m = contacts_[k];
    if (reg.supported_delassus_estimate) {
      m.w = DelassusDiagonalEstimate(support_scale_[2 * k] * side_W_[2 * k] +
                                     support_scale_[2 * k + 1] *
                                         side_W_[2 * k + 1]);
    } else {
      m.w = DelassusDiagonalEstimate(side_W_[2 * k] + side_W_[2 * k + 1]);
    }
    try {
      m.constraint =
          ContactConstraint::Make(c.parameters, reg, problem.time_step, m.w,
                                  c.phi0, c.normal_velocity0);
    } catch (const std::invalid_argument& e) {
      // Name the contact only on failure (no string work per contact).
      throw std::invalid_argument(
          "contact " + std::to_string(k) +
          (c.name.empty() ? std::string() : " ('" + c.name + "')") + ": " +
          e.what());
    }
  };
  const int nc = num_contacts();
  std::atomic<int> first_failed{nc};
  ForEachContact(pool, nc, [&](int k) {
    try {
      regularize(k);
    } catch (const std::invalid_argument&) {
      int seen = first_failed.load();
      while (k < seen && !first_failed.compare_exchange_weak(seen, k)) {
      }
    }
  });
  if (first_failed < nc) regularize(first_failed);
}

void SapModel::BuildPattern() {
  // Hessian pattern: one off-diagonal block per two-tree patch.
  off_diagonal_.clear();
  for (Patch& patch : patches_) {
    patch.off_diagonal_block = -1;
    if (patch.tree_j < 0) continue;
    patch.off_diagonal_block = static_cast<int>(off_diagonal_.size());
    off_diagonal_.emplace_back(patch.tree_i, patch.tree_j);
  }
  pattern_.Assign(sizes_, off_diagonal_);
}

void SapModel::ComputeSupportScales() {
  // docs/theory.md §19. A side's "mass" in a contact is 1 / w_side, the
  // inverse of its share of the Delassus estimate; the world's is infinite.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int nc = num_contacts();
  auto side_mass = [&](int k, int side) {
    const double w = DelassusDiagonalEstimate(side_W_[2 * k + side]);
    return w > 0.0 ? 1.0 / w : kInf;
  };
  // Per patch: the heaviest view of each of its two sides (side of tree_i,
  // side of tree_j; the world for a single-tree patch).
  const int np = static_cast<int>(patches_.size());
  patch_mass_.assign(2 * np, 0.0);
  for (int p = 0; p < np; ++p) {
    const Patch& patch = patches_[p];
    if (patch.tree_j < 0) patch_mass_[2 * p + 1] = kInf;
    for (int k : patch.contacts) {
      const ModelContact& m = contacts_[k];
      const int side_i = m.tree_a == patch.tree_i ? 0 : 1;
      patch_mass_[2 * p] = std::max(patch_mass_[2 * p], side_mass(k, side_i));
      if (patch.tree_j >= 0) {
        patch_mass_[2 * p + 1] =
            std::max(patch_mass_[2 * p + 1], side_mass(k, 1 - side_i));
      }
    }
  }
  // Per tree: the two heaviest neighbours over its patches (the mass on the
  // other side of each patch) and the patches they come through.
  const int nt = num_trees();
  support_best_.assign(2 * nt, {0.0, -1});
  auto offer = [&](int t, double mass, int p) {
    std::pair<double, int>* best = &support_best_[2 * t];
    if (mass > best[0].first) {
      best[1] = best[0];
      best[0] = {mass, p};
    } else if (mass > best[1].first) {
      best[1] = {mass, p};
    }
  };
  for (int p = 0; p < np; ++p) {
    const Patch& patch = patches_[p];
    if (patch.contacts.empty()) continue;
    offer(patch.tree_i, patch_mass_[2 * p + 1], p);
    if (patch.tree_j >= 0) offer(patch.tree_j, patch_mass_[2 * p], p);
  }
  // Per contact side: a light side pressed against a heavy one and held by a
  // support at least that heavy counts as heavy as min(support, other side).
  support_scale_.assign(2 * nc, 1.0);
  for (int k = 0; k < nc; ++k) {
    const ModelContact& m = contacts_[k];
    const int p = patch_of_contact_[k];
    const Patch& patch = patches_[p];
    for (int side = 0; side < (m.tree_b < 0 ? 1 : 2); ++side) {
      const int t = side == 0 ? m.tree_a : m.tree_b;
      const std::pair<double, int>* best = &support_best_[2 * t];
      const double support =
          best[0].second != p ? best[0].first : best[1].first;
      const int other_slot = t == patch.tree_i ? 1 : 0;
      const double other = patch_mass_[2 * p + other_slot];
      const double own = side_mass(k, side);
      const double raised = std::min(support, other);
      if (raised > own && std::isfinite(own)) {
        support_scale_[2 * k + side] = own / raised;
      }
    }
  }
}

int SapModel::PatchOfTrees(int a, int b) {
  const int i = std::max(a, b);
  const int j = b < 0 ? -1 : std::min(a, b);
  return PatchOf(i, j);
}

void SapModel::AddConstraints(const SapProblem& problem,
                              const RegularizationParameters& reg) {
  constraints_.clear();
  rows_.clear();
  row_w_.clear();
  const double dt = problem.time_step;
  const double beta = reg.constraint_near_rigid_threshold;
  // Registers one constraint; `make_row(i, w)` builds row i.
  auto add = [&](const ConstraintJacobianBlock& first,
                 const std::optional<ConstraintJacobianBlock>& second,
                 const std::string& label, auto make_row) {
    ModelConstraint m;
    m.tree_a = participating_[first.tree];
    m.J_a = &first.J;
    if (second) {
      m.tree_b = participating_[second->tree];
      m.J_b = &second->J;
    }
    m.first_row = static_cast<int>(rows_.size());
    m.rows = static_cast<int>(first.J.rows());
    for (int i = 0; i < m.rows; ++i) {
      double w = RowDelassus(first.J, m.tree_a, i);
      if (second) w += RowDelassus(second->J, m.tree_b, i);
      try {
        rows_.push_back(make_row(i, w));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(label + ", row " + std::to_string(i) +
                                    ": " + e.what());
      }
      row_w_.push_back(w);
    }
    const int index = static_cast<int>(constraints_.size());
    constraints_.push_back(m);
    patches_[PatchOfTrees(m.tree_a, m.tree_b)].constraints.push_back(index);
  };
  auto label = [](const char* kind, size_t k, const std::string& name) {
    return std::string(kind) + " " + std::to_string(k) +
           (name.empty() ? std::string() : " ('" + name + "')");
  };
  for (size_t k = 0; k < problem.limits.size(); ++k) {
    const LimitConstraint& c = problem.limits[k];
    add(c.first, c.second, label("limit", k, c.name), [&](int i, double w) {
      return LimitRow(c.g0(i), c.stiffness, c.dissipation_time_scale, dt, w,
                      beta);
    });
  }
  for (size_t k = 0; k < problem.holonomic.size(); ++k) {
    const HolonomicConstraint& c = problem.holonomic[k];
    const bool bounded = c.impulse_lower.size() > 0;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    add(c.first, c.second, label("holonomic constraint", k, c.name),
        [&](int i, double w) {
          return HolonomicRow(c.g0(i), c.stiffness, c.relaxation_time, dt, w,
                              beta, bounded ? c.impulse_lower(i) : -kInf,
                              bounded ? c.impulse_upper(i) : kInf);
        });
  }
  for (size_t k = 0; k < problem.actuation.size(); ++k) {
    const ActuationConstraint& c = problem.actuation[k];
    add(c.first, std::nullopt, label("actuation", k, c.name),
        [&](int i, double w) {
          return ActuationRow(c.position(i), c.target(i), c.target_velocity(i),
                              c.feedforward(i), c.kp(i), c.kd(i),
                              c.effort_limit(i), dt, w, beta);
        });
  }
}

void SapModel::BuildWideTrees() {
  wide_of_tree_.assign(num_trees(), -1);
  wide_trees_.clear();
  for (int p = 0; p < num_trees(); ++p) {
    if (sizes_[p] < kWideTreeVelocities) continue;
    wide_of_tree_[p] = static_cast<int>(wide_trees_.size());
    wide_trees_.emplace_back();
  }
  if (wide_trees_.empty()) return;
  for (int k = 0; k < num_contacts(); ++k) {
    if (!active_[k]) continue;
    for (int p : {contacts_[k].tree_a, contacts_[k].tree_b}) {
      if (p >= 0 && wide_of_tree_[p] >= 0) {
        wide_trees_[wide_of_tree_[p]].contacts.push_back(k);
      }
    }
  }
  for (int p = 0; p < num_trees(); ++p) {
    if (wide_of_tree_[p] < 0) continue;
    WideTree& w = wide_trees_[wide_of_tree_[p]];
    const int m = static_cast<int>(w.contacts.size());
    w.J.resize(3 * m, sizes_[p]);
    for (int i = 0; i < m; ++i) {
      const ModelContact& c = contacts_[w.contacts[i]];
      w.J.middleRows<3>(3 * i) = c.tree_a == p ? *c.J_a : *c.J_b;
    }
  }
}

void SapModel::BuildIslands() {
  const int n = num_trees();
  components_.Reset(n);
  // Trees in the graph: those with an active contact or a constraint (all
  // participating trees unless contacts were set inactive).
  in_graph_.assign(n, 0);
  for (const Patch& patch : patches_) {
    in_graph_[patch.tree_i] = 1;
    if (patch.tree_j >= 0) {
      in_graph_[patch.tree_j] = 1;
      components_.Unite(patch.tree_i, patch.tree_j);
    }
  }
  // Number islands by their smallest tree (trees are visited in order, and
  // the root of a component is its smallest tree).
  for (Island& island : islands_) {
    GiveList(&island.trees);
    GiveList(&island.contacts);
    GiveList(&island.constraints);
    GiveList(&island.patches);
  }
  islands_.clear();
  island_of_tree_.assign(n, -1);
  island_of_root_.assign(n, -1);
  for (int p = 0; p < n; ++p) {
    if (!in_graph_[p]) continue;
    const int r = components_.Find(p);
    if (island_of_root_[r] < 0) {
      island_of_root_[r] = static_cast<int>(islands_.size());
      Island island;
      island.trees = TakeList();
      island.contacts = TakeList();
      island.constraints = TakeList();
      island.patches = TakeList();
      islands_.push_back(std::move(island));
    }
    Island& island = islands_[island_of_root_[r]];
    island_of_tree_[p] = island_of_root_[r];
    island.trees.push_back(p);
    island.num_velocities += sizes_[p];
  }
  for (int k = 0; k < num_contacts(); ++k) {
    if (!active_[k]) continue;
    islands_[island_of_tree_[contacts_[k].tree_a]].contacts.push_back(k);
  }
  for (int k = 0; k < num_constraints(); ++k) {
    islands_[island_of_tree_[constraints_[k].tree_a]].constraints.push_back(k);
  }
  for (int i = 0; i < static_cast<int>(patches_.size()); ++i) {
    islands_[island_of_tree_[patches_[i].tree_i]].patches.push_back(i);
  }
}

void SapModel::Gather(const Eigen::VectorXd& v_full, Eigen::VectorXd* v) const {
  v->resize(num_velocities_);
  for (int p = 0; p < num_trees(); ++p) {
    v->segment(offsets_[p], sizes_[p]) =
        v_full.segment(full_offsets_[p], sizes_[p]);
  }
}

void SapModel::Scatter(const Eigen::VectorXd& v,
                       Eigen::VectorXd* v_full) const {
  for (int p = 0; p < num_trees(); ++p) {
    v_full->segment(full_offsets_[p], sizes_[p]) =
        v.segment(offsets_[p], sizes_[p]);
  }
}

void SapModel::MultiplyA(const Eigen::VectorXd& x, Eigen::VectorXd* y) const {
  y->resize(num_velocities_);
  for (int p = 0; p < num_trees(); ++p) {
    y->segment(offsets_[p], sizes_[p]).noalias() =
        problem_->trees[tree_of_[p]].A * x.segment(offsets_[p], sizes_[p]);
  }
}

void SapModel::MultiplyJ(const Eigen::VectorXd& v, Eigen::VectorXd* v_c) const {
  v_c->resize(num_constraint_rows());
  for (const ModelConstraint& m : constraints_) {
    auto vc = v_c->segment(row_offset() + m.first_row, m.rows);
    vc.noalias() = *m.J_a * v.segment(offsets_[m.tree_a], sizes_[m.tree_a]);
    if (m.J_b) {
      vc.noalias() += *m.J_b * v.segment(offsets_[m.tree_b], sizes_[m.tree_b]);
    }
  }
  for (int k = 0; k < num_contacts(); ++k) {
    const ModelContact& m = contacts_[k];
    auto vc = v_c->segment<3>(3 * k);
    vc.noalias() =
        m.J_a->lazyProduct(v.segment(offsets_[m.tree_a], sizes_[m.tree_a]));
    if (m.J_b) {
      vc.noalias() +=
          m.J_b->lazyProduct(v.segment(offsets_[m.tree_b], sizes_[m.tree_b]));
    }
  }
}

void SapModel::AddBias(Eigen::VectorXd* v_c) const {
  if (!has_bias_) return;
  for (int k = 0; k < num_contacts(); ++k) {
    v_c->segment<3>(3 * k) += contacts_[k].bias;
  }
}

void SapModel::AddBias(const Island& island, Eigen::VectorXd* v_c) const {
  if (!has_bias_) return;
  for (int k : island.contacts) v_c->segment<3>(3 * k) += contacts_[k].bias;
}

void SapModel::MultiplyJTranspose(const Eigen::VectorXd& gamma,
                                  Eigen::VectorXd* out) const {
  out->setZero(num_velocities_);
  for (const ModelConstraint& m : constraints_) {
    const auto g = gamma.segment(row_offset() + m.first_row, m.rows);
    out->segment(offsets_[m.tree_a], sizes_[m.tree_a]).noalias() +=
        m.J_a->transpose() * g;
    if (m.J_b) {
      out->segment(offsets_[m.tree_b], sizes_[m.tree_b]).noalias() +=
          m.J_b->transpose() * g;
    }
  }
  for (int k = 0; k < num_contacts(); ++k) {
    const ModelContact& m = contacts_[k];
    const auto g = gamma.segment<3>(3 * k);
    out->segment(offsets_[m.tree_a], sizes_[m.tree_a]).noalias() +=
        m.J_a->transpose().lazyProduct(g);
    if (m.J_b) {
      out->segment(offsets_[m.tree_b], sizes_[m.tree_b]).noalias() +=
          m.J_b->transpose().lazyProduct(g);
    }
  }
}

double SapModel::EvaluateConstraints(const Eigen::VectorXd& v_c,
                                     Eigen::VectorXd* gamma,
                                     ConstraintHessians* G) const {
  gamma->resize(num_constraint_rows());
  if (G) {
    G->contacts.resize(num_contacts());
    G->rows.resize(rows_.size());
  }
  double cost = 0.0;
  ContactConstraintState s;
  for (int k = 0; k < num_contacts(); ++k) {
    contacts_[k].constraint.Evaluate(v_c.segment<3>(3 * k), G != nullptr, &s);
    gamma->segment<3>(3 * k) = s.gamma;
    if (G) G->contacts[k] = s.G;
    cost += s.cost;
  }
  const int r0 = row_offset();
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const ConstraintRowState r = rows_[i].Evaluate(v_c(r0 + i));
    (*gamma)(r0 + i) = r.gamma;
    if (G) G->rows(i) = r.G;
    cost += r.cost;
  }
  return cost;
}

namespace {

using Matrix36 = Eigen::Matrix<double, 3, 6>;
using Matrix63 = Eigen::Matrix<double, 6, 3>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using Vector6 = Eigen::Matrix<double, 6, 1>;

// block += Ji' G Jj for 3 x n Jacobian blocks of any sizes: lazy products
// (these blocks are tiny, and Eigen's general GEMM path costs more than the
// flops).
void AddJtGJ(const Eigen::MatrixXd& Ji, const Matrix3& G,
             const Eigen::MatrixXd& Jj, Eigen::MatrixXd* GJ_workspace,
             Eigen::MatrixXd* block) {
  GJ_workspace->noalias() = G.lazyProduct(Jj);
  block->noalias() += Ji.transpose().lazyProduct(*GJ_workspace);
}

}  // namespace

void SapModel::AssembleHessian(const ConstraintHessians& G,
                               BlockSparseSymmetricMatrix* H) const {
  for (const Island& island : islands_) AssembleHessian(island, G, H);
}

void SapModel::MultiplyA(const Island& island, const Eigen::VectorXd& x,
                         Eigen::VectorXd* y) const {
  for (int p : island.trees) {
    const Eigen::MatrixXd& A = problem_->trees[tree_of_[p]].A;
    if (sizes_[p] == 6) {  // a free body: fixed size, no GEMV call
      y->segment<6>(offsets_[p]).noalias() =
          Eigen::Map<const Matrix6>(A.data()) * x.segment<6>(offsets_[p]);
    } else {
      y->segment(offsets_[p], sizes_[p]).noalias() =
          A * x.segment(offsets_[p], sizes_[p]);
    }
  }
}

void SapModel::MultiplyJ(const Island& island, const Eigen::VectorXd& v,
                         Eigen::VectorXd* v_c) const {
  // J_t v_t of one side of a contact (fixed size for free bodies).
  auto product = [&](const Eigen::MatrixXd& J, int p) -> Vector3 {
    if (sizes_[p] == 6) {
      return Eigen::Map<const Matrix36>(J.data()) * v.segment<6>(offsets_[p]);
    }
    return J.lazyProduct(v.segment(offsets_[p], sizes_[p]));
  };
  for (int k : island.contacts) {
    const ModelContact& m = contacts_[k];
    Vector3 vc = product(*m.J_a, m.tree_a);
    if (m.J_b) vc += product(*m.J_b, m.tree_b);
    v_c->segment<3>(3 * k) = vc;
  }
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    auto vc = v_c->segment(row_offset() + m.first_row, m.rows);
    vc.noalias() = *m.J_a * v.segment(offsets_[m.tree_a], sizes_[m.tree_a]);
    if (m.J_b) {
      vc.noalias() += *m.J_b * v.segment(offsets_[m.tree_b], sizes_[m.tree_b]);
    }
  }
}

void SapModel::MultiplyJTranspose(const Island& island,
                                  const Eigen::VectorXd& gamma,
                                  Eigen::VectorXd* out) const {
  for (int p : island.trees) out->segment(offsets_[p], sizes_[p]).setZero();
  // out_t += J_t' g of one side of a contact (fixed size for free bodies).
  auto add = [&](const Eigen::MatrixXd& J, int p, const Vector3& g) {
    if (sizes_[p] == 6) {
      out->segment<6>(offsets_[p]).noalias() +=
          Eigen::Map<const Matrix36>(J.data()).transpose() * g;
    } else {
      out->segment(offsets_[p], sizes_[p]).noalias() +=
          J.transpose().lazyProduct(g);
    }
  };
  for (int k : island.contacts) {
    const ModelContact& m = contacts_[k];
    const Vector3 g = gamma.segment<3>(3 * k);
    add(*m.J_a, m.tree_a, g);
    if (m.J_b) add(*m.J_b, m.tree_b, g);
  }
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    const auto g = gamma.segment(row_offset() + m.first_row, m.rows);
    out->segment(offsets_[m.tree_a], sizes_[m.tree_a]).noalias() +=
        m.J_a->transpose() * g;
    if (m.J_b) {
      out->segment(offsets_[m.tree_b], sizes_[m.tree_b]).noalias() +=
          m.J_b->transpose() * g;
    }
  }
}

double SapModel::EvaluateConstraints(
    const Island& island, const Eigen::VectorXd& v_c, Eigen::VectorXd* gamma,
    ConstraintHessians* G, std::vector<ProjectionRegion>* regions) const {
  double cost = 0.0;
  ContactConstraintState s;
  for (int k : island.contacts) {
    contacts_[k].constraint.Evaluate(v_c.segment<3>(3 * k), G != nullptr, &s);
    gamma->segment<3>(3 * k) = s.gamma;
    if (G) G->contacts[k] = s.G;
    if (regions) (*regions)[k] = s.region;
    cost += s.cost;
  }
  const int r0 = row_offset();
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    for (int i = m.first_row; i < m.first_row + m.rows; ++i) {
      const ConstraintRowState r = rows_[i].Evaluate(v_c(r0 + i));
      (*gamma)(r0 + i) = r.gamma;
      if (G) G->rows(i) = r.G;
      cost += r.cost;
    }
  }
  return cost;
}

void SapModel::AssembleWideTree(int p, const std::vector<Matrix3>& G,
                                Eigen::MatrixXd* block) const {
  const WideTree& w = wide_trees_[wide_of_tree_[p]];
  const int m = static_cast<int>(w.contacts.size());
  // Only contacts with G != 0 contribute (separated ones have G = 0): their
  // rows J_k and G_k J_k are packed first.
  w.GJ.resize(3 * m, sizes_[p]);
  w.J_active.resize(3 * m, sizes_[p]);
  int rows = 0;
  for (int i = 0; i < m; ++i) {
    const Matrix3& Gk = G[w.contacts[i]];
    if ((Gk.array() == 0.0).all()) continue;
    w.J_active.middleRows<3>(rows) = w.J.middleRows<3>(3 * i);
    w.GJ.middleRows<3>(rows).noalias() = Gk * w.J.middleRows<3>(3 * i);
    rows += 3;
  }
  if (rows == 0) return;
  // Only the lower triangle: every reader of a BlockSparseSymmetricMatrix
  // uses only that (block_sparse_symmetric_matrix.h).
  block->triangularView<Eigen::Lower>() +=
      w.J_active.topRows(rows).transpose() * w.GJ.topRows(rows);
}

void SapModel::AssembleHessian(const Island& island,
                               const ConstraintHessians& Gs,
                               BlockSparseSymmetricMatrix* H) const {
  const std::vector<Matrix3>& G = Gs.contacts;
  // G J workspace of trees that are not free bodies, one per thread
  // (islands are assembled concurrently: SapSolverParameters::threads).
  thread_local Eigen::MatrixXd gj;
  for (int p : island.trees) {
    H->diagonal_block(p) = problem_->trees[tree_of_[p]].A;
    if (wide_of_tree_[p] >= 0) AssembleWideTree(p, G, &H->diagonal_block(p));
  }
  for (int patch_index : island.patches) {
    const Patch& patch = patches_[patch_index];
    Eigen::MatrixXd* off =
        patch.off_diagonal_block >= 0
            ? &H->off_diagonal_block(patch.off_diagonal_block)
            : nullptr;
    if (off) off->setZero();
    // Limits, holonomic constraints, actuation: J' diag(g) J row by row.
    for (int k : patch.constraints) {
      const ModelConstraint& m = constraints_[k];
      for (int i = 0; i < m.rows; ++i) {
        const double g = Gs.rows(m.first_row + i);
        if (g == 0.0) continue;
        const auto ja = m.J_a->row(i);
        H->diagonal_block(m.tree_a).noalias() += g * ja.transpose() * ja;
        if (!m.J_b) continue;
        const auto jb = m.J_b->row(i);
        H->diagonal_block(m.tree_b).noalias() += g * jb.transpose() * jb;
        if (m.tree_a > m.tree_b) {
          off->noalias() += g * ja.transpose() * jb;
        } else {
          off->noalias() += g * jb.transpose() * ja;
        }
      }
    }
    for (int k : patch.contacts) {
      const ModelContact& m = contacts_[k];
      const bool wide_a = wide_of_tree_[m.tree_a] >= 0;
      const bool wide_b = m.J_b && wide_of_tree_[m.tree_b] >= 0;
      if (sizes_[m.tree_a] == 6 && (!m.J_b || sizes_[m.tree_b] == 6)) {
        // Free bodies: with T = J' (6 x 3) and U = J' G = (G J)' (G is
        // symmetric), J_i' G J_j = T_i U_j': each column of a block is
        // three vectorized 6-element axpys (half the instructions of
        // forming J_i' (G J_j) from the 3 x 6 blocks).
        const Matrix63 Ta =
            Eigen::Map<const Matrix36>(m.J_a->data()).transpose();
        const Matrix63 Ua = Ta * G[k];
        Eigen::Map<Matrix6>(H->diagonal_block(m.tree_a).data()).noalias() +=
            Ta * Ua.transpose();
        if (m.J_b) {
          const Matrix63 Tb =
              Eigen::Map<const Matrix36>(m.J_b->data()).transpose();
          const Matrix63 Ub = Tb * G[k];
          Eigen::Map<Matrix6>(H->diagonal_block(m.tree_b).data()).noalias() +=
              Tb * Ub.transpose();
          // The coupling block (i, j), i > j: J_i' G J_j.
          Eigen::Map<Matrix6>(off->data()).noalias() +=
              m.tree_a > m.tree_b ? (Ta * Ub.transpose()).eval()
                                  : (Tb * Ua.transpose()).eval();
        }
        continue;
      }
      // J' G J restricted to this contact's trees: diagonal blocks
      // J_a' G J_a (+ J_b' G J_b) and the coupling block (i, j), i > j,
      // J_i' G J_j.
      if (!wide_a) {
        AddJtGJ(*m.J_a, G[k], *m.J_a, &gj, &H->diagonal_block(m.tree_a));
      }
      if (m.J_b) {
        if (!wide_b) {
          AddJtGJ(*m.J_b, G[k], *m.J_b, &gj, &H->diagonal_block(m.tree_b));
        }
        if (m.tree_a > m.tree_b) {
          AddJtGJ(*m.J_a, G[k], *m.J_b, &gj, off);
        } else {
          AddJtGJ(*m.J_b, G[k], *m.J_a, &gj, off);
        }
      }
    }
  }
}

}  // namespace sapcontact
