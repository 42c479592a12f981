// Small geometric queries shared by the narrow phases
// (collision/narrow_phase.h). Units: metres.
#pragma once

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// Signed distance query of a point against a box centred at the origin with
/// half extents `half`, all in the box frame.
struct BoxPointResult {
  /// Closest point on the box surface (the nearest face point if inside).
  Vector3 surface_point{Vector3::Zero()};
  /// Outward unit normal at surface_point, pointing towards the query point
  /// when outside (for a point on an edge/vertex region: along the offset).
  Vector3 normal{Vector3::UnitZ()};
  /// Signed distance [m], negative inside.
  double distance{0.0};
  /// Number of coordinates outside the slab |x_i| <= half_i (0: inside,
  /// 1: face region, 2: edge region, 3: vertex region).
  int outside_axes{0};
  /// The face axis (0, 1, 2) when outside_axes <= 1, else -1.
  int face_axis{-1};
};
BoxPointResult QueryBoxPoint(const Vector3& half, const Vector3& point);

/// Parameter in [0, 1] of the point of segment [p, p + d] closest to x.
double ClosestSegmentParameter(const Vector3& p, const Vector3& d,
                               const Vector3& x);

/// Closest points between segments [p1, p1 + d1] and [p2, p2 + d2]:
/// parameters s, t in [0, 1] (Ericson, Real-Time Collision Detection 5.1.9).
/// For parallel segments one of the closest pairs is returned.
void ClosestSegmentParameters(const Vector3& p1, const Vector3& d1,
                              const Vector3& p2, const Vector3& d2, double* s,
                              double* t);

/// A unit vector orthogonal to v (v nonzero).
Vector3 AnyOrthogonal(const Vector3& v);

}  // namespace sapcontact
