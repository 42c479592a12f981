#include "sapcontact/contact_model/constraint_regularization.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void Fail(const std::string& context, const std::string& what) {
  throw std::invalid_argument(context.empty() ? what : context + ": " + what);
}

std::string Value(const char* name, double v) {
  std::ostringstream os;
  os << name << " = " << v;
  return os.str();
}

void CheckCommon(double dt, double w, double beta, const std::string& context) {
  if (!(dt > 0) || !std::isfinite(dt))
    Fail(context, Value("dt", dt) + " (finite, > 0)");
  if (!(w > 0) || !std::isfinite(w)) {
    Fail(context,
         "invalid Delassus estimate " + Value("w", w) + " (finite, > 0)");
  }
  if (!(beta >= 0) || !std::isfinite(beta)) {
    Fail(context, Value("near-rigid threshold beta", beta) + " (finite, >= 0)");
  }
}

// The compliant regularization 1 / (dt k T) of a row with stiffness k and
// T = dt + its time scale; 0 for k = inf (rigid: the floor alone).
double Compliant(double stiffness, double dt, double T) {
  return std::isinf(stiffness) ? 0.0 : 1.0 / (dt * stiffness * T);
}

double Floor(double w, double beta) {
  return beta * beta * w / (4.0 * kPi * kPi);
}

ConstraintRow Row(double R, double v_hat, double lower, double upper,
                  bool near_rigid) {
  ConstraintRow row;
  row.R = R;
  row.inverse_R = 1.0 / R;
  row.v_hat = v_hat;
  row.lower = lower;
  row.upper = upper;
  row.near_rigid = near_rigid;
  return row;
}

}  // namespace

ConstraintRow LimitRow(double g0, double stiffness,
                       double dissipation_time_scale, double dt, double w,
                       double beta, const std::string& context) {
  CheckCommon(dt, w, beta, context);
  if (!std::isfinite(g0)) Fail(context, Value("gap g0", g0) + " (finite)");
  if (!(stiffness > 0))
    Fail(context, Value("stiffness", stiffness) + " (> 0 or inf)");
  if (std::isnan(dissipation_time_scale) ||
      std::isinf(dissipation_time_scale)) {
    Fail(context, Value("dissipation_time_scale", dissipation_time_scale) +
                      " (finite; < 0 means dt)");
  }
  const double tau = dissipation_time_scale < 0 ? dt : dissipation_time_scale;
  const double compliant = Compliant(stiffness, dt, dt + tau);
  const double floor = Floor(w, beta);
  const double R = std::max(compliant, floor);
  if (!(R > 0)) {
    Fail(context,
         "R = 0: a rigid limit (stiffness inf) needs a near-rigid "
         "threshold beta > 0");
  }
  return Row(R, -g0 / (dt + tau), 0.0, std::numeric_limits<double>::infinity(),
             floor >= compliant);
}

ConstraintRow HolonomicRow(double g0, double stiffness, double relaxation_time,
                           double dt, double w, double beta, double lower,
                           double upper, const std::string& context) {
  CheckCommon(dt, w, beta, context);
  if (!std::isfinite(g0)) Fail(context, Value("g0", g0) + " (finite)");
  if (!(stiffness > 0))
    Fail(context, Value("stiffness", stiffness) + " (> 0 or inf)");
  if (!(relaxation_time >= 0) || !std::isfinite(relaxation_time)) {
    Fail(context,
         Value("relaxation_time", relaxation_time) + " (finite, >= 0)");
  }
  if (std::isnan(lower) || std::isnan(upper) || !(lower <= upper)) {
    Fail(context, "impulse bounds " + Value("lower", lower) + ", " +
                      Value("upper", upper) + " (lower <= upper)");
  }
  double tau = relaxation_time;
  const double compliant = Compliant(stiffness, dt, dt + tau);
  const double floor = Floor(w, beta);
  const bool near_rigid = floor >= compliant;
  const double R = near_rigid ? floor : compliant;
  if (!(R > 0)) {
    Fail(context,
         "R = 0: a rigid constraint (stiffness inf) needs a "
         "near-rigid threshold beta > 0");
  }
  if (near_rigid) tau = dt;
  return Row(R, -g0 / (dt + tau), lower, upper, near_rigid);
}

ConstraintRow ActuationRow(double q0, double q_d, double v_d, double u0,
                           double kp, double kd, double effort_limit, double dt,
                           double w, double beta, const std::string& context) {
  CheckCommon(dt, w, beta, context);
  if (!std::isfinite(q0) || !std::isfinite(q_d) || !std::isfinite(v_d) ||
      !std::isfinite(u0)) {
    Fail(context,
         "position, target, target velocity and feed-forward must be "
         "finite");
  }
  if (!(kp >= 0) || !std::isfinite(kp))
    Fail(context, Value("kp", kp) + " (finite, >= 0)");
  if (!(kd >= 0) || !std::isfinite(kd))
    Fail(context, Value("kd", kd) + " (finite, >= 0)");
  if (!(kp + kd > 0)) Fail(context, "kp + kd must be > 0");
  if (!(effort_limit > 0)) {
    Fail(context, Value("effort_limit", effort_limit) + " (> 0 or inf)");
  }
  double c = dt * kp + kd;
  const double floor = Floor(w, beta);
  const bool near_rigid = 1.0 / (dt * c) < floor;
  if (near_rigid) {
    const double scale = 1.0 / (dt * c * floor);  // < 1
    kp *= scale;
    kd *= scale;
    c = dt * kp + kd;
  }
  const double R = 1.0 / (dt * c);
  const double v_hat = (kp * (q_d - q0) + kd * v_d + u0) / c;
  return Row(R, v_hat, -dt * effort_limit, dt * effort_limit, near_rigid);
}

ConstraintRowDerivative LimitRowTimeStepDerivative(
    double g0, double stiffness, double dissipation_time_scale, double dt,
    double w, double beta) {
  // tau < 0 means tau = dt: then d(dt + tau)/d dt = 2.
  const bool tau_is_dt = dissipation_time_scale < 0;
  const double tau = tau_is_dt ? dt : dissipation_time_scale;
  const double T = dt + tau, dT = tau_is_dt ? 2.0 : 1.0;
  const double compliant = Compliant(stiffness, dt, T);
  ConstraintRowDerivative d;
  if (!(Floor(w, beta) >= compliant)) {
    d.R = -compliant * (1.0 / dt + dT / T);
  }
  d.v_hat = g0 * dT / (T * T);
  return d;
}

ConstraintRowDerivative HolonomicRowTimeStepDerivative(double g0,
                                                       double stiffness,
                                                       double relaxation_time,
                                                       double dt, double w,
                                                       double beta) {
  const double compliant = Compliant(stiffness, dt, dt + relaxation_time);
  ConstraintRowDerivative d;
  if (Floor(w, beta) >= compliant) {
    // R is the floor (no dt); tau <- dt: v_hat = -g0 / (2 dt).
    d.v_hat = g0 / (2.0 * dt * dt);
  } else {
    const double T = dt + relaxation_time;
    d.R = -compliant * (1.0 / dt + 1.0 / T);
    d.v_hat = g0 / (T * T);
  }
  return d;
}

ConstraintRowDerivative LimitRowGapDerivative(double dissipation_time_scale,
                                              double dt) {
  const double tau = dissipation_time_scale < 0 ? dt : dissipation_time_scale;
  ConstraintRowDerivative d;
  d.v_hat = -1.0 / (dt + tau);
  return d;
}

ConstraintRowDerivative HolonomicRowGapDerivative(double stiffness,
                                                  double relaxation_time,
                                                  double dt, double w,
                                                  double beta) {
  const double compliant = Compliant(stiffness, dt, dt + relaxation_time);
  const double tau = Floor(w, beta) >= compliant ? dt : relaxation_time;
  ConstraintRowDerivative d;
  d.v_hat = -1.0 / (dt + tau);
  return d;
}

ActuationRowDerivatives ActuationRowParameterDerivatives(
    double q0, double q_d, double v_d, double u0, double kp, double kd,
    double effort_limit, double dt, double w, double beta) {
  const double c = dt * kp + kd;
  const double floor = Floor(w, beta);
  const double pd = kp * (q_d - q0) + kd * v_d;
  ActuationRowDerivatives d;
  d.target.v_hat = kp / c;
  d.target_velocity.v_hat = kd / c;
  if (1.0 / (dt * c) < floor) {
    // Gains scaled to the floor, s = 1 / (dt c floor): R = floor, v_hat =
    // pd / c + u0 dt floor.
    d.time_step.v_hat = -pd * kp / (c * c) + u0 * floor;
    d.feedforward.v_hat = dt * floor;
    d.kp.v_hat = ((q_d - q0) * c - pd * dt) / (c * c);
    d.kd.v_hat = (v_d * c - pd) / (c * c);
  } else {
    const double R = 1.0 / (dt * c);
    const double v_hat = (pd + u0) / c;
    d.time_step.R = -R * (1.0 / dt + kp / c);
    d.time_step.v_hat = -v_hat * kp / c;
    d.feedforward.v_hat = 1.0 / c;
    d.kp.R = -R * dt / c;
    d.kp.v_hat = (q_d - q0 - v_hat * dt) / c;
    d.kd.R = -R / c;
    d.kd.v_hat = (v_d - v_hat) / c;
  }
  if (std::isfinite(effort_limit)) {
    d.time_step.lower = -effort_limit;
    d.time_step.upper = effort_limit;
    d.effort_limit.lower = -dt;
    d.effort_limit.upper = dt;
  }
  return d;
}

double RowImpulseDerivative(const ConstraintRow& row,
                            const ConstraintRowDerivative& d, double v) {
  // The branches of ConstraintRow::Evaluate.
  const double y = (row.v_hat - v) * row.inverse_R;
  if (y > row.upper) return d.upper;
  if (y < row.lower) return d.lower;
  return (d.v_hat - y * d.R) * row.inverse_R;
}

}  // namespace sapcontact
