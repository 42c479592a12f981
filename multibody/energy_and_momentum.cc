// Kinetic and potential energy, spatial momentum and centre of mass of the
// tree (Featherstone ch. 2.13-2.14: T = 1/2 v' I v, h = I v per body).
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
  }
  return 0.5 * energy;
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
