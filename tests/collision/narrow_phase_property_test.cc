// Randomized checks of every shape pair against independent signed
// distance functions (tests/collision/collision_test_util.h):
//  - the deepest contact's points p_A = p - phi/2 n and p_B = p + phi/2 n
//    lie on the surfaces of A and B, and |n| = 1;
//  - min phi equals the distance of separated shapes (CoreGap, the sampled
//    edges and segments; for pairs with a cylinder or a mesh the distance
//    by alternating projections, exact up to its convergence) and, in
//    penetration, is at most minus the deepest point's depth (CoreGap),
//    with equality for the pairs whose depth is a point's depth (a plane,
//    a sphere, the old round pairs; not polytope or cylinder pairs, whose
//    depth is the minimum translation: crossed edges go deeper);
//  - contacts exist iff the shapes are within the margin;
//  - swapping A and B keeps phi and flips the normals;
//  - translating B by delta along the deepest contact's normal raises its
//    phi by delta (the normal is the gradient of the signed distance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "tests/collision/collision_test_util.h"
#include "tests/common/sanitized.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::CoreGap;
using testing_util::RandomRotation;
using testing_util::SignedDistance;

Shape RandomShape(ShapeType type, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  switch (type) {
    case ShapeType::kPlane:
      return MakePlane();
    case ShapeType::kBox:
      return MakeBox(0.05 + 0.25 * u(rng), 0.05 + 0.25 * u(rng),
                     0.05 + 0.25 * u(rng));
    case ShapeType::kSphere:
      return MakeSphere(0.03 + 0.12 * u(rng));
    case ShapeType::kCapsule:
      return MakeCapsule(0.02 + 0.08 * u(rng), 0.05 + 0.35 * u(rng));
    case ShapeType::kCylinder:
      return MakeCylinder(0.03 + 0.12 * u(rng), 0.05 + 0.3 * u(rng));
    case ShapeType::kMesh: {
      // A box-like hull half the time (face contacts), else the hull of 6 to
      // 12 random points in an ellipsoid.
      const Vector3 half(0.025 + 0.125 * u(rng), 0.025 + 0.125 * u(rng),
                         0.025 + 0.125 * u(rng));
      if (u(rng) < 0.5) {
        return testing_util::MeshOf(testing_util::BoxHull(half, rng() % 100));
      }
      std::normal_distribution<double> g;
      std::vector<Vector3> points(6 + rng() % 7);
      for (Vector3& p : points) {
        p = (0.6 + 0.4 * u(rng)) *
            Vector3(g(rng), g(rng), g(rng)).normalized().cwiseProduct(half);
      }
      return testing_util::MeshOf(testing_util::BruteForceHull(points));
    }
  }
  return MakePlane();
}

bool NewType(ShapeType t) {
  return t == ShapeType::kCylinder || t == ShapeType::kMesh;
}

double MinPhi(const std::vector<ContactPoint>& c, int* index = nullptr) {
  double m = std::numeric_limits<double>::infinity();
  for (int i = 0; i < static_cast<int>(c.size()); ++i) {
    if (c[i].phi < m) {
      m = c[i].phi;
      if (index) *index = i;
    }
  }
  return m;
}

struct PairCase {
  ShapeType a, b;
};

class NarrowPhaseProperty : public ::testing::TestWithParam<PairCase> {};

TEST_P(NarrowPhaseProperty, AgreesWithSignedDistanceFunctions) {
  const PairCase pc = GetParam();
  std::mt19937 rng(1234 + 10 * static_cast<int>(pc.a) + static_cast<int>(pc.b));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double margin = 0.02;
  const double sample_tol = 1e-6;  // sampling error of CoreGap
  // Pairs whose penetration depth is a point's depth (CoreGap is exact).
  const bool point_depth =
      !(pc.a == ShapeType::kBox && pc.b == ShapeType::kBox) &&
      !((pc.a == ShapeType::kBox || NewType(pc.a) ||
         pc.a == ShapeType::kCapsule) &&
        NewType(pc.b));
  // Separated pairs with a cylinder or mesh (not against a plane): the
  // distance by alternating projections.
  const bool projections = pc.a != ShapeType::kPlane && NewType(pc.b);
  int tested = 0, touching = 0;
  // Fewer cases under the sanitizers (tests/common/sanitized.h).
  using test_sanitized::Cases;
  for (int trial = 0; trial < Cases(400) && tested < Cases(60); ++trial) {
    const Shape a = RandomShape(pc.a, rng), b = RandomShape(pc.b, rng);
    const Pose pa = At(Vector3(u(rng), u(rng), u(rng)), RandomRotation(rng));
    // B at a random direction from A, at a distance that makes the two
    // shapes nearly touch: bisect the centre distance on the sampled gap.
    Pose pb = At(Vector3::Zero(), RandomRotation(rng));
    Vector3 dir(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    dir.normalize();
    if (pc.a == ShapeType::kPlane) dir = pa.orientation * Vector3::UnitZ();
    const double target = -0.004 + 0.03 * u(rng);  // gap to aim at
    auto gap_at = [&](double t, int n) {
      Pose p = pb;
      p.position = pa.position + t * dir;
      return CoreGap(a, pa, b, p, n);
    };
    double lo = pc.a == ShapeType::kPlane ? -1.0 : 0.0, hi = 2.0;
    for (int it = 0; it < 40; ++it) {
      const double mid = 0.5 * (lo + hi);
      (gap_at(mid, 20) < target ? lo : hi) = mid;
    }
    pb.position = pa.position + hi * dir;
    // The finely sampled core gap: the distance of separated shapes (up to
    // sample_tol), an upper bound of minus the penetration depth otherwise.
    double sampled = gap_at(hi, 4000);
    bool exact = point_depth || sampled > 0.0;
    if (projections && sampled > 0.0) {
      Pose p = pb;
      p.position = pa.position + hi * dir;
      const double d = testing_util::ProjectionDistance(a, pa, b, p);
      // Overlapping (between the sampled lines of a cylinder's side): the
      // depth is unknown, only that it is not positive.
      exact = d > 1e-9;
      sampled = d;
    }
    if (std::abs(sampled - margin) < 2 * sample_tol) continue;  // ambiguous
    ++tested;
    std::ostringstream trace;
    trace.precision(17);
    trace << "trial " << trial << " A " << ShapeTypeName(a.type) << " size "
          << a.size.transpose() << " r " << a.radius << " L " << a.length
          << " at " << pa.position.transpose() << " q "
          << pa.orientation.coeffs().transpose() << " | B "
          << ShapeTypeName(b.type) << " size " << b.size.transpose() << " r "
          << b.radius << " L " << b.length << " at " << pb.position.transpose()
          << " q " << pb.orientation.coeffs().transpose() << " | sampled "
          << sampled;
    SCOPED_TRACE(trace.str());
    const auto c = Contacts(a, pa, b, pb, margin);
    ASSERT_EQ(!c.empty(), sampled <= margin) << "sampled gap " << sampled;
    if (c.empty()) continue;
    ++touching;
    int k = 0;
    const double phi = MinPhi(c, &k);
    for (const auto& cp : c) {
      EXPECT_NEAR(cp.normal.norm(), 1.0, 1e-12);
      EXPECT_LE(cp.phi, margin);
    }
    EXPECT_LE(phi, sampled + 1e-9);
    // Exact for separated shapes; in penetration exact for the pairs whose
    // depth is a point's depth (see the top).
    if (exact) {
      EXPECT_GE(phi, sampled - sample_tol);
    }
    // Surface points of the deepest contact.
    const Vector3 p_a = c[k].position - 0.5 * phi * c[k].normal;
    const Vector3 p_b = c[k].position + 0.5 * phi * c[k].normal;
    EXPECT_NEAR(SignedDistance(a, pa, p_a), 0.0, 1e-9);
    EXPECT_NEAR(SignedDistance(b, pb, p_b), 0.0, 1e-9);
    // Swapped roles. Two cylinders swapped run GJK/EPA on the reflected
    // Minkowski difference: curved against curved, equal to EPA's
    // tolerance (the normal to its square root).
    const auto s = Contacts(b, pb, a, pa, margin);
    ASSERT_EQ(s.size(), c.size());
    int ks = 0;
    const bool curved = pc.a == ShapeType::kCylinder && pc.b == pc.a;
    EXPECT_NEAR(MinPhi(s, &ks), phi, curved ? 1e-10 : 1e-12);
    EXPECT_TRUE(s[ks].normal.isApprox(-c[k].normal, curved ? 1e-4 : 1e-9));
    // Gradient along the normal.
    const double delta = 1e-6;
    Pose moved = pb;
    moved.position += delta * c[k].normal;
    const auto m = Contacts(a, pa, b, moved, margin + 2 * delta);
    EXPECT_NEAR(MinPhi(m) - phi, delta, 1e-3 * delta);
  }
  EXPECT_GE(tested, Cases(40));
  EXPECT_GE(touching, Cases(20));
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, NarrowPhaseProperty,
    ::testing::Values(PairCase{ShapeType::kPlane, ShapeType::kBox},
                      PairCase{ShapeType::kPlane, ShapeType::kSphere},
                      PairCase{ShapeType::kPlane, ShapeType::kCapsule},
                      PairCase{ShapeType::kBox, ShapeType::kBox},
                      PairCase{ShapeType::kBox, ShapeType::kSphere},
                      PairCase{ShapeType::kBox, ShapeType::kCapsule},
                      PairCase{ShapeType::kSphere, ShapeType::kSphere},
                      PairCase{ShapeType::kSphere, ShapeType::kCapsule},
                      PairCase{ShapeType::kCapsule, ShapeType::kCapsule},
                      PairCase{ShapeType::kPlane, ShapeType::kCylinder},
                      PairCase{ShapeType::kPlane, ShapeType::kMesh},
                      PairCase{ShapeType::kBox, ShapeType::kCylinder},
                      PairCase{ShapeType::kBox, ShapeType::kMesh},
                      PairCase{ShapeType::kSphere, ShapeType::kCylinder},
                      PairCase{ShapeType::kSphere, ShapeType::kMesh},
                      PairCase{ShapeType::kCapsule, ShapeType::kCylinder},
                      PairCase{ShapeType::kCapsule, ShapeType::kMesh},
                      PairCase{ShapeType::kCylinder, ShapeType::kCylinder},
                      PairCase{ShapeType::kCylinder, ShapeType::kMesh},
                      PairCase{ShapeType::kMesh, ShapeType::kMesh}),
    [](const ::testing::TestParamInfo<PairCase>& info) {
      return std::string(ShapeTypeName(info.param.a)) + "_" +
             ShapeTypeName(info.param.b);
    });

}  // namespace
}  // namespace sapcontact
