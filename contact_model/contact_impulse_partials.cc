#include "sapcontact/contact_model/contact_impulse_partials.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sapcontact/contact_model/hunt_crossley.h"

namespace sapcontact {
namespace {

// Columns of the 3 x 7 Jacobian d gamma / d theta.
enum Parameter {
  kPhi0 = 0,
  kStiffness,
  kDissipation,
  kFriction,
  kTimeStep,
  kDelassus,
  kNormalVelocity0,
  kNumParameters
};

// d (scalar) / d theta.
using ParameterRow = Eigen::Matrix<double, 1, kNumParameters>;
// d gamma / d theta.
using Jacobian = Eigen::Matrix<double, kContactDim, kNumParameters>;

ParameterRow Unit(Parameter p) {
  ParameterRow r = ParameterRow::Zero();
  r(p) = 1.0;
  return r;
}

// The SAP cone (docs/theory.md §3, §4). Fills *J, region, boundary_distance
// and near_rigid.
void SapPartials(const ContactConstraint& constraint,
                 const ContactParameters& params,
                 const RegularizationParameters& reg, double dt, double w,
                 double phi0, const Vector3& v_c, Jacobian* J,
                 ContactImpulsePartials* out) {
  const ContactRegularization& r = constraint.regularization();
  const ContactConstraintState state = constraint.Evaluate(v_c, false);
  out->region = state.region;
  out->near_rigid = r.near_rigid;

  const double mu = r.mu;
  const double R_n = r.R_n;
  const double rho = r.R_t / R_n;
  const double y_n = state.y(kNormal);
  const Vector2 y_t = Tangential(state.y);
  const double eps = reg.soft_norm_tolerance;
  const double y_r = std::sqrt(y_t.squaredNorm() + eps * eps);

  // Region boundaries in v_c space: I/II f1 = y_r - mu y_n, II/III f3 = y_n +
  // mu rho y_r, with gradients (mu / R_n, -t_hat / R_t) and -(1, mu t_hat) /
  // R_n (||t_hat|| <= 1).
  const double f1 = y_r - mu * y_n;
  const double f3 = y_n + mu * rho * y_r;
  const double L1 = std::sqrt(mu * mu / (R_n * R_n) + 1.0 / (r.R_t * r.R_t));
  const double L3 = std::sqrt(1.0 + mu * mu) / R_n;
  out->boundary_distance = std::min(std::abs(f1) / L1, std::abs(f3) / L3);

  J->setZero();
  if (state.region == ProjectionRegion::kNoContact) return;

  // v_hat_n = -phi0 / T, T = dt + tau_d; -phi0 / dt for a speculative
  // contact (phi0 > 0, the branch ComputeRegularization takes).
  const double T = dt + params.dissipation_time_scale;
  ParameterRow dv_hat = ParameterRow::Zero();
  if (phi0 > 0.0) {  // NormalStabilizationVelocity's branches
    dv_hat(kPhi0) = -1.0 / dt;
    dv_hat(kTimeStep) = -r.v_hat_n / dt;
  } else {
    dv_hat(kPhi0) = -1.0 / T;
    dv_hat(kDissipation) = -r.v_hat_n / T;
    dv_hat(kTimeStep) = -r.v_hat_n / T;
  }
  // R_n = 1 / (dt k T) on the compliant branch, the floor beta^2 w / (4 pi^2)
  // else; R_t = sigma w.
  ParameterRow dR_n = ParameterRow::Zero();
  if (r.near_rigid) {
    dR_n(kDelassus) = R_n / w;
  } else {
    dR_n(kStiffness) = -R_n / params.stiffness;
    dR_n(kDissipation) = -R_n / T;
    dR_n(kTimeStep) = -R_n * (1.0 / dt + 1.0 / T);
  }
  ParameterRow dR_t = ParameterRow::Zero();
  dR_t(kDelassus) = reg.friction_regularization;
  const ParameterRow dy_n = (dv_hat - y_n * dR_n) / R_n;
  // y_t = -v_t / R_t, y_r = sqrt(||y_t||^2 + eps^2).
  const Eigen::Matrix<double, 2, kNumParameters> dy_t = -(y_t / r.R_t) * dR_t;
  const ParameterRow dy_r = (y_t.transpose() * dy_t) / y_r;

  if (state.region == ProjectionRegion::kStiction) {  // gamma = y.
    J->row(kNormal) = dy_n;
    J->bottomRows<2>() = dy_t;
    return;
  }

  // Region II.
  const double D = 1.0 + mu * mu * rho;
  const double gamma_n = state.gamma(kNormal);
  const ParameterRow drho = (dR_t - rho * dR_n) / R_n;
  ParameterRow dgamma_n =
      dy_n / D + (mu * (y_r - mu * gamma_n) / D) * drho + (mu * rho / D) * dy_r;
  dgamma_n(kFriction) += rho * (y_r - 2.0 * mu * gamma_n) / D;
  // t_hat = y_t / y_r.
  const Vector2 t_hat = y_t / y_r;
  const Eigen::Matrix<double, 2, kNumParameters> dt_hat =
      (dy_t - t_hat * dy_r) / y_r;
  J->row(kNormal) = dgamma_n;
  J->bottomRows<2>() = t_hat * (gamma_n * Unit(kFriction) + mu * dgamma_n) +
                       (mu * gamma_n) * dt_hat;
}

// The Hunt-Crossley models (docs/theory.md §18). Fills *J, region,
// boundary_distance and near_rigid.
void HuntCrossleyPartials(const ContactConstraint& constraint,
                          const ContactParameters& params,
                          const RegularizationParameters& reg, double dt,
                          double w, double phi0, double v_n0,
                          const Vector3& v_c, Jacobian* J,
                          ContactImpulsePartials* out) {
  const HuntCrossleyConstants& c = constraint.hunt_crossley();
  const ContactConstraintState state = constraint.Evaluate(v_c, false);
  out->region = state.region;
  out->near_rigid = c.near_rigid;

  const double mu = c.mu;
  const double k = c.k;  // k_eff
  const double d = c.d;
  // k_eff: the stiffness, or the floor 4 pi^2 / (beta^2 w dt^2) (as the
  // forward code's near_rigid flag says).
  ParameterRow dk = ParameterRow::Zero();
  if (c.near_rigid) {
    dk(kTimeStep) = -2.0 * k / dt;
    dk(kDelassus) = -k / w;
  } else {
    dk(kStiffness) = 1.0;
  }
  // f_e0 = -k_eff phi0.
  const ParameterRow df_e0 = -phi0 * dk - k * Unit(kPhi0);

  // The previous step's impulse, as ComputeHuntCrossley() computes it:
  // elastic0 = dt (f_e0)_+, damping0 = (1 - d v_n0)_+, n0 = elastic0
  // min(damping0, 2), eps_s = max(v_s, mu R_t elastic0 damping0).
  const double elastic0 = dt * std::max(0.0, c.f_e0);
  ParameterRow delastic0 = ParameterRow::Zero();
  if (0.0 < c.f_e0) delastic0 = dt * df_e0 + c.f_e0 * Unit(kTimeStep);
  const double damping0 = std::max(0.0, 1.0 - d * v_n0);
  ParameterRow ddamping0 = ParameterRow::Zero();
  if (0.0 < 1.0 - d * v_n0) {
    ddamping0(kDissipation) = -v_n0;
    ddamping0(kNormalVelocity0) = -d;
  }
  const bool capped = 2.0 < damping0;
  const double n0 = elastic0 * (capped ? 2.0 : damping0);
  const ParameterRow dn0 =
      delastic0 * (capped ? 2.0 : damping0) +
      (capped ? ParameterRow::Zero() : ParameterRow(elastic0 * ddamping0));
  // R_t = sigma w.
  const double R_t = reg.friction_regularization * w;
  ParameterRow dR_t = ParameterRow::Zero();
  dR_t(kDelassus) = reg.friction_regularization;
  ParameterRow deps = ParameterRow::Zero();
  if (params.stiction_tolerance < c.mu * R_t * elastic0 * damping0) {
    deps = R_t * (elastic0 * damping0 * Unit(kFriction) +
                  mu * damping0 * delastic0 + mu * elastic0 * ddamping0) +
           (mu * elastic0 * damping0) * dR_t;
  }

  // Soft norm of the slip (as EvaluateHuntCrossley()).
  const double eps = c.eps_s;
  const Vector2 v_t = Tangential(v_c);
  const double slip2 = v_t.squaredNorm();
  const double s = std::sqrt(slip2 + eps * eps);
  const double soft_norm = slip2 / (s + eps);
  const Vector2 t_hat = v_t / s;
  // d soft_norm / d eps_s and d t_hat / d eps_s = -t_hat eps_s / s^2.
  const double dsoft_deps = eps / s - 1.0;
  const double dthat_deps = -eps / (s * s);

  // n(v) = dt P Q, P = f_e0 - dt k_eff v, Q = 1 - d v, for v < v_hat; its
  // partials at fixed v and g = -dn/dv.
  auto normal = [&](double v, double* n, double* g, ParameterRow* dn) {
    HuntCrossleyNormalImpulse(c, v, n, g);
    dn->setZero();
    if (!(c.v_hat - v > 0.0)) return;
    const double P = c.f_e0 - dt * k * v;
    const double Q = 1.0 - d * v;
    const ParameterRow dP = df_e0 - (dt * v) * dk - (k * v) * Unit(kTimeStep);
    const ParameterRow dQ = -v * Unit(kDissipation);
    *dn = dt * (Q * dP + P * dQ) + (P * Q) * Unit(kTimeStep);
  };

  double n, g;
  ParameterRow dn;
  double kink;  // |f| / L of n's kink
  if (c.model == ContactModel::kSimilar) {
    const double z = v_c(kNormal) - mu * soft_norm;
    const ParameterRow dz =
        -soft_norm * Unit(kFriction) - (mu * dsoft_deps) * deps;
    normal(z, &n, &g, &dn);
    const ParameterRow dgamma_n = dn - g * dz;
    J->row(kNormal) = dgamma_n;
    // gamma_t = -mu n t_hat.
    J->bottomRows<2>() = -t_hat * (n * Unit(kFriction) + mu * dgamma_n +
                                   (mu * n * dthat_deps) * deps);
    kink = std::abs(c.v_hat - z) / std::sqrt(1.0 + mu * mu);
  } else {
    normal(v_c(kNormal), &n, &g, &dn);
    J->row(kNormal) = dn;
    // gamma_t = -F t_hat, F = mu n0.
    const double F = mu * n0;
    const ParameterRow dF = n0 * Unit(kFriction) + mu * dn0;
    J->bottomRows<2>() = -t_hat * (dF + (F * dthat_deps) * deps);
    kink = std::abs(c.v_hat - v_c(kNormal));
  }
  out->boundary_distance = kink;
  if (state.region != ProjectionRegion::kNoContact) {
    out->boundary_distance = std::min(kink, std::abs(std::sqrt(slip2) - eps));
  }
}

}  // namespace

ContactImpulsePartials ComputeContactImpulsePartials(
    const ContactParameters& params, const RegularizationParameters& reg,
    double dt, double w, double phi0, double v_n0, const Vector3& v_c) {
  if (!v_c.allFinite()) {
    throw std::invalid_argument(
        "ComputeContactImpulsePartials: the constraint velocity v_c must be "
        "finite");
  }
  // Make() validates and computes every constant exactly as the forward code.
  const ContactConstraint constraint =
      ContactConstraint::Make(params, reg, dt, w, phi0, v_n0);
  ContactImpulsePartials out;
  Jacobian J;
  if (params.model == ContactModel::kSap) {
    SapPartials(constraint, params, reg, dt, w, phi0, v_c, &J, &out);
  } else {
    HuntCrossleyPartials(constraint, params, reg, dt, w, phi0, v_n0, v_c, &J,
                         &out);
  }
  out.phi0 = J.col(kPhi0);
  out.stiffness = J.col(kStiffness);
  out.dissipation = J.col(kDissipation);
  out.friction = J.col(kFriction);
  out.time_step = J.col(kTimeStep);
  out.delassus = J.col(kDelassus);
  out.normal_velocity0 = J.col(kNormalVelocity0);
  return out;
}

}  // namespace sapcontact
