// SAP regularization of one contact: R = diag(R_n, R_t, R_t) and the
// stabilization velocity v_hat (SAP paper §V-A, §V-B). Ordering and
// signs: contact_model/conventions.h.
#pragma once

#include <string>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// Delassus diagonal estimate w_k [1/kg] (SAP paper §V-B): the RMS of the nine
/// entries of the 3x3 diagonal block W_kk of W = J A^-1 J', i.e.
/// ||W_kk||_F / 3. For a point mass m, W_kk = I/m and w_k = 1/(sqrt(3) m).
/// (1/w_k is the contact's effective mass.)
double DelassusDiagonalEstimate(const Matrix3& W_kk);

/// The regularization of one contact for one time step.
struct ContactRegularization {
  /// Normal regularization R_n [(m/s)/(N*s)], > 0.
  double R_n{0.0};
  /// Tangential (friction) regularization R_t [(m/s)/(N*s)], > 0.
  double R_t{0.0};
  /// Normal stabilization velocity v_hat_n = -phi0 / (dt + tau_d) [m/s],
  /// and -phi0 / dt for a speculative contact (phi0 > 0), which then pushes
  /// only when the step closes its gap (docs/theory.md §3); the tangential
  /// components of v_hat are zero.
  double v_hat_n{0.0};
  /// Friction coefficient mu [-].
  double mu{0.0};
  /// True when R_n was set by the near-rigid floor beta^2 w / (4 pi^2)
  /// rather than by the stiffness.
  bool near_rigid{false};

  /// R as a 3-vector (R_n, R_t, R_t) in the conventions' ordering.
  Vector3 R() const { return Vector3(R_n, R_t, R_t); }
  /// v_hat as a 3-vector (v_hat_n, 0, 0).
  Vector3 v_hat() const { return Vector3(v_hat_n, 0.0, 0.0); }
  /// mu_tilde = mu sqrt(R_t / R_n) [-], the friction coefficient of the cone
  /// in the R^(1/2)-scaled variables where the projection is Euclidean
  /// (SAP paper §V-A).
  double mu_tilde() const;
};

/// The normal stabilization velocity of SAP's regularization
/// (docs/theory.md §3) [m/s]: v_hat_n = -phi0 / (dt + tau_d) for a contact
/// that touches or penetrates (phi0 <= 0 [m]), -phi0 / dt for a speculative
/// contact (phi0 > 0), which then pushes only when the step closes its gap.
/// dt and tau_d [s].
double NormalStabilizationVelocity(double phi0, double dt, double tau_d);

/// Regularization of one contact (SAP paper §V-A, §V-B, Eqs. (29)-(30)):
///   R_n = max(beta^2 / (4 pi^2) w, 1 / (dt k (dt + tau_d))),
///   R_t = sigma w,   v_hat_n = -phi0 / (dt + tau_d)  (phi0 <= 0),
///                    v_hat_n = -phi0 / dt            (phi0 > 0).
/// The compliant term is the paper's R_n^-1 = dt k (dt + tau_d) (a k^2 there
/// would be a misprint: units; docs/theory.md §14).
/// k = +inf is allowed and gives the near-rigid floor.
/// @param params  physical parameters (k [N/m], tau_d [s], mu [-]).
/// @param reg     beta, sigma (epsilon_s is not used here).
/// @param dt      time step [s].
/// @param w       Delassus diagonal estimate [1/kg], see
///                DelassusDiagonalEstimate(); finite and > 0.
/// @param phi0    signed distance at the start of the step [m].
/// @throws std::invalid_argument naming the field on NaN or out-of-range
///         input, and when R_n would be 0 (k = inf with beta = 0).
ContactRegularization ComputeRegularization(const ContactParameters& params,
                                            const RegularizationParameters& reg,
                                            double dt, double w, double phi0,
                                            const std::string& context = "");

}  // namespace sapcontact
