// Regularization of the rows of joint limits, holonomic constraints and
// implicit PD actuation for one time step (docs/theory.md §17): R and v_hat
// of each ConstraintRow from the physical parameters, the step dt and the
// row's Delassus diagonal w = J_i A^-1 J_i' [1/kg or 1/(kg m^2)], with a
// near-rigid floor R >= beta^2 w / (4 pi^2) as for contact (SAP paper §V-B).
#pragma once

#include <string>

#include "sapcontact/contact_model/constraint_row.h"

namespace sapcontact {

/// A unilateral row g >= 0 (a joint limit): g0 is the gap at the start of
/// the step [m or rad] and the row's velocity is dg/dt. Impulse >= 0.
///   R = max(beta^2 w / (4 pi^2), 1 / (dt k (dt + tau))),
///   v_hat = -g0 / (dt + tau).
/// k = +inf (rigid) uses the floor alone; tau < 0 means tau = dt.
/// @throws std::invalid_argument naming `context` and the field on NaN,
///         k <= 0, w <= 0 or non-finite, or R = 0 (k = inf with beta = 0).
ConstraintRow LimitRow(double g0, double stiffness,
                       double dissipation_time_scale, double dt, double w,
                       double beta, const std::string& context = "");

/// A bilateral row g = 0 (a weld's component, a coupler) with impulse bounds:
///   R = max(1 / (dt (dt + tau) k), beta^2 w / (4 pi^2)), and tau <- dt when
///   the floor wins; v_hat = -g0 / (dt + tau).
/// @throws std::invalid_argument as LimitRow, and on lower > upper.
ConstraintRow HolonomicRow(double g0, double stiffness, double relaxation_time,
                           double dt, double w, double beta, double lower,
                           double upper, const std::string& context = "");

/// Implicit PD actuation of one coordinate (position q0 at the start of the
/// step, velocity v at its end): the effort
///   u = clamp(-kp (q0 + dt v - q_d) - kd (v - v_d) + u0, -e, e)
/// gives the impulse dt u, i.e. R = 1 / (dt (dt kp + kd)), v_hat =
/// (kp (q_d - q0) + kd v_d + u0) / (dt kp + kd), bounds -+ dt e. If R falls
/// below the floor beta^2 w / (4 pi^2), kp and kd are scaled down together
/// to meet it. @throws std::invalid_argument on kp < 0, kd < 0, kp + kd = 0,
/// e <= 0 or NaN input.
ConstraintRow ActuationRow(double q0, double q_d, double v_d, double u0,
                           double kp, double kd, double effort_limit, double dt,
                           double w, double beta,
                           const std::string& context = "");

/// The derivatives of a row's R, v_hat and impulse bounds with respect to
/// one parameter (per unit of it), as the builders above compute them: the
/// branch they take (compliant or near-rigid floor) is differentiated, so
/// the value is one-sided where the two meet. Used by the solve's
/// derivatives (solver/sap/sap_solver_derivatives.h; docs/theory.md §20).
struct ConstraintRowDerivative {
  double R{0.0};
  double v_hat{0.0};
  double lower{0.0};
  double upper{0.0};
};
/// d/d dt of LimitRow's constants (same arguments, already validated).
ConstraintRowDerivative LimitRowTimeStepDerivative(
    double g0, double stiffness, double dissipation_time_scale, double dt,
    double w, double beta);
/// d/d dt of HolonomicRow's constants (bounds do not depend on dt).
ConstraintRowDerivative HolonomicRowTimeStepDerivative(double g0,
                                                       double stiffness,
                                                       double relaxation_time,
                                                       double dt, double w,
                                                       double beta);
/// d/d g0 of LimitRow's constants (v_hat = -g0 / (dt + tau)).
ConstraintRowDerivative LimitRowGapDerivative(double dissipation_time_scale,
                                              double dt);
/// d/d g0 of HolonomicRow's constants (tau <- dt on the floor).
ConstraintRowDerivative HolonomicRowGapDerivative(double stiffness,
                                                  double relaxation_time,
                                                  double dt, double w,
                                                  double beta);
/// d/d (each argument) of ActuationRow's constants: the time step dt,
/// target q_d [rad or m], target velocity v_d, feed-forward u0, gains kp
/// and kd, effort limit e (the bounds' terms zero when e is infinite); on the
/// near-rigid floor (gains scaled together) R is the floor's and v_hat = (kp
/// (q_d - q0) + kd v_d) / (dt kp + kd) + u0 dt floor.
struct ActuationRowDerivatives {
  ConstraintRowDerivative time_step, target, target_velocity, feedforward, kp,
      kd, effort_limit;
};
ActuationRowDerivatives ActuationRowParameterDerivatives(
    double q0, double q_d, double v_d, double u0, double kp, double kd,
    double effort_limit, double dt, double w, double beta);
/// d gamma / d dt at fixed row velocity v of `row` (ConstraintRow::Evaluate)
/// whose constants change by `d` per unit of dt: inside the bounds
/// (dv_hat - y dR) / R with y = (v_hat - v) / R, at a bound that bound's
/// derivative.
double RowImpulseDerivative(const ConstraintRow& row,
                            const ConstraintRowDerivative& d, double v);

}  // namespace sapcontact
