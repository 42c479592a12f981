// Physical contact parameters and the SAP regularization settings, with
// validation. Units and conventions: contact_model/conventions.h.
#pragma once

#include <limits>
#include <string>

namespace sapcontact {

/// The contact model of one contact (docs/theory.md §18). All three are convex
/// costs of the contact velocity solved by the same Newton method.
enum class ContactModel {
  /// SAP's regularized friction cone (SAP paper §V): linear dissipation with
  /// time scale tau_d; glides by about (dt + tau_d) mu |v_t| while sliding.
  kSap,
  /// Hunt-Crossley compliance with friction consistent with the current
  /// normal impulse; glides like kSap.
  kSimilar,
  /// Hunt-Crossley compliance with friction bounded by the previous step's
  /// normal impulse; does not glide.
  kLagged,
};

/// "sap", "similar" or "lagged".
const char* ToString(ContactModel model);

/// Parses "sap", "similar" or "lagged"; false for anything else.
bool ParseContactModel(const std::string& text, ContactModel* model);

/// Physical parameters of one contact (SAP paper §II-B and
/// §V-A). Plain struct; defaults describe a stiff rubber-like contact.
struct ContactParameters {
  /// Normal stiffness k [N/m], > 0. May be +infinity (rigid contact: the
  /// regularization then takes the near-rigid floor, SAP paper §V-B).
  double stiffness{1.0e6};
  /// Hunt-Crossley-like dissipation time scale tau_d [s], >= 0.
  double dissipation_time_scale{0.01};
  /// Coulomb friction coefficient mu [-], >= 0 (0 = frictionless).
  double friction{0.5};
  /// Contact model (docs/theory.md §18). kSap uses dissipation_time_scale;
  /// kSimilar and kLagged use hunt_crossley_dissipation and
  /// stiction_tolerance instead.
  ContactModel model{ContactModel::kSap};
  /// Hunt-Crossley dissipation d [s/m], finite, >= 0 (kSimilar, kLagged):
  /// the normal force is k delta (1 + d d(delta)/dt)_+, and a ball's
  /// restitution is about 1 - (2/3) d v_impact. Drake's default, 50 s/m.
  double hunt_crossley_dissipation{50.0};
  /// Stiction tolerance v_s [m/s], finite, > 0 (kSimilar, kLagged): the
  /// slip speed below which friction is regularized (a sticking contact
  /// creeps at most about v_s). Drake's default, 1e-4 m/s.
  double stiction_tolerance{1.0e-4};
};

/// Numerical regularization settings of SAP (SAP paper §V-B, Eqs. (29)-(30)).
struct RegularizationParameters {
  /// Near-rigid threshold beta [-], >= 0: the normal regularization never
  /// drops below beta^2 / (4 pi^2) w_k. beta = 0 disables the floor (then
  /// k = inf gives R_n = 0, which is rejected as ill-posed).
  double near_rigid_threshold{1.0};
  /// Friction regularization sigma [-], > 0: R_t = sigma w_k.
  double friction_regularization{1.0e-3};
  /// Soft-norm tolerance epsilon_s [N*s], >= 0 (docs/theory.md §4; 1e-8), used
  /// in
  /// ||y_t||_s = sqrt(||y_t||^2 + epsilon_s^2) so that the projection and its
  /// derivatives stay finite at y_t = 0. 0 gives the exact (non-smooth) norm.
  double soft_norm_tolerance{1.0e-8};
  /// Near-rigid threshold of joint limits, holonomic constraints and PD
  /// actuation rows [-], >= 0 (docs/theory.md §17): their R never drops
  /// below beta_c^2 / (4 pi^2) w_i. Drake's value, 0.1: the constraint is
  /// resolved within a fraction of a step.
  double constraint_near_rigid_threshold{0.1};
  /// Supported Delassus estimate (docs/theory.md §19): a light body pressed
  /// against a heavy one while held by another contact at least as heavy
  /// enters the first contact's w_k as if it were as heavy as the lighter of
  /// the two, so the near-rigid floor does not over-soften heavy-on-light
  /// contacts (a 1e6 kg box on a 1 kg box). false: the plain estimate of
  /// SAP paper §V-B.
  bool supported_delassus_estimate{true};
};

/// Throws std::invalid_argument naming the offending field and its value if
/// any parameter is NaN or out of range: stiffness <= 0, tau_d < 0 or
/// infinite, friction < 0 or infinite, hunt_crossley_dissipation < 0 or
/// infinite, stiction_tolerance <= 0 or infinite, or model not one of the
/// three. `context` (e.g. "contact 3") prefixes
/// the message when not empty.
void Validate(const ContactParameters& p, const std::string& context = "");

/// Throws std::invalid_argument naming the offending field and its value if
/// beta < 0, sigma <= 0, epsilon_s < 0, or any of them is NaN or infinite.
void Validate(const RegularizationParameters& p,
              const std::string& context = "");

/// Throws std::invalid_argument unless dt is finite and > 0 [s].
void ValidateTimeStep(double dt, const std::string& context = "");

}  // namespace sapcontact
