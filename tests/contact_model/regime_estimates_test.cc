// Regime estimates (docs/theory.md §9) against their closed forms.
#include "sapcontact/contact_model/regime_estimates.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {
namespace {

TEST(RegimeEstimates, CompliantPenetrationIsSpringDeflection) {
  // With R_n from the compliant term, (m g/n) dt (dt+tau) R_n = m g/(n k).
  const double m = 10, g = 9.81, k = 1e5, dt = 1e-3, tau = 0.02;
  const int n = 4;
  const double w = 0.05;
  const ContactRegularization r = ComputeRegularization(
      ContactParameters{k, tau, 0.5}, RegularizationParameters{}, dt, w, 0.0);
  ASSERT_FALSE(r.near_rigid);
  EXPECT_NEAR(RestingPenetration(m, g, n, dt, tau, r.R_n),
              CompliantRestingPenetration(m, g, n, k), 1e-15);
  EXPECT_NEAR(CompliantRestingPenetration(m, g, n, k), 10 * 9.81 / 4e5, 1e-15);
}

TEST(RegimeEstimates, NearRigidFloorAndCrossover) {
  const double dt = 1e-2, tau = 0.0, beta = 0.3, w = 0.2;
  const double k_star = NearRigidCrossoverStiffness(dt, tau, beta, w);
  // At the crossover both terms of R_n agree.
  EXPECT_NEAR(1.0 / (dt * k_star * (dt + tau)),
              beta * beta * w / (4 * M_PI * M_PI), 1e-15);
  // Stiffer than the crossover: the floor; softer: compliant.
  RegularizationParameters reg;
  reg.near_rigid_threshold = beta;
  EXPECT_TRUE(ComputeRegularization(ContactParameters{2 * k_star, tau, 0.5},
                                    reg, dt, w, 0)
                  .near_rigid);
  EXPECT_FALSE(ComputeRegularization(ContactParameters{0.5 * k_star, tau, 0.5},
                                     reg, dt, w, 0)
                   .near_rigid);
  // (m g/n) dt (dt+tau) beta^2 w/(4 pi^2) by hand: 2*9.81/2 * 1e-4 * 0.018 /
  // 39.4784176 = 4.4728e-7.
  EXPECT_NEAR(NearRigidRestingPenetration(2.0, 9.81, 2, dt, tau, beta, w),
              9.81 * 1e-4 * 0.09 * 0.2 / 39.47841760435743, 1e-20);
}

TEST(RegimeEstimates, StictionSlip) {
  EXPECT_DOUBLE_EQ(StictionSlipVelocity(1e-4, -3.0), 3e-4);
  // SAP paper §V-B: sigma = 1e-3, dt = 1e-2, g = 9.81, mu = 1: about 1e-4 m/s.
  EXPECT_NEAR(PointMassStictionSlipBound(1e-3, 1.0, 9.81, 1e-2), 9.81e-5,
              1e-18);
  // The point-mass slip at the edge of the cone, R_t mu m g dt with
  // R_t = sigma w and w = 1/(sqrt(3) m), is below the bound.
  const double m = 3.0, sigma = 1e-3, mu = 0.7, g = 9.81, dt = 1e-3;
  const double w = DelassusDiagonalEstimate(Matrix3::Identity() / m);
  const double slip = StictionSlipVelocity(sigma * w, mu * m * g * dt);
  EXPECT_LT(slip, PointMassStictionSlipBound(sigma, mu, g, dt));
  EXPECT_NEAR(slip * std::sqrt(3.0),
              PointMassStictionSlipBound(sigma, mu, g, dt), 1e-15);
}

}  // namespace
}  // namespace sapcontact
