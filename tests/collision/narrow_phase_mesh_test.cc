// Mesh manifolds (a mesh collides as its convex hull, BuildConvexHull): a
// mesh cube gives the contacts of the box primitive on a plane, on a box
// (face on face, turned about the normal), against spheres and capsules,
// and mesh cube on mesh cube gives 4 points for face-on-face contact
// whatever the triangulation of the cubes' files; large flat faces reduce
// to 4 points, deterministically and stably.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "sapcontact/collision/contact_reduction.h"
#include "sapcontact/geometry/convex_hull.h"
#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::At;
using testing_util::Contacts;
using testing_util::kPi;
using testing_util::MeshOf;
using testing_util::RandomRotation;

using testing_util::kPlane;

// The points of a cube's mesh file, as different triangulations list
// them: 0 the 8 corners; 1 corners and face centres (faces fanned around
// their centre); 2 corners and a 5 x 5 grid on every face; 3 the corners
// in another order. The hull is the same cube (8 vertices, 6 quads).
std::vector<Vector3> CubePoints(const Vector3& half, int style) {
  std::vector<Vector3> p;
  for (int c = 0; c < 8; ++c) {
    p.push_back(Vector3((c & 1) ? half.x() : -half.x(),
                        (c & 2) ? half.y() : -half.y(),
                        (c & 4) ? half.z() : -half.z()));
  }
  if (style == 3) std::reverse(p.begin(), p.end());
  for (int axis = 0; axis < 3 && (style == 1 || style == 2); ++axis) {
    for (double sign : {-1.0, 1.0}) {
      const int n = style == 1 ? 1 : 5;
      for (int i = 0; i <= n; ++i) {
        for (int j = 0; j <= n; ++j) {
          if (style == 1 && (i != 0 || j != 0)) continue;
          Vector3 x;
          x[axis] = sign * half[axis];
          x[(axis + 1) % 3] =
              style == 1 ? 0.0 : half[(axis + 1) % 3] * (2.0 * i / n - 1.0);
          x[(axis + 2) % 3] =
              style == 1 ? 0.0 : half[(axis + 2) % 3] * (2.0 * j / n - 1.0);
          p.push_back(x);
        }
      }
    }
  }
  return p;
}

Shape MeshCube(const Vector3& half, int style = 0) {
  ConvexHull hull = BuildConvexHull(CubePoints(half, style), "cube");
  EXPECT_EQ(hull.vertices.size(), 8u);
  EXPECT_EQ(hull.faces.size(), 6u);
  return MeshOf(std::move(hull));
}

// Every contact of `got` has a contact of `want` at the same position with
// the same phi and normal (1e-12).
void ExpectSubset(const std::vector<ContactPoint>& got,
                  const std::vector<ContactPoint>& want, double tol = 1e-12) {
  for (const ContactPoint& g : got) {
    const auto it = std::min_element(want.begin(), want.end(),
                                     [&](const auto& x, const auto& y) {
                                       return (x.position - g.position).norm() <
                                              (y.position - g.position).norm();
                                     });
    ASSERT_NE(it, want.end());
    EXPECT_TRUE(it->position.isApprox(g.position, tol) ||
                (it->position - g.position).norm() < tol)
        << g.position.transpose() << " vs " << it->position.transpose();
    EXPECT_NEAR(it->phi, g.phi, tol);
    EXPECT_TRUE(it->normal.isApprox(g.normal, tol));
  }
}

void ExpectSameContacts(const std::vector<ContactPoint>& got,
                        const std::vector<ContactPoint>& want,
                        double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  ExpectSubset(got, want, tol);
  ExpectSubset(want, got, tol);
}

TEST(PlaneMesh, RestingCubeHasTheBoxCorners) {
  const Vector3 half(0.1, 0.2, 0.3);
  const Shape box = MakeBox(0.2, 0.4, 0.6);
  for (int style = 0; style < 4; ++style) {
    const Shape mesh = MeshCube(half, style);
    for (double pen : {1e-4, 0.0, -1e-3}) {
      const Pose pose = At(Vector3(1, 2, 0.3 - pen));
      const auto c = Contacts(kPlane, At(Vector3::Zero()), mesh, pose, 2e-3);
      ASSERT_EQ(c.size(), 4u);
      ExpectSameContacts(
          c, Contacts(kPlane, At(Vector3::Zero()), box, pose, 2e-3));
      for (const auto& k : c) EXPECT_NEAR(k.phi, -pen, 1e-14);
    }
  }
}

// Random poses near the plane: the mesh cube's contacts are the box's when
// the box has at most 4 (edge, vertex, face); with more (a large margin)
// the mesh's 4 are among the box's, the deepest included.
TEST(PlaneMesh, RandomPosesMatchPlaneBox) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Vector3 half(0.1, 0.15, 0.05);
  const Shape mesh = MeshCube(half, 2);
  const Shape box = MakeBox(0.2, 0.3, 0.1);
  const Pose plane =
      At(Vector3(0.1, 0.2, 0.3),
         Eigen::Quaterniond(Eigen::AngleAxisd(0.3, Vector3::UnitX())));
  int compared = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Quaterniond q = RandomRotation(rng);
    const double margin = trial % 2 ? 0.0 : 0.05 * u(rng);
    // Lowest vertex at height -0.002 .. 0.008 above the plane.
    const Vector3 n = plane.orientation * Vector3::UnitZ();
    double low = 1e9;
    for (const Vector3& v : mesh.mesh->hull.vertices) {
      low = std::min(low, n.dot(q * v));
    }
    const Pose pose =
        At(plane.position + u(rng) * (plane.orientation * Vector3::UnitX()) +
               u(rng) * (plane.orientation * Vector3::UnitY()) +
               (-0.002 + 0.01 * u(rng) - low) * n,
           q);
    const auto c = Contacts(kPlane, plane, mesh, pose, margin);
    const auto b = Contacts(kPlane, plane, box, pose, margin);
    if (b.size() <= 4) {
      ExpectSameContacts(c, b);
      ++compared;
    } else {
      ASSERT_EQ(c.size(), 4u);
      ExpectSubset(c, b);
      double deepest_b = 1e9, deepest_c = 1e9;
      for (const auto& k : b) deepest_b = std::min(deepest_b, k.phi);
      for (const auto& k : c) deepest_c = std::min(deepest_c, k.phi);
      // The deepest within the reduction's tie tolerance (1e-6 of the
      // size).
      EXPECT_NEAR(deepest_c, deepest_b, 1e-6 * 0.2);
    }
  }
  EXPECT_GT(compared, 1000);
}

// A prism whose bottom is a regular 40-gon resting flat: 4 of its corners,
// the most spread ones (a quadrilateral of at least 0.9 of the largest
// inscribed square's area), the same every call and under 1e-12 jitter of
// the pose.
TEST(PlaneMesh, LargeFlatFaceReducesToFourStablePoints) {
  std::vector<Vector3> points;
  const int n = 40;
  const double r = 0.2;
  for (int k = 0; k < n; ++k) {
    const double t = 2 * kPi * k / n;
    points.push_back(Vector3(r * std::cos(t), r * std::sin(t), -0.05));
    points.push_back(
        Vector3(0.5 * r * std::cos(t), 0.5 * r * std::sin(t), 0.05));
  }
  const Shape prism = MeshOf(BuildConvexHull(points, "prism"));
  const Pose pose =
      At(Vector3(0.3, -0.2, 0.05 - 1e-4),
         Eigen::Quaterniond(Eigen::AngleAxisd(0.7, Vector3::UnitZ())));
  const auto c = Contacts(kPlane, At(Vector3::Zero()), prism, pose, 1e-3);
  ASSERT_EQ(c.size(), 4u);
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, -1e-4, 1e-14);
    EXPECT_NEAR((k.position - Vector3(0.3, -0.2, -0.5e-4)).norm(), r, 1e-12);
  }
  // Area of the quadrilateral (the points are in rule order: deepest,
  // farthest, largest triangle, largest quadrilateral; compute the hull).
  std::vector<Vector3> p;
  for (const auto& k : c) p.push_back(k.position);
  std::sort(p.begin(), p.end(), [&](const Vector3& a, const Vector3& b) {
    return std::atan2(a.y() + 0.2, a.x() - 0.3) <
           std::atan2(b.y() + 0.2, b.x() - 0.3);
  });
  double area = 0.0;
  for (int i = 0; i < 4; ++i) {
    area += 0.5 * (p[i] - Vector3(0.3, -0.2, 0))
                      .cross(p[(i + 1) % 4] - Vector3(0.3, -0.2, 0))
                      .z();
  }
  EXPECT_GT(area, 0.9 * 2 * r * r);
  for (int trial = 0; trial < 20; ++trial) {
    Pose jitter = pose;
    jitter.position += 1e-12 * Vector3(std::sin(trial), std::cos(trial), 0.0);
    const auto again =
        Contacts(kPlane, At(Vector3::Zero()), prism, jitter, 1e-3);
    ASSERT_EQ(again.size(), 4u);
    for (int i = 0; i < 4; ++i) {
      EXPECT_LT((again[i].position - c[i].position).norm(), 1e-11);
    }
  }
}

// Resting on a plane, a hexagonal prism (a flat face of 6 equally deep
// vertices) and a 1000-vertex ball hull (a curved bottom with a dozen
// vertices in the 1 mm margin) keep the same 4 points under jitter of the
// pose far larger than round-off (1e-9 m, 1e-9 rad): the points a solver
// sees do not change from step to step at rest.
TEST(PlaneMesh, RestingPointsDoNotChangeUnderJitter) {
  std::vector<Vector3> hexagon;
  for (int k = 0; k < 6; ++k) {
    const double t = kPi / 3 * k;
    for (double z : {-0.02, 0.02}) {
      hexagon.push_back(Vector3(0.03 * std::cos(t), 0.03 * std::sin(t), z));
    }
  }
  std::mt19937 rng(8);
  std::normal_distribution<double> g;
  std::vector<Vector3> ball(1000);
  for (Vector3& p : ball)
    p = 0.05 * Vector3(g(rng), g(rng), g(rng)).normalized();
  const Shape prism = MeshOf(BuildConvexHull(hexagon, "hexagon"));
  const Shape round = MeshOf(BuildConvexHull(ball, "ball"));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const Shape* shape : {&prism, &round}) {
    // Lowest vertex 1e-5 m into the plane.
    const Eigen::Quaterniond q(Eigen::AngleAxisd(0.4, Vector3::UnitZ()));
    double low = 1e9;
    for (const Vector3& v : shape->mesh->hull.vertices) {
      low = std::min(low, (q * v).z());
    }
    const Pose rest = At(Vector3(0.1, 0.2, -low - 1e-5), q);
    const auto c = Contacts(kPlane, At(Vector3::Zero()), *shape, rest, 1e-3);
    ASSERT_EQ(c.size(), 4u);
    for (int step = 0; step < 100; ++step) {
      Pose p = rest;
      p.position += 1e-9 * Vector3(u(rng), u(rng), u(rng));
      p.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(
                          1e-9, Vector3(u(rng), u(rng), u(rng)).normalized())) *
                      p.orientation;
      const auto again = Contacts(kPlane, At(Vector3::Zero()), *shape, p, 1e-3);
      ASSERT_EQ(again.size(), 4u);
      for (int i = 0; i < 4; ++i) {
        EXPECT_LT((again[i].position - c[i].position).norm(), 1e-8) << step;
      }
    }
  }
}

// Mesh cube on a box face, aligned and turned about the normal: the box
// primitive's contacts (its up to 8 clipped points reduced to 4 that are
// among them), for every triangulation of the cube's file.
TEST(BoxMesh, FaceOnFaceMatchesBoxBox) {
  const double pen = 2e-4;
  const Shape slab = MakeBox(1, 1, 0.2);
  const Pose floor = At(Vector3(0, 0, -0.1));
  const Shape cube = MakeBox(0.2, 0.2, 0.2);
  for (int style = 0; style < 4; ++style) {
    const Shape mesh = MeshCube(Vector3(0.1, 0.1, 0.1), style);
    for (double yaw : {0.0, 0.1, kPi / 6, kPi / 4, 1.0, kPi / 2}) {
      const Eigen::Quaterniond q(Eigen::AngleAxisd(yaw, Vector3::UnitZ()));
      for (const Vector3& at :
           {Vector3(0.1, 0, 0.1 - pen), Vector3(0.45, 0.45, 0.1 - pen),
            Vector3(0, 0, 0.1 + 1e-3)}) {
        SCOPED_TRACE("style " + std::to_string(style) + " yaw " +
                     std::to_string(yaw));
        const Pose pose = At(at, q);
        const auto c = Contacts(slab, floor, mesh, pose, 2e-3);
        const auto b = Contacts(slab, floor, cube, pose, 2e-3);
        if (b.size() <= 4) {
          ExpectSameContacts(c, b);
        } else {
          ASSERT_EQ(c.size(), 4u);
          ExpectSubset(c, b);
        }
        // A small mesh cube on a larger one the other way round (mesh as A:
        // Collide swaps and flips).
        const auto r = Contacts(mesh, pose, slab, floor, 2e-3);
        ASSERT_EQ(r.size(), c.size());
        for (const auto& k : r)
          EXPECT_TRUE(k.normal.isApprox(-Vector3::UnitZ()));
      }
    }
  }
  // Two equal cubes turned 45 degrees: the octagon of box-box, 4 of it.
  const Shape mesh = MeshCube(Vector3(0.1, 0.1, 0.1));
  const Eigen::Quaterniond yaw(Eigen::AngleAxisd(kPi / 4, Vector3::UnitZ()));
  const auto oct = Contacts(cube, At(Vector3::Zero()), mesh,
                            At(Vector3(0, 0, 0.2 - pen), yaw));
  ASSERT_EQ(oct.size(), 4u);
  for (const auto& k : oct) {
    EXPECT_NEAR(k.position.head<2>().norm(), 0.1 / std::cos(kPi / 8), 1e-12);
    EXPECT_NEAR(k.phi, -pen, 1e-14);
  }
}

// Mesh cube on mesh cube face on face, for every pair of triangulations and
// turns about the normal: 4 points (the box-box contacts or 4 of them).
TEST(MeshMesh, FaceOnFaceFourPointsForAnyTriangulation) {
  const double pen = 1e-4;
  const Shape box_a = MakeBox(0.4, 0.4, 0.2), box_b = MakeBox(0.2, 0.2, 0.2);
  for (int sa = 0; sa < 4; ++sa) {
    for (int sb = 0; sb < 4; ++sb) {
      const Shape a = MeshCube(Vector3(0.2, 0.2, 0.1), sa);
      const Shape b = MeshCube(Vector3(0.1, 0.1, 0.1), sb);
      for (double yaw : {0.0, 0.3, kPi / 4}) {
        const Pose pa = At(Vector3(0, 0, -0.1));
        const Pose pb =
            At(Vector3(0.05, -0.02, 0.1 - pen),
               Eigen::Quaterniond(Eigen::AngleAxisd(yaw, Vector3::UnitZ())));
        const auto c = Contacts(a, pa, b, pb, 1e-3);
        ASSERT_EQ(c.size(), 4u) << sa << " " << sb << " " << yaw;
        ExpectSameContacts(c, Contacts(box_a, pa, box_b, pb, 1e-3));
        // Equal cubes exactly on top of each other (every corner on the
        // other's side planes): 4 points too.
        const auto same = Contacts(b, At(Vector3(0, 0, 0.1)), a,
                                   At(Vector3(0.1, 0.1, 0.3 - pen)), 0.0);
        ASSERT_EQ(same.size(), 4u);
        for (const auto& k : same) EXPECT_NEAR(k.phi, -pen, 1e-14);
      }
    }
  }
}

// Edge on edge (crossed), and a mesh cube on its edge on a box face: the
// box primitive's contacts.
TEST(BoxMesh, EdgeContactsMatchBoxBox) {
  const double h = 0.1, pen = 1e-3, s2 = std::sqrt(2.0);
  const Eigen::Quaterniond qa(Eigen::AngleAxisd(kPi / 4, Vector3::UnitY()));
  const Eigen::Quaterniond qb(Eigen::AngleAxisd(kPi / 4, Vector3::UnitX()));
  const Shape cube = MakeBox(2 * h, 2 * h, 2 * h);
  const Shape mesh = MeshCube(Vector3(h, h, h), 1);
  const Pose pa = At(Vector3::Zero(), qa),
             pb = At(Vector3(0, 0, 2 * h * s2 - pen), qb);
  const auto c = Contacts(cube, pa, mesh, pb);
  ASSERT_EQ(c.size(), 1u);
  ExpectSameContacts(c, Contacts(cube, pa, cube, pb), 1e-12);
  // Cube on its edge on a slab: 2 points.
  const Pose floor = At(Vector3(0, 0, -0.1));
  const Pose edge = At(Vector3(0, 0, h * s2 - 1e-4), qb);
  const auto e = Contacts(MakeBox(1, 1, 0.2), floor, mesh, edge);
  ASSERT_EQ(e.size(), 2u);
  ExpectSameContacts(e, Contacts(MakeBox(1, 1, 0.2), floor, cube, edge));
}

// Spheres and capsules against a mesh cube: the box primitive's contacts.
TEST(SphereCapsuleMesh, MatchTheBoxPrimitive) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape cube = MakeBox(0.2, 0.3, 0.4);
  const Shape mesh = MeshCube(Vector3(0.1, 0.15, 0.2), 2);
  int touching = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Pose box = At(Vector3(u(rng), u(rng), u(rng)), RandomRotation(rng));
    const Vector3 at =
        box.ToWorld(Vector3(0.15 * u(rng), 0.2 * u(rng), 0.25 * u(rng)));
    const Shape sphere = MakeSphere(0.05);
    const auto s = Contacts(mesh, box, sphere, At(at), 0.01);
    ExpectSameContacts(s, Contacts(cube, box, sphere, At(at), 0.01), 1e-11);
    touching += !s.empty();
  }
  EXPECT_GT(touching, 300);
  // A capsule lying on a face: its two ends, as box-capsule.
  const Eigen::Quaterniond along_x(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitY()));
  const Shape cap = MakeCapsule(0.05, 0.15);
  for (double pen : {1e-4, 0.0, -1e-3}) {
    const Pose p = At(Vector3(0.01, 0.02, 0.2 + 0.05 - pen), along_x);
    const auto c = Contacts(mesh, At(Vector3::Zero()), cap, p, 2e-3);
    ASSERT_EQ(c.size(), 2u);
    ExpectSameContacts(c, Contacts(cube, At(Vector3::Zero()), cap, p, 2e-3));
    // Tilted by 0.2 rad: one end (margin 0).
    const Pose t = At(
        Vector3(0.01, 0.02, 0.2 + 0.05 + 0.075 * std::sin(0.2) - pen),
        Eigen::Quaterniond(Eigen::AngleAxisd(kPi / 2 - 0.2, Vector3::UnitY())));
    const auto one = Contacts(mesh, At(Vector3::Zero()), cap, t, 0.0);
    if (pen >= 0.0) {
      ASSERT_EQ(one.size(), 1u);
      EXPECT_NEAR(one[0].phi, -pen, 1e-12);
      ExpectSameContacts(one, Contacts(cube, At(Vector3::Zero()), cap, t, 0.0));
    }
  }
}

// The reduction rule itself: deepest, farthest, largest triangle, largest
// quadrilateral; ties to the earliest.
TEST(ReduceManifold, KeepsDeepestThenTheMostSpread) {
  std::vector<ContactPoint> c;
  auto add = [&](double x, double y, double phi) {
    ContactPoint k;
    k.position = Vector3(x, y, 0);
    k.phi = phi;
    c.push_back(k);
  };
  add(0.0, 0.0, -1e-3);  // the centre, deepest
  add(1.0, 0.0, 0.0);
  add(0.0, 1.0, 0.0);
  add(-1.0, 0.0, 0.0);
  add(0.0, -1.0, 0.0);
  add(0.5, 0.5, 0.0);
  ReduceManifold(&c, 0, /*margin=*/1.0, 1e-12);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].position, Vector3(0, 0, 0));
  // Farthest from the centre: the four unit points tie; the earliest.
  EXPECT_EQ(c[1].position, Vector3(1, 0, 0));
  // Largest triangle with (0,0), (1,0): (0,1) and (0,-1) tie: (0,1).
  EXPECT_EQ(c[2].position, Vector3(0, 1, 0));
  // Largest quadrilateral: (-1,0) and (0,-1) both add 0.5; the one farther
  // from (0,1), the most symmetric: (0,-1).
  EXPECT_EQ(c[3].position, Vector3(0, -1, 0));
  // 4 or fewer: untouched.
  std::vector<ContactPoint> few(c.begin(), c.begin() + 3);
  ReduceManifold(&few, 0, 1.0, 1e-12);
  EXPECT_EQ(few.size(), 3u);
}

// A curved bottom: the deepest point, a ring of 6 supporting points at
// radius 0.01 m just above it and a ring of 6 at 0.02 m near the margin
// (1 mm): the depth weighting keeps the supporting ring, not the
// speculative outer one that unweighted spread would pick.
TEST(ReduceManifold, PrefersSupportingPointsToTheMarginsEdge) {
  const double margin = 1e-3;
  std::vector<ContactPoint> c;
  auto add = [&](double r, double t, double phi) {
    ContactPoint k;
    k.position = Vector3(r * std::cos(t), r * std::sin(t), 0);
    k.phi = phi;
    c.push_back(k);
  };
  add(0.0, 0.0, -1e-4);
  for (int k = 0; k < 6; ++k) {
    add(0.02, kPi / 3 * k + 0.1, 0.9 * margin);
    add(0.01, kPi / 3 * k, -0.5e-4);
  }
  ReduceManifold(&c, 0, margin, 1e-12);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].phi, -1e-4);
  for (int i = 1; i < 4; ++i) {
    EXPECT_NEAR(c[i].position.norm(), 0.01, 1e-15);
    EXPECT_EQ(c[i].phi, -0.5e-4);
  }
  // The third and fourth on either side of the line of the first two (a
  // quadrilateral, not a triangle).
  const Vector3 d = c[1].position - c[0].position;
  EXPECT_LT(d.cross(c[2].position - c[0].position).z() *
                d.cross(c[3].position - c[0].position).z(),
            0.0);
}

}  // namespace
}  // namespace sapcontact
