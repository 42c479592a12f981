// Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone
// ch. 5.3, Table 5.1) in world Plücker coordinates, gravity as a base
// acceleration a_0 = (0, -g) (section 5.3).
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/multibody/tree_internal.h"

namespace sapcontact {
namespace {

using multibody_internal::CrossForce;
using multibody_internal::CrossMotion;
using multibody_internal::Matrix6Xd;
using multibody_internal::Vector6d;

/// RNEA; vdot == nullptr means vdot = 0.
void InverseDynamics(const MultibodyTree& tree, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& v, const Eigen::VectorXd* vdot,
                     const Eigen::Vector3d& gravity, Eigen::VectorXd* tau) {
  multibody_internal::CheckPositions(tree, q);
  multibody_internal::CheckVelocities("v", tree, v);
  if (vdot != nullptr) {
    multibody_internal::CheckVelocities("vdot", tree, *vdot);
  }
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  thread_local Matrix6Xd S;
  thread_local std::vector<Vector6d> V, f;
  const int n = tree.num_links();
  multibody_internal::LinkPoses(tree, q, &X_WL);
  multibody_internal::MotionSubspaces(tree, X_WL, &S);
  V.resize(n);
  f.resize(n);
  Vector6d a_base;
  a_base << Eigen::Vector3d::Zero(), -gravity;
  // Forward pass: velocities, accelerations (stored in f) and the forces
  // f_i = I_i a_i + v_i x* I_i v_i (eq. 5.9-5.11).
  for (int i = 0; i < n; ++i) {
    const Joint& joint = tree.joint(i);
    const int parent = joint.parent;
    const Vector6d V_parent = parent < 0 ? Vector6d::Zero() : V[parent];
    const Vector6d a_parent = parent < 0 ? a_base : f[parent];
    const int ni = tree.num_velocities(i);
    const int si = tree.velocity_start(i);
    Vector6d a = a_parent;
    if (ni > 0) {
      const Vector6d V_J = S.middleCols(si, ni) * v.segment(si, ni);
      V[i] = V_parent + V_J;
      // S-dot v_i: V_parent x V_J for axes fixed in the parent; a floating
      // joint's angular columns also move with the link origin, which adds
      // (0, v_rel x w_rel) (v_rel, w_rel the joint's world velocities).
      a += CrossMotion(V_parent, V_J);
      if (joint.type == JointType::kFloating) {
        const Eigen::Matrix3d R =
            multibody_internal::JointFrameRotation(tree, X_WL, i);
        a.tail<3>() += (R * v.segment<3>(si)).cross(R * v.segment<3>(si + 3));
      }
      if (vdot != nullptr) {
        a.noalias() += S.middleCols(si, ni) * vdot->segment(si, ni);
      }
    } else {
      V[i] = V_parent;
    }
    f[i] = a;  // the link's acceleration until the force replaces it
  }
  for (int i = 0; i < n; ++i) {
    const multibody_internal::SpatialInertia I =
        multibody_internal::LinkInertiaInWorld(tree, X_WL, i);
    f[i] = I * f[i] + CrossForce(V[i], I * V[i]);
  }
  // Backward pass: tau_i = S_i' f_i, f_parent += f_i (eq. 5.12-5.13).
  tau->resize(tree.num_velocities());
  for (int i = n - 1; i >= 0; --i) {
    const int ni = tree.num_velocities(i);
    if (ni > 0) {
      const int si = tree.velocity_start(i);
      tau->segment(si, ni).noalias() = S.middleCols(si, ni).transpose() * f[i];
    }
    const int parent = tree.joint(i).parent;
    if (parent >= 0) f[parent] += f[i];
  }
  // Armature: a rotor's inertia times its joint's acceleration.
  if (vdot != nullptr) {
    for (int i = 0; i < n; ++i) {
      const double a = tree.joint(i).armature;
      if (a == 0.0) continue;
      const int si = tree.velocity_start(i), ni = tree.num_velocities(i);
      tau->segment(si, ni) += a * vdot->segment(si, ni);
    }
  }
}

}  // namespace

void CalcInverseDynamics(const MultibodyTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& vdot,
                         const Eigen::Vector3d& gravity, Eigen::VectorXd* tau) {
  InverseDynamics(tree, q, v, &vdot, gravity, tau);
}

void CalcBiasForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, const Eigen::Vector3d& gravity,
                    Eigen::VectorXd* c) {
  InverseDynamics(tree, q, v, nullptr, gravity, c);
}

}  // namespace sapcontact
