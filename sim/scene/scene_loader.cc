#include "sapcontact/sim/scene/scene_loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "sapcontact/sim/robot/urdf_loader.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_overrides.h"
#include "sapcontact/sim/scene/scene_yaml_reader.h"

namespace sapcontact {
namespace {

using scene_internal::Join;
using scene_internal::YamlReader;

namespace limits = scene_limits;

// "1e+06" style numbers for limit messages.
std::string Num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Whether `s` is valid UTF-8 without control characters.
bool PrintableUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    int extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
      extra = 1;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
    } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      return false;
    }
    if (i + extra >= s.size() && extra > 0) return false;
    for (int k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += 1 + extra;
  }
  return true;
}

// Names are used in override paths and in output files (CSV, JSON).
bool ValidName(const std::string& name) {
  for (char c : name) {
    if (c == '.' || c == '=' || c == ',' || c == '"' ||
        std::isspace(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return !name.empty() && PrintableUtf8(name);
}

class Parser {
 public:
  explicit Parser(const YamlReader& r) : r_(r) {}

  Scene Parse(const YAML::Node& root) {
    if (!root.IsMap()) {
      if (root.IsNull()) {
        r_.FailNoPlace("",
                       "the scene is empty (expected a map with "
                       "time_step, duration and bodies)");
      }
      r_.Fail(root, "", "expected a map at the top level");
    }
    r_.CheckMap(root, "", scene_internal::RootKeys());
    Scene scene;
    scene.source = r_.file();
    const YAML::Node dt_node = r_.Required(root, "time_step", "");
    scene.time_step = r_.Positive(dt_node, "time_step");
    const YAML::Node duration_node = r_.Required(root, "duration", "");
    scene.duration = r_.Positive(duration_node, "duration");
    r_.CheckRange(dt_node, "time_step", scene.time_step, limits::kMinTimeStep,
                  limits::kMaxTimeStep, "s",
                  "no contact time scale is resolved by a smaller or a "
                  "larger step");
    const double steps = std::round(scene.duration / scene.time_step);
    if (!(steps <= limits::kMaxSteps)) {
      r_.Fail(duration_node, "duration",
              "duration / time_step = " + Num(steps) +
                  " steps, more than the limit of " + Num(limits::kMaxSteps) +
                  " steps of one run (docs/scenes.md, Limits): shorten the "
                  "duration or enlarge the time step");
    }
    if (root["gravity"]) {
      scene.gravity = r_.Vec3(root["gravity"], "gravity");
      r_.CheckRange(root["gravity"], "gravity", scene.gravity.norm(), 0.0,
                    limits::kMaxGravity, "m/s^2",
                    "more than 1000 g is not a rigid-body scene", "|gravity|");
    }
    if (root["solver"]) ParseSolver(root["solver"], &scene.solver);
    ParseMaterials(root["materials"], &scene);
    if (root["output"]) {
      const YAML::Node out = root["output"];
      r_.CheckMap(out, "output", scene_internal::OutputKeys());
      if (out["every"]) {
        scene.output.every = r_.PositiveInt(out["every"], "output.every");
      }
    }
    if (root["collision"]) {
      const YAML::Node col = root["collision"];
      r_.CheckMap(col, "collision", scene_internal::CollisionKeys());
      if (col["margin"]) {
        scene.collision.margin =
            r_.NonNegative(col["margin"], "collision.margin");
        r_.CheckRange(col["margin"], "collision.margin", scene.collision.margin,
                      0.0, limits::kMaxMargin, "m",
                      "a larger margin makes every nearby pair a contact");
      }
    }
    const YAML::Node robots = root["robots"];
    // (Robots that are not a list fail in ParseRobots.)
    const bool has_robots = robots && !robots.IsNull() &&
                            !(robots.IsSequence() && robots.size() == 0);
    ParseBodies(has_robots ? root["bodies"] : r_.Required(root, "bodies", ""),
                has_robots, &scene);
    ParseRobots(robots, &scene);
    ParseExternalForces(root["external_forces"], &scene);
    CheckRigidPairsHaveRegularization(root, scene);
    return scene;
  }

 private:
  void ParseSolver(const YAML::Node& n, SolverSettings* s) {
    r_.CheckMap(n, "solver", scene_internal::SolverKeys());
    if (n["model"]) {
      s->model = static_cast<SolverModel>(
          r_.Choice(n["model"], "solver.model", {"sap", "rigid"}));
    }
    if (n["near_rigid_threshold"]) {
      s->near_rigid_threshold = r_.NonNegative(n["near_rigid_threshold"],
                                               "solver.near_rigid_threshold");
      r_.CheckRange(n["near_rigid_threshold"], "solver.near_rigid_threshold",
                    s->near_rigid_threshold, 0.0, limits::kMaxRegularization,
                    "", "beta > 1 already makes every contact near-rigid");
    }
    if (n["friction_regularization"]) {
      s->friction_regularization = r_.Positive(
          n["friction_regularization"], "solver.friction_regularization");
      r_.CheckRange(n["friction_regularization"],
                    "solver.friction_regularization",
                    s->friction_regularization, 0.0, limits::kMaxRegularization,
                    "", "sigma > 1 is no friction at all");
    }
    if (n["rel_tolerance"]) {
      s->rel_tolerance =
          r_.Positive(n["rel_tolerance"], "solver.rel_tolerance");
      r_.CheckRange(n["rel_tolerance"], "solver.rel_tolerance",
                    s->rel_tolerance, 0.0, 1.0, "",
                    "a relative tolerance above 1 accepts any iterate");
    }
    if (n["abs_tolerance"]) {
      s->abs_tolerance =
          r_.NonNegative(n["abs_tolerance"], "solver.abs_tolerance");
      r_.CheckRange(n["abs_tolerance"], "solver.abs_tolerance",
                    s->abs_tolerance, 0.0, 1.0, "",
                    "an absolute tolerance above 1 accepts any iterate");
    }
    if (n["max_iterations"]) {
      s->max_iterations =
          r_.PositiveInt(n["max_iterations"], "solver.max_iterations");
      r_.CheckRange(n["max_iterations"], "solver.max_iterations",
                    s->max_iterations, 1, limits::kMaxSolverIterations, "",
                    "a step that needs more does not converge");
    }
    if (n["line_search"]) {
      s->line_search = static_cast<LineSearchMethod>(r_.Choice(
          n["line_search"], "solver.line_search", {"exact", "backtracking"}));
    }
    if (n["linear_solver"]) {
      s->linear_solver = static_cast<LinearSolverKind>(
          r_.Choice(n["linear_solver"], "solver.linear_solver",
                    {"auto", "dense", "cholmod", "block_sparse"}));
    }
    if (n["stiction_prediction"]) {
      s->stiction_prediction =
          r_.Bool(n["stiction_prediction"], "solver.stiction_prediction");
    }
    if (n["supported_delassus_estimate"]) {
      s->supported_delassus_estimate =
          r_.Bool(n["supported_delassus_estimate"],
                  "solver.supported_delassus_estimate");
    }
    if (n["line_search_slope_ratio"]) {
      s->line_search_slope_ratio = r_.NonNegative(
          n["line_search_slope_ratio"], "solver.line_search_slope_ratio");
      r_.CheckRange(n["line_search_slope_ratio"],
                    "solver.line_search_slope_ratio",
                    s->line_search_slope_ratio, 0.0, 0.99, "",
                    "a ratio of 1 accepts steps that barely reduce the slope");
    }
  }

  void ParseMaterials(const YAML::Node& n, Scene* scene) {
    scene->materials.assign(1, Material{});  // the built-in "default"
    if (!n) return;
    r_.CheckMap(n, "materials", {});
    for (const auto& item : n) {
      const std::string name = item.first.Scalar();
      const std::string field = "materials." + name;
      if (!ValidName(name)) {
        r_.Fail(item.first, field,
                "invalid material name (no spaces, '.', '=', ',', '\"' or "
                "control characters; UTF-8)");
      }
      if (name.size() > limits::kMaxNameLength) {
        r_.Fail(item.first, field.substr(0, 40) + "...",
                "a material name of " + std::to_string(name.size()) +
                    " characters, more than the limit of " +
                    std::to_string(limits::kMaxNameLength) +
                    " (docs/scenes.md, Limits)");
      }
      const YAML::Node& m = item.second;
      r_.CheckMap(m, field, scene_internal::MaterialKeys());
      Material mat;
      mat.name = name;
      if (m["stiffness"]) {
        mat.stiffness =
            r_.Double(m["stiffness"], field + ".stiffness", /*allow_inf=*/true);
        if (!(mat.stiffness > 0.0)) {
          r_.Fail(m["stiffness"], field + ".stiffness",
                  "must be > 0 N/m (or .inf for rigid)");
        }
        if (!std::isinf(mat.stiffness)) {
          r_.CheckRange(m["stiffness"], field + ".stiffness", mat.stiffness,
                        limits::kMinStiffness, limits::kMaxStiffness, "N/m",
                        "stiffer contacts are rigid at any time step (use "
                        ".inf); softer ones hold nothing up");
        }
      }
      if (m["dissipation_time_scale"]) {
        mat.dissipation_time_scale = r_.NonNegative(
            m["dissipation_time_scale"], field + ".dissipation_time_scale");
        r_.CheckRange(
            m["dissipation_time_scale"], field + ".dissipation_time_scale",
            mat.dissipation_time_scale, 0.0, limits::kMaxDissipationTimeScale,
            "s", "longer than any simulated motion");
      }
      if (m["friction"]) {
        mat.friction = r_.NonNegative(m["friction"], field + ".friction");
        r_.CheckRange(m["friction"], field + ".friction", mat.friction, 0.0,
                      limits::kMaxFriction, "",
                      "no surface pair has a larger friction coefficient");
      }
      if (m["model"]) {
        const ContactModel models[] = {
            ContactModel::kSap, ContactModel::kSimilar, ContactModel::kLagged};
        std::vector<std::string> names;
        for (ContactModel model : models) names.push_back(ToString(model));
        mat.model = models[r_.Choice(m["model"], field + ".model", names)];
      }
      if (m["hunt_crossley_dissipation"]) {
        const std::string f = field + ".hunt_crossley_dissipation";
        mat.hunt_crossley_dissipation =
            r_.NonNegative(m["hunt_crossley_dissipation"], f);
        r_.CheckRange(m["hunt_crossley_dissipation"], f,
                      mat.hunt_crossley_dissipation, 0.0,
                      limits::kMaxHuntCrossleyDissipation, "s/m",
                      "every impact would be fully damped");
      }
      if (m["stiction_tolerance"]) {
        const std::string f = field + ".stiction_tolerance";
        mat.stiction_tolerance = r_.Positive(m["stiction_tolerance"], f);
        r_.CheckRange(m["stiction_tolerance"], f, mat.stiction_tolerance,
                      limits::kMinStictionTolerance,
                      limits::kMaxStictionTolerance, "m/s",
                      "below it creep is slower than any run resolves, above "
                      "it friction is viscous at every speed");
      }
      if (name == "default") {
        scene->materials[0] = mat;
      } else {
        scene->materials.push_back(mat);
      }
    }
  }

  Shape ParseShape(const YAML::Node& n, const std::string& field) {
    r_.CheckMap(n, field, scene_internal::ShapeKeys());
    Shape shape;
    shape.type = static_cast<ShapeType>(
        r_.Choice(r_.Required(n, "type", field), field + ".type",
                  {"plane", "box", "sphere", "capsule"}));
    static const std::vector<std::string> kUsed[] = {
        {"type"},
        {"type", "size"},
        {"type", "radius"},
        {"type", "radius", "length"}};
    const auto& used = kUsed[static_cast<int>(shape.type)];
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (std::find(used.begin(), used.end(), key) == used.end()) {
        r_.Fail(kv.first, Join(field, key),
                "'" + key + "' is not a parameter of a " +
                    ShapeTypeName(shape.type));
      }
    }
    if (shape.type == ShapeType::kBox) {
      const YAML::Node size = r_.Required(n, "size", field);
      shape.size = r_.Vec3(size, field + ".size");
      for (int i = 0; i < 3; ++i) {
        const std::string f = field + ".size[" + std::to_string(i) + "]";
        CheckSize(size[i], f, r_.Positive(size[i], f));
      }
    }
    if (shape.type == ShapeType::kSphere || shape.type == ShapeType::kCapsule) {
      const YAML::Node radius = r_.Required(n, "radius", field);
      shape.radius = r_.Positive(radius, field + ".radius");
      CheckSize(radius, field + ".radius", shape.radius);
    }
    if (shape.type == ShapeType::kCapsule) {
      const YAML::Node length = r_.Required(n, "length", field);
      shape.length = r_.Positive(length, field + ".length");
      CheckSize(length, field + ".length", shape.length);
    }
    return shape;
  }

  // SAP's R_n = max(beta^2 w / (4 pi^2), 1 / (dt k (dt + tau_d))) is 0 for
  // a rigid pair (k = inf) when beta = 0: the problem is not strictly
  // convex and the solver rejects it. Such a pair exists when two bodies,
  // not both fixed, have rigid materials.
  void CheckRigidPairsHaveRegularization(const YAML::Node& root,
                                         const Scene& scene) {
    if (scene.solver.model != SolverModel::kSap ||
        scene.solver.near_rigid_threshold > 0.0) {
      return;
    }
    const std::string pair = RigidPair(scene);
    if (pair.empty()) return;
    const YAML::Node solver = root["solver"];
    const YAML::Node at =
        solver && solver.IsMap() && solver["near_rigid_threshold"]
            ? solver["near_rigid_threshold"]
            : root;
    r_.Fail(
        at, "solver.near_rigid_threshold",
        "0 leaves rigid contacts without regularization (R_n = 0): " + pair +
            " have rigid materials (stiffness .inf); give beta > 0 or "
            "a finite stiffness");
  }

  void CheckSize(const YAML::Node& node, const std::string& field,
                 double value) {
    r_.CheckRange(node, field, value, limits::kMinSize, limits::kMaxSize, "m",
                  "shapes outside 10 um to 10 km are not resolved by the "
                  "millimetre contact margin or are not rigid bodies");
  }

  void CheckMass(const YAML::Node& node, const std::string& field,
                 double mass) {
    r_.CheckRange(node, field, mass, limits::kMinMass, limits::kMaxMass, "kg",
                  "lighter or heavier bodies make the contact problem "
                  "singular in double precision",
                  "the mass");
  }

  // position, rpy or quaternion of a body or a robot base.
  void ParsePose(const YAML::Node& n, const std::string& field, Pose* pose) {
    if (n["position"]) {
      pose->position = r_.Vec3(n["position"], field + ".position");
      for (int i = 0; i < 3; ++i) {
        r_.CheckRange(n["position"][i],
                      field + ".position[" + std::to_string(i) + "]",
                      pose->position[i], -limits::kMaxPosition,
                      limits::kMaxPosition, "m", kPositionWhy);
      }
    }
    if (n["rpy"] && n["quaternion"]) {
      r_.Fail(n["quaternion"], field + ".quaternion",
              "give rpy or quaternion, not both");
    }
    if (n["rpy"]) {
      const Vector3 rpy = r_.Vec3(n["rpy"], field + ".rpy");
      for (int i = 0; i < 3; ++i) {
        r_.CheckRange(n["rpy"][i], field + ".rpy[" + std::to_string(i) + "]",
                      rpy[i], -limits::kMaxAngle, limits::kMaxAngle, "rad",
                      "give the angle modulo 2 pi");
      }
      pose->orientation = QuaternionFromRpy(rpy);
    }
    if (n["quaternion"]) {
      const Eigen::VectorXd q =
          r_.Vector(n["quaternion"], field + ".quaternion", 4);
      const double norm = q.norm();
      if (!(norm > 1e-12) || !std::isfinite(norm)) {
        r_.Fail(n["quaternion"], field + ".quaternion",
                "cannot be normalized (zero norm); expected [w, x, y, z]");
      }
      pose->orientation = Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
      pose->orientation.normalize();
    }
  }

  // Parses one YAML body (not yet grid-expanded). Returns the grid counts
  // and spacing through the out-arguments ({1,1,1} and 0 without grid).
  Body ParseBody(const YAML::Node& n, const std::string& field,
                 Eigen::Vector3i* count, Vector3* spacing, const Scene& scene) {
    r_.CheckMap(n, field, scene_internal::BodyKeys());
    Body b;
    b.name = n["name"].Scalar();
    if (n["fixed"]) b.fixed = r_.Bool(n["fixed"], field + ".fixed");
    const YAML::Node shape_node = r_.Required(n, "shape", field);
    b.shape = ParseShape(shape_node, field + ".shape");
    const bool plane = b.shape.type == ShapeType::kPlane;
    if (plane && !b.fixed) {
      r_.Fail(n["fixed"] ? n["fixed"] : shape_node, field + ".fixed",
              "a plane must be on a fixed body (fixed: true)");
    }
    const YAML::Node mass = n["mass"];
    const YAML::Node density = n["density"];
    if (mass && density) {
      r_.Fail(density, field + ".density", "give mass or density, not both");
    }
    if (plane && (mass || density)) {
      r_.Fail(mass ? mass : density, field + (mass ? ".mass" : ".density"),
              "a plane has no mass or density");
    }
    if (!b.fixed && !mass && !density) {
      r_.Fail(n, field + ".mass",
              "missing required field 'mass' (or 'density') of a free body");
    }
    if (mass) {
      const double m = r_.Positive(mass, field + ".mass");
      CheckMass(mass, field + ".mass", m);
      if (!b.fixed) b.mass = m;
    }
    if (density) {
      const double rho = r_.Positive(density, field + ".density");
      r_.CheckRange(density, field + ".density", rho, limits::kMinDensity,
                    limits::kMaxDensity, "kg/m^3",
                    "no material is lighter than a thousandth of air's or "
                    "denser than 1000 kg per litre");
      if (!b.fixed) {
        b.mass = MassPropertiesFromDensity(b.shape, rho).mass;
        CheckMass(density, field + ".density", b.mass);
      }
    }
    if (!b.fixed) b.inertia = MassPropertiesFromMass(b.shape, b.mass).inertia;

    ParsePose(n, field, &b.pose);
    const char* kMotion[] = {"velocity", "angular_velocity"};
    for (int i = 0; i < 2; ++i) {
      if (!n[kMotion[i]]) continue;
      const Vector3 v = r_.Vec3(n[kMotion[i]], field + "." + kMotion[i]);
      if (b.fixed && v.squaredNorm() > 0.0) {
        r_.Fail(n[kMotion[i]], field + "." + kMotion[i],
                "a fixed body cannot move (prescribed: gives a fixed body "
                "velocities)");
      }
      if (i == 0) {
        r_.CheckRange(n[kMotion[i]], field + "." + kMotion[i], v.norm(), 0.0,
                      limits::kMaxSpeed, "m/s",
                      "faster than any rigid-body contact (10 km/s)",
                      "|velocity|");
      } else {
        r_.CheckRange(n[kMotion[i]], field + "." + kMotion[i], v.norm(), 0.0,
                      limits::kMaxAngularSpeed, "rad/s",
                      "a faster spin is not a rigid body",
                      "|angular_velocity|");
      }
      (i == 0 ? b.velocity : b.angular_velocity) = v;
    }
    if (n["prescribed"]) ParsePrescribed(n, field, &b);
    if (n["material"]) {
      b.material = r_.String(n["material"], field + ".material");
      b.material_index =
          MaterialIndex(n["material"], field + ".material", b.material, scene);
    }
    count->setOnes();
    spacing->setZero();
    if (n["grid"]) {
      const YAML::Node g = n["grid"];
      const std::string gf = field + ".grid";
      r_.CheckMap(g, gf, scene_internal::GridKeys());
      const YAML::Node c = r_.Required(g, "count", gf);
      r_.Vector(c, gf + ".count", 3);  // shape check
      for (int i = 0; i < 3; ++i) {
        const std::string f = gf + ".count[" + std::to_string(i) + "]";
        (*count)[i] = r_.PositiveInt(c[i], f);
        r_.CheckRange(c[i], f, (*count)[i], 1,
                      static_cast<double>(limits::kMaxBodies), "",
                      "the scene's body limit");
      }
      const YAML::Node s = r_.Required(g, "spacing", gf);
      *spacing = r_.Vec3(s, gf + ".spacing");
      for (int i = 0; i < 3; ++i) {
        const std::string f = gf + ".spacing[" + std::to_string(i) + "]";
        r_.NonNegative(s[i], f);
        // The last copy's position must be within the position limit too.
        r_.CheckRange(
            s[i], f,
            std::abs(b.pose.position[i]) + ((*count)[i] - 1.0) * (*spacing)[i],
            0.0, limits::kMaxPosition, "m", kPositionWhy,
            "|position| of the last grid copy");
      }
    }
    return b;
  }

  int MaterialIndex(const YAML::Node& node, const std::string& field,
                    const std::string& name, const Scene& scene) {
    const int index = scene.FindMaterial(name);
    if (index < 0) {
      std::string list;
      for (const auto& m : scene.materials) {
        list += (list.empty() ? "" : ", ") + m.name;
      }
      r_.Fail(node, field,
              "no material named '" + name + "' (defined: " + list + ")");
    }
    return index;
  }

  // bodies[i].prescribed: velocities of a fixed body as functions of time.
  void ParsePrescribed(const YAML::Node& body, const std::string& body_field,
                       Body* b) {
    const YAML::Node n = body["prescribed"];
    const std::string field = body_field + ".prescribed";
    r_.CheckMap(n, field, scene_internal::PrescribedKeys());
    if (!b->fixed) {
      r_.Fail(n, field,
              "prescribed motion needs fixed: true (a body with dynamics "
              "cannot follow given velocities)");
    }
    if (n.size() == 0) {
      r_.Fail(n, field,
              "give at least one of velocity, angular_velocity, "
              "surface_velocity");
    }
    const bool plane = b->shape.type == ShapeType::kPlane;
    struct Item {
      const char* key;
      TimeFunction* f;
      double max;
      const char* unit;
    } items[] = {{"velocity", &b->motion.velocity, limits::kMaxSpeed, "m/s"},
                 {"angular_velocity", &b->motion.angular_velocity,
                  limits::kMaxAngularSpeed, "rad/s"},
                 {"surface_velocity", &b->motion.surface_velocity,
                  limits::kMaxSpeed, "m/s"}};
    for (const Item& item : items) {
      const YAML::Node v = n[item.key];
      if (!v) continue;
      const std::string f = field + "." + item.key;
      if (plane && std::string(item.key) != "surface_velocity") {
        r_.Fail(v, f,
                "a plane is unbounded: it can only have a surface_velocity "
                "(a conveyor belt)");
      }
      *item.f = r_.VectorFunction(v, f);
      r_.CheckRange(v, f, item.f->MaxNorm(), 0.0, item.max, item.unit,
                    "faster than any rigid-body contact",
                    std::string("max |") + item.key + "|");
    }
    b->prescribed = true;
  }

  // Checks a robot or body name: length, characters (ValidName).
  void CheckName(const YAML::Node& node, const std::string& field,
                 const std::string& name, const char* what) {
    if (name.size() > limits::kMaxNameLength) {
      r_.Fail(node, field,
              std::string("a ") + what + " name of " +
                  std::to_string(name.size()) +
                  " characters, more than the limit of " +
                  std::to_string(limits::kMaxNameLength) +
                  " (docs/scenes.md, Limits)");
    }
    if (!ValidName(name)) {
      r_.Fail(node, field,
              std::string("invalid ") + what + " name '" + name +
                  "' (no spaces, '.', '=', ',', '\"' or control "
                  "characters; UTF-8)");
    }
  }

  void ParseRobots(const YAML::Node& list, Scene* scene) {
    if (!list) return;
    if (!list.IsSequence()) {
      r_.Fail(list, "robots", "expected a list of robots");
    }
    if (static_cast<long>(list.size()) > limits::kMaxRobots) {
      r_.Fail(list, "robots",
              std::to_string(list.size()) + " robots, more than the limit of " +
                  std::to_string(limits::kMaxRobots) +
                  " (docs/scenes.md, Limits)");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string index_field = "robots[" + std::to_string(i) + "]";
      if (!n.IsMap()) r_.Fail(n, index_field, "expected a map (a robot)");
      const YAML::Node name_node = r_.Required(n, "name", index_field);
      const std::string name = r_.String(name_node, index_field + ".name");
      CheckName(name_node, index_field + ".name", name, "robot");
      const std::string field = "robots." + name;
      if (scene->FindRobot(name) >= 0) {
        r_.Fail(name_node, field + ".name",
                "duplicate robot name '" + name + "'");
      }
      if (scene->FindBody(name) >= 0) {
        r_.Fail(name_node, field + ".name",
                "'" + name +
                    "' is already the name of a body (robot and body "
                    "names share one namespace)");
      }
      scene->robots.push_back(ParseRobot(n, field, *scene));
    }
  }

  RobotSpec ParseRobot(const YAML::Node& n, const std::string& field,
                       const Scene& scene) {
    r_.CheckMap(n, field, scene_internal::RobotKeys());
    RobotSpec r;
    r.name = n["name"].Scalar();
    const YAML::Node urdf = r_.Required(n, "urdf", field);
    r.urdf = r_.String(urdf, field + ".urdf");
    {
      namespace fs = std::filesystem;
      const fs::path p(r.urdf);
      r.urdf_path = p.is_absolute() ? r.urdf
                                    : (fs::path(r_.file()).parent_path() / p)
                                          .lexically_normal()
                                          .string();
    }
    const struct {
      const char* key;
      bool* value;
    } flags[] = {{"self_collision", &r.self_collision},
                 {"joint_limits", &r.joint_limits},
                 {"skip_unsupported", &r.skip_unsupported},
                 {"cylinders_as_capsules", &r.cylinders_as_capsules}};
    for (const auto& flag : flags) {
      if (n[flag.key]) {
        *flag.value = r_.Bool(n[flag.key], field + "." + flag.key);
      }
    }
    if (n["material"]) {
      r.material = r_.String(n["material"], field + ".material");
      r.material_index =
          MaterialIndex(n["material"], field + ".material", r.material, scene);
    }
    if (n["base"]) ParseBase(n["base"], field + ".base", &r);

    // The URDF, with the base applied.
    {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(r.urdf_path, ec)) {
        r_.Fail(urdf, field + ".urdf",
                "cannot open the URDF file '" + r.urdf_path + "'" +
                    (r.urdf_path != r.urdf ? " (relative to the scene "
                                             "file's folder)"
                                           : ""));
      }
    }
    UrdfOptions options;
    options.base_pose = r.base_pose;
    options.floating_base = !r.fixed_base;
    options.skip_unsupported = r.skip_unsupported;
    options.cylinders_as_capsules = r.cylinders_as_capsules;
    try {
      r.description = LoadUrdf(r.urdf_path, options);
    } catch (const std::invalid_argument& e) {  // UrdfError and the tree's
      r_.Fail(urdf, field + ".urdf",
              std::string("cannot load the URDF: ") + e.what());
    }
    const MultibodyTree& tree = r.description.tree;
    if (tree.num_links() > limits::kMaxRobotJoints) {
      r_.Fail(urdf, field + ".urdf",
              "the robot has " + std::to_string(tree.num_links()) +
                  " joints, more than the limit of " +
                  std::to_string(limits::kMaxRobotJoints) +
                  " (docs/scenes.md, Limits)");
    }
    if (n["joints"]) ParseJointStates(n["joints"], field + ".joints", &r);
    if (n["actuation"]) {
      ParseActuation(n["actuation"], field + ".actuation", &r);
    }
    return r;
  }

  void ParseBase(const YAML::Node& n, const std::string& field, RobotSpec* r) {
    r_.CheckMap(n, field, scene_internal::RobotBaseKeys());
    ParsePose(n, field, &r->base_pose);
    if (n["fixed"]) r->fixed_base = r_.Bool(n["fixed"], field + ".fixed");
    const char* kMotion[] = {"velocity", "angular_velocity"};
    for (int i = 0; i < 2; ++i) {
      const YAML::Node v_node = n[kMotion[i]];
      if (!v_node) continue;
      const std::string f = field + "." + kMotion[i];
      const Vector3 v = r_.Vec3(v_node, f);
      if (r->fixed_base && v.squaredNorm() > 0.0) {
        r_.Fail(v_node, f,
                "a fixed base cannot move (fixed: false makes it a floating "
                "base)");
      }
      if (i == 0) {
        r_.CheckRange(v_node, f, v.norm(), 0.0, limits::kMaxSpeed, "m/s",
                      "faster than any rigid-body contact (10 km/s)",
                      "|velocity|");
        r->base_velocity = v;
      } else {
        r_.CheckRange(v_node, f, v.norm(), 0.0, limits::kMaxAngularSpeed,
                      "rad/s", "a faster spin is not a rigid body",
                      "|angular_velocity|");
        r->base_angular_velocity = v;
      }
    }
  }

  // The tree index of the 1-DOF joint named by `key` (a key of joints: or
  // actuation:), which must not be a mimic follower.
  int OneDofJoint(const YAML::Node& key, const std::string& field,
                  const RobotSpec& r, const char* what) {
    const MultibodyTree& tree = r.description.tree;
    const std::string name = key.Scalar();
    std::string list;
    for (int j = 0; j < tree.num_links(); ++j) {
      const JointType t = tree.joint(j).type;
      if (t == JointType::kRevolute || t == JointType::kPrismatic) {
        list += (list.empty() ? "" : ", ") + tree.joint(j).name;
      }
    }
    if (list.empty()) list = "none";
    const int j = tree.FindJoint(name);
    if (j < 0) {
      r_.Fail(key, field,
              "robot '" + r.name + "' has no joint named '" + name +
                  "' (its revolute and prismatic joints: " + list + ")");
    }
    const JointType t = tree.joint(j).type;
    if (t != JointType::kRevolute && t != JointType::kPrismatic) {
      r_.Fail(key, field,
              "joint '" + name + "' of robot '" + r.name + "' is " +
                  JointTypeName(t) + "; only revolute and prismatic joints " +
                  what + " (its revolute and prismatic joints: " + list + ")");
    }
    for (const JointCoupling& c : r.description.couplings) {
      if (c.follower == j) {
        r_.Fail(key, field,
                "joint '" + name + "' of robot '" + r.name +
                    "' follows joint '" + tree.joint(c.leader).name +
                    "' (URDF <mimic>): " + what + " only through its leader");
      }
    }
    return j;
  }

  void ParseJointStates(const YAML::Node& n, const std::string& field,
                        RobotSpec* r) {
    r_.CheckMap(n, field, {});
    const MultibodyTree& tree = r->description.tree;
    for (const auto& item : n) {
      const std::string jf = field + "." + item.first.Scalar();
      JointInitialState s;
      s.joint = OneDofJoint(item.first, jf, *r, "have a state");
      const Joint& joint = tree.joint(s.joint);
      const bool revolute = joint.type == JointType::kRevolute;
      const char* unit = revolute ? "rad" : "m";
      r_.CheckMap(item.second, jf, scene_internal::JointStateKeys());
      const YAML::Node q = item.second["position"];
      if (q) {
        s.position = r_.Double(q, jf + ".position");
        const double max = revolute ? limits::kMaxAngle : limits::kMaxPosition;
        r_.CheckRange(q, jf + ".position", s.position, -max, max, unit,
                      revolute ? "give the angle modulo 2 pi"
                               : "double precision cannot resolve contact "
                                 "farther out");
        if (r->joint_limits &&
            !(s.position >= joint.lower && s.position <= joint.upper)) {
          std::ostringstream os;
          os << "position " << s.position << " " << unit
             << " is outside the URDF limits [" << joint.lower << ", "
             << joint.upper << "] " << unit << " of joint '" << joint.name
             << "' (joint_limits: false ignores them)";
          r_.Fail(q, jf + ".position", os.str());
        }
      }
      const YAML::Node v = item.second["velocity"];
      if (v) {
        s.velocity = r_.Double(v, jf + ".velocity");
        r_.CheckRange(v, jf + ".velocity", std::abs(s.velocity), 0.0,
                      revolute ? limits::kMaxAngularSpeed : limits::kMaxSpeed,
                      revolute ? "rad/s" : "m/s",
                      "faster than any rigid-body contact", "|velocity|");
      }
      r->joints.push_back(s);
    }
  }

  void ParseActuation(const YAML::Node& n, const std::string& field,
                      RobotSpec* r) {
    r_.CheckMap(n, field, {});
    const MultibodyTree& tree = r->description.tree;
    for (const auto& item : n) {
      const std::string af = field + "." + item.first.Scalar();
      JointActuation a;
      a.joint = OneDofJoint(item.first, af, *r, "can be actuated");
      const YAML::Node m = item.second;
      r_.CheckMap(m, af, scene_internal::ActuationKeys());
      if (m["kp"]) a.kp = r_.NonNegative(m["kp"], af + ".kp");
      if (m["kd"]) a.kd = r_.NonNegative(m["kd"], af + ".kd");
      if (!(a.kp + a.kd > 0.0)) {
        r_.Fail(m["kp"] ? m["kp"] : (m["kd"] ? m["kd"] : m), af,
                "kp + kd must be > 0 (a PD actuator without gains)");
      }
      if (m["target"])
        a.target = r_.ScalarFunction(m["target"], af + ".target");
      a.target_velocity =
          m["target_velocity"]
              ? r_.ScalarFunction(m["target_velocity"], af + ".target_velocity")
              : a.target.TimeDerivative();
      if (m["feedforward"]) {
        a.feedforward =
            r_.ScalarFunction(m["feedforward"], af + ".feedforward");
      }
      a.effort_limit = tree.joint(a.joint).effort_limit;
      if (m["effort_limit"]) {
        a.effort_limit = r_.Double(m["effort_limit"], af + ".effort_limit",
                                   /*allow_inf=*/true);
        if (!(a.effort_limit > 0.0)) {
          r_.Fail(m["effort_limit"], af + ".effort_limit",
                  "must be > 0 (.inf for no limit)");
        }
      }
      r->actuation.push_back(std::move(a));
    }
  }

  void ParseExternalForces(const YAML::Node& list, Scene* scene) {
    if (!list) return;
    if (!list.IsSequence()) {
      r_.Fail(list, "external_forces", "expected a list of forces");
    }
    if (static_cast<long>(list.size()) > limits::kMaxExternalForces) {
      r_.Fail(list, "external_forces",
              std::to_string(list.size()) + " forces, more than the limit of " +
                  std::to_string(limits::kMaxExternalForces) +
                  " (docs/scenes.md, Limits)");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string field = "external_forces[" + std::to_string(i) + "]";
      r_.CheckMap(n, field, scene_internal::ExternalForceKeys());
      ExternalForce e;
      const YAML::Node target = r_.Required(n, "body", field);
      e.target = r_.String(target, field + ".body");
      const std::string problem = ResolveForceTarget(*scene, &e);
      if (!problem.empty()) r_.Fail(target, field + ".body", problem);
      if (!n["force"] && !n["torque"]) {
        r_.Fail(n, field + ".force", "give force or torque (or both)");
      }
      if (n["force"]) e.force = r_.VectorFunction(n["force"], field + ".force");
      if (n["torque"]) {
        e.torque = r_.VectorFunction(n["torque"], field + ".torque");
      }
      if (n["point"]) {
        e.point = r_.Vec3(n["point"], field + ".point");
        for (int k = 0; k < 3; ++k) {
          r_.CheckRange(n["point"][k],
                        field + ".point[" + std::to_string(k) + "]", e.point[k],
                        -limits::kMaxPosition, limits::kMaxPosition, "m",
                        kPositionWhy);
        }
      }
      scene->external_forces.push_back(std::move(e));
    }
  }

  // `bodies` may be empty (or absent: a null node) when the scene has
  // robots.
  void ParseBodies(const YAML::Node& list, bool may_be_empty, Scene* scene) {
    if (may_be_empty &&
        (!list || list.IsNull() || (list.IsSequence() && list.size() == 0))) {
      return;
    }
    if (!list.IsSequence() || list.size() == 0) {
      r_.Fail(list, "bodies",
              "expected a non-empty list of bodies (a scene needs bodies or "
              "robots)");
    }
    std::unordered_map<std::string, int> names;
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string index_field = "bodies[" + std::to_string(i) + "]";
      if (!n.IsMap()) r_.Fail(n, index_field, "expected a map (a body)");
      const YAML::Node name_node = r_.Required(n, "name", index_field);
      const std::string name = r_.String(name_node, index_field + ".name");
      if (name.size() > limits::kMaxNameLength) {
        r_.Fail(name_node, index_field + ".name",
                "a body name of " + std::to_string(name.size()) +
                    " characters, more than the limit of " +
                    std::to_string(limits::kMaxNameLength) +
                    " (docs/scenes.md, Limits)");
      }
      if (!ValidName(name)) {
        r_.Fail(name_node, index_field + ".name",
                "invalid body name '" + name +
                    "' (no spaces, '.', '=', ',', '\"' or control "
                    "characters; UTF-8)");
      }
      const std::string field = "bodies." + name;
      Eigen::Vector3i count;
      Vector3 spacing;
      const Body body = ParseBody(n, field, &count, &spacing, *scene);
      const long total = static_cast<long>(scene->bodies.size()) +
                         static_cast<long>(count[0]) * count[1] * count[2];
      if (total > limits::kMaxBodies) {
        r_.Fail(n["grid"] ? n["grid"] : n,
                field + (n["grid"] ? ".grid.count" : ""),
                "the scene would have " + std::to_string(total) +
                    " bodies, more than the limit of " +
                    std::to_string(limits::kMaxBodies) +
                    " (docs/scenes.md, Limits)");
      }
      const bool grid = static_cast<bool>(n["grid"]);
      for (int a = 0; a < count[0]; ++a) {
        for (int b = 0; b < count[1]; ++b) {
          for (int c = 0; c < count[2]; ++c) {
            Body copy = body;
            if (grid) {
              copy.name += "_" + std::to_string(a) + "_" + std::to_string(b) +
                           "_" + std::to_string(c);
              copy.pose.position += Vector3(a, b, c).cwiseProduct(spacing);
            }
            if (!names.emplace(copy.name, i).second) {
              r_.Fail(name_node, field + ".name",
                      "duplicate body name '" + copy.name + "'");
            }
            scene->bodies.push_back(std::move(copy));
          }
        }
      }
    }
  }

  static constexpr const char* kPositionWhy =
      "farther out, double precision cannot resolve contact (use a frame "
      "near the bodies)";

  const YamlReader& r_;
};

Scene ParseWithOverrides(YAML::Node root, YamlReader* reader,
                         const std::vector<std::string>& overrides) {
  try {
    // The document's size counting alias uses, before anything walks it.
    std::string path;
    YAML::Node at;
    const std::string problem = scene_internal::YamlSizeProblem(
        root, "", limits::kMaxYamlNodes, limits::kMaxYamlDepth, &path, &at);
    if (!problem.empty()) reader->Fail(at, path, problem);
    if (overrides.size() > limits::kMaxOverrides) {
      reader->FailNoPlace("", std::to_string(overrides.size()) +
                                  " --set overrides, more than the limit of " +
                                  std::to_string(limits::kMaxOverrides) +
                                  " (docs/scenes.md, Limits)");
    }
    for (const auto& o : overrides) {
      scene_internal::ApplyOverride(root, o, reader);
    }
    return Parser(*reader).Parse(root);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) reader->FailNoPlace("", e.msg);
    throw SceneError(reader->file(), e.mark.line + 1, e.mark.column + 1, "",
                     reader->file() + ":" + std::to_string(e.mark.line + 1) +
                         ":" + std::to_string(e.mark.column + 1) + ": " +
                         e.msg);
  } catch (const std::invalid_argument& e) {
    reader->FailNoPlace("", e.what());
  }
}

[[noreturn]] void Malformed(const std::string& file, const YAML::Exception& e) {
  const int line = e.mark.line + 1;
  const int column = e.mark.column + 1;
  throw SceneError(file, line, column, "",
                   file + ":" + std::to_string(line) + ":" +
                       std::to_string(column) + ": malformed YAML: " + e.msg);
}

// The text of a scene file: a regular file of at most kMaxFileBytes (a
// FIFO or a device such as /dev/zero would otherwise be read forever).
std::string ReadSceneFile(const std::string& path, const YamlReader& reader) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    reader.FailNoPlace("", "cannot open the scene file");
  if (fs::is_directory(st)) {
    reader.FailNoPlace("", "is a directory, not a scene file");
  }
  if (!fs::is_regular_file(st)) {
    reader.FailNoPlace("",
                       "not a regular file (cannot read a scene from a "
                       "device, pipe or socket)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) reader.FailNoPlace("", "cannot open the scene file");
  std::string text;
  char chunk[65536];
  while (in && text.size() <= limits::kMaxFileBytes) {
    in.read(chunk, sizeof(chunk));
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) reader.FailNoPlace("", "cannot read the scene file");
  if (text.size() > limits::kMaxFileBytes) {
    reader.FailNoPlace("", "the scene file is larger than " +
                               std::to_string(limits::kMaxFileBytes >> 20) +
                               " MiB (docs/scenes.md, Limits)");
  }
  return text;
}

}  // namespace

Scene LoadScene(const std::string& path,
                const std::vector<std::string>& overrides) {
  YamlReader reader(path);
  const std::string text = ReadSceneFile(path, reader);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    Malformed(path, e);
  }
  return ParseWithOverrides(root, &reader, overrides);
}

Scene LoadSceneFromString(const std::string& yaml, const std::string& name,
                          const std::vector<std::string>& overrides) {
  YamlReader reader(name);
  if (yaml.size() > limits::kMaxFileBytes) {
    reader.FailNoPlace("", "the scene text is larger than " +
                               std::to_string(limits::kMaxFileBytes >> 20) +
                               " MiB (docs/scenes.md, Limits)");
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    Malformed(name, e);
  }
  return ParseWithOverrides(root, &reader, overrides);
}

}  // namespace sapcontact
