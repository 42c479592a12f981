// Internal to the scene loader: typed, validated access to yaml-cpp nodes
// that reports every problem as a SceneError naming file, line and field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/scene/time_function.h"

namespace sapcontact {
namespace scene_internal {

/// Allowed keys of each section of the schema (docs/scenes.md).
const std::vector<std::string>& RootKeys();
const std::vector<std::string>& SolverKeys();
const std::vector<std::string>& MaterialKeys();
const std::vector<std::string>& BodyKeys();
const std::vector<std::string>& GridKeys();
const std::vector<std::string>& OutputKeys();
const std::vector<std::string>& CollisionKeys();
const std::vector<std::string>& IntegratorKeys();
const std::vector<std::string>& PrescribedKeys();
const std::vector<std::string>& RobotKeys();
const std::vector<std::string>& RobotBaseKeys();
const std::vector<std::string>& RobotCollisionFilterKeys();
const std::vector<std::string>& JointStateKeys();
const std::vector<std::string>& ActuationKeys();
const std::vector<std::string>& ExternalForceKeys();
const std::vector<std::string>& TimeFunctionKeys();  // times, values, sine
const std::vector<std::string>& SineKeys();

/// Reads values of one scene file. Nodes created by overrides carry no mark;
/// errors at them name the override assignment recorded by SetOverride.
class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  /// Throws SceneError at the place of `at` (a defined node).
  [[noreturn]] void Fail(const YAML::Node& at, const std::string& field,
                         const std::string& problem) const;
  /// Throws SceneError without a place (line 0).
  [[noreturn]] void FailNoPlace(const std::string& field,
                                const std::string& problem) const;

  /// Throws SceneError for the override `assignment` (line 0).
  [[noreturn]] void FailOverride(const std::string& assignment,
                                 const std::string& field,
                                 const std::string& problem) const;

  /// Records the override (assignment text) responsible for `field`.
  void SetOverride(const std::string& field, const std::string& assignment);

  /// `node` must be a map whose keys are unique strings from `allowed`.
  void CheckMap(const YAML::Node& node, const std::string& field,
                const std::vector<std::string>& allowed) const;

  /// Scalars. Double() rejects NaN and, unless allow_inf, infinities.
  double Double(const YAML::Node& node, const std::string& field,
                bool allow_inf = false) const;
  double Positive(const YAML::Node& node, const std::string& field) const;
  double NonNegative(const YAML::Node& node, const std::string& field) const;
  int PositiveInt(const YAML::Node& node, const std::string& field) const;
  /// Fails at `node` unless lo <= value <= hi (docs/scenes.md "Limits"):
  /// "<field>: [<quantity> = ]<value> <unit> is outside [lo, hi] <unit>:
  /// <why>".
  void CheckRange(const YAML::Node& node, const std::string& field,
                  double value, double lo, double hi, const std::string& unit,
                  const std::string& why,
                  const std::string& quantity = "") const;
  bool Bool(const YAML::Node& node, const std::string& field) const;
  std::string String(const YAML::Node& node, const std::string& field) const;
  /// A string that must be one of `choices`; returns its index.
  int Choice(const YAML::Node& node, const std::string& field,
             const std::vector<std::string>& choices) const;
  /// A list of exactly n finite numbers.
  Eigen::VectorXd Vector(const YAML::Node& node, const std::string& field,
                         int n) const;
  Vector3 Vec3(const YAML::Node& node, const std::string& field) const {
    return Vector(node, field, 3);
  }

  /// A function of time with values in R^n (n = 1 or 3) in one of the
  /// forms of sim/scene/time_function.h: a number (n = 1) or a list of n
  /// numbers (a constant), {times: [...], values: [...]} (piecewise
  /// linear; values numbers for n = 1, lists of n numbers otherwise), or
  /// {sine: {amplitude, frequency, phase, offset}} (amplitude and
  /// frequency required; amplitude and offset numbers or lists of n).
  /// Fails naming the field and the element ("<field>.times: times must
  /// increase (0.5 after 1)").
  TimeFunction Function(const YAML::Node& node, const std::string& field,
                        int n) const;
  TimeFunction ScalarFunction(const YAML::Node& node,
                              const std::string& field) const {
    return Function(node, field, 1);
  }
  TimeFunction VectorFunction(const YAML::Node& node,
                              const std::string& field) const {
    return Function(node, field, 3);
  }

  /// map[key] (which must exist), else "missing required field".
  YAML::Node Required(const YAML::Node& map, const std::string& key,
                      const std::string& field) const;

 private:
  std::string OverrideFor(const std::string& field) const;

  std::string file_;
  std::vector<std::pair<std::string, std::string>> overrides_;
};

/// Walks `node` counting its nodes (every use of an alias counted again,
/// so that nested aliases are caught before anything expands them) and its
/// nesting depth, stopping as soon as more than `max_nodes` nodes or
/// `max_depth` levels are reached. Returns "" within the limits, else the
/// problem, with *path the dotted path (below `field`) and *at the node
/// where the walk stopped.
std::string YamlSizeProblem(const YAML::Node& node, const std::string& field,
                            long max_nodes, int max_depth, std::string* path,
                            YAML::Node* at);

/// Joins a parent field path and a key with '.' (no dot for the root).
inline std::string Join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace scene_internal
}  // namespace sapcontact
