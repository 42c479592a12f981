#include "sapcontact/contact_model/friction_cone_projection.h"

#include <cmath>

namespace sapcontact {

FrictionConeProjection ProjectOntoFrictionCone(const Vector3& y, double mu,
                                               double R_n, double R_t,
                                               double epsilon_s,
                                               bool with_derivative,
                                               const Vector3* direction) {
  FrictionConeProjection out;
  const double y_n = y(kNormal);
  const Vector2 y_t = Tangential(y);
  const double y_r = std::sqrt(y_t.squaredNorm() + epsilon_s * epsilon_s);
  const double ratio = R_t / R_n;  // R_t / R_n

  if (y_r <= mu * y_n) {  // Region I (closed): stiction.
    out.region = ProjectionRegion::kStiction;
    out.gamma = y;
    out.cost = 0.5 * (R_n * y_n * y_n + R_t * y_r * y_r);
    if (with_derivative) out.dgamma_dy.setIdentity();
    if (direction) out.dgamma_along = *direction;
    return out;
  }
  if (y_n < -mu * ratio * y_r) {  // Region III (open polar cone).
    out.region = ProjectionRegion::kNoContact;
    return out;  // gamma = 0, dgamma/dy = 0, cost = 0.
  }

  // Region II: sliding, gamma on the cone surface. Here y_r > 0 (with
  // epsilon_s = 0, y_t = 0 cannot fall in region II).
  out.region = ProjectionRegion::kSliding;
  const double mu_tilde2 = mu * mu * ratio;
  const double inv_den = 1.0 / (1.0 + mu_tilde2);
  const double gamma_n = (y_n + mu * ratio * y_r) * inv_den;
  const Vector2 t_hat = y_t / y_r;
  out.gamma(kNormal) = gamma_n;
  out.gamma.segment<2>(kTangent1) = mu * gamma_n * t_hat;
  const double gamma_r = mu * gamma_n;
  out.cost = 0.5 * (R_n * gamma_n * gamma_n + R_t * gamma_r * gamma_r);
  if (direction) {
    // The rows of dgamma_dy below applied to u: with s = t_hat' u_t,
    // (D u)_n = (u_n + mu ratio s) / (1 + mu_tilde^2) and
    // (D u)_t = mu (D u)_n t_hat + (gamma_r / y_r) (u_t - s t_hat).
    const Vector3& u = *direction;
    const Vector2 u_t = Tangential(u);
    const double s = t_hat.dot(u_t);
    const double along_n = (u(kNormal) + mu * ratio * s) * inv_den;
    out.dgamma_along(kNormal) = along_n;
    out.dgamma_along.segment<2>(kTangent1) =
        (mu * along_n) * t_hat + (gamma_r / y_r) * (u_t - s * t_hat);
  }
  if (with_derivative) {
    // d gamma_n / dy = [1, mu ratio t_hat'] / (1 + mu_tilde^2);
    // d t_hat / dy_t = (I - t_hat t_hat') / ||y_t||_s.
    const Eigen::Matrix2d P =
        Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose();
    Matrix3& D = out.dgamma_dy;
    D(kNormal, kNormal) = inv_den;
    D.block<1, 2>(kNormal, kTangent1) = (mu * ratio * inv_den) * t_hat;
    D.block<2, 1>(kTangent1, kNormal) = (mu * inv_den) * t_hat;
    D.block<2, 2>(kTangent1, kTangent1) =
        (mu * mu * ratio * inv_den) * t_hat * t_hat.transpose() +
        (gamma_r / y_r) * P;
  }
  return out;
}

}  // namespace sapcontact
