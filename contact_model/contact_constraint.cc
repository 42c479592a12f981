#include "sapcontact/contact_model/contact_constraint.h"

namespace sapcontact {

void ContactConstraint::EvaluateAlong(const Vector3& v_c, const Vector3& dv_c,
                                      ContactConstraintRayState* state) const {
  const double inv_Rn = 1.0 / reg_.R_n;
  const double inv_Rt = 1.0 / reg_.R_t;
  const Vector3 y(-inv_Rn * (v_c(kNormal) - reg_.v_hat_n),
                  -inv_Rt * v_c(kTangent1), -inv_Rt * v_c(kTangent2));
  // G dv_c = (dgamma/dy) R^-1 dv_c.
  const Vector3 u(inv_Rn * dv_c(kNormal), inv_Rt * dv_c(kTangent1),
                  inv_Rt * dv_c(kTangent2));
  const FrictionConeProjection p = ProjectOntoFrictionCone(
      y, reg_.mu, reg_.R_n, reg_.R_t, epsilon_s_, false, &u);
  state->gamma = p.gamma;
  state->cost = p.cost;
  state->curvature = dv_c.dot(p.dgamma_along);
}

void ContactConstraint::EvaluateAsStiction(const Vector3& v_c, Vector3* y,
                                           Matrix3* G) const {
  const double inv_Rn = 1.0 / reg_.R_n;
  const double inv_Rt = 1.0 / reg_.R_t;
  *y = Vector3(-inv_Rn * (v_c(kNormal) - reg_.v_hat_n),
               -inv_Rt * v_c(kTangent1), -inv_Rt * v_c(kTangent2));
  *G = Vector3(inv_Rn, inv_Rt, inv_Rt).asDiagonal();
}

void ContactConstraint::Evaluate(const Vector3& v_c, bool with_hessian,
                                 ContactConstraintState* state) const {
  const double inv_Rn = 1.0 / reg_.R_n;
  const double inv_Rt = 1.0 / reg_.R_t;
  // y = -R^-1 (v_c - v_hat); v_hat has only a normal component.
  state->y(kNormal) = -inv_Rn * (v_c(kNormal) - reg_.v_hat_n);
  state->y(kTangent1) = -inv_Rt * v_c(kTangent1);
  state->y(kTangent2) = -inv_Rt * v_c(kTangent2);
  const FrictionConeProjection p = ProjectOntoFrictionCone(
      state->y, reg_.mu, reg_.R_n, reg_.R_t, epsilon_s_, with_hessian);
  state->gamma = p.gamma;
  state->cost = p.cost;
  state->region = p.region;
  if (with_hessian) {
    // G = -dgamma/dv_c = dgamma/dy * R^-1 (column scaling).
    state->G.col(kNormal) = p.dgamma_dy.col(kNormal) * inv_Rn;
    state->G.col(kTangent1) = p.dgamma_dy.col(kTangent1) * inv_Rt;
    state->G.col(kTangent2) = p.dgamma_dy.col(kTangent2) * inv_Rt;
  }
}

}  // namespace sapcontact
