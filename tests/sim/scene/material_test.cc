// The pair-parameter combination rule (sim/scene/material.h).
#include "sapcontact/sim/scene/material.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sapcontact {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Material M(double k, double tau, double mu) {
  Material m;
  m.name = "m";
  m.stiffness = k;
  m.dissipation_time_scale = tau;
  m.friction = mu;
  return m;
}

TEST(CombineMaterials, SpringsInSeriesTimeScalesAddedHarmonicFriction) {
  const ContactParameters p =
      CombineMaterials(M(1e6, 0.01, 0.4), M(3e6, 0.02, 0.6));
  EXPECT_NEAR(p.stiffness, 1e6 * 3e6 / 4e6, 1e-9);
  // Series springs: the compliance is the sum of the compliances.
  EXPECT_NEAR(1.0 / p.stiffness, 1.0 / 1e6 + 1.0 / 3e6, 1e-18);
  EXPECT_NEAR(p.dissipation_time_scale, 0.03, 1e-17);
  EXPECT_NEAR(p.friction, 2 * 0.4 * 0.6 / 1.0, 1e-15);
}

TEST(CombineMaterials, IsSymmetric) {
  const Material a = M(2e5, 0.0, 0.3), b = M(7e6, 0.05, 1.1);
  const ContactParameters ab = CombineMaterials(a, b);
  const ContactParameters ba = CombineMaterials(b, a);
  EXPECT_EQ(ab.stiffness, ba.stiffness);
  EXPECT_EQ(ab.dissipation_time_scale, ba.dissipation_time_scale);
  EXPECT_EQ(ab.friction, ba.friction);
}

TEST(CombineMaterials, SameMaterialHalvesStiffnessDoublesTimeScale) {
  const ContactParameters p =
      CombineMaterials(M(1e6, 0.01, 0.5), M(1e6, 0.01, 0.5));
  EXPECT_EQ(p.stiffness, 5e5);
  EXPECT_EQ(p.dissipation_time_scale, 0.02);
  EXPECT_EQ(p.friction, 0.5);
}

TEST(CombineMaterials, InfiniteStiffness) {
  EXPECT_EQ(CombineMaterials(M(kInf, 0, 0.5), M(4e5, 0, 0.5)).stiffness, 4e5);
  EXPECT_EQ(CombineMaterials(M(4e5, 0, 0.5), M(kInf, 0, 0.5)).stiffness, 4e5);
  const double both =
      CombineMaterials(M(kInf, 0, 0.5), M(kInf, 0, 0.5)).stiffness;
  EXPECT_TRUE(std::isinf(both) && both > 0);
}

TEST(CombineMaterials, ZeroFriction) {
  EXPECT_EQ(CombineMaterials(M(1e6, 0, 0), M(1e6, 0, 0)).friction, 0.0);
  EXPECT_EQ(CombineMaterials(M(1e6, 0, 0), M(1e6, 0, 0.8)).friction, 0.0);
  EXPECT_FALSE(
      std::isnan(CombineMaterials(M(1e6, 0, 0), M(1e6, 0, 0)).friction));
}

TEST(CombineMaterials, RejectsInvalidMaterialsNamingThem) {
  Material bad = M(-1, 0, 0.5);
  bad.name = "rubber";
  try {
    CombineMaterials(M(1e6, 0, 0.5), bad);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rubber"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("stiffness"), std::string::npos);
  }
  EXPECT_THROW(CombineMaterials(M(1e6, -1, 0.5), M(1e6, 0, 0.5)),
               std::invalid_argument);
  EXPECT_THROW(CombineMaterials(M(1e6, 0, NAN), M(1e6, 0, 0.5)),
               std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
