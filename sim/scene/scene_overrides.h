// Internal to the scene loader: applies "--set dotted.key=value" overrides to
// the parsed YAML document before validation. Syntax: sim/scene/scene_loader.h.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "sapcontact/sim/scene/scene_yaml_reader.h"

namespace sapcontact {
namespace scene_internal {

/// Applies one assignment to `root` (the document map). Throws SceneError
/// for a malformed assignment, a key that is not in the schema, a body or
/// material the document does not define, or a list index out of range.
/// Records the assignment in `reader` so that later validation errors at the
/// new value name it.
void ApplyOverride(YAML::Node root, const std::string& assignment,
                   YamlReader* reader);

}  // namespace scene_internal
}  // namespace sapcontact
