// URDF robot descriptions (http://wiki.ros.org/urdf/XML) into a
// RobotDescription, parsed with Debian's urdfdom; the support table is in
// docs/robots.md. Units SI; frames as in multibody/multibody_tree.h.
//
// Collision geometry: <box>, <sphere>, <cylinder> (flat caps; or a capsule
// with UrdfOptions::cylinders_as_capsules), <mesh filename="..."
// scale="sx sy sz"> (STL, OBJ or Collada; it collides as its convex hull;
// filename relative to the URDF's folder, file://, or package://NAME/...
// resolved by UrdfOptions::package_paths and ROS_PACKAGE_PATH), and the
// project's extension <capsule radius="r" length="l"/>: the points within r
// of the segment of length l (between the sphere centres) along the z axis
// of the geometry frame, as in SDFormat. Every <collision> of a link is
// kept. Joint <limit> effort="0" or velocity="0"
// means "no limit" (many files write 0 for unset); position limits of
// continuous joints are ignored. <visual> elements and <material> colours
// are read into RobotDescription::visuals (urdf_visuals.h: for the replay
// page only; never collision). Transmissions and Gazebo extensions are
// ignored. Thread-safe: urdfdom's console output is
// captured (never printed) under a process-wide lock.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/sim/robot/robot_description.h"

namespace sapcontact {

struct UrdfOptions {
  /// Pose of the URDF root link in the world.
  Pose base_pose;
  /// false: the root link is welded to the world at base_pose; true: it is
  /// attached by a floating (6-DOF) joint starting at base_pose.
  bool floating_base{false};
  /// Unsupported elements (unknown collision geometry, planar joints...)
  /// are an error by default; with this they are skipped where skipping is
  /// meaningful (collision geometry), reported in
  /// RobotDescription::warnings and counted as dropped.
  bool skip_unsupported{false};
  /// Load <cylinder radius="r" length="l"> collision geometry as the capsule
  /// of radius r whose total extent along z is l (segment l - 2r, at least
  /// 0): rounded ends instead of flat ones. Default: a cylinder.
  bool cylinders_as_capsules{false};
  /// Folders of the ROS packages that <mesh filename="package://NAME/..."/>
  /// names: NAME -> folder (the folder that holds the package's files, e.g.
  /// NAME/meshes/...). Looked up before ROS_PACKAGE_PATH.
  std::map<std::string, std::string> package_paths;
  /// Also resolve package://NAME through the ROS_PACKAGE_PATH environment
  /// variable: its colon-separated folders are searched in order for a
  /// folder named NAME (a folder itself named NAME counts too).
  bool use_ros_package_path{true};
  /// Read <visual> elements and <material> colours into
  /// RobotDescription::visuals (the replay page draws them); false: they
  /// are skipped unread (faster when nothing draws the robot).
  bool load_visuals{true};
  /// Limits on each mesh file (geometry/mesh_shape.h), collision and
  /// visual.
  MeshLimits mesh_limits;
};

/// A URDF that cannot be loaded. what() names the file, the line where
/// known, and the element: "arm.urdf:42: link 'hand': collision 0: <mesh
/// filename="package://arm/hand.stl">: package 'arm' not found (...)".
class UrdfError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Loads the URDF file at `path`. @throws UrdfError.
RobotDescription LoadUrdf(const std::string& path,
                          const UrdfOptions& options = {});

/// Parses URDF text; `source` names it in messages, and relative mesh file
/// names are resolved against its folder. @throws UrdfError.
RobotDescription ParseUrdf(const std::string& xml, const std::string& source,
                           const UrdfOptions& options = {});

}  // namespace sapcontact
