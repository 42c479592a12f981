// Convex hulls of point sets. A mesh collides as its convex hull (as in
// Drake and MuJoCo; docs/scenes.md "Meshes"). The hull keeps polygonal
// faces: coplanar triangles of the input are merged, so the hull of a mesh
// cube is 8 vertices and 6 quadrilaterals however the cube was triangulated,
// and contact manifolds computed from its faces do not depend on the
// triangulation. Built once at load with Debian's qhull (reentrant
// libqhull_r). Units: metres; all coordinates in the hull's own frame.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

struct ConvexHull {
  /// One planar face: the points x with normal . x = offset, bounded by the
  /// polygon `vertices` (indices into ConvexHull::vertices), listed
  /// counter-clockwise seen from outside (right-handed about `normal`).
  struct Face {
    /// Outward unit normal.
    Vector3 normal{Vector3::UnitZ()};
    /// normal . x for every point x of the face [m].
    double offset{0.0};
    std::vector<int> vertices;
  };

  /// Hull vertices (extreme points only: no point lies inside or in the
  /// interior of a face or an edge).
  std::vector<Vector3> vertices;
  std::vector<Face> faces;
  /// Vertex adjacency along hull edges in compressed form: the neighbours
  /// of vertex i are neighbours[neighbour_begin[i] .. neighbour_begin[i+1]).
  /// neighbour_begin has vertices.size() + 1 entries.
  std::vector<int> neighbour_begin;
  std::vector<int> neighbours;
  /// The faces containing vertex i: vertex_faces[vertex_face_begin[i] ..
  /// vertex_face_begin[i+1]).
  std::vector<int> vertex_face_begin;
  std::vector<int> vertex_faces;
  /// Axis-aligned bounds of the vertices in the hull frame [m].
  Vector3 lower{Vector3::Zero()};
  Vector3 upper{Vector3::Zero()};
  /// max |v| over the vertices: the radius of the smallest origin-centred
  /// sphere containing the hull [m].
  double bounding_radius{0.0};
  /// Volume [m^3] and number of hull edges.
  double volume{0.0};
  int num_edges{0};
  /// Vertices of least and greatest x, y and z: extreme_vertices[2 k] has
  /// the least coordinate k, extreme_vertices[2 k + 1] the greatest (the
  /// starting points of Support's hill climbing).
  std::array<int, 6> extreme_vertices{{0, 0, 0, 0, 0, 0}};

  /// Index of a vertex maximizing direction . v (any direction, not
  /// necessarily unit; a zero or NaN direction returns a valid index; -1
  /// only for a hull without vertices). Brute force up to
  /// kSupportBruteForceVertices vertices (or when the adjacency is empty),
  /// else steepest ascent along the adjacency above, started from `start`
  /// when it is a valid index, else from the best of extreme_vertices.
  /// Exact on a convex polytope: a vertex no neighbour of which is strictly
  /// higher is a global maximum (the edges at a vertex span its tangent
  /// cone), and every step strictly increases direction . v, so plateaus
  /// end the climb instead of looping. Ties return any maximizer. Does not
  /// allocate.
  int Support(const Vector3& direction, int start = -1) const;
};

/// Below this many vertices ConvexHull::Support scans every vertex.
inline constexpr int kSupportBruteForceVertices = 32;

/// The convex hull of `points` [m]. @throws std::invalid_argument whose
/// message begins with `context` + ": " (when `context` is not empty) for
/// fewer than 4 points, non-finite coordinates, or a degenerate set (all
/// points coincident, collinear or coplanar within qhull's round-off: a
/// flat or needle-like hull has no volume). Thread-safe (one reentrant
/// qhull instance per call; qhull never prints).
///
/// Faces: qhull pre-merges facets within kHullMergeTolerance of coplanar
/// (option 'C-n'; no triangulated output 'Qt', no joggle 'QJ'); each merged
/// facet becomes one face whose loop is chained from qhull's ridges and
/// oriented counter-clockwise about the outward normal. A vertex in exactly
/// two faces lies on the line where they meet, inside an edge: it is
/// dropped from both loops (qhull's own vertex reduction already removes
/// such vertices in every case tried; this is the safety net). Each face's
/// plane is recomputed from its final loop: Newell's normal, offset the
/// mean of normal . v over the loop; the vertices of a merged face lie
/// within about the merge distance of it, and so do input points outside
/// the hull. The volume is a sum of tetrahedra over fans of the faces.
ConvexHull BuildConvexHull(const std::vector<Vector3>& points,
                           const std::string& context = "");

/// qhull's merge distance relative to the largest coordinate magnitude of
/// the points: facets within it of coplanar are merged and points within it
/// of the hull are not made vertices. Mesh files hold single-precision
/// coordinates (relative round-off 6e-8 of the largest magnitude), so a
/// flat face of a rotated mesh is flat only to about 1e-7: the merge
/// distance leaves a margin for the tilt of small facets' planes (KR5 and
/// WAM meshes: face counts settle from 3e-7 on; a rotated, rounded cube
/// gives 6 quads). For a 1 m mesh the hull is exact to 1 um.
inline constexpr double kHullMergeTolerance = 1e-6;

namespace internal {
/// The volume qhull itself computes for the hull of `points` (qh totvol,
/// option 'FA'); for tests, as a reference independent of the face loops.
/// @throws std::invalid_argument like BuildConvexHull.
double QhullTotalVolume(const std::vector<Vector3>& points);
}  // namespace internal

}  // namespace sapcontact
