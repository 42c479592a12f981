// One contact constraint: given its constraint velocity v_c it knows its
// cost l_k, impulse gamma and Hessian block G, and nothing else: SAP's
// regularized friction cone (SAP paper §III-B, §IV-A, §V-A) or one of the
// Hunt-Crossley models (docs/theory.md §18). Ordering and signs:
// contact_model/conventions.h.
#pragma once

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/friction_cone_projection.h"
#include "sapcontact/contact_model/hunt_crossley.h"
#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {

/// Everything one constraint reports at one v_c.
struct ContactConstraintState {
  /// y = -R^-1 (v_c - v_hat) [N*s].
  Vector3 y{Vector3::Zero()};
  /// gamma = P_F(y) = -dl/dv_c [N*s].
  Vector3 gamma{Vector3::Zero()};
  /// G = -dgamma/dv_c = (dgamma/dy) R^-1 [(N*s)/(m/s)], symmetric PSD: the
  /// constraint's block of the Hessian J' G J. Zero unless requested.
  Matrix3 G{Matrix3::Zero()};
  /// Constraint cost l_k(v_c) [J] (see FrictionConeProjection::cost).
  double cost{0.0};
  ProjectionRegion region{ProjectionRegion::kNoContact};
};

/// One constraint along a line v_c + alpha dv_c of the exact line search
/// (SAP paper §IV-C), at one alpha.
struct ContactConstraintRayState {
  Vector3 gamma{Vector3::Zero()};  ///< [N*s]
  double cost{0.0};                ///< l_k [J]
  /// dv_c' G dv_c = d^2 l_k / d alpha^2 [J per unit of alpha^2], from
  /// (dgamma/dy) applied to R^-1 dv_c without forming G.
  double curvature{0.0};
};

/// The constraint of one contact: SAP's friction cone or a Hunt-Crossley
/// model.
class ContactConstraint {
 public:
  ContactConstraint() = default;
  /// A SAP friction-cone constraint.
  /// @param regularization  R, v_hat and mu of this contact for this step.
  /// @param epsilon_s       soft-norm tolerance [N*s] (docs/theory.md §4).
  ContactConstraint(const ContactRegularization& regularization,
                    double epsilon_s);
  /// A Hunt-Crossley constraint (model kSimilar or kLagged). R_n = 1 / (dt^2
  /// k), R_t = sigma w are reported through regularization() only.
  ContactConstraint(const HuntCrossleyConstants& hunt_crossley, double R_t);

  /// The constraint of a contact from its parameters (the model they name):
  /// ComputeRegularization() or ComputeHuntCrossley(), with w [1/kg], phi0
  /// [m] and the normal velocity at the start of the step v_n0 [m/s] (used
  /// by the Hunt-Crossley models only).
  static ContactConstraint Make(const ContactParameters& params,
                                const RegularizationParameters& reg, double dt,
                                double w, double phi0, double v_n0,
                                const std::string& context = "");

  ContactModel model() const { return model_; }
  const ContactRegularization& regularization() const { return reg_; }
  /// The Hunt-Crossley constants (model() != kSap only).
  const HuntCrossleyConstants& hunt_crossley() const { return hc_; }
  /// Effective normal stiffness k_eff [N/m] after the near-rigid floor: 1 /
  /// (dt (dt + tau_d) R_n) for SAP, the floored k for Hunt-Crossley.
  double effective_stiffness() const { return effective_stiffness_; }

  /// Evaluates y, gamma, cost and, if `with_hessian`, G at the constraint
  /// velocity v_c [m/s] (SAP paper Eq. (23): gamma = P_F(y), y = -R^-1 (v_c -
  /// v_hat)).
  void Evaluate(const Vector3& v_c, bool with_hessian,
                ContactConstraintState* state) const;

  /// gamma, cost and the curvature dv_c' G dv_c at v_c along dv_c [m/s]: what
  /// the exact line search needs, at a fraction of Evaluate()'s cost with G.
  void EvaluateAlong(const Vector3& v_c, const Vector3& dv_c,
                     ContactConstraintRayState* state) const;

  /// The stiction model at v_c (docs/theory.md §16; for the Hunt-Crossley
  /// models the friction band's linearization at zero slip, §18): the
  /// impulse and Hessian
  /// block that region I gives, y = -R^-1 (v_c - v_hat) unprojected [N*s]
  /// and G = R^-1 [(N*s)/(m/s)], extended to every v_c. It majorizes l_k
  /// (1/2 y'Ry >= l_k, equal in region I).
  void EvaluateAsStiction(const Vector3& v_c, Vector3* y, Matrix3* G) const;

  /// Convenience form of Evaluate().
  ContactConstraintState Evaluate(const Vector3& v_c,
                                  bool with_hessian = true) const {
    ContactConstraintState s;
    Evaluate(v_c, with_hessian, &s);
    return s;
  }

 private:
  ContactModel model_{ContactModel::kSap};
  ContactRegularization reg_;
  HuntCrossleyConstants hc_;
  double effective_stiffness_{0.0};
  // Computed once: the projection's constants (mu, R, epsilon_s and the
  // quotients), R_n^-1 and R_t^-1.
  FrictionConeConstants cone_;
  double inverse_R_n_{0.0}, inverse_R_t_{0.0};
};

}  // namespace sapcontact
