// Regularization values (docs/theory.md §3) against hand-computed numbers.
#include "sapcontact/contact_model/regularization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sapcontact/contact_model/regime_estimates.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kInf;

TEST(DelassusDiagonalEstimate, IsRmsOfTheNineEntries) {
  Matrix3 W;
  W << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  // sqrt(1+4+...+81) / 3 = sqrt(285) / 3.
  EXPECT_DOUBLE_EQ(DelassusDiagonalEstimate(W), std::sqrt(285.0) / 3.0);
  // Point mass: W_kk = I/m -> w = 1/(sqrt(3) m).
  EXPECT_DOUBLE_EQ(DelassusDiagonalEstimate(Matrix3::Identity() / 2.0),
                   1.0 / (std::sqrt(3.0) * 2.0));
}

TEST(Regularization, CompliantContactUsesStiffness) {
  // dt = 0.01, tau_d = 0.09, k = 100: 1/(dt k (dt + tau_d)) = 1/(0.01*100*0.1)
  // = 10, far above the floor 0.1/(4 pi^2) = 2.533e-3.
  ContactParameters p{100.0, 0.09, 0.5};
  RegularizationParameters reg;  // beta = 1, sigma = 1e-3
  const ContactRegularization r =
      ComputeRegularization(p, reg, 0.01, 0.1, -0.002);
  EXPECT_NEAR(r.R_n, 10.0, 1e-12);
  EXPECT_FALSE(r.near_rigid);
  EXPECT_DOUBLE_EQ(r.R_t, 1e-4);               // sigma w = 1e-3 * 0.1
  EXPECT_NEAR(r.v_hat_n, 0.002 / 0.1, 1e-15);  // -phi0/(dt + tau_d)
  EXPECT_DOUBLE_EQ(r.mu, 0.5);
  EXPECT_NEAR(r.mu_tilde(), 0.5 * std::sqrt(1e-4 / 10.0), 1e-15);
  EXPECT_EQ(r.R(), Vector3(r.R_n, 1e-4, 1e-4));
  EXPECT_EQ(r.v_hat(), Vector3(0.02, 0.0, 0.0));
}

TEST(Regularization, StiffContactHitsNearRigidFloor) {
  // k = 1e9: compliant term 1/(0.01*1e9*0.1) = 1e-8 < floor.
  ContactParameters p{1e9, 0.09, 0.5};
  RegularizationParameters reg;
  reg.near_rigid_threshold = 0.5;
  const ContactRegularization r = ComputeRegularization(p, reg, 0.01, 0.1, 0.0);
  // beta^2 w / (4 pi^2) = 0.25 * 0.1 / 39.47841760435743.
  EXPECT_NEAR(r.R_n, 6.332573977646111e-4, 1e-18);
  EXPECT_TRUE(r.near_rigid);
  EXPECT_DOUBLE_EQ(r.v_hat_n, 0.0);
}

TEST(Regularization, InfiniteStiffnessGivesNearRigidValue) {
  ContactParameters p{kInf, 0.0, 1.0};
  RegularizationParameters reg;  // beta = 1
  const ContactRegularization r = ComputeRegularization(p, reg, 1e-3, 2.0, 0.0);
  EXPECT_NEAR(r.R_n, 2.0 / 39.47841760435743, 1e-16);
  EXPECT_TRUE(r.near_rigid);
  EXPECT_TRUE(std::isfinite(r.mu_tilde()));
  // R_t / R_n = 4 pi^2 sigma / beta^2 at the floor: the bound of docs/theory.md
  // §9.
  EXPECT_NEAR(r.R_t / r.R_n,
              MaxTangentialToNormalRegularizationRatio(1.0, 1e-3), 1e-14);
  EXPECT_NEAR(MaxTangentialToNormalRegularizationRatio(1.0, 1e-3), 0.0394784,
              1e-7);
}

TEST(Regularization, InfiniteStiffnessWithoutFloorIsRejected) {
  ContactParameters p{kInf, 0.0, 1.0};
  RegularizationParameters reg;
  reg.near_rigid_threshold = 0.0;
  try {
    ComputeRegularization(p, reg, 1e-3, 1.0, 0.0, "contact 7");
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("contact 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("R_n"), std::string::npos) << msg;
    EXPECT_NE(msg.find("beta"), std::string::npos) << msg;
  }
}

// Point mass m on one contact: W_kk = I/m, w = 1/(sqrt(3) m); k = inf,
// tau_d = 0, beta = 1, g = 9.81. The near-rigid resting penetration is
// g dt^2 / (4 pi^2 sqrt(3)), independent of m.
// A draft once printed 8.3e-8 m at dt = 1e-3 (docs/theory.md §14): it used
// m/m_k = 1/3, contradicting
// its own RMS definition m_k^-1 = ||W_kk||/3 (which gives 1/sqrt(3)). The SAP
// paper's rounder g dt^2/(4 pi^2) = 2.5e-7 m takes m_k = m.
TEST(Regularization, PointMassNearRigidRestingPenetration) {
  const double g = 9.81;
  for (double m : {0.1, 1.0, 37.0}) {
    const double w = DelassusDiagonalEstimate(Matrix3::Identity() / m);
    // 1.43e-7 / 1.43e-5 are the 3-digit roundings of 1.4347e-7 / 1.4347e-5.
    for (auto [dt, expected] :
         {std::pair{1e-3, 1.4347e-7}, {1e-2, 1.4347e-5}}) {
      const ContactRegularization r =
          ComputeRegularization(ContactParameters{kInf, 0.0, 0.5},
                                RegularizationParameters{}, dt, w, 0.0);
      const double phi = RestingPenetration(m, g, 1, dt, 0.0, r.R_n);
      EXPECT_NEAR(phi / expected, 1.0, 1e-3) << "m=" << m << " dt=" << dt;
      EXPECT_NEAR(phi / (dt * dt), 0.143,
                  0.0005);  // rounds to 1.43 dt^2 / 1e-4
      EXPECT_NEAR(phi, g * dt * dt / (4 * M_PI * M_PI * std::sqrt(3.0)),
                  1e-12 * phi);
      EXPECT_DOUBLE_EQ(phi,
                       NearRigidRestingPenetration(m, g, 1, dt, 0.0, 1.0, w));
    }
  }
}

}  // namespace
}  // namespace sapcontact
