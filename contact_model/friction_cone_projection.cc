#include "sapcontact/contact_model/friction_cone_projection.h"

#include <cmath>

namespace sapcontact {

FrictionConeConstants::FrictionConeConstants(double mu_in, double R_n_in,
                                             double R_t_in, double epsilon_s_in)
    : mu(mu_in), R_n(R_n_in), R_t(R_t_in), epsilon_s(epsilon_s_in) {
  const double ratio = R_t / R_n;
  mu_ratio = mu * ratio;
  inverse_denominator = 1.0 / (1.0 + mu * mu * ratio);
}

void ProjectOntoFrictionCone(const Vector3& y, const FrictionConeConstants& c,
                             bool with_derivative, const Vector3* direction,
                             FrictionConeProjection* out) {
  const double mu = c.mu;
  const double y_n = y(kNormal);
  const Vector2 y_t = Tangential(y);
  const double y_r = std::sqrt(y_t.squaredNorm() + c.epsilon_s * c.epsilon_s);

  if (y_r <= mu * y_n) {  // Region I (closed): stiction.
    out->region = ProjectionRegion::kStiction;
    out->gamma = y;
    out->cost = 0.5 * (c.R_n * y_n * y_n + c.R_t * y_r * y_r);
    if (with_derivative) out->dgamma_dy.setIdentity();
    if (direction) out->dgamma_along = *direction;
    return;
  }
  if (y_n < -c.mu_ratio * y_r) {  // Region III (open polar cone).
    out->region = ProjectionRegion::kNoContact;
    out->gamma.setZero();  // dgamma/dy = 0, cost = 0.
    out->cost = 0.0;
    if (with_derivative) out->dgamma_dy.setZero();
    if (direction) out->dgamma_along.setZero();
    return;
  }

  // Region II: sliding, gamma on the cone surface. Here y_r > 0 (with
  // epsilon_s = 0, y_t = 0 cannot fall in region II).
  out->region = ProjectionRegion::kSliding;
  const double inv_den = c.inverse_denominator;
  const double gamma_n = (y_n + c.mu_ratio * y_r) * inv_den;
  const double inverse_y_r = 1.0 / y_r;
  const Vector2 t_hat = y_t * inverse_y_r;
  const double gamma_r = mu * gamma_n;
  out->gamma(kNormal) = gamma_n;
  out->gamma.segment<2>(kTangent1) = gamma_r * t_hat;
  out->cost = 0.5 * (c.R_n * gamma_n * gamma_n + c.R_t * gamma_r * gamma_r);
  // gamma_r / ||y_t||_s: the curvature across the slip.
  const double across = gamma_r * inverse_y_r;
  if (direction) {
    // The rows of dgamma_dy below applied to u: with s = t_hat' u_t,
    // (D u)_n = (u_n + mu ratio s) / (1 + mu_tilde^2) and
    // (D u)_t = mu (D u)_n t_hat + (gamma_r / y_r) (u_t - s t_hat).
    const Vector3& u = *direction;
    const Vector2 u_t = Tangential(u);
    const double s = t_hat.dot(u_t);
    const double along_n = (u(kNormal) + c.mu_ratio * s) * inv_den;
    out->dgamma_along(kNormal) = along_n;
    out->dgamma_along.segment<2>(kTangent1) =
        (mu * along_n) * t_hat + across * (u_t - s * t_hat);
  }
  if (with_derivative) {
    // d gamma_n / dy = [1, mu ratio t_hat'] / (1 + mu_tilde^2);
    // d t_hat / dy_t = (I - t_hat t_hat') / ||y_t||_s.
    const Eigen::Matrix2d P =
        Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose();
    Matrix3& D = out->dgamma_dy;
    D(kNormal, kNormal) = inv_den;
    D.block<1, 2>(kNormal, kTangent1) = (c.mu_ratio * inv_den) * t_hat;
    D.block<2, 1>(kTangent1, kNormal) = (mu * inv_den) * t_hat;
    D.block<2, 2>(kTangent1, kTangent1) =
        (mu * c.mu_ratio * inv_den) * t_hat * t_hat.transpose() + across * P;
  }
}

FrictionConeProjection ProjectOntoFrictionCone(const Vector3& y, double mu,
                                               double R_n, double R_t,
                                               double epsilon_s,
                                               bool with_derivative,
                                               const Vector3* direction) {
  FrictionConeProjection out;
  ProjectOntoFrictionCone(y, FrictionConeConstants(mu, R_n, R_t, epsilon_s),
                          with_derivative, direction, &out);
  return out;
}

}  // namespace sapcontact
