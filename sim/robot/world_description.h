// A world as a model file describes it: robots (RobotDescription) plus the
// collision geometry of everything that does not move, its time step and
// gravity. The common result of the front ends that read whole worlds
// (MJCF, sim/robot/mjcf_loader.h; SDFormat, sim/robot/sdf_loader.h); the
// scene layer runs one as a scene (sim/scene/world_scene.h). Units SI;
// frames as in multibody/multibody_tree.h.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/robot/robot_description.h"

namespace sapcontact {

/// How a geometry's surface meets others, as its model file states it.
struct ContactSurface {
  /// Sliding friction coefficient.
  double friction{1.0};
  /// false: frictionless against a geometry that is frictionless too (MJCF
  /// condim 1; a pair takes the larger condim of its two geoms).
  bool frictional{true};
  /// A contact law per unit of the mass the contact carries (MJCF solref):
  /// stiffness [1/s^2] and damping [1/s], so that the contact of mass m
  /// obeys m x'' = -m stiffness_per_mass x - m damping_per_mass x'. A pair
  /// mixes its two geometries' by their weights `mix` (MJCF solmix). NaN:
  /// the file states no contact law (the scene's default material applies).
  /// How a scene turns them into stiffness and dissipation:
  /// sim/scene/world_scene.h.
  double stiffness_per_mass{std::numeric_limits<double>::quiet_NaN()};
  double damping_per_mass{std::numeric_limits<double>::quiet_NaN()};
  double mix{1.0};
};

/// A collision shape fixed in the world.
struct WorldGeometry {
  /// "world/<name>" (MJCF) or "<model>/<link>/<collision>" (SDFormat).
  std::string name;
  /// geometry/shapes.h; a plane is the infinite plane z = 0 of its frame.
  Shape shape;
  /// Pose of the shape frame in the world.
  Pose pose;
  ContactSurface surface;
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
  /// Per robot, per RobotGeometry: its surface.
  std::vector<std::vector<ContactSurface>> geometry_surfaces;
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
