// Analytic manifolds: plane against box/sphere/capsule, and box against box.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::kPi;

using testing_util::kPlane;

using testing_util::Nearest;

TEST(PlaneBox, RestingBoxHasFourCornerContacts) {
  const double pen = 1e-4;
  const Shape box = MakeBox(0.2, 0.4, 0.6);
  const auto c =
      Contacts(kPlane, At(Vector3::Zero()), box, At(Vector3(1, 2, 0.3 - pen)));
  ASSERT_EQ(c.size(), 4u);
  for (double x : {0.9, 1.1}) {
    for (double y : {1.8, 2.2}) {
      // Midpoint between the plane (z = 0) and the corner (z = -pen).
      const ContactPoint& k = Nearest(c, Vector3(x, y, -pen / 2));
      EXPECT_TRUE(k.position.isApprox(Vector3(x, y, -pen / 2), 1e-12));
      EXPECT_NEAR(k.phi, -pen, 1e-14);
      EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
    }
  }
  // Swapped order: the normal points from the box into the plane.
  for (const auto& k :
       Contacts(box, At(Vector3(1, 2, 0.3 - pen)), kPlane, At(Vector3::Zero())))
    EXPECT_TRUE(k.normal.isApprox(-Vector3::UnitZ()));
}

TEST(PlaneBox, MarginAdmitsSpeculativeContacts) {
  const Shape box = MakeBox(0.2, 0.2, 0.2);
  const Pose above = At(Vector3(0, 0, 0.1 + 5e-4));
  EXPECT_TRUE(Contacts(kPlane, At(Vector3::Zero()), box, above, 4e-4).empty());
  const auto c = Contacts(kPlane, At(Vector3::Zero()), box, above, 1e-3);
  ASSERT_EQ(c.size(), 4u);
  for (const auto& k : c) EXPECT_NEAR(k.phi, 5e-4, 1e-15);
}

TEST(PlaneBox, BoxOnAnEdgeHasTwoContactsAndOnAVertexOne) {
  const double pen = 1e-4, h = 0.1;
  const Shape cube = MakeBox(2 * h, 2 * h, 2 * h);
  // 45 degrees about x: the lowest edge is along x at depth h sqrt(2).
  const Eigen::Quaterniond qx(Eigen::AngleAxisd(kPi / 4, Vector3::UnitX()));
  const auto edge = Contacts(kPlane, At(Vector3::Zero()), cube,
                             At(Vector3(0, 0, h * std::sqrt(2.0) - pen), qx));
  ASSERT_EQ(edge.size(), 2u);
  for (double x : {-h, h}) {
    const ContactPoint& k = Nearest(edge, Vector3(x, 0, 0));
    EXPECT_TRUE(k.position.isApprox(Vector3(x, 0, -pen / 2), 1e-12));
    EXPECT_NEAR(k.phi, -pen, 1e-14);
  }
  // The diagonal (1, 1, 1) turned to -z: one vertex at depth h sqrt(3).
  const Eigen::Quaterniond qv = Eigen::Quaterniond::FromTwoVectors(
      Vector3(1, 1, 1).normalized(), -Vector3::UnitZ());
  const auto vertex = Contacts(kPlane, At(Vector3::Zero()), cube,
                               At(Vector3(0, 0, h * std::sqrt(3.0) - pen), qv));
  ASSERT_EQ(vertex.size(), 1u);
  EXPECT_NEAR(vertex[0].phi, -pen, 1e-14);
  EXPECT_TRUE(vertex[0].position.isApprox(Vector3(0, 0, -pen / 2), 1e-9));
}

TEST(PlaneSphere, TiltedPlaneNormalAndDistance) {
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(0.5, Vector3::UnitY()));
  const Vector3 n = tilt * Vector3::UnitZ();
  const Vector3 origin(0.3, -0.2, 1.0);
  const Vector3 foot = origin + tilt * Vector3(0.4, 0.7, 0);  // on the plane
  const double r = 0.1, gap = 0.01;
  const auto c = Contacts(kPlane, At(origin, tilt), MakeSphere(r),
                          At(foot + (r + gap) * n), 0.02);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, gap, 1e-14);
  EXPECT_TRUE(c[0].normal.isApprox(n, 1e-14));
  EXPECT_TRUE(c[0].position.isApprox(foot + 0.5 * gap * n, 1e-12));
  EXPECT_TRUE(Contacts(kPlane, At(origin, tilt), MakeSphere(r),
                       At(foot + (r + gap) * n), 0.005)
                  .empty());
}

TEST(PlaneCapsule, LyingCapsuleHasTwoEndContactsTiltedOne) {
  const double r = 0.05, L = 0.4, pen = 1e-4;
  const Eigen::Quaterniond along_x(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));
  const auto c = Contacts(kPlane, At(Vector3::Zero()), MakeCapsule(r, L),
                          At(Vector3(0, 0, r - pen), along_x));
  ASSERT_EQ(c.size(), 2u);
  for (double x : {-L / 2, L / 2}) {
    const ContactPoint& k = Nearest(c, Vector3(x, 0, 0));
    EXPECT_TRUE(k.position.isApprox(Vector3(x, 0, -pen / 2), 1e-12));
    EXPECT_NEAR(k.phi, -pen, 1e-14);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
  }
  // Tilted by 0.2 rad: only the lower end touches.
  const Eigen::Quaterniond tilted(
      Eigen::AngleAxisd(kPi / 2 - 0.2, Vector3::UnitY()));
  // Lower end's axis point at height r - pen: phi = -pen.
  const double centre = r - pen + 0.5 * L * std::sin(0.2);
  const auto t = Contacts(kPlane, At(Vector3::Zero()), MakeCapsule(r, L),
                          At(Vector3(0, 0, centre), tilted));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].phi, -pen, 1e-14);
}

TEST(BoxBox, StackedFaceOnFaceHasFourCorners) {
  const double pen = 2e-4;
  // A large fixed slab (top at z = 0) and a cube on it.
  const auto c =
      Contacts(MakeBox(1, 1, 0.2), At(Vector3(0, 0, -0.1)),
               MakeBox(0.2, 0.2, 0.2), At(Vector3(0.1, 0, 0.1 - pen)));
  ASSERT_EQ(c.size(), 4u);
  for (double x : {0.0, 0.2}) {
    for (double y : {-0.1, 0.1}) {
      const ContactPoint& k = Nearest(c, Vector3(x, y, 0));
      EXPECT_TRUE(k.position.isApprox(Vector3(x, y, -pen / 2), 1e-12));
      EXPECT_NEAR(k.phi, -pen, 1e-14);
      EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
    }
  }
  // Identical cubes exactly on top of each other: still exactly 4.
  const Shape cube = MakeBox(0.1, 0.1, 0.1);
  const auto same = Contacts(cube, At(Vector3(0, 0, 0.05)), cube,
                             At(Vector3(0, 0, 0.15 - pen)));
  ASSERT_EQ(same.size(), 4u);
  for (const auto& k : same) {
    EXPECT_NEAR(k.phi, -pen, 1e-14);
    EXPECT_NEAR(std::abs(k.position.x()), 0.05, 1e-12);
    EXPECT_NEAR(std::abs(k.position.y()), 0.05, 1e-12);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
  }
  // Reversed roles: same points, normals from the upper box down.
  const auto rev = Contacts(cube, At(Vector3(0, 0, 0.15 - pen)), cube,
                            At(Vector3(0, 0, 0.05)));
  ASSERT_EQ(rev.size(), 4u);
  for (const auto& k : rev) EXPECT_TRUE(k.normal.isApprox(-Vector3::UnitZ()));
}

TEST(BoxBox, YawedBoxesClipToTheOverlap) {
  const double pen = 1e-4;
  const Eigen::Quaterniond yaw(Eigen::AngleAxisd(kPi / 4, Vector3::UnitZ()));
  // A small cube turned 45 degrees on a large slab: its 4 rotated corners.
  const auto small =
      Contacts(MakeBox(1, 1, 0.2), At(Vector3(0, 0, -0.1)),
               MakeBox(0.2, 0.2, 0.2), At(Vector3(0, 0, 0.1 - pen), yaw));
  ASSERT_EQ(small.size(), 4u);
  for (const auto& k : small) {
    EXPECT_NEAR(k.position.head<2>().norm(), 0.1 * std::sqrt(2.0), 1e-12);
    EXPECT_NEAR(k.phi, -pen, 1e-14);
  }
  // Two equal cubes, the upper turned 45 degrees: the overlap is a regular
  // octagon with vertices at distance 0.1 / cos(22.5 deg) from the axis.
  const Shape cube = MakeBox(0.2, 0.2, 0.2);
  const auto oct = Contacts(cube, At(Vector3::Zero()), cube,
                            At(Vector3(0, 0, 0.2 - pen), yaw));
  ASSERT_EQ(oct.size(), 8u);
  for (const auto& k : oct) {
    EXPECT_NEAR(k.position.head<2>().norm(), 0.1 / std::cos(kPi / 8), 1e-12);
    EXPECT_NEAR(k.phi, -pen, 1e-14);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
  }
}

TEST(BoxBox, CrossedEdgesGiveOnePointAlongTheEdgeAxis) {
  const double h = 0.1, pen = 1e-3, s2 = std::sqrt(2.0);
  // A: top edge along y at z = h sqrt 2. B: bottom edge along x above it.
  const Eigen::Quaterniond qa(Eigen::AngleAxisd(kPi / 4, Vector3::UnitY()));
  const Eigen::Quaterniond qb(Eigen::AngleAxisd(kPi / 4, Vector3::UnitX()));
  const Shape cube = MakeBox(2 * h, 2 * h, 2 * h);
  const auto c = Contacts(cube, At(Vector3::Zero(), qa), cube,
                          At(Vector3(0, 0, 2 * h * s2 - pen), qb));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -pen, 1e-12);
  EXPECT_TRUE(c[0].normal.isApprox(Vector3::UnitZ(), 1e-12));
  EXPECT_TRUE(c[0].position.isApprox(Vector3(0, 0, h * s2 - pen / 2), 1e-12));
}

TEST(BoxBox, BoxOnItsEdgeOnAFaceHasTwoPoints) {
  const double h = 0.1, pen = 1e-4;
  const Eigen::Quaterniond qx(Eigen::AngleAxisd(kPi / 4, Vector3::UnitX()));
  const auto c = Contacts(MakeBox(1, 1, 0.2), At(Vector3(0, 0, -0.1)),
                          MakeBox(2 * h, 2 * h, 2 * h),
                          At(Vector3(0, 0, h * std::sqrt(2.0) - pen), qx));
  ASSERT_EQ(c.size(), 2u);
  for (double x : {-h, h}) {
    const ContactPoint& k = Nearest(c, Vector3(x, 0, 0));
    EXPECT_TRUE(k.position.isApprox(Vector3(x, 0, -pen / 2), 1e-12));
    EXPECT_NEAR(k.phi, -pen, 1e-13);
  }
}

TEST(BoxBox, SlightlyTiltedBoxPhiAtEachVertex) {
  // B pitched by 0.01 rad: its bottom vertices are at heights
  // 0.1 (1 - cos 0.01) -+ 0.1 sin 0.01 = 5e-6 -+ 1e-3; every vertex within
  // the margin is a contact with phi = its height.
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.01, Vector3::UnitY()));
  const Vector3 centre(0, 0, 0.1);
  for (const auto& [margin, count] : {std::pair{5e-4, 2}, std::pair{3e-3, 4}}) {
    const auto c = Contacts(MakeBox(1, 1, 0.2), At(Vector3(0, 0, -0.1)),
                            MakeBox(0.2, 0.2, 0.2), At(centre, q), margin);
    int expected = 0;
    for (double x : {-0.1, 0.1}) {
      for (double y : {-0.1, 0.1}) {
        const Vector3 v = centre + q * Vector3(x, y, -0.1);
        if (v.z() > margin) continue;
        ++expected;
        const Vector3 mid(v.x(), v.y(), v.z() / 2);
        const ContactPoint& k = Nearest(c, mid);
        EXPECT_NEAR(k.phi, v.z(), 1e-13);
        EXPECT_TRUE(k.position.isApprox(mid, 1e-12));
      }
    }
    EXPECT_EQ(expected, count);
    EXPECT_EQ(static_cast<int>(c.size()), count);
  }
}

TEST(BoxBox, SideContactNormalPointsFromAToB) {
  const Shape cube = MakeBox(0.2, 0.2, 0.2);
  const auto c = Contacts(cube, At(Vector3::Zero()), cube,
                          At(Vector3(0.2 - 1e-4, 0.05, 0.03)));
  ASSERT_EQ(c.size(), 4u);
  for (const auto& k : c) {
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitX()));
    EXPECT_NEAR(k.phi, -1e-4, 1e-14);
  }
  // Separated by more than the margin: nothing; within: phi = gap.
  EXPECT_TRUE(
      Contacts(cube, At(Vector3::Zero()), cube, At(Vector3(0.203, 0, 0)), 2e-3)
          .empty());
  const auto g =
      Contacts(cube, At(Vector3::Zero()), cube, At(Vector3(0.201, 0, 0)), 2e-3);
  ASSERT_EQ(g.size(), 4u);
  for (const auto& k : g) EXPECT_NEAR(k.phi, 1e-3, 1e-14);
}

}  // namespace
}  // namespace sapcontact
