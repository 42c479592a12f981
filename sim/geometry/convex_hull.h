// Convex hulls of point sets. A mesh collides as its convex hull (as in
// Drake and MuJoCo; docs/scenes.md "Meshes"). The hull keeps polygonal
// faces: coplanar triangles of the input are merged, so the hull of a mesh
// cube is 8 vertices and 6 quadrilaterals however the cube was triangulated,
// and contact manifolds computed from its faces do not depend on the
// triangulation. Built once at load with Debian's qhull (reentrant
// libqhull_r). Units: metres; all coordinates in the hull's own frame.
#pragma once

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

  /// Index of a vertex maximizing direction . v (any direction, not
  /// necessarily unit; a zero direction returns a valid index). Brute force
  /// up to kSupportBruteForceVertices vertices, hill climbing along the
  /// adjacency above (exact on a convex hull: a local maximum is global),
  /// started from `start` when it is a valid index, else from the best of
  /// the six axis-extreme vertices.
  int Support(const Vector3& direction, int start = -1) const;
};

/// Below this many vertices ConvexHull::Support scans every vertex.
inline constexpr int kSupportBruteForceVertices = 32;

/// The convex hull of `points` [m]. @throws std::invalid_argument naming
/// `context` for fewer than 4 points, non-finite coordinates, or a
/// degenerate set (all points collinear or coplanar within qhull's
/// round-off: a flat or needle-like hull has no volume).
ConvexHull BuildConvexHull(const std::vector<Vector3>& points,
                           const std::string& context = "");

}  // namespace sapcontact
