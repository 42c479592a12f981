// SDFormat worlds and models (http://sdformat.org/spec) into a
// WorldDescription (world_description.h), parsed with Debian's libsdformat,
// which converts every version to its current one and resolves frames,
// `relative_to` poses and <include>s. The support table is in
// docs/robots.md, "SDFormat support". Units SI; frames as in
// multibody/multibody_tree.h.
//
// A file's <world> (the first; others are warned) or its top-level <model>.
// Each non-static model becomes robots: the links that joints attach to
// the world (parent "world") form one robot named after the model, whose
// link 0 is the world: the root link itself when a single fixed joint
// welds it, else a massless link "world" welded by joint "<model>_base";
// every other root link (a link no joint moves) starts a floating robot,
// named after the model when it is the model's only robot, else
// "<model>::<root link>", attached by the floating joint "<root link>_base".
// Nested models' links and joints join their top-level model's robots,
// named "<nested>::<name>". A static model's collisions are world
// geometry ("<model>/<link>/<collision>"). Robots start at their file
// poses; q = 0 is the file's pose.
//
// A link frame of the tree is the frame of the joint that moves the link
// (SDFormat's joint frame, by default the child link frame moved by the
// joint's <pose>), so each link's inertia, collisions and visuals are
// carried into that frame. Joints: revolute, prismatic, continuous (no
// limits), fixed; ball (three revolute joints "<joint>_x", "_y", "_z"
// about the joint frame's axes) and universal and revolute2 (two revolute
// joints "<joint>_1", "_2" about axis and axis2) are chained through
// massless links, with a warning for ball. Other joint types, kinematic
// loops, a plane on a moving link, heightmap and polyline geometry are
// refused naming the file and the line.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/sim/robot/world_description.h"

namespace sapcontact {

struct SdfOptions {
  /// model://NAME (includes and mesh URIs) and package://NAME (meshes):
  /// NAME -> the folder holding the model's files. Looked up first.
  std::map<std::string, std::string> package_paths;
  /// Then the folders of SDF_PATH, GZ_SIM_RESOURCE_PATH,
  /// IGN_GAZEBO_RESOURCE_PATH and GAZEBO_MODEL_PATH (colon-separated, in
  /// that order) are searched for a folder NAME; package:// also searches
  /// ROS_PACKAGE_PATH.
  bool use_environment{true};
  /// Read <visual> elements into RobotDescription::visuals (display only).
  bool load_visuals{true};
  /// Limits on each mesh file (geometry/mesh_shape.h).
  MeshLimits mesh_limits;
};

/// An SDFormat file that cannot be loaded. what() names the file, the line
/// and the element: "quad.sdf:626: <joint name='j_00FLHip'>: joint type
/// 'screw' is not supported (...)".
class SdfError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Loads the SDFormat file (.sdf, .world) at `path`. @throws SdfError.
WorldDescription LoadSdf(const std::string& path,
                         const SdfOptions& options = {});

/// Parses SDFormat text; `source` names it in messages, and relative URIs
/// resolve against its folder. @throws SdfError.
WorldDescription ParseSdf(const std::string& xml, const std::string& source,
                          const SdfOptions& options = {});

}  // namespace sapcontact
