// Kinetic and potential energy, spatial momentum and centre of mass of the
// tree (Featherstone ch. 2.13-2.14: T = 1/2 v' I v, h = I v per body).
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/multibody/tree_internal.h"

namespace sapcontact {
namespace {

using multibody_internal::Matrix6Xd;
using multibody_internal::Vector6d;

/// Poses and world Plücker velocities of every link at (q, v), checked.
void PosesAndVelocities(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v,
                        std::vector<Eigen::Isometry3d>* X_WL,
                        std::vector<Vector6d>* V) {
  multibody_internal::CheckPositions(tree, q);
  multibody_internal::CheckVelocities("v", tree, v);
  thread_local Matrix6Xd S;
  multibody_internal::LinkPoses(tree, q, X_WL);
  multibody_internal::MotionSubspaces(tree, *X_WL, &S);
  multibody_internal::SpatialVelocities(tree, S, v, V);
}

}  // namespace

double CalcKineticEnergy(const MultibodyTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v) {
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  thread_local std::vector<Vector6d> V;
  PosesAndVelocities(tree, q, v, &X_WL, &V);
  double energy = 0.0;
  for (int i = 0; i < tree.num_links(); ++i) {
    energy +=
        V[i].dot(multibody_internal::LinkInertiaInWorld(tree, X_WL, i) * V[i]);
    const double a = tree.joint(i).armature;
    if (a != 0.0) {
      energy += a * v.segment(tree.velocity_start(i), tree.num_velocities(i))
                        .squaredNorm();
    }
  }
  return 0.5 * energy;
}

void CalcMassRateForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v, Eigen::VectorXd* k) {
  multibody_internal::CheckPositions(tree, q);
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  multibody_internal::LinkPoses(tree, q, &X_WL);
  CalcMassRateForces(tree, X_WL, v, k);
}

void CalcMassRateForces(const MultibodyTree& tree,
                        const std::vector<Eigen::Isometry3d>& X_WL,
                        const Eigen::VectorXd& v, Eigen::VectorXd* k) {
  // Moving coordinate j (tangent direction, as IntegratePositions) with
  // the joint axes of its link's subtree carried rigidly by the screw S_j
  // (world Plücker) carries each body b there with it: dI_b = S_j x* I_b -
  // I_b S_j x, dV_b = S_j x (V_b - V_p(j)), V_p(j) the velocity of the
  // joint's parent link. Summed, 1/2 V_b' dI_b V_b + H_b' dV_b leaves
  // k_j = -(S_j x V_p(j)) . H_j, H_j the subtree's momentum sum_b I_b V_b:
  // one pass over the links (docs/theory.md §17). With revolute and
  // prismatic joints this is dT/dq; a floating joint's rotation, whose own
  // axes stay the parent's, makes dT/dq differ by (S_j x V_J) . H_j (its
  // coordinates do not commute), and k is Mdot v - c_C either way.
  thread_local Matrix6Xd S;
  thread_local std::vector<Vector6d> V, H;
  multibody_internal::CheckVelocities("v", tree, v);
  if (static_cast<int>(X_WL.size()) != tree.num_links()) {
    throw std::invalid_argument(
        "CalcMassRateForces: " + std::to_string(X_WL.size()) +
        " link poses for " + std::to_string(tree.num_links()) + " links");
  }
  multibody_internal::MotionSubspaces(tree, X_WL, &S);
  multibody_internal::SpatialVelocities(tree, S, v, &V);
  const int n = tree.num_links();
  H.resize(n);
  for (int i = 0; i < n; ++i) {
    H[i] = multibody_internal::LinkInertiaInWorld(tree, X_WL, i) * V[i];
  }
  for (int i = n - 1; i >= 0; --i) {  // children after their parents
    const int parent = tree.joint(i).parent;
    if (parent >= 0) H[parent] += H[i];
  }
  k->setZero(tree.num_velocities());
  for (int i = 0; i < n; ++i) {
    const int parent = tree.joint(i).parent;
    const Vector6d V_parent = parent < 0 ? Vector6d::Zero() : V[parent];
    const int si = tree.velocity_start(i);
    for (int c = 0; c < tree.num_velocities(i); ++c) {
      (*k)(si + c) =
          -multibody_internal::CrossMotion(S.col(si + c), V_parent).dot(H[i]);
    }
    if (tree.joint(i).type == JointType::kFloating) {
      // The rotation's own axes are the parent's: dT/dq adds
      // -(S_j x V_J) . H_j; the rotation coordinates' bracket takes
      // -(L x w) off, L = S_rot' H_j their generalized momentum.
      const Vector6d V_J = V[i] - V_parent;
      const Eigen::Vector3d L = S.middleCols<3>(si + 3).transpose() * H[i];
      const Eigen::Vector3d w = v.segment<3>(si + 3);
      for (int c = 3; c < 6; ++c) {
        (*k)(si + c) -=
            multibody_internal::CrossMotion(S.col(si + c), V_J).dot(H[i]);
      }
      k->segment<3>(si + 3) -= L.cross(w);
    }
  }
}

double CalcPotentialEnergy(const MultibodyTree& tree, const Eigen::VectorXd& q,
                           const Eigen::Vector3d& gravity) {
  multibody_internal::CheckPositions(tree, q);
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  multibody_internal::LinkPoses(tree, q, &X_WL);
  double energy = 0.0;
  for (int i = 0; i < tree.num_links(); ++i) {
    const LinkInertia& in = tree.link(i).inertia;
    energy -= in.mass * gravity.dot(X_WL[i] * in.com);
    const Joint& j = tree.joint(i);
    if (j.stiffness != 0.0) {
      const double dq = q[tree.position_start(i)] - j.spring_reference;
      energy += 0.5 * j.stiffness * dq * dq;
    }
  }
  return energy;
}

Eigen::Matrix<double, 6, 1> CalcMomentum(const MultibodyTree& tree,
                                         const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v) {
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  thread_local std::vector<Vector6d> V;
  PosesAndVelocities(tree, q, v, &X_WL, &V);
  Vector6d h = Vector6d::Zero();  // (angular about the origin, linear)
  for (int i = 0; i < tree.num_links(); ++i) {
    h += multibody_internal::LinkInertiaInWorld(tree, X_WL, i) * V[i];
  }
  Eigen::Matrix<double, 6, 1> momentum;
  momentum << h.tail<3>(), h.head<3>();
  return momentum;
}

Eigen::Vector3d CalcCenterOfMass(const MultibodyTree& tree,
                                 const Eigen::VectorXd& q) {
  multibody_internal::CheckPositions(tree, q);
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  multibody_internal::LinkPoses(tree, q, &X_WL);
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
  double mass = 0.0;
  for (int i = 0; i < tree.num_links(); ++i) {
    const LinkInertia& in = tree.link(i).inertia;
    first_moment += in.mass * (X_WL[i] * in.com);
    mass += in.mass;
  }
  return mass > 0.0 ? Eigen::Vector3d(first_moment / mass)
                    : Eigen::Vector3d::Zero();
}

}  // namespace sapcontact
