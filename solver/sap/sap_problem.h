// The problem a user hands to the solvers for one time step: trees with their
// matrices and free-motion velocities, and contacts with their Jacobian
// blocks and parameters. Ordering and signs of contact components:
// contact_model/conventions.h.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// One kinematic tree (a free body is a tree of 6 DOFs; an articulated robot
/// is one tree). Generalized velocities of all trees are stacked in the order
/// of SapProblem::trees.
struct Tree {
  /// Dense symmetric positive definite n_t x n_t matrix A_t: the mass matrix,
  /// possibly plus dt times the joint damping [kg, kg m, kg m^2 per DOF].
  Eigen::MatrixXd A;
  /// Free-motion velocity v*_t (n_t), the velocity the tree would have at the
  /// end of the step without contact.
  Eigen::VectorXd v_star;
  /// Optional name used in error messages.
  std::string name;
};

/// The Jacobian block of one contact with respect to one tree.
struct ContactJacobianBlock {
  /// Index of the tree in SapProblem::trees.
  int tree{-1};
  /// 3 x n_t block; rows ordered (n, t1, t2). The contact velocity is
  /// v_c = sum over the contact's blocks of J v_tree (B relative to A).
  Eigen::MatrixXd J;
};

/// One point contact acting on one tree (against the fixed world) or on two
/// trees. Contacts between the same pair of trees form a patch (SAP paper
/// §IV-D).
struct Contact {
  ContactJacobianBlock first;
  /// The second tree, if the contact is between two trees (must differ from
  /// first.tree).
  std::optional<ContactJacobianBlock> second;
  /// Signed distance at the start of the step [m] (negative: penetration).
  double phi0{0.0};
  /// Contact velocity at v = 0 [m/s], contact frame (n, t1, t2): the motion
  /// of a kinematic (prescribed) body or a moving surface (a conveyor belt)
  /// that the trees do not carry. v_c = J v + bias_velocity. Default 0.
  Vector3 bias_velocity{Vector3::Zero()};
  /// Normal contact velocity at the start of the step v_n0 [m/s] (positive:
  /// separating). Used only by the Hunt-Crossley models (docs/theory.md
  /// §18): the lagged friction bound is mu dt f_e0 clamp(1 - d v_n0, 0, 2).
  /// Default 0.
  double normal_velocity0{0.0};
  /// Stiffness, dissipation, friction and contact model.
  ContactParameters parameters;
  /// Optional name used in error messages.
  std::string name;
};

/// The Jacobian block of a constraint of m rows with respect to one tree:
/// m x n_t; row i maps the tree's velocities to the i-th constraint
/// velocity (of B relative to A for a two-tree constraint).
struct ConstraintJacobianBlock {
  int tree{-1};
  Eigen::MatrixXd J;
};

/// Unilateral constraints g_i(q) >= 0, e.g. joint limits (docs/theory.md
/// §17): the rows of J v are dg_i/dt, and the impulses gamma_i >= 0 push g_i
/// up.
struct LimitConstraint {
  ConstraintJacobianBlock first;
  std::optional<ConstraintJacobianBlock> second;
  /// g at the start of the step (m entries) [m or rad]; negative: violated.
  Eigen::VectorXd g0;
  /// Stiffness [N/m or N m/rad], > 0; inf (default): near-rigid.
  double stiffness{std::numeric_limits<double>::infinity()};
  /// Dissipation time scale [s]; < 0 (default): dt.
  double dissipation_time_scale{-1.0};
  std::string name;
};

/// Bilateral constraints g(q) = 0 (welds, couplers, distances; docs/theory.md
/// §17): the rows of J v are dg_i/dt; impulses gamma_i within optional
/// bounds.
struct HolonomicConstraint {
  ConstraintJacobianBlock first;
  std::optional<ConstraintJacobianBlock> second;
  /// g at the start of the step (m entries) [m or rad].
  Eigen::VectorXd g0;
  /// Stiffness [N/m or N m/rad], > 0; inf (default): near-rigid.
  double stiffness{std::numeric_limits<double>::infinity()};
  /// Relaxation time tau [s], >= 0 (set to dt when the near-rigid floor
  /// wins).
  double relaxation_time{0.0};
  /// Impulse bounds per row [N*s or N m s]; empty: unbounded.
  Eigen::VectorXd impulse_lower, impulse_upper;
  std::string name;
};

/// Implicit PD actuation of m coordinates of one tree (docs/theory.md §17):
/// the rows of J v are the coordinates' velocities; per row the effort
/// clamp(-kp (q0 + dt v - target) - kd (v - target_velocity) + feedforward,
/// -effort_limit, effort_limit) acts during the step, implicitly in v. The
/// impulse is dt times the effort.
struct ActuationConstraint {
  ConstraintJacobianBlock first;
  /// Per row: position at the start of the step q0 [m or rad], targets,
  /// feed-forward effort [N or N m], gains kp [N/m or N m/rad] and kd [N s/m
  /// or N m s/rad] (>= 0, kp + kd > 0) and effort limit (> 0, inf allowed).
  Eigen::VectorXd position, target, target_velocity, feedforward, kp, kd,
      effort_limit;
  std::string name;
};

/// One time step's contact problem.
struct SapProblem {
  /// Time step dt [s].
  double time_step{1.0e-3};
  std::vector<Tree> trees;
  std::vector<Contact> contacts;
  /// Constraints other than contact; their impulses come back in
  /// SapSolverResults in this order, rows stacked.
  std::vector<LimitConstraint> limits;
  std::vector<HolonomicConstraint> holonomic;
  std::vector<ActuationConstraint> actuation;

  /// Total number of generalized velocities (sum of n_t).
  int num_velocities() const;
  /// Offset of tree t's velocities in the stacked vector.
  std::vector<int> TreeOffsets() const;
};

/// Checks every input and throws std::invalid_argument naming the item (tree,
/// contact or constraint index and name, field, sizes): non-positive or
/// non-finite dt;
/// a tree matrix that is not square, not symmetric (relative 1e-10), not
/// positive definite or has non-finite entries; v* of the wrong size or
/// non-finite; a contact naming a missing tree or the same tree twice, a
/// Jacobian block that is not 3 x n_t or has non-finite entries, non-finite
/// phi0, invalid contact parameters; a constraint whose Jacobian blocks do not
/// have m = size(g0) rows (or the rows of `position` for actuation), whose
/// vectors differ in size, or whose values are non-finite or out of range
/// (actuation: kp, kd >= 0, kp + kd > 0, effort_limit > 0; holonomic:
/// bounds' sizes m or 0, lower <= upper). With check_positive_definite = false
/// the (O(n_t^3)) Cholesky test of each tree is skipped: for callers that
/// factor the trees themselves and report failure (the SAP model does).
void Validate(const SapProblem& problem, bool check_positive_definite = true);

/// Assembles the dense contact Jacobian J (3 nc x nv) of the whole problem:
/// for tests, small problems and independent checks.
Eigen::MatrixXd DenseContactJacobian(const SapProblem& problem);

/// Assembles the dense block-diagonal A (nv x nv) and the stacked v*.
Eigen::MatrixXd DenseA(const SapProblem& problem);
Eigen::VectorXd StackedVStar(const SapProblem& problem);
/// The same into *v (resized; no allocation when it has the size already).
void StackedVStar(const SapProblem& problem, Eigen::VectorXd* v);

}  // namespace sapcontact
