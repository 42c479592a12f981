// GJK/EPA (collision/gjk_epa.h) against brute force: polytope signed
// distances from separating axes and vertex-face/edge-edge enumeration
// (tests/collision/collision_test_util.h), exactly touching shapes,
// huge size ratios, degenerate simplices, and 10^5 random pairs of every
// kind checked by the separation certificate: for the returned unit normal
// n, the separation of the two shapes along n (from support functions
// written in the test) is at most their signed distance, which GJK/EPA's
// value bounds from above; the two agreeing proves the value exact.
#include "sapcontact/collision/gjk_epa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "tests/collision/collision_test_util.h"
#include "tests/common/sanitized.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::BoxHull;
using testing_util::BruteForceHull;
using testing_util::CoreSeparation;
using testing_util::kPi;
using testing_util::MeshOf;
using testing_util::PolytopeSignedDistance;
using testing_util::RandomRotation;
using testing_util::SignedDistance;

ConvexDistanceResult Distance(const Shape& a, const Pose& pa, const Shape& b,
                              const Pose& pb) {
  return ComputeConvexDistance(MakeConvexSupport(a, pa),
                               MakeConvexSupport(b, pb));
}

// A hull of 5 to 12 random points in an ellipsoid of semi-axes `size`.
Shape RandomHullShape(std::mt19937& rng, const Vector3& size) {
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::uniform_int_distribution<int> count(5, 12);
  std::vector<Vector3> points(count(rng));
  for (Vector3& p : points) {
    p = u(rng) * Vector3(g(rng), g(rng), g(rng)).normalized();
    p = p.cwiseProduct(size);
  }
  return MeshOf(BruteForceHull(points));
}

Shape RandomBox(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return MakeBox(u(rng), u(rng), u(rng));
}

bool Capped(const ConvexDistanceResult& r) {
  return r.status == ConvexDistanceStatus::kGjkIterationCap ||
         r.status == ConvexDistanceStatus::kEpaIterationCap ||
         r.status == ConvexDistanceStatus::kEpaDegenerate;
}

std::string Describe(const Shape& s, const Pose& p) {
  std::ostringstream os;
  os.precision(17);
  os << ShapeTypeName(s.type) << " size " << s.size.transpose() << " r "
     << s.radius << " L " << s.length << " at " << p.position.transpose()
     << " q " << p.orientation.coeffs().transpose();
  return os.str();
}

// Random polytope pairs (box/box, box/hull, hull/hull) overlapping or
// separated by up to about their size: GJK/EPA's signed distance equals
// the brute-force one to 1e-9 of max(|distance|, size); the normal is an
// optimal axis (separation along it = the distance); the witness points
// lie on the surfaces and differ by distance * normal.
TEST(GjkEpa, PolytopePairsEqualBruteForce) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int separated = 0, penetrating = 0;
  for (int kind = 0; kind < 3; ++kind) {
    for (int trial = 0; trial < 1500; ++trial) {
      const Shape a = kind < 2 ? RandomBox(rng, 0.05, 0.4)
                               : RandomHullShape(rng, Vector3(0.2, 0.1, 0.15));
      const Shape b = kind == 0 ? RandomBox(rng, 0.05, 0.4)
                                : RandomHullShape(rng, Vector3(0.1, 0.2, 0.15));
      const Pose pa = At(Vector3(u(rng), u(rng), u(rng)), RandomRotation(rng));
      const Vector3 dir =
          Vector3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized();
      const Pose pb =
          At(pa.position + 0.45 * u(rng) * dir, RandomRotation(rng));
      SCOPED_TRACE(Describe(a, pa) + " | " + Describe(b, pb));
      const double ref = PolytopeSignedDistance(a, pa, b, pb);
      const ConvexDistanceResult r = Distance(a, pa, b, pb);
      const double size = 0.1;
      const double tol = 1e-9 * std::max(std::abs(ref), size);
      ASSERT_FALSE(Capped(r)) << static_cast<int>(r.status);
      EXPECT_NEAR(r.distance, ref, tol);
      EXPECT_NEAR(r.normal.norm(), 1.0, 1e-12);
      EXPECT_NEAR(CoreSeparation(a, pa, b, pb, r.normal), ref, tol);
      EXPECT_NEAR(SignedDistance(a, pa, r.point_a), 0.0, 1e-9);
      EXPECT_NEAR(SignedDistance(b, pb, r.point_b), 0.0, 1e-9);
      EXPECT_TRUE(
          (r.point_b - r.point_a).isApprox(r.distance * r.normal, 1e-9) ||
          (r.point_b - r.point_a - r.distance * r.normal).norm() < 1e-12);
      (ref > 0.0 ? separated : penetrating)++;
    }
  }
  EXPECT_GT(separated, 1000);
  EXPECT_GT(penetrating, 1000);
}

// Box-box agrees with the box-box narrow phase's SAT depth and exact
// distance (its smallest phi with a large margin). The narrow phase keeps a
// face axis unless an edge axis is shallower by more than 1e-5 of the sum of
// the half-diagonals (collision/README.md), so its depth may exceed the
// true one, which EPA finds, by up to that much; never the other way.
TEST(GjkEpa, BoxPairsEqualTheBoxBoxNarrowPhase) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // One draw per statement: the same configurations with every compiler.
  const auto random_vector = [&] {
    const double x = u(rng), y = u(rng), z = u(rng);
    return Vector3(x, y, z);
  };
  int face_preferred = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Shape a = RandomBox(rng, 0.05, 0.4), b = RandomBox(rng, 0.05, 0.4);
    const Pose pa = At(random_vector(), RandomRotation(rng));
    const Vector3 offset = 0.4 * (random_vector() - Vector3::Constant(0.5));
    const Pose pb = At(pa.position + offset, RandomRotation(rng));
    std::vector<ContactPoint> c;
    CollideBoxBox(a, pa, b, pb, 10.0, &c);
    ASSERT_FALSE(c.empty());
    double phi = c[0].phi;
    for (const auto& k : c) phi = std::min(phi, k.phi);
    const ConvexDistanceResult r = Distance(a, pa, b, pb);
    const double tol = 1e-9 * std::max(std::abs(phi), 0.1);
    const double preference =
        1e-5 * (0.5 * a.size.norm() + 0.5 * b.size.norm());
    EXPECT_GE(r.distance, phi - tol) << "trial " << trial;
    EXPECT_LE(r.distance, phi + (phi < 0.0 ? preference : 0.0) + tol)
        << "trial " << trial << ", status " << static_cast<int>(r.status);
    if (r.distance > phi + tol) ++face_preferred;
  }
  EXPECT_LT(face_preferred, 20);  // rare: a near tie of a face and an edge
}

// Hand-made polytopes touching exactly (every coordinate exact in binary):
// distance 0 (to round-off) and the normal of the touching feature.
TEST(GjkEpa, ExactlyTouchingGivesZeroAndTheNormal) {
  const Shape big = MakeBox(1.0, 1.0, 1.0);
  const Shape cube = MakeBox(0.5, 0.5, 0.5);
  const Shape mesh_cube = MeshOf(BoxHull(Vector3(0.25, 0.25, 0.25), 3));
  const Shape tetra = MeshOf(testing_util::HullFromFaces(
      {{0, 0, -0.25},
       {0.25, 0, 0.25},
       {-0.125, 0.25, 0.25},
       {-0.125, -0.25, 0.25}},
      {{0, 2, 1}, {0, 3, 2}, {0, 1, 3}, {1, 2, 3}}));
  // A roof along x with its ridge at z = 1, and B an inverted roof along y
  // with its ridge at its origin: placed at z = 1 they touch edge on edge.
  const Shape roof = MeshOf(testing_util::HullFromFaces(
      {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {-1, 0, 1}, {1, 0, 1}},
      {{0, 3, 2, 1}, {0, 1, 5, 4}, {3, 4, 5, 2}, {0, 4, 3}, {1, 2, 5}}));
  const Shape valley = MeshOf(testing_util::HullFromFaces(
      {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}, {0, -1, 0}, {0, 1, 0}},
      {{0, 1, 2, 3}, {0, 4, 1}, {3, 2, 5}, {0, 3, 5, 4}, {1, 4, 5, 2}}));
  struct Case {
    const char* name;
    Shape a;
    Pose pa;
    Shape b;
    Pose pb;
    Vector3 normal;
  };
  const Case cases[] = {
      {"face on face", big, At(Vector3::Zero()), cube,
       At(Vector3(0.125, 0.0625, 0.75)), Vector3::UnitZ()},
      {"equal faces", cube, At(Vector3::Zero()), cube, At(Vector3(0.5, 0, 0)),
       Vector3::UnitX()},
      {"mesh face on box face", big, At(Vector3::Zero()), mesh_cube,
       At(Vector3(-0.25, 0.125, 0.75)), Vector3::UnitZ()},
      {"box face under mesh face", mesh_cube, At(Vector3(0, 0, 1.25)), big,
       At(Vector3(0, 0, 0.5)), -Vector3::UnitZ()},
      {"vertex on face", big, At(Vector3::Zero()), tetra,
       At(Vector3(0.0625, -0.125, 0.75)), Vector3::UnitZ()},
      {"edge on edge", roof, At(Vector3::Zero()), valley, At(Vector3(0, 0, 1)),
       Vector3::UnitZ()},
      {"edge on face", big, At(Vector3::Zero()), valley, At(Vector3(0, 0, 0.5)),
       Vector3::UnitZ()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_NEAR(PolytopeSignedDistance(c.a, c.pa, c.b, c.pb), 0.0, 1e-15);
    const ConvexDistanceResult r = Distance(c.a, c.pa, c.b, c.pb);
    EXPECT_FALSE(Capped(r));
    EXPECT_NEAR(r.distance, 0.0, 1e-14);
    EXPECT_TRUE(r.normal.isApprox(c.normal, 1e-12)) << r.normal.transpose();
    // Lifted by 1e-12 and lowered by 1e-12 (relative to the normal): the
    // same normal, distance +-1e-12.
    for (double gap : {1e-12, -1e-12, 1e-6, -1e-6}) {
      Pose pb = c.pb;
      pb.position += gap * c.normal;
      const ConvexDistanceResult g = Distance(c.a, c.pa, c.b, pb);
      EXPECT_FALSE(Capped(g));
      EXPECT_NEAR(g.distance, gap, 1e-15) << "gap " << gap;
      EXPECT_TRUE(g.normal.isApprox(c.normal, 1e-9)) << g.normal.transpose();
    }
  }
  // A point core (a sphere's centre) on a face, an edge and a vertex of a
  // box.
  const Shape point = MakeSphere(0.1);
  for (const Vector3& x : {Vector3(0.5, 0.25, -0.125), Vector3(0.5, 0.5, 0.25),
                           Vector3(0.5, -0.5, 0.5)}) {
    const ConvexDistanceResult r =
        Distance(big, At(Vector3::Zero()), point, At(x));
    EXPECT_FALSE(Capped(r));
    EXPECT_NEAR(r.distance, 0.0, 1e-15);
    EXPECT_NEAR(r.normal.norm(), 1.0, 1e-12);
    // An outward normal of the box at x: moving x along it stays outside.
    EXPECT_GE(SignedDistance(big, At(Vector3::Zero()), x + 1e-3 * r.normal),
              0.0);
  }
}

// A 1 mm cube (or hull) near a 10 m box (or hull): never capped, exact to
// 1e-12 of the large size (1e-8 of the small one: the faces of the
// Minkowski difference are metres long, and their planes are known to
// round-off relative to that).
TEST(GjkEpa, HugeSizeRatios) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Shape big_box = MakeBox(10, 10, 10);
  const Shape big_hull = MeshOf(BoxHull(Vector3(5, 5, 5), 11));
  int tested = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Shape& big = trial % 2 ? big_hull : big_box;
    const Shape small = trial % 3
                            ? MakeBox(1e-3, 1e-3, 1e-3)
                            : RandomHullShape(rng, Vector3(1, 1, 1) * 5e-4);
    const Pose pa = At(Vector3(1, 2, 3), RandomRotation(rng));
    // Near a random point of the big box's surface (face, edge or corner).
    Vector3 local(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    local *= 10.0;
    for (int k = 0; k < 1 + trial % 3; ++k)
      local[(trial + k) % 3] = local[(trial + k) % 3] > 0 ? 5 : -5;
    const Vector3 offset(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    const Pose pb = At(pa.ToWorld(local) + 2e-3 * offset, RandomRotation(rng));
    SCOPED_TRACE(Describe(small, pb));
    const double ref = PolytopeSignedDistance(big, pa, small, pb);
    if (ref > 2e-3) continue;
    ++tested;
    const ConvexDistanceResult r = Distance(big, pa, small, pb);
    EXPECT_FALSE(Capped(r));
    EXPECT_NEAR(r.distance, ref, 1e-11);
    // The normal of a 1 mm shape near a 10 m face is known to ~1e-11 rad,
    // times the 5 m lever of the face: 1e-10 along it.
    EXPECT_NEAR(CoreSeparation(big, pa, small, pb, r.normal), ref, 1e-10);
    // Reversed roles.
    const ConvexDistanceResult s = Distance(small, pb, big, pa);
    EXPECT_FALSE(Capped(s));
    EXPECT_NEAR(s.distance, ref, 1e-11);
  }
  EXPECT_GT(tested, 300);
}

// Degenerate simplices: segment cores parallel to faces and through boxes,
// coincident shapes, concentric shapes, a point at a box's centre.
TEST(GjkEpa, DegenerateConfigurations) {
  const Shape box = MakeBox(0.5, 0.5, 0.5);
  const Shape cap = MakeCapsule(0.1, 0.5);
  const Shape cyl = MakeCylinder(0.25, 0.5);
  const Shape hull = MeshOf(BoxHull(Vector3(0.25, 0.25, 0.25), 5));
  const Eigen::Quaterniond along_x(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));
  struct Case {
    Shape a;
    Pose pa;
    Shape b;
    Pose pb;
    double expected;  // core distance
    // The origin at the centre of a cylinder's curved side: EPA would have
    // to refine the whole circle (it stops at its cap and returns the best
    // direction it tried, here exact).
    bool may_cap = false;
  };
  const Case cases[] = {
      // Capsule core parallel to the top face, 0.05 above, 0, and inside.
      {box, At(Vector3::Zero()), cap, At(Vector3(0, 0, 0.3), along_x), 0.05},
      {box, At(Vector3::Zero()), cap, At(Vector3(0, 0, 0.25), along_x), 0.0},
      {box, At(Vector3::Zero()), cap, At(Vector3(0.1, 0, 0.2), along_x), -0.05},
      // Through the centre: the depth of the segment's midpoint, 0.25.
      {box, At(Vector3::Zero()), cap, At(Vector3::Zero(), along_x), -0.25},
      // Coincident and concentric shapes.
      {box, At(Vector3::Zero()), box, At(Vector3::Zero()), -0.5},
      {hull, At(Vector3::Zero()), hull, At(Vector3::Zero()), -0.5},
      {box, At(Vector3::Zero()), hull, At(Vector3::Zero()), -0.5},
      {cyl, At(Vector3::Zero()), cyl, At(Vector3::Zero()), -0.5, true},
      {box, At(Vector3::Zero()), MakeSphere(0.1), At(Vector3::Zero()), -0.25},
      {cyl, At(Vector3::Zero()), MakeSphere(0.1), At(Vector3::Zero()), -0.25,
       true},
      // A cylinder's cap flat on a box face, 0, apart and overlapping.
      {box, At(Vector3::Zero()), cyl, At(Vector3(0.1, 0, 0.5)), 0.0},
      {box, At(Vector3::Zero()), cyl, At(Vector3(0.1, 0, 0.5 + 1e-3)), 1e-3},
      {box, At(Vector3::Zero()), cyl, At(Vector3(0.1, 0, 0.5 - 1e-3)), -1e-3},
      // Lying on its side.
      {box, At(Vector3::Zero()), cyl, At(Vector3(0, 0.1, 0.5), along_x), 0.0},
      {box, At(Vector3::Zero()), cyl, At(Vector3(0, 0.1, 0.5 - 1e-4), along_x),
       -1e-4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Describe(c.a, c.pa) + " | " + Describe(c.b, c.pb));
    const ConvexDistanceResult r = Distance(c.a, c.pa, c.b, c.pb);
    if (!c.may_cap) {
      EXPECT_FALSE(Capped(r)) << static_cast<int>(r.status);
    }
    EXPECT_NEAR(r.distance, c.expected, 1e-10);
    EXPECT_NEAR(r.normal.norm(), 1.0, 1e-12);
    EXPECT_NEAR(CoreSeparation(c.a, c.pa, c.b, c.pb, r.normal), c.expected,
                1e-10);
  }
}

// Cylinders against closed forms: coaxial stacks, a tilted cylinder's
// lowest rim point above a box, parallel and crossed side contacts.
TEST(GjkEpa, CylindersAgainstClosedForms) {
  const Shape cyl = MakeCylinder(0.1, 0.4);
  const Shape box = MakeBox(1, 1, 0.2);
  const Pose floor = At(Vector3(0, 0, -0.1));
  for (double tilt : {0.0, 1e-9, 0.01, 0.3, 1.0, kPi / 2}) {
    for (double gap : {-1e-3, -1e-6, 0.0, 1e-6, 1e-2}) {
      const Eigen::Quaterniond q(Eigen::AngleAxisd(tilt, Vector3::UnitX()));
      // Lowest point: half length cos(tilt) + radius sin(tilt) below the
      // centre.
      const double low = 0.2 * std::cos(tilt) + 0.1 * std::sin(tilt);
      const Pose p = At(Vector3(0.05, -0.02, low + gap), q);
      SCOPED_TRACE("tilt " + std::to_string(tilt) + " gap " +
                   std::to_string(gap));
      const ConvexDistanceResult r = Distance(box, floor, cyl, p);
      EXPECT_FALSE(Capped(r)) << static_cast<int>(r.status);
      EXPECT_NEAR(r.distance, gap, 1e-11);
      EXPECT_TRUE(r.normal.isApprox(Vector3::UnitZ(), 1e-6))
          << r.normal.transpose();
      EXPECT_NEAR(SignedDistance(cyl, p, r.point_b), 0.0, 1e-10);
    }
  }
  // Two parallel cylinders side by side, and crossed at right angles.
  const Eigen::Quaterniond along_x(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));
  const Eigen::Quaterniond along_y(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitX()));
  for (double gap : {-1e-3, 0.0, 1e-3}) {
    for (const auto& qb : {along_x, along_y}) {
      const ConvexDistanceResult r =
          Distance(cyl, At(Vector3::Zero(), along_x), cyl,
                   At(Vector3(0.05, 0, 0.2 + gap), qb));
      EXPECT_FALSE(Capped(r));
      EXPECT_NEAR(r.distance, gap, 1e-10);
      // Curved against curved: the depth is exact to second order in the
      // normal's error, which is about sqrt(EPA tolerance / radius).
      EXPECT_TRUE(r.normal.isApprox(Vector3::UnitZ(), 1e-4))
          << r.normal.transpose();
    }
  }
}

// max_distance: a proof of a larger distance ends GJK early with a lower
// bound.
TEST(GjkEpa, StopsEarlyBeyondMaxDistance) {
  const Shape a = MeshOf(BoxHull(Vector3(0.1, 0.2, 0.3), 2));
  const Shape b = MakeCylinder(0.1, 0.3);
  const Pose pa = At(Vector3::Zero());
  const Pose pb =
      At(Vector3(0.5, 0.2, 0.1), Eigen::Quaterniond(Eigen::AngleAxisd(
                                     0.4, Vector3(1, 1, 0).normalized())));
  const ConvexDistanceResult full = Distance(a, pa, b, pb);
  const ConvexDistanceResult early = ComputeConvexDistance(
      MakeConvexSupport(a, pa), MakeConvexSupport(b, pb), 0.05);
  EXPECT_EQ(full.status, ConvexDistanceStatus::kSeparated);
  EXPECT_EQ(early.status, ConvexDistanceStatus::kBeyond);
  EXPECT_GT(early.distance, 0.05);
  EXPECT_LE(early.distance, full.distance + 1e-15);
  EXPECT_LE(early.gjk_iterations, full.gjk_iterations);
}

// 10^5 random pairs of every kind of core (point, segment, box, cylinder,
// hull), sizes from 1 mm to 1 m, overlapping, touching or apart: never NaN,
// unit normals, and the separation certificate: the value exceeds the
// separation along the returned normal (a lower bound of the true signed
// distance) by at most 1e-9 of the smaller size, 1e-8 with a cylinder
// (plus round-off of the coordinates). No iteration cap, except for deep
// penetration (more than half the smaller size or half a cylinder's radius or
// half length) involving a cylinder: EPA then refines a nearly equidistant
// curved boundary all around and may stop at its cap, with the best direction
// it tried (counted and printed).
TEST(GjkEpa, RandomPairsNeverFailAndAreCertified) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto log_size = [&]() { return std::pow(10.0, -3.0 + 3.0 * u(rng)); };
  std::vector<Shape> hulls;
  for (int k = 0; k < 50; ++k) {
    hulls.push_back(RandomHullShape(rng, Vector3(1, 0.7, 0.5)));
  }
  auto random_shape = [&](int kind, double size) {
    switch (kind) {
      case 0:
        return MakeSphere(size);
      case 1:
        return MakeCapsule(0.2 * size, size * (0.5 + u(rng)));
      case 2:
        return MakeBox(size * (0.2 + u(rng)), size * (0.2 + u(rng)),
                       size * (0.2 + u(rng)));
      case 3:
        return MakeCylinder(size * (0.2 + u(rng)), size * (0.2 + u(rng)));
      default: {
        // A hull scaled to `size`.
        const ConvexHull& h =
            hulls[static_cast<int>(u(rng) * 50) % 50].mesh->hull;
        std::vector<Vector3> v = h.vertices;
        for (Vector3& p : v) p *= size;
        std::vector<std::vector<int>> loops;
        for (const auto& f : h.faces) loops.push_back(f.vertices);
        return MeshOf(testing_util::HullFromFaces(v, loops));
      }
    }
  };
  int penetrating = 0, deep_curved = 0, capped = 0;
  double worst = 0.0;
  // Fewer pairs under the sanitizers (tests/common/sanitized.h).
  const int trials = test_sanitized::Cases(100000);
  for (int trial = 0; trial < trials; ++trial) {
    const int ka = trial % 5, kb = (trial / 5) % 5;
    const double sa = log_size(),
                 sb = trial % 7 == 0 ? log_size() : sa * (0.5 + u(rng));
    const Shape a = random_shape(ka, sa), b = random_shape(kb, sb);
    const Pose pa =
        At(Vector3(u(rng), u(rng), u(rng)) * 10.0, RandomRotation(rng));
    Vector3 dir(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    dir.normalize();
    // Aligned rotations now and then (parallel faces).
    const Eigen::Quaterniond qb =
        trial % 4 == 0 ? pa.orientation : RandomRotation(rng);
    const Pose pb = At(pa.position + (sa + sb) * 1.2 * u(rng) * dir, qb);
    const ConvexDistanceResult r = Distance(a, pa, b, pb);
    const std::string trace = Describe(a, pa) + " | " + Describe(b, pb);
    const bool finite = std::isfinite(r.distance) && r.normal.allFinite() &&
                        r.point_a.allFinite() && r.point_b.allFinite();
    ASSERT_TRUE(finite) << trace;
    ASSERT_NEAR(r.normal.norm(), 1.0, 1e-12) << trace;
    const double scale = std::min(sa, sb);
    // Deeper than half the cylinder's radius or half length.
    double cylinder = std::numeric_limits<double>::infinity();
    for (const Shape* c : {&a, &b}) {
      if (c->type == ShapeType::kCylinder) {
        cylinder = std::min({cylinder, c->radius, 0.5 * c->length});
      }
    }
    const bool deep = r.distance < -0.5 * std::min(scale, cylinder);
    deep_curved += deep;
    if (Capped(r)) {
      ++capped;
      ASSERT_TRUE(deep) << static_cast<int>(r.status) << " " << trace;
    }
    const double sep = CoreSeparation(a, pa, b, pb, r.normal);
    const double coords = pa.position.norm() + pb.position.norm() + sa + sb;
    // On a cylinder's curved side GJK's distance converges faster than its
    // direction (the separation along a direction off by d falls by about
    // radius d^2): 1e-8 of the size there.
    const bool curved = ka == 3 || kb == 3;
    const double tol = (curved ? 1e-8 : 1e-9) * scale +
                       1e-12 * std::abs(r.distance) + 3e-13 * coords;
    worst = std::max(worst, (r.distance - sep) / tol);
    ASSERT_LE(r.distance - sep, tol) << trace;
    ASSERT_GE(r.distance - sep, -tol) << trace;
    if (r.distance < 0.0) ++penetrating;
  }
  EXPECT_GT(penetrating, test_sanitized::Cases(10000));
  std::printf(
      "%d penetrating, %d deep with a cylinder (%d of them capped); worst "
      "certificate gap %.3g of its tolerance\n",
      penetrating, deep_curved, capped, worst);
}

}  // namespace
}  // namespace sapcontact
