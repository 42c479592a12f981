// The analytic projection (SAP paper §V-A, App. C; docs/theory.md §4): regions,
// continuity, feasibility and optimality against a brute-force projection.
#include "sapcontact/contact_model/friction_cone_projection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/contact_model/projection_oracles.h"

namespace sapcontact {
namespace {

using testing::BruteForceProjection;
using testing::ClassifyExact;
using testing::RandomSample;

constexpr double kEpsilonS = 1e-8;  // the default epsilon_s

TEST(FrictionConeProjection, RegionsInTheInterior) {
  // mu = 0.5, R_n = 4, R_t = 1 -> R_t/R_n = 0.25.
  const double mu = 0.5, Rn = 4.0, Rt = 1.0;
  auto region = [&](const Vector3& y) {
    return ProjectOntoFrictionCone(y, mu, Rn, Rt, kEpsilonS).region;
  };
  EXPECT_EQ(region({1.0, 0.3, 0.2}), ProjectionRegion::kStiction);
  EXPECT_EQ(region({1.0, 0.0, 0.0}), ProjectionRegion::kStiction);
  EXPECT_EQ(region({1.0, 2.0, 0.0}), ProjectionRegion::kSliding);
  EXPECT_EQ(region({-0.1, 1.0, 1.0}), ProjectionRegion::kSliding);
  EXPECT_EQ(region({-1.0, 0.1, 0.0}), ProjectionRegion::kNoContact);
  EXPECT_EQ(region({-1.0, 0.0, 0.0}), ProjectionRegion::kNoContact);
  const Vector3 y(1.0, 0.3, 0.2);
  EXPECT_EQ(ProjectOntoFrictionCone(y, mu, Rn, Rt, kEpsilonS).gamma, y);
  EXPECT_EQ(ProjectOntoFrictionCone(-y, mu, Rn, Rt, kEpsilonS).gamma,
            Vector3::Zero());
}

TEST(FrictionConeProjection, RegionsOnTheBoundaries) {
  // Exact norm (epsilon_s = 0) so that boundary points are exactly
  // representable: region I is closed, region III open (SAP paper App. C).
  const double mu = 0.5, Rn = 4.0, Rt = 1.0;  // mu R_t/R_n = 0.125
  // On the cone surface: ||y_t|| = 1 = mu y_n.
  const auto on_cone = ProjectOntoFrictionCone({2.0, 0.6, 0.8}, mu, Rn, Rt, 0);
  EXPECT_EQ(on_cone.region, ProjectionRegion::kStiction);
  EXPECT_EQ(on_cone.gamma, Vector3(2.0, 0.6, 0.8));
  // On the polar-cone surface: y_n = -mu (R_t/R_n) ||y_t|| -> region II with
  // gamma = 0 (the boundary belongs to II, whose formula gives 0 there).
  const auto on_polar =
      ProjectOntoFrictionCone({-0.125, 0.6, 0.8}, mu, Rn, Rt, 0);
  EXPECT_EQ(on_polar.region, ProjectionRegion::kSliding);
  EXPECT_NEAR(on_polar.gamma.norm(), 0.0, 1e-16);
  // The apex belongs to region I.
  const auto apex = ProjectOntoFrictionCone(Vector3::Zero(), mu, Rn, Rt, 0);
  EXPECT_EQ(apex.region, ProjectionRegion::kStiction);
  EXPECT_EQ(apex.gamma, Vector3::Zero());
  // With the soft norm the apex is finite and (nearly) zero too.
  const auto soft_apex =
      ProjectOntoFrictionCone(Vector3::Zero(), mu, Rn, Rt, kEpsilonS);
  EXPECT_LT(soft_apex.gamma.norm(), kEpsilonS);
  EXPECT_TRUE(soft_apex.dgamma_dy.allFinite());
}

TEST(FrictionConeProjection, ContinuousAcrossRegionBoundaries) {
  const double mu = 0.7, Rn = 2.0, Rt = 0.1;
  const double ratio = Rt / Rn;
  const Vector2 dir = Vector2(3.0, -4.0).normalized();
  for (double eps : {0.0, kEpsilonS}) {
    double prev_jump_12 = 1e300, prev_jump_23 = 1e300;
    for (double gap : {1e-2, 1e-4, 1e-6, 1e-8}) {
      // I/II boundary at y_n = 1: ||y_t|| = mu.
      Vector3 a, b;
      a << 1.0, (mu - gap) * dir;
      b << 1.0, (mu + gap) * dir;
      const auto pa = ProjectOntoFrictionCone(a, mu, Rn, Rt, eps);
      const auto pb = ProjectOntoFrictionCone(b, mu, Rn, Rt, eps);
      ASSERT_EQ(pa.region, ProjectionRegion::kStiction);
      ASSERT_EQ(pb.region, ProjectionRegion::kSliding);
      const double jump12 = (pa.gamma - pb.gamma).norm();
      EXPECT_LT(jump12, 4 * gap);
      EXPECT_LT(jump12, prev_jump_12);
      EXPECT_NEAR(pa.cost, pb.cost, 4 * gap * (Rn + Rt));
      prev_jump_12 = jump12;
      // II/III boundary at ||y_t|| = 1: y_n = -mu ratio.
      Vector3 c, d;
      c << -mu * ratio + gap, dir;
      d << -mu * ratio - gap, dir;
      const auto pc = ProjectOntoFrictionCone(c, mu, Rn, Rt, eps);
      const auto pd = ProjectOntoFrictionCone(d, mu, Rn, Rt, eps);
      ASSERT_EQ(pc.region, ProjectionRegion::kSliding);
      ASSERT_EQ(pd.region, ProjectionRegion::kNoContact);
      const double jump23 = (pc.gamma - pd.gamma).norm();
      EXPECT_LT(jump23, 4 * gap);
      EXPECT_LT(jump23, prev_jump_23);
      EXPECT_LT(pc.cost, 4 * gap * gap * (Rn + Rt));
      prev_jump_23 = jump23;
    }
  }
}

TEST(FrictionConeProjection, FeasibleAndOptimalAgainstBruteForce) {
  std::mt19937 rng(2022);
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < 3000; ++i) {
    const auto s = RandomSample(&rng);
    const auto p = ProjectOntoFrictionCone(s.y, s.mu, s.R_n, s.R_t, kEpsilonS);
    ++counts[static_cast<int>(p.region)];
    const double ynorm = s.y.norm();
    // In the cone (up to round-off).
    EXPECT_LE(Tangential(p.gamma).norm(),
              s.mu * p.gamma(kNormal) + 1e-14 * ynorm);
    EXPECT_GE(p.gamma(kNormal), -1e-14 * ynorm);
    // The minimizer of the R-norm distance.
    const Vector3 g = BruteForceProjection(s.y, s.mu, s.R_n, s.R_t);
    auto dist = [&](const Vector3& x) {
      const Vector3 e = x - s.y;
      return std::sqrt(s.R_n * e(0) * e(0) +
                       s.R_t * Tangential(e).squaredNorm());
    };
    const double scale = std::sqrt(s.R_n) * ynorm;  // an upper bound of dist
    EXPECT_LE(dist(p.gamma), dist(g) + 1e-7 * scale) << "sample " << i;
    const Vector3 sqrtR(std::sqrt(s.R_n), std::sqrt(s.R_t), std::sqrt(s.R_t));
    EXPECT_LE((sqrtR.asDiagonal() * (p.gamma - g)).norm(), 1e-7 * scale)
        << "sample " << i << " y = " << s.y.transpose() << " mu = " << s.mu;
  }
  // The random set covers all three regions.
  EXPECT_GT(counts[1], 300);
  EXPECT_GT(counts[2], 300);
  EXPECT_GT(counts[3], 300);
}

TEST(FrictionConeProjection, Frictionless) {
  // mu = 0: gamma = (max(y_n, 0), 0, 0) whatever y_t.
  for (const Vector3& y : {Vector3(1.5, 0.3, -2.0), Vector3(-1.0, 0.5, 0.5),
                           Vector3(2.0, 0.0, 0.0), Vector3(0.0, 1.0, 0.0)}) {
    const auto p = ProjectOntoFrictionCone(y, 0.0, 1.0, 0.01, kEpsilonS);
    EXPECT_NEAR(p.gamma(kNormal), std::max(y(kNormal), 0.0), 1e-15);
    EXPECT_EQ(Tangential(p.gamma), Vector2::Zero());
    EXPECT_TRUE(p.dgamma_dy.allFinite());
  }
}

TEST(FrictionConeProjection, VeryLargeFriction) {
  const double mu = 1e6, Rn = 1.0, Rt = 1e-2;
  // Anything with y_n > ||y_t|| / mu sticks.
  const Vector3 y(1e-3, 50.0, -20.0);
  EXPECT_EQ(ProjectOntoFrictionCone(y, mu, Rn, Rt, kEpsilonS).gamma, y);
  // Slightly separating y: sliding, gamma nearly y_t with a tiny normal part,
  // still in the cone and optimal.
  const Vector3 z(-1e-9, 1.0, 0.0);
  const auto p = ProjectOntoFrictionCone(z, mu, Rn, Rt, kEpsilonS);
  EXPECT_EQ(p.region, ProjectionRegion::kSliding);
  EXPECT_LE(Tangential(p.gamma).norm(), mu * p.gamma(kNormal) * (1 + 1e-14));
  const Vector3 g = BruteForceProjection(z, mu, Rn, Rt);
  EXPECT_NEAR((p.gamma - g).norm(), 0.0, 1e-7);
  EXPECT_TRUE(p.dgamma_dy.allFinite());
}

TEST(FrictionConeProjection, SoftNormKeepsDerivativesFiniteAtTheApex) {
  for (const Vector3& y : {Vector3(0, 0, 0), Vector3(1e-12, 1e-13, 0),
                           Vector3(-1e-12, 1e-12, 0)}) {
    const auto p = ProjectOntoFrictionCone(y, 0.5, 1.0, 1e-3, kEpsilonS);
    EXPECT_TRUE(p.gamma.allFinite());
    EXPECT_TRUE(p.dgamma_dy.allFinite());
    EXPECT_LT(p.dgamma_dy.norm(), 1.0 / kEpsilonS);
  }
}

}  // namespace
}  // namespace sapcontact
