// The collision detector of a scene: one CollisionGeometry per body of
// sim/scene/scene.h, in scene order (collider index = body index), then one
// per collision geometry of each robot (robots in scene order, geometries in
// RobotDescription order). A robot geometry is fixed when its link does not
// move (all joints from the world to it fixed).
//
// SolveWithoutInactiveContacts leaves out of the contact solve the
// speculative contacts that carry no impulse this step (sim/collision/
// README.md, "Inactive speculative contacts"; docs/theory.md §4, §18).
#pragma once

#include <utility>
#include <vector>

#include "sapcontact/sim/collision/collision.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

/// Whether each link of `tree` moves (some joint on its path from the world
/// is not fixed).
std::vector<bool> MovingLinks(const MultibodyTree& tree);

/// Appends the world poses of the collision geometries of `robot` (in
/// RobotDescription order) given its links' world poses X_WL.
void AppendGeometryPoses(const RobotDescription& robot,
                         const std::vector<Eigen::Isometry3d>& X_WL,
                         std::vector<Pose>* poses);

/// World poses of every collider (bodies, then robot geometries) with the
/// bodies at their initial poses and robot r at positions q[r].
std::vector<Pose> ColliderPoses(const Scene& scene,
                                const std::vector<Eigen::VectorXd>& q);

/// A CollisionDetector over the scene's bodies and robot geometries, with
/// the pairs that must not collide excluded: all pairs within a robot, or,
/// with self_collision, those on one link or on a parent and child link.
/// @throws std::invalid_argument as the CollisionDetector constructor.
CollisionDetector MakeCollisionDetector(const Scene& scene);

/// Whether contact `c` of a problem with time step dt and regularization
/// `reg` carries no impulse at the contact velocity v_c = (v_n, v_t) [m/s]
/// (J v + bias, B relative to A, normal first), with `allowance` >= 0 [m/s]
/// added to every approach and slip speed. Only a contact with a gap,
/// phi0 > 0, can be inactive. With h = dt + tau_d (sap) or h = dt (similar,
/// lagged), the impulse is zero when the gap stays open over h:
///   phi0 + h (v_n - a - mu (|v_t| + a + delta)) > 1e-6 phi0,   a = allowance,
/// where delta = sigma w eps_s bounds the soft norm's offset (sap:
/// ||v_t||_s = sqrt(|v_t|^2 + (R_t eps_s)^2) with R_t <= sigma w, w the
/// plain Delassus estimate `w` [1/kg]; 0 for the Hunt-Crossley models,
/// whose soft norm is below |v_t|). For sap this is region III of the
/// projection, y_n < -mu (R_t / R_n) ||y_t||_s with v_hat_n = -phi0 / h
/// (docs/theory.md §4); for similar the normal impulse n(v_n - mu
/// ||v_t||_s) and for lagged n(v_n) are zero for arguments >= -phi0 / dt,
/// and lagged friction mu n0 is zero since n0 = 0 with a gap
/// (docs/theory.md §18). The margin 1e-6 phi0 covers round-off.
bool ContactCarriesNoImpulse(const Contact& c, double dt,
                             const RegularizationParameters& reg, double w,
                             const Vector3& v_c, double allowance);

/// Settings, statistics and workspace of SolveWithoutInactiveContacts; keep
/// one per simulation (its buffers are reused from step to step).
struct InactiveContactPruning {
  /// false: every contact goes to the solver (the plain solve).
  bool enabled{true};
  /// Allowance [m/s] for the change of a contact's velocity within the step
  /// beyond free motion, used to predict which contacts stay inactive
  /// (ContactCarriesNoImpulse at the free-motion velocity v*). It only
  /// trades pruned contacts against re-solves: the result is checked
  /// against the solved velocities either way.
  double velocity_allowance{0.1};
  /// Contacts are pruned only when at least this fraction of them is
  /// predicted inactive (below it the copy of the problem costs more than
  /// the smaller solve saves).
  double min_fraction{0.1};

  /// Statistics of the last solve: contacts left out of it, contacts
  /// predicted inactive but active at a solution (put back), and solves.
  int pruned{0};
  int restored{0};
  int solves{0};
  /// Rounds that put pruned contacts back because leaving them out changed
  /// the supported Delassus estimate of a kept contact.
  int support_fallbacks{0};

  // Workspace.
  SapProblem reduced;
  SapSolverResults reduced_results;
  std::vector<int> kept;
  std::vector<char> prune;
  std::vector<int> tree_offsets;
  std::vector<Eigen::MatrixXd> A_inv;
  std::vector<char> A_inv_ready;
  std::vector<double> w_plain;
  std::vector<double> side_mass, scale_full, scale_reduced;
  std::vector<char> use, changed_tree;
  std::vector<std::pair<long long, int>> patch_key;
  std::vector<int> patch_of;
  std::vector<std::pair<double, double>> patch_mass;
  std::vector<std::pair<int, int>> patch_trees;
  std::vector<std::pair<double, int>> best;
  Eigen::MatrixXd solved;
  Eigen::VectorXd v_previous;
  std::vector<const Eigen::VectorXd*> candidates;
};

/// Solves `problem` as solver->SolveFromCandidates(problem, candidates,
/// results) does, with the contacts that carry no impulse left out: the
/// ones predicted inactive at free motion (ContactCarriesNoImpulse at J v*
/// with the pruning's velocity_allowance) are removed, the rest solved; then
/// every removed contact is checked at the solved velocities (allowance 0)
/// and those that would carry an impulse are put back and the problem
/// solved again from the last solution, until none does. A removed contact
/// then lies in its model's zero-impulse region, where its cost and
/// gradient vanish, so the solved velocities are a stationary point of the
/// full cost: by strict convexity (docs/theory.md §5) the full problem's
/// solution, to the solver's tolerance. With the supported Delassus
/// estimate (docs/theory.md §19, the rule of SapModel, repeated here) a
/// removed contact can be the support that makes a light body count as
/// heavy in a kept one: before each solve, pruned contacts on a tree whose
/// kept contacts' scales would change (relative 1e-12) are put back, so
/// every kept contact is regularized as in the full problem. Results are
/// for the full problem: the removed contacts get gamma = 0, v_c = J v +
/// bias and the regularization of the plain Delassus estimate; statistics
/// add up over the solves. A contact the solver would reject (a bad tree
/// index or Jacobian size, invalid parameters) is never pruned, and an
/// error in a kept one comes from the plain solve of the full problem, so
/// messages name the full problem's contact indices.
/// @throws std::invalid_argument as SapSolver::SolveFromCandidates.
void SolveWithoutInactiveContacts(
    SapSolver* solver, const SapProblem& problem,
    const std::vector<const Eigen::VectorXd*>& candidates,
    InactiveContactPruning* pruning, SapSolverResults* results);

}  // namespace sapcontact
