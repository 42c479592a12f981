// The Hunt-Crossley contact models "similar" and "lagged" (docs/theory.md
// §18): convex costs of the contact velocity whose normal impulse is the
// discrete Hunt-Crossley force dt k (delta_0 - dt v_n)_+ (1 - d v_n)_+ and
// whose friction is regularized below the stiction tolerance v_s. Ordering
// and signs: contact_model/conventions.h.
#pragma once

#include <string>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/contact_model/friction_cone_projection.h"

namespace sapcontact {

/// The constants of one Hunt-Crossley contact for one time step.
struct HuntCrossleyConstants {
  ContactModel model{ContactModel::kLagged};
  /// Friction coefficient mu [-].
  double mu{0.0};
  /// Time step dt [s].
  double dt{0.0};
  /// Effective stiffness k [N/m] after the near-rigid floor.
  double k{0.0};
  /// Hunt-Crossley dissipation d [s/m].
  double d{0.0};
  /// Elastic force at the start of the step f_e0 = -k phi0 [N], signed: a
  /// gap (phi0 > 0) gives f_e0 < 0, so force acts only once the step closes
  /// the gap.
  double f_e0{0.0};
  /// v_hat = min(f_e0 / (dt k), 1/d) [m/s]: the normal impulse is zero for
  /// v >= v_hat.
  double v_hat{0.0};
  /// Lagged friction's normal impulse n0 = dt (f_e0)_+ clamp(1 - d v_n0, 0,
  /// 2) [N*s]: the previous step's Hunt-Crossley impulse, its damping
  /// factor capped at 2 (docs/theory.md §18: uncapped, impacts multiply the
  /// bound by 1 + d |v_n0| and jammed piles gain energy).
  double n0{0.0};
  /// Friction smoothing velocity eps_s = max(v_s, mu R_t dt (f_e0)_+ (1 - d
  /// v_n0)_+) [m/s] (the uncapped previous impulse).
  double eps_s{0.0};
  /// True when the near-rigid floor lowered k.
  bool near_rigid{false};
};

/// The constants of one Hunt-Crossley contact (docs/theory.md §18):
///   k_eff = min(k, 4 pi^2 / (beta^2 w dt^2))  (near-rigid floor; beta = 0
///   disables it), f_e0 = -k_eff phi0, R_t = sigma w, and the rest as in
///   HuntCrossleyConstants.
/// @param params  model (kSimilar or kLagged), k [N/m], d [s/m], v_s [m/s],
///                mu.
/// @param reg     beta and sigma.
/// @param w       Delassus estimate [1/kg], finite and > 0.
/// @param phi0    signed distance at the start of the step [m].
/// @param v_n0    normal velocity at the start of the step [m/s].
/// @throws std::invalid_argument naming the field on invalid input, and for
///         k = inf with beta = 0 (an exactly rigid Hunt-Crossley contact).
HuntCrossleyConstants ComputeHuntCrossley(const ContactParameters& params,
                                          const RegularizationParameters& reg,
                                          double dt, double w, double phi0,
                                          double v_n0,
                                          const std::string& context = "");

/// The normal impulse n(v) = dt (f_e0 - dt k v)_+ (1 - d v)_+ [N*s] at the
/// normal velocity v [m/s], and g = -dn/dv >= 0 [(N*s)/(m/s)].
void HuntCrossleyNormalImpulse(const HuntCrossleyConstants& c, double v,
                               double* n, double* g);

/// Cost l [J], impulse gamma = -dl/dv_c [N*s] and, if G is not null, Hessian
/// G = d^2 l / dv_c^2 (symmetric PSD) of one Hunt-Crossley contact at v_c
/// [m/s]:
///   similar: l = L(v_n - mu ||v_t||_s),
///   lagged:  l = L(v_n) + mu n0 ||v_t||_s,
/// with L(v) = integral from v to v_hat of n, ||v_t||_s = sqrt(||v_t||^2 +
/// eps_s^2) - eps_s. The region is kNoContact when gamma = 0, kStiction when
/// the slip is inside the smoothing band (||v_t|| < eps_s), else kSliding.
void EvaluateHuntCrossley(const HuntCrossleyConstants& c, const Vector3& v_c,
                          Vector3* gamma, Matrix3* G, double* cost,
                          ProjectionRegion* region);

}  // namespace sapcontact
