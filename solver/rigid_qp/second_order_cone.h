// Algebra of the second-order cone Q = { x = (x0, x1) : ||x1|| <= x0 } of
// dimension 1 (then Q is the half-line x0 >= 0) or 3, as used by the
// primal-dual interior-point method of the rigid-contact QP
// (solver/rigid_qp/rigid_qp_solver.h; the method family of ECOS and CVXOPT
// coneqp). Vectors of dimension 1 use only entry 0 of an Eigen::Vector3d.
//
// Notation: J = diag(1, -1, -1) (J = 1 in dimension 1), e = (1, 0, 0) is the
// identity of the Jordan algebra, x o y = (x'y, x0 y1 + y0 x1) the Jordan
// product, x'Jx = x0^2 - ||x1||^2 the squared "J-norm" (the determinant).
#pragma once

#include <limits>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// x0 - ||x1||: the smallest eigenvalue of x in the Jordan algebra; > 0 iff
/// x is in the interior of the cone. dim is 1 or 3.
double ConeMinEigenvalue(const Vector3& x, int dim);

/// sqrt(x'Jx), computed as sqrt((x0 - ||x1||)(x0 + ||x1||)) to limit
/// cancellation. Requires x in the interior (returns NaN otherwise).
double ConeJNorm(const Vector3& x, int dim);

/// The Jordan product x o y.
Vector3 JordanProduct(const Vector3& x, const Vector3& y, int dim);

/// The solution y of lambda o y = w ("lambda \ w"), for lambda in the
/// interior of the cone.
Vector3 JordanSolve(const Vector3& lambda, const Vector3& w, int dim);

/// The identity e = (1, 0, 0) (only entry 0 is used in dimension 1).
inline Vector3 ConeIdentity() { return Vector3(1.0, 0.0, 0.0); }

/// sup { alpha >= 0 : x + alpha d in the cone } for x in the interior of the
/// cone (+infinity when the whole ray stays inside). Closed form: the
/// smallest positive root of (x + alpha d)'J(x + alpha d) = 0, evaluated in
/// a cancellation-free way.
double ConeMaxStep(const Vector3& x, const Vector3& d, int dim);

/// Nesterov-Todd scaling of a pair (s, z) in the interior of the cone: the
/// symmetric positive definite W with W z = W^-1 s = lambda (the scaled
/// point). For dim 3, with the normalized NT point w = (sb + J zb) / (2 g)
/// (sb = s / sqrt(s'Js), zb likewise, g = sqrt((1 + sb'zb) / 2), w'Jw = 1):
/// W = eta [w0 w1'; w1 I + w1 w1' / (1 + w0)], eta = (s'Js / z'Jz)^(1/4),
/// and W^-1 = J W J / eta^2. For dim 1, W = sqrt(s / z). Entries outside the
/// leading dim x dim block are 0.
struct NtScaling {
  int dim{3};
  Matrix3 W{Matrix3::Zero()};
  Matrix3 W_inverse{Matrix3::Zero()};
  /// The scaled point lambda = W z = W^-1 s (interior of the cone).
  Vector3 lambda{Vector3::Zero()};
};

/// Computes the NT scaling of (s, z). Returns false (and leaves *scaling
/// unspecified) if s or z is not in the interior of the cone.
bool ComputeNtScaling(const Vector3& s, const Vector3& z, int dim,
                      NtScaling* scaling);

}  // namespace sapcontact
