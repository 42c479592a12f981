// Derivatives of a converged SAP solve with respect to the problem's data
// (docs/theory.md §20): at the solution v of min l(v; theta) the gradient
// g(v; theta) = A (v - v*) - J' gamma(J v + b; theta) vanishes, so by the
// implicit function theorem
//   H dv = A dv* + J' (d gamma / d theta) d theta,   H = A + J' G J,
//   d gamma = -G J dv + (d gamma / d theta) d theta,
// with d gamma / d theta the constraints' partials at fixed v_c
// (contact_model/contact_impulse_partials.h for contacts,
// contact_model/constraint_regularization.h for the rows of limits,
// holonomic constraints and PD actuation). One factorization of H at the
// solution serves every derivative: forward mode (Jacobian-vector products
// and whole Jacobians, one back-substitution per column) and reverse mode
// (vector-Jacobian products: one back-substitution for all parameters).
// Where a contact sits on a boundary between stiction, sliding and
// separation (or a parameter on a kink such as the near-rigid floor) the
// derivative is one-sided: the branch the solve's evaluation took;
// regions() says where each contact is and how far from a boundary.
// Ordering: velocities as SapProblem::trees, contacts as
// SapProblem::contacts, impulse 3-vectors (n, t1, t2) contact-major
// (contact_model/conventions.h).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "sapcontact/contact_model/constraint_regularization.h"
#include "sapcontact/contact_model/contact_impulse_partials.h"
#include "sapcontact/solver/linear_algebra/hessian_factorization.h"
#include "sapcontact/solver/sap/sap_model.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver_parameters.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact {

/// Perturbations of the problem's data (forward mode), or gradients of a
/// scalar loss with respect to the same data (reverse mode). Vectors of size
/// 0 mean zero.
struct SapParameterVector {
  /// v* of every tree, stacked as SapProblem velocities (nv) [m/s, rad/s].
  Eigen::VectorXd v_star;
  /// Per contact (nc): phi0 [m], stiffness k [N/m], the model's dissipation
  /// (tau_d [s] for sap, the Hunt-Crossley d [s/m] otherwise), friction mu.
  Eigen::VectorXd phi0;
  Eigen::VectorXd stiffness;
  Eigen::VectorXd dissipation;
  Eigen::VectorXd friction;
  /// Per contact (nc): the normal velocity at the start of the step
  /// Contact::normal_velocity0 [m/s] (the lagged and similar models'
  /// friction bound; the sap model does not read it).
  Eigen::VectorXd normal_velocity0;
  /// The time step dt [s] (every constraint's regularization and v_hat;
  /// v* and A are data, held fixed).
  double time_step{0.0};
  /// Per row of the limits (LimitConstraint::g0 stacked in problem order)
  /// and of the holonomic constraints: the gap g0 [m or rad].
  Eigen::VectorXd limit_g0;
  Eigen::VectorXd holonomic_g0;
  /// Per row of the actuation constraints (ActuationConstraint's vectors
  /// stacked in problem order): target [rad or m], target velocity,
  /// feed-forward effort [N m or N], gains kp, kd and the effort limit.
  Eigen::VectorXd actuation_target;
  Eigen::VectorXd actuation_target_velocity;
  Eigen::VectorXd actuation_feedforward;
  Eigen::VectorXd actuation_kp;
  Eigen::VectorXd actuation_kd;
  Eigen::VectorXd actuation_effort_limit;
};

/// The change of a solve's outputs (forward mode) or their loss gradients
/// (reverse mode inputs).
struct SapSolutionVector {
  Eigen::VectorXd v;      ///< nv [m/s, rad/s]
  Eigen::VectorXd gamma;  ///< 3 nc, contact-major (n, t1, t2) [N*s]
};

/// Full Jacobians of v and gamma. Column j of dv_dphi0 is dv/dphi0_j, etc.
struct SapSolutionJacobians {
  Eigen::MatrixXd dv_dvstar;            ///< nv x nv
  Eigen::MatrixXd dv_dphi0;             ///< nv x nc
  Eigen::MatrixXd dv_dstiffness;        ///< nv x nc
  Eigen::MatrixXd dv_ddissipation;      ///< nv x nc
  Eigen::MatrixXd dv_dfriction;         ///< nv x nc
  Eigen::VectorXd dv_dtime_step;        ///< nv
  Eigen::MatrixXd dgamma_dvstar;        ///< 3 nc x nv
  Eigen::MatrixXd dgamma_dphi0;         ///< 3 nc x nc
  Eigen::MatrixXd dgamma_dstiffness;    ///< 3 nc x nc
  Eigen::MatrixXd dgamma_ddissipation;  ///< 3 nc x nc
  Eigen::MatrixXd dgamma_dfriction;     ///< 3 nc x nc
  Eigen::VectorXd dgamma_dtime_step;    ///< 3 nc
  /// With respect to the rows' parameters (SapParameterVector's order):
  /// nv x rows and 3 nc x rows of that kind.
  Eigen::MatrixXd dv_dlimit_g0, dgamma_dlimit_g0;
  Eigen::MatrixXd dv_dholonomic_g0, dgamma_dholonomic_g0;
  Eigen::MatrixXd dv_dactuation_target, dgamma_dactuation_target;
  Eigen::MatrixXd dv_dactuation_target_velocity,
      dgamma_dactuation_target_velocity;
  Eigen::MatrixXd dv_dactuation_feedforward, dgamma_dactuation_feedforward;
  Eigen::MatrixXd dv_dactuation_kp, dgamma_dactuation_kp;
  Eigen::MatrixXd dv_dactuation_kd, dgamma_dactuation_kd;
  Eigen::MatrixXd dv_dactuation_effort_limit, dgamma_dactuation_effort_limit;
};

/// Where each contact's derivative is taken.
struct SapContactRegion {
  ProjectionRegion region{ProjectionRegion::kNoContact};
  /// Change of the contact velocity [m/s] that would move the contact into
  /// another region (ContactImpulsePartials::boundary_distance).
  double boundary_distance{0.0};
  /// The near-rigid floor sets the normal compliance: d/d stiffness is 0.
  bool near_rigid{false};
};

/// The linearization of one solve at its solution.
class SapSolverDerivatives {
 public:
  /// Linearizes at the solution v (nv, problem order) of `problem` solved
  /// with `parameters` (their regularization and linear solver are used):
  /// builds the model, evaluates G at v and factors H once.
  /// @throws std::invalid_argument for an invalid problem, a v of the wrong
  ///         size or with a non-finite entry, or a Hessian that is not
  ///         positive definite.
  SapSolverDerivatives(const SapProblem& problem, const Eigen::VectorXd& v,
                       const SapSolverParameters& parameters = {});
  /// The same at results.v. @throws std::invalid_argument if the solve did
  /// not converge (the implicit function theorem needs the optimum).
  SapSolverDerivatives(const SapProblem& problem,
                       const SapSolverResults& results,
                       const SapSolverParameters& parameters = {});
  ~SapSolverDerivatives();
  SapSolverDerivatives(const SapSolverDerivatives&) = delete;
  SapSolverDerivatives& operator=(const SapSolverDerivatives&) = delete;

  int num_velocities() const { return nv_; }
  int num_contacts() const { return nc_; }

  /// Forward mode: (dv, dgamma) for the perturbation `d` (one solve).
  /// @throws std::invalid_argument on a vector of the wrong size.
  SapSolutionVector Apply(const SapParameterVector& d) const;
  /// Reverse mode: given dL/dv (nv) and dL/dgamma (3 nc) of a scalar loss L
  /// (either may be empty: zero), dL/dtheta for every parameter (one solve).
  SapParameterVector ApplyTranspose(const SapSolutionVector& dL) const;
  /// Forward mode along a curve of problems through this one: the solution's
  /// derivative d/de at e = 0 for problems P(e) with P(h) = plus and P(-h) =
  /// minus. The data's derivative is their central difference (A, v*, the
  /// Jacobian blocks, phi0, bias velocities, v_n0, and what the model makes
  /// of them: each contact's Delassus estimate w, each row's R, v_hat and
  /// bounds); the solution's response to it is exact (implicit function
  /// theorem). Contact parameters and dt are held. The simulator's step
  /// derivatives move the state along such curves (docs/theory.md §21).
  /// Either end may be the linearized problem itself (the object this was
  /// constructed with: a one-sided difference, whose model is not built
  /// again).
  /// @throws std::invalid_argument if plus or minus differs from the
  ///         linearized problem in structure (trees and their sizes,
  ///         contacts and their trees, constraint rows) or h <= 0.
  SapSolutionVector ApplyAlong(const SapProblem& plus, const SapProblem& minus,
                               double h) const;
  /// Every Jacobian (one back-substitution per column: nv + 4 nc + 1 +
  /// the rows' parameters).
  SapSolutionJacobians Jacobians() const;

  /// Per contact: its region, distance to a region boundary, near-rigid.
  const std::vector<SapContactRegion>& regions() const { return regions_; }
  /// Scaled residual of the optimality condition at v (as
  /// SapSolverStatistics::final_scaled_residual): the derivatives are those
  /// of the optimum to about this relative accuracy.
  double scaled_residual() const { return scaled_residual_; }

 private:
  // Throws if a row parameter vector has the wrong size.
  void CheckRows(const SapParameterVector& d) const;
  // Solves H x = b in the model's (participating) velocities.
  void Solve(Eigen::VectorXd* b) const;
  // Per contact: d gamma_k / d theta at fixed v_c, as the 3-vector for the
  // perturbation d (contacts, then the rows' dt term); into psi (model rows).
  void ParameterImpulses(const SapParameterVector& d,
                         Eigen::VectorXd* psi) const;

  const SapProblem& problem_;
  RegularizationParameters regularization_;
  SapModel model_;
  int nv_{0}, nc_{0};
  Eigen::VectorXd v_model_, v_c_, gamma_;
  SapModel::ConstraintHessians G_;
  std::unique_ptr<HessianFactorization> factorization_;
  std::vector<ContactImpulsePartials> partials_;
  // Per row (model order: limits, holonomic, actuation): d gamma_row / d
  // dt and / d (its own parameter p) at fixed v_c, which parameter vector
  // p belongs to (0 limit g0, 1 holonomic g0, 2 actuation) and the row's
  // index in it.
  Eigen::VectorXd row_dt_;
  struct RowPartials {
    int kind{0};
    int index{0};
    double g0{0.0};
    double target{0.0}, target_velocity{0.0}, feedforward{0.0}, kp{0.0},
        kd{0.0}, effort_limit{0.0};
  };
  std::vector<RowPartials> row_partials_;
  int num_rows_[3] = {0, 0, 0};
  std::vector<SapContactRegion> regions_;
  double scaled_residual_{0.0};
};

}  // namespace sapcontact
