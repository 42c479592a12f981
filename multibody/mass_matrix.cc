// The joint-space mass matrix by the composite-rigid-body algorithm
// (Featherstone ch. 6.2, Table 6.2), in world Plücker coordinates: the
// composite inertias add without transforms and a force F = I^c_i S_i is
// projected on the motion subspaces of i's ancestors unchanged.
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/multibody/tree_internal.h"

namespace sapcontact {

using multibody_internal::Matrix6Upto6d;
using multibody_internal::Matrix6Xd;
using multibody_internal::SpatialInertia;

void CalcMassMatrix(const MultibodyTree& tree, const Eigen::VectorXd& q,
                    Eigen::MatrixXd* M) {
  multibody_internal::CheckPositions(tree, q);
  thread_local std::vector<Eigen::Isometry3d> X_WL;
  thread_local Matrix6Xd S;
  thread_local std::vector<SpatialInertia> I_c;
  const int n = tree.num_links();
  multibody_internal::LinkPoses(tree, q, &X_WL);
  multibody_internal::MotionSubspaces(tree, X_WL, &S);
  // Composite inertias I^c_i = I_i + sum of the children's (eq. 6.20).
  I_c.resize(n);
  for (int i = 0; i < n; ++i) {
    I_c[i] = multibody_internal::LinkInertiaInWorld(tree, X_WL, i);
  }
  for (int i = n - 1; i >= 0; --i) {
    const int parent = tree.joint(i).parent;
    if (parent >= 0) I_c[parent] += I_c[i];
  }
  const int nv = tree.num_velocities();
  M->setZero(nv, nv);
  for (int i = 0; i < n; ++i) {
    const int ni = tree.num_velocities(i);
    if (ni == 0) continue;
    const int si = tree.velocity_start(i);
    const Matrix6Upto6d S_i = S.middleCols(si, ni);
    const Matrix6Upto6d F = I_c[i] * S_i;
    // H_ii = S_i' I^c_i S_i, symmetrized against rounding (eq. 6.19).
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6> H_ii =
        S_i.transpose() * F;
    M->block(si, si, ni, ni) = 0.5 * (H_ii + H_ii.transpose());
    // H_ji = S_j' F for every ancestor j of i.
    for (int j = tree.joint(i).parent; j >= 0; j = tree.joint(j).parent) {
      const int nj = tree.num_velocities(j);
      if (nj == 0) continue;
      const int sj = tree.velocity_start(j);
      M->block(sj, si, nj, ni).noalias() = S.middleCols(sj, nj).transpose() * F;
      M->block(si, sj, ni, nj) = M->block(sj, si, nj, ni).transpose();
    }
  }
  // Armature: the rotors' reflected inertia on the diagonal.
  for (int i = 0; i < tree.num_links(); ++i) {
    const double a = tree.joint(i).armature;
    if (a == 0.0) continue;
    const int si = tree.velocity_start(i);
    for (int k = 0; k < tree.num_velocities(i); ++k) (*M)(si + k, si + k) += a;
  }
}

}  // namespace sapcontact
