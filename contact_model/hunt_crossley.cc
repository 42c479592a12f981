#include "sapcontact/contact_model/hunt_crossley.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace sapcontact {

HuntCrossleyConstants ComputeHuntCrossley(const ContactParameters& params,
                                          const RegularizationParameters& reg,
                                          double dt, double w, double phi0,
                                          double v_n0,
                                          const std::string& context) {
  Validate(params, context);
  Validate(reg, context);
  ValidateTimeStep(dt, context);
  const std::string prefix = context.empty() ? "" : context + ": ";
  auto fail = [&](const char* what, double value, const char* requirement) {
    std::ostringstream os;
    os << prefix << "invalid " << what << " = " << value << " (" << requirement
       << ")";
    throw std::invalid_argument(os.str());
  };
  if (!(w > 0.0) || std::isinf(w)) {
    fail("Delassus estimate w", w, "must be finite and > 0 1/kg");
  }
  if (!std::isfinite(phi0))
    fail("signed distance phi0", phi0, "must be finite");
  if (!std::isfinite(v_n0)) {
    fail("normal velocity v_n0", v_n0, "must be finite");
  }
  if (params.model == ContactModel::kSap) {
    throw std::invalid_argument(prefix +
                                "ComputeHuntCrossley needs model similar or "
                                "lagged, not sap");
  }

  HuntCrossleyConstants c;
  c.model = params.model;
  c.mu = params.friction;
  c.dt = dt;
  c.d = params.hunt_crossley_dissipation;
  // Near-rigid floor (docs/theory.md §18): the Hessian's normal entry of a
  // resting contact, dt^2 k, never exceeds SAP's 1/R_floor = 4 pi^2 /
  // (beta^2 w): the contact's period stays at least beta dt.
  const double beta = reg.near_rigid_threshold;
  const double k_floor = beta > 0.0
                             ? 4.0 * M_PI * M_PI / (beta * beta * w * dt * dt)
                             : std::numeric_limits<double>::infinity();
  c.k = std::min(params.stiffness, k_floor);
  c.near_rigid = k_floor <= params.stiffness;
  if (std::isinf(c.k)) {
    std::ostringstream os;
    os << prefix << "stiffness = " << params.stiffness
       << " with near_rigid_threshold (beta) = " << beta
       << " makes the Hunt-Crossley contact exactly rigid, which it cannot "
          "represent; use beta > 0 or a finite stiffness";
    throw std::invalid_argument(os.str());
  }
  c.f_e0 = -c.k * phi0;
  const double v_spring = c.f_e0 / (dt * c.k);  // = -phi0 / dt
  c.v_hat = c.d > 0.0 ? std::min(v_spring, 1.0 / c.d) : v_spring;
  // The previous step's impulse smooths friction during impacts; as the
  // lagged bound its damping factor is capped at 2 (docs/theory.md §18).
  const double elastic0 = dt * std::max(0.0, c.f_e0);
  const double damping0 = std::max(0.0, 1.0 - c.d * v_n0);
  c.n0 = elastic0 * std::min(damping0, 2.0);
  const double R_t = reg.friction_regularization * w;
  c.eps_s =
      std::max(params.stiction_tolerance, c.mu * R_t * elastic0 * damping0);
  return c;
}

void HuntCrossleyNormalImpulse(const HuntCrossleyConstants& c, double v,
                               double* n, double* g) {
  // In e = v_hat - v >= 0 the two factors are A0 + a e and B0 + d e with
  // A0 = f_e0 - a v_hat >= 0, B0 = 1 - d v_hat >= 0 (one of them is 0).
  const double e = c.v_hat - v;
  if (!(e > 0.0)) {
    *n = 0.0;
    *g = 0.0;
    return;
  }
  const double a = c.dt * c.k;
  const double A0 = std::max(0.0, c.f_e0 - a * c.v_hat);
  const double B0 = std::max(0.0, 1.0 - c.d * c.v_hat);
  *n = c.dt * (A0 + a * e) * (B0 + c.d * e);
  *g = c.dt * ((A0 * c.d + a * B0) + 2.0 * a * c.d * e);
}

namespace {

// L(v) = integral from v to v_hat of n(s) ds [J], in e = v_hat - v.
double NormalCost(const HuntCrossleyConstants& c, double v) {
  const double e = c.v_hat - v;
  if (!(e > 0.0)) return 0.0;
  const double a = c.dt * c.k;
  const double A0 = std::max(0.0, c.f_e0 - a * c.v_hat);
  const double B0 = std::max(0.0, 1.0 - c.d * c.v_hat);
  return c.dt * e *
         (A0 * B0 + e * (0.5 * (A0 * c.d + a * B0) + e * (a * c.d / 3.0)));
}

}  // namespace

void EvaluateHuntCrossley(const HuntCrossleyConstants& c, const Vector3& v_c,
                          Vector3* gamma, Matrix3* G, double* cost,
                          ProjectionRegion* region) {
  const Vector2 v_t = v_c.segment<2>(kTangent1);
  const double slip2 = v_t.squaredNorm();
  // Soft norm ||v_t||_s = s - eps_s with s = sqrt(||v_t||^2 + eps_s^2),
  // written without cancellation; t_hat = v_t / s = its gradient.
  const double s = std::sqrt(slip2 + c.eps_s * c.eps_s);
  const double soft_norm = slip2 / (s + c.eps_s);
  const Vector2 t_hat = v_t / s;
  const bool in_band = slip2 < c.eps_s * c.eps_s;

  if (c.model == ContactModel::kSimilar) {
    const double z = v_c(kNormal) - c.mu * soft_norm;
    double n, g;
    HuntCrossleyNormalImpulse(c, z, &n, &g);
    *cost = NormalCost(c, z);
    (*gamma)(kNormal) = n;
    gamma->segment<2>(kTangent1) = -c.mu * n * t_hat;
    if (G) {
      // G = g grad z grad z' + n (-Hess z), grad z = (1, -mu t_hat),
      // -Hess z = mu (0 + (I - t_hat t_hat') / s).
      (*G)(kNormal, kNormal) = g;
      const Vector2 off = -c.mu * g * t_hat;
      G->block<2, 1>(kTangent1, kNormal) = off;
      G->block<1, 2>(kNormal, kTangent1) = off.transpose();
      G->block<2, 2>(kTangent1, kTangent1) =
          (c.mu * c.mu * g) * t_hat * t_hat.transpose() +
          (c.mu * n / s) *
              (Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose());
    }
    *region = n > 0.0 ? (in_band ? ProjectionRegion::kStiction
                                 : ProjectionRegion::kSliding)
                      : ProjectionRegion::kNoContact;
    return;
  }

  // Lagged.
  double n, g;
  HuntCrossleyNormalImpulse(c, v_c(kNormal), &n, &g);
  const double friction = c.mu * c.n0;
  *cost = NormalCost(c, v_c(kNormal)) + friction * soft_norm;
  (*gamma)(kNormal) = n;
  gamma->segment<2>(kTangent1) = -friction * t_hat;
  if (G) {
    G->setZero();
    (*G)(kNormal, kNormal) = g;
    G->block<2, 2>(kTangent1, kTangent1) =
        (friction / s) *
        (Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose());
  }
  *region = (n > 0.0 || friction > 0.0) ? (in_band ? ProjectionRegion::kStiction
                                                   : ProjectionRegion::kSliding)
                                        : ProjectionRegion::kNoContact;
}

}  // namespace sapcontact
