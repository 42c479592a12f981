#include "sapcontact/sim/scene/scene_overrides.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/scene/scene_limits.h"

namespace sapcontact {
namespace scene_internal {
namespace {

// Where a path component leads in the schema.
enum class Section {
  kRoot,
  kSolver,
  kMaterials,
  kMaterial,
  kBodies,
  kBody,
  kShape,
  kGrid,
  kOutput,
  kCollision,
  kIntegrator,
  kPrescribed,
  kRobots,  // the list, robots addressed by name
  kRobot,
  kRobotBase,
  kRobotCollisionFilter,
  kJointStates,  // robots.<name>.joints: map joint name -> state
  kJointState,
  kActuations,  // robots.<name>.actuation: map joint name -> actuator
  kActuation,
  kExternalForces,  // the list, forces addressed by index
  kExternalForce,
  kFunction,  // a time function: a number, a list, {times, values}, {sine}
  kSine,
  kList,  // a list whose elements may be lists (time function points)
  kVector,
  kScalar
};

bool Contains(const std::vector<std::string>& keys, const std::string& k) {
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

bool IsVectorKey(const std::string& k) {
  return k == "gravity" || k == "position" || k == "rpy" || k == "quaternion" ||
         k == "velocity" || k == "angular_velocity" || k == "size" ||
         k == "count" || k == "spacing";
}

// The schema default of an optional 3-vector field, or nullptr (also the
// zero default of the vector time functions of prescribed: and
// external_forces:).
const char* const* DefaultVector(const std::string& k) {
  static const char* const kGravity[3] = {"0", "0", "-9.81"};
  static const char* const kZero[3] = {"0", "0", "0"};
  if (k == "gravity") return kGravity;
  if (k == "position" || k == "rpy" || k == "velocity" ||
      k == "angular_velocity" || k == "surface_velocity" || k == "force" ||
      k == "torque" || k == "point") {
    return kZero;
  }
  return nullptr;
}

bool IsIndex(const std::string& k) {
  return !k.empty() && k.size() <= 6 &&
         std::all_of(k.begin(), k.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

// A copy of `n` whose nodes carry no file marks (so that errors at them are
// reported as coming from the override).
YAML::Node Unmarked(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& e : n) out.push_back(Unmarked(e));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : n) out[kv.first.Scalar()] = Unmarked(kv.second);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

class Applier {
 public:
  Applier(const std::string& assignment, YamlReader* reader)
      : assignment_(assignment), reader_(reader) {}

  void Run(YAML::Node root) {
    if (assignment_.size() > scene_limits::kMaxOverrideLength) {
      // Quote only the start of it in the message.
      reader_->FailNoPlace(
          "", "--set " + assignment_.substr(0, 40) +
                  "...: " + std::to_string(assignment_.size()) +
                  " characters, more than the limit of " +
                  std::to_string(scene_limits::kMaxOverrideLength) +
                  " (docs/scenes.md, Limits)");
    }
    const size_t eq = assignment_.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == assignment_.size()) {
      key_ = assignment_.substr(0, eq);
      Fail(key_, "expected KEY=VALUE (e.g. time_step=0.01)");
    }
    key_ = assignment_.substr(0, eq);
    std::string value_text = assignment_.substr(eq + 1);
    YAML::Node parsed;
    try {
      parsed = YAML::Load(value_text);
    } catch (const YAML::Exception& e) {
      Fail(key_, "cannot parse the value '" + value_text + "': " + e.msg);
    }
    // Aliases share nodes; copying expands them (nested ones
    // exponentially): count first, copy only a small value.
    const std::string problem =
        YamlSizeProblem(parsed, "", scene_limits::kMaxOverrideNodes,
                        scene_limits::kMaxYamlDepth, nullptr, nullptr);
    if (!problem.empty()) Fail(key_, "the value has " + problem);
    value_ = Unmarked(parsed);
    size_t start = 0;
    while (true) {
      const size_t dot = key_.find('.', start);
      parts_.push_back(key_.substr(start, dot - start));
      if (parts_.back().empty()) Fail(key_, "empty component in the key");
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (!root.IsMap()) Fail("", "the scene document is not a map");
    reader_->SetOverride(key_, assignment_);
    Descend(root, Section::kRoot, 0, "");
  }

 private:
  [[noreturn]] void Fail(const std::string& field, const std::string& what) {
    reader_->FailOverride(assignment_, field.empty() ? key_ : field, what);
  }

  [[noreturn]] void Unknown(const std::string& path, const std::string& key,
                            const std::vector<std::string>& allowed) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    Fail(Join(path, key), "unknown key '" + key + "' in " +
                              (path.empty() ? "the scene" : path) +
                              " (allowed: " + list + ")");
  }

  // Which section key `k` of a map in section `s` leads to.
  Section Next(Section s, const std::string& path, const std::string& k) {
    auto check = [&](const std::vector<std::string>& keys) {
      if (!Contains(keys, k)) Unknown(path, k, keys);
    };
    switch (s) {
      case Section::kRoot:
        check(RootKeys());
        if (k == "solver") return Section::kSolver;
        if (k == "materials") return Section::kMaterials;
        if (k == "bodies") return Section::kBodies;
        if (k == "output") return Section::kOutput;
        if (k == "collision") return Section::kCollision;
        if (k == "integrator") return Section::kIntegrator;
        break;
      case Section::kSolver:
        check(SolverKeys());
        break;
      case Section::kMaterial:
        check(MaterialKeys());
        break;
      case Section::kOutput:
        check(OutputKeys());
        break;
      case Section::kCollision:
        check(CollisionKeys());
        break;
      case Section::kIntegrator:
        check(IntegratorKeys());
        break;
      case Section::kBody:
        check(BodyKeys());
        if (k == "shape") return Section::kShape;
        if (k == "grid") return Section::kGrid;
        break;
      case Section::kShape:
        check(AllShapeKeys());  // geometry/shape_traits.h
        break;
      case Section::kGrid:
        check(GridKeys());
        break;
      case Section::kPrescribed:
        check(PrescribedKeys());
        return Section::kFunction;
      case Section::kRobot:
        check(RobotKeys());
        if (k == "base") return Section::kRobotBase;
        if (k == "collision_filter") return Section::kRobotCollisionFilter;
        if (k == "joints") return Section::kJointStates;
        if (k == "actuation") return Section::kActuations;
        return Section::kScalar;
      case Section::kRobotBase:
        check(RobotBaseKeys());
        break;
      case Section::kRobotCollisionFilter:
        check(RobotCollisionFilterKeys());
        return Section::kScalar;
      case Section::kJointStates:
        return Section::kJointState;  // any joint name (checked on load)
      case Section::kJointState:
        check(JointStateKeys());
        return Section::kScalar;
      case Section::kActuations:
        return Section::kActuation;
      case Section::kActuation:
        check(ActuationKeys());
        return k == "kp" || k == "kd" || k == "effort_limit"
                   ? Section::kScalar
                   : Section::kFunction;
      case Section::kExternalForce:
        check(ExternalForceKeys());
        if (k == "force" || k == "torque") return Section::kFunction;
        return k == "point" ? Section::kVector : Section::kScalar;
      case Section::kFunction:
        check(TimeFunctionKeys());
        return k == "sine" ? Section::kSine : Section::kList;
      case Section::kSine:
        check(SineKeys());
        return k == "amplitude" || k == "offset" ? Section::kList
                                                 : Section::kScalar;
      default:
        break;
    }
    if (s == Section::kRoot) {
      if (k == "robots") return Section::kRobots;
      if (k == "external_forces") return Section::kExternalForces;
    }
    if (s == Section::kBody && k == "prescribed") return Section::kPrescribed;
    return IsVectorKey(k) ? Section::kVector : Section::kScalar;
  }

  // Element `k` of the list `node` at `path`, for kVector and kList.
  void Element(YAML::Node node, Section s, size_t i, const std::string& path) {
    const std::string& k = parts_[i];
    if (!node.IsSequence()) {
      Fail(path, "'" + path + "' is not a list in the scene");
    }
    if (!IsIndex(k) || std::stoul(k) >= node.size()) {
      Fail(Join(path, k), "'" + k + "' is not an index of " + path + " (size " +
                              std::to_string(node.size()) + ")");
    }
    const int index = std::stoi(k);
    if (i + 1 == parts_.size()) {
      node[index] = value_;
      return;
    }
    if (s == Section::kList && node[index].IsSequence()) {
      Element(node[index], s, i + 1, Join(path, k));
      return;
    }
    Fail(Join(path, k), "list elements have no fields");
  }

  // A list item addressed by its `name` (bodies, robots).
  void Named(YAML::Node node, Section item, size_t i, const std::string& path,
             const char* what) {
    const std::string& k = parts_[i];
    if (!node.IsSequence()) Fail(path, path + " is not a list");
    for (YAML::Node entry : node) {
      if (entry.IsMap() && entry["name"] && entry["name"].IsScalar() &&
          entry["name"].Scalar() == k) {
        if (i + 1 == parts_.size()) {
          Fail(Join(path, k),
               std::string("a ") + what + " cannot be replaced whole");
        }
        Descend(entry, item, i + 1, Join(path, k));
        return;
      }
    }
    Fail(Join(path, k),
         "the scene has no " + std::string(what) + " named '" + k + "'");
  }

  void Descend(YAML::Node node, Section s, size_t i, const std::string& path) {
    if (i == parts_.size()) return;
    const std::string& k = parts_[i];
    const bool last = i + 1 == parts_.size();
    switch (s) {
      case Section::kScalar:
        Fail(path, "'" + path + "' has no fields");
      case Section::kVector:
      case Section::kList:
        Element(node, s, i, path);
        return;
      case Section::kBodies:
        Named(node, Section::kBody, i, path, "body");
        return;
      case Section::kRobots:
        Named(node, Section::kRobot, i, path, "robot");
        return;
      case Section::kExternalForces: {
        if (!node.IsSequence()) Fail(path, "external_forces is not a list");
        if (!IsIndex(k) || std::stoul(k) >= node.size()) {
          Fail(Join(path, k),
               "'" + k + "' is not an index of " + path + " (the scene has " +
                   std::to_string(node.size()) + " external forces)");
        }
        if (last) {
          Fail(Join(path, k), "an external force cannot be replaced whole");
        }
        Descend(node[std::stoi(k)], Section::kExternalForce, i + 1,
                Join(path, k));
        return;
      }
      case Section::kFunction:
        // A constant vector: its elements by index; else a map.
        if (node.IsSequence()) {
          Element(node, Section::kVector, i, path);
          return;
        }
        if (!node.IsMap()) {
          Fail(path, "'" + path + "' is a constant: set it whole");
        }
        break;
      case Section::kMaterials:
        if (!node.IsMap()) Fail(path, "materials is not a map");
        if (!node[k] && k != "default") {
          Fail(Join(path, k), "the scene has no material named '" + k + "'");
        }
        break;
      default:
        if (!node.IsMap()) Fail(path, "'" + path + "' is not a map");
        break;
    }
    const Section next =
        s == Section::kMaterials ? Section::kMaterial : Next(s, path, k);
    const std::string child_path = Join(path, k);
    if (last) {
      if (s == Section::kBody || s == Section::kRobotBase) {
        RemoveExclusive(node, k);
      }
      node[k] = value_;
      return;
    }
    if (next == Section::kScalar) Fail(child_path, "'" + k + "' has no fields");
    if (!node[k]) {
      if (next == Section::kRobots) {
        Fail(Join(child_path, parts_[i + 1]),
             "the scene has no robot named '" + parts_[i + 1] + "'");
      }
      if (next == Section::kExternalForces) {
        Fail(Join(child_path, parts_[i + 1]),
             "the scene has no external forces");
      }
      if (next == Section::kList) {
        Fail(child_path, "'" + child_path + "' is not set in the scene");
      }
      if (next != Section::kVector &&
          !(next == Section::kFunction && DefaultVector(k))) {
        node[k] = YAML::Node(YAML::NodeType::Map);  // e.g. a missing solver:
      } else if (const char* const* def = DefaultVector(k)) {
        YAML::Node v(YAML::NodeType::Sequence);  // the schema default
        for (int e = 0; e < 3; ++e) v.push_back(YAML::Node(def[e]));
        node[k] = v;
      } else {
        Fail(child_path, "'" + child_path + "' is not set in the scene");
      }
    }
    Descend(node[k], next, i + 1, child_path);
  }

  // Setting one of two mutually exclusive body fields removes the other.
  static void RemoveExclusive(YAML::Node body, const std::string& k) {
    static const std::pair<const char*, const char*> kPairs[] = {
        {"mass", "density"}, {"rpy", "quaternion"}};
    for (const auto& [a, b] : kPairs) {
      if (k == a && body[b]) body.remove(b);
      if (k == b && body[a]) body.remove(a);
    }
  }

  const std::string& assignment_;
  YamlReader* reader_;
  std::string key_;
  YAML::Node value_;
  std::vector<std::string> parts_;
};

}  // namespace

void ApplyOverride(YAML::Node root, const std::string& assignment,
                   YamlReader* reader) {
  Applier(assignment, reader).Run(root);
}

}  // namespace scene_internal
}  // namespace sapcontact
