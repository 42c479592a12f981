// A primal (velocity-space) form of an FCLib local problem (W, q, mu) for
// the SAP solver.
//
// SAP (SAP paper §III-C, Eq. (24)) works on min_v 1/2 ||v - v*||_A^2 + sum_k
// l_k(J_k v) whose impulse-space (dual) problem is the rigid QP
//   min_gamma 1/2 gamma'(W + R)gamma + c'gamma over the friction cones,
//   W = J A^-1 J',  c = J v* - v_hat,  v_hat_k = (-phi0_k / (dt + tau_d), 0, 0)
//   (-phi0_k / dt where phi0_k > 0; tau_d = 0 here, so -phi0_k / dt always)
// (solver/rigid_qp/rigid_contact_problem.h,
// solver/rigid_qp/delassus_operator.h). A local problem gives only W and q, so
// we build (J, A, v*, phi0) with J A^-1 J' = Wsym and J v* - v_hat = q:
//
//  1. Wsym = (W + W')/2 (the QP sees only the symmetric part; W as stored
//     is kept for the Coulomb residual), scaled to Wn = Wsym / omega,
//     qn = q / nu with omega = max_i Wsym_ii and nu = ||q||_inf, so that
//     SAP's absolute tolerances (soft norm epsilon_s, abs_tolerance) act on
//     O(1) numbers. Impulses scale back as r = (nu / omega) gamma.
//  2. One tree per connected component of the contact graph of Wsym
//     (contacts i, j adjacent when block Wsym_ij != 0), so each contact
//     touches one tree and the Hessian is block diagonal over components.
//  3. Per component, Wn_b ~ L L' by Cholesky with diagonal pivoting, stopped
//     when the largest remaining pivot is <= rank_tolerance * the largest
//     diagonal entry (cost O(n r^2), r the numerical rank; for
//     KaplasTower's 1710 x 1710 W of rank 504 the whole form takes 0.6-1.2 s,
//     an eigendecomposition alone 25 s). J_b = L (3 n_b x r_b), A_b = I.
//     The dropped Schur complement
//     (rounding-level for a PSD Wsym; for the slightly indefinite Confeti-*
//     W it holds the negative part, -9.2e-8 lambda_max) is reported
//     (dropped_trace, min_dropped_pivot): SAP sees the PSD L L'.
//  4. The free velocity. J v* lies in range(L), but qn need not: its part
//     outside the range is first absorbed, as far as possible, by SAP's
//     normal stabilization velocity v_hat (the only offset a SapProblem
//     has): the minimum-norm b minimizing ||P0 (qn_b + E_n b)|| (P0 the
//     projector onto range(L)'s complement, E_n the normal rows), with
//     v_hat_n = b, i.e. phi0 = -b dt (dt = 1 s, tau_d = 0). Then
//     v* = L^+ (qn_b + E_n b), and J v* - v_hat = qn_b exactly when the
//     residual s = qn_b + E_n b - L v* is zero.
//  5. If s != 0 (relative to ||qn_b||, above range_tolerance) it cannot be
//     reproduced by any (J, v*, v_hat) with J A^-1 J' = L L': one extra DOF
//     is added to the tree with J column sqrt(eps_x) s/||s||, A = 1 and
//     v* = ||s|| / sqrt(eps_x), eps_x = offset_dof_weight * max pivot. This
//     reproduces c = qn exactly and perturbs Wn by eps_x s s'/||s||^2, a
//     rank-one term orthogonal to range(L) (reported: offset_dofs).
//
// Contacts get k = inf, tau_d = 0 and mu_i (the stiff limit: SAP's R_n is
// then the near-rigid floor beta^2/(4 pi^2) w_k, R_t = sigma w_k), so SAP
// solves the QP with Wn + R: its error vs the rigid QP is O(sigma)
// (docs/theory.md §11; tests/solver/rigid_qp/stiff_limit_test.cc).
//
// Global problems: fclib/global_problem_primal_form.h.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

struct PrimalFormOptions {
  /// Pivoted Cholesky stops when the largest remaining pivot is below
  /// rank_tolerance * the largest diagonal entry of the component.
  double rank_tolerance{1e-13};
  /// A component whose pivoted Cholesky meets a pivot below
  /// -indefinite_tolerance * the largest (Wsym indefinite beyond rounding)
  /// is factored by eigendecomposition instead (negative eigenvalues set to
  /// zero).
  double indefinite_tolerance{1e-11};
  /// Damping alpha of the normal-offset fit (step 4): directions where the
  /// normals are nearly inside range(W) would need offsets ~ 1/sigma; damped
  /// below alpha, the rest goes to the offset DOF.
  double normal_offset_damping{1e-3};
  /// q outside range(W) (relative to the component's ||q||) above this adds
  /// an offset DOF (step 5).
  double range_tolerance{1e-12};
  /// eps_x / lambda_max of an offset DOF (step 5).
  double offset_dof_weight{1e-10};
};

/// The SAP problem of a local FCLib problem and how to map its impulses
/// back. Statistics describe the construction.
struct LocalPrimalForm {
  SapProblem problem;
  /// r = impulse_scale * gamma (nu / omega) [N*s per unit gamma].
  double impulse_scale{1.0};
  /// omega and nu (see the file comment).
  double w_scale{1.0};
  double q_scale{1.0};
  int components{0};
  /// Sum of the kept eigenvalue counts (the numerical rank of Wsym).
  int rank{0};
  /// Over components, the largest trace of the dropped Schur complement of
  /// the pivoted Cholesky factorization (sum of the remaining |pivots|)
  /// relative to the largest pivot, and the most negative remaining pivot
  /// (relative; < 0 only for an indefinite Wsym).
  double dropped_trace{0.0};
  double min_dropped_pivot{0.0};
  /// Components factored by eigendecomposition (indefinite Wsym).
  int eigendecompositions{0};
  /// Trees that needed an offset DOF, and the largest relative residual
  /// ||s|| / ||qn_b|| that caused it (or the largest below tolerance).
  int offset_dofs{0};
  double range_residual{0.0};
};

/// Builds the primal form of (W, q, mu). W (3nc x 3nc) may be slightly
/// asymmetric (its symmetric part is used).
/// @throws std::invalid_argument naming the item on inconsistent sizes,
///         non-finite data, a contact whose diagonal block of Wsym is zero
///         (SAP needs a positive Delassus estimate per contact) or W = 0.
LocalPrimalForm MakeLocalPrimalForm(const Eigen::SparseMatrix<double>& W,
                                    const Eigen::VectorXd& q,
                                    const Eigen::VectorXd& mu,
                                    const PrimalFormOptions& options = {});

}  // namespace sapcontact
