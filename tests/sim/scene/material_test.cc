// The pair-parameter combination rule (sim/scene/material.h): stiffness,
// dissipation time scale, friction, contact model, Hunt-Crossley dissipation
// and stiction tolerance.
#include "sapcontact/sim/scene/material.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kInf;

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

Material HC(double k, double d, double v_s, ContactModel model) {
  Material m = M(k, 0.01, 0.5);
  m.hunt_crossley_dissipation = d;
  m.stiction_tolerance = v_s;
  m.model = model;
  return m;
}

TEST(CombineMaterials, DefaultsAreThoseOfContactParameters) {
  const ContactParameters defaults;
  const Material m;
  // The model is the exception: a material defaults to lagged, the scenes'
  // default (SolverSettings::contact_model), the solver's contact to sap.
  EXPECT_EQ(defaults.model, ContactModel::kSap);
  EXPECT_EQ(m.model, ContactModel::kLagged);
  EXPECT_EQ(m.hunt_crossley_dissipation, defaults.hunt_crossley_dissipation);
  EXPECT_EQ(m.stiction_tolerance, defaults.stiction_tolerance);
  const ContactParameters p = CombineMaterials(m, m);
  EXPECT_EQ(p.model, ContactModel::kLagged);
  EXPECT_EQ(p.hunt_crossley_dissipation, 50.0);
  EXPECT_EQ(p.stiction_tolerance, 1e-4);
}

// lagged > similar > sap, whichever side asks, for all nine pairs.
TEST(CombineMaterials, ModelByPrecedenceLaggedSimilarSap) {
  const ContactModel kSap = ContactModel::kSap, kSim = ContactModel::kSimilar,
                     kLag = ContactModel::kLagged;
  const struct {
    ContactModel a, b, expected;
  } cases[] = {{kSap, kSap, kSap}, {kSap, kSim, kSim}, {kSim, kSap, kSim},
               {kSap, kLag, kLag}, {kLag, kSap, kLag}, {kSim, kLag, kLag},
               {kLag, kSim, kLag}, {kSim, kSim, kSim}, {kLag, kLag, kLag}};
  for (const auto& c : cases) {
    const ContactParameters p =
        CombineMaterials(HC(1e6, 50, 1e-4, c.a), HC(1e6, 50, 1e-4, c.b));
    EXPECT_EQ(p.model, c.expected) << ToString(c.a) << " with " << ToString(c.b)
                                   << " gave " << ToString(p.model);
  }
}

// Two springs with dampers in series: d = (k_b d_a + k_a d_b) / (k_a + k_b),
// the softer side's d weighing more.
TEST(CombineMaterials, HuntCrossleyDissipationOfDampedSpringsInSeries) {
  const ContactParameters p =
      CombineMaterials(HC(1e6, 10, 1e-4, ContactModel::kLagged),
                       HC(3e6, 50, 1e-4, ContactModel::kLagged));
  EXPECT_NEAR(p.hunt_crossley_dissipation, (3e6 * 10 + 1e6 * 50) / 4e6,
              1e-12);  // 20 s/m: nearer the soft side's 10
  // Equal stiffnesses: the mean; one material: its own d.
  EXPECT_EQ(CombineMaterials(HC(2e5, 10, 1e-4, ContactModel::kSimilar),
                             HC(2e5, 30, 1e-4, ContactModel::kSimilar))
                .hunt_crossley_dissipation,
            20.0);
  EXPECT_EQ(CombineMaterials(HC(2e5, 7, 1e-4, ContactModel::kSimilar),
                             HC(2e5, 7, 1e-4, ContactModel::kSimilar))
                .hunt_crossley_dissipation,
            7.0);
  // Symmetric.
  const Material a = HC(4e5, 3, 1e-4, ContactModel::kSap);
  const Material b = HC(9e7, 80, 1e-4, ContactModel::kLagged);
  EXPECT_EQ(CombineMaterials(a, b).hunt_crossley_dissipation,
            CombineMaterials(b, a).hunt_crossley_dissipation);
}

TEST(CombineMaterials, HuntCrossleyDissipationWithRigidSides) {
  // A rigid side does not deform: the other side's d.
  EXPECT_EQ(CombineMaterials(HC(kInf, 10, 1e-4, ContactModel::kLagged),
                             HC(4e5, 60, 1e-4, ContactModel::kLagged))
                .hunt_crossley_dissipation,
            60.0);
  EXPECT_EQ(CombineMaterials(HC(4e5, 60, 1e-4, ContactModel::kLagged),
                             HC(kInf, 10, 1e-4, ContactModel::kLagged))
                .hunt_crossley_dissipation,
            60.0);
  // Both rigid: the mean (not NaN from inf / inf).
  const double both =
      CombineMaterials(HC(kInf, 10, 1e-4, ContactModel::kLagged),
                       HC(kInf, 60, 1e-4, ContactModel::kLagged))
          .hunt_crossley_dissipation;
  EXPECT_EQ(both, 35.0);
  // Both zero: zero, not NaN.
  EXPECT_EQ(CombineMaterials(HC(1e6, 0, 1e-4, ContactModel::kLagged),
                             HC(kInf, 0, 1e-4, ContactModel::kLagged))
                .hunt_crossley_dissipation,
            0.0);
}

TEST(CombineMaterials, StictionToleranceIsTheLarger) {
  EXPECT_EQ(CombineMaterials(HC(1e6, 50, 1e-5, ContactModel::kLagged),
                             HC(1e6, 50, 3e-3, ContactModel::kSap))
                .stiction_tolerance,
            3e-3);
  EXPECT_EQ(CombineMaterials(HC(1e6, 50, 3e-3, ContactModel::kSap),
                             HC(1e6, 50, 1e-5, ContactModel::kLagged))
                .stiction_tolerance,
            3e-3);
}

TEST(CombineMaterials, RejectsInvalidHuntCrossleyParametersNamingThem) {
  const struct {
    Material m;
    const char* field;
  } cases[] = {
      {HC(1e6, -1, 1e-4, ContactModel::kLagged), "hunt_crossley_dissipation"},
      {HC(1e6, kInf, 1e-4, ContactModel::kLagged), "hunt_crossley_dissipation"},
      {HC(1e6, NAN, 1e-4, ContactModel::kLagged), "hunt_crossley_dissipation"},
      {HC(1e6, 50, 0, ContactModel::kLagged), "stiction_tolerance"},
      {HC(1e6, 50, -1e-4, ContactModel::kLagged), "stiction_tolerance"},
      {HC(1e6, 50, kInf, ContactModel::kLagged), "stiction_tolerance"},
      {HC(1e6, 50, 1e-4, static_cast<ContactModel>(7)), "model"}};
  for (const auto& c : cases) {
    Material bad = c.m;
    bad.name = "felt";
    try {
      CombineMaterials(M(1e6, 0, 0.5), bad);
      ADD_FAILURE() << "no error for " << c.field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("felt"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos)
          << e.what();
    }
  }
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
