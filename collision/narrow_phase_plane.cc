// Plane (A) against box, sphere, capsule, cylinder and mesh (B). The plane
// is z = 0 of A's frame with outward normal n = R_A e_z; signed distance of
// a point x is n . (x - p_A).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sapcontact/collision/contact_reduction.h"
#include "sapcontact/collision/narrow_phase.h"

namespace sapcontact {
namespace {

// Emits a contact for a B surface point `x` at height `d` above the plane
// (phi = d), if within the margin; `fixed_on_b`: x is a point of B (a
// vertex), recorded as the contact's features.
void EmitAbove(const Vector3& n, const Vector3& x, double d, double margin,
               std::vector<ContactPoint>* out, bool fixed_on_b = true) {
  if (d > margin) return;
  out->push_back(MakeContact(x - d * n, n, d));
  if (fixed_on_b) {
    out->back().feature_a = FaceFeature(x - d * n, n);
    out->back().feature_b = PointFeature(x);
  }
}

// A cylinder counts as upright on the plane (its rim's depth varies by less
// than this fraction of its size: round-off) when choosing its rim points.
constexpr double kUprightTolerance = 1e-9;
// A tilted cylinder's rim points are recorded as features (their rates grow
// as 1 / tilt) from this tilt [rad] on.
constexpr double kRimTilt = 1e-3;

}  // namespace

void CollidePlaneBox(const Shape&, const Pose& pa, const Shape& b,
                     const Pose& pb, double margin,
                     std::vector<ContactPoint>* out) {
  const Vector3 n = pa.orientation * Vector3::UnitZ();
  const Matrix3 rb = pb.rotation();
  const Vector3 half = 0.5 * b.size;
  for (int v = 0; v < 8; ++v) {
    const Vector3 corner((v & 1) ? half.x() : -half.x(),
                         (v & 2) ? half.y() : -half.y(),
                         (v & 4) ? half.z() : -half.z());
    const Vector3 x = pb.position + rb * corner;
    EmitAbove(n, x, n.dot(x - pa.position), margin, out);
  }
}

void CollidePlaneSphere(const Shape&, const Pose& pa, const Shape& b,
                        const Pose& pb, double margin,
                        std::vector<ContactPoint>* out) {
  const Vector3 n = pa.orientation * Vector3::UnitZ();
  const double height = n.dot(pb.position - pa.position);
  const double phi = height - b.radius;
  if (phi > margin) return;
  out->push_back(MakeContact(pb.position - height * n, n, phi));
  out->back().feature_a = FaceFeature(pb.position - height * n, n);
  out->back().feature_b = PointFeature(pb.position, b.radius);
}

void CollidePlaneCapsule(const Shape&, const Pose& pa, const Shape& b,
                         const Pose& pb, double margin,
                         std::vector<ContactPoint>* out) {
  const Vector3 n = pa.orientation * Vector3::UnitZ();
  const Vector3 axis = pb.orientation * Vector3::UnitZ();
  for (double s : {-0.5, 0.5}) {
    const Vector3 end = pb.position + s * b.length * axis;
    const double height = n.dot(end - pa.position);
    const double phi = height - b.radius;
    if (phi > margin) continue;
    out->push_back(MakeContact(end - height * n, n, phi));
    out->back().feature_a = FaceFeature(end - height * n, n);
    out->back().feature_b = PointFeature(end, b.radius);
  }
}

void CollidePlaneCylinder(const Shape&, const Pose& pa, const Shape& b,
                          const Pose& pb, double margin,
                          std::vector<ContactPoint>* out) {
  // Candidates: on each cap, 4 rim points 90 degrees apart starting from
  // the rim direction deepest along -n (lying: the two ends of the bottom
  // line; tilted: the deepest rim point first), or from the body x axis
  // when the cylinder is upright within round-off (a fixed symmetric
  // pattern that does not turn with round-off in the tilt). The lower cap
  // first; each candidate within the margin is a contact, at most 4.
  const Vector3 n = pa.orientation * Vector3::UnitZ();
  const Matrix3 rb = pb.rotation();
  const Vector3 axis = rb.col(2);
  const double r = b.radius, h = 0.5 * b.length;
  Vector3 u = -(n - n.dot(axis) * axis);
  const double tilt = u.norm();
  Vector3 v;
  if (r * tilt <= kUprightTolerance * (r + h)) {
    u = rb.col(0);
    v = rb.col(1);
  } else {
    u /= tilt;
    v = axis.cross(u);
  }
  const double lower = n.dot(axis) >= 0.0 ? -1.0 : 1.0;
  const size_t first = out->size();
  for (double side : {lower, -lower}) {
    const Vector3 centre = pb.position + side * h * axis;
    const Vector3 rim[4] = {u, v, -u, -v};
    for (int quarter = 0; quarter < 4; ++quarter) {
      const Vector3 x = centre + r * rim[quarter];
      const size_t before = out->size();
      EmitAbove(n, x, n.dot(x - pa.position), margin, out,
                /*fixed_on_b=*/false);
      // Tilted, the rim points slide along the rim as B turns: recorded as
      // rim features where the tilt is clear of upright (upright, a tilt
      // picks other points: not recorded).
      if (out->size() > before && tilt > kRimTilt) {
        ContactPoint& c = out->back();
        c.feature_a = FaceFeature(x - c.phi * n, n);
        c.feature_b.type = FeatureType::kRim;
        c.feature_b.point = centre;
        c.feature_b.direction = axis;
        c.feature_b.rim = r;
        c.feature_b.quarter = quarter;
      }
    }
  }
  ReduceManifold(out, first, margin, 1e-6 * (r + h));
}

void CollidePlaneMesh(const Shape&, const Pose& pa, const Shape& b,
                      const Pose& pb, double margin,
                      std::vector<ContactPoint>* out) {
  // The hull vertices within the margin: from the deepest (support along
  // -n) by a walk along the hull's edges, since the vertices of a convex
  // polytope below a plane form a connected subgraph of its edge graph.
  // Reduced to 4 points (collision/contact_reduction.h).
  const ConvexHull& hull = b.mesh->hull;
  const int nv = static_cast<int>(hull.vertices.size());
  if (nv == 0) return;
  const Vector3 n = pa.orientation * Vector3::UnitZ();
  const Matrix3 rb = pb.rotation();
  const Vector3 local_n = rb.transpose() * n;
  const int deepest = hull.Support(-local_n);
  // The walk uses the height in the hull frame (cheap), with a round-off
  // slack; the contacts use the world point x = p_B + R_B v as plane-box
  // does (a mesh cube gives plane-box's numbers to the last bit).
  const double base = n.dot(pb.position - pa.position);
  const double slack = 1e-12 * (hull.bounding_radius + std::abs(base));
  auto quick_height = [&](int i) {
    return local_n.dot(hull.vertices[i]) + base;
  };
  auto emit = [&](int i) {
    const Vector3 x = pb.position + rb * hull.vertices[i];
    EmitAbove(n, x, n.dot(x - pa.position), margin, out);
  };
  if (quick_height(deepest) > margin + slack) return;
  const size_t first = out->size();
  const bool graph = hull.neighbour_begin.size() == static_cast<size_t>(nv) + 1;
  if (!graph) {
    for (int i = 0; i < nv; ++i) emit(i);
  } else {
    // Breadth-first; `stamp` marks the vertices seen in this call.
    thread_local std::vector<uint64_t> seen;
    thread_local std::vector<int> queue;
    thread_local uint64_t stamp = 0;
    if (seen.size() < static_cast<size_t>(nv)) seen.resize(nv, 0);
    if (queue.size() < static_cast<size_t>(nv)) queue.resize(nv);
    ++stamp;
    int head = 0, tail = 0;
    queue[tail++] = deepest;
    seen[deepest] = stamp;
    while (head < tail) {
      const int i = queue[head++];
      for (int k = hull.neighbour_begin[i]; k < hull.neighbour_begin[i + 1];
           ++k) {
        const int j = hull.neighbours[k];
        if (seen[j] == stamp) continue;
        seen[j] = stamp;
        if (quick_height(j) <= margin + slack) queue[tail++] = j;
      }
    }
    // In vertex order (body-fixed, unlike the walk's start, which round-off
    // picks among equally deep vertices), so that the reduction keeps the
    // same points step after step.
    std::sort(queue.begin(), queue.begin() + tail);
    for (int k = 0; k < tail; ++k) emit(queue[k]);
  }
  ReduceManifold(out, first, margin, 1e-6 * hull.bounding_radius);
}

}  // namespace sapcontact
