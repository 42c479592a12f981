// Forward kinematics (Featherstone ch. 4): link poses and velocities,
// point and frame Jacobians from world-frame joint axes, and the position
// update of IntegratePositions.
#include <cmath>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/multibody/tree_internal.h"

namespace sapcontact {

using multibody_internal::Matrix6Xd;
using multibody_internal::Vector6d;

namespace multibody_internal {

void LinkPoses(const MultibodyTree& tree, const Eigen::VectorXd& q,
               std::vector<Eigen::Isometry3d>* X_WL) {
  const int n = tree.num_links();
  X_WL->resize(n);
  for (int i = 0; i < n; ++i) {
    const Joint& joint = tree.joint(i);
    Eigen::Isometry3d& X = (*X_WL)[i];
    // X_WL = X_WP * origin * Motion(q) (the header's convention).
    X = joint.parent < 0 ? joint.origin : (*X_WL)[joint.parent] * joint.origin;
    const int s = tree.position_start(i);
    switch (joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
        X.linear() = X.linear() * Eigen::AngleAxisd(q[s], joint.axis).matrix();
        break;
      case JointType::kPrismatic:
        X.translation() += X.linear() * (q[s] * joint.axis);
        break;
      case JointType::kFloating: {
        const Eigen::Matrix3d R_FL =
            FloatingQuaternion(tree, i, q).toRotationMatrix();
        X.translation() += X.linear() * q.segment<3>(s);
        X.linear() = X.linear() * R_FL;
        break;
      }
    }
  }
}

void MotionSubspaces(const MultibodyTree& tree,
                     const std::vector<Eigen::Isometry3d>& X_WL, Matrix6Xd* S) {
  S->resize(6, tree.num_velocities());
  for (int i = 0; i < tree.num_links(); ++i) {
    const Joint& joint = tree.joint(i);
    const int s = tree.velocity_start(i);
    const Eigen::Vector3d& p = X_WL[i].translation();
    switch (joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute: {
        const Eigen::Vector3d a = X_WL[i].linear() * joint.axis;
        S->col(s) << a, p.cross(a);
        break;
      }
      case JointType::kPrismatic:
        S->col(s) << Eigen::Vector3d::Zero(), X_WL[i].linear() * joint.axis;
        break;
      case JointType::kFloating: {
        const Eigen::Matrix3d R = JointFrameRotation(tree, X_WL, i);
        S->block<3, 3>(0, s).setZero();
        S->block<3, 3>(3, s) = R;
        S->block<3, 3>(0, s + 3) = R;
        S->block<3, 3>(3, s + 3) = Skew(p) * R;
        break;
      }
    }
  }
}

void SpatialVelocities(const MultibodyTree& tree, const Matrix6Xd& S,
                       const Eigen::VectorXd& v, std::vector<Vector6d>* V) {
  const int n = tree.num_links();
  V->resize(n);
  for (int i = 0; i < n; ++i) {
    const int parent = tree.joint(i).parent;
    Vector6d& Vi = (*V)[i];
    Vi = parent < 0 ? Vector6d::Zero() : (*V)[parent];
    const int nv = tree.num_velocities(i);
    if (nv > 0) {
      const int s = tree.velocity_start(i);
      Vi.noalias() += S.middleCols(s, nv) * v.segment(s, nv);
    }
  }
}

}  // namespace multibody_internal

namespace {

using multibody_internal::CheckLinkIndex;
using multibody_internal::CheckPoses;
using multibody_internal::CheckPositions;
using multibody_internal::JointFrameRotation;
using multibody_internal::Skew;

/// Columns of the Jacobian of the frame at p_W on `link` (rows 0-2 linear
/// velocity of p_W, 3-5 angular; `angular` false: rows 0-2 only), for the
/// joints from `link` to the root.
void FrameJacobian(const MultibodyTree& tree,
                   const std::vector<Eigen::Isometry3d>& X_WL, int link,
                   const Eigen::Vector3d& p_W, bool angular,
                   Eigen::MatrixXd* J) {
  J->setZero(angular ? 6 : 3, tree.num_velocities());
  for (int i = link; i >= 0; i = tree.joint(i).parent) {
    const Joint& joint = tree.joint(i);
    const int s = tree.velocity_start(i);
    const Eigen::Vector3d r = p_W - X_WL[i].translation();
    switch (joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute: {
        const Eigen::Vector3d a = X_WL[i].linear() * joint.axis;
        J->block<3, 1>(0, s) = a.cross(r);
        if (angular) J->block<3, 1>(3, s) = a;
        break;
      }
      case JointType::kPrismatic:
        J->block<3, 1>(0, s) = X_WL[i].linear() * joint.axis;
        break;
      case JointType::kFloating: {
        // v_p = R v_lin + (R w) x r.
        const Eigen::Matrix3d R = JointFrameRotation(tree, X_WL, i);
        J->block<3, 3>(0, s) = R;
        J->block<3, 3>(0, s + 3) = -Skew(r) * R;
        if (angular) J->block<3, 3>(3, s + 3) = R;
        break;
      }
    }
  }
}

std::vector<Eigen::Isometry3d>& PosesWorkspace() {
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  return X_WL;
}

}  // namespace

void CalcLinkPoses(const MultibodyTree& tree, const Eigen::VectorXd& q,
                   std::vector<Eigen::Isometry3d>* X_WL) {
  CheckPositions(tree, q);
  multibody_internal::LinkPoses(tree, q, X_WL);
}

void CalcLinkVelocities(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v,
                        std::vector<Eigen::Matrix<double, 6, 1>>* V_WL) {
  CheckPositions(tree, q);
  multibody_internal::CheckVelocities("v", tree, v);
  std::vector<Eigen::Isometry3d>& X_WL = PosesWorkspace();
  thread_local Matrix6Xd S;
  multibody_internal::LinkPoses(tree, q, &X_WL);
  multibody_internal::MotionSubspaces(tree, X_WL, &S);
  multibody_internal::SpatialVelocities(tree, S, v, V_WL);
  // Plücker (w, v_O) at the world origin -> (velocity of the link origin, w).
  for (int i = 0; i < tree.num_links(); ++i) {
    Vector6d& V = (*V_WL)[i];
    const Eigen::Vector3d w = V.head<3>();
    V.head<3>() = V.tail<3>() + w.cross(X_WL[i].translation());
    V.tail<3>() = w;
  }
}

void CalcPointJacobian(const MultibodyTree& tree, const Eigen::VectorXd& q,
                       int link, const Eigen::Vector3d& p_W,
                       Eigen::MatrixXd* J) {
  CheckPositions(tree, q);
  CheckLinkIndex(tree, link);
  std::vector<Eigen::Isometry3d>& X_WL = PosesWorkspace();
  multibody_internal::LinkPoses(tree, q, &X_WL);
  FrameJacobian(tree, X_WL, link, p_W, false, J);
}

void CalcPointJacobian(const MultibodyTree& tree,
                       const std::vector<Eigen::Isometry3d>& X_WL, int link,
                       const Eigen::Vector3d& p_W, Eigen::MatrixXd* J) {
  CheckPoses(tree, X_WL);
  CheckLinkIndex(tree, link);
  FrameJacobian(tree, X_WL, link, p_W, false, J);
}

void CalcFrameJacobian(const MultibodyTree& tree, const Eigen::VectorXd& q,
                       int link, const Eigen::Vector3d& p_W,
                       Eigen::MatrixXd* J) {
  CheckPositions(tree, q);
  CheckLinkIndex(tree, link);
  std::vector<Eigen::Isometry3d>& X_WL = PosesWorkspace();
  multibody_internal::LinkPoses(tree, q, &X_WL);
  FrameJacobian(tree, X_WL, link, p_W, true, J);
}

void CalcFrameJacobian(const MultibodyTree& tree,
                       const std::vector<Eigen::Isometry3d>& X_WL, int link,
                       const Eigen::Vector3d& p_W, Eigen::MatrixXd* J) {
  CheckPoses(tree, X_WL);
  CheckLinkIndex(tree, link);
  FrameJacobian(tree, X_WL, link, p_W, true, J);
}

void IntegratePositions(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v, double dt,
                        Eigen::VectorXd* q_next) {
  CheckPositions(tree, q);
  multibody_internal::CheckVelocities("v", tree, v);
  if (q_next != &q) *q_next = q;
  Eigen::VectorXd& x = *q_next;
  for (int i = 0; i < tree.num_links(); ++i) {
    const int qs = tree.position_start(i);
    const int vs = tree.velocity_start(i);
    switch (tree.joint(i).type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
        x[qs] += dt * v[vs];
        break;
      case JointType::kFloating: {
        const Eigen::Quaterniond quat =
            multibody_internal::FloatingQuaternion(tree, i, x);
        x.segment<3>(qs) += dt * v.segment<3>(vs);
        // exp(dt w) as a unit quaternion (cos(phi/2), sin(phi/2) theta/phi),
        // theta = dt w, phi = |theta|; the series near phi = 0.
        const Eigen::Vector3d theta = dt * v.segment<3>(vs + 3);
        const double phi = theta.norm();
        const double half = 0.5 * phi;
        const double sinc_half =
            phi < 1e-4 ? 0.5 * (1.0 - half * half / 6.0) : std::sin(half) / phi;
        Eigen::Quaterniond delta;
        delta.w() = std::cos(half);
        delta.vec() = sinc_half * theta;
        const Eigen::Quaterniond next = (delta * quat).normalized();
        x[qs + 3] = next.w();
        x.segment<3>(qs + 4) = next.vec();
        break;
      }
    }
  }
}

}  // namespace sapcontact
