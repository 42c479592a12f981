// An MJCF file as a whole scene (sapsim run model.xml,
// Simulation("model.xml")): the scene YAML that LoadScene then reads like a
// scene file, so that
// --set overrides, validation and messages work as for YAML scenes.
// docs/robots.md, "Running MJCF files".
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

/// True for a file LoadScene reads as MJCF: its name ends in ".xml".
bool IsMjcfSceneFile(const std::string& path);

/// The scene of the MJCF file at `path` as YAML text: its time step and
/// gravity, duration 1 s; each static geom a fixed body (named after the
/// geom) and each moving top-level body a robot (`mjcf: path`,
/// `mjcf_body:` its name); a material per distinct geom friction
/// ("mjcf_friction_<i>", otherwise the default material), a robot's most
/// common friction its `material` and the others its
/// `geometry_materials`. A static geom whose contype/conaffinity let it
/// touch none of the robots' geoms is left out (MuJoCo never lets them
/// touch: the Gym cartpole's rail); one that may touch some of them but
/// not others is kept and named in `warnings` (the masks are not applied
/// pair by pair). Throws std::invalid_argument (MjcfError) when the file
/// cannot be loaded.
std::string MjcfSceneYaml(const std::string& path,
                          std::vector<std::string>* warnings);

}  // namespace sapcontact
