// Surface materials of bodies and THE rule that combines the materials of two
// bodies into the parameters of their contacts (stated once, here).
#pragma once

#include <string>

#include "sapcontact/contact_model/contact_parameters.h"

namespace sapcontact {

/// A named surface material (YAML: materials.<name>). Defaults equal those of
/// ContactParameters; "default" is the material of bodies that name none.
struct Material {
  std::string name{"default"};
  /// Stiffness k [N/m], > 0, may be +infinity (rigid).
  double stiffness{1.0e6};
  /// Dissipation time scale tau_d [s], finite, >= 0.
  double dissipation_time_scale{0.01};
  /// Coulomb friction coefficient mu [-], finite, >= 0.
  double friction{0.5};
};

/// Parameters of a contact between a body of material `a` and one of
/// material `b` (symmetric in a and b):
///   stiffness in series   k   = k_a k_b / (k_a + k_b)  (inf with k: k;
///                                                        inf with inf: inf)
///   time scales added     tau = tau_a + tau_b
///   friction              mu  = 2 mu_a mu_b / (mu_a + mu_b)  (0 if both 0)
/// Two bodies of the same material therefore get k/2, 2 tau_d and mu.
/// Throws std::invalid_argument (naming the material and field) if either
/// material is invalid.
ContactParameters CombineMaterials(const Material& a, const Material& b);

/// Throws std::invalid_argument naming the material and field if stiffness is
/// not > 0 (inf allowed), tau_d not finite >= 0, or mu not finite >= 0.
void Validate(const Material& material);

}  // namespace sapcontact
