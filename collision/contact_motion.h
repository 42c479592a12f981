// How a contact moves when its two bodies move: the first-order rates of its
// signed distance, position and normal, in closed form from the features it
// is between (ContactFeature, collision/contact_point.h). Used by the
// step derivatives (docs/theory.md §21) to move the contacts with the state
// instead of detecting them again.
#pragma once

#include "sapcontact/collision/contact_point.h"

namespace sapcontact {

/// A rigid body's velocity field in the world frame: the point at world
/// position x moves at linear + angular x x [m/s], a direction d turns at
/// angular x d.
struct RigidVelocity {
  Vector3 angular{Vector3::Zero()};  ///< [rad/s]
  Vector3 linear{Vector3::Zero()};   ///< of the point at the world origin [m/s]
  Vector3 At(const Vector3& x) const { return linear + angular.cross(x); }
};

/// The rates of a contact's phi [m/s], position [m/s] and unit normal [1/s]
/// (d/ds at s = 0 when A and B move with the given velocity fields for a
/// time s).
struct ContactRate {
  double phi{0.0};
  Vector3 position{Vector3::Zero()};
  Vector3 normal{Vector3::Zero()};
};

/// Whether the contact's motion is known in closed form: its features are
/// a point, line or face of A against a point, line or face of B other than
/// face-face, line-line with parallel lines, and line-face without a side
/// plane cutting the line (ContactPoint::side).
bool HasContactRate(const ContactPoint& c);

/// The rates of contact `c` (HasContactRate(c) must hold) when A moves with
/// `a` and B with `b`. The features are followed as rigid parts of their
/// bodies: phi is the signed distance between them along the normal minus
/// the radii, the normal the unit direction between their closest points
/// (the face's normal against a face), the position the midpoint of the two
/// surface points (ContactPoint), all as the narrow phase defines them; a
/// line against a face is the point where the side plane cuts the line.
ContactRate CalcContactRate(const ContactPoint& c, const RigidVelocity& a,
                            const RigidVelocity& b);

}  // namespace sapcontact
