// A whole-world model file as a scene (sapsim run model.xml / world.sdf,
// Simulation("model.xml")): the scene YAML that LoadScene then reads like
// a scene file, so that --set overrides, validation and messages work as
// for YAML scenes. docs/robots.md, "Running MJCF files" and "Running
// SDFormat files".
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

enum class ModelFileFormat { kNone, kMjcf, kSdf };

/// The format LoadScene reads a file in by its name: ".xml" MJCF, ".sdf",
/// ".world" and ".model" SDFormat, anything else a YAML scene (kNone).
ModelFileFormat ModelSceneFormat(const std::string& path);

/// The scene of the model file at `path` as YAML text: its time step and
/// gravity, duration 1 s; each static collision shape a fixed body (named
/// after it) and each robot of the file a robot (MJCF: `mjcf: path`,
/// `mjcf_body:` its top-level body; SDFormat: `sdf: path`, `sdf_model:`
/// its name); a material per distinct friction ("model_friction_<i>"), a
/// robot's most common friction its `material` and the others its
/// `geometry_materials`. A static shape whose collision masks
/// (WorldGeometry::contype/conaffinity) let it touch none of the robots'
/// shapes is left out (the Gym cartpole's rail); one that may touch some
/// of them but not others is kept and named in `warnings` (the masks are
/// not applied pair by pair). Throws std::invalid_argument (MjcfError,
/// SdfError) when the file cannot be loaded.
std::string ModelSceneYaml(const std::string& path, ModelFileFormat format,
                           std::vector<std::string>* warnings);

}  // namespace sapcontact
