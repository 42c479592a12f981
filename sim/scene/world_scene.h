// A whole-world model file as a scene (sapsim run model.xml / world.sdf,
// Simulation("model.xml")): the scene YAML that LoadScene then reads like
// a scene file, so that --set overrides, validation and messages work as
// for YAML scenes. docs/robots.md, "Running MJCF files" and "Running
// SDFormat files".
#pragma once

#include <string>
#include <vector>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/sim/robot/world_description.h"

namespace sapcontact {

enum class ModelFileFormat { kNone, kMjcf, kSdf };

/// The format LoadScene reads a file in by its name: ".xml" MJCF, ".sdf",
/// ".world" and ".model" SDFormat, anything else a YAML scene (kNone).
ModelFileFormat ModelSceneFormat(const std::string& path);

/// The scene of the model file at `path` as YAML text: its time step and
/// gravity, duration 1 s; each static collision shape a fixed body (named
/// after it) and each robot of the file a robot (MJCF: `mjcf: path`,
/// `mjcf_body:` its top-level body; SDFormat: `sdf: path`, `sdf_model:`
/// its name); a material per distinct surface ("model_surface_<i>"; per
/// robot for surfaces with a contact law per unit mass), a robot's most
/// common one its `material` and the others its `geometry_materials`; and
/// for every two such materials that may meet, a `material_pairs` entry of
/// SurfacePairParameters with the mass the contact carries: the robot's
/// total mass against the world or itself, the reduced mass of two robots. A
/// static shape whose collision masks (WorldGeometry::contype/conaffinity) let
/// it touch none of the robots' shapes is left out (the Gym cartpole's rail);
/// one that may touch some of them but not others is kept and named in
/// `warnings` (the masks are not applied pair by pair). Throws
/// std::invalid_argument (MjcfError, SdfError) when the file cannot be loaded.
/// The contact parameters of two surfaces with contact laws per unit mass
/// (ContactSurface, sim/robot/world_description.h) carrying `mass` [kg],
/// MuJoCo's pair rule for MJCF geoms (docs/robots.md, "MJCF contact
/// parameters"):
///   friction  max(mu_a, mu_b); 0 if both are frictionless (condim 1)
///   law       k = w_a k_a + w_b k_b, c = w_a c_a + w_b c_b, with
///             w_a = mix_a / (mix_a + mix_b) (1/2 if both are 0)
///   model     sap, stiffness = mass k [N/m],
///             dissipation_time_scale = c / k [s]
/// so that the contact is the linear spring-damper m x'' = -m k x - m c x'.
ContactParameters SurfacePairParameters(const ContactSurface& a,
                                        const ContactSurface& b, double mass);

std::string ModelSceneYaml(const std::string& path, ModelFileFormat format,
                           std::vector<std::string>* warnings);

}  // namespace sapcontact
