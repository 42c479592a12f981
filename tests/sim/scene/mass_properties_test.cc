// Mass and inertia from shapes against closed forms and against an
// independent quadrature over disk slices.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sapcontact/geometry/shapes.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kPi;

// Solid of revolution about z with slice radius rho(z) on [z0, z1], density
// 1: returns (volume, I_xx, I_zz) by composite Simpson's rule. A thin disk
// of radius a at height z contributes dV = pi a^2 dz,
// dI_zz = pi a^4 / 2 dz and dI_xx = (pi a^4 / 4 + pi a^2 z^2) dz.
Vector3 RevolutionIntegrals(const std::function<double(double)>& rho, double z0,
                            double z1, int n) {
  Vector3 sum = Vector3::Zero();
  const double h = (z1 - z0) / n;
  for (int i = 0; i <= n; ++i) {
    const double z = z0 + i * h;
    const double a = rho(z);
    const double w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    const double a2 = a * a;
    sum += w * Vector3(kPi * a2, kPi * a2 * a2 / 4.0 + kPi * a2 * z * z,
                       kPi * a2 * a2 / 2.0);
  }
  return sum * h / 3.0;
}

TEST(MassProperties, BoxClosedForm) {
  const Shape box = MakeBox(0.1, 0.2, 0.3);
  EXPECT_NEAR(Volume(box), 0.006, 1e-17);
  const MassProperties mp = MassPropertiesFromMass(box, 6.0);
  EXPECT_EQ(mp.mass, 6.0);
  EXPECT_NEAR(mp.inertia(0, 0), 6.0 / 12.0 * (0.04 + 0.09), 1e-15);
  EXPECT_NEAR(mp.inertia(1, 1), 6.0 / 12.0 * (0.01 + 0.09), 1e-15);
  EXPECT_NEAR(mp.inertia(2, 2), 6.0 / 12.0 * (0.01 + 0.04), 1e-15);
  EXPECT_EQ(mp.inertia(0, 1), 0.0);
  // From density: the same body.
  const MassProperties md = MassPropertiesFromDensity(box, 1000.0);
  EXPECT_NEAR(md.mass, 6.0, 1e-12);
  EXPECT_TRUE(md.inertia.isApprox(mp.inertia, 1e-12));
}

TEST(MassProperties, SphereClosedForm) {
  const Shape s = MakeSphere(0.05);
  const MassProperties mp = MassPropertiesFromDensity(s, 1000.0);
  const double m = 1000.0 * 4.0 / 3.0 * kPi * std::pow(0.05, 3);
  EXPECT_NEAR(mp.mass, m, 1e-14);
  EXPECT_TRUE(mp.inertia.isApprox(
      Matrix3(Vector3::Constant(0.4 * m * 0.0025).asDiagonal()), 1e-14));
}

TEST(MassProperties, CapsuleAgainstQuadrature) {
  const double r = 0.05, L = 0.3;
  const Shape c = MakeCapsule(r, L);
  // Slice radius of the capsule along its axis.
  auto rho = [&](double z) {
    const double over = std::max(0.0, std::abs(z) - L / 2);
    return std::sqrt(std::max(0.0, r * r - over * over));
  };
  // The hemispherical caps make rho non-smooth at |z| = L/2 and sqrt-like
  // at the tips: integrate the three pieces separately.
  const int n = 20000;
  const Vector3 q = RevolutionIntegrals(rho, -L / 2 - r, -L / 2, n) +
                    RevolutionIntegrals(rho, -L / 2, L / 2, n) +
                    RevolutionIntegrals(rho, L / 2, L / 2 + r, n);
  EXPECT_NEAR(Volume(c), q[0], 1e-9 * q[0]);
  const MassProperties mp = MassPropertiesFromDensity(c, 1.0);
  EXPECT_NEAR(mp.mass, q[0], 1e-9 * q[0]);
  EXPECT_NEAR(mp.inertia(0, 0), q[1], 1e-7 * q[1]);
  EXPECT_NEAR(mp.inertia(1, 1), q[1], 1e-7 * q[1]);
  EXPECT_NEAR(mp.inertia(2, 2), q[2], 1e-7 * q[2]);
  // With a given mass the inertia scales linearly.
  const MassProperties m2 = MassPropertiesFromMass(c, 2.0);
  EXPECT_EQ(m2.mass, 2.0);
  EXPECT_TRUE(m2.inertia.isApprox(mp.inertia * (2.0 / mp.mass), 1e-12));
}

TEST(MassProperties, CapsuleLimits) {
  // Length -> 0: a sphere; radius -> 0: a thin rod m L^2 / 12.
  const MassProperties ball = MassPropertiesFromMass(MakeCapsule(0.1, 0.0), 1);
  EXPECT_NEAR(ball.inertia(0, 0), 0.4 * 0.01, 1e-15);
  EXPECT_NEAR(ball.inertia(2, 2), 0.4 * 0.01, 1e-15);
  const MassProperties rod = MassPropertiesFromMass(MakeCapsule(1e-6, 1.0), 1);
  EXPECT_NEAR(rod.inertia(0, 0), 1.0 / 12.0, 1e-6);
  EXPECT_NEAR(rod.inertia(2, 2), 0.0, 1e-11);
}

TEST(MassProperties, RejectsInvalidInput) {
  EXPECT_THROW(MassPropertiesFromMass(MakePlane(), 1.0), std::invalid_argument);
  EXPECT_THROW(MassPropertiesFromMass(MakeSphere(0.1), 0.0),
               std::invalid_argument);
  EXPECT_THROW(MassPropertiesFromDensity(MakeSphere(0.1), -1.0),
               std::invalid_argument);
  EXPECT_THROW(MassPropertiesFromDensity(MakeSphere(0.1), NAN),
               std::invalid_argument);
  EXPECT_THROW(MassPropertiesFromMass(MakeBox(1, 0, 1), 1.0),
               std::invalid_argument);
  EXPECT_THROW(MassPropertiesFromMass(MakeCapsule(0.1, -1), 1.0),
               std::invalid_argument);
}

TEST(Shapes, AabbIsTightForRotatedShapes) {
  Pose pose;
  pose.position = Vector3(1, 2, 3);
  pose.orientation = Eigen::AngleAxisd(kPi / 4, Vector3::UnitZ());
  const Aabb box = ComputeAabb(MakeBox(2, 2, 1), pose, 0.1);
  const double h = std::sqrt(2.0) + 0.1;
  EXPECT_TRUE(box.lower.isApprox(Vector3(1 - h, 2 - h, 2.4), 1e-14));
  EXPECT_TRUE(box.upper.isApprox(Vector3(1 + h, 2 + h, 3.6), 1e-14));
  // Capsule along world x after a quarter turn about y.
  pose.orientation = Eigen::AngleAxisd(kPi / 2, Vector3::UnitY());
  const Aabb cap = ComputeAabb(MakeCapsule(0.1, 1.0), pose);
  EXPECT_TRUE(cap.lower.isApprox(Vector3(0.4, 1.9, 2.9), 1e-14));
  EXPECT_TRUE(cap.upper.isApprox(Vector3(1.6, 2.1, 3.1), 1e-14));
  const Aabb plane = ComputeAabb(MakePlane(), pose);
  EXPECT_TRUE(std::isinf(plane.lower.x()) && plane.lower.x() < 0);
  EXPECT_TRUE(plane.Overlaps(box));
}

}  // namespace
}  // namespace sapcontact
