// Independent geometry for the collision tests: signed distance functions of
// the shapes (written from their definitions, not from sim/), surface
// samples, random poses; convex hulls built here (from face loops, or by
// brute force over point triples: independent of qhull), polytope signed
// distances by brute force (separating axes in penetration, vertex-face and
// edge-edge pairs when separated) and the distance of separated convex
// shapes by alternating projections.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "sapcontact/collision/narrow_phase.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace testing_util {

using test_constants::kPi;

/// The ground plane of the narrow-phase tests.
inline const Shape kPlane = MakePlane();

/// The contact whose position is nearest to p.
inline const ContactPoint& Nearest(const std::vector<ContactPoint>& c,
                                   const Vector3& p) {
  return *std::min_element(c.begin(), c.end(), [&](const auto& x, auto& y) {
    return (x.position - p).norm() < (y.position - p).norm();
  });
}

/// Distance from point x to the segment [p, q].
inline double PointSegmentDistance(const Vector3& x, const Vector3& p,
                                   const Vector3& q) {
  const Vector3 d = q - p;
  const double dd = d.squaredNorm();
  const double t = dd > 0.0 ? std::clamp((x - p).dot(d) / dd, 0.0, 1.0) : 0.0;
  return (x - (p + t * d)).norm();
}

/// Distance between the segments [p0, p1] and [q0, q1]: the smaller of the
/// four end-point-to-segment distances and, when the lines' closest points
/// fall inside both segments, their distance (the minimum of a convex
/// quadratic over the unit square is interior or on its boundary).
inline double SegmentSegmentDistance(const Vector3& p0, const Vector3& p1,
                                     const Vector3& q0, const Vector3& q1) {
  double best = std::min(
      {PointSegmentDistance(p0, q0, q1), PointSegmentDistance(p1, q0, q1),
       PointSegmentDistance(q0, p0, p1), PointSegmentDistance(q1, p0, p1)});
  const Vector3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.dot(d1), b = d1.dot(d2), c = d2.dot(d2);
  const double d = d1.dot(r), e = d2.dot(r);
  const double det = a * c - b * b;
  if (det > 1e-14 * a * c) {
    const double s = (b * e - c * d) / det, t = (a * e - b * d) / det;
    if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
      best = std::min(best, ((p0 + s * d1) - (q0 + t * d2)).norm());
    }
  }
  return best;
}

/// The closest point to x of the convex polygon `loop` (counter-clockwise
/// about the unit `normal`).
inline Vector3 ClosestPointOnPolygon(const Vector3& x,
                                     const std::vector<Vector3>& loop,
                                     const Vector3& normal) {
  const Vector3 projected = x - normal.dot(x - loop[0]) * normal;
  bool inside = true;
  const int n = static_cast<int>(loop.size());
  for (int k = 0; k < n && inside; ++k) {
    const Vector3 edge = loop[(k + 1) % n] - loop[k];
    inside = edge.cross(normal).dot(projected - loop[k]) <= 0.0;
  }
  if (inside) return projected;
  Vector3 best = loop[0];
  double best_d = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; ++k) {
    const Vector3& p = loop[k];
    const Vector3 d = loop[(k + 1) % n] - p;
    const double t = std::clamp((x - p).dot(d) / d.squaredNorm(), 0.0, 1.0);
    const Vector3 y = p + t * d;
    if ((x - y).norm() < best_d) {
      best_d = (x - y).norm();
      best = y;
    }
  }
  return best;
}

/// A ConvexHull from its vertices and faces (loops counter-clockwise seen
/// from outside): Newell normals, mean offsets, edge adjacency, vertex-face
/// table, bounds, extreme vertices, bounding radius, volume.
inline ConvexHull HullFromFaces(const std::vector<Vector3>& vertices,
                                const std::vector<std::vector<int>>& loops) {
  ConvexHull h;
  h.vertices = vertices;
  const int nv = static_cast<int>(vertices.size());
  std::vector<std::set<int>> nbrs(nv);
  std::vector<std::vector<int>> vfaces(nv);
  for (const std::vector<int>& loop : loops) {
    ConvexHull::Face f;
    f.vertices = loop;
    Vector3 n = Vector3::Zero();
    const int m = static_cast<int>(loop.size());
    for (int k = 0; k < m; ++k) {
      const Vector3& p = vertices[loop[k]];
      const Vector3& q = vertices[loop[(k + 1) % m]];
      n += p.cross(q);
      nbrs[loop[k]].insert(loop[(k + 1) % m]);
      nbrs[loop[(k + 1) % m]].insert(loop[k]);
      vfaces[loop[k]].push_back(static_cast<int>(h.faces.size()));
    }
    f.normal = n.normalized();
    f.offset = 0.0;
    for (int v : loop) f.offset += f.normal.dot(vertices[v]) / m;
    h.faces.push_back(f);
  }
  h.neighbour_begin.push_back(0);
  h.vertex_face_begin.push_back(0);
  int edges = 0;
  for (int i = 0; i < nv; ++i) {
    for (int j : nbrs[i]) h.neighbours.push_back(j);
    edges += static_cast<int>(nbrs[i].size());
    h.neighbour_begin.push_back(static_cast<int>(h.neighbours.size()));
    for (int f : vfaces[i]) h.vertex_faces.push_back(f);
    h.vertex_face_begin.push_back(static_cast<int>(h.vertex_faces.size()));
  }
  h.num_edges = edges / 2;
  h.lower = h.upper = vertices[0];
  for (int i = 0; i < nv; ++i) {
    const Vector3& p = vertices[i];
    for (int k = 0; k < 3; ++k) {
      if (p[k] < h.lower[k]) {
        h.lower[k] = p[k];
        h.extreme_vertices[2 * k] = i;
      }
      if (p[k] > h.upper[k]) {
        h.upper[k] = p[k];
        h.extreme_vertices[2 * k + 1] = i;
      }
    }
    h.bounding_radius = std::max(h.bounding_radius, p.norm());
  }
  double six_volume = 0.0;
  for (const ConvexHull::Face& f : h.faces) {
    for (size_t k = 1; k + 1 < f.vertices.size(); ++k) {
      six_volume += vertices[f.vertices[0]].dot(
          vertices[f.vertices[k]].cross(vertices[f.vertices[k + 1]]));
    }
  }
  h.volume = six_volume / 6.0;
  return h;
}

/// The convex hull of a few points in general position (no four coplanar
/// unless on a common face), by brute force: every triple whose plane has
/// all points on one side is a face plane; each plane's points ordered by
/// angle. O(n^4): for tests only.
inline ConvexHull BruteForceHull(const std::vector<Vector3>& points) {
  const int n = static_cast<int>(points.size());
  double extent = 0.0;
  for (const Vector3& p : points)
    extent = std::max(extent, (p - points[0]).norm());
  const double eps = 1e-9 * extent;
  std::vector<std::pair<Vector3, double>> planes;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        Vector3 nrm = (points[j] - points[i]).cross(points[k] - points[i]);
        if (nrm.norm() < 1e-9 * extent * extent) continue;
        nrm.normalize();
        double d = nrm.dot(points[i]);
        double hi = -1e300, lo = 1e300;
        for (const Vector3& p : points) {
          hi = std::max(hi, nrm.dot(p) - d);
          lo = std::min(lo, nrm.dot(p) - d);
        }
        if (hi > eps && lo < -eps) continue;
        if (hi > eps) {
          nrm = -nrm;
          d = -d;
        }
        bool known = false;
        for (const auto& [m, o] : planes) {
          known = known || ((m - nrm).norm() < 1e-9 && std::abs(o - d) < eps);
        }
        if (!known) planes.push_back({nrm, d});
      }
    }
  }
  std::vector<int> index(n, -1);
  std::vector<Vector3> vertices;
  std::vector<std::vector<int>> loops;
  for (const auto& [nrm, d] : planes) {
    std::vector<int> on;
    Vector3 c = Vector3::Zero();
    for (int i = 0; i < n; ++i) {
      if (std::abs(nrm.dot(points[i]) - d) <= eps) {
        on.push_back(i);
        c += points[i];
      }
    }
    c /= static_cast<double>(on.size());
    const Vector3 e1 = (points[on[0]] - c).normalized();
    const Vector3 e2 = nrm.cross(e1);
    std::sort(on.begin(), on.end(), [&](int a, int b) {
      const Vector3 pa = points[a] - c, pb = points[b] - c;
      return std::atan2(e2.dot(pa), e1.dot(pa)) <
             std::atan2(e2.dot(pb), e1.dot(pb));
    });
    std::vector<int> loop;
    for (int i : on) {
      if (index[i] < 0) {
        index[i] = static_cast<int>(vertices.size());
        vertices.push_back(points[i]);
      }
      loop.push_back(index[i]);
    }
    loops.push_back(loop);
  }
  return HullFromFaces(vertices, loops);
}

/// The hull of a box of half extents `half`: 8 vertices, 6 quadrilaterals.
/// `variant` permutes the vertex numbering and rotates each face loop's
/// first vertex (the same polytope described differently, as differently
/// triangulated mesh files give).
inline ConvexHull BoxHull(const Vector3& half, unsigned variant = 0) {
  std::vector<int> perm = {0, 1, 2, 3, 4, 5, 6, 7};
  std::mt19937 rng(variant);
  if (variant != 0) std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<Vector3> v(8);
  for (int c = 0; c < 8; ++c) {
    v[perm[c]] =
        Vector3((c & 1) ? half.x() : -half.x(), (c & 2) ? half.y() : -half.y(),
                (c & 4) ? half.z() : -half.z());
  }
  // Corner bits (x, y, z); loops counter-clockwise from outside.
  const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  std::vector<std::vector<int>> loops;
  for (int f = 0; f < 6; ++f) {
    std::vector<int> loop;
    const int shift = static_cast<int>((variant / (f + 1)) % 4);
    for (int k = 0; k < 4; ++k) loop.push_back(perm[faces[f][(k + shift) % 4]]);
    loops.push_back(loop);
  }
  return HullFromFaces(v, loops);
}

/// A mesh shape colliding as `hull`.
inline Shape MeshOf(ConvexHull hull) {
  auto mesh = std::make_shared<MeshShape>();
  mesh->hull = std::move(hull);
  mesh->closed = true;
  mesh->convex = true;
  mesh->volume = mesh->hull.volume;
  return MakeMesh(mesh);
}

/// The nearest point of the hull's boundary to a point p outside it (hull
/// frame): the nearest point of the face polygons facing p (exact).
inline Vector3 NearestHullPointOutside(const ConvexHull& h, const Vector3& p) {
  double best = std::numeric_limits<double>::infinity();
  Vector3 nearest = p;
  std::vector<Vector3> loop;
  for (const ConvexHull::Face& f : h.faces) {
    if (f.normal.dot(p) - f.offset <= 0.0) continue;
    loop.clear();
    for (int v : f.vertices) loop.push_back(h.vertices[v]);
    const Vector3 y = ClosestPointOnPolygon(p, loop, f.normal);
    if ((p - y).norm() < best) {
      best = (p - y).norm();
      nearest = y;
    }
  }
  return nearest;
}

/// Signed distance from a point p (hull frame) to a convex polytope: inside,
/// the largest face-plane value (exact: the nearest boundary point of an
/// interior point is on the nearest face plane); outside, the distance to
/// the nearest face polygon (exact).
inline double HullSignedDistance(const ConvexHull& h, const Vector3& p) {
  double max_plane = -std::numeric_limits<double>::infinity();
  for (const ConvexHull::Face& f : h.faces) {
    max_plane = std::max(max_plane, f.normal.dot(p) - f.offset);
  }
  if (max_plane <= 0.0) return max_plane;
  return (p - NearestHullPointOutside(h, p)).norm();
}

/// Signed distance from world point x to the shape at pose (negative
/// inside): exact for every shape.
inline double SignedDistance(const Shape& s, const Pose& pose,
                             const Vector3& x) {
  const Vector3 p = pose.orientation.conjugate() * (x - pose.position);
  switch (s.type) {
    case ShapeType::kPlane:
      return p.z();
    case ShapeType::kSphere:
      return p.norm() - s.radius;
    case ShapeType::kCapsule: {
      const double z = std::clamp(p.z(), -s.length / 2, s.length / 2);
      return (p - Vector3(0, 0, z)).norm() - s.radius;
    }
    case ShapeType::kBox: {
      const Vector3 q = p.cwiseAbs() - 0.5 * s.size;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case ShapeType::kCylinder: {
      // In the (radial, axial) half-plane the cylinder is a rectangle.
      const Eigen::Vector2d q(std::hypot(p.x(), p.y()) - s.radius,
                              std::abs(p.z()) - s.length / 2);
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case ShapeType::kMesh:
      return HullSignedDistance(s.mesh->hull, p);
  }
  return 0.0;
}

/// Points on the surface of a bounded shape, about n per unit of parameter.
inline std::vector<Vector3> SurfaceSamples(const Shape& s, const Pose& pose,
                                           int n) {
  std::vector<Vector3> out;
  auto add = [&](const Vector3& p) { out.push_back(pose.ToWorld(p)); };
  if (s.type == ShapeType::kBox) {
    const Vector3 h = 0.5 * s.size;
    for (int axis = 0; axis < 3; ++axis) {
      for (double sign : {-1.0, 1.0}) {
        for (int i = 0; i <= n; ++i) {
          for (int j = 0; j <= n; ++j) {
            Vector3 p;
            p[axis] = sign * h[axis];
            p[(axis + 1) % 3] = h[(axis + 1) % 3] * (2.0 * i / n - 1.0);
            p[(axis + 2) % 3] = h[(axis + 2) % 3] * (2.0 * j / n - 1.0);
            add(p);
          }
        }
      }
    }
  } else if (s.type == ShapeType::kCylinder) {
    const double r = s.radius, h = s.length / 2;
    for (int j = 0; j < 4 * n; ++j) {
      const double t = 2 * kPi * j / (4 * n);
      const Vector3 d(std::cos(t), std::sin(t), 0.0);
      for (int i = 0; i <= n; ++i) {
        add(r * d + Vector3(0, 0, h * (2.0 * i / n - 1.0)));  // side
        add(r * (double(i) / n) * d + Vector3(0, 0, h));      // caps
        add(r * (double(i) / n) * d - Vector3(0, 0, h));
      }
    }
  } else if (s.type == ShapeType::kMesh) {
    // Each face loop as a fan of triangles, each on a barycentric grid.
    const ConvexHull& hull = s.mesh->hull;
    for (const ConvexHull::Face& f : hull.faces) {
      const Vector3& a = hull.vertices[f.vertices[0]];
      for (size_t k = 1; k + 1 < f.vertices.size(); ++k) {
        const Vector3& b = hull.vertices[f.vertices[k]];
        const Vector3& c = hull.vertices[f.vertices[k + 1]];
        for (int i = 0; i <= n; ++i) {
          for (int j = 0; i + j <= n; ++j) {
            add(a + (b - a) * (double(i) / n) + (c - a) * (double(j) / n));
          }
        }
      }
    }
  } else {
    // Sphere / capsule: a latitude-longitude grid split at the equator.
    const double r = s.radius;
    const double half = s.type == ShapeType::kCapsule ? s.length / 2 : 0.0;
    for (int i = 0; i <= 2 * n; ++i) {
      const double theta = kPi * i / (2 * n);  // polar angle
      for (int j = 0; j < 4 * n; ++j) {
        const double phi = 2 * kPi * j / (4 * n);
        const Vector3 d(std::sin(theta) * std::cos(phi),
                        std::sin(theta) * std::sin(phi), std::cos(theta));
        add(r * d + Vector3(0, 0, d.z() >= 0 ? half : -half));
        if (half > 0 && i == n) {  // the cylinder
          for (int k = 0; k <= n; ++k) {
            add(r * d + Vector3(0, 0, half * (2.0 * k / n - 1.0)));
          }
        }
      }
    }
  }
  return out;
}

/// Points of the "core" of a bounded shape (the shape is the core swept by
/// CoreRadius): a sphere's centre, a capsule's segment, a box's 12 edges, a
/// mesh's hull edges, a cylinder's two rims (4 n points each) and 8 lines
/// of its side; `n` points per segment. Every closest point of a polytope
/// to another convex shape lies on an edge of one of them or is a vertex;
/// not so for a cylinder's side (its CoreGap is only an upper bound).
inline std::vector<Vector3> CoreSamples(const Shape& s, const Pose& pose,
                                        int n) {
  std::vector<Vector3> out;
  auto segment = [&](const Vector3& p0, const Vector3& p1) {
    for (int i = 0; i <= n; ++i) {
      out.push_back(pose.ToWorld(p0 + (p1 - p0) * (double(i) / n)));
    }
  };
  if (s.type == ShapeType::kSphere) {
    out.push_back(pose.position);
  } else if (s.type == ShapeType::kCapsule) {
    segment(Vector3(0, 0, -s.length / 2), Vector3(0, 0, s.length / 2));
  } else if (s.type == ShapeType::kBox) {
    const Vector3 h = 0.5 * s.size;
    for (int axis = 0; axis < 3; ++axis) {
      for (double u : {-1.0, 1.0}) {
        for (double v : {-1.0, 1.0}) {
          Vector3 p0, p1;
          p0[axis] = -h[axis];
          p1[axis] = h[axis];
          p0[(axis + 1) % 3] = p1[(axis + 1) % 3] = u * h[(axis + 1) % 3];
          p0[(axis + 2) % 3] = p1[(axis + 2) % 3] = v * h[(axis + 2) % 3];
          segment(p0, p1);
        }
      }
    }
  } else if (s.type == ShapeType::kMesh) {
    const ConvexHull& hull = s.mesh->hull;
    for (size_t i = 0; i < hull.vertices.size(); ++i) {
      for (int k = hull.neighbour_begin[i]; k < hull.neighbour_begin[i + 1];
           ++k) {
        const int j = hull.neighbours[k];
        if (j > static_cast<int>(i))
          segment(hull.vertices[i], hull.vertices[j]);
      }
    }
  } else if (s.type == ShapeType::kCylinder) {
    const double r = s.radius, h = s.length / 2;
    for (int j = 0; j < 4 * n; ++j) {
      const double t = 2 * kPi * j / (4 * n);
      const Vector3 d(r * std::cos(t), r * std::sin(t), 0.0);
      out.push_back(pose.ToWorld(d + Vector3(0, 0, h)));
      out.push_back(pose.ToWorld(d - Vector3(0, 0, h)));
      if (j % (n / 2 > 0 ? n / 2 : 1) == 0) {
        segment(d - Vector3(0, 0, h), d + Vector3(0, 0, h));
      }
    }
  }
  return out;
}

inline double CoreRadius(const Shape& s) {
  return s.type == ShapeType::kSphere || s.type == ShapeType::kCapsule
             ? s.radius
             : 0.0;
}

/// min over B's core points x of sd_A(x) - r_B, and the same with A and B
/// exchanged (A a plane: only the first). For separated shapes this is
/// their distance (up to the sampling of edges and segments); in
/// penetration it is >= minus the minimum translation distance.
inline double CoreGap(const Shape& a, const Pose& pa, const Shape& b,
                      const Pose& pb, int n) {
  double gap = std::numeric_limits<double>::infinity();
  for (const Vector3& x : CoreSamples(b, pb, n)) {
    gap = std::min(gap, SignedDistance(a, pa, x) - CoreRadius(b));
  }
  if (a.type != ShapeType::kPlane) {
    for (const Vector3& x : CoreSamples(a, pa, n)) {
      gap = std::min(gap, SignedDistance(b, pb, x) - CoreRadius(a));
    }
  }
  return gap;
}

/// The point of the shape (not a plane) nearest to world point x (x itself
/// when inside), from the shape's definition.
inline Vector3 ProjectOnto(const Shape& s, const Pose& pose, const Vector3& x) {
  const Vector3 p = pose.ToBody(x);
  Vector3 q = p;
  switch (s.type) {
    case ShapeType::kPlane:
      q.z() = std::min(p.z(), 0.0);
      break;
    case ShapeType::kSphere:
      if (p.norm() > s.radius) q = s.radius * p.normalized();
      break;
    case ShapeType::kCapsule: {
      const Vector3 c(0, 0, std::clamp(p.z(), -s.length / 2, s.length / 2));
      if ((p - c).norm() > s.radius) q = c + s.radius * (p - c).normalized();
      break;
    }
    case ShapeType::kBox:
      q = p.cwiseMax(-0.5 * s.size).cwiseMin(0.5 * s.size);
      break;
    case ShapeType::kCylinder: {
      const double rho = std::hypot(p.x(), p.y());
      if (rho > s.radius) q.head<2>() *= s.radius / rho;
      q.z() = std::clamp(p.z(), -s.length / 2, s.length / 2);
      break;
    }
    case ShapeType::kMesh: {
      const ConvexHull& h = s.mesh->hull;
      if (HullSignedDistance(h, p) > 0.0) q = NearestHullPointOutside(h, p);
      break;
    }
  }
  return pose.ToWorld(q);
}

/// The distance between two convex shapes by alternating projections (von
/// Neumann; the iterates' distance decreases monotonically to the sets'
/// distance): 0 (up to its convergence) when they overlap.
inline double ProjectionDistance(const Shape& a, const Pose& pa, const Shape& b,
                                 const Pose& pb, int max_iterations = 200000) {
  Vector3 xb = pb.position;
  Vector3 xa = ProjectOnto(a, pa, xb);
  double d = std::numeric_limits<double>::infinity();
  for (int it = 0; it < max_iterations; ++it) {
    xb = ProjectOnto(b, pb, xa);
    xa = ProjectOnto(a, pa, xb);
    const double next = (xa - xb).norm();
    if (!(next < d - 1e-16)) return std::min(d, next);
    d = next;
  }
  return d;
}

/// A convex polytope in world coordinates.
struct WorldPolytope {
  std::vector<Vector3> vertices;
  std::vector<std::vector<Vector3>> loops;
  std::vector<Vector3> normals;
  std::vector<std::pair<Vector3, Vector3>> edges;
};

inline WorldPolytope PolytopeOf(const Shape& s, const Pose& pose) {
  const ConvexHull hull =
      s.type == ShapeType::kBox ? BoxHull(0.5 * s.size) : s.mesh->hull;
  WorldPolytope w;
  for (const Vector3& v : hull.vertices) w.vertices.push_back(pose.ToWorld(v));
  for (const ConvexHull::Face& f : hull.faces) {
    std::vector<Vector3> loop;
    for (int v : f.vertices) loop.push_back(w.vertices[v]);
    w.loops.push_back(loop);
    w.normals.push_back(pose.orientation * f.normal);
    for (size_t k = 0; k < f.vertices.size(); ++k) {
      const int i = f.vertices[k], j = f.vertices[(k + 1) % f.vertices.size()];
      if (i < j) w.edges.push_back({w.vertices[i], w.vertices[j]});
    }
  }
  return w;
}

/// The signed distance of two polytopes (boxes or meshes) by brute force:
/// in penetration, the largest separation over the separating axes (face
/// normals of both, cross products of every pair of edges), which is minus
/// the penetration depth; when separated, the smallest distance over the
/// vertex-face and edge-edge pairs.
inline double PolytopeSignedDistance(const Shape& a, const Pose& pa,
                                     const Shape& b, const Pose& pb) {
  const WorldPolytope A = PolytopeOf(a, pa), B = PolytopeOf(b, pb);
  auto separation = [&](const Vector3& u) {
    double max_a = -1e300, min_b = 1e300;
    for (const Vector3& x : A.vertices) max_a = std::max(max_a, u.dot(x));
    for (const Vector3& x : B.vertices) min_b = std::min(min_b, u.dot(x));
    return min_b - max_a;
  };
  double sat = -std::numeric_limits<double>::infinity();
  for (const Vector3& n : A.normals) sat = std::max(sat, separation(n));
  for (const Vector3& n : B.normals) sat = std::max(sat, separation(-n));
  for (const auto& ea : A.edges) {
    for (const auto& eb : B.edges) {
      Vector3 u = (ea.second - ea.first).cross(eb.second - eb.first);
      const double len = u.norm();
      if (len < 1e-9 * (ea.second - ea.first).norm() *
                    (eb.second - eb.first).norm()) {
        continue;
      }
      u /= len;
      sat = std::max({sat, separation(u), separation(-u)});
    }
  }
  if (sat <= 0.0) return sat;
  double best = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < B.loops.size(); ++f) {
    for (const Vector3& x : A.vertices) {
      best = std::min(
          best,
          (x - ClosestPointOnPolygon(x, B.loops[f], B.normals[f])).norm());
    }
  }
  for (size_t f = 0; f < A.loops.size(); ++f) {
    for (const Vector3& x : B.vertices) {
      best = std::min(
          best,
          (x - ClosestPointOnPolygon(x, A.loops[f], A.normals[f])).norm());
    }
  }
  for (const auto& ea : A.edges) {
    for (const auto& eb : B.edges) {
      best = std::min(best, SegmentSegmentDistance(ea.first, ea.second,
                                                   eb.first, eb.second));
    }
  }
  return best;
}

/// The support function h(u) = max over the shape's core of u . x (a
/// sphere's centre, a capsule's segment; the others whole), from the
/// definitions: u world, not necessarily unit.
inline double CoreSupportValue(const Shape& s, const Pose& pose,
                               const Vector3& u) {
  const Vector3 l = pose.orientation.conjugate() * u;
  const double c = u.dot(pose.position);
  switch (s.type) {
    case ShapeType::kPlane:
      return std::numeric_limits<double>::infinity();
    case ShapeType::kSphere:
      return c;
    case ShapeType::kCapsule:
      return c + 0.5 * s.length * std::abs(l.z());
    case ShapeType::kBox:
      return c + 0.5 * l.cwiseAbs().dot(s.size);
    case ShapeType::kCylinder:
      return c + s.radius * std::hypot(l.x(), l.y()) +
             0.5 * s.length * std::abs(l.z());
    case ShapeType::kMesh: {
      double best = -std::numeric_limits<double>::infinity();
      for (const Vector3& v : s.mesh->hull.vertices)
        best = std::max(best, l.dot(v));
      return c + best;
    }
  }
  return 0.0;
}

/// The separation of the cores of B and A along the unit u (A towards B):
/// min over B of u . x minus max over A of u . x. At most their signed
/// distance for every u, equal to it along the optimal normal.
inline double CoreSeparation(const Shape& a, const Pose& pa, const Shape& b,
                             const Pose& pb, const Vector3& u) {
  return -CoreSupportValue(b, pb, -u) - CoreSupportValue(a, pa, u);
}

inline Eigen::Quaterniond RandomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  q.normalize();
  return q;
}

/// Calls Collide with a margin and returns the contacts.
inline std::vector<ContactPoint> Contacts(const Shape& a, const Pose& pa,
                                          const Shape& b, const Pose& pb,
                                          double margin = 0.0) {
  std::vector<ContactPoint> out;
  Collide(a, pa, b, pb, margin, &out);
  return out;
}

inline Pose At(const Vector3& p,
               const Eigen::Quaterniond& q = Eigen::Quaterniond::Identity()) {
  Pose pose;
  pose.position = p;
  pose.orientation = q;
  return pose;
}

}  // namespace testing_util
}  // namespace sapcontact
