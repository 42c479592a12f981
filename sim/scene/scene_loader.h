// Loading a Scene (sim/scene/scene.h) from a YAML file with "--set"-style
// overrides. Schema, defaults and override syntax: docs/scenes.md.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene.h"

namespace sapcontact {

/// Any problem with a scene file or an override. what() is
///   "<file>:<line>:<column>: <field>: <problem>"      (from the file) or
///   "<file>: --set <assignment>: <field>: <problem>"   (from an override),
/// where <field> is the dotted path of the offending key, with bodies named
/// by their YAML name (e.g. "bodies.box.shape.size[1]").
class SceneError : public std::runtime_error {
 public:
  SceneError(std::string file, int line, int column, std::string field,
             const std::string& message);

  /// The scene file.
  const std::string& file() const { return file_; }
  /// 1-based line and column in the file; 0 when the problem is not tied to
  /// a place in the file (an override, a missing file).
  int line() const { return line_; }
  int column() const { return column_; }
  /// Dotted path of the offending field ("" for the whole document).
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string field_;
};

/// Loads, overrides, validates and expands (grids) the scene in `path`.
/// `overrides` are "dotted.key=value" assignments applied in order before
/// validation; the value is parsed as YAML (a scalar, ".inf", or a flow list
/// such as "[0, 0, -9.81]"). Keys: top-level and section fields
/// ("time_step", "solver.max_iterations", "collision.margin"), materials by
/// name ("materials.default.friction"), bodies by their YAML name (before
/// grid expansion: "bodies.box.mass", "bodies.ball.shape.radius",
/// "bodies.ball.grid.count"), list elements by index ("gravity.2",
/// "bodies.box.position.0"), robots by name and their joints and actuators
/// by URDF joint name ("robots.arm.base.fixed",
/// "robots.arm.actuation.shoulder.kp"), external forces by index
/// ("external_forces.0.force"). Setting one of mass/density (or
/// rpy/quaternion) removes the other. Keys that are not in the schema,
/// bodies, robots and materials (other than "default") that the file does
/// not define, and list indices out of range are errors. Robots' URDF files
/// are loaded with LoadUrdf, relative to the scene file's folder. Throws
/// SceneError.
Scene LoadScene(const std::string& path,
                const std::vector<std::string>& overrides = {});

/// Same, from YAML text; `name` stands for the file name in messages, and
/// relative URDF paths are resolved against its folder (the working
/// directory for a bare name).
Scene LoadSceneFromString(const std::string& yaml, const std::string& name,
                          const std::vector<std::string>& overrides = {});

}  // namespace sapcontact
