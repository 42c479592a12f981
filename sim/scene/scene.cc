#include "sapcontact/sim/scene/scene.h"

namespace sapcontact {

const char* SolverModelName(SolverModel v) {
  return v == SolverModel::kSap ? "sap" : "rigid";
}

const char* LineSearchMethodName(LineSearchMethod v) {
  return v == LineSearchMethod::kExact ? "exact" : "backtracking";
}

const char* LinearSolverKindName(LinearSolverKind v) {
  switch (v) {
    case LinearSolverKind::kAuto:
      return "auto";
    case LinearSolverKind::kDense:
      return "dense";
    case LinearSolverKind::kCholmod:
      return "cholmod";
  }
  return "unknown";
}

int Scene::FindBody(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
    if (bodies[i].name == name) return i;
  }
  return -1;
}

int Scene::FindMaterial(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(materials.size()); ++i) {
    if (materials[i].name == name) return i;
  }
  return -1;
}

ContactParameters Scene::PairParameters(int body_a, int body_b) const {
  return CombineMaterials(materials.at(bodies.at(body_a).material_index),
                          materials.at(bodies.at(body_b).material_index));
}

}  // namespace sapcontact
