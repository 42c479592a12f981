#include "sapcontact/collision/geometry_queries.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace sapcontact {

BoxPointResult QueryBoxPoint(const Vector3& half, const Vector3& point) {
  BoxPointResult r;
  const Vector3 clamped = point.cwiseMax(-half).cwiseMin(half);
  for (int i = 0; i < 3; ++i) {
    if (point[i] != clamped[i]) {
      ++r.outside_axes;
      r.face_axis = i;
    }
  }
  if (r.outside_axes > 0) {
    const Vector3 diff = point - clamped;
    r.distance = diff.norm();
    r.normal = diff / r.distance;
    r.surface_point = clamped;
    if (r.outside_axes > 1) r.face_axis = -1;
    return r;
  }
  // Inside (or on the surface): the nearest face.
  int axis = 0;
  double depth = half[0] - std::abs(point[0]);
  for (int i = 1; i < 3; ++i) {
    const double di = half[i] - std::abs(point[i]);
    if (di < depth) {
      depth = di;
      axis = i;
    }
  }
  const double sign = point[axis] >= 0.0 ? 1.0 : -1.0;
  r.face_axis = axis;
  r.distance = -depth;
  r.normal = Vector3::Zero();
  r.normal[axis] = sign;
  r.surface_point = point;
  r.surface_point[axis] = sign * half[axis];
  return r;
}

double ClosestSegmentParameter(const Vector3& p, const Vector3& d,
                               const Vector3& x) {
  const double dd = d.squaredNorm();
  if (dd <= 0.0) return 0.0;
  return std::clamp((x - p).dot(d) / dd, 0.0, 1.0);
}

void ClosestSegmentParameters(const Vector3& p1, const Vector3& d1,
                              const Vector3& p2, const Vector3& d2, double* s,
                              double* t) {
  const Vector3 r = p1 - p2;
  const double a = d1.squaredNorm();
  const double e = d2.squaredNorm();
  const double f = d2.dot(r);
  if (a <= 0.0 && e <= 0.0) {
    *s = *t = 0.0;
    return;
  }
  if (a <= 0.0) {
    *s = 0.0;
    *t = std::clamp(f / e, 0.0, 1.0);
    return;
  }
  const double c = d1.dot(r);
  if (e <= 0.0) {
    *t = 0.0;
    *s = std::clamp(-c / a, 0.0, 1.0);
    return;
  }
  const double b = d1.dot(d2);
  const double denom = a * e - b * b;  // >= 0, 0 when parallel
  double ss = 0.0;
  if (denom > 1e-14 * a * e) ss = std::clamp((b * f - c * e) / denom, 0.0, 1.0);
  double tt = (b * ss + f) / e;
  if (tt < 0.0) {
    tt = 0.0;
    ss = std::clamp(-c / a, 0.0, 1.0);
  } else if (tt > 1.0) {
    tt = 1.0;
    ss = std::clamp((b - c) / a, 0.0, 1.0);
  }
  *s = ss;
  *t = tt;
}

Vector3 AnyOrthogonal(const Vector3& v) {
  const Vector3 a = v.cwiseAbs();
  const Vector3 e = (a.x() <= a.y() && a.x() <= a.z()) ? Vector3::UnitX()
                    : (a.y() <= a.z())                 ? Vector3::UnitY()
                                                       : Vector3::UnitZ();
  return v.cross(e).normalized();
}

}  // namespace sapcontact
