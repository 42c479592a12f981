// Sphere (B) against box and sphere (A), and sphere (A) against capsule (B):
// one contact point each.
#include <cmath>

#include "sapcontact/collision/geometry_queries.h"
#include "sapcontact/collision/narrow_phase.h"

namespace sapcontact {

namespace {

// Two spheres (centre, radius); the normal is +z if the centres coincide.
// `feature_b`: B's core feature (its centre, or a capsule's segment there).
void SpherePair(const Vector3& ca, double ra, const Vector3& cb, double rb,
                const ContactFeature& feature_b, double margin,
                std::vector<ContactPoint>* out) {
  const Vector3 delta = cb - ca;
  const double dist = delta.norm();
  const double phi = dist - ra - rb;
  if (phi > margin) return;
  const Vector3 n = dist > 0.0 ? Vector3(delta / dist) : Vector3::UnitZ();
  out->push_back(MakeContact(ca + ra * n, n, phi));
  if (dist > 0.0) {
    out->back().feature_a = PointFeature(ca, ra);
    out->back().feature_b = feature_b;
  }
}

}  // namespace

void CollideSphereSphere(const Shape& a, const Pose& pa, const Shape& b,
                         const Pose& pb, double margin,
                         std::vector<ContactPoint>* out) {
  SpherePair(pa.position, a.radius, pb.position, b.radius,
             PointFeature(pb.position, b.radius), margin, out);
}

void CollideBoxSphere(const Shape& a, const Pose& pa, const Shape& b,
                      const Pose& pb, double margin,
                      std::vector<ContactPoint>* out) {
  const BoxPointResult q = QueryBoxPoint(0.5 * a.size, pa.ToBody(pb.position));
  const double phi = q.distance - b.radius;
  if (phi > margin) return;
  out->push_back(
      MakeContact(pa.ToWorld(q.surface_point), pa.orientation * q.normal, phi));
  // The box's feature: the face (inside, or in a face region), the edge
  // along the one axis inside its slab, or the vertex.
  ContactPoint& c = out->back();
  const Vector3 on_box = pa.ToWorld(q.surface_point);
  if (q.outside_axes <= 1) {
    c.feature_a = FaceFeature(on_box, c.normal);
  } else if (q.outside_axes == 2) {
    const Vector3 local = pa.ToBody(pb.position);
    int axis = 0;
    for (int i = 0; i < 3; ++i) {
      if (std::abs(local[i]) <= 0.5 * a.size[i]) axis = i;
    }
    c.feature_a = LineFeature(on_box, pa.orientation * Vector3::Unit(axis));
  } else {
    c.feature_a = PointFeature(on_box);
  }
  c.feature_b = PointFeature(pb.position, b.radius);
}

void CollideSphereCapsule(const Shape& a, const Pose& pa, const Shape& b,
                          const Pose& pb, double margin,
                          std::vector<ContactPoint>* out) {
  const Vector3 axis = pb.orientation * Vector3::UnitZ();
  const Vector3 p0 = pb.position - 0.5 * b.length * axis;
  const Vector3 d = b.length * axis;
  const double t = ClosestSegmentParameter(p0, d, pa.position);
  SpherePair(pa.position, a.radius, p0 + t * d, b.radius,
             SegmentFeature(p0, d, t, b.radius), margin, out);
}

}  // namespace sapcontact
