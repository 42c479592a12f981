// Cylinder manifolds against closed forms: on a plane standing (4 rim
// points, symmetric, exact phi), lying (the two ends of the bottom line),
// tilted (the deepest rim point, plus the rim points within the margin);
// stacked on another cylinder's cap (the smaller cap's rim clipped to the
// other's cap, reduced to 4 symmetric points); lying on a box; a box on its
// cap; spheres and capsules against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "sapcontact/collision/convex_support.h"
#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::kPi;
using testing_util::SignedDistance;

using testing_util::kPlane;
const Eigen::Quaterniond kAlongX(Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));

using testing_util::Nearest;

// Standing on a cap: 4 rim points 90 degrees apart from the body x axis,
// phi exactly -pen, for any yaw; the same under a tilt of 1e-12 rad
// (round-off: the pattern does not turn).
TEST(PlaneCylinder, StandingHasFourSymmetricRimPoints) {
  const double r = 0.1, L = 0.3, pen = 1e-4;
  const Shape cyl = MakeCylinder(r, L);
  for (double yaw : {0.0, 0.3, kPi / 4, 2.0}) {
    for (double tilt : {0.0, 1e-12}) {
      const Eigen::Quaterniond q =
          Eigen::AngleAxisd(tilt, Vector3(1, 2, 0).normalized()) *
          Eigen::AngleAxisd(yaw, Vector3::UnitZ());
      const Vector3 centre(0.5, -0.25, L / 2 - pen);
      const auto c = Contacts(kPlane, At(Vector3::Zero()), cyl, At(centre, q));
      ASSERT_EQ(c.size(), 4u);
      const Vector3 x(std::cos(yaw), std::sin(yaw), 0), y(-x.y(), x.x(), 0);
      for (const Vector3& d : {x, y, Vector3(-x), Vector3(-y)}) {
        const Vector3 expected =
            Vector3(centre.x(), centre.y(), -pen / 2) + r * d;
        const ContactPoint& k = Nearest(c, expected);
        EXPECT_LT((k.position - expected).norm(), 1e-12);
        // Exact upright; tilted, the rim point is r tilt = 1e-13 off.
        EXPECT_NEAR(k.phi, -pen, tilt == 0.0 ? 1e-14 : 2e-13);
        EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
      }
    }
  }
  // Upside down: the other cap, same pattern.
  const Eigen::Quaterniond flip(Eigen::AngleAxisd(kPi, Vector3::UnitX()));
  const auto c = Contacts(kPlane, At(Vector3::Zero()), cyl,
                          At(Vector3(0, 0, L / 2 - pen), flip));
  ASSERT_EQ(c.size(), 4u);
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, -pen, 1e-14);
    EXPECT_NEAR(k.position.head<2>().norm(), r, 1e-12);
  }
}

TEST(PlaneCylinder, LyingHasTheTwoEndsOfTheBottomLine) {
  const double r = 0.05, L = 0.4, pen = 1e-4;
  const Eigen::Quaterniond q =
      Eigen::AngleAxisd(0.4, Vector3::UnitZ()) * kAlongX *
      Eigen::AngleAxisd(1.1, Vector3::UnitZ());  // spun about its own axis
  const auto c = Contacts(kPlane, At(Vector3::Zero()), MakeCylinder(r, L),
                          At(Vector3(0.1, 0.2, r - pen), q), 1e-3);
  ASSERT_EQ(c.size(), 2u);
  const Vector3 axis = q * Vector3::UnitZ();
  for (double s : {-0.5, 0.5}) {
    const Vector3 end = Vector3(0.1, 0.2, -pen / 2) + s * L * axis;
    const ContactPoint& k = Nearest(c, end);
    EXPECT_LT((k.position - end).norm(), 1e-12);
    EXPECT_NEAR(k.phi, -pen, 1e-14);
  }
}

// Tilted by 0.3 rad: the deepest rim point alone (margin 0), exact; with a
// margin reaching the next rim points, those too (at most 4).
TEST(PlaneCylinder, TiltedHasTheDeepestRimPoint) {
  const double r = 0.1, L = 0.3, pen = 1e-4, tilt = 0.3;
  const Eigen::Quaterniond q(Eigen::AngleAxisd(tilt, Vector3::UnitX()));
  const double low = 0.5 * L * std::cos(tilt) + r * std::sin(tilt);
  const Pose p = At(Vector3(0, 0, low - pen), q);
  const auto c = Contacts(kPlane, At(Vector3::Zero()), MakeCylinder(r, L), p);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -pen, 1e-14);
  // The lowest rim point: on the bottom cap, towards -y after the tilt.
  const Vector3 rim = p.ToWorld(Vector3(0, -r, -L / 2));
  EXPECT_LT((c[0].position - Vector3(rim.x(), rim.y(), -pen / 2)).norm(),
            1e-12);
  // The rim points 90 degrees away are r sin(tilt) higher.
  const double side = r * std::sin(tilt) - pen;
  const auto m =
      Contacts(kPlane, At(Vector3::Zero()), MakeCylinder(r, L), p, side + 1e-6);
  ASSERT_EQ(m.size(), 3u);
  std::vector<double> phis;
  for (const auto& k : m) phis.push_back(k.phi);
  std::sort(phis.begin(), phis.end());
  EXPECT_NEAR(phis[0], -pen, 1e-14);
  EXPECT_NEAR(phis[1], side, 1e-14);
  EXPECT_NEAR(phis[2], side, 1e-14);
}

// A smaller cylinder standing on a larger one's cap (coaxial or not,
// turned about the axis): 4 points of its rim 90 degrees apart, phi exact,
// normals +z; the larger standing on the smaller: 4 points on the smaller
// cap's rim.
TEST(CylinderCylinder, StackedOnCapsFourSymmetricPoints) {
  const double pen = 1e-4;
  const Shape big = MakeCylinder(0.2, 0.1), small = MakeCylinder(0.08, 0.3);
  for (double yaw : {0.0, 0.2, kPi / 4}) {
    const Eigen::Quaterniond q(Eigen::AngleAxisd(yaw, Vector3::UnitZ()));
    for (const Vector3& offset : {Vector3(0, 0, 0), Vector3(0.03, -0.05, 0)}) {
      const Pose lower = At(Vector3(0, 0, -0.05));
      const Pose upper = At(offset + Vector3(0, 0, 0.15 - pen), q);
      const auto c = Contacts(big, lower, small, upper, 1e-3);
      ASSERT_EQ(c.size(), 4u);
      const Vector3 x(std::cos(yaw), std::sin(yaw), 0), y(-x.y(), x.x(), 0);
      for (const Vector3& d : {x, y, Vector3(-x), Vector3(-y)}) {
        const Vector3 expected = offset + Vector3(0, 0, -pen / 2) + 0.08 * d;
        EXPECT_LT((Nearest(c, expected).position - expected).norm(), 1e-12);
      }
      for (const auto& k : c) {
        EXPECT_NEAR(k.phi, -pen, 1e-12);
        EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ(), 1e-12));
      }
      // Reversed: the large one on top of the small one.
      const Pose top = At(offset + Vector3(0, 0, 0.05 - pen), q);
      const Pose bottom = At(Vector3(0, 0, -0.15));
      const auto r = Contacts(small, bottom, big, top, 1e-3);
      ASSERT_EQ(r.size(), 4u);
      for (const auto& k : r) {
        EXPECT_NEAR(k.phi, -pen, 1e-12);
        EXPECT_NEAR(k.position.head<2>().norm(), 0.08, 1e-12);
        EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ(), 1e-12));
      }
    }
  }
}

// Lying on a box: the two ends of the bottom line; standing on a box: 4
// rim points; a box standing on a cylinder's cap: its 4 corners.
TEST(BoxCylinder, LyingStandingAndBoxOnCap) {
  const double pen = 1e-4, r = 0.05, L = 0.3;
  const Shape slab = MakeBox(1, 1, 0.2);
  const Pose floor = At(Vector3(0, 0, -0.1));
  const Shape cyl = MakeCylinder(r, L);
  const Eigen::Quaterniond lying =
      Eigen::AngleAxisd(0.7, Vector3::UnitZ()) * kAlongX;
  const auto c =
      Contacts(slab, floor, cyl, At(Vector3(0.1, 0, r - pen), lying), 1e-3);
  ASSERT_EQ(c.size(), 2u);
  const Vector3 axis = lying * Vector3::UnitZ();
  for (double s : {-0.5, 0.5}) {
    const Vector3 end = Vector3(0.1, 0, -pen / 2) + s * L * axis;
    EXPECT_LT((Nearest(c, end).position - end).norm(), 1e-12);
    EXPECT_NEAR(Nearest(c, end).phi, -pen, 1e-12);
  }
  const auto st =
      Contacts(slab, floor, cyl, At(Vector3(0.2, 0.1, L / 2 - pen)), 1e-3);
  ASSERT_EQ(st.size(), 4u);
  for (const Vector3& d : {Vector3(r, 0, 0), Vector3(0, r, 0),
                           Vector3(-r, 0, 0), Vector3(0, -r, 0)}) {
    const Vector3 expected = Vector3(0.2, 0.1, -pen / 2) + d;
    EXPECT_LT((Nearest(st, expected).position - expected).norm(), 1e-12);
    EXPECT_NEAR(Nearest(st, expected).phi, -pen, 1e-12);
  }
  // A 0.1 x 0.06 box on the cap of a cylinder of radius 0.2 standing at the
  // origin (cap at z = 0.1): its 4 bottom corners, normals -z (box into
  // cylinder).
  const Shape post = MakeCylinder(0.2, 0.2);
  const Eigen::Quaterniond yaw(Eigen::AngleAxisd(0.3, Vector3::UnitZ()));
  const Pose box_pose = At(Vector3(0.02, 0.01, 0.1 + 0.05 - pen), yaw);
  const auto b = Contacts(MakeBox(0.1, 0.06, 0.1), box_pose, post,
                          At(Vector3::Zero()), 1e-3);
  ASSERT_EQ(b.size(), 4u);
  for (double sx : {-1.0, 1.0}) {
    for (double sy : {-1.0, 1.0}) {
      const Vector3 corner =
          box_pose.ToWorld(Vector3(0.05 * sx, 0.03 * sy, -0.05));
      const Vector3 expected(corner.x(), corner.y(), 0.1 - pen / 2);
      EXPECT_LT((Nearest(b, expected).position - expected).norm(), 1e-12);
      EXPECT_NEAR(Nearest(b, expected).phi, -pen, 1e-12);
      EXPECT_TRUE(
          Nearest(b, expected).normal.isApprox(-Vector3::UnitZ(), 1e-12));
    }
  }
  // Tilted on a box by 0.3 rad: the deepest rim point, exact.
  const double tilt = 0.3;
  const Eigen::Quaterniond q(Eigen::AngleAxisd(tilt, Vector3::UnitX()));
  const double low = 0.5 * L * std::cos(tilt) + r * std::sin(tilt);
  const auto t =
      Contacts(slab, floor, cyl, At(Vector3(0, 0, low - pen), q), 0.0);
  ASSERT_GE(t.size(), 1u);
  ASSERT_LE(t.size(), 2u);
  double phi = 1.0;
  for (const auto& k : t) phi = std::min(phi, k.phi);
  EXPECT_NEAR(phi, -pen, 1e-12);
}

// Sphere against a cylinder in the side, cap, rim and inside regions: the
// closed form against the test's signed distance, normal from the sphere
// into the cylinder.
TEST(SphereCylinder, Regions) {
  const Shape cyl = MakeCylinder(0.1, 0.4);
  const Pose pose =
      At(Vector3(0.3, 0.1, -0.2), Eigen::Quaterniond(Eigen::AngleAxisd(
                                      0.8, Vector3(1, 2, 3).normalized())));
  const double r = 0.05;
  for (const Vector3& local :
       {Vector3(0.14, 0.0, 0.05), Vector3(0.0, 0.03, 0.23),
        Vector3(0.1, 0.1, 0.22), Vector3(0.02, 0.01, 0.1),
        Vector3(0.09, 0.0, -0.1), Vector3(0, 0, 0.15)}) {
    SCOPED_TRACE(local.transpose());
    const Vector3 centre = pose.ToWorld(local);
    const auto c = Contacts(MakeSphere(r), At(centre), cyl, pose, 0.1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].phi, SignedDistance(cyl, pose, centre) - r, 1e-14);
    const Vector3 p_b = c[0].position + 0.5 * c[0].phi * c[0].normal;
    EXPECT_NEAR(SignedDistance(cyl, pose, p_b), 0.0, 1e-14);
    // The normal is the signed distance's gradient (into the cylinder: minus
    // it), by central differences.
    Vector3 grad;
    for (int i = 0; i < 3; ++i) {
      Vector3 e = Vector3::Zero();
      e[i] = 1e-7;
      grad[i] = (SignedDistance(cyl, pose, centre + e) -
                 SignedDistance(cyl, pose, centre - e)) /
                2e-7;
    }
    EXPECT_TRUE(c[0].normal.isApprox(-grad.normalized(), 1e-6));
  }
}

// A capsule lying on a cylinder's cap: its two ends; across the curved
// side: one point at the closest approach.
TEST(CapsuleCylinder, OnTheCapAndAcrossTheSide) {
  const double pen = 1e-4, rc = 0.02;
  const Shape cyl = MakeCylinder(0.2, 0.1);
  const Shape cap = MakeCapsule(rc, 0.2);
  const auto c =
      Contacts(cap, At(Vector3(0.03, 0.04, 0.05 + rc - pen), kAlongX), cyl,
               At(Vector3::Zero()), 1e-3);
  ASSERT_EQ(c.size(), 2u);
  std::vector<double> xs;
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, -pen, 1e-12);
    EXPECT_TRUE(k.normal.isApprox(-Vector3::UnitZ(), 1e-12));
    EXPECT_NEAR(k.position.z(), 0.05 - pen / 2, 1e-12);
    xs.push_back(k.position.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], 0.03 - 0.1, 1e-12);
  EXPECT_NEAR(xs[1], 0.03 + 0.1, 1e-12);
  // Overhanging the rim: clipped to the cap polygon (inscribed in the rim).
  const auto o = Contacts(cap, At(Vector3(0.15, 0, 0.05 + rc - pen), kAlongX),
                          cyl, At(Vector3::Zero()), 1e-3);
  ASSERT_EQ(o.size(), 2u);
  for (const auto& k : o) EXPECT_LE(k.position.head<2>().norm(), 0.2 + 1e-12);
  // Vertical capsule beside the side, gap 0.01: one point.
  const auto s = Contacts(cap, At(Vector3(0.2 + rc + 0.01, 0, 0)), cyl,
                          At(Vector3::Zero()), 0.02);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].phi, 0.01, 1e-10);
  EXPECT_TRUE(s[0].normal.isApprox(-Vector3::UnitX(), 1e-6));
}

// Resting contacts keep their points under round-off jitter of the poses
// (1e-12 m, 1e-12 rad): a cylinder standing on a box and on a cylinder, a
// box on a cylinder's cap, a mesh cube on a box.
TEST(Cylinder, RestingManifoldsAreStableUnderJitter) {
  const double pen = 1e-4;
  const Shape slab = MakeBox(1, 1, 0.2);
  const Pose floor = At(Vector3(0, 0, -0.1));
  const Shape cyl = MakeCylinder(0.08, 0.2);
  const Shape small = MakeBox(0.1, 0.1, 0.1);
  struct Case {
    Shape a;
    Pose pa;
    Shape b;
    Pose pb;
  };
  const Case cases[] = {
      {slab, floor, cyl, At(Vector3(0.1, 0.2, 0.1 - pen))},
      {cyl, At(Vector3(0, 0, -0.1)), cyl, At(Vector3(0.01, 0, 0.1 - pen))},
      {small, At(Vector3(0.02, 0, 0.05 - pen)), cyl, At(Vector3(0, 0, -0.1))},
      {slab, floor,
       testing_util::MeshOf(
           testing_util::BoxHull(Vector3(0.05, 0.05, 0.05), 9)),
       At(Vector3(0.1, 0.2, 0.05 - pen))},
  };
  for (const Case& c : cases) {
    const auto rest = Contacts(c.a, c.pa, c.b, c.pb, 1e-3);
    ASSERT_EQ(rest.size(), 4u);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int step = 0; step < 50; ++step) {
      Pose pb = c.pb;
      pb.position += 1e-12 * Vector3(u(rng), u(rng), u(rng));
      pb.orientation =
          Eigen::Quaterniond(Eigen::AngleAxisd(
              1e-12, Vector3(u(rng), u(rng), u(rng)).normalized())) *
          pb.orientation;
      const auto again = Contacts(c.a, c.pa, c.b, pb, 1e-3);
      ASSERT_EQ(again.size(), rest.size());
      for (size_t i = 0; i < rest.size(); ++i) {
        EXPECT_LT((again[i].position - rest[i].position).norm(), 1e-9);
      }
    }
  }
}

// Pure functions of the poses: the same contacts bitwise on every call.
TEST(Cylinder, Deterministic) {
  const Shape cyl = MakeCylinder(0.1, 0.3);
  const Shape box = MakeBox(0.3, 0.2, 0.1);
  const Pose pa =
      At(Vector3(0.1, 0.2, 0.3), Eigen::Quaterniond(Eigen::AngleAxisd(
                                     0.4, Vector3(1, 1, 0).normalized())));
  const Pose pb =
      At(Vector3(0.2, 0.25, 0.45), Eigen::Quaterniond(Eigen::AngleAxisd(
                                       1.2, Vector3(0, 1, 1).normalized())));
  const auto first = Contacts(box, pa, cyl, pb, 0.05);
  ASSERT_FALSE(first.empty());
  for (int k = 0; k < 3; ++k) {
    const auto again = Contacts(box, pa, cyl, pb, 0.05);
    ASSERT_EQ(again.size(), first.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(again[i].position, first[i].position);
      EXPECT_EQ(again[i].normal, first[i].normal);
      EXPECT_EQ(again[i].phi, first[i].phi);
    }
  }
}

}  // namespace
}  // namespace sapcontact
