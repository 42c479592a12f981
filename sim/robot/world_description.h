// A world as a model file describes it: robots (RobotDescription) plus the
// collision geometry of everything that does not move, its time step and
// gravity. The common result of the front ends that read whole worlds
// (MJCF, sim/robot/mjcf_loader.h; SDFormat, sim/robot/sdf_loader.h); the
// scene layer runs one as a scene (sim/scene/world_scene.h). Units SI;
// frames as in multibody/multibody_tree.h.
#pragma once

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/robot/robot_description.h"

namespace sapcontact {

/// A collision shape fixed in the world.
struct WorldGeometry {
  /// "world/<name>" (MJCF) or "<model>/<link>/<collision>" (SDFormat).
  std::string name;
  /// geometry/shapes.h; a plane is the infinite plane z = 0 of its frame.
  Shape shape;
  /// Pose of the shape frame in the world.
  Pose pose;
  /// Sliding friction coefficient.
  double friction{1.0};
  /// A mesh shape's file (absolute).
  std::string mesh_file;
  /// Collision bit masks: two geometries may touch when (contype_a &
  /// conaffinity_b) || (contype_b & conaffinity_a) (MJCF contype and
  /// conaffinity; SDFormat's collide_bitmask is both).
  int contype{1};
  int conaffinity{1};
};

struct WorldDescription {
  /// The model's or world's name, else the file's stem.
  std::string name;
  /// The moving body trees, in document order.
  std::vector<RobotDescription> robots;
  /// The collision geometry of everything that does not move.
  std::vector<WorldGeometry> world_geometries;
  /// Per robot: whether its links collide with each other (MJCF: by the
  /// masks; SDFormat: <self_collide>).
  std::vector<bool> robot_self_collision;
  /// Per robot, per RobotGeometry: the sliding friction coefficient.
  std::vector<std::vector<double>> geometry_friction;
  /// Per robot: link pairs (indices in its tree) that never collide with
  /// each other (MJCF: a body and its parent, <contact><exclude>; SDFormat:
  /// none beyond the scene's default filter).
  std::vector<std::vector<std::pair<int, int>>> robot_filter_pairs;
  /// Per robot, per RobotGeometry: (contype, conaffinity) as in
  /// WorldGeometry.
  std::vector<std::vector<std::pair<int, int>>> geometry_masks;
  /// The file's time step [s] and gravity [m/s^2].
  double time_step{0.001};
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};
  /// What was not taken as written (the robots' warnings are in their
  /// descriptions): one line each, with file and line.
  std::vector<std::string> warnings;
};

}  // namespace sapcontact
