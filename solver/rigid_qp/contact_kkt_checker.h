// KKT checker of the rigid-contact QP
// (solver/rigid_qp/rigid_contact_problem.h): the common yardstick of the rigid
// QP solver and of SAP. For impulses l and u = W l + c, the optimality
// conditions of minimize 1/2 l'Wl + c'l over the friction cones F_i = { ||l_t||
// <= mu_i l_n } are, per contact:
//   primal:          l_i in F_i,
//   dual:            u_i in F_i* = { u_n >= mu_i ||u_t|| }  (the dual cone;
//                    the shift mu ||u_t|| of u_n is the convex relaxation's
//                    "gliding", where Coulomb friction would want u_n = 0),
//   complementarity: l_i'u_i = 0.
// For mu_i = 0: F_i = { l_t = 0, l_n >= 0 }, F_i* = { u_n >= 0 }.
// Ordering and signs: contact_model/conventions.h.
//
// Violations are measured as Euclidean distances to the cones (exact closed
// forms; the projection onto a circular cone), and normalized:
//   velocity scale V = max(||c||_inf, ||W l||_inf)                    [m/s]
//   impulse scale  L = max(||l||_inf, V / max_k W_kk)                 [N*s]
//   primal  = dist(l_i, F_i) / L,   dual = dist(u_i, F_i*) / V,
//   complementarity = |l_i'u_i| / (L V).
// V / max W_kk is the impulse that changes a velocity by V through the
// stiffest diagonal entry, so L is a natural impulse unit even when l = 0.
// A zero scale (e.g. c = 0 and l = 0) is replaced by 1. worst_violation is
// the maximum of all normalized measures over all contacts: "passes the KKT
// checker to tol" means worst_violation <= tol.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"

namespace sapcontact {

/// Contact mode read off a KKT point (with tolerance mode_tolerance, relative
/// to the scales above).
enum class ContactMode {
  /// l_i ~ 0.
  kSeparating,
  /// l_i != 0 and u_i ~ 0 (for mu = 0: u_n ~ 0 and u_t ~ 0).
  kSticking,
  /// l_i != 0 and u_i != 0 (on the cone boundary, slipping; for mu = 0: any
  /// contact with a nonzero tangential velocity).
  kSliding,
};

const char* ToString(ContactMode mode);

struct ContactKktMeasures {
  /// dist(l_i, F_i) [N*s].
  double primal_violation{0.0};
  /// dist(u_i, F_i*) [m/s].
  double dual_violation{0.0};
  /// l_i'u_i [N*s * m/s].
  double complementarity{0.0};
  /// max of the three normalized measures.
  double normalized_worst{0.0};
  ContactMode mode{ContactMode::kSeparating};
};

struct KktReport {
  /// u = W l + c, 3 nc [m/s].
  Eigen::VectorXd u;
  std::vector<ContactKktMeasures> contacts;
  /// l'u [N*s * m/s].
  double total_complementarity{0.0};
  /// The scales L [N*s] and V [m/s] (see the file comment).
  double impulse_scale{1.0};
  double velocity_scale{1.0};
  /// Maxima over contacts of the normalized measures.
  double max_primal_violation{0.0};
  double max_dual_violation{0.0};
  double max_complementarity{0.0};
  /// max of the three above; -1 contact if there are no contacts.
  double worst_violation{0.0};
  int worst_contact{-1};

  bool Passes(double tolerance) const { return worst_violation <= tolerance; }
  /// Number of contacts in the given mode.
  int Count(ContactMode mode) const;
};

/// Checks impulses l (3 nc) [N*s]. Problem sizes are checked (not W's
/// symmetry or PSD-ness). mode_tolerance: relative threshold used for the
/// contact modes only.
/// @throws std::invalid_argument naming the field on a size mismatch or
///         non-finite l.
KktReport CheckRigidContactKkt(const RigidContactProblem& problem,
                               const Eigen::VectorXd& impulses,
                               double mode_tolerance = 1e-6);

/// Distance [same unit as x] from x = (x_n, x_t) to F = { ||x_t|| <= mu x_n }.
double DistanceToFrictionCone(const Eigen::Vector3d& x, double mu);
/// Distance from u to the dual cone F* = { u_n >= mu ||u_t|| }.
double DistanceToDualFrictionCone(const Eigen::Vector3d& u, double mu);

}  // namespace sapcontact
