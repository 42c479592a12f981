// Pieces shared by the multibody/*.cc files: argument checks, unchecked
// forward kinematics and the joints' motion subspaces in world Plücker
// coordinates (spatial_algebra.h). Internal to multibody/.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/multibody/spatial_algebra.h"

namespace sapcontact {
namespace multibody_internal {

/// @throws std::invalid_argument "<what> has <size> entries, the tree has
///         <expected> <unit>" unless size == expected.
void CheckSize(const char* what, Eigen::Index size, int expected,
               const char* unit);
inline void CheckPositions(const MultibodyTree& tree,
                           const Eigen::VectorXd& q) {
  CheckSize("q", q.size(), tree.num_positions(), "positions");
}
inline void CheckVelocities(const char* what, const MultibodyTree& tree,
                            const Eigen::VectorXd& v) {
  CheckSize(what, v.size(), tree.num_velocities(), "velocities");
}
/// @throws std::invalid_argument unless 0 <= link < tree.num_links().
void CheckLinkIndex(const MultibodyTree& tree, int link);
/// @throws std::invalid_argument unless X_WL has num_links() entries.
void CheckPoses(const MultibodyTree& tree,
                const std::vector<Eigen::Isometry3d>& X_WL);

/// The normalized quaternion (qw, qx, qy, qz) of floating joint i in q.
/// @throws std::invalid_argument if it is zero or not finite.
Eigen::Quaterniond FloatingQuaternion(const MultibodyTree& tree, int i,
                                      const Eigen::VectorXd& q);

/// Link poses at q (q's size already checked).
void LinkPoses(const MultibodyTree& tree, const Eigen::VectorXd& q,
               std::vector<Eigen::Isometry3d>* X_WL);

/// World rotation of joint i's frame (parent pose * origin): the frame of
/// a floating joint's velocities.
inline Eigen::Matrix3d JointFrameRotation(
    const MultibodyTree& tree, const std::vector<Eigen::Isometry3d>& X_WL,
    int i) {
  const Joint& joint = tree.joint(i);
  return joint.parent < 0 ? joint.origin.linear()
                          : Eigen::Matrix3d(X_WL[joint.parent].linear() *
                                            joint.origin.linear());
}

/// Motion subspaces of all joints in world Plücker coordinates, 6 x nv
/// (column velocity_start(i) + k is joint i's k-th column; Featherstone
/// Table 4.1, the floating joint's columns for this header's velocities):
///   revolute   (a, p x a), a the world axis, p the link origin
///   prismatic  (0, a)
///   floating   (0, R e_k) for v_lin, (R e_k, p x R e_k) for w, R the
///              joint frame's world rotation.
void MotionSubspaces(const MultibodyTree& tree,
                     const std::vector<Eigen::Isometry3d>& X_WL, Matrix6Xd* S);

/// Link i's spatial inertia in world coordinates.
inline SpatialInertia LinkInertiaInWorld(
    const MultibodyTree& tree, const std::vector<Eigen::Isometry3d>& X_WL,
    int i) {
  const LinkInertia& in = tree.link(i).inertia;
  const Eigen::Matrix3d& R = X_WL[i].linear();
  return SpatialInertia::FromCenterOfMass(in.mass, X_WL[i] * in.com,
                                          R * in.inertia * R.transpose());
}

/// Spatial velocities (world Plücker) of every link: V_i = V_parent + S_i
/// v_i (Featherstone eq. 5.7).
void SpatialVelocities(const MultibodyTree& tree, const Matrix6Xd& S,
                       const Eigen::VectorXd& v, std::vector<Vector6d>* V);

}  // namespace multibody_internal
}  // namespace sapcontact
