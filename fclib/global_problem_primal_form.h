// The SAP problem of an FCLib global problem (fclib/fclib_io.h)
//   M v = H r + f,  u = H' v + w,  r_i in K_i (Coulomb or its relaxation),
// and its condensed local form. Ordering: contact_model/conventions.h.
//
// SAP's problem (solver/sap/sap_problem.h) is the same physics with A = M,
// J = H', v* = M^-1 f, and u = J v - v_hat: the impulse-space problem is
// the QP with W = H' M^-1 H and c = J v* - v_hat
// (solver/rigid_qp/delassus_operator.h), so v_hat = -w. Construction:
//  - Trees: connected components of the graph of M, merged where a contact's
//    columns of H touch more than two of them (a SapProblem contact acts on
//    one or two trees). A_t = M restricted to the tree (dense), v*_t =
//    A_t^-1 f_t (SPD is checked per tree).
//  - Contact k: Jacobian blocks (H' rows 3k..3k+2) restricted to its trees;
//    k = inf, tau_d = 0, mu_k (the stiff limit, as for local problems:
//    fclib/local_problem_primal_form.h).
//  - w_n enters as phi0 = w_n dt (dt = 1 s, v_hat_n = -phi0 / dt = -w_n).
//    A tangential w cannot be a v_hat; contacts with w_t != 0 get it from
//    one extra "offset" DOF per tree (J column sqrt(eps) s/||s|| over the
//    tree's contacts, A = 1, v* = ||s|| / sqrt(eps), eps = offset_dof_weight
//    * max_k W_kk): exact in c, W perturbed by eps s s' / ||s||^2.
//  - Scaling, as for local problems: velocities in units nu = ||q||_inf
//    (q = H' M^-1 f + w) and impulses in units nu / omega (omega = max_k of
//    the largest diagonal entry of W_kk), i.e. A = omega M, v* = M^-1 f / nu,
//    w / nu, so that SAP's absolute tolerances act on O(1) numbers:
//    r = impulse_scale gamma, v = velocity_scale v_sap.
#pragma once

#include <vector>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/fclib/local_problem_primal_form.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

struct GlobalPrimalForm {
  SapProblem problem;
  /// r = impulse_scale * gamma, v = velocity_scale * v_sap.
  double impulse_scale{1.0};
  double velocity_scale{1.0};
  /// FCLib DOF of each of the problem's stacked velocities (trees in order),
  /// -1 for an offset DOF.
  std::vector<int> dof_of_velocity;
  int offset_dofs{0};
};

/// @throws std::invalid_argument naming the item on inconsistent sizes, a
///         tree whose block of M is not symmetric positive definite, or a
///         contact whose columns of H are all zero.
GlobalPrimalForm MakeGlobalPrimalForm(const FclibGlobalProblem& problem,
                                      const PrimalFormOptions& options = {});

/// FCLib's v from the SAP solution velocities (stacked over trees).
Eigen::VectorXd GlobalVelocities(const GlobalPrimalForm& form,
                                 const Eigen::VectorXd& v_sap);

/// The local form W = H' M^-1 H, q = H' M^-1 f + w of a global problem
/// (sparse LDLT of M; info and mu copied; a stored solution's r, u kept).
/// @throws std::invalid_argument if M is not positive definite.
FclibLocalProblem CondenseGlobalProblem(const FclibGlobalProblem& problem);

}  // namespace sapcontact
