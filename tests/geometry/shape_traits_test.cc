// The shape table (geometry/shape_traits.h) and the cylinder's geometry:
// the table covers every ShapeType in order and drives validation; the
// cylinder's volume, inertia, bounding radius and box agree with
// independent computations (numerical integration, sampled surfaces).
#include "sapcontact/geometry/shape_traits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kPi;

TEST(ShapeTraits, OneRowPerTypeInEnumOrder) {
  const auto& table = AllShapeTraits();
  std::set<std::string> names;
  for (int i = 0; i < kNumShapeTypes; ++i) {
    EXPECT_EQ(static_cast<int>(table[i].type), i);
    EXPECT_TRUE(names.insert(table[i].name).second) << table[i].name;
    EXPECT_EQ(ShapeTypeName(table[i].type), std::string(table[i].name));
    ASSERT_TRUE(ShapeTypeFromName(table[i].name).has_value());
    EXPECT_EQ(*ShapeTypeFromName(table[i].name), table[i].type);
    for (const ShapeParameter& p : table[i].parameters) {
      EXPECT_NE(std::find(AllShapeKeys().begin(), AllShapeKeys().end(),
                          std::string(p.key)),
                AllShapeKeys().end())
          << p.key;
    }
  }
  EXPECT_FALSE(ShapeTypeFromName("cone").has_value());
  EXPECT_EQ(ShapeTypeNames(" | "),
            "plane | box | sphere | capsule | cylinder | mesh");
  EXPECT_EQ(AllShapeKeys().front(), "type");
}

// A valid shape of each type with lengths (not meshes, which need a file).
Shape Valid(ShapeType type) {
  switch (type) {
    case ShapeType::kBox:
      return MakeBox(0.1, 0.2, 0.3);
    case ShapeType::kSphere:
      return MakeSphere(0.1);
    case ShapeType::kCapsule:
      return MakeCapsule(0.1, 0.4);
    case ShapeType::kCylinder:
      return MakeCylinder(0.1, 0.4);
    default:
      return MakePlane();
  }
}

TEST(ShapeTraits, ValidationFollowsTheTable) {
  for (const ShapeTraits& t : AllShapeTraits()) {
    if (t.type == ShapeType::kMesh) continue;
    const Shape good = Valid(t.type);
    EXPECT_NO_THROW(Validate(good, "x"));
    for (const ShapeParameter& p : t.parameters) {
      for (int i = 0; i < p.count; ++i) {
        for (double bad : {-1.0, 0.0, std::nan(""), HUGE_VAL}) {
          if (bad == 0.0 && p.zero_allowed) continue;
          Shape s = good;
          std::vector<double> v = ShapeParameterValues(s, p);
          v[i] = bad;
          SetShapeParameter(&s, p, v);
          const std::string field =
              std::string(t.name) + " " + p.key +
              (p.count > 1 ? "[" + std::to_string(i) + "]" : "");
          try {
            Validate(s, "bodies.b");
            ADD_FAILURE() << field << " = " << bad << " accepted";
          } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("bodies.b: invalid " + field),
                      std::string::npos)
                << e.what();
          }
        }
      }
    }
  }
  // A capsule of length 0 is a sphere; a cylinder of length 0 is nothing.
  EXPECT_NO_THROW(Validate(MakeCapsule(0.1, 0.0)));
  EXPECT_THROW(Validate(MakeCylinder(0.1, 0.0)), std::invalid_argument);
  // A mesh shape needs its mesh.
  Shape mesh;
  mesh.type = ShapeType::kMesh;
  EXPECT_THROW(Validate(mesh), std::invalid_argument);
}

// Volume and inertia of a uniform cylinder by midpoint integration over
// (r, theta, z) cells, independent of the closed forms in shapes.cc.
TEST(CylinderGeometry, MassPropertiesMatchNumericalIntegration) {
  const double R = 0.07, L = 0.3, rho = 2700.0;
  const int nr = 200, nt = 64, nz = 200;
  double m = 0.0;
  Matrix3 I = Matrix3::Zero();
  for (int a = 0; a < nr; ++a) {
    const double r = (a + 0.5) * R / nr;
    for (int b = 0; b < nt; ++b) {
      const double t = (b + 0.5) * 2.0 * kPi / nt;
      for (int c = 0; c < nz; ++c) {
        const double z = -0.5 * L + (c + 0.5) * L / nz;
        const double dm = rho * r * (R / nr) * (2.0 * kPi / nt) * (L / nz);
        const Vector3 x(r * std::cos(t), r * std::sin(t), z);
        m += dm;
        I += dm * (x.squaredNorm() * Matrix3::Identity() - x * x.transpose());
      }
    }
  }
  const Shape cyl = MakeCylinder(R, L);
  const MassProperties mp = MassPropertiesFromDensity(cyl, rho);
  EXPECT_NEAR(mp.mass, m, 1e-9 * m);
  EXPECT_NEAR(Volume(cyl), kPi * R * R * L, 1e-15);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(mp.inertia(i, j), I(i, j), 1e-4 * I.norm()) << i << j;
    }
  }
  // The given mass wins over density * volume.
  EXPECT_EQ(MassPropertiesFromMass(cyl, 2.5).mass, 2.5);
}

TEST(CylinderGeometry, BoundsHoldTheSurfaceTightly) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape cyl = MakeCylinder(0.05, 0.4);
  for (int trial = 0; trial < 50; ++trial) {
    Pose pose;
    pose.position = Vector3(u(rng), u(rng), u(rng));
    pose.orientation =
        Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized();
    const Aabb box = ComputeAabb(cyl, pose);
    Vector3 lo = Vector3::Constant(HUGE_VAL), hi = -lo;
    double reach = 0.0;
    for (int k = 0; k < 3600; ++k) {  // the two rims hold the extremes
      const double t = 2.0 * kPi * k / 3600;
      for (double z : {-0.2, 0.2}) {
        const Vector3 local(0.05 * std::cos(t), 0.05 * std::sin(t), z);
        const Vector3 x = pose.ToWorld(local);
        lo = lo.cwiseMin(x);
        hi = hi.cwiseMax(x);
        reach = std::max(reach, local.norm());
      }
    }
    for (int i = 0; i < 3; ++i) {
      EXPECT_LE(box.lower[i], lo[i] + 1e-12);
      EXPECT_GE(box.upper[i], hi[i] - 1e-12);
      EXPECT_NEAR(box.lower[i], lo[i], 1e-6);
      EXPECT_NEAR(box.upper[i], hi[i], 1e-6);
    }
    EXPECT_NEAR(BoundingRadius(cyl), reach, 1e-12);
  }
}

}  // namespace
}  // namespace sapcontact
