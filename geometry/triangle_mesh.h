// Triangle meshes: welding, closedness and orientation, scaling, and the
// volume properties of the solid a closed mesh bounds (divergence theorem).
// What a mesh file (geometry/mesh_file.h) reads into and LoadMeshShape
// (geometry/mesh_shape.h) works on. Units: those of the coordinates
// (metres once scaled); no frame of its own.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// Vertices and triangles as index triples into them. A triangle's outward
/// normal is (v1 - v0) x (v2 - v0): counter-clockwise seen from outside.
struct TriangleMesh {
  std::vector<Vector3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

/// What WeldMesh did.
struct WeldReport {
  /// Vertices merged into an earlier one with exactly equal coordinates
  /// (an STL file repeats every vertex once per triangle), and vertices no
  /// triangle uses (removed).
  int merged_vertices{0};
  int unused_vertices{0};
  /// Triangles dropped for zero area: two equal corners after welding, or
  /// three collinear ones ((v1 - v0) x (v2 - v0) exactly zero).
  int degenerate_triangles{0};
};

/// Merges vertices with exactly equal coordinates (0.0 and -0.0 are
/// equal), drops degenerate triangles and unused vertices. Vertices keep
/// the order in which triangles first use them. Indices must be valid
/// (checked: @throws std::invalid_argument naming the triangle).
TriangleMesh WeldMesh(const TriangleMesh& mesh, WeldReport* report = nullptr);

/// Whether a mesh bounds a solid: every undirected edge is used by exactly
/// two triangles, in opposite directions (a closed, consistently oriented
/// surface), and the volume it encloses is positive (outward normals).
struct MeshClosure {
  bool closed{false};
  /// Why not, naming the first offending edge (in triangle order) by its
  /// vertices' coordinates, e.g. "edge between vertices (0, 0, 0) and (1,
  /// 0, 0) belongs to 1 triangle", "... is used twice in the same
  /// direction (triangles 3 and 8 are oriented inconsistently)", "inside
  /// out (negative volume -0.001 m^3)", "encloses no volume". Empty when
  /// closed.
  std::string reason;
};

/// Checks closedness and orientation of a (welded) mesh.
MeshClosure CheckClosed(const TriangleMesh& mesh);

/// Volume properties of the region a closed, outward-oriented mesh bounds,
/// per unit density, by the divergence theorem: the signed tetrahedra
/// spanned by each triangle and a reference point (the centre of the
/// vertices' bounding box; any point gives the same sums, the origin of
/// the coordinates just loses digits far from it). For an open or
/// inconsistently oriented mesh the numbers are meaningless (check
/// CheckClosed first); an inside-out mesh gives a negative volume.
struct MeshVolumeProperties {
  /// Signed volume [m^3].
  double volume{0.0};
  /// Centroid in the mesh's coordinates [m] (zero when volume is zero).
  Vector3 centroid{Vector3::Zero()};
  /// Rotational inertia about the centroid per unit density [m^5]: times
  /// the density [kg/m^3] gives kg m^2.
  Matrix3 unit_inertia{Matrix3::Zero()};
};

MeshVolumeProperties ComputeVolumeProperties(const TriangleMesh& mesh);

/// Scales the coordinates per axis; a scale whose product is negative
/// mirrors the mesh, so every triangle's winding is reversed to keep its
/// normals outward. @throws std::invalid_argument for a zero or
/// non-finite component.
void ScaleMesh(TriangleMesh* mesh, const Vector3& scale);

}  // namespace sapcontact
