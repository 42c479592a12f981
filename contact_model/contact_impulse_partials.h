// Partial derivatives of one contact's impulse gamma(v_c; theta) with respect
// to its parameters theta = (phi0, k, dissipation, mu, dt) and to the inputs
// that move with the configuration, the Delassus estimate w and the normal
// velocity at the start of the step v_n0, at FIXED constraint velocity v_c:
// the per-contact term that gradients of a SAP solve (or of a whole step)
// through the implicit function theorem need (the derivative with respect to
// v_c is the Hessian block -G of ContactConstraint::Evaluate()). Ordering and
// signs: contact_model/conventions.h.
//
// SAP model (SAP paper §V-A, Eq. (27), App. C; docs/theory.md §3, §4). With
// R_n = max(beta^2 w / (4 pi^2), 1 / (dt k (dt + tau_d))), R_t = sigma w,
// v_hat_n = -phi0 / (dt + tau_d) (-phi0 / dt for a speculative contact,
// phi0 > 0), rho = R_t / R_n, y_n = -(v_n - v_hat_n) /
// R_n, y_t = -v_t / R_t, y_r = sqrt(||y_t||^2 + epsilon_s^2):
//   region I   gamma = y:  d gamma = (d y_n, d y_t),
//   region III gamma = 0:  every partial is 0,
//   region II  gamma_n = (y_n + mu rho y_r) / D, D = 1 + mu^2 rho,
//              gamma_t = mu gamma_n t_hat, t_hat = y_t / y_r:
//     d gamma_n = d y_n / D + mu (y_r - mu gamma_n) / D d rho
//                 + rho (y_r - 2 mu gamma_n) / D d mu + mu rho / D d y_r,
//     d gamma_t = (gamma_n d mu + mu d gamma_n) t_hat + mu gamma_n d t_hat,
//     d t_hat = (d y_t - t_hat d y_r) / y_r,
// with d y_n = d v_hat_n / R_n - (y_n / R_n) d R_n, d rho = (d R_t - rho d R_n)
// / R_n, d y_t = -(y_t / R_t) d R_t, d y_r = y_t . d y_t / y_r. Only w moves
// R_t (d R_t / d w = sigma): y_t, y_r and t_hat depend on w alone (sigma and
// epsilon_s are fixed). d v_hat_n / d phi0 = -1/(dt + tau_d), d v_hat_n / d
// tau_d = d v_hat_n / d dt = -v_hat_n / (dt + tau_d) (phi0 > 0: d v_hat_n /
// d phi0 = -1/dt, d v_hat_n / d dt = -v_hat_n / dt, d v_hat_n / d tau_d =
// 0; phi0 = 0 takes the first branch, as the forward code); on the
// compliant branch
// d R_n / d k = -R_n / k, d R_n / d tau_d = -R_n / (dt + tau_d), d R_n / d dt =
// -R_n (1/dt + 1/(dt + tau_d)), d R_n / d w = 0; on the near-rigid floor
// R_n = beta^2 w / (4 pi^2) depends on w alone, d R_n / d w = R_n / w. v_n0
// does not enter: d gamma / d v_n0 = 0.
// (tau_d >= 0 always for contacts: ContactParameters has no "negative means
// dt" convention; that is for constraint rows only.)
//
// Hunt-Crossley models kSimilar and kLagged (docs/theory.md §18,
// contact_model/hunt_crossley.h). With k_eff = min(k, 4 pi^2 / (beta^2 w
// dt^2)), f_e0 = -k_eff phi0 and, for v < v_hat,
//   n(v) = dt (f_e0 - dt k_eff v)(1 - d v)   (else 0),
// the partials of n at fixed v, of the previous impulse n0 = dt (f_e0)_+
// min((1 - d v_n0)_+, 2) and of the friction band eps_s = max(v_s, mu R_t dt
// (f_e0)_+ (1 - d v_n0)_+) are chained through
//   similar: gamma_n = n(z), z = v_n - mu ||v_t||_s, gamma_t = -mu n(z) t_hat,
//   lagged:  gamma_n = n(v_n),                     gamma_t = -mu n0 t_hat,
// with ||v_t||_s = s - eps_s, s = sqrt(||v_t||^2 + eps_s^2), t_hat = v_t / s,
// d ||v_t||_s / d eps_s = eps_s / s - 1, d t_hat / d eps_s = -t_hat eps_s /
// s^2. d k_eff / d k = 1 on the compliant branch (d k_eff / d w = 0 there);
// on the floor d k_eff / d k = 0, d k_eff / d dt = -2 k_eff / dt and
// d k_eff / d w = -k_eff / w. w also enters eps_s's second branch through
// R_t = sigma w (d R_t / d w = sigma). v_n0 enters only n0 (through
// (1 - d v_n0)_+ when not capped: d / d v_n0 = -d where 1 - d v_n0 > 0, else
// 0; so for kLagged only) and eps_s's second branch (both models).
//
// Kinks. Every max/min/(.)_+ and every region test is evaluated exactly as
// the forward code evaluates it (ContactConstraint::Make and Evaluate,
// ComputeRegularization, ComputeHuntCrossley, EvaluateHuntCrossley,
// ProjectOntoFrictionCone), and the partials are those of the branch it
// takes: at a tie they are one-sided derivatives (the side the forward code
// belongs to). Parameter kinks are: the near-rigid floor (near_rigid below;
// at an exact tie the floor's branch, as the forward code's near_rigid flag),
// for the Hunt-Crossley models also v_hat = min(-phi0/dt, 1/d) (n is
// continuous there, its partials do not depend on the branch), the signs of
// f_e0 and 1 - d v_n0, the cap of n0's damping factor at 2 and the two
// branches of eps_s. They are not reported; boundary_distance covers the
// velocity kinks only.
#pragma once

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/contact_model/friction_cone_projection.h"
#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {

/// d gamma / d theta of one contact at fixed v_c [N*s per unit of theta],
/// each a 3-vector in the ordering (n, t1, t2) of
/// contact_model/conventions.h.
struct ContactImpulsePartials {
  /// d gamma / d phi0 [N*s/m].
  Vector3 phi0{Vector3::Zero()};
  /// d gamma / d k [N*s/(N/m)]; zero when k is infinite or the near-rigid
  /// floor is active.
  Vector3 stiffness{Vector3::Zero()};
  /// d gamma / d (the model's dissipation parameter): tau_d
  /// (ContactParameters::dissipation_time_scale) [N*s/s] for kSap,
  /// hunt_crossley_dissipation d [N*s/(s/m)] for kSimilar and kLagged.
  Vector3 dissipation{Vector3::Zero()};
  /// d gamma / d mu [N*s].
  Vector3 friction{Vector3::Zero()};
  /// d gamma / d dt [N*s/s], through everything that depends on dt: R_n and
  /// v_hat (kSap); the near-rigid floor of k, f_e0's uses, v_hat, n0, eps_s
  /// and n's explicit dt (Hunt-Crossley).
  Vector3 time_step{Vector3::Zero()};
  /// d gamma / d w [N*s/(1/kg)], w the Delassus estimate: through R_t =
  /// sigma w (always) and the near-rigid floor of R_n (kSap); through the
  /// near-rigid floor of k_eff and eps_s's second branch (Hunt-Crossley).
  Vector3 delassus{Vector3::Zero()};
  /// d gamma / d v_n0 [N*s/(m/s)], v_n0 the normal velocity at the start of
  /// the step: zero for kSap; through n0 (kLagged) and eps_s's second branch
  /// (Hunt-Crossley).
  Vector3 normal_velocity0{Vector3::Zero()};
  /// The region at v_c, as ContactConstraint::Evaluate() reports it.
  ProjectionRegion region{ProjectionRegion::kNoContact};
  /// A guaranteed lower bound [m/s] on the Euclidean distance in v_c space
  /// from v_c to the nearest point where the region or the velocity branch
  /// changes: every v_c' with ||v_c' - v_c|| < boundary_distance has the same
  /// region and the same smooth formula for gamma, hence the same partials
  /// up to their smooth variation. It is min_i |f_i(v_c)| / L_i over the
  /// boundary functions f_i below, L_i an upper bound of ||grad f_i|| on all
  /// of v_c space (so f_i cannot change sign within that distance); it is
  /// exact for a planar boundary, and 0 on a boundary.
  ///   kSap (in y space, docs/theory.md §4):
  ///     I/II   f = y_r - mu y_n,          L = sqrt(mu^2 / R_n^2 + 1 / R_t^2),
  ///     II/III f = y_n + mu rho y_r,      L = sqrt(1 + mu^2) / R_n.
  ///   kSimilar: the end of n's support f = v_hat - z (z = v_n - mu
  ///     ||v_t||_s), L = sqrt(1 + mu^2); kLagged: f = v_hat - v_n, L = 1.
  ///     (n's other factor vanishes at max(-phi0/dt, 1/d) >= v_hat, where n
  ///     is already 0: no kink.) Unless the region is kNoContact, also the
  ///     friction band's edge f = ||v_t|| - eps_s, L = 1, where the region
  ///     switches between kStiction and kSliding (gamma is smooth across it).
  double boundary_distance{0.0};
  /// True when the near-rigid floor is active (kSap: R_n is the floor
  /// beta^2 w / (4 pi^2); Hunt-Crossley: k_eff is the floor 4 pi^2 / (beta^2
  /// w dt^2)); then the stiffness partial is zero.
  bool near_rigid{false};
};

/// The partials of the impulse of the contact that ContactConstraint::Make(
/// params, reg, dt, w, phi0, v_n0) builds, evaluated at the constraint
/// velocity v_c [m/s] (see the file comment for the formulas). dt [s], phi0
/// [m], w [1/kg] (the Delassus estimate), v_n0 [m/s] (Hunt-Crossley only);
/// sigma, beta, epsilon_s and the stiction tolerance v_s are held fixed.
/// @throws std::invalid_argument as ContactConstraint::Make() on invalid
///         input.
ContactImpulsePartials ComputeContactImpulsePartials(
    const ContactParameters& params, const RegularizationParameters& reg,
    double dt, double w, double phi0, double v_n0, const Vector3& v_c);

}  // namespace sapcontact
