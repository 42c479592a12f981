// Plane (A) against box, sphere and capsule (B). The plane is z = 0 of A's
// frame with outward normal n = R_A e_z; signed distance of a point x is
// n . (x - p_A).
#include "sapcontact/sim/collision/narrow_phase.h"

namespace sapcontact {
namespace {

// Emits a contact for a B surface point `x` at height `d` above the plane
// (phi = d), if within the margin.
void EmitAbove(const Vector3& n, const Vector3& x, double d, double margin,
               std::vector<ContactPoint>* out) {
  if (d > margin) return;
  out->push_back(MakeContact(x - d * n, n, d));
}

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
  }
}

}  // namespace sapcontact
