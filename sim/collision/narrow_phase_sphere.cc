// Sphere (B) against box and sphere (A), and sphere (A) against capsule (B):
// one contact point each.
#include <cmath>

#include "sapcontact/sim/collision/geometry_queries.h"
#include "sapcontact/sim/collision/narrow_phase.h"

namespace sapcontact {

namespace {

// Two spheres (centre, radius); the normal is +z if the centres coincide.
void SpherePair(const Vector3& ca, double ra, const Vector3& cb, double rb,
                double margin, std::vector<ContactPoint>* out) {
  const Vector3 delta = cb - ca;
  const double dist = delta.norm();
  const double phi = dist - ra - rb;
  if (phi > margin) return;
  const Vector3 n = dist > 0.0 ? Vector3(delta / dist) : Vector3::UnitZ();
  out->push_back(MakeContact(ca + ra * n, n, phi));
}

}  // namespace

void CollideSphereSphere(const Shape& a, const Pose& pa, const Shape& b,
                         const Pose& pb, double margin,
                         std::vector<ContactPoint>* out) {
  SpherePair(pa.position, a.radius, pb.position, b.radius, margin, out);
}

void CollideBoxSphere(const Shape& a, const Pose& pa, const Shape& b,
                      const Pose& pb, double margin,
                      std::vector<ContactPoint>* out) {
  const BoxPointResult q = QueryBoxPoint(0.5 * a.size, pa.ToBody(pb.position));
  const double phi = q.distance - b.radius;
  if (phi > margin) return;
  out->push_back(
      MakeContact(pa.ToWorld(q.surface_point), pa.orientation * q.normal, phi));
}

void CollideSphereCapsule(const Shape& a, const Pose& pa, const Shape& b,
                          const Pose& pb, double margin,
                          std::vector<ContactPoint>* out) {
  const Vector3 axis = pb.orientation * Vector3::UnitZ();
  const Vector3 p0 = pb.position - 0.5 * b.length * axis;
  const Vector3 d = b.length * axis;
  const double t = ClosestSegmentParameter(p0, d, pa.position);
  SpherePair(pa.position, a.radius, p0 + t * d, b.radius, margin, out);
}

}  // namespace sapcontact
