// Analytic projection onto the friction cone in the R-weighted norm (SAP paper
// §V-A, Eq. (27), App. C), with the soft norm for the tangential direction.
// Ordering and signs: contact_model/conventions.h (index 0 normal, 1-2
// tangential).
#pragma once

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// The three regions of SAP paper App. C (Fig. 22), in y space.
enum class ProjectionRegion {
  kStiction = 1,   ///< Region I: y in F (closed set), gamma = y.
  kSliding = 2,    ///< Region II: gamma on the cone surface.
  kNoContact = 3,  ///< Region III: y in the open polar cone, gamma = 0.
};

/// Result of projecting one y.
struct FrictionConeProjection {
  /// gamma = P_F(y) [N*s].
  Vector3 gamma{Vector3::Zero()};
  /// dgamma/dy [-], 3x3. (R dgamma/dy is symmetric positive semidefinite.)
  Matrix3 dgamma_dy{Matrix3::Zero()};
  /// Constraint cost l = 1/2 (R_n gamma_n^2 + R_t gamma_r^2) [J], where
  /// gamma_r is the soft radial magnitude (gamma_r = ||y_t||_s in region I,
  /// mu gamma_n in region II). It equals 1/2 gamma' R gamma up to the soft-norm
  /// term 1/2 R_t epsilon_s^2 (gamma_r/||y_t||_s)^2, is continuous (C1) across
  /// the region boundaries, and satisfies dl/dy = R gamma exactly.
  double cost{0.0};
  ProjectionRegion region{ProjectionRegion::kNoContact};
  /// (dgamma/dy) u for the direction u passed to ProjectOntoFrictionCone, if
  /// any [N*s per unit of u], computed without forming dgamma_dy.
  Vector3 dgamma_along{Vector3::Zero()};
};

/// gamma = P_F(y) = argmin_{g in F} ||g - y||_R with F = {||g_t|| <= mu g_n}
/// and R = diag(R_n, R_t, R_t) (SAP paper
/// §V-A, Eq. (27) and App. C: the Euclidean projection in the R^(1/2)-scaled
/// variables, mapped back):
///   region I   (||y_t||_s <= mu y_n):             gamma = y
///   region III (y_n < -mu (R_t/R_n) ||y_t||_s):  gamma = 0
///   region II  (otherwise):
///     gamma_n = (y_n + mu (R_t/R_n) ||y_t||_s) / (1 + mu_tilde^2),
///     gamma_t = mu gamma_n t_hat,   t_hat = y_t / ||y_t||_s,
/// with mu_tilde^2 = mu^2 R_t / R_n and the soft norm
/// ||x||_s = sqrt(||x||^2 + epsilon_s^2) (docs/theory.md §4). Using the soft
/// norm in the region tests too keeps gamma continuous across every boundary;
/// with epsilon_s = 0 this is the exact projection. (The cone's half-angle has
/// cos(theta) = 1/sqrt(1 + mu^2); not needed here.)
/// @param y         [N*s], ordering (n, t1, t2).
/// @param mu        friction coefficient, finite, >= 0.
/// @param R_n, R_t  regularization [(m/s)/(N*s)], > 0.
/// @param epsilon_s soft-norm tolerance [N*s], >= 0.
/// @param with_derivative  compute dgamma_dy (else left zero).
/// @param direction  if not null, a direction u in y space: dgamma_along =
///                   (dgamma/dy) u, at O(1) cost (the exact line search's
///                   second derivative, SAP paper §IV-C).
FrictionConeProjection ProjectOntoFrictionCone(
    const Vector3& y, double mu, double R_n, double R_t, double epsilon_s,
    bool with_derivative = true, const Vector3* direction = nullptr);

/// The parameters of one contact's projection with the quotients it needs
/// computed once (a contact is projected tens of times per time step).
struct FrictionConeConstants {
  FrictionConeConstants() = default;
  /// Arguments as for ProjectOntoFrictionCone().
  FrictionConeConstants(double mu, double R_n, double R_t, double epsilon_s);
  double mu{0.0}, R_n{1.0}, R_t{1.0}, epsilon_s{0.0};
  double mu_ratio{0.0};             ///< mu R_t / R_n
  double inverse_denominator{1.0};  ///< 1 / (1 + mu_tilde^2)
};

/// ProjectOntoFrictionCone() with precomputed constants, into *out: gamma,
/// cost and region always; dgamma_dy only if `with_derivative`,
/// dgamma_along only if `direction` is given (the other fields are left as
/// they were). One division (by ||y_t||_s) and one square root.
void ProjectOntoFrictionCone(const Vector3& y, const FrictionConeConstants& c,
                             bool with_derivative, const Vector3* direction,
                             FrictionConeProjection* out);

}  // namespace sapcontact
