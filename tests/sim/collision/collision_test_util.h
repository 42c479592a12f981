// Independent geometry for the collision tests: signed distance functions of
// the shapes (written from their definitions, not from sim/), surface
// samples, random poses.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "sapcontact/sim/collision/narrow_phase.h"

namespace sapcontact {
namespace testing_util {

constexpr double kPi = 3.14159265358979323846;

/// Signed distance from world point x to the shape at pose (negative
/// inside).
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
/// CoreRadius): a sphere's centre, a capsule's segment, a box's 12 edges;
/// `n` points per segment.
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
  }
  return out;
}

inline double CoreRadius(const Shape& s) {
  return s.type == ShapeType::kBox ? 0.0 : s.radius;
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
