#include "sapcontact/contact_model/regularization.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sapcontact {

double DelassusDiagonalEstimate(const Matrix3& W_kk) {
  return W_kk.norm() / 3.0;  // Frobenius norm / 3 = RMS of the 9 entries.
}

double ContactRegularization::mu_tilde() const {
  return mu * std::sqrt(R_t / R_n);
}

double NormalStabilizationVelocity(double phi0, double dt, double tau_d) {
  // A speculative contact (phi0 > 0) pushes only once the step closes its
  // gap, phi0 + dt v_n < 0: dissipation does not act before the bodies
  // touch.
  return phi0 > 0.0 ? -phi0 / dt : -phi0 / (dt + tau_d);
}

ContactRegularization ComputeRegularization(const ContactParameters& params,
                                            const RegularizationParameters& reg,
                                            double dt, double w, double phi0,
                                            const std::string& context) {
  Validate(params, context);
  Validate(reg, context);
  ValidateTimeStep(dt, context);
  const std::string prefix = context.empty() ? "" : context + ": ";
  if (!(w > 0.0) || std::isinf(w)) {
    std::ostringstream os;
    os << prefix << "invalid Delassus estimate w = " << w
       << " (must be finite and > 0 1/kg)";
    throw std::invalid_argument(os.str());
  }
  if (!std::isfinite(phi0)) {
    std::ostringstream os;
    os << prefix << "invalid signed distance phi0 = " << phi0
       << " (must be finite)";
    throw std::invalid_argument(os.str());
  }

  const double beta = reg.near_rigid_threshold;
  const double four_pi2 = 4.0 * M_PI * M_PI;
  const double R_near_rigid = beta * beta / four_pi2 * w;
  const double tau = params.dissipation_time_scale;
  // 1/(dt k (dt+tau)) is exactly 0 for k = inf.
  const double R_compliant = 1.0 / (dt * params.stiffness * (dt + tau));

  ContactRegularization r;
  r.R_n = std::max(R_near_rigid, R_compliant);
  r.near_rigid = R_near_rigid >= R_compliant;
  r.R_t = reg.friction_regularization * w;
  r.v_hat_n = NormalStabilizationVelocity(phi0, dt, tau);
  r.mu = params.friction;
  if (!(r.R_n > 0.0) || !std::isfinite(r.R_n)) {
    std::ostringstream os;
    os << prefix << "normal regularization R_n = " << r.R_n
       << " is not positive: stiffness = " << params.stiffness
       << " with near_rigid_threshold (beta) = " << beta
       << " makes the contact exactly rigid, which SAP cannot represent; use "
          "beta > 0 or a finite stiffness";
    throw std::invalid_argument(os.str());
  }
  return r;
}

}  // namespace sapcontact
