#include "sapcontact/collision/contact_reduction.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sapcontact {
namespace {

// The earliest index in [first, end) whose value is within 1e-9 (relative)
// of the largest, or -1 if the largest is not positive.
template <typename F>
int ArgMaxEarliest(size_t first, size_t end, F value) {
  double best = 0.0;
  for (size_t i = first; i < end; ++i) best = std::max(best, value(i));
  if (!(best > 0.0)) return -1;
  for (size_t i = first; i < end; ++i) {
    if (value(i) >= best * (1.0 - 1e-9)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

void ReduceManifold(std::vector<ContactPoint>* contacts, size_t first,
                    double margin, double length_tolerance) {
  std::vector<ContactPoint>& c = *contacts;
  const size_t end = c.size();
  if (end - first <= static_cast<size_t>(kMaxManifoldPoints)) return;
  double phi_min = std::numeric_limits<double>::infinity();
  for (size_t i = first; i < end; ++i) phi_min = std::min(phi_min, c[i].phi);
  // Depth weight: 1 within length_tolerance of the deepest (so that a flat
  // face's equally deep points tie exactly), falling linearly to 0 at the
  // margin.
  const double band = margin - phi_min - length_tolerance;
  auto weight = [&](size_t i) {
    return band > 0.0 ? std::clamp((margin - c[i].phi) / band, 0.0, 1.0) : 1.0;
  };
  size_t i1 = first;
  while (c[i1].phi > phi_min + length_tolerance) ++i1;
  const Vector3 p1 = c[i1].position;
  const int i2 = ArgMaxEarliest(first, end, [&](size_t i) {
    return weight(i) * (c[i].position - p1).norm();
  });
  std::array<int, 4> keep = {static_cast<int>(i1), -1, -1, -1};
  int kept = 1;
  if (i2 >= 0) {
    keep[kept++] = i2;
    const Vector3 p2 = c[i2].position;
    const int i3 = ArgMaxEarliest(first, end, [&](size_t i) {
      return weight(i) * (p2 - p1).cross(c[i].position - p1).norm();
    });
    if (i3 >= 0) {
      keep[kept++] = i3;
      const Vector3 p3 = c[i3].position;
      // The area a point adds to the triangle's convex hull: the triangles
      // it makes with the edges it sees (those it is outside of; the loop
      // p1 p2 p3 turns counter-clockwise about n).
      const Vector3 n = (p2 - p1).cross(p3 - p1).normalized();
      const Vector3 loop[3] = {p1, p2, p3};
      auto added = [&](size_t i) {
        double area = 0.0;
        for (int e = 0; e < 3; ++e) {
          const Vector3& a = loop[e];
          const Vector3& b = loop[(e + 1) % 3];
          area += std::max(0.0, -(b - a).cross(c[i].position - a).dot(n));
        }
        return 0.5 * weight(i) * area;
      };
      // Among points adding the same area (a regular polygon's), the one
      // farthest from p3: the most symmetric quadrilateral (a hexagon gives
      // a parallelogram about its centre, not a trapezoid).
      double best = 0.0;
      for (size_t i = first; i < end; ++i) best = std::max(best, added(i));
      int i4 = -1;
      if (best > 0.0) {
        double far = -1.0;
        for (size_t i = first; i < end; ++i) {
          if (added(i) < best * (1.0 - 1e-9)) continue;
          const double d = (c[i].position - p3).squaredNorm();
          if (d > far * (1.0 + 1e-9)) {
            far = d;
            i4 = static_cast<int>(i);
          }
        }
      }
      if (i4 >= 0) keep[kept++] = i4;
    }
  }
  // Move the kept contacts to the front in rule order, drop the rest.
  std::array<ContactPoint, 4> kept_points;
  for (int k = 0; k < kept; ++k) kept_points[k] = c[keep[k]];
  for (int k = 0; k < kept; ++k) c[first + k] = kept_points[k];
  c.resize(first + kept);
}

}  // namespace sapcontact
