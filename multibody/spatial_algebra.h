// Spatial (6D) vectors and rigid-body inertias in Plücker coordinates
// (Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 2): motion and
// force vectors ordered (angular; linear), the linear part taken at the
// coordinate origin. The multibody recursions use world coordinates (origin
// and axes of the world frame), so no coordinate transforms are needed
// between links. Internal to multibody/ (Eigen only).
#pragma once

#include <Eigen/Core>

namespace sapcontact {
namespace multibody_internal {

using Vector6d = Eigen::Matrix<double, 6, 1>;
/// Up to six spatial columns (a joint's motion subspace), no heap.
using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using Matrix6Upto6d =
    Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;

/// [a]x, the cross-product matrix: Skew(a) b = a x b.
inline Eigen::Matrix3d Skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

/// v x m for motion vectors v, m (Featherstone eq. 2.31).
inline Vector6d CrossMotion(const Vector6d& v, const Vector6d& m) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

/// v x* f for a motion vector v and a force vector f (eq. 2.32).
inline Vector6d CrossForce(const Vector6d& v, const Vector6d& f) {
  Vector6d r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

/// A spatial inertia about the coordinate origin (eq. 2.63):
///   I = [ I_O   [h]x ]      h = m c (first moment),
///       [ [h]x' m 1  ],     I_O = I_c - m [c]x^2 (rotational, about O).
struct SpatialInertia {
  double mass{0.0};
  Eigen::Vector3d h{Eigen::Vector3d::Zero()};
  Eigen::Matrix3d I_O{Eigen::Matrix3d::Zero()};

  /// From mass m, centre of mass c and rotational inertia I_c about c, all
  /// in the coordinates of this inertia (parallel-axis theorem, eq. 2.63).
  static SpatialInertia FromCenterOfMass(double m, const Eigen::Vector3d& c,
                                         const Eigen::Matrix3d& I_c) {
    SpatialInertia s;
    s.mass = m;
    s.h = m * c;
    s.I_O = I_c + m * (c.squaredNorm() * Eigen::Matrix3d::Identity() -
                       c * c.transpose());
    return s;
  }

  /// I v: the momentum of a body moving with spatial velocity v.
  Vector6d operator*(const Vector6d& v) const {
    Vector6d r;
    r.head<3>() = I_O * v.head<3>() + h.cross(v.tail<3>());
    r.tail<3>() = mass * v.tail<3>() - h.cross(v.head<3>());
    return r;
  }

  /// I S for up to six motion columns.
  Matrix6Upto6d operator*(const Matrix6Upto6d& S) const {
    Matrix6Upto6d r(6, S.cols());
    for (Eigen::Index k = 0; k < S.cols(); ++k) {
      r.col(k) = (*this) * Vector6d(S.col(k));
    }
    return r;
  }

  /// Composite of two bodies (inertias add in common coordinates, eq. 2.65).
  SpatialInertia& operator+=(const SpatialInertia& o) {
    mass += o.mass;
    h += o.h;
    I_O += o.I_O;
    return *this;
  }
};

}  // namespace multibody_internal
}  // namespace sapcontact
