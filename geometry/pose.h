// Rigid-body pose: position of the body origin (its centre of mass) in the
// world frame and the orientation as a unit quaternion (body -> world).
// Units: metres, radians. Contact signs: contact_model/conventions.h.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// Pose of a body frame B in the world frame W: p_W = position + R p_B with
/// R = orientation.toRotationMatrix(). The body origin is the centre of mass.
struct Pose {
  /// Position of the body origin in the world [m].
  Vector3 position{Vector3::Zero()};
  /// Unit quaternion (w, x, y, z) rotating body-frame vectors into the world.
  Eigen::Quaterniond orientation{Eigen::Quaterniond::Identity()};

  /// Rotation matrix R (body -> world).
  Matrix3 rotation() const { return orientation.toRotationMatrix(); }
  /// World coordinates of a point given in body coordinates.
  Vector3 ToWorld(const Vector3& p_body) const {
    return position + orientation * p_body;
  }
  /// Body coordinates of a point given in world coordinates.
  Vector3 ToBody(const Vector3& p_world) const {
    return orientation.conjugate() * (p_world - position);
  }
};

/// [a]x, the cross-product matrix: CrossMatrix(a) b = a x b.
inline Matrix3 CrossMatrix(const Vector3& a) {
  Matrix3 K;
  K << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return K;
}

/// Orientation from roll-pitch-yaw angles [rad] (rotations about the fixed
/// world axes x, then y, then z): R = Rz(yaw) Ry(pitch) Rx(roll), the
/// ROS/Drake convention.
inline Eigen::Quaterniond QuaternionFromRpy(const Vector3& rpy) {
  return Eigen::Quaterniond(Eigen::AngleAxisd(rpy.z(), Vector3::UnitZ()) *
                            Eigen::AngleAxisd(rpy.y(), Vector3::UnitY()) *
                            Eigen::AngleAxisd(rpy.x(), Vector3::UnitX()));
}

}  // namespace sapcontact
