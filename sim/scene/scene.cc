#include "sapcontact/sim/scene/scene.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/geometry/shape_traits.h"
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

int Scene::FindRobot(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(robots.size()); ++i) {
    if (robots[i].name == name) return i;
  }
  return -1;
}

int Scene::FindMaterial(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(materials.size()); ++i) {
    if (materials[i].name == name) return i;
  }
  return -1;
}

bool LinkWeldedToWorld(const MultibodyTree& tree, int link) {
  for (int l = link; l >= 0; l = tree.joint(l).parent) {
    if (tree.joint(l).type != JointType::kFixed) return false;
  }
  return true;
}

namespace {

// "a, b, c" of at most `max` names, then ", ... (n in all)".
std::string NameList(const std::vector<std::string>& names, size_t max = 20) {
  std::string list;
  for (size_t i = 0; i < names.size() && i < max; ++i) {
    list += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > max) {
    list += ", ... (" + std::to_string(names.size()) + " in all)";
  }
  return list.empty() ? "none" : list;
}

}  // namespace

std::string ResolveForceTarget(const Scene& scene, ExternalForce* force) {
  force->body = force->robot = force->link = -1;
  const std::string& t = force->target;
  int body = scene.FindBody(t);
  int robot = -1, link = -1;
  for (int r = 0; r < static_cast<int>(scene.robots.size()); ++r) {
    const std::string& name = scene.robots[r].name;
    if (t.size() <= name.size() + 1 || t.compare(0, name.size(), name) != 0 ||
        t[name.size()] != '/') {
      continue;
    }
    const int l =
        scene.robots[r].description.tree.FindLink(t.substr(name.size() + 1));
    if (l < 0) continue;
    if (body >= 0 || robot >= 0) {
      return "'" + t + "' is ambiguous: it names " +
             (body >= 0
                  ? "body '" + t + "'"
                  : "a link of robot '" + scene.robots[robot].name + "'") +
             " and a link of robot '" + name + "'";
    }
    robot = r;
    link = l;
  }
  if (body < 0 && robot < 0) {
    std::vector<std::string> bodies, links;
    for (const Body& b : scene.bodies) {
      if (!b.fixed) bodies.push_back(b.name);
    }
    for (const RobotSpec& r : scene.robots) {
      const MultibodyTree& tree = r.description.tree;
      for (int l = 0; l < tree.num_links(); ++l) {
        if (!LinkWeldedToWorld(tree, l)) {
          links.push_back(r.name + "/" + tree.link(l).name);
        }
      }
    }
    // Name the robot whose link is unknown.
    const size_t slash = t.find('/');
    const int r =
        slash == std::string::npos ? -1 : scene.FindRobot(t.substr(0, slash));
    std::string problem = "no body or robot link named '" + t + "'";
    if (r >= 0) {
      problem = "robot '" + scene.robots[r].name + "' has no link named '" +
                t.substr(slash + 1) + "'";
    }
    return problem + " (free bodies: " + NameList(bodies) +
           "; robot links, as <robot>/<link>: " + NameList(links) + ")";
  }
  if (body >= 0) {
    const Body& b = scene.bodies[body];
    if (b.fixed) {
      return "body '" + t + "' is fixed" +
             (b.prescribed ? " (its motion is prescribed)" : "") +
             ": forces on it do nothing";
    }
    force->body = body;
    return "";
  }
  if (LinkWeldedToWorld(scene.robots[robot].description.tree, link)) {
    return "link '" + t.substr(scene.robots[robot].name.size() + 1) +
           "' of robot '" + scene.robots[robot].name +
           "' is welded to the world (fixed joints up to a fixed base): "
           "forces on it do nothing";
  }
  force->robot = robot;
  force->link = link;
  return "";
}

namespace {

void Fail(const std::string& field, const std::string& problem) {
  throw std::invalid_argument(field + ": " + problem);
}

void CheckFunction(const TimeFunction& f, int n, const std::string& field) {
  if (f.size() != n) {
    Fail(field, "a function of size " + std::to_string(f.size()) +
                    ", expected " + std::to_string(n));
  }
}

bool OneDof(const MultibodyTree& tree, int joint) {
  return joint >= 0 && joint < tree.num_links() &&
         (tree.joint(joint).type == JointType::kRevolute ||
          tree.joint(joint).type == JointType::kPrismatic);
}

int MimicLeader(const RobotDescription& d, int joint) {
  for (const JointCoupling& c : d.couplings) {
    if (c.follower == joint) return c.leader;
  }
  return -1;
}

void ValidatePrescribed(const Body& b, const std::string& f) {
  if (!b.prescribed) return;
  if (!b.fixed) Fail(f + ".prescribed", "needs a fixed body (fixed: true)");
  const PrescribedMotion& m = b.motion;
  CheckFunction(m.velocity, 3, f + ".prescribed.velocity");
  CheckFunction(m.angular_velocity, 3, f + ".prescribed.angular_velocity");
  CheckFunction(m.surface_velocity, 3, f + ".prescribed.surface_velocity");
  if (b.shape.type == ShapeType::kPlane &&
      (m.velocity.MaxNorm() > 0.0 || m.angular_velocity.MaxNorm() > 0.0)) {
    Fail(f + ".prescribed", "a plane can only have a surface_velocity");
  }
  Range(f + ".prescribed.velocity", m.velocity.MaxNorm(), 0.0,
        limits::kMaxSpeed, "m/s", "max |velocity|");
  Range(f + ".prescribed.angular_velocity", m.angular_velocity.MaxNorm(), 0.0,
        limits::kMaxAngularSpeed, "rad/s", "max |angular_velocity|");
  Range(f + ".prescribed.surface_velocity", m.surface_velocity.MaxNorm(), 0.0,
        limits::kMaxSpeed, "m/s", "max |surface_velocity|");
}

void ValidateRobot(const Scene& scene, size_t index) {
  const RobotSpec& r = scene.robots[index];
  if (r.name.empty() || r.name.size() > limits::kMaxNameLength) {
    Fail("robots[" + std::to_string(index) + "].name",
         std::to_string(r.name.size()) + " characters (1 to " +
             std::to_string(limits::kMaxNameLength) + " allowed)");
  }
  const std::string f = "robots." + r.name;
  if (scene.FindBody(r.name) >= 0) {
    Fail(f + ".name", "'" + r.name + "' is also the name of a body");
  }
  if (scene.FindRobot(r.name) != static_cast<int>(index)) {
    Fail(f + ".name", "duplicate robot name '" + r.name + "'");
  }
  const MultibodyTree& tree = r.description.tree;
  if (tree.num_links() == 0) Fail(f + ".urdf", "the description has no links");
  if (tree.num_links() > limits::kMaxRobotJoints) {
    Fail(f + ".urdf", std::to_string(tree.num_links()) +
                          " joints, more than the limit of " +
                          std::to_string(limits::kMaxRobotJoints) +
                          " (docs/scenes.md, Limits)");
  }
  const JointType root = tree.joint(0).type;
  if (root != (r.fixed_base ? JointType::kFixed : JointType::kFloating)) {
    Fail(f + ".base.fixed",
         std::string("fixed_base is ") + (r.fixed_base ? "true" : "false") +
             " but the description's root joint is " + JointTypeName(root));
  }
  if (r.description.initial_positions.size() != tree.num_positions()) {
    Fail(f + ".urdf",
         "initial_positions has " +
             std::to_string(r.description.initial_positions.size()) +
             " entries, the tree " + std::to_string(tree.num_positions()) +
             " positions");
  }
  for (int k = 0; k < 3; ++k) {
    Range(f + ".base.position[" + std::to_string(k) + "]",
          r.base_pose.position[k], -limits::kMaxPosition, limits::kMaxPosition,
          "m");
  }
  const double qn = r.base_pose.orientation.norm();
  if (!std::isfinite(qn) || std::abs(qn - 1.0) > 1e-6) {
    Fail(f + ".base.quaternion", "not a unit quaternion");
  }
  Range(f + ".base.velocity", r.base_velocity.norm(), 0.0, limits::kMaxSpeed,
        "m/s", "|velocity|");
  Range(f + ".base.angular_velocity", r.base_angular_velocity.norm(), 0.0,
        limits::kMaxAngularSpeed, "rad/s", "|angular_velocity|");
  if (r.fixed_base && (r.base_velocity.squaredNorm() > 0.0 ||
                       r.base_angular_velocity.squaredNorm() > 0.0)) {
    Fail(f + ".base.velocity", "a fixed base cannot move");
  }
  if (!r.geometry_material_index.empty() &&
      r.geometry_material_index.size() != r.description.geometries.size()) {
    Fail(f + ".geometry_materials",
         std::to_string(r.geometry_material_index.size()) + " entries for " +
             std::to_string(r.description.geometries.size()) +
             " collision geometries");
  }
  for (int m : r.geometry_material_index) {
    if (m < -1 || m >= static_cast<int>(scene.materials.size())) {
      Fail(f + ".geometry_materials",
           "index " + std::to_string(m) + " is not a material of the scene");
    }
  }
  if (r.material_index < 0 ||
      r.material_index >= static_cast<int>(scene.materials.size())) {
    Fail(f + ".material", "index " + std::to_string(r.material_index) +
                              " is not a material of the scene");
  }
  for (const JointInitialState& j : r.joints) {
    const std::string jf = f + ".joints[" + std::to_string(j.joint) + "]";
    if (!OneDof(tree, j.joint)) {
      Fail(jf, "joint index " + std::to_string(j.joint) +
                   " is not a revolute or prismatic joint of the robot");
    }
    const Joint& joint = tree.joint(j.joint);
    const std::string nf = f + ".joints." + joint.name;
    if (MimicLeader(r.description, j.joint) >= 0) {
      Fail(nf, "a mimic follower's state follows its leader");
    }
    const bool revolute = joint.type == JointType::kRevolute;
    Range(nf + ".position", j.position,
          revolute ? -limits::kMaxAngle : -limits::kMaxPosition,
          revolute ? limits::kMaxAngle : limits::kMaxPosition,
          revolute ? "rad" : "m");
    if (r.joint_limits) {
      Range(nf + ".position", j.position, joint.lower, joint.upper,
            revolute ? "rad" : "m");
    }
    Range(nf + ".velocity", std::abs(j.velocity), 0.0,
          revolute ? limits::kMaxAngularSpeed : limits::kMaxSpeed,
          revolute ? "rad/s" : "m/s", "|velocity|");
  }
  for (const JointActuation& a : r.actuation) {
    const std::string jf = f + ".actuation[" + std::to_string(a.joint) + "]";
    if (!OneDof(tree, a.joint)) {
      Fail(jf, "joint index " + std::to_string(a.joint) +
                   " is not a revolute or prismatic joint of the robot");
    }
    const std::string af = f + ".actuation." + tree.joint(a.joint).name;
    if (MimicLeader(r.description, a.joint) >= 0) {
      Fail(af, "a mimic follower cannot be actuated (actuate its leader)");
    }
    if (!(a.kp >= 0.0 && std::isfinite(a.kp))) Fail(af + ".kp", "must be >= 0");
    if (!(a.kd >= 0.0 && std::isfinite(a.kd))) Fail(af + ".kd", "must be >= 0");
    if (!(a.kp + a.kd > 0.0)) Fail(af, "kp + kd must be > 0");
    if (!(a.effort_limit > 0.0)) Fail(af + ".effort_limit", "must be > 0");
    CheckFunction(a.target, 1, af + ".target");
    CheckFunction(a.target_velocity, 1, af + ".target_velocity");
    CheckFunction(a.feedforward, 1, af + ".feedforward");
  }
}

}  // namespace

namespace {

// The ranges of a material's or a material pair's fields (docs/scenes.md,
// Limits); `f` names them ("materials.felt", "material_pairs[0]").
void CheckContactRanges(const std::string& f, const ContactParameters& p) {
  if (!(std::isinf(p.stiffness) && p.stiffness > 0)) {
    Range(f + ".stiffness", p.stiffness, limits::kMinStiffness,
          limits::kMaxStiffness, "N/m");
  }
  Range(f + ".dissipation_time_scale", p.dissipation_time_scale, 0.0,
        limits::kMaxDissipationTimeScale, "s");
  Range(f + ".friction", p.friction, 0.0, limits::kMaxFriction, "");
  if (p.model != ContactModel::kSap && p.model != ContactModel::kSimilar &&
      p.model != ContactModel::kLagged) {
    throw std::invalid_argument(
        f + ".model: " + std::to_string(static_cast<int>(p.model)) +
        " is not sap, similar or lagged");
  }
  Range(f + ".hunt_crossley_dissipation", p.hunt_crossley_dissipation, 0.0,
        limits::kMaxHuntCrossleyDissipation, "s/m");
  Check(p.stiction_tolerance > 0.0 && std::isfinite(p.stiction_tolerance),
        f + ".stiction_tolerance", p.stiction_tolerance,
        limits::kMinStictionTolerance, limits::kMaxStictionTolerance, "m/s",
        "");
}

}  // namespace

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
  Check(s.sleep_speed > 0.0, "solver.sleep_speed", s.sleep_speed, 0.0,
        limits::kMaxSleepSpeed, "m/s", "");
  Range("solver.sleep_time", s.sleep_time, 0.0, limits::kMaxSleepTime, "s");
  const IntegratorSettings& in = scene.integrator;
  if (in.scheme != IntegrationScheme::kFixed &&
      in.scheme != IntegrationScheme::kErrorControlled) {
    throw std::invalid_argument(
        "integrator.scheme: " + std::to_string(static_cast<int>(in.scheme)) +
        " is not fixed or error_controlled");
  }
  Range("integrator.accuracy", in.accuracy, limits::kMinAccuracy,
        limits::kMaxAccuracy, "");
  if (in.max_step != 0.0) {
    Range("integrator.max_step", in.max_step, limits::kMinTimeStep,
          limits::kMaxTimeStep, "s");
  }
  Range("integrator.min_step", in.min_step, limits::kMinTimeStep,
        limits::kMaxTimeStep, "s");
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
    CheckContactRanges(f, MaterialParameters(m));
  }
  for (size_t i = 0; i < scene.material_pairs.size(); ++i) {
    const MaterialPair& mp = scene.material_pairs[i];
    const std::string f = "material_pairs[" + std::to_string(i) + "]";
    const int nm = static_cast<int>(scene.materials.size());
    if (mp.material_a < 0 || mp.material_a >= nm || mp.material_b < 0 ||
        mp.material_b >= nm) {
      throw std::invalid_argument(f +
                                  ".materials: an index that is not a "
                                  "material of the scene");
    }
    for (size_t j = 0; j < i; ++j) {
      const MaterialPair& o = scene.material_pairs[j];
      if (std::minmax(o.material_a, o.material_b) ==
          std::minmax(mp.material_a, mp.material_b)) {
        throw std::invalid_argument(f +
                                    ".materials: the pair of material_pairs[" +
                                    std::to_string(j) + "] again");
      }
    }
    CheckContactRanges(f, mp.parameters);
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
    for (const ShapeParameter& p : TraitsOf(b.shape.type).parameters) {
      if (p.kind != ShapeParameterKind::kLength) continue;
      const std::vector<double> values = ShapeParameterValues(b.shape, p);
      for (int k = 0; k < p.count; ++k) {
        Range(f + ".shape." + p.key +
                  (p.count > 1 ? "[" + std::to_string(k) + "]" : ""),
              values[k], limits::kMinSize, limits::kMaxSize, "m");
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
    ValidatePrescribed(b, f);
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
  if (static_cast<long>(scene.robots.size()) > limits::kMaxRobots) {
    Fail("robots", std::to_string(scene.robots.size()) +
                       " robots, more than the limit of " +
                       std::to_string(limits::kMaxRobots) +
                       " (docs/scenes.md, Limits)");
  }
  for (size_t i = 0; i < scene.robots.size(); ++i) ValidateRobot(scene, i);
  if (static_cast<long>(scene.external_forces.size()) >
      limits::kMaxExternalForces) {
    Fail("external_forces", std::to_string(scene.external_forces.size()) +
                                " forces, more than the limit of " +
                                std::to_string(limits::kMaxExternalForces) +
                                " (docs/scenes.md, Limits)");
  }
  for (size_t i = 0; i < scene.external_forces.size(); ++i) {
    const ExternalForce& e = scene.external_forces[i];
    const std::string f = "external_forces[" + std::to_string(i) + "]";
    if ((e.body >= 0) == (e.robot >= 0)) {
      Fail(f + ".body", "exactly one of body and robot must be set");
    }
    if (e.body >= 0) {
      if (e.body >= static_cast<int>(scene.bodies.size())) {
        Fail(f + ".body",
             "body index " + std::to_string(e.body) + " is out of range");
      }
      if (scene.bodies[e.body].fixed) {
        Fail(f + ".body", "body '" + scene.bodies[e.body].name +
                              "' is fixed: forces on it do nothing");
      }
    } else {
      if (e.robot >= static_cast<int>(scene.robots.size())) {
        Fail(f + ".body",
             "robot index " + std::to_string(e.robot) + " is out of range");
      }
      const MultibodyTree& tree = scene.robots[e.robot].description.tree;
      if (e.link < 0 || e.link >= tree.num_links()) {
        Fail(f + ".body",
             "link index " + std::to_string(e.link) + " is out of range");
      }
      if (LinkWeldedToWorld(tree, e.link)) {
        Fail(f + ".body", "link '" + tree.link(e.link).name +
                              "' is welded to the world: forces on it do "
                              "nothing");
      }
    }
    CheckFunction(e.force, 3, f + ".force");
    CheckFunction(e.torque, 3, f + ".torque");
    for (int k = 0; k < 3; ++k) {
      Range(f + ".point[" + std::to_string(k) + "]", e.point[k],
            -limits::kMaxPosition, limits::kMaxPosition, "m");
    }
  }
}

namespace {

// RigidPair's robot part: a robot with degrees of freedom and collision
// geometry of a rigid material pairs with any rigid body, any other rigid
// robot with geometry, and itself with self_collision.
std::string RigidRobotPair(const Scene& scene) {
  auto rigid = [&](int material) {
    return material >= 0 &&
           material < static_cast<int>(scene.materials.size()) &&
           std::isinf(scene.materials[material].stiffness);
  };
  auto colliding = [&](const RobotSpec& r) {
    if (r.description.geometries.empty()) return false;
    bool any = rigid(r.material_index);
    for (int m : r.geometry_material_index) any = any || rigid(m);
    return any;
  };
  for (const RobotSpec& r : scene.robots) {
    if (!colliding(r) || r.description.tree.num_velocities() == 0) continue;
    for (const Body& b : scene.bodies) {
      if (rigid(b.material_index)) {
        return "robot '" + r.name + "' and body '" + b.name + "'";
      }
    }
    for (const RobotSpec& other : scene.robots) {
      if (&other == &r && !r.self_collision) continue;
      if (colliding(other)) {
        return &other == &r
                   ? "robot '" + r.name + "' and itself"
                   : "robots '" + r.name + "' and '" + other.name + "'";
      }
    }
  }
  return "";
}

}  // namespace

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
  if (free_rigid < 0) return RigidRobotPair(scene);
  for (int i = 0; i < static_cast<int>(scene.bodies.size()); ++i) {
    if (i == free_rigid || !rigid(scene.bodies[i])) continue;
    const int a = std::min(i, free_rigid), b = std::max(i, free_rigid);
    return "bodies '" + scene.bodies[a].name + "' and '" +
           scene.bodies[b].name + "'";
  }
  return RigidRobotPair(scene);
}

ContactParameters Scene::MaterialPairParameters(int material_a,
                                                int material_b) const {
  for (const MaterialPair& p : material_pairs) {
    if ((p.material_a == material_a && p.material_b == material_b) ||
        (p.material_a == material_b && p.material_b == material_a)) {
      return p.parameters;
    }
  }
  return CombineMaterials(materials.at(material_a), materials.at(material_b));
}

ContactParameters Scene::PairParameters(int body_a, int body_b) const {
  return MaterialPairParameters(bodies.at(body_a).material_index,
                                bodies.at(body_b).material_index);
}

}  // namespace sapcontact
