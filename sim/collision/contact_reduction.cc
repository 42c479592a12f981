#include "sapcontact/sim/collision/contact_reduction.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sapcontact {
namespace {

// Area of the convex hull of four points projected on the plane of unit
// normal n (2D monotone chain on 4 points).
double HullArea4(const std::array<Vector3, 4>& p, const Vector3& n) {
  const Vector3 e1 = std::abs(n.x()) < 0.9 ? Vector3(n.cross(Vector3::UnitX()))
                                           : Vector3(n.cross(Vector3::UnitY()));
  const Vector3 u = e1.normalized();
  const Vector3 v = n.cross(u);
  std::array<std::array<double, 2>, 4> q;
  for (int i = 0; i < 4; ++i) q[i] = {u.dot(p[i]), v.dot(p[i])};
  std::sort(q.begin(), q.end());
  auto cross = [](const std::array<double, 2>& o,
                  const std::array<double, 2>& a,
                  const std::array<double, 2>& b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  };
  std::array<std::array<double, 2>, 8> hull;
  int k = 0;
  for (int i = 0; i < 4; ++i) {  // lower chain
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], q[i]) <= 0.0) --k;
    hull[k++] = q[i];
  }
  for (int i = 2, t = k + 1; i >= 0; --i) {  // upper chain
    while (k >= t && cross(hull[k - 2], hull[k - 1], q[i]) <= 0.0) --k;
    hull[k++] = q[i];
  }
  double area = 0.0;
  for (int i = 0; i + 1 < k; ++i) {
    area += hull[i][0] * hull[i + 1][1] - hull[i + 1][0] * hull[i][1];
  }
  return 0.5 * std::abs(area);
}

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
                    double length_tolerance) {
  std::vector<ContactPoint>& c = *contacts;
  const size_t end = c.size();
  if (end - first <= static_cast<size_t>(kMaxManifoldPoints)) return;
  double phi_min = std::numeric_limits<double>::infinity();
  for (size_t i = first; i < end; ++i) phi_min = std::min(phi_min, c[i].phi);
  size_t i1 = first;
  while (c[i1].phi > phi_min + length_tolerance) ++i1;
  const Vector3 p1 = c[i1].position;
  const int i2 = ArgMaxEarliest(
      first, end, [&](size_t i) { return (c[i].position - p1).squaredNorm(); });
  std::array<int, 4> keep = {static_cast<int>(i1), -1, -1, -1};
  int kept = 1;
  if (i2 >= 0) {
    keep[kept++] = i2;
    const Vector3 p2 = c[i2].position;
    const int i3 = ArgMaxEarliest(first, end, [&](size_t i) {
      return (p2 - p1).cross(c[i].position - p1).squaredNorm();
    });
    if (i3 >= 0) {
      keep[kept++] = i3;
      const Vector3 p3 = c[i3].position;
      const Vector3 n = (p2 - p1).cross(p3 - p1).normalized();
      const double base = HullArea4({p1, p2, p3, p3}, n);
      const int i4 = ArgMaxEarliest(first, end, [&](size_t i) {
        return HullArea4({p1, p2, p3, c[i].position}, n) - base;
      });
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
