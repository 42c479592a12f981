#include "sapcontact/sim/scene/material.h"

#include <algorithm>
#include <cmath>

namespace sapcontact {
namespace {

// lagged > similar > sap.
int Precedence(ContactModel model) {
  switch (model) {
    case ContactModel::kSap:
      return 0;
    case ContactModel::kSimilar:
      return 1;
    case ContactModel::kLagged:
      return 2;
  }
  return 0;
}

}  // namespace

void Validate(const Material& material) {
  Validate(MaterialParameters(material), "material '" + material.name + "'");
}

ContactParameters MaterialParameters(const Material& m) {
  ContactParameters p;
  p.stiffness = m.stiffness;
  p.dissipation_time_scale = m.dissipation_time_scale;
  p.friction = m.friction;
  p.model = m.model;
  p.hunt_crossley_dissipation = m.hunt_crossley_dissipation;
  p.stiction_tolerance = m.stiction_tolerance;
  return p;
}

Material MaterialWithParameters(const std::string& name,
                                const ContactParameters& p) {
  Material m;
  m.name = name;
  m.stiffness = p.stiffness;
  m.dissipation_time_scale = p.dissipation_time_scale;
  m.friction = p.friction;
  m.model = p.model;
  m.hunt_crossley_dissipation = p.hunt_crossley_dissipation;
  m.stiction_tolerance = p.stiction_tolerance;
  return m;
}

ContactParameters CombineMaterials(const Material& a, const Material& b) {
  Validate(a);
  Validate(b);
  ContactParameters p;
  const bool rigid_a = std::isinf(a.stiffness),
             rigid_b = std::isinf(b.stiffness);
  // Springs in series: 1/k = 1/k_a + 1/k_b, with 1/inf = 0.
  if (rigid_a) {
    p.stiffness = b.stiffness;
  } else if (rigid_b) {
    p.stiffness = a.stiffness;
  } else {
    p.stiffness = a.stiffness * b.stiffness / (a.stiffness + b.stiffness);
  }
  p.dissipation_time_scale =
      a.dissipation_time_scale + b.dissipation_time_scale;
  // Harmonic mean; a frictionless side makes the pair frictionless.
  const double mu_sum = a.friction + b.friction;
  p.friction = mu_sum > 0.0 ? 2.0 * a.friction * b.friction / mu_sum : 0.0;
  p.model = Precedence(a.model) >= Precedence(b.model) ? a.model : b.model;
  // Dampers of two springs-with-dampers in series, weighted by the other
  // side's stiffness: the softer side deforms (and dissipates) the more. A
  // rigid side does not deform: the other side's d.
  const double d_a = a.hunt_crossley_dissipation;
  const double d_b = b.hunt_crossley_dissipation;
  if (rigid_a && rigid_b) {
    p.hunt_crossley_dissipation = 0.5 * (d_a + d_b);
  } else if (rigid_a) {
    p.hunt_crossley_dissipation = d_b;
  } else if (rigid_b) {
    p.hunt_crossley_dissipation = d_a;
  } else {
    p.hunt_crossley_dissipation =
        (b.stiffness * d_a + a.stiffness * d_b) / (a.stiffness + b.stiffness);
  }
  p.stiction_tolerance = std::max(a.stiction_tolerance, b.stiction_tolerance);
  return p;
}

}  // namespace sapcontact
