// Reading DIR/replay_scene.json (WriteReplayScene, replay.h) back for the
// replay page (replay_page.cc): bodies and robot link geometries, convex
// hulls, robot links with their visuals and visual meshes. Files written
// before robot links were recorded (no "links", link geometries posed by
// their own replay_poses.csv rows) read as before.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sapcontact {
namespace replay_internal {

struct SceneObject {
  std::string name, shape, material, motion;
  // The shape's parameters in geometry/shape_traits.h order (box: size;
  // sphere: radius; capsule: radius, length).
  std::vector<double> dims;
  bool fixed{false};
  double pose[7];
  int material_index{0};
  /// Radius of a sphere about the origin holding the shape [m] (0: a plane).
  double bounding_radius{0.0};
  /// A mesh's hull: index into ReplayScene::meshes (-1: not a mesh).
  int mesh{-1};
  /// A robot link geometry: index into ReplayScene::links (-1: none; files
  /// written before links were recorded) and its pose in the link frame.
  int link{-1};
  double pose_in_link[7]{0, 0, 0, 1, 0, 0, 0};
};

/// A mesh's convex hull as drawn: vertices (x, y, z, ...) [m] and faces as
/// triangles (index triples), fanned from each face polygon.
struct SceneMesh {
  std::vector<double> vertices;
  std::vector<int> triangles;
};

/// A visual of a robot link (URDF <visual>): shape, parameters (as
/// SceneObject::dims), visual mesh index, pose in the link frame, colour.
struct SceneVisual {
  std::string shape;
  std::vector<double> dims;
  int mesh{-1};  ///< index into ReplayScene::visual_meshes (-1: not a mesh)
  double pose[7]{0, 0, 0, 1, 0, 0, 0};
  bool coloured{false};
  double rgba[4]{0.7, 0.7, 0.7, 1.0};
};

/// A robot link: its frame's motion and initial pose, its visuals.
struct SceneLink {
  std::string name, motion;  ///< "<robot>/<link>"; "poses" or "static"
  double pose[7]{0, 0, 0, 1, 0, 0, 0};
  std::vector<SceneVisual> visuals;
};

/// A visual mesh as written: vertices (x, y, z, ...) [m], triangles.
struct SceneVisualMesh {
  std::vector<double> vertices;
  std::vector<int> triangles;
};

struct ReplayScene {
  std::string source;
  double time_step{0.0};
  std::vector<std::string> materials;
  std::vector<SceneObject> objects;
  std::vector<SceneMesh> meshes;
  std::vector<SceneLink> links;
  std::vector<SceneVisualMesh> visual_meshes;
};

/// Reads and validates dir/replay_scene.json. @throws ReplayError naming
/// the file and the field.
ReplayScene ReadReplayScene(const std::filesystem::path& path);

}  // namespace replay_internal
}  // namespace sapcontact
