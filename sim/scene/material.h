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
  /// Dissipation time scale tau_d [s], finite, >= 0 (the sap model).
  double dissipation_time_scale{0.01};
  /// Coulomb friction coefficient mu [-], finite, >= 0.
  double friction{0.5};
  /// Contact model (docs/theory.md §18): sap, similar or lagged. Default
  /// lagged, the default of scene files (SolverSettings::contact_model).
  ContactModel model{ContactModel::kLagged};
  /// Hunt-Crossley dissipation d [s/m], finite, >= 0 (similar, lagged).
  double hunt_crossley_dissipation{50.0};
  /// Stiction tolerance v_s [m/s], finite, > 0 (similar, lagged).
  double stiction_tolerance{1.0e-4};
};

/// Parameters of a contact between a body of material `a` and one of
/// material `b` (symmetric in a and b):
///   stiffness in series   k   = k_a k_b / (k_a + k_b)  (inf with k: k;
///                                                        inf with inf: inf)
///   time scales added     tau = tau_a + tau_b
///   friction              mu  = 2 mu_a mu_b / (mu_a + mu_b)  (0 if both 0)
///   model by precedence   lagged > similar > sap: a pair where either side
///                         asks for a Hunt-Crossley model gets it, and lagged
///                         wins over similar because it does not glide
///   Hunt-Crossley d       d   = (k_b d_a + k_a d_b) / (k_a + k_b), the
///                         dampers of springs-with-dampers in series as
///                         Drake combines them (k_a = inf: d_b; k_b = inf:
///                         d_a; both inf: (d_a + d_b) / 2)
///   stiction tolerance    v_s = max(v_s,a, v_s,b)
/// Two bodies of the same material therefore get k/2, 2 tau_d, mu, its
/// model, d and v_s.
/// Throws std::invalid_argument (naming the material and field) if either
/// material is invalid.
ContactParameters CombineMaterials(const Material& a, const Material& b);

/// A material's six fields as contact parameters, and back (a material
/// named `name` holding p's values).
ContactParameters MaterialParameters(const Material& m);
Material MaterialWithParameters(const std::string& name,
                                const ContactParameters& p);

/// Throws std::invalid_argument naming the material and field if stiffness is
/// not > 0 (inf allowed), tau_d not finite >= 0, mu not finite >= 0, d not
/// finite >= 0, v_s not finite > 0, or the model not one of the three.
void Validate(const Material& material);

}  // namespace sapcontact
