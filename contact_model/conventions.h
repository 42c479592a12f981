// sapcontact conventions: THE single statement of per-contact ordering, signs
// and units. Every other file refers here instead of restating them.
//
// Ordering (normal first, as in FCLib):
//   every per-contact 3-vector (constraint velocity v_c, impulse gamma, the
//   variable y of the projection, v_hat) and every 3-row Jacobian block is
//   ordered (n, t1, t2): index kNormal = 0 is the normal component, indices
//   kTangent1 = 1 and kTangent2 = 2 are the two tangential components. The
//   contact frame has orthonormal axes with t1 x t2 = n (the triad
//   (t1, t2, n) is right-handed).
//   Contact-stacked vectors are contact-major: [c0_n c0_t1 c0_t2 c1_n ...].
//   Diagonal regularization R = diag(R_n, R_t, R_t) in this ordering (the SAP
//   paper writes diag(R_t, R_t, R_n) because Drake is tangential-first).
//
// Signs, for a contact between body A and body B:
//   - phi: signed distance between the two surfaces [m], negative in
//     penetration.
//   - the contact normal n points from body A into body B.
//   - v_c = J v: velocity of (the contact point on) B relative to A, in the
//     contact frame [m/s]. v_c,n > 0 means the bodies are separating.
//   - gamma: the contact impulse [N*s] that A applies on B, expressed in the
//     contact frame; B receives +gamma and A receives -gamma. gamma_n >= 0
//     pushes the bodies apart. The generalized impulse is J' gamma.
//   - Friction cone F = { gamma : ||gamma_t|| <= mu gamma_n }.
//
// Units: SI throughout. Time step dt [s], stiffness k [N/m], dissipation time
// scale tau_d [s], impulses [N*s], velocities [m/s], the Delassus operator
// W = J A^-1 J' and the regularization R in [(m/s)/(N*s)] = [1/kg].
#pragma once

#include <Eigen/Core>

namespace sapcontact {

/// Index of the normal component in a per-contact 3-vector.
inline constexpr int kNormal = 0;
/// Index of the first tangential component in a per-contact 3-vector.
inline constexpr int kTangent1 = 1;
/// Index of the second tangential component in a per-contact 3-vector.
inline constexpr int kTangent2 = 2;
/// Number of components (rows) per contact.
inline constexpr int kContactDim = 3;

using Vector2 = Eigen::Vector2d;
using Vector3 = Eigen::Vector3d;
using Matrix3 = Eigen::Matrix3d;

/// The tangential part (t1, t2) of a per-contact 3-vector.
inline Vector2 Tangential(const Vector3& x) { return x.segment<2>(kTangent1); }

}  // namespace sapcontact
