#include "sapcontact/sim/scene/scene_yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "sapcontact/sim/scene/scene_limits.h"

namespace sapcontact {

SceneError::SceneError(std::string file, int line, int column,
                       std::string field, const std::string& message)
    : std::runtime_error(message),
      file_(std::move(file)),
      line_(line),
      column_(column),
      field_(std::move(field)) {}

namespace scene_internal {

const std::vector<std::string>& RootKeys() {
  static const std::vector<std::string> k{
      "time_step", "duration",  "gravity",    "solver",
      "materials", "bodies",    "robots",     "external_forces",
      "output",    "collision", "integrator", "material_pairs"};
  return k;
}
const std::vector<std::string>& IntegratorKeys() {
  static const std::vector<std::string> k{"robots", "scheme", "accuracy",
                                          "max_step", "min_step"};
  return k;
}
const std::vector<std::string>& SolverKeys() {
  static const std::vector<std::string> k{"model",
                                          "contact_model",
                                          "near_rigid_threshold",
                                          "friction_regularization",
                                          "rel_tolerance",
                                          "abs_tolerance",
                                          "max_iterations",
                                          "line_search",
                                          "linear_solver",
                                          "stiction_prediction",
                                          "exclude_separated_contacts",
                                          "warm_start_at_rest",
                                          "supported_delassus_estimate",
                                          "line_search_slope_ratio",
                                          "factor_reuse_rate",
                                          "threads",
                                          "sleep",
                                          "sleep_speed",
                                          "sleep_time"};
  return k;
}
const std::vector<std::string>& MaterialKeys() {
  static const std::vector<std::string> k{
      "stiffness", "dissipation_time_scale",    "friction",
      "model",     "hunt_crossley_dissipation", "stiction_tolerance"};
  return k;
}
const std::vector<std::string>& BodyKeys() {
  static const std::vector<std::string> k{
      "name",     "fixed", "shape",      "mass",     "density",
      "position", "rpy",   "quaternion", "velocity", "angular_velocity",
      "material", "grid",  "prescribed"};
  return k;
}
const std::vector<std::string>& GridKeys() {
  static const std::vector<std::string> k{"count", "spacing"};
  return k;
}
const std::vector<std::string>& OutputKeys() {
  static const std::vector<std::string> k{"every"};
  return k;
}
const std::vector<std::string>& CollisionKeys() {
  static const std::vector<std::string> k{"margin"};
  return k;
}
const std::vector<std::string>& PrescribedKeys() {
  static const std::vector<std::string> k{"velocity", "angular_velocity",
                                          "surface_velocity"};
  return k;
}
const std::vector<std::string>& RobotKeys() {
  static const std::vector<std::string> k{"name",
                                          "urdf",
                                          "mjcf",
                                          "mjcf_body",
                                          "mjcf_keyframe",
                                          "sdf",
                                          "sdf_model",
                                          "geometry_materials",
                                          "base",
                                          "joints",
                                          "actuation",
                                          "material",
                                          "self_collision",
                                          "collision_filter",
                                          "srdf",
                                          "joint_limits",
                                          "skip_unsupported",
                                          "cylinders_as_capsules",
                                          "package_paths"};
  return k;
}
const std::vector<std::string>& RobotCollisionFilterKeys() {
  static const std::vector<std::string> k{"adjacent", "pairs"};
  return k;
}

const std::vector<std::string>& RobotBaseKeys() {
  static const std::vector<std::string> k{
      "position", "rpy", "quaternion", "fixed", "velocity", "angular_velocity"};
  return k;
}
const std::vector<std::string>& JointStateKeys() {
  static const std::vector<std::string> k{"position", "velocity"};
  return k;
}
const std::vector<std::string>& ActuationKeys() {
  static const std::vector<std::string> k{
      "kp", "kd", "target", "target_velocity", "feedforward", "effort_limit"};
  return k;
}
const std::vector<std::string>& ExternalForceKeys() {
  static const std::vector<std::string> k{"body", "force", "torque", "point"};
  return k;
}
const std::vector<std::string>& TimeFunctionKeys() {
  static const std::vector<std::string> k{"times", "values", "sine"};
  return k;
}
const std::vector<std::string>& SineKeys() {
  static const std::vector<std::string> k{"amplitude", "frequency", "phase",
                                          "offset"};
  return k;
}

namespace {

std::string NormalizeField(std::string field) {
  // "a.b[2]" -> "a.b.2", the override key syntax.
  std::string out;
  for (char c : field) {
    if (c == '[') {
      out += '.';
    } else if (c != ']') {
      out += c;
    }
  }
  return out;
}

bool IsPrefixPath(const std::string& prefix, const std::string& path) {
  return path.compare(0, prefix.size(), prefix) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '.');
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Undefined:
      break;
  }
  return "an undefined value";
}

}  // namespace

void YamlReader::SetOverride(const std::string& field,
                             const std::string& assignment) {
  overrides_.emplace_back(field, assignment);
}

std::string YamlReader::OverrideFor(const std::string& field) const {
  const std::string path = NormalizeField(field);
  std::string best_key, best;
  for (const auto& [key, assignment] : overrides_) {
    if ((IsPrefixPath(key, path) || IsPrefixPath(path, key)) &&
        key.size() >= best_key.size()) {
      best_key = key;
      best = assignment;
    }
  }
  return best;
}

void YamlReader::Fail(const YAML::Node& at, const std::string& field,
                      const std::string& problem) const {
  const YAML::Mark mark = at.Mark();
  std::ostringstream os;
  if (mark.is_null()) {
    const std::string assignment = OverrideFor(field);
    os << file_ << ": ";
    if (!assignment.empty()) os << "--set " << assignment << ": ";
    os << (field.empty() ? "document" : field) << ": " << problem;
    throw SceneError(file_, 0, 0, field, os.str());
  }
  os << file_ << ":" << mark.line + 1 << ":" << mark.column + 1 << ": "
     << (field.empty() ? "document" : field) << ": " << problem;
  throw SceneError(file_, mark.line + 1, mark.column + 1, field, os.str());
}

void YamlReader::FailNoPlace(const std::string& field,
                             const std::string& problem) const {
  std::ostringstream os;
  os << file_ << ": " << (field.empty() ? "document" : field) << ": "
     << problem;
  throw SceneError(file_, 0, 0, field, os.str());
}

void YamlReader::FailOverride(const std::string& assignment,
                              const std::string& field,
                              const std::string& problem) const {
  std::ostringstream os;
  os << file_ << ": --set " << assignment << ": "
     << (field.empty() ? "key" : field) << ": " << problem;
  throw SceneError(file_, 0, 0, field, os.str());
}

void YamlReader::CheckMap(const YAML::Node& node, const std::string& field,
                          const std::vector<std::string>& allowed) const {
  if (!node.IsMap()) {
    Fail(node, field, "expected a map, got " + Describe(node));
  }
  std::set<std::string> seen;
  for (const auto& item : node) {
    const YAML::Node& key = item.first;
    if (!key.IsScalar()) Fail(key, field, "keys must be plain names");
    const std::string name = key.Scalar();
    if (!allowed.empty() &&
        std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Fail(key, Join(field, name),
           "unknown key '" + name + "' (allowed here: " + list + ")");
    }
    if (!seen.insert(name).second) {
      Fail(key, Join(field, name), "duplicate key '" + name + "'");
    }
  }
}

double YamlReader::Double(const YAML::Node& node, const std::string& field,
                          bool allow_inf) const {
  double v = 0.0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, v)) {
    Fail(node, field, "expected a number, got " + Describe(node));
  }
  if (std::isnan(v) || (!allow_inf && std::isinf(v))) {
    Fail(node, field, "expected a finite number, got " + Describe(node));
  }
  return v;
}

double YamlReader::Positive(const YAML::Node& node,
                            const std::string& field) const {
  const double v = Double(node, field);
  if (!(v > 0.0)) Fail(node, field, "must be > 0, got " + Describe(node));
  return v;
}

double YamlReader::NonNegative(const YAML::Node& node,
                               const std::string& field) const {
  const double v = Double(node, field);
  if (!(v >= 0.0)) Fail(node, field, "must be >= 0, got " + Describe(node));
  return v;
}

int YamlReader::PositiveInt(const YAML::Node& node,
                            const std::string& field) const {
  int v = 0;
  if (!node.IsScalar() || !YAML::convert<int>::decode(node, v)) {
    Fail(node, field, "expected an integer, got " + Describe(node));
  }
  if (v <= 0) Fail(node, field, "must be > 0, got " + Describe(node));
  return v;
}

void YamlReader::CheckRange(const YAML::Node& node, const std::string& field,
                            double value, double lo, double hi,
                            const std::string& unit, const std::string& why,
                            const std::string& quantity) const {
  if (value >= lo && value <= hi) return;
  std::ostringstream os;
  const std::string u = unit.empty() ? "" : " " + unit;
  if (!quantity.empty()) os << quantity << " = ";
  os << value << u << " is outside [" << lo << ", " << hi << "]" << u << ": "
     << why << " (docs/scenes.md, Limits)";
  Fail(node, field, os.str());
}

bool YamlReader::Bool(const YAML::Node& node, const std::string& field) const {
  bool v = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
    Fail(node, field, "expected true or false, got " + Describe(node));
  }
  return v;
}

std::string YamlReader::String(const YAML::Node& node,
                               const std::string& field) const {
  if (!node.IsScalar() || node.Scalar().empty()) {
    Fail(node, field, "expected a non-empty string, got " + Describe(node));
  }
  return node.Scalar();
}

int YamlReader::Choice(const YAML::Node& node, const std::string& field,
                       const std::vector<std::string>& choices) const {
  const std::string s = String(node, field);
  for (int i = 0; i < static_cast<int>(choices.size()); ++i) {
    if (choices[i] == s) return i;
  }
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : " | ") + c;
  Fail(node, field, "unknown value '" + s + "' (expected " + list + ")");
}

Eigen::VectorXd YamlReader::Vector(const YAML::Node& node,
                                   const std::string& field, int n) const {
  if (!node.IsSequence() || static_cast<int>(node.size()) != n) {
    Fail(node, field,
         "expected a list of " + std::to_string(n) + " numbers, got " +
             (node.IsSequence() ? "a list of " + std::to_string(node.size())
                                : Describe(node)));
  }
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) {
    v[i] = Double(node[i], field + "[" + std::to_string(i) + "]");
  }
  return v;
}

namespace {

struct SizeWalk {
  SizeWalk(long n, int d) : max_nodes(n), max_depth(d) {}
  long max_nodes;
  int max_depth;
  long nodes{0};
  std::string problem;
  std::vector<std::string> path;
  YAML::Node at;

  // False once a limit is exceeded (the walk then stops).
  bool Walk(const YAML::Node& n, int depth) {
    if (++nodes > max_nodes) {
      problem = "more than " + std::to_string(max_nodes) +
                " YAML nodes, counting every use of an alias (nested "
                "aliases?); limit: docs/scenes.md, Limits";
    } else if (depth > max_depth) {
      problem = "nested more than " + std::to_string(max_depth) +
                " levels deep; limit: docs/scenes.md, Limits";
    }
    if (!problem.empty()) {
      at = n;
      return false;
    }
    if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) {
        path.push_back(std::to_string(i));
        if (!Walk(n[i], depth + 1)) return false;
        path.pop_back();
      }
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        path.push_back(kv.first.IsScalar() ? kv.first.Scalar() : "?");
        if (!Walk(kv.first, depth + 1) || !Walk(kv.second, depth + 1)) {
          return false;
        }
        path.pop_back();
      }
    }
    return true;
  }
};

}  // namespace

std::string YamlSizeProblem(const YAML::Node& node, const std::string& field,
                            long max_nodes, int max_depth, std::string* path,
                            YAML::Node* at) {
  SizeWalk walk(max_nodes, max_depth);
  if (walk.Walk(node, 0)) return "";
  std::string p = field;
  for (const std::string& k : walk.path) p = Join(p, k);
  if (path) *path = p;
  if (at) *at = walk.at;
  return walk.problem;
}

TimeFunction YamlReader::Function(const YAML::Node& node,
                                  const std::string& field, int n) const {
  const std::string forms =
      n == 1 ? "a number, {times: [...], values: [...]} or {sine: {...}}"
             : "a list of " + std::to_string(n) +
                   " numbers, {times: [...], values: [...]} or {sine: "
                   "{...}}";
  // A value: a number (n = 1) or a list of n numbers.
  auto value = [&](const YAML::Node& v,
                   const std::string& f) -> Eigen::VectorXd {
    if (n == 1) return Eigen::VectorXd::Constant(1, Double(v, f));
    return Vector(v, f, n);
  };
  if (node.IsScalar() && n == 1)
    return TimeFunction::Constant(Double(node, field));
  if (node.IsSequence()) return TimeFunction::Constant(Vector(node, field, n));
  if (!node.IsMap()) {
    Fail(node, field, "expected " + forms + ", got " + Describe(node));
  }
  CheckMap(node, field, TimeFunctionKeys());
  if (node["sine"]) {
    if (node["times"] || node["values"]) {
      Fail(node["sine"], field + ".sine",
           "give {times, values} or {sine}, not both");
    }
    const YAML::Node s = node["sine"];
    const std::string sf = field + ".sine";
    CheckMap(s, sf, SineKeys());
    const Eigen::VectorXd amplitude =
        value(Required(s, "amplitude", sf), sf + ".amplitude");
    const YAML::Node fn = Required(s, "frequency", sf);
    const double frequency = NonNegative(fn, sf + ".frequency");
    CheckRange(fn, sf + ".frequency", frequency, 0.0,
               scene_limits::kMaxFrequency, "Hz",
               "no step resolves a faster oscillation");
    double phase = 0.0;
    if (s["phase"]) {
      phase = Double(s["phase"], sf + ".phase");
      CheckRange(s["phase"], sf + ".phase", phase, -scene_limits::kMaxAngle,
                 scene_limits::kMaxAngle, "rad", "give the angle modulo 2 pi");
    }
    const Eigen::VectorXd offset = s["offset"]
                                       ? value(s["offset"], sf + ".offset")
                                       : Eigen::VectorXd::Zero(n);
    return TimeFunction::Sine(amplitude, frequency, phase, offset);
  }
  const YAML::Node times = Required(node, "times", field);
  const YAML::Node values = Required(node, "values", field);
  const std::string tf = field + ".times", vf = field + ".values";
  if (!times.IsSequence() || times.size() == 0) {
    Fail(times, tf,
         "expected a non-empty list of times [s], got " + Describe(times));
  }
  if (times.size() > scene_limits::kMaxTimeFunctionPoints) {
    Fail(times, tf,
         std::to_string(times.size()) + " points, more than the limit of " +
             std::to_string(scene_limits::kMaxTimeFunctionPoints) +
             " (docs/scenes.md, Limits)");
  }
  if (!values.IsSequence() || values.size() != times.size()) {
    Fail(values, vf,
         "expected a list of " + std::to_string(times.size()) +
             " values (one per time), got " +
             (values.IsSequence() ? "a list of " + std::to_string(values.size())
                                  : Describe(values)));
  }
  std::vector<double> t(times.size());
  std::vector<Eigen::VectorXd> v(times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    const std::string index = "[" + std::to_string(i) + "]";
    t[i] = Double(times[i], tf + index);
    if (i > 0 && !(t[i] > t[i - 1])) {
      std::ostringstream os;
      os << "times must increase (" << t[i] << " after " << t[i - 1] << ")";
      Fail(times[i], tf, os.str());
    }
    v[i] = value(values[i], vf + index);
  }
  return TimeFunction::PiecewiseLinear(t, v);
}

YAML::Node YamlReader::Required(const YAML::Node& map, const std::string& key,
                                const std::string& field) const {
  YAML::Node child = map[key];
  if (!child)
    Fail(map, Join(field, key), "missing required field '" + key + "'");
  return child;
}

}  // namespace scene_internal
}  // namespace sapcontact
