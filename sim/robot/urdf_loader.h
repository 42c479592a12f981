// URDF robot descriptions (http://wiki.ros.org/urdf/XML) into a
// RobotDescription, parsed with Debian's urdfdom; the support table is in
// docs/robots.md. Units SI; frames as in multibody/multibody_tree.h.
//
// Besides the URDF 1.0 elements, collision geometry may be the project's
// extension <capsule radius="r" length="l"/>: the points within r of the
// segment of length l (between the sphere centres) along the z axis of the
// geometry frame, as in SDFormat. Joint <limit> effort="0" or velocity="0"
// means "no limit" (many files write 0 for unset); position limits of
// continuous joints are ignored. Visuals, materials, transmissions and
// Gazebo extensions are ignored. Thread-safe: urdfdom's console output is
// captured (never printed) under a process-wide lock.
#pragma once

#include <stdexcept>
#include <string>

#include "sapcontact/sim/geometry/pose.h"
#include "sapcontact/sim/robot/robot_description.h"

namespace sapcontact {

struct UrdfOptions {
  /// Pose of the URDF root link in the world.
  Pose base_pose;
  /// false: the root link is welded to the world at base_pose; true: it is
  /// attached by a floating (6-DOF) joint starting at base_pose.
  bool floating_base{false};
  /// Unsupported elements (mesh geometry, cylinders unless
  /// cylinders_as_capsules, planar joints...) are an error by default; with
  /// this they are skipped where skipping is meaningful (collision geometry)
  /// and reported in RobotDescription::warnings.
  bool skip_unsupported{false};
  /// Load <cylinder radius="r" length="l"> collision geometry as the capsule
  /// of radius r whose total extent along z is l (segment l - 2r, at least
  /// 0): rounded ends instead of flat ones.
  bool cylinders_as_capsules{false};
};

/// A URDF that cannot be loaded. what() names the file, the line where
/// known, and the element: "arm.urdf:42: link 'hand': <mesh> collision
/// geometry is not supported (use box, sphere, capsule; or skip it with
/// skip_unsupported)".
class UrdfError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Loads the URDF file at `path`. @throws UrdfError.
RobotDescription LoadUrdf(const std::string& path,
                          const UrdfOptions& options = {});

/// Parses URDF text; `source` names it in messages. @throws UrdfError.
RobotDescription ParseUrdf(const std::string& xml, const std::string& source,
                           const UrdfOptions& options = {});

}  // namespace sapcontact
