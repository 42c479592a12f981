#include "sapcontact/contact_model/regime_estimates.h"

#include <cmath>
#include <limits>

namespace sapcontact {
namespace {
constexpr double kFourPi2 = 4.0 * M_PI * M_PI;
}

double RestingPenetration(double mass, double g, int n, double dt, double tau_d,
                          double R_n) {
  return mass * g / n * dt * (dt + tau_d) * R_n;
}

double CompliantRestingPenetration(double mass, double g, int n,
                                   double stiffness) {
  return mass * g / (n * stiffness);
}

double NearRigidRestingPenetration(double mass, double g, int n, double dt,
                                   double tau_d, double beta, double w) {
  return RestingPenetration(mass, g, n, dt, tau_d, beta * beta * w / kFourPi2);
}

double StictionSlipVelocity(double R_t, double friction_impulse) {
  return R_t * std::abs(friction_impulse);
}

double PointMassStictionSlipBound(double sigma, double mu, double g,
                                  double dt) {
  return sigma * mu * g * dt;
}

double MaxTangentialToNormalRegularizationRatio(double beta, double sigma) {
  if (beta == 0.0) return std::numeric_limits<double>::infinity();
  return kFourPi2 * sigma / (beta * beta);
}

double NearRigidCrossoverStiffness(double dt, double tau_d, double beta,
                                   double w) {
  return kFourPi2 / (dt * (dt + tau_d) * beta * beta * w);
}

}  // namespace sapcontact
