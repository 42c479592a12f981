// The Delassus operator W = J A^-1 J' and the rigid-limit constraint
// velocity of a SapProblem (solver/sap/sap_problem.h), for the rigid-contact QP
// (solver/rigid_qp/rigid_contact_problem.h). Ordering and signs:
// contact_model/conventions.h.
//
// W is computed per tree (the tree/patch sparsity, SAP paper §IV-D): for tree t
// with Cholesky factor A_t = L_t L_t' and the blocks J_kt of the contacts k
// touching t, Y_kt = L_t^-1 J_kt' and W_ij += Y_it' Y_jt. Hence the 3 x 3
// block W_ij is nonzero only when contacts i and j share a tree, and the
// cost is that of the trees, never of a dense nv x nv matrix.
#pragma once

#include <Eigen/Core>

#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

/// The rigid-contact QP of the SAP problem: W = J A^-1 J' (dense storage if
/// !sparse, else sparse storage with both triangles), c = J v* - v_hat with
/// v_hat_i = (NormalStabilizationVelocity(phi0_i, dt, tau_d,i), 0, 0):
/// -phi0 / (dt + tau_d), or -phi0 / dt for phi0 > 0 (the rigid limit of SAP's
/// stabilization velocity, contact_model/regularization.h), mu_i the
/// contact's friction. Validates the SapProblem first.
/// @throws std::invalid_argument from Validate(SapProblem).
RigidContactProblem MakeRigidContactProblem(const SapProblem& problem,
                                            bool sparse);

/// Generalized velocities v = v* + A^-1 J' l [m/s, rad/s] for impulses l
/// (3 nc) [N*s], computed per tree. Expects a validated problem.
/// @throws std::invalid_argument if l has the wrong size.
Eigen::VectorXd PostStepVelocities(const SapProblem& problem,
                                   const Eigen::VectorXd& impulses);

}  // namespace sapcontact
