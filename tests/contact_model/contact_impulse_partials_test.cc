// d gamma / d theta at fixed v_c (contact_model/contact_impulse_partials.h)
// against central finite differences of the forward code,
// ContactConstraint::Make(theta).Evaluate(v_c).gamma, for the three models in
// every region, compliant and near-rigid, both branches of the Hunt-Crossley
// friction band eps_s and every branch of the previous impulse n0 (its
// damping factor capped, uncapped and clamped to 0), including the partials
// with respect to the Delassus estimate w and the previous normal velocity
// v_n0; and boundary_distance as a lower bound
// of the distance to the nearest region/branch change that vanishes on it.
#include "sapcontact/contact_model/contact_impulse_partials.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/contact_model/hunt_crossley.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kInf;
constexpr int kNumParams = 7;
const char* const kParamNames[kNumParams] = {
    "phi0",      "stiffness", "dissipation",     "friction",
    "time_step", "delassus",  "normal_velocity0"};
constexpr int kDelassusParam = 5;
constexpr int kNormalVelocity0Param = 6;

// The worst ratio |fd - an| / max(|an|, scale) of each partial over every
// case checked so far, and the number of cases (reported after the run).
double g_worst[kNumParams] = {};
int g_checks = 0;

// One contact and one constraint velocity.
struct Case {
  ContactParameters params;
  RegularizationParameters reg;
  double dt{1e-3};
  double w{1.0};
  double phi0{-1e-3};
  double v_n0{0.0};
  Vector3 v_c{Vector3::Zero()};
};

// The parameter `i` of a case, by reference (dissipation: tau_d for kSap, d
// for the Hunt-Crossley models).
double& Param(Case* c, int i) {
  switch (i) {
    case 0:
      return c->phi0;
    case 1:
      return c->params.stiffness;
    case 2:
      return c->params.model == ContactModel::kSap
                 ? c->params.dissipation_time_scale
                 : c->params.hunt_crossley_dissipation;
    case 3:
      return c->params.friction;
    case 4:
      return c->dt;
    case kDelassusParam:
      return c->w;
    default:
      return c->v_n0;
  }
}

ContactConstraint MakeConstraint(const Case& c) {
  return ContactConstraint::Make(c.params, c.reg, c.dt, c.w, c.phi0, c.v_n0);
}

ContactImpulsePartials Partials(const Case& c) {
  return ComputeContactImpulsePartials(c.params, c.reg, c.dt, c.w, c.phi0,
                                       c.v_n0, c.v_c);
}

Vector3 Column(const ContactImpulsePartials& p, int i) {
  const Vector3* cols[kNumParams] = {
      &p.phi0,      &p.stiffness, &p.dissipation,     &p.friction,
      &p.time_step, &p.delassus,  &p.normal_velocity0};
  return *cols[i];
}

// Which smooth piece of gamma(v_c; theta) a case is on: the region, the
// near-rigid floor, and for the Hunt-Crossley models whether n > 0, which
// branch eps_s takes and the branch of n0's damping factor (1 - d v_n0)
// (clamped to 0, capped at 2, or neither). Finite differences must not
// change it.
struct Piece {
  ProjectionRegion region;
  bool near_rigid;
  bool normal_impulse;
  bool eps_second_branch;
  int damping0_branch;  // -1: 1 - d v_n0 <= 0, 1: > 2, 0: in (0, 2]
  bool operator==(const Piece& o) const {
    return region == o.region && near_rigid == o.near_rigid &&
           normal_impulse == o.normal_impulse &&
           eps_second_branch == o.eps_second_branch &&
           damping0_branch == o.damping0_branch;
  }
};

Piece PieceOf(const Case& c, const Vector3& v_c) {
  const ContactConstraint k = MakeConstraint(c);
  const ContactConstraintState s = k.Evaluate(v_c, false);
  Piece p{s.region, k.regularization().near_rigid, s.gamma(kNormal) > 0.0,
          false, 0};
  if (c.params.model != ContactModel::kSap) {
    p.eps_second_branch = k.hunt_crossley().eps_s > c.params.stiction_tolerance;
    const double q = 1.0 - c.params.hunt_crossley_dissipation * c.v_n0;
    p.damping0_branch = q <= 0.0 ? -1 : (q > 2.0 ? 1 : 0);
  }
  return p;
}

// What a case is expected to be.
struct Expect {
  ProjectionRegion region;
  bool near_rigid;
  bool eps_second_branch;
};

// Checks every partial of `c` against central differences with relative
// steps 1e-6: |fd_i - an_i| <= 1e-6 max(|an_i|, scale), scale = the largest
// analytic component of that partial, floored at 1e-2 ||gamma|| / |theta|
// (so round-off of a partial that is exactly 0 passes, and a wrong sign of
// any component above 1e-8 ||gamma|| / |theta| fails). Returns the worst
// ratio |fd_i - an_i| / max(|an_i|, scale).
double CheckAgainstFiniteDifferences(const Case& c, const Expect& expect) {
  const ContactImpulsePartials an = Partials(c);
  const ContactConstraintState state = MakeConstraint(c).Evaluate(c.v_c);
  const Piece piece = PieceOf(c, c.v_c);
  EXPECT_EQ(an.region, state.region);
  EXPECT_EQ(an.region, expect.region);
  EXPECT_EQ(an.near_rigid, expect.near_rigid);
  EXPECT_EQ(piece.near_rigid, expect.near_rigid);
  if (c.params.model != ContactModel::kSap) {
    EXPECT_EQ(piece.eps_second_branch, expect.eps_second_branch);
  }
  if (c.params.model == ContactModel::kSap) {
    // SAP does not use v_n0.
    EXPECT_EQ(an.normal_velocity0, Vector3::Zero());
  }
  const double gamma_max = state.gamma.cwiseAbs().maxCoeff();
  ++g_checks;
  double worst = 0.0;
  for (int i = 0; i < kNumParams; ++i) {
    Case plus = c, minus = c;
    const double theta = Param(&plus, i);
    if (std::isinf(theta)) continue;  // k = inf: no finite difference
    // Relative steps: every parameter of every case is nonzero.
    EXPECT_NE(theta, 0.0) << kParamNames[i];
    const double h = 1e-6 * std::abs(theta);
    Param(&plus, i) += h;
    Param(&minus, i) -= h;
    // The step must stay on the same smooth piece.
    EXPECT_TRUE(PieceOf(plus, c.v_c) == piece) << kParamNames[i];
    EXPECT_TRUE(PieceOf(minus, c.v_c) == piece) << kParamNames[i];
    const Vector3 fd = (MakeConstraint(plus).Evaluate(c.v_c, false).gamma -
                        MakeConstraint(minus).Evaluate(c.v_c, false).gamma) /
                       (2.0 * h);
    const Vector3 a = Column(an, i);
    const double scale =
        std::max(a.cwiseAbs().maxCoeff(), 1e-2 * gamma_max / std::abs(theta));
    for (int j = 0; j < kContactDim; ++j) {
      const double ref = std::max(std::abs(a(j)), scale);
      EXPECT_LE(std::abs(fd(j) - a(j)), 1e-6 * ref)
          << kParamNames[i] << " component " << j << ": analytic " << a(j)
          << ", finite difference " << fd(j);
      worst = std::max(worst, std::abs(fd(j) - a(j)) / ref);
      g_worst[i] = std::max(g_worst[i], std::abs(fd(j) - a(j)) / ref);
    }
  }
  return worst;
}

void Check(const Case& c, const Expect& e) {
  const double worst = CheckAgainstFiniteDifferences(c, e);
  std::cout << "  worst |fd - an| / max(|an|, scale) = " << worst << "\n";
}

// Also requires the partials named in `nonzero` to be substantially nonzero
// (so that the comparison tests something): |column| > 1e-5 ||gamma|| /
// |theta|, a thousand times the comparison's floor.
void ExpectNonzero(const Case& c, std::initializer_list<int> nonzero) {
  const ContactImpulsePartials an = Partials(c);
  const double gamma_max =
      MakeConstraint(c).Evaluate(c.v_c, false).gamma.cwiseAbs().maxCoeff();
  Case copy = c;
  for (int i : nonzero) {
    EXPECT_GT(Column(an, i).norm(),
              1e-5 * gamma_max / std::abs(Param(&copy, i)))
        << kParamNames[i];
  }
}

// Requires the partials named in `zero` to be exactly zero.
void ExpectZero(const Case& c, std::initializer_list<int> zero) {
  const ContactImpulsePartials an = Partials(c);
  for (int i : zero)
    EXPECT_EQ(Column(an, i), Vector3::Zero()) << kParamNames[i];
}

// The partials d gamma / d w and d gamma / d v_n0: nonzero or exactly zero as
// expected.
void ExpectMovingInputs(const Case& c, bool delassus, bool normal_velocity0) {
  SCOPED_TRACE("moving inputs");
  if (delassus) {
    ExpectNonzero(c, {kDelassusParam});
  } else {
    ExpectZero(c, {kDelassusParam});
  }
  if (normal_velocity0) {
    ExpectNonzero(c, {kNormalVelocity0Param});
  } else {
    ExpectZero(c, {kNormalVelocity0Param});
  }
}

// A sign error anywhere would be caught: the analytic partials with one
// column negated fail the comparison (guards the tolerance itself).
void ExpectWrongSignDetected(const Case& c, std::initializer_list<int> cols) {
  const ContactImpulsePartials an = Partials(c);
  for (int i : cols) {
    Case plus = c, minus = c;
    const double h = 1e-6 * std::abs(Param(&plus, i));
    Param(&plus, i) += h;
    Param(&minus, i) -= h;
    const Vector3 fd = (MakeConstraint(plus).Evaluate(c.v_c, false).gamma -
                        MakeConstraint(minus).Evaluate(c.v_c, false).gamma) /
                       (2.0 * h);
    const Vector3 a = Column(an, i);
    EXPECT_LT((fd - a).norm(), 1e-6 * a.norm()) << kParamNames[i];
    EXPECT_GT((fd + a).norm(), 1.0 * a.norm()) << kParamNames[i];
  }
}

// ----- SAP (SAP paper §V-A; docs/theory.md §3, §4) --------------------------

// k = 1e5 N/m, tau_d = 0.01 s, dt = 1 ms, w = 1/kg, phi0 = -1 mm: R_n = 1 /
// (dt k (dt + tau_d)) = 0.909 above the floor 1/(4 pi^2) = 0.0253, v_hat_n =
// 0.0909 m/s, R_t = 1e-3. v_n0 = -0.1 m/s (SAP does not use it; nonzero so
// that its relative finite difference is taken).
Case SapCase(const Vector3& v_c) {
  Case c;
  c.v_n0 = -0.1;
  c.params.model = ContactModel::kSap;
  c.params.stiffness = 1e5;
  c.params.dissipation_time_scale = 0.01;
  c.params.friction = 0.5;
  c.v_c = v_c;
  return c;
}

TEST(ContactImpulsePartials, SapCompliantStiction) {
  // y = (0.111, -0.02, 0.01): ||y_t|| = 0.022 <= mu y_n = 0.055. (At v_n =
  // 0 y_n = -dt k phi0 would not depend on tau_d.)
  const Case c = SapCase(Vector3(-0.01, 2e-5, -1e-5));
  Check(c, {ProjectionRegion::kStiction, false, false});
  ExpectNonzero(c, {0, 1, 2, 4});
  const ContactImpulsePartials p = Partials(c);
  // gamma = y: only the normal component depends on theta, not on mu.
  EXPECT_EQ(p.friction, Vector3::Zero());
  EXPECT_EQ(p.phi0.tail<2>(), Vector2::Zero());
  // Closed form: d y_n / d phi0 = -1 / (R_n (dt + tau_d)) = -dt k.
  EXPECT_NEAR(p.phi0(kNormal), -1e-3 * 1e5, 1e-9 * 1e2);
  // w moves only R_t = sigma w here (compliant R_n): d y_t / d w = -y_t / w
  // = (0.02, -0.01), d y_n / d w = 0.
  ExpectMovingInputs(c, true, false);
  EXPECT_EQ(p.delassus(kNormal), 0.0);
  EXPECT_NEAR(p.delassus(kTangent1), 0.02, 1e-12);
  EXPECT_NEAR(p.delassus(kTangent2), -0.01, 1e-12);
}

TEST(ContactImpulsePartials, SapCompliantSliding) {
  // y_t = (-10, 20): region II, both tangential components nonzero.
  const Case c = SapCase(Vector3(0.0, 0.01, -0.02));
  Check(c, {ProjectionRegion::kSliding, false, false});
  ExpectNonzero(c, {0, 1, 2, 3, 4});
  ExpectMovingInputs(c, true, false);
  const ContactImpulsePartials p = Partials(c);
  EXPECT_NE(p.friction(kTangent1), 0.0);
  EXPECT_NE(p.friction(kTangent2), 0.0);
  for (int j = 0; j < kContactDim; ++j) EXPECT_NE(p.delassus(j), 0.0) << j;
}

TEST(ContactImpulsePartials, SapCompliantSlidingLargeRatio) {
  // sigma = 0.1: rho = R_t / R_n = 0.11, so the explicit mu and rho terms of
  // region II are a large part of gamma_n.
  Case c = SapCase(Vector3(0.05, 0.5, -1.0));
  c.reg.friction_regularization = 0.1;
  c.params.friction = 0.8;
  Check(c, {ProjectionRegion::kSliding, false, false});
  ExpectNonzero(c, {0, 1, 2, 3, 4});
  ExpectMovingInputs(c, true, false);
}

TEST(ContactImpulsePartials, SapSoftNormComparableToSlip) {
  // epsilon_s = 0.02 N*s and y_t = (0.02, -0.01): the soft norm y_r = 0.03
  // differs from ||y_t||, so t_hat = y_t / y_r moves with w (d t_hat / d w =
  // -t_hat epsilon_s^2 / (w y_r^2), 44% of t_hat / w); with the default
  // epsilon_s = 1e-8 that term is ~1e-18 of the others. Region II, compliant
  // (v_n = 0.07: y_n = 0.023) and near-rigid (v_n = 0.09: y_n = 0.036).
  Case c = SapCase(Vector3(0.07, -2e-5, 1e-5));
  c.reg.soft_norm_tolerance = 0.02;
  Check(c, {ProjectionRegion::kSliding, false, false});
  ExpectNonzero(c, {0, 1, 2, 3, 4});
  ExpectMovingInputs(c, true, false);
  ExpectWrongSignDetected(c, {kDelassusParam});
  Case rigid = c;
  rigid.params.stiffness = kInf;
  rigid.v_c(kNormal) = 0.09;
  Check(rigid, {ProjectionRegion::kSliding, true, false});
  ExpectNonzero(rigid, {0, 2, 3, 4});
  ExpectMovingInputs(rigid, true, false);
  ExpectWrongSignDetected(rigid, {kDelassusParam});
}

TEST(ContactImpulsePartials, SapClosingGap) {
  // phi0 = +0.1 mm (a gap), approaching at 200 mm/s: the step closes the
  // gap (phi0 + dt v_n < 0), contact; v_hat_n = -phi0 / dt (docs/theory.md
  // §3), so tau_d enters through R_n only.
  Case c = SapCase(Vector3(-0.2, 0.003, 0.004));
  c.phi0 = 1e-4;
  Check(c, {ProjectionRegion::kSliding, false, false});
  ExpectNonzero(c, {0, 1, 2, 3, 4});
  ExpectMovingInputs(c, true, false);
}

TEST(ContactImpulsePartials, SapGapThatTheStepDoesNotCloseCarriesNoImpulse) {
  // phi0 = +0.1 mm approaching at 20 mm/s: phi0 + dt v_n = 80 um > 0.
  // (The paper's v_hat_n = -phi0 / (dt + tau_d) would push here: the
  // dissipation would act before the bodies touch.)
  Case c = SapCase(Vector3(-0.02, 0.0, 0.0));
  c.phi0 = 1e-4;
  Check(c, {ProjectionRegion::kNoContact, false, false});
  const ContactImpulsePartials p = Partials(c);
  for (int i = 0; i < kNumParams; ++i) {
    EXPECT_EQ(Column(p, i), Vector3::Zero()) << kParamNames[i];
  }
}

TEST(ContactImpulsePartials, SapSeparationIsExactlyZero) {
  // y_n = -0.23, region III.
  const Case c = SapCase(Vector3(0.3, 0.01, 0.02));
  Check(c, {ProjectionRegion::kNoContact, false, false});
  const ContactImpulsePartials p = Partials(c);
  for (int i = 0; i < kNumParams; ++i) {
    EXPECT_EQ(Column(p, i), Vector3::Zero()) << kParamNames[i];
  }
}

TEST(ContactImpulsePartials, SapRigidStictionAndSliding) {
  // k = inf: R_n = 1 / (4 pi^2), no stiffness partial (and no finite
  // difference in k).
  Case stick = SapCase(Vector3(0.0, 1e-4, -2e-4));
  stick.params.stiffness = kInf;
  Check(stick, {ProjectionRegion::kStiction, true, false});
  EXPECT_EQ(Partials(stick).stiffness, Vector3::Zero());
  ExpectNonzero(stick, {0, 2, 4});
  ExpectMovingInputs(stick, true, false);
  // On the floor R_n = w / (4 pi^2) and R_t = sigma w: y = -R^-1 (v_c -
  // v_hat) is proportional to 1 / w, d y / d w = -y / w.
  const ContactConstraintState s = MakeConstraint(stick).Evaluate(stick.v_c);
  for (int j = 0; j < kContactDim; ++j) {
    EXPECT_NEAR(Partials(stick).delassus(j), -s.y(j), 1e-12 * s.y.norm()) << j;
  }
  Case slide = stick;
  slide.v_c = Vector3(0.0, 0.01, 0.02);
  Check(slide, {ProjectionRegion::kSliding, true, false});
  EXPECT_EQ(Partials(slide).stiffness, Vector3::Zero());
  ExpectNonzero(slide, {0, 2, 3, 4});
  ExpectMovingInputs(slide, true, false);
}

TEST(ContactImpulsePartials, SapFlooredStiffness) {
  // k = 1e9: 1 / (dt k (dt + tau_d)) = 9.1e-5 < the floor 0.0253; the
  // stiffness partial is 0 and so is its finite difference.
  Case c = SapCase(Vector3(0.01, -0.01, 0.02));
  c.params.stiffness = 1e9;
  Check(c, {ProjectionRegion::kSliding, true, false});
  EXPECT_EQ(Partials(c).stiffness, Vector3::Zero());
  ExpectNonzero(c, {0, 2, 3, 4});
  ExpectMovingInputs(c, true, false);
}

// The comparison catches a sign error in any partial, at fixed parameters
// and through each of w's and v_n0's paths.
TEST(ContactImpulsePartials, ComparisonDetectsAWrongSign) {
  ExpectWrongSignDetected(SapCase(Vector3(0.0, 0.01, -0.02)),
                          {0, 1, 2, 3, 4, kDelassusParam});
  Case rigid = SapCase(Vector3(0.0, 1e-4, -2e-4));
  rigid.params.stiffness = kInf;
  ExpectWrongSignDetected(rigid, {kDelassusParam});
  // Hunt-Crossley, near-rigid (w through k_eff and eps_s) with eps_s on its
  // second branch and n0 uncapped (v_n0 through eps_s, and n0 for lagged).
  for (ContactModel m : {ContactModel::kSimilar, ContactModel::kLagged}) {
    SCOPED_TRACE(ToString(m));
    Case c;
    c.params.model = m;
    c.params.stiffness = 1e9;
    c.params.hunt_crossley_dissipation = 50.0;
    c.params.stiction_tolerance = 1e-4;
    c.params.friction = 0.5;
    c.v_n0 = 0.01;
    c.v_c = Vector3(0.005, 0.1, -0.2);
    ExpectWrongSignDetected(c, {kDelassusParam, kNormalVelocity0Param});
  }
}

// ----- Hunt-Crossley (docs/theory.md §18) ----------------------------------

// k = 1e5 N/m, dt = 1 ms, phi0 = -1 mm, w = 1/kg, R_t = 1e-3, mu = 0.5,
// v_s = 1e-4 m/s: f_e0 = 100 N, elastic0 = dt f_e0 = 0.1 N*s and eps_s =
// max(v_s, 5e-5 (1 - d v_n0)_+).
Case HcCase(ContactModel model, double d, double v_n0, const Vector3& v_c) {
  Case c;
  c.params.model = model;
  c.params.stiffness = 1e5;
  c.params.hunt_crossley_dissipation = d;
  c.params.stiction_tolerance = 1e-4;
  c.params.friction = 0.5;
  c.v_n0 = v_n0;
  c.v_c = v_c;
  return c;
}

constexpr ContactModel kHcModels[] = {ContactModel::kSimilar,
                                      ContactModel::kLagged};

TEST(ContactImpulsePartials, HuntCrossleyDampingLimited) {
  // d = 50 s/m: v_hat = 1/d = 0.02 m/s < -phi0/dt = 1 m/s.
  for (ContactModel m : kHcModels) {
    SCOPED_TRACE(ToString(m));
    // v_n0 = -0.1: (1 - d v_n0) = 6, eps_s = 3e-4 (second branch), n0 capped.
    // v_n0 = 0.01: (1 - d v_n0) = 0.5, eps_s = v_s (first branch).
    // Compliant, so w enters only through eps_s's second branch; v_n0 through
    // it and (lagged) through the uncapped n0.
    const bool lagged = m == ContactModel::kLagged;
    for (double v_n0 : {-0.1, 0.01}) {
      const bool second = v_n0 < 0.0;
      SCOPED_TRACE(v_n0);
      const Case stick = HcCase(m, 50.0, v_n0, Vector3(0.005, 3e-5, -2e-5));
      Check(stick, {ProjectionRegion::kStiction, false, second});
      ExpectNonzero(stick, {0, 1, 2, 3, 4});
      ExpectMovingInputs(stick, second, second || lagged);
      const Case slide = HcCase(m, 50.0, v_n0, Vector3(0.005, 0.01, -0.02));
      Check(slide, {ProjectionRegion::kSliding, false, second});
      ExpectNonzero(slide, {0, 1, 2, 3, 4});
      ExpectMovingInputs(slide, second, second || lagged);
    }
  }
}

TEST(ContactImpulsePartials, HuntCrossleySpringLimited) {
  // d = 0.5 s/m: v_hat = -phi0/dt = 1 m/s < 1/d = 2 m/s.
  for (ContactModel m : kHcModels) {
    SCOPED_TRACE(ToString(m));
    // v_n0 = -5: (1 - d v_n0) = 3.5, eps_s = 1.75e-4 (second branch).
    // v_n0 = -0.1: (1 - d v_n0) = 1.05, eps_s = v_s.
    const bool lagged = m == ContactModel::kLagged;
    for (double v_n0 : {-5.0, -0.1}) {
      const bool second = v_n0 < -1.0;
      SCOPED_TRACE(v_n0);
      const Case stick = HcCase(m, 0.5, v_n0, Vector3(0.3, 2e-5, 5e-5));
      Check(stick, {ProjectionRegion::kStiction, false, second});
      ExpectMovingInputs(stick, second, second || lagged);
      const Case slide = HcCase(m, 0.5, v_n0, Vector3(0.3, -0.02, 0.01));
      Check(slide, {ProjectionRegion::kSliding, false, second});
      ExpectNonzero(slide, {0, 1, 2, 3, 4});
      ExpectMovingInputs(slide, second, second || lagged);
    }
  }
}

TEST(ContactImpulsePartials, HuntCrossleyNearRigid) {
  // k_floor = 4 pi^2 / (w dt^2) = 3.9e7 N/m < k: k_eff = k_floor depends on
  // dt, not on k; eps_s = 0.5e-3 * 39.5 * 0.5 = 9.9e-3 m/s (second branch);
  // with mu = 1e-3 it is v_s (first branch). (1 - d v_n0) = 0.5: n0
  // uncapped. w enters through k_eff (and eps_s on its second branch), v_n0
  // through eps_s on its second branch and n0 (lagged).
  for (ContactModel m : kHcModels) {
    SCOPED_TRACE(ToString(m));
    const bool lagged = m == ContactModel::kLagged;
    for (double k : {1e9, kInf}) {
      SCOPED_TRACE(k);
      Case stick = HcCase(m, 50.0, 0.01, Vector3(0.005, 1e-3, -2e-3));
      stick.params.stiffness = k;
      Check(stick, {ProjectionRegion::kStiction, true, true});
      EXPECT_EQ(Partials(stick).stiffness, Vector3::Zero());
      ExpectNonzero(stick, {0, 2, 3, 4});
      ExpectMovingInputs(stick, true, true);
      Case slide = stick;
      slide.v_c = Vector3(0.005, 0.1, -0.2);
      Check(slide, {ProjectionRegion::kSliding, true, true});
      EXPECT_EQ(Partials(slide).stiffness, Vector3::Zero());
      ExpectNonzero(slide, {0, 2, 3, 4});
      ExpectMovingInputs(slide, true, true);
      Case first = slide;
      first.params.friction = 1e-3;
      Check(first, {ProjectionRegion::kSliding, true, false});
      EXPECT_EQ(Partials(first).stiffness, Vector3::Zero());
      ExpectMovingInputs(first, true, lagged);
      // Only k_eff = 4 pi^2 / (w dt^2) moves with w here, and n is
      // proportional to k_eff at fixed v: d gamma_n / d w = -gamma_n / w.
      const ContactConstraintState s =
          MakeConstraint(first).Evaluate(first.v_c);
      EXPECT_NEAR(Partials(first).delassus(kNormal), -s.gamma(kNormal),
                  1e-12 * s.gamma(kNormal));
    }
  }
}

TEST(ContactImpulsePartials, HuntCrossleySeparated) {
  // similar: v_n = 0.5 > v_hat = 0.02: n = 0, region kNoContact, all zero.
  const Case similar =
      HcCase(ContactModel::kSimilar, 50.0, -0.1, Vector3(0.5, 0.01, 0.02));
  Check(similar, {ProjectionRegion::kNoContact, false, true});
  // lagged: n = 0 but friction mu n0 > 0 still acts: region kSliding, the
  // normal partials 0, the tangential ones not.
  const Case lagged =
      HcCase(ContactModel::kLagged, 50.0, -0.1, Vector3(0.5, 0.01, 0.02));
  Check(lagged, {ProjectionRegion::kSliding, false, true});
  ExpectNonzero(lagged, {0, 1, 2, 3, 4});
  // eps_s = 3e-4 on its second branch moves with w and v_n0 (n0 is capped).
  ExpectMovingInputs(lagged, true, true);
  // lagged across a gap (phi0 = +1 mm, f_e0 < 0): n0 = 0, region
  // kNoContact.
  Case gap = lagged;
  gap.phi0 = 1e-3;
  gap.v_c = Vector3(0.0, 0.01, 0.02);
  Check(gap, {ProjectionRegion::kNoContact, false, false});
  for (const Case* c : {&similar, static_cast<const Case*>(&gap)}) {
    const ContactImpulsePartials p = Partials(*c);
    for (int i = 0; i < kNumParams; ++i) {
      EXPECT_EQ(Column(p, i), Vector3::Zero()) << kParamNames[i];
    }
  }
  const ContactImpulsePartials p = Partials(lagged);
  for (int i = 0; i < kNumParams; ++i) {
    EXPECT_EQ(Column(p, i)(kNormal), 0.0) << kParamNames[i];
  }
}

TEST(ContactImpulsePartials, HuntCrossleyDampingReversed) {
  // d = 50 s/m, v_n0 = 0.05 m/s: 1 - d v_n0 = -1.5 < 0, so (1 - d v_n0)_+ =
  // 0: n0 = 0 and eps_s = v_s (first branch); gamma does not depend on v_n0,
  // and (compliant) not on w; near-rigid, w moves k_eff.
  for (ContactModel m : kHcModels) {
    SCOPED_TRACE(ToString(m));
    for (double k : {1e5, 1e9}) {
      SCOPED_TRACE(k);
      const bool floor = k > 1e8;
      Case stick = HcCase(m, 50.0, 0.05, Vector3(0.005, 3e-5, -2e-5));
      stick.params.stiffness = k;
      Check(stick, {ProjectionRegion::kStiction, floor, false});
      ExpectMovingInputs(stick, floor, false);
      Case slide = stick;
      slide.v_c = Vector3(0.005, 0.01, -0.02);
      Check(slide, {ProjectionRegion::kSliding, floor, false});
      ExpectMovingInputs(slide, floor, false);
      EXPECT_EQ(Partials(slide).normal_velocity0, Vector3::Zero());
    }
  }
}

// ----- boundary_distance ------------------------------------------------

// The piece of v_c space a velocity is on, for a fixed contact: the region
// and whether the normal impulse is positive (the Hunt-Crossley kink).
std::pair<ProjectionRegion, bool> VelocityPiece(const ContactConstraint& k,
                                                const Vector3& v_c) {
  const ContactConstraintState s = k.Evaluate(v_c, false);
  return {s.region, s.gamma(kNormal) > 0.0};
}

std::vector<Case> BoundaryCases() {
  std::vector<Case> cases;
  cases.push_back(SapCase(Vector3::Zero()));
  Case rigid = SapCase(Vector3::Zero());
  rigid.params.stiffness = kInf;
  cases.push_back(rigid);
  Case ratio = SapCase(Vector3::Zero());
  ratio.reg.friction_regularization = 0.1;
  cases.push_back(ratio);
  for (ContactModel m : kHcModels) {
    cases.push_back(HcCase(m, 50.0, -0.1, Vector3::Zero()));
    cases.push_back(HcCase(m, 0.5, -5.0, Vector3::Zero()));
  }
  return cases;
}

// A valid lower bound: every random point closer than boundary_distance is
// on the same piece, and every point on another piece is farther; and the
// reported region is Evaluate's.
TEST(ContactImpulsePartials, BoundaryDistanceIsALowerBound) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  int positive = 0, other_piece = 0;
  for (const Case& base : BoundaryCases()) {
    const ContactConstraint k = MakeConstraint(base);
    // Velocity scales of the contact: its v_hat and the friction slip.
    const double vn_scale = base.params.model == ContactModel::kSap
                                ? std::abs(k.regularization().v_hat_n)
                                : std::abs(k.hunt_crossley().v_hat);
    const double vt_scale = base.params.model == ContactModel::kSap
                                ? 0.1 * k.regularization().R_t
                                : k.hunt_crossley().eps_s;
    for (int i = 0; i < 400; ++i) {
      const Vector3 v(vn_scale * 2.0 * U(rng),
                      vt_scale * std::pow(10.0, 2.0 * U(rng)) * U(rng),
                      vt_scale * std::pow(10.0, 2.0 * U(rng)) * U(rng));
      Case c = base;
      c.v_c = v;
      const ContactImpulsePartials p = Partials(c);
      ASSERT_EQ(p.region, k.Evaluate(v, false).region);
      ASSERT_GE(p.boundary_distance, 0.0);
      const auto piece = VelocityPiece(k, v);
      if (p.boundary_distance > 0.0) ++positive;
      // Points inside the ball.
      for (int j = 0; j < 5; ++j) {
        Vector3 dir(N(rng), N(rng), N(rng));
        dir.normalize();
        const Vector3 inside = v + 0.999 * p.boundary_distance * dir;
        EXPECT_TRUE(VelocityPiece(k, inside) == piece)
            << "v = " << v.transpose() << " bd = " << p.boundary_distance;
      }
      // Points near v on another piece are at least boundary_distance away.
      for (int j = 0; j < 5; ++j) {
        const Vector3 other(v(0) + vn_scale * 0.5 * U(rng),
                            v(1) + vt_scale * 10.0 * U(rng),
                            v(2) + vt_scale * 10.0 * U(rng));
        if (VelocityPiece(k, other) == piece) continue;
        ++other_piece;
        EXPECT_LE(p.boundary_distance, (other - v).norm())
            << "v = " << v.transpose() << " other = " << other.transpose();
      }
    }
  }
  EXPECT_GT(positive, 2000);
  EXPECT_GT(other_piece, 1000);
}

// Along a line through a region boundary (found by bisection on Evaluate's
// region), boundary_distance falls to ~0 on both sides and grows away from
// it.
void ExpectVanishesAtBoundary(const Case& base, const Vector3& v0,
                              const Vector3& v1) {
  const ContactConstraint k = MakeConstraint(base);
  const auto piece0 = VelocityPiece(k, v0);
  ASSERT_FALSE(VelocityPiece(k, v1) == piece0);
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (VelocityPiece(k, v0 + mid * (v1 - v0)) == piece0 ? lo : hi) = mid;
  }
  const double length = (v1 - v0).norm();
  Case c = base;
  for (double t : {lo, hi}) {
    c.v_c = v0 + t * (v1 - v0);
    const ContactImpulsePartials p = Partials(c);
    EXPECT_EQ(p.region, k.Evaluate(c.v_c, false).region);
    EXPECT_LE(p.boundary_distance, 1e-12 * length + 1e-15) << t;
  }
  // Away from the boundary the distance grows.
  c.v_c = v0 + 0.5 * lo * (v1 - v0);
  const double half = Partials(c).boundary_distance;
  c.v_c = v0 + 0.9 * lo * (v1 - v0);
  const double near = Partials(c).boundary_distance;
  EXPECT_GT(half, near);
  EXPECT_GT(near, 1e-6 * length);
}

TEST(ContactImpulsePartials, BoundaryDistanceVanishesAtBoundaries) {
  const Case sap = SapCase(Vector3::Zero());
  // Region I -> II along the slip, II -> III along the normal.
  ExpectVanishesAtBoundary(sap, Vector3(0.0, 1e-5, 1e-5),
                           Vector3(0.0, 1e-3, 1e-3));
  ExpectVanishesAtBoundary(sap, Vector3(0.0, 0.01, -0.02),
                           Vector3(0.3, 0.01, -0.02));
  // Region I -> III straight through the apex region.
  ExpectVanishesAtBoundary(sap, Vector3(0.0, 1e-5, 0.0),
                           Vector3(0.3, 1e-5, 0.0));
  for (ContactModel m : kHcModels) {
    SCOPED_TRACE(ToString(m));
    const Case hc = HcCase(m, 50.0, -0.1, Vector3::Zero());
    // The band edge ||v_t|| = eps_s = 3e-4 (stiction -> sliding).
    ExpectVanishesAtBoundary(hc, Vector3(0.005, 1e-5, -1e-5),
                             Vector3(0.005, 1e-3, -1e-3));
    // The end of n's support (v_hat = 0.02 m/s).
    ExpectVanishesAtBoundary(hc, Vector3(0.005, 0.01, -0.02),
                             Vector3(0.5, 0.01, -0.02));
  }
}

TEST(ContactImpulsePartials, RejectsNonFiniteVelocity) {
  Case c = SapCase(Vector3(std::nan(""), 0.0, 0.0));
  EXPECT_THROW(Partials(c), std::invalid_argument);
  c.v_c = Vector3::Zero();
  c.params.friction = -1.0;
  EXPECT_THROW(Partials(c), std::invalid_argument);
}

// After the run, prints the worst ratio of each partial over every case
// checked (each is also asserted per case above).
class WorstRatioReport : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_checks == 0) return;
    std::cout << "ContactImpulsePartials: worst |fd - an| / max(|an|, scale) "
                 "over "
              << g_checks << " cases:\n";
    for (int i = 0; i < kNumParams; ++i) {
      std::cout << "  " << kParamNames[i] << ": " << g_worst[i] << "\n";
    }
  }
};
::testing::Environment* const g_report =
    ::testing::AddGlobalTestEnvironment(new WorstRatioReport);

}  // namespace
}  // namespace sapcontact
