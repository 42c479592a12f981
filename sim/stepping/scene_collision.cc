#include "sapcontact/sim/stepping/scene_collision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {

std::vector<bool> MovingLinks(const MultibodyTree& tree) {
  std::vector<bool> moves(tree.num_links(), false);
  for (int l = 0; l < tree.num_links(); ++l) {
    const Joint& j = tree.joint(l);
    moves[l] =
        j.type != JointType::kFixed || (j.parent >= 0 && moves[j.parent]);
  }
  return moves;
}

void AppendGeometryPoses(const RobotDescription& robot,
                         const std::vector<Eigen::Isometry3d>& X_WL,
                         std::vector<Pose>* poses) {
  for (const RobotGeometry& g : robot.geometries) {
    Pose p;
    p.position = X_WL[g.link] * g.pose_in_link.position;
    p.orientation =
        Eigen::Quaterniond(X_WL[g.link].linear()) * g.pose_in_link.orientation;
    poses->push_back(p);
  }
}

std::vector<Pose> ColliderPoses(const Scene& scene,
                                const std::vector<Eigen::VectorXd>& q) {
  std::vector<Pose> poses;
  for (const Body& b : scene.bodies) poses.push_back(b.pose);
  std::vector<Eigen::Isometry3d> X_WL;
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    const RobotDescription& d = scene.robots[r].description;
    CalcLinkPoses(d.tree, q[r], &X_WL);
    AppendGeometryPoses(d, X_WL, &poses);
  }
  return poses;
}

CollisionDetector MakeCollisionDetector(const Scene& scene) {
  std::vector<CollisionGeometry> g;
  g.reserve(scene.bodies.size());
  for (const Body& b : scene.bodies) g.push_back({b.shape, b.fixed});
  std::vector<std::pair<int, int>> excluded;
  for (const RobotSpec& robot : scene.robots) {
    const RobotDescription& d = robot.description;
    const std::vector<bool> moves = MovingLinks(d.tree);
    const int first = static_cast<int>(g.size());
    for (const RobotGeometry& geometry : d.geometries) {
      g.push_back({geometry.shape, !moves[geometry.link]});
    }
    const int n = static_cast<int>(d.geometries.size());
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const int li = d.geometries[i].link, lj = d.geometries[j].link;
        const bool adjacent = li == lj || d.tree.joint(li).parent == lj ||
                              d.tree.joint(lj).parent == li;
        if (!robot.self_collision || adjacent) {
          excluded.emplace_back(first + i, first + j);
        }
      }
    }
  }
  CollisionDetector detector(std::move(g));
  detector.SetExcludedPairs(std::move(excluded));
  return detector;
}

bool ContactCarriesNoImpulse(const Contact& c, double dt,
                             const RegularizationParameters& reg, double w,
                             const Vector3& v_c, double allowance) {
  const double phi0 = c.phi0;
  if (!(phi0 > 0.0)) return false;
  const ContactParameters& p = c.parameters;
  const bool sap = p.model == ContactModel::kSap;
  const double h = sap ? dt + p.dissipation_time_scale : dt;
  // Soft-norm offset of sap's friction (R_t eps_s with R_t <= sigma w).
  const double delta =
      sap ? reg.friction_regularization * w * reg.soft_norm_tolerance : 0.0;
  const double slip = std::hypot(v_c(kTangent1), v_c(kTangent2));
  const double approach = v_c(kNormal) - allowance;
  const double gap_end =
      phi0 + h * (approach - p.friction * (slip + allowance + delta));
  return gap_end > 1e-6 * phi0;
}

namespace {

// v_c = J v + bias of contact c at the stacked velocities v.
Vector3 ContactVelocityAt(const Contact& c, const std::vector<int>& offsets,
                          const Eigen::VectorXd& v) {
  Vector3 v_c = c.bias_velocity;
  v_c.noalias() +=
      c.first.J * v.segment(offsets[c.first.tree], c.first.J.cols());
  if (c.second) {
    v_c.noalias() +=
        c.second->J * v.segment(offsets[c.second->tree], c.second->J.cols());
  }
  return v_c;
}

// J A_t^-1 J' of one Jacobian block (A_t^-1 formed once per solve).
Matrix3 SideDelassus(const SapProblem& problem, const ContactJacobianBlock& b,
                     InactiveContactPruning* pruning) {
  const int t = b.tree;
  Eigen::MatrixXd& A_inv = pruning->A_inv[t];
  if (!pruning->A_inv_ready[t]) {
    const Eigen::MatrixXd& A = problem.trees[t].A;
    A_inv = A.llt().solve(Eigen::MatrixXd::Identity(A.rows(), A.cols()));
    pruning->A_inv_ready[t] = 1;
  }
  if (b.J.cols() == 6) {  // a free body: fixed sizes, no temporaries
    const Eigen::Map<const Eigen::Matrix<double, 3, 6>> J(b.J.data());
    const Eigen::Map<const Eigen::Matrix<double, 6, 6>> Ai(A_inv.data());
    return J * Ai * J.transpose();
  }
  pruning->solved.noalias() = A_inv * b.J.transpose();
  Matrix3 W;
  W.noalias() = b.J * pruning->solved;
  return W;
}

// Plain Delassus estimate w of contact c (docs/theory.md §3), an upper bound
// of the supported one (§19): W_kk = sum J A_t^-1 J' over its trees.
double PlainDelassusEstimate(const SapProblem& problem, const Contact& c,
                             InactiveContactPruning* pruning) {
  Matrix3 W = SideDelassus(problem, c.first, pruning);
  if (c.second) W += SideDelassus(problem, *c.second, pruning);
  return DelassusDiagonalEstimate(W);
}

// The supported Delassus estimate's scale of each side of each contact with
// use[k] set (docs/theory.md §19, the rule of SapModel): a side's mass is
// 1 / w of its block (the world's infinite); per patch (tree pair) the
// heaviest view of each side; per tree the two heaviest neighbours over its
// patches; a side lighter than min(support through another patch, the
// other side's mass) is scaled by own / that. side_mass holds 2 per contact.
void SupportScales(const SapProblem& problem, const std::vector<char>& use,
                   const std::vector<double>& side_mass,
                   InactiveContactPruning* pruning,
                   std::vector<double>* scale) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  InactiveContactPruning& w = *pruning;
  const int nc = static_cast<int>(problem.contacts.size());
  const int nt = static_cast<int>(problem.trees.size());
  // Patches: contacts sorted by their tree pair (i = larger tree, j = the
  // smaller or -1 for the world).
  w.patch_key.clear();
  for (int k = 0; k < nc; ++k) {
    if (!use[k]) continue;
    const Contact& c = problem.contacts[k];
    const int a = c.first.tree, b = c.second ? c.second->tree : -1;
    const long long i = std::max(a, b), j = b < 0 ? -1 : std::min(a, b);
    w.patch_key.emplace_back(i * (nt + 1) + (j + 1), k);
  }
  std::sort(w.patch_key.begin(), w.patch_key.end());
  w.patch_of.assign(nc, -1);
  w.patch_mass.clear();
  w.patch_trees.clear();
  for (size_t n = 0; n < w.patch_key.size(); ++n) {
    const int k = w.patch_key[n].second;
    const Contact& c = problem.contacts[k];
    const int a = c.first.tree, b = c.second ? c.second->tree : -1;
    const int i = std::max(a, b), j = b < 0 ? -1 : std::min(a, b);
    if (n == 0 || w.patch_key[n].first != w.patch_key[n - 1].first) {
      w.patch_trees.emplace_back(i, j);
      w.patch_mass.emplace_back(0.0, j < 0 ? kInf : 0.0);
    }
    const int p = static_cast<int>(w.patch_trees.size()) - 1;
    w.patch_of[k] = p;
    // Side 0 is the first block's tree.
    const int side_i = a == i ? 0 : 1;
    w.patch_mass[p].first =
        std::max(w.patch_mass[p].first, side_mass[2 * k + side_i]);
    if (j >= 0) {
      w.patch_mass[p].second =
          std::max(w.patch_mass[p].second, side_mass[2 * k + 1 - side_i]);
    }
  }
  // Per tree: the two heaviest neighbours and their patches.
  w.best.assign(2 * nt, {0.0, -1});
  auto offer = [&](int t, double mass, int p) {
    std::pair<double, int>* best = &w.best[2 * t];
    if (mass > best[0].first) {
      best[1] = best[0];
      best[0] = {mass, p};
    } else if (mass > best[1].first) {
      best[1] = {mass, p};
    }
  };
  for (size_t p = 0; p < w.patch_trees.size(); ++p) {
    const auto [i, j] = w.patch_trees[p];
    offer(i, w.patch_mass[p].second, static_cast<int>(p));
    if (j >= 0) offer(j, w.patch_mass[p].first, static_cast<int>(p));
  }
  scale->assign(2 * nc, 1.0);
  for (int k = 0; k < nc; ++k) {
    if (!use[k]) continue;
    const Contact& c = problem.contacts[k];
    const int p = w.patch_of[k];
    const int i = w.patch_trees[p].first;
    for (int side = 0; side < (c.second ? 2 : 1); ++side) {
      const int t = side == 0 ? c.first.tree : c.second->tree;
      const std::pair<double, int>* best = &w.best[2 * t];
      const double support =
          best[0].second != p ? best[0].first : best[1].first;
      const double other =
          t == i ? w.patch_mass[p].second : w.patch_mass[p].first;
      const double own = side_mass[2 * k + side];
      const double raised = std::min(support, other);
      if (raised > own && std::isfinite(own)) {
        (*scale)[2 * k + side] = own / raised;
      }
    }
  }
}

void AddStatistics(const SapSolverStatistics& a, SapSolverStatistics* b) {
  b->newton_iterations += a.newton_iterations;
  b->island_newton_iterations += a.island_newton_iterations;
  b->factorizations += a.factorizations;
  b->predicted_iterations += a.predicted_iterations;
  b->predicted_contacts += a.predicted_contacts;
  b->rejected_predictions += a.rejected_predictions;
  b->line_search_iterations += a.line_search_iterations;
  b->symbolic_analyses += a.symbolic_analyses;
  b->time_model += a.time_model;
  b->time_assembly += a.time_assembly;
  b->time_factorization += a.time_factorization;
  b->time_line_search += a.time_line_search;
  b->time_other += a.time_other;
  b->time_total += a.time_total;
}

}  // namespace

void SolveWithoutInactiveContacts(
    SapSolver* solver, const SapProblem& problem,
    const std::vector<const Eigen::VectorXd*>& candidates,
    InactiveContactPruning* pruning, SapSolverResults* results) {
  InactiveContactPruning& w = *pruning;
  w.pruned = 0;
  w.restored = 0;
  w.support_fallbacks = 0;
  w.solves = 0;
  if (!w.enabled || problem.contacts.empty()) {
    w.solves = 1;
    solver->SolveFromCandidates(problem, candidates, results);
    return;
  }
  const double dt = problem.time_step;
  const RegularizationParameters& reg = solver->parameters().regularization;
  const int nc = static_cast<int>(problem.contacts.size());
  const int nt = static_cast<int>(problem.trees.size());
  w.tree_offsets.resize(nt + 1);
  w.tree_offsets[0] = 0;
  for (int t = 0; t < nt; ++t) {
    w.tree_offsets[t + 1] =
        w.tree_offsets[t] + static_cast<int>(problem.trees[t].v_star.size());
  }
  w.A_inv.resize(nt);
  w.A_inv_ready.assign(nt, 0);
  // Free-motion velocities v*, stacked.
  w.v_previous.resize(w.tree_offsets[nt]);
  for (int t = 0; t < nt; ++t) {
    w.v_previous.segment(w.tree_offsets[t], problem.trees[t].v_star.size()) =
        problem.trees[t].v_star;
  }
  // A block the solver would reject is never pruned: the solver sees it and
  // names it (SapSolver checks the problem it is given).
  auto well_formed = [&](const ContactJacobianBlock& b) {
    return b.tree >= 0 && b.tree < nt && b.J.rows() == 3 &&
           b.J.cols() == problem.trees[b.tree].A.rows() &&
           b.J.cols() == problem.trees[b.tree].v_star.size();
  };
  // Predicted inactive at free motion, with the allowance.
  w.prune.assign(nc, 0);
  w.w_plain.resize(nc);
  int predicted = 0;
  bool bad = false;
  for (int k = 0; k < nc; ++k) {
    const Contact& c = problem.contacts[k];
    if (!well_formed(c.first) ||
        (c.second &&
         (!well_formed(*c.second) || c.second->tree == c.first.tree))) {
      bad = true;
      break;
    }
    if (!(c.phi0 > 0.0) || !std::isfinite(c.phi0)) continue;
    const Vector3 v_c = ContactVelocityAt(c, w.tree_offsets, w.v_previous);
    // Cheap test first (delta = 0 is the most favourable), then the exact
    // one with the contact's Delassus estimate.
    if (!ContactCarriesNoImpulse(c, dt, reg, 0.0, v_c, w.velocity_allowance)) {
      continue;
    }
    w.w_plain[k] = PlainDelassusEstimate(problem, c, pruning);
    if (!ContactCarriesNoImpulse(c, dt, reg, w.w_plain[k], v_c,
                                 w.velocity_allowance)) {
      continue;
    }
    try {
      Validate(c.parameters);
    } catch (const std::invalid_argument&) {
      continue;  // the solver names it
    }
    w.prune[k] = 1;
    ++predicted;
  }
  if (bad || predicted == 0 || predicted < w.min_fraction * nc) {
    w.solves = 1;
    solver->SolveFromCandidates(problem, candidates, results);
    return;
  }
  // The problem without the pruned contacts (buffers reused).
  w.reduced.time_step = problem.time_step;
  w.reduced.trees = problem.trees;
  w.reduced.limits = problem.limits;
  w.reduced.holonomic = problem.holonomic;
  w.reduced.actuation = problem.actuation;
  SapSolverStatistics earlier;
  const std::vector<const Eigen::VectorXd*>* starts = &candidates;
  if (reg.supported_delassus_estimate) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    w.side_mass.resize(2 * nc);
    for (int k = 0; k < nc; ++k) {
      const Contact& c = problem.contacts[k];
      const double w0 =
          DelassusDiagonalEstimate(SideDelassus(problem, c.first, pruning));
      w.side_mass[2 * k] = w0 > 0.0 ? 1.0 / w0 : kInf;
      w.side_mass[2 * k + 1] = kInf;
      if (c.second) {
        const double w1 =
            DelassusDiagonalEstimate(SideDelassus(problem, *c.second, pruning));
        w.side_mass[2 * k + 1] = w1 > 0.0 ? 1.0 / w1 : kInf;
      }
    }
    w.use.assign(nc, 1);
    SupportScales(problem, w.use, w.side_mass, pruning, &w.scale_full);
  }
  for (;;) {
    // The supported estimate of the kept contacts must not change: a pruned
    // contact that was a support of a kept contact's tree goes back (with
    // every pruned contact on that tree), until no kept scale changes.
    while (reg.supported_delassus_estimate) {
      for (int k = 0; k < nc; ++k) w.use[k] = !w.prune[k];
      SupportScales(problem, w.use, w.side_mass, pruning, &w.scale_reduced);
      w.changed_tree.assign(nt, 0);
      bool changed = false;
      for (int k = 0; k < nc; ++k) {
        if (!w.use[k]) continue;
        const Contact& c = problem.contacts[k];
        for (int side = 0; side < (c.second ? 2 : 1); ++side) {
          const double full = w.scale_full[2 * k + side];
          if (std::abs(w.scale_reduced[2 * k + side] - full) > 1e-12 * full) {
            w.changed_tree[side == 0 ? c.first.tree : c.second->tree] = 1;
            changed = true;
          }
        }
      }
      if (!changed) break;
      ++w.support_fallbacks;
      for (int k = 0; k < nc; ++k) {
        const Contact& c = problem.contacts[k];
        if (w.prune[k] && (w.changed_tree[c.first.tree] ||
                           (c.second && w.changed_tree[c.second->tree]))) {
          w.prune[k] = 0;
        }
      }
    }
    w.kept.clear();
    for (int k = 0; k < nc; ++k) {
      if (!w.prune[k]) w.kept.push_back(k);
    }
    w.reduced.contacts.resize(w.kept.size());
    for (size_t i = 0; i < w.kept.size(); ++i) {
      w.reduced.contacts[i] = problem.contacts[w.kept[i]];
    }
    try {
      solver->SolveFromCandidates(w.reduced, *starts, &w.reduced_results);
    } catch (const std::invalid_argument&) {
      // The error names a kept contact by its index in the reduced problem:
      // the plain solve names it by its own.
      w.pruned = 0;
      w.solves = 1;
      solver->SolveFromCandidates(problem, candidates, results);
      return;
    }
    ++w.solves;
    // Check every pruned contact at the solution, exactly (no allowance).
    int back = 0;
    for (int k = 0; k < nc; ++k) {
      if (!w.prune[k]) continue;
      const Contact& c = problem.contacts[k];
      const Vector3 v_c =
          ContactVelocityAt(c, w.tree_offsets, w.reduced_results.v);
      if (!ContactCarriesNoImpulse(c, dt, reg, w.w_plain[k], v_c, 0.0)) {
        w.prune[k] = 0;
        ++back;
      }
    }
    if (back == 0) break;
    w.restored += back;
    AddStatistics(w.reduced_results.statistics, &earlier);
    // Again from the last solution (and the caller's candidates).
    w.v_previous = w.reduced_results.v;
    w.candidates.assign(1, &w.v_previous);
    w.candidates.insert(w.candidates.end(), candidates.begin(),
                        candidates.end());
    starts = &w.candidates;
  }
  // Results of the full problem.
  const SapSolverResults& r = w.reduced_results;
  results->status = r.status;
  results->message = r.message;
  results->v = r.v;
  results->constraint_velocities = r.constraint_velocities;
  results->constraint_impulses = r.constraint_impulses;
  results->generalized_impulse = r.generalized_impulse;
  results->statistics = r.statistics;
  AddStatistics(earlier, &results->statistics);
  results->gamma.setZero(3 * nc);
  results->v_c.resize(3 * nc);
  results->delassus_estimate.resize(nc);
  results->R_n.resize(nc);
  results->R_t.resize(nc);
  results->effective_stiffness.resize(nc);
  int i = 0;
  for (int k = 0; k < nc; ++k) {
    if (!w.prune[k]) {
      results->gamma.segment<3>(3 * k) = r.gamma.segment<3>(3 * i);
      results->v_c.segment<3>(3 * k) = r.v_c.segment<3>(3 * i);
      results->delassus_estimate(k) = r.delassus_estimate(i);
      results->R_n(k) = r.R_n(i);
      results->R_t(k) = r.R_t(i);
      results->effective_stiffness(k) = r.effective_stiffness(i);
      ++i;
      continue;
    }
    ++w.pruned;
    const Contact& c = problem.contacts[k];
    results->v_c.segment<3>(3 * k) = ContactVelocityAt(c, w.tree_offsets, r.v);
    const ContactConstraint constraint = ContactConstraint::Make(
        c.parameters, reg, dt, w.w_plain[k], c.phi0, c.normal_velocity0);
    results->delassus_estimate(k) = w.w_plain[k];
    results->R_n(k) = constraint.regularization().R_n;
    results->R_t(k) = constraint.regularization().R_t;
    results->effective_stiffness(k) = constraint.effective_stiffness();
  }
}

}  // namespace sapcontact
