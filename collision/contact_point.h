// The output of collision detection: one point contact between two bodies.
// Signs and the frame ordering: contact_model/conventions.h.
#pragma once

#include <Eigen/Geometry>
#include <utility>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// One side's feature of a contact: the part of the shape's core (the shape
/// minus `radius`: a sphere's centre, a capsule's segment) whose closest
/// point to the other side's feature the contact is, in world coordinates at
/// the pose the contact was found at. It tells how the contact moves when the
/// bodies move (collision/contact_motion.h, docs/theory.md §21).
enum class FeatureType : unsigned char {
  kNone,   ///< not recorded: the contact's motion is not known in closed form
  kPoint,  ///< a point: a vertex, a sphere's centre, a segment's end
  kLine,   ///< a line through `point` along the unit `direction`: an edge
           ///< or a capsule's segment, touched in its interior
  kFace,   ///< a plane through `point` with unit outward normal `direction`
  kRim,    ///< a point of a circle (centre `point`, unit axis `direction`,
           ///< radius `rim`): the one deepest towards the face it touches,
           ///< turned by `quarter` x 90 degrees about the axis (a tilted
           ///< cylinder's cap rim on a plane)
};

struct ContactFeature {
  FeatureType type{FeatureType::kNone};
  Vector3 point{Vector3::Zero()};      ///< world [m]
  Vector3 direction{Vector3::Zero()};  ///< unit; kLine and kFace only
  double radius{0.0};                  ///< [m] the surface is this far out
  double rim{0.0};                     ///< kRim: the circle's radius [m]
  int quarter{0};                      ///< kRim: 0 to 3
};

/// A point contact between body A and body B (indices into the body list the
/// collision detector was built with). When exactly one of the two bodies is
/// fixed, it is body A (so normals point from the world into the moving
/// body); otherwise body_a < body_b.
struct ContactPoint {
  int body_a{-1};
  int body_b{-1};
  /// World position [m]: the midpoint between the closest (or deepest)
  /// points of the two surfaces, p = (p_A + p_B) / 2 with
  /// p_B - p_A = phi * normal.
  Vector3 position{Vector3::Zero()};
  /// Unit normal in the world frame, pointing from A into B.
  Vector3 normal{Vector3::UnitZ()};
  /// Signed distance [m], negative in penetration.
  double phi{0.0};
  /// The features of A and B the contact is between (both kNone when the
  /// narrow phase does not record them; collision/README.md says which
  /// pairs do).
  ContactFeature feature_a, feature_b;
  /// A line against a face (a face manifold's clipped point: where an edge
  /// of one shape crosses a side plane of the other's face): that side
  /// plane, a kFace of the face's body; kNone otherwise.
  ContactFeature side;
};

/// The same contact seen from the other side: B and A swapped, the normal
/// flipped.
inline void FlipContact(ContactPoint* c) {
  c->normal = -c->normal;
  std::swap(c->body_a, c->body_b);
  std::swap(c->feature_a, c->feature_b);
}

/// The rotation whose ROWS are the contact frame axes (n, t1, t2) in
/// conventions.h order, so that R * (v_B - v_A) (world velocities of the two
/// bodies' points at the contact) is v_c = (v_n, v_t1, v_t2). t1 x t2 = n. The
/// tangents are a deterministic, continuous-almost-everywhere function of n (t1
/// is n crossed with the world axis least aligned with n), so the same normal
/// always gets the same frame (useful for warm starts).
/// The world axis least aligned with n, from which ContactFrameRows builds
/// the tangents.
inline Vector3 ContactFrameAxis(const Vector3& n) {
  const Vector3 a = n.cwiseAbs();
  if (a.y() <= a.x() && a.y() <= a.z()) return Vector3::UnitY();
  if (a.z() <= a.x() && a.z() <= a.y()) return Vector3::UnitZ();
  return Vector3::UnitX();
}

inline Matrix3 ContactFrameRows(const Vector3& n) {
  const Vector3 e = ContactFrameAxis(n);
  const Vector3 t1 = e.cross(n).normalized();
  const Vector3 t2 = n.cross(t1);  // t1 x t2 = n for orthonormal (t1,t2,n)
  Matrix3 r;
  r.row(kNormal) = n.transpose();
  r.row(kTangent1) = t1.transpose();
  r.row(kTangent2) = t2.transpose();
  return r;
}

/// The rate of ContactFrameRows(n) when the unit normal n turns at dn
/// (n . dn = 0), on the branch of n's axis: t1 = (e x n) / |e x n| and
/// t2 = n x t1 differentiated.
inline Matrix3 ContactFrameRowsRate(const Vector3& n, const Vector3& dn) {
  const Vector3 e = ContactFrameAxis(n);
  const Vector3 c = e.cross(n);
  const double length = c.norm();
  const Vector3 t1 = c / length;
  const Vector3 dc = e.cross(dn);
  const Vector3 dt1 = (dc - t1 * t1.dot(dc)) / length;
  const Vector3 dt2 = dn.cross(t1) + n.cross(dt1);
  Matrix3 r;
  r.row(kNormal) = dn.transpose();
  r.row(kTangent1) = dt1.transpose();
  r.row(kTangent2) = dt2.transpose();
  return r;
}

}  // namespace sapcontact
