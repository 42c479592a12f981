#include "sapcontact/sim/scene/material.h"

#include <cmath>

namespace sapcontact {
namespace {

ContactParameters AsParameters(const Material& m) {
  ContactParameters p;
  p.stiffness = m.stiffness;
  p.dissipation_time_scale = m.dissipation_time_scale;
  p.friction = m.friction;
  return p;
}

}  // namespace

void Validate(const Material& material) {
  Validate(AsParameters(material), "material '" + material.name + "'");
}

ContactParameters CombineMaterials(const Material& a, const Material& b) {
  Validate(a);
  Validate(b);
  ContactParameters p;
  // Springs in series: 1/k = 1/k_a + 1/k_b, with 1/inf = 0.
  if (std::isinf(a.stiffness)) {
    p.stiffness = b.stiffness;
  } else if (std::isinf(b.stiffness)) {
    p.stiffness = a.stiffness;
  } else {
    p.stiffness = a.stiffness * b.stiffness / (a.stiffness + b.stiffness);
  }
  p.dissipation_time_scale =
      a.dissipation_time_scale + b.dissipation_time_scale;
  // Harmonic mean; a frictionless side makes the pair frictionless.
  const double mu_sum = a.friction + b.friction;
  p.friction = mu_sum > 0.0 ? 2.0 * a.friction * b.friction / mu_sum : 0.0;
  return p;
}

}  // namespace sapcontact
