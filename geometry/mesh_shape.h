// A mesh shape: a triangle mesh read from a file (STL, OBJ, Collada), scaled,
// with its convex hull (the geometry it collides as) and the volume
// properties of the closed mesh (what a body of uniform density made of it
// weighs). Built once at load and shared, read-only, by every copy of the
// shape. Units: metres; coordinates in the shape frame (the file's frame,
// scaled, then moved by `offset`).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/geometry/convex_hull.h"

namespace sapcontact {

/// A mesh file that cannot be used; what() names the file and the reason.
class MeshError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Limits on what a mesh file may hold (docs/scenes.md "Limits"): files
/// beyond them are rejected before their data is read.
struct MeshLimits {
  std::size_t max_file_bytes{256u << 20};
  std::size_t max_triangles{2000000};
  std::size_t max_vertices{2000000};
};

struct MeshShape {
  /// The file as the user wrote it (scene `file:` or the URDF `filename`)
  /// and the path that was read.
  std::string file;
  std::string path;
  /// Scale applied to the file's coordinates per axis (> 0 or < 0; a
  /// negative product mirrors the mesh and flips its triangles).
  Vector3 scale{Vector3::Ones()};
  /// Where the file's origin lies in the shape frame [m]: zero, or minus
  /// the mesh's centroid when the mesh was centred (scene bodies: the body
  /// frame is the centre of mass).
  Vector3 offset{Vector3::Zero()};
  /// Welded mesh size (vertices, triangles) as read.
  int mesh_vertices{0};
  int mesh_triangles{0};
  /// The convex hull of the mesh's vertices, in the shape frame.
  ConvexHull hull;
  /// Whether the mesh is closed and consistently oriented outwards (every
  /// edge shared by exactly two triangles in opposite directions, positive
  /// volume); if not, why (names an edge or the sign of the volume).
  bool closed{false};
  std::string not_closed_reason;
  /// Of the closed mesh (zero when not closed): volume [m^3], centroid in
  /// the shape frame [m] and rotational inertia about the centroid per unit
  /// density [m^5] (multiply by the density [kg/m^3] for kg m^2), by the
  /// divergence theorem.
  double volume{0.0};
  Vector3 centroid{Vector3::Zero()};
  Matrix3 unit_inertia{Matrix3::Zero()};
  /// The mesh is convex when every triangle lies in its hull's boundary
  /// (on the supporting plane along the triangle's normal, within 4
  /// kHullMergeTolerance of the hull's largest coordinate), closed or not:
  /// then the hull is exactly the surface the file describes. A mesh that
  /// is not convex collides as its hull, an approximation loaders warn
  /// about.
  bool convex{false};
};

/// What loaders warn about a mesh that is not convex, "" for a convex one:
/// "mesh 'part.stl' is not convex (mesh volume 0.0003 m^3, its hull's
/// 0.00035 m^3): it collides as its convex hull" (an open mesh: "is not
/// convex and not closed (<reason>)").
std::string HullApproximation(const MeshShape& mesh);

/// Reads the mesh file at `path` (binary or ASCII STL, OBJ, Collada DAE),
/// scales it, computes its volume properties and hull, and with `centre`
/// moves it so that its centroid is the shape frame's origin (which
/// requires a closed mesh). `file` is stored as MeshShape::file for
/// messages. @throws MeshError naming the path and the reason: unreadable,
/// empty, truncated or malformed file, a triangle count that disagrees with
/// the file size, non-finite coordinates, beyond `limits`, a zero scale, a
/// degenerate hull (flat or collinear points), or (with `centre`) a mesh
/// that is not closed.
std::shared_ptr<const MeshShape> LoadMeshShape(const std::string& path,
                                               const std::string& file,
                                               const Vector3& scale,
                                               bool centre,
                                               const MeshLimits& limits = {});

}  // namespace sapcontact
