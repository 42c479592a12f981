// What a robot looks like: the URDF's <visual> elements, posed in link
// frames, with their colours. Drawn by the replay page (sim/replay); never
// part of collision or dynamics (a visual mesh is kept as written, never
// convexified). Loaded by LoadUrdf (sim/robot/urdf_loader.h). Units: metres.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/geometry/triangle_mesh.h"

namespace sapcontact {

/// One visual shape fixed on a link.
struct VisualGeometry {
  /// "<link>/<visual name or index among the link's visuals>".
  std::string name;
  /// Link index in RobotDescription::tree.
  int link{-1};
  /// kBox (size), kSphere (radius), kCylinder (radius, length along z),
  /// kCapsule (radius, segment length along z: the project's <capsule>
  /// extension) or kMesh (mesh).
  ShapeType type{ShapeType::kBox};
  Vector3 size{Vector3::Zero()};
  double radius{0.0};
  double length{0.0};
  /// kMesh: the file as the URDF names it, and its triangles welded and
  /// scaled by the URDF `scale`, in the mesh file's frame (shared by every
  /// visual naming the same file and scale).
  std::string file;
  std::shared_ptr<const TriangleMesh> mesh;
  /// Pose of the visual frame V in the link frame L (X_LV, <origin>).
  Pose pose_in_link;
  /// Colour (red, green, blue, alpha in [0, 1]) of its <material>: the
  /// inline <color rgba>, or that of the material it names. `coloured`
  /// false: the URDF gives none (the page picks its own).
  Eigen::Vector4d rgba{0.7, 0.7, 0.7, 1.0};
  bool coloured{false};
  /// The <material> name ("" when anonymous or absent).
  std::string material;
};

}  // namespace sapcontact
