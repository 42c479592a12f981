#include "sapcontact/sim/scene/scene.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_limits.h"

namespace sapcontact {
namespace {

namespace limits = scene_limits;

void Check(bool ok, const std::string& field, double value, double lo,
           double hi, const std::string& unit, const std::string& quantity) {
  if (ok && value >= lo && value <= hi) return;
  std::ostringstream os;
  const std::string u = unit.empty() ? "" : " " + unit;
  os << field << ": ";
  if (!quantity.empty()) os << quantity << " = ";
  os << value << u << " is outside [" << lo << ", " << hi << "]" << u
     << " (docs/scenes.md, Limits)";
  throw std::invalid_argument(os.str());
}

void Range(const std::string& field, double value, double lo, double hi,
           const std::string& unit, const std::string& quantity = "") {
  Check(std::isfinite(value), field, value, lo, hi, unit, quantity);
}

}  // namespace

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
    case LinearSolverKind::kBlockSparse:
      return "block_sparse";
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

void ValidateScene(const Scene& scene) {
  Range("time_step", scene.time_step, limits::kMinTimeStep,
        limits::kMaxTimeStep, "s");
  Range("gravity", scene.gravity.norm(), 0.0, limits::kMaxGravity, "m/s^2",
        "|gravity|");
  Range("collision.margin", scene.collision.margin, 0.0, limits::kMaxMargin,
        "m");
  const SolverSettings& s = scene.solver;
  Range("solver.near_rigid_threshold", s.near_rigid_threshold, 0.0,
        limits::kMaxRegularization, "");
  Check(s.friction_regularization > 0.0, "solver.friction_regularization",
        s.friction_regularization, 0.0, limits::kMaxRegularization, "", "");
  Check(s.rel_tolerance > 0.0, "solver.rel_tolerance", s.rel_tolerance, 0.0,
        1.0, "", "");
  Range("solver.abs_tolerance", s.abs_tolerance, 0.0, 1.0, "");
  Range("solver.max_iterations", s.max_iterations, 1,
        limits::kMaxSolverIterations, "");
  if (scene.output.every < 1) {
    throw std::invalid_argument("output.every: must be > 0");
  }
  if (scene.materials.empty()) {
    throw std::invalid_argument("materials: empty (\"default\" is required)");
  }
  for (const Material& m : scene.materials) {
    const std::string f = "materials." + m.name;
    if (m.name.size() > limits::kMaxNameLength) {
      throw std::invalid_argument(
          "materials: a name of " + std::to_string(m.name.size()) +
          " characters, more than " + std::to_string(limits::kMaxNameLength));
    }
    if (!(std::isinf(m.stiffness) && m.stiffness > 0)) {
      Range(f + ".stiffness", m.stiffness, limits::kMinStiffness,
            limits::kMaxStiffness, "N/m");
    }
    Range(f + ".dissipation_time_scale", m.dissipation_time_scale, 0.0,
          limits::kMaxDissipationTimeScale, "s");
    Range(f + ".friction", m.friction, 0.0, limits::kMaxFriction, "");
  }
  if (static_cast<long>(scene.bodies.size()) > limits::kMaxBodies) {
    throw std::invalid_argument(
        "bodies: " + std::to_string(scene.bodies.size()) +
        " bodies, more than the limit of " +
        std::to_string(limits::kMaxBodies) + " (docs/scenes.md, Limits)");
  }
  if (scene.solver.model == SolverModel::kSap &&
      scene.solver.near_rigid_threshold == 0.0) {
    const std::string pair = RigidPair(scene);
    if (!pair.empty()) {
      throw std::invalid_argument(
          "solver.near_rigid_threshold: 0 leaves rigid contacts without "
          "regularization (R_n = 0): " +
          pair + " have rigid materials (stiffness .inf)");
    }
  }
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    const Body& b = scene.bodies[i];
    if (b.name.empty() || b.name.size() > limits::kMaxExpandedNameLength) {
      throw std::invalid_argument(
          "bodies[" + std::to_string(i) +
          "].name: " + std::to_string(b.name.size()) + " characters (1 to " +
          std::to_string(limits::kMaxExpandedNameLength) + " allowed)");
    }
    const std::string f = "bodies." + b.name;
    if (b.material_index < 0 ||
        b.material_index >= static_cast<int>(scene.materials.size())) {
      throw std::invalid_argument(f + ".material: index " +
                                  std::to_string(b.material_index) +
                                  " is not a material of the scene");
    }
    if (b.shape.type == ShapeType::kBox) {
      for (int k = 0; k < 3; ++k) {
        Range(f + ".shape.size[" + std::to_string(k) + "]", b.shape.size[k],
              limits::kMinSize, limits::kMaxSize, "m");
      }
    } else if (b.shape.type != ShapeType::kPlane) {
      Range(f + ".shape.radius", b.shape.radius, limits::kMinSize,
            limits::kMaxSize, "m");
      if (b.shape.type == ShapeType::kCapsule) {
        Range(f + ".shape.length", b.shape.length, limits::kMinSize,
              limits::kMaxSize, "m");
      }
    }
    for (int k = 0; k < 3; ++k) {
      Range(f + ".position[" + std::to_string(k) + "]", b.pose.position[k],
            -limits::kMaxPosition, limits::kMaxPosition, "m");
    }
    const double qn = b.pose.orientation.norm();
    if (!std::isfinite(qn) || std::abs(qn - 1.0) > 1e-6) {
      throw std::invalid_argument(f + ".quaternion: not a unit quaternion");
    }
    if (b.fixed) continue;
    Range(f + ".mass", b.mass, limits::kMinMass, limits::kMaxMass, "kg");
    if (!b.inertia.allFinite()) {
      throw std::invalid_argument(f + ": inertia has non-finite entries");
    }
    Range(f + ".velocity", b.velocity.norm(), 0.0, limits::kMaxSpeed, "m/s",
          "|velocity|");
    Range(f + ".angular_velocity", b.angular_velocity.norm(), 0.0,
          limits::kMaxAngularSpeed, "rad/s", "|angular_velocity|");
  }
}

std::string RigidPair(const Scene& scene) {
  auto rigid = [&](const Body& b) {
    return b.material_index >= 0 &&
           b.material_index < static_cast<int>(scene.materials.size()) &&
           std::isinf(scene.materials[b.material_index].stiffness);
  };
  // A free rigid body pairs with any other rigid body.
  int free_rigid = -1;
  for (int i = 0; i < static_cast<int>(scene.bodies.size()); ++i) {
    if (!rigid(scene.bodies[i])) continue;
    if (!scene.bodies[i].fixed && free_rigid < 0) free_rigid = i;
  }
  if (free_rigid < 0) return "";
  for (int i = 0; i < static_cast<int>(scene.bodies.size()); ++i) {
    if (i == free_rigid || !rigid(scene.bodies[i])) continue;
    const int a = std::min(i, free_rigid), b = std::max(i, free_rigid);
    return "bodies '" + scene.bodies[a].name + "' and '" +
           scene.bodies[b].name + "'";
  }
  return "";
}

ContactParameters Scene::PairParameters(int body_a, int body_b) const {
  return CombineMaterials(materials.at(bodies.at(body_a).material_index),
                          materials.at(bodies.at(body_b).material_index));
}

}  // namespace sapcontact
