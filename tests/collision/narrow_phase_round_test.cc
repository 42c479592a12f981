// Analytic contacts of spheres and capsules with each other and with boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::kPi;

const Eigen::Quaterniond kAlongX(Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));
const Eigen::Quaterniond kAlongY(Eigen::AngleAxisd(-kPi / 2, Vector3::UnitX()));

TEST(SphereSphere, DistanceNormalAndMidpoint) {
  const Vector3 ca(0.1, 0.2, 0.3), cb = ca + Vector3(0.3, 0.1, 0);
  const double ra = 0.1, rb = 0.2, dist = std::sqrt(0.1);
  const auto c = Contacts(MakeSphere(ra), At(ca), MakeSphere(rb), At(cb), 0.02);
  ASSERT_EQ(c.size(), 1u);
  const Vector3 n = (cb - ca) / dist;
  EXPECT_NEAR(c[0].phi, dist - ra - rb, 1e-15);
  EXPECT_TRUE(c[0].normal.isApprox(n, 1e-15));
  EXPECT_TRUE(
      c[0].position.isApprox(0.5 * ((ca + ra * n) + (cb - rb * n)), 1e-15));
  EXPECT_TRUE(
      Contacts(MakeSphere(ra), At(ca), MakeSphere(rb), At(cb), 0.01).empty());
  // Overlapping: negative phi.
  const auto o = Contacts(MakeSphere(ra), At(ca), MakeSphere(rb),
                          At(ca + Vector3(0, 0, 0.25)));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_NEAR(o[0].phi, -0.05, 1e-15);
  EXPECT_TRUE(o[0].normal.isApprox(Vector3::UnitZ()));
}

// Box (0.2 cube) rotated arbitrarily; sphere positions given in the box
// frame. Returns the contact of Collide(box, sphere).
std::vector<ContactPoint> BoxSphere(const Vector3& local, double r,
                                    const Pose& box, double margin = 0.0) {
  return Contacts(MakeBox(0.2, 0.2, 0.2), box, MakeSphere(r),
                  At(box.ToWorld(local)), margin);
}

TEST(BoxSphere, FaceEdgeCornerAndInsideRegions) {
  const Pose box =
      At(Vector3(0.5, -0.2, 1.0), Eigen::Quaterniond(Eigen::AngleAxisd(
                                      0.7, Vector3(1, 2, 3).normalized())));
  const Matrix3 R = box.rotation();
  const double r = 0.05, a = 0.01;
  struct Region {
    Vector3 centre;   // sphere centre in the box frame
    Vector3 closest;  // closest box point in the box frame
    double distance;  // centre to box (negative inside)
  };
  const double s2 = std::sqrt(2.0), s3 = std::sqrt(3.0);
  const Region regions[] = {
      {{0.03, -0.02, 0.1 + r - 1e-3}, {0.03, -0.02, 0.1}, r - 1e-3},  // face
      {{0.1 + a, 0.04, 0.1 + a}, {0.1, 0.04, 0.1}, a * s2},           // edge
      {{0.1 + a, -0.1 - a, 0.1 + a}, {0.1, -0.1, 0.1}, a * s3},       // corner
      {{0.02, 0.01, 0.08}, {0.02, 0.01, 0.1}, -0.02},                 // inside
  };
  for (const Region& g : regions) {
    SCOPED_TRACE(g.centre.transpose());
    const auto c = BoxSphere(g.centre, r, box, 0.05);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].phi, g.distance - r, 1e-14);
    // Normal: from the box surface towards the centre (outward face normal
    // when inside), rotated into the world.
    const Vector3 dir = g.distance > 0 ? Vector3(g.centre - g.closest)
                                       : Vector3(g.closest - g.centre);
    EXPECT_TRUE(c[0].normal.isApprox(R * dir.normalized(), 1e-12));
    const Vector3 on_box = box.ToWorld(g.closest);
    EXPECT_TRUE(
        c[0].position.isApprox(on_box + 0.5 * c[0].phi * c[0].normal, 1e-12));
    // Reversed roles: normal flips, phi and position stay.
    const auto rev = Contacts(MakeSphere(r), At(box.ToWorld(g.centre)),
                              MakeBox(0.2, 0.2, 0.2), box, 0.05);
    ASSERT_EQ(rev.size(), 1u);
    EXPECT_NEAR(rev[0].phi, c[0].phi, 1e-15);
    EXPECT_TRUE(rev[0].normal.isApprox(-c[0].normal, 1e-15));
    EXPECT_TRUE(rev[0].position.isApprox(c[0].position, 1e-15));
  }
}

TEST(SphereCapsule, SideAndEnd) {
  const Shape cap = MakeCapsule(0.05, 0.4);  // axis along z
  const auto side = Contacts(MakeSphere(0.1), At(Vector3(0.2, 0, 0.1)), cap,
                             At(Vector3::Zero()), 0.1);
  ASSERT_EQ(side.size(), 1u);
  EXPECT_NEAR(side[0].phi, 0.05, 1e-15);
  EXPECT_TRUE(side[0].normal.isApprox(-Vector3::UnitX()));
  EXPECT_TRUE(side[0].position.isApprox(Vector3(0.075, 0, 0.1), 1e-15));
  const auto end = Contacts(MakeSphere(0.1), At(Vector3(0, 0, 0.5)), cap,
                            At(Vector3::Zero()), 0.2);
  ASSERT_EQ(end.size(), 1u);
  EXPECT_NEAR(end[0].phi, 0.3 - 0.15, 1e-15);
  EXPECT_TRUE(end[0].normal.isApprox(-Vector3::UnitZ()));
}

TEST(CapsuleCapsule, CrossingCapsulesOnePoint) {
  const double r = 0.05, pen = 1e-3;
  const auto c = Contacts(MakeCapsule(r, 0.4), At(Vector3::Zero(), kAlongX),
                          MakeCapsule(r, 0.4),
                          At(Vector3(0.05, -0.1, 2 * r - pen), kAlongY));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, -pen, 1e-14);
  EXPECT_TRUE(c[0].normal.isApprox(Vector3::UnitZ(), 1e-14));
  EXPECT_TRUE(c[0].position.isApprox(Vector3(0.05, 0, r - pen / 2), 1e-14));
  // Skew at 60 degrees and separated: distance between the axes.
  const Eigen::Quaterniond skew =
      Eigen::AngleAxisd(kPi / 3, Vector3::UnitZ()) * kAlongX;
  const auto s =
      Contacts(MakeCapsule(r, 0.4), At(Vector3::Zero(), kAlongX),
               MakeCapsule(0.02, 0.4), At(Vector3(0, 0, 0.1), skew), 0.05);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].phi, 0.1 - r - 0.02, 1e-14);
}

TEST(CapsuleCapsule, ParallelCapsulesTwoPointsOverTheOverlap) {
  const double r = 0.05, rb = 0.03, pen = 1e-4;
  // A spans x in [-0.2, 0.2]; B spans [-0.1, 0.3], side by side along y.
  const auto c = Contacts(MakeCapsule(r, 0.4), At(Vector3::Zero(), kAlongX),
                          MakeCapsule(rb, 0.4),
                          At(Vector3(0.1, r + rb - pen, 0), kAlongX));
  ASSERT_EQ(c.size(), 2u);
  std::vector<double> xs;
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, -pen, 1e-14);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitY(), 1e-14));
    EXPECT_NEAR(k.position.y(), r - pen / 2, 1e-14);
    xs.push_back(k.position.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], -0.1, 1e-14);
  EXPECT_NEAR(xs[1], 0.2, 1e-14);
}

TEST(BoxCapsule, LyingOnAFaceTwoEndPoints) {
  const double r = 0.05, L = 0.4, pen = 1e-4;
  const auto c =
      Contacts(MakeBox(1, 1, 0.2), At(Vector3(0, 0, -0.1)), MakeCapsule(r, L),
               At(Vector3(0.1, 0.2, r - pen), kAlongX));
  ASSERT_EQ(c.size(), 2u);
  std::vector<double> xs;
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, -pen, 1e-12);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ(), 1e-14));
    EXPECT_NEAR(k.position.z(), -pen / 2, 1e-12);
    EXPECT_NEAR(k.position.y(), 0.2, 1e-12);
    xs.push_back(k.position.x());
  }
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], 0.1 - L / 2, 1e-12);
  EXPECT_NEAR(xs[1], 0.1 + L / 2, 1e-12);
}

TEST(BoxCapsule, LongerThanTheBoxClipsToTheFace) {
  const double r = 0.05, pen = 1e-4;
  const auto c =
      Contacts(MakeBox(0.2, 0.2, 0.2), At(Vector3::Zero()), MakeCapsule(r, 0.6),
               At(Vector3(0, 0, 0.1 + r - pen), kAlongX));
  ASSERT_EQ(c.size(), 2u);
  for (const auto& k : c) {
    EXPECT_NEAR(std::abs(k.position.x()), 0.1, 1e-12);
    EXPECT_NEAR(k.phi, -pen, 1e-12);
  }
}

TEST(BoxCapsule, AlongAnEdgeAcrossAnEdgeAndStanding) {
  const double r = 0.05, a = 0.02;
  // Axis along y, parallel to the box's top edge at x = z = 0.1 and longer
  // than it: two contacts at the ends of the edge.
  const auto e =
      Contacts(MakeBox(0.2, 0.2, 0.2), At(Vector3::Zero()), MakeCapsule(r, 0.4),
               At(Vector3(0.1 + a, 0, 0.1 + a), kAlongY), 0.0);
  ASSERT_EQ(e.size(), 2u);
  for (const auto& k : e) {
    EXPECT_NEAR(k.phi, a * std::sqrt(2.0) - r, 1e-12);
    EXPECT_TRUE(k.normal.isApprox(Vector3(1, 0, 1).normalized(), 1e-14));
    EXPECT_NEAR(std::abs(k.position.y()), 0.1, 1e-12);
  }
  // Axis along x, over the same edge (crossing it at a right angle): one
  // contact at the edge.
  const Eigen::Quaterniond tilt =
      Eigen::AngleAxisd(0.3, Vector3::UnitY()) * kAlongX;
  const Vector3 centre(0.1 + a, 0.05, 0.1 + a);
  const auto x = Contacts(MakeBox(0.2, 0.2, 0.2), At(Vector3::Zero()),
                          MakeCapsule(r, 0.4), At(centre, tilt), 0.0);
  ASSERT_EQ(x.size(), 1u);
  // Distance from the edge line (x = z = 0.1) to the axis line.
  const Vector3 axis = tilt * Vector3::UnitZ();
  const Vector3 cross = axis.cross(Vector3::UnitY()).normalized();
  const double dist = std::abs(cross.dot(centre - Vector3(0.1, 0, 0.1)));
  EXPECT_NEAR(x[0].phi, dist - r, 1e-10);
  EXPECT_NEAR(x[0].normal.y(), 0.0, 1e-12);
  // Standing upright on the top face: one contact under the lower end.
  const auto s =
      Contacts(MakeBox(0.2, 0.2, 0.2), At(Vector3::Zero()), MakeCapsule(r, 0.4),
               At(Vector3(0.03, 0.02, 0.1 + r + 0.2 - 1e-4)));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].phi, -1e-4, 1e-12);
  EXPECT_TRUE(s[0].position.isApprox(Vector3(0.03, 0.02, 0.1 - 0.5e-4), 1e-12));
  EXPECT_TRUE(s[0].normal.isApprox(Vector3::UnitZ(), 1e-14));
}

}  // namespace
}  // namespace sapcontact
