// Box-box: separating axis test over the 15 axes (3 + 3 face normals, 9 edge
// cross products); contact generation by face clipping (reference face =
// the face whose axis separates best, incident face = the other box's face
// most anti-parallel to it, clipped to the reference face's side planes
// with Sutherland-Hodgman) or, for an edge axis, the closest points of the
// two edges. Face axes win ties (a box resting on another is a face
// contact), A's faces win ties against B's. For disjoint boxes (within the
// margin) the SAT separation is only a lower bound of the distance: the
// exact distance is computed from the vertex-box and edge-edge pairs, used
// as the edge contact, and added to a face manifold that misses it.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sapcontact/collision/geometry_queries.h"
#include "sapcontact/collision/narrow_phase.h"
#include "sapcontact/collision/polygon_clipping.h"

namespace sapcontact {
namespace {

struct OrientedBox {
  Vector3 center;
  Matrix3 axes;  // columns: the box axes in the world
  Vector3 half;
};

// Projection radius of box `b` on the unit direction `l`.
double Radius(const OrientedBox& b, const Vector3& l) {
  return (b.axes.transpose() * l).cwiseAbs().dot(b.half);
}

// Face contact: `ref`'s face with outward normal n_ref (= sign * axis
// `face`) against the incident face of `inc`, clipped to the reference
// face's four side planes (collision/polygon_clipping.h). If `ref_is_a`
// the normal A->B is n_ref, else -n_ref.
void FaceContacts(const OrientedBox& ref, int face, double sign,
                  const OrientedBox& inc, bool ref_is_a, double margin,
                  double scale, std::vector<ContactPoint>* out) {
  const Vector3 n_ref = sign * ref.axes.col(face);
  // Incident face: outward normal most anti-parallel to n_ref.
  const Vector3 dots = inc.axes.transpose() * n_ref;
  int m = 0;
  dots.cwiseAbs().maxCoeff(&m);
  const double sm = dots[m] > 0.0 ? -1.0 : 1.0;
  const Vector3 fc = inc.center + sm * inc.half[m] * inc.axes.col(m);
  const Vector3 u = inc.half[(m + 1) % 3] * inc.axes.col((m + 1) % 3);
  const Vector3 v = inc.half[(m + 2) % 3] * inc.axes.col((m + 2) % 3);
  thread_local std::vector<Vector3> poly, scratch;
  if (poly.size() < 4) poly.resize(4);
  poly[0] = fc + u + v;
  poly[1] = fc - u + v;
  poly[2] = fc - u - v;
  poly[3] = fc + u - v;
  // The side planes |axis_j . x - c_j| <= half_j of the other two axes.
  ClipPlane sides[4];
  for (int k = 1; k <= 2; ++k) {
    const int j = (face + k) % 3;
    const Vector3 axis = ref.axes.col(j);
    const double c = axis.dot(ref.center);
    sides[2 * (k - 1)] = {axis, c + ref.half[j]};
    sides[2 * (k - 1) + 1] = {-axis, -c + ref.half[j]};
  }
  const Vector3 corners[4] = {poly[0], poly[1], poly[2], poly[3]};
  const int n = ClipPolygonToPlanes(&poly, 4, sides, 4, 1e-9 * scale, &scratch);
  const double plane = n_ref.dot(ref.center) + ref.half[face];
  const size_t first = out->size();
  EmitFaceContacts(poly.data(), n, n_ref, plane, ref_is_a, margin, 1e-8 * scale,
                   out);
  // Features: an incident corner kept by the clipping is a vertex of `inc`
  // against the reference face; a point where an incident edge crosses one
  // side plane is that edge's line cut by the side plane (it slides along
  // the edge); a corner of the reference face inside the incident face
  // (two side planes) is not recorded.
  const double tol = 1e-12 * scale;
  for (size_t k = first; k < out->size(); ++k) {
    ContactPoint& c = (*out)[k];
    const Vector3 x = c.position + 0.5 * c.phi * n_ref;
    ContactFeature& on_ref = ref_is_a ? c.feature_a : c.feature_b;
    ContactFeature& on_inc = ref_is_a ? c.feature_b : c.feature_a;
    const Vector3 on_face = x - c.phi * n_ref;
    int corner = -1;
    for (int i = 0; i < 4 && corner < 0; ++i) {
      if ((x - corners[i]).norm() <= tol) corner = i;
    }
    if (corner >= 0) {
      on_ref = FaceFeature(on_face, n_ref);
      on_inc = PointFeature(corners[corner]);
      continue;
    }
    int edge = -1, cut = -1, cuts = 0;
    for (int i = 0; i < 4; ++i) {
      const Vector3 d = corners[(i + 1) % 4] - corners[i];
      const Vector3 w = x - corners[i];
      if ((w - d * (w.dot(d) / d.squaredNorm())).norm() <= 1e3 * tol) edge = i;
      if (std::abs(sides[i].normal.dot(x) - sides[i].offset) <= 1e3 * tol) {
        cut = i;
        ++cuts;
      }
    }
    if (edge < 0 || cuts != 1) continue;
    const Vector3 d = corners[(edge + 1) % 4] - corners[edge];
    on_ref = FaceFeature(on_face, n_ref);
    on_inc = LineFeature(x, d.normalized());
    c.side = FaceFeature(x, sides[cut].normal);
  }
}

// The closest points of two disjoint boxes: the distance between disjoint
// convex polyhedra is attained at a vertex of one (against the other box)
// or at a pair of edges, so 16 point-box and 144 segment-segment queries
// give it exactly.
struct ClosestPair {
  double distance{std::numeric_limits<double>::infinity()};
  Vector3 on_a{Vector3::Zero()};
  Vector3 on_b{Vector3::Zero()};
};

void VerticesAgainst(const OrientedBox& from, const OrientedBox& to,
                     bool from_is_a, ClosestPair* best) {
  for (int v = 0; v < 8; ++v) {
    const Vector3 corner((v & 1) ? 1.0 : -1.0, (v & 2) ? 1.0 : -1.0,
                         (v & 4) ? 1.0 : -1.0);
    const Vector3 x = from.center + from.axes * corner.cwiseProduct(from.half);
    const BoxPointResult q =
        QueryBoxPoint(to.half, to.axes.transpose() * (x - to.center));
    if (q.distance < best->distance) {
      const Vector3 y = to.center + to.axes * q.surface_point;
      best->distance = q.distance;
      best->on_a = from_is_a ? x : y;
      best->on_b = from_is_a ? y : x;
    }
  }
}

// Edge k (0..11) of a box: axis k / 4, the signs of the other two axes from
// the low bits.
void Edge(const OrientedBox& b, int k, Vector3* start, Vector3* delta) {
  const int i = k / 4;
  Vector3 offset = Vector3::Zero();
  offset[(i + 1) % 3] = (k & 1) ? 1.0 : -1.0;
  offset[(i + 2) % 3] = (k & 2) ? 1.0 : -1.0;
  offset[i] = -1.0;
  *start = b.center + b.axes * offset.cwiseProduct(b.half);
  *delta = 2.0 * b.half[i] * b.axes.col(i);
}

ClosestPair SeparatedDistance(const OrientedBox& a, const OrientedBox& b) {
  ClosestPair best;
  VerticesAgainst(b, a, /*from_is_a=*/false, &best);
  VerticesAgainst(a, b, /*from_is_a=*/true, &best);
  for (int ka = 0; ka < 12; ++ka) {
    Vector3 pa, da;
    Edge(a, ka, &pa, &da);
    for (int kb = 0; kb < 12; ++kb) {
      Vector3 pb, db;
      Edge(b, kb, &pb, &db);
      double s = 0.0, t = 0.0;
      ClosestSegmentParameters(pa, da, pb, db, &s, &t);
      const Vector3 xa = pa + s * da, xb = pb + t * db;
      const double d = (xb - xa).norm();
      if (d < best.distance) best = {d, xa, xb};
    }
  }
  return best;
}

}  // namespace

void CollideBoxBox(const Shape& a, const Pose& pa, const Shape& b,
                   const Pose& pb, double margin,
                   std::vector<ContactPoint>* out) {
  const OrientedBox A{pa.position, pa.rotation(), 0.5 * a.size};
  const OrientedBox B{pb.position, pb.rotation(), 0.5 * b.size};
  const Vector3 d = B.center - A.center;
  const double scale = A.half.norm() + B.half.norm();
  const double kInf = std::numeric_limits<double>::infinity();

  double best_a = -kInf, best_b = -kInf, best_edge = -kInf;
  int face_a = -1, face_b = -1, edge_i = -1, edge_j = -1;
  Vector3 edge_axis = Vector3::Zero();
  for (int i = 0; i < 3; ++i) {
    const Vector3 l = A.axes.col(i);
    const double sep = std::abs(l.dot(d)) - A.half[i] - Radius(B, l);
    if (sep > margin) return;
    if (sep > best_a) {
      best_a = sep;
      face_a = i;
    }
  }
  for (int j = 0; j < 3; ++j) {
    const Vector3 l = B.axes.col(j);
    const double sep = std::abs(l.dot(d)) - Radius(A, l) - B.half[j];
    if (sep > margin) return;
    if (sep > best_b) {
      best_b = sep;
      face_b = j;
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Vector3 l = A.axes.col(i).cross(B.axes.col(j));
      const double len = l.norm();
      if (len < 1e-6) continue;  // parallel edges: the face axes cover it
      l /= len;
      const double sep = std::abs(l.dot(d)) - Radius(A, l) - Radius(B, l);
      if (sep > margin) return;
      if (sep > best_edge) {
        best_edge = sep;
        edge_i = i;
        edge_j = j;
        edge_axis = l;
      }
    }
  }

  const bool use_b = best_b > best_a + 1e-9 * scale;
  const double best_face = use_b ? best_b : best_a;
  // Disjoint boxes: the SAT separation is only a lower bound of their
  // distance; compute the distance exactly.
  const bool separated = std::max(best_face, best_edge) > 0.0;
  ClosestPair exact;
  if (separated) {
    exact = SeparatedDistance(A, B);
    if (exact.distance > margin) return;
  }
  const auto emit_exact = [&]() {
    const Vector3 n = (exact.on_b - exact.on_a) / exact.distance;
    out->push_back(MakeContact(exact.on_a, n, exact.distance));
  };
  if (edge_i >= 0 && best_edge > best_face + 1e-5 * scale) {
    if (separated) {
      emit_exact();
      return;
    }
    const Vector3 n = edge_axis.dot(d) >= 0.0 ? edge_axis : Vector3(-edge_axis);
    Vector3 ea = A.center, eb = B.center;
    for (int k = 0; k < 3; ++k) {
      const Vector3 ak = A.axes.col(k), bk = B.axes.col(k);
      if (k != edge_i) ea += (n.dot(ak) >= 0.0 ? 1.0 : -1.0) * A.half[k] * ak;
      if (k != edge_j) eb += (n.dot(bk) <= 0.0 ? 1.0 : -1.0) * B.half[k] * bk;
    }
    const Vector3 da = 2.0 * A.half[edge_i] * A.axes.col(edge_i);
    const Vector3 db = 2.0 * B.half[edge_j] * B.axes.col(edge_j);
    const Vector3 sa = ea - 0.5 * da, sb = eb - 0.5 * db;
    double s = 0.0, t = 0.0;
    ClosestSegmentParameters(sa, da, sb, db, &s, &t);
    ContactPoint cp;
    cp.position = 0.5 * ((sa + s * da) + (sb + t * db));
    cp.normal = n;
    cp.phi = best_edge;
    // The two edges' lines where their closest points are inside both.
    if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
      cp.feature_a = LineFeature(sa + s * da, da.normalized());
      cp.feature_b = LineFeature(sb + t * db, db.normalized());
    }
    out->push_back(cp);
    return;
  }
  const size_t first = out->size();
  if (use_b) {
    const double sign = B.axes.col(face_b).dot(d) <= 0.0 ? 1.0 : -1.0;
    FaceContacts(B, face_b, sign, A, /*ref_is_a=*/false, margin, scale, out);
  } else {
    const double sign = A.axes.col(face_a).dot(d) >= 0.0 ? 1.0 : -1.0;
    FaceContacts(A, face_a, sign, B, /*ref_is_a=*/true, margin, scale, out);
  }
  if (separated) {
    // The face manifold may miss the closest features (an edge or vertex
    // outside the reference face): add them.
    double phi_min = std::numeric_limits<double>::infinity();
    for (size_t k = first; k < out->size(); ++k) {
      phi_min = std::min(phi_min, (*out)[k].phi);
    }
    if (phi_min > exact.distance + 1e-9 * scale) emit_exact();
  }
}

}  // namespace sapcontact
