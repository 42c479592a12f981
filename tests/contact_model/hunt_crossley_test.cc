// The Hunt-Crossley contact models "similar" and "lagged" (docs/theory.md
// §18): impulse and Hessian against finite differences of the cost in every
// region and at the transitions, convexity, the closed-form normal impulse,
// and the near-rigid floor.
#include "sapcontact/contact_model/hunt_crossley.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <random>

#include "sapcontact/contact_model/contact_constraint.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kPi;

// The kind of point v_c is, for coverage counts.
enum Kind {
  kSeparated,       // no normal impulse
  kSpringLimited,   // v_hat = -phi0/dt (the spring relaxes first)
  kDampingLimited,  // v_hat = 1/d (the damping factor vanishes first)
  kInBand,          // slip inside the smoothing band, in contact
  kSlidingContact,  // slip outside the band, in contact
  kNumKinds
};

struct Sample {
  HuntCrossleyConstants c;
  Vector3 v_c;
};

// A random contact in the given model and a random v_c.
Sample RandomSample(ContactModel model, std::mt19937* rng) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  ContactParameters p;
  p.model = model;
  p.stiffness = std::pow(10.0, 4 + 2 * (U(*rng) + 1));  // 1e4 .. 1e8
  p.hunt_crossley_dissipation =
      std::abs(U(*rng)) < 0.2 ? 0.0 : 50 * std::abs(U(*rng));
  p.stiction_tolerance = std::pow(10.0, -4 + 2 * U(*rng));
  p.friction = std::abs(U(*rng));
  RegularizationParameters reg;
  reg.near_rigid_threshold = 0.0;  // the floor is tested separately
  const double dt = 1e-3;
  const double w = std::pow(10.0, U(*rng));
  const double phi0 = 1e-3 * U(*rng);
  const double v_n0 = U(*rng);
  Sample s;
  s.c = ComputeHuntCrossley(p, reg, dt, w, phi0, v_n0);
  // Normal velocity around v_hat, slip around the band.
  const double scale = std::max(std::abs(s.c.v_hat), 1e-3);
  s.v_c(kNormal) = s.c.v_hat + 2 * scale * U(*rng);
  const double slip = s.c.eps_s * std::pow(10.0, 1.5 * U(*rng));
  const double angle = kPi * U(*rng);
  s.v_c(kTangent1) = slip * std::cos(angle);
  s.v_c(kTangent2) = slip * std::sin(angle);
  return s;
}

struct Eval {
  Vector3 gamma;
  Matrix3 G;
  double cost;
  ProjectionRegion region;
};

Eval Evaluate(const HuntCrossleyConstants& c, const Vector3& v) {
  Eval e;
  EvaluateHuntCrossley(c, v, &e.gamma, &e.G, &e.cost, &e.region);
  return e;
}

// The argument of the normal impulse: z (similar) or v_n (lagged).
double NormalArgument(const HuntCrossleyConstants& c, const Vector3& v) {
  if (c.model == ContactModel::kLagged) return v(kNormal);
  const double slip2 = v.tail<2>().squaredNorm();
  const double soft =
      std::sqrt(slip2 + c.eps_s * c.eps_s) - c.eps_s;  // ||v_t||_s
  return v(kNormal) - c.mu * soft;
}

void CheckDerivatives(ContactModel model) {
  std::mt19937 rng(model == ContactModel::kLagged ? 11 : 12);
  int seen[kNumKinds] = {};
  for (int trial = 0; trial < 4000; ++trial) {
    const Sample s = RandomSample(model, &rng);
    const HuntCrossleyConstants& c = s.c;
    const Eval e = Evaluate(c, s.v_c);
    // Stay away from the kinks (v_hat, where G jumps) by a few steps h.
    // Steps on the scale of each component: the normal one on v_hat's, the
    // tangential ones on the soft norm's s = sqrt(||v_t||^2 + eps_s^2).
    const double s_t = std::hypot(s.v_c.tail<2>().norm(), c.eps_s);
    const double h_n = 1e-6 * std::max(std::abs(c.v_hat), 1e-4);
    const double h_t = 1e-4 * s_t;
    const double z = NormalArgument(c, s.v_c);
    if (std::abs(z - c.v_hat) < 10 * (h_n + c.mu * h_t)) continue;
    const bool contact = z < c.v_hat;
    const double slip = s.v_c.tail<2>().norm();
    if (!contact) {
      ++seen[kSeparated];
    } else if (c.d > 0 && c.v_hat == 1.0 / c.d) {
      ++seen[kDampingLimited];
    } else {
      ++seen[kSpringLimited];
    }
    if (contact) ++seen[slip < c.eps_s ? kInBand : kSlidingContact];

    double gscale = e.gamma.norm() + 1e-12;
    double Gscale = e.G.norm() + 1e-12;
    for (int i = 0; i < 3; ++i) {
      const double h = i == kNormal ? h_n : h_t;
      Vector3 vp = s.v_c, vm = s.v_c;
      vp(i) += h;
      vm(i) -= h;
      const Eval ep = Evaluate(c, vp), em = Evaluate(c, vm);
      // gamma = -dl/dv_c, G = -dgamma/dv_c (column i).
      EXPECT_NEAR(-(ep.cost - em.cost) / (2 * h), e.gamma(i),
                  1e-5 * gscale + 1e-12)
          << ToString(model) << " trial " << trial << " component " << i;
      const Vector3 dg = -(ep.gamma - em.gamma) / (2 * h);
      EXPECT_LT((dg - e.G.col(i)).norm(), 1e-4 * Gscale + 1e-9)
          << ToString(model) << " trial " << trial << " column " << i << "\n"
          << e.G << "\nvs FD\n"
          << dg.transpose();
    }
    // Symmetric positive semidefinite.
    EXPECT_LT((e.G - e.G.transpose()).norm(), 1e-12 * Gscale);
    const double min_eig =
        Eigen::SelfAdjointEigenSolver<Matrix3>(e.G).eigenvalues().minCoeff();
    EXPECT_GE(min_eig, -1e-10 * Gscale) << trial;
    EXPECT_GE(e.cost, 0.0);
  }
  EXPECT_GT(seen[kSeparated], 100) << ToString(model);
  EXPECT_GT(seen[kSpringLimited], 100) << ToString(model);
  EXPECT_GT(seen[kDampingLimited], 100) << ToString(model);
  EXPECT_GT(seen[kInBand], 100) << ToString(model);
  EXPECT_GT(seen[kSlidingContact], 100) << ToString(model);
}

TEST(HuntCrossley, SimilarImpulseAndHessianAreDerivativesInEveryRegion) {
  CheckDerivatives(ContactModel::kSimilar);
}

TEST(HuntCrossley, LaggedImpulseAndHessianAreDerivativesInEveryRegion) {
  CheckDerivatives(ContactModel::kLagged);
}

// The cost and the impulse are continuous across v_hat (contact ends) and
// the band edge; the cost is convex along random lines through both.
TEST(HuntCrossley, CostAndImpulseAreContinuousAndConvexAcrossTransitions) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (ContactModel model : {ContactModel::kSimilar, ContactModel::kLagged}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Sample s = RandomSample(model, &rng);
      const HuntCrossleyConstants& c = s.c;
      // At v_n = v_hat (zero slip) from both sides.
      const double tiny = 1e-12 * std::max(1.0, std::abs(c.v_hat));
      const Eval below = Evaluate(c, Vector3(c.v_hat - tiny, 0, 0));
      const Eval above = Evaluate(c, Vector3(c.v_hat + tiny, 0, 0));
      EXPECT_NEAR(below.cost, above.cost, 1e-9 * (1 + below.cost));
      EXPECT_NEAR(below.gamma(kNormal), above.gamma(kNormal),
                  1e-6 * (1 + std::abs(below.gamma(kNormal))));
      EXPECT_EQ(above.gamma(kNormal), 0.0);
      // Convexity along a random line: l(mid) <= (l(a) + l(b)) / 2.
      const double scale = std::max(std::abs(c.v_hat), c.eps_s);
      const Vector3 a = s.v_c;
      const Vector3 b = s.v_c + 4 * scale * Vector3(U(rng), U(rng), U(rng));
      for (double t : {0.25, 0.5, 0.75}) {
        const double lm = Evaluate(c, (1 - t) * a + t * b).cost;
        const double la = Evaluate(c, a).cost, lb = Evaluate(c, b).cost;
        EXPECT_LE(lm, (1 - t) * la + t * lb + 1e-12 * (1 + la + lb));
      }
    }
  }
}

// n(v) = dt (f_e0 - dt k v)_+ (1 - d v)_+ at closed-form points.
TEST(HuntCrossley, NormalImpulseIsTheDiscreteHuntCrossleyForce) {
  ContactParameters p;
  p.model = ContactModel::kLagged;
  p.stiffness = 1e5;
  p.hunt_crossley_dissipation = 2.0;
  RegularizationParameters reg;
  const double dt = 1e-3, phi0 = -1e-3, w = 1.0;
  const HuntCrossleyConstants c = ComputeHuntCrossley(p, reg, dt, w, phi0, 0.0);
  EXPECT_DOUBLE_EQ(c.k, 1e5);  // below the floor 4 pi^2/(w dt^2) = 3.9e7
  EXPECT_DOUBLE_EQ(c.f_e0, 100.0);
  EXPECT_DOUBLE_EQ(c.v_hat, 0.5);  // min(f_e0/(dt k) = 1, 1/d = 0.5)
  for (double v : {-1.0, -0.1, 0.0, 0.3, 0.49, 0.6, 2.0}) {
    const double expected =
        dt * std::max(0.0, 100.0 - dt * 1e5 * v) * std::max(0.0, 1.0 - 2.0 * v);
    double n, g;
    HuntCrossleyNormalImpulse(c, v, &n, &g);
    EXPECT_NEAR(n, expected, 1e-13) << v;
  }
  // A gap closes before force acts: phi0 = +1 mm needs v < -1 m/s.
  const HuntCrossleyConstants gap =
      ComputeHuntCrossley(p, reg, dt, w, 1e-3, 0.0);
  double n, g;
  HuntCrossleyNormalImpulse(gap, -0.99, &n, &g);
  EXPECT_EQ(n, 0.0);
  HuntCrossleyNormalImpulse(gap, -1.5, &n, &g);
  EXPECT_NEAR(n, dt * (dt * 1e5 * 0.5) * (1 + 2 * 1.5), 1e-13);
  // Lagged friction's bound: n0 = dt f_e0 (1 - d v_n0)_+.
  const HuntCrossleyConstants moving =
      ComputeHuntCrossley(p, reg, dt, w, phi0, 0.25);
  EXPECT_DOUBLE_EQ(moving.n0, dt * 100.0 * 0.5);
  EXPECT_EQ(ComputeHuntCrossley(p, reg, dt, w, phi0, 0.6).n0, 0.0);
  // Approaching, the damping factor 1 - d v_n0 is capped at 2.
  EXPECT_DOUBLE_EQ(ComputeHuntCrossley(p, reg, dt, w, phi0, -0.25).n0,
                   dt * 100.0 * 1.5);
  EXPECT_DOUBLE_EQ(ComputeHuntCrossley(p, reg, dt, w, phi0, -1.0).n0,
                   dt * 100.0 * 2.0);
}

// Sliding fast, lagged friction is mu n0 whatever the normal velocity;
// similar friction is mu times the current normal impulse.
TEST(HuntCrossley, FrictionBoundsOfTheTwoModels) {
  ContactParameters p;
  p.stiffness = 1e6;
  p.hunt_crossley_dissipation = 10.0;
  p.friction = 0.4;
  RegularizationParameters reg;
  const double dt = 1e-3, phi0 = -1e-4, w = 0.5;
  for (ContactModel model : {ContactModel::kSimilar, ContactModel::kLagged}) {
    p.model = model;
    const HuntCrossleyConstants c =
        ComputeHuntCrossley(p, reg, dt, w, phi0, 0.0);
    for (double v_n : {-0.05, 0.0, 0.05, 0.5}) {
      const Vector3 v(v_n, 1.0, 0.0);  // slip 1 m/s >> eps_s
      const Eval e = Evaluate(c, v);
      const double friction = -e.gamma(kTangent1);
      if (model == ContactModel::kLagged) {
        EXPECT_NEAR(friction, 0.4 * c.n0, 1e-7 * c.n0) << v_n;
      } else {
        EXPECT_NEAR(friction, 0.4 * e.gamma(kNormal),
                    1e-7 * e.gamma(kNormal) + 1e-15)
            << v_n;
      }
      EXPECT_EQ(e.region, model == ContactModel::kLagged || e.gamma(kNormal) > 0
                              ? ProjectionRegion::kSliding
                              : ProjectionRegion::kNoContact);
    }
  }
}

// k_eff = min(k, 4 pi^2 / (beta^2 w dt^2)); beta = 0 disables the floor;
// k = inf needs it.
TEST(HuntCrossley, NearRigidFloor) {
  ContactParameters p;
  p.model = ContactModel::kLagged;
  RegularizationParameters reg;
  reg.near_rigid_threshold = 1.0;
  const double dt = 1e-3, w = 2.0;
  const double k_floor = 4 * kPi * kPi / (w * dt * dt);
  for (double k : {1e5, 1e8, 1e12, std::numeric_limits<double>::infinity()}) {
    p.stiffness = k;
    const HuntCrossleyConstants c =
        ComputeHuntCrossley(p, reg, dt, w, -1e-6, 0.0);
    EXPECT_DOUBLE_EQ(c.k, std::min(k, k_floor)) << k;
    EXPECT_EQ(c.near_rigid, k >= k_floor) << k;
    // The Hessian's normal entry of the resting, undamped contact is at most
    // SAP's 1 / R_floor = 4 pi^2 / (beta^2 w).
    EXPECT_LE(dt * dt * c.k, 4 * kPi * kPi / w * (1 + 1e-15));
  }
  reg.near_rigid_threshold = 0.0;
  p.stiffness = 1e12;
  EXPECT_DOUBLE_EQ(ComputeHuntCrossley(p, reg, dt, w, 0.0, 0.0).k, 1e12);
  p.stiffness = std::numeric_limits<double>::infinity();
  EXPECT_THROW(ComputeHuntCrossley(p, reg, dt, w, 0.0, 0.0),
               std::invalid_argument);
}

// ContactConstraint dispatches on the model: Evaluate and EvaluateAlong
// agree with EvaluateHuntCrossley, and the reported R_n and stiffness follow
// the floored k.
TEST(HuntCrossley, ContactConstraintDispatch) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  ContactParameters p;
  p.model = ContactModel::kSimilar;
  p.stiffness = 1e7;
  p.hunt_crossley_dissipation = 20.0;
  RegularizationParameters reg;
  const double dt = 2e-3, w = 0.1;
  const ContactConstraint k =
      ContactConstraint::Make(p, reg, dt, w, -1e-4, -0.1);
  EXPECT_EQ(k.model(), ContactModel::kSimilar);
  EXPECT_DOUBLE_EQ(k.effective_stiffness(), k.hunt_crossley().k);
  EXPECT_DOUBLE_EQ(k.regularization().R_n, 1.0 / (dt * dt * 1e7));
  EXPECT_DOUBLE_EQ(k.regularization().R_t, reg.friction_regularization * w);
  for (int trial = 0; trial < 50; ++trial) {
    const Vector3 v(0.05 * U(rng), 0.01 * U(rng), 0.01 * U(rng));
    const Vector3 dv(U(rng), U(rng), U(rng));
    const ContactConstraintState s = k.Evaluate(v);
    const Eval e = Evaluate(k.hunt_crossley(), v);
    EXPECT_EQ(s.gamma, e.gamma);
    EXPECT_EQ(s.G, e.G);
    ContactConstraintRayState r;
    k.EvaluateAlong(v, dv, &r);
    EXPECT_EQ(r.gamma, e.gamma);
    EXPECT_NEAR(r.curvature, dv.dot(e.G * dv), 1e-12 * (1 + e.G.norm()));
  }
  // SAP contacts report 1 / (dt (dt + tau_d) R_n).
  p.model = ContactModel::kSap;
  const ContactConstraint sap =
      ContactConstraint::Make(p, reg, dt, w, -1e-4, 0.0);
  EXPECT_NEAR(
      sap.effective_stiffness(),
      1.0 / (dt * (dt + p.dissipation_time_scale) * sap.regularization().R_n),
      1e-6);
  EXPECT_NEAR(sap.effective_stiffness(), 1e7, 1e-3);
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

// The stiction model of a Hunt-Crossley contact (docs/theory.md §16, §18) is
// the friction band's linearization at zero slip: at v_t = 0 it equals the
// true impulse and Hessian, and its friction is linear in v_t.
TEST(HuntCrossley, StictionModelIsTheBandsLinearizationAtZeroSlip) {
  for (ContactModel model : {ContactModel::kSimilar, ContactModel::kLagged}) {
    ContactParameters p;
    p.model = model;
    p.stiffness = 1e6;
    p.hunt_crossley_dissipation = 10.0;
    p.friction = 0.6;
    RegularizationParameters reg;
    const ContactConstraint c =
        ContactConstraint::Make(p, reg, 1e-3, 0.5, -1e-4, -0.01);
    const Vector3 v0(-0.02, 0.0, 0.0);
    Vector3 y;
    Matrix3 G;
    c.EvaluateAsStiction(v0, &y, &G);
    const ContactConstraintState s = c.Evaluate(v0);
    EXPECT_LT((y - s.gamma).norm(), 1e-12 * s.gamma.norm()) << ToString(model);
    EXPECT_LT((G - s.G).norm(), 1e-9 * s.G.norm()) << ToString(model);
    const Vector3 v1(-0.02, 3e-3, -1e-3);  // 30 eps_s of slip
    c.EvaluateAsStiction(v1, &y, &G);
    EXPECT_NEAR(y(kTangent1), -G(1, 1) * 3e-3, 1e-15) << ToString(model);
    EXPECT_NEAR(y(kTangent2), G(2, 2) * 1e-3, 1e-15) << ToString(model);
  }
}

}  // namespace
}  // namespace sapcontact
