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

}  // namespace sapcontact
