#include "sapcontact/contact_model/contact_constraint.h"

namespace sapcontact {

ContactConstraint::ContactConstraint(
    const ContactRegularization& regularization, double epsilon_s)
    : reg_(regularization),
      cone_(regularization.mu, regularization.R_n, regularization.R_t,
            epsilon_s),
      inverse_R_n_(1.0 / regularization.R_n),
      inverse_R_t_(1.0 / regularization.R_t) {}

ContactConstraint::ContactConstraint(const HuntCrossleyConstants& hunt_crossley,
                                     double R_t)
    : model_(hunt_crossley.model), hc_(hunt_crossley) {
  reg_.R_n = 1.0 / (hunt_crossley.dt * hunt_crossley.dt * hunt_crossley.k);
  reg_.R_t = R_t;
  reg_.v_hat_n = hunt_crossley.v_hat;
  reg_.mu = hunt_crossley.mu;
  reg_.near_rigid = hunt_crossley.near_rigid;
  effective_stiffness_ = hunt_crossley.k;
}

ContactConstraint ContactConstraint::Make(const ContactParameters& params,
                                          const RegularizationParameters& reg,
                                          double dt, double w, double phi0,
                                          double v_n0,
                                          const std::string& context) {
  if (params.model == ContactModel::kSap) {
    ContactConstraint c(
        ComputeRegularization(params, reg, dt, w, phi0, context),
        reg.soft_norm_tolerance);
    const double R_n = c.reg_.R_n;
    c.effective_stiffness_ =
        1.0 / (dt * (dt + params.dissipation_time_scale) * R_n);
    return c;
  }
  return ContactConstraint(
      ComputeHuntCrossley(params, reg, dt, w, phi0, v_n0, context),
      reg.friction_regularization * w);
}

void ContactConstraint::EvaluateAlong(const Vector3& v_c, const Vector3& dv_c,
                                      ContactConstraintRayState* state) const {
  if (model_ != ContactModel::kSap) {
    Matrix3 G;
    ProjectionRegion region;
    EvaluateHuntCrossley(hc_, v_c, &state->gamma, &G, &state->cost, &region);
    state->curvature = dv_c.dot(G * dv_c);
    return;
  }
  const Vector3 y(-inverse_R_n_ * (v_c(kNormal) - reg_.v_hat_n),
                  -inverse_R_t_ * v_c(kTangent1),
                  -inverse_R_t_ * v_c(kTangent2));
  // G dv_c = (dgamma/dy) R^-1 dv_c.
  const Vector3 u(inverse_R_n_ * dv_c(kNormal), inverse_R_t_ * dv_c(kTangent1),
                  inverse_R_t_ * dv_c(kTangent2));
  FrictionConeProjection p;
  ProjectOntoFrictionCone(y, cone_, false, &u, &p);
  state->gamma = p.gamma;
  state->cost = p.cost;
  state->curvature = dv_c.dot(p.dgamma_along);
}

void ContactConstraint::EvaluateAsStiction(const Vector3& v_c, Vector3* y,
                                           Matrix3* G) const {
  if (model_ != ContactModel::kSap) {
    // The friction band's linearization at zero slip: friction
    // -mu N v_t / eps_s with N the friction's normal impulse (n0 for
    // lagged, n(v_n) for similar), Hessian mu N / eps_s; the normal part
    // as is (docs/theory.md §18).
    double n, g;
    HuntCrossleyNormalImpulse(hc_, v_c(kNormal), &n, &g);
    const double N = model_ == ContactModel::kLagged ? hc_.n0 : n;
    const double c = hc_.mu * N / hc_.eps_s;
    *y = Vector3(n, -c * v_c(kTangent1), -c * v_c(kTangent2));
    *G = Vector3(g, c, c).asDiagonal();
    return;
  }
  *y = Vector3(-inverse_R_n_ * (v_c(kNormal) - reg_.v_hat_n),
               -inverse_R_t_ * v_c(kTangent1), -inverse_R_t_ * v_c(kTangent2));
  *G = Vector3(inverse_R_n_, inverse_R_t_, inverse_R_t_).asDiagonal();
}

void ContactConstraint::Evaluate(const Vector3& v_c, bool with_hessian,
                                 ContactConstraintState* state) const {
  if (model_ != ContactModel::kSap) {
    EvaluateHuntCrossley(hc_, v_c, &state->gamma,
                         with_hessian ? &state->G : nullptr, &state->cost,
                         &state->region);
    state->y = state->gamma;
    return;
  }
  // y = -R^-1 (v_c - v_hat); v_hat has only a normal component.
  state->y(kNormal) = -inverse_R_n_ * (v_c(kNormal) - reg_.v_hat_n);
  state->y(kTangent1) = -inverse_R_t_ * v_c(kTangent1);
  state->y(kTangent2) = -inverse_R_t_ * v_c(kTangent2);
  FrictionConeProjection p;
  ProjectOntoFrictionCone(state->y, cone_, with_hessian, nullptr, &p);
  state->gamma = p.gamma;
  state->cost = p.cost;
  state->region = p.region;
  if (with_hessian) {
    // G = -dgamma/dv_c = dgamma/dy * R^-1 (column scaling).
    state->G.col(kNormal) = p.dgamma_dy.col(kNormal) * inverse_R_n_;
    state->G.col(kTangent1) = p.dgamma_dy.col(kTangent1) * inverse_R_t_;
    state->G.col(kTangent2) = p.dgamma_dy.col(kTangent2) * inverse_R_t_;
  }
}

}  // namespace sapcontact
