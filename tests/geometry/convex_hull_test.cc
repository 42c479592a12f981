// BuildConvexHull and ConvexHull::Support: hulls of random clouds checked
// independently (tests/geometry/geometry_test_util.h: containment,
// convex counter-clockwise faces, closed edge structure, Euler, adjacency),
// volumes against qhull's own and a shoelace sum and closed forms, merged
// coplanar faces whatever the triangulation, Support against brute force,
// and the errors.
#include "sapcontact/geometry/convex_hull.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::BoxTriangles;
using geometry_test::Corners;
using geometry_test::ExpectValidHull;
using geometry_test::FanBoxTriangles;
using geometry_test::GaussianCloud;
using geometry_test::GridBoxTriangles;
using geometry_test::PolygonVolume;
using geometry_test::RandomRotation;
using geometry_test::SpherePoints;
using geometry_test::ToFloat;

// Tolerance of the checks for points of magnitude up to `scale`: qhull's
// merge distance plus round-off.
double Tolerance(double scale) { return 4 * kHullMergeTolerance * scale; }

double Scale(const std::vector<Vector3>& points) {
  double s = 0.0;
  for (const Vector3& p : points) s = std::max(s, p.cwiseAbs().maxCoeff());
  return s;
}

// How much two volume computations of a hull may differ: facets merged
// within qhull's merge distance are planar only to that distance, so the
// formulas (fans of tetrahedra, shoelace areas times centre distances,
// qhull's per-facet area times offset) differ by at most the surface area
// times twice that distance, plus round-off.
double VolumeTolerance(const ConvexHull& hull,
                       const std::vector<Vector3>& points) {
  return 2 * geometry_test::SurfaceArea(hull) * kHullMergeTolerance *
             Scale(points) +
         1e-12 * hull.volume;
}

TEST(ConvexHull, RandomCloudsAreValidHulls) {
  int checked = 0;
  for (int n : {4, 5, 10, 100, 2000, 20000}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const std::vector<Vector3> points = GaussianCloud(n, 100 * n + seed);
      const ConvexHull hull = BuildConvexHull(points);
      SCOPED_TRACE("gaussian n = " + std::to_string(n));
      ExpectValidHull(hull, points, Tolerance(Scale(points)));
      // Volume: qhull's own total, and the shoelace sum over the faces.
      const double tolerance = VolumeTolerance(hull, points);
      EXPECT_LT(tolerance, 1e-3 * hull.volume);
      EXPECT_NEAR(hull.volume, internal::QhullTotalVolume(points), tolerance);
      EXPECT_NEAR(hull.volume, PolygonVolume(hull), tolerance);
      ++checked;
    }
  }
  // Random clouds shifted far from the origin, scaled, rotated, rounded to
  // single precision (as a mesh file holds them).
  for (unsigned seed = 1; seed <= 5; ++seed) {
    std::vector<Vector3> points = GaussianCloud(500, seed);
    const Eigen::Matrix3d r = RandomRotation(seed);
    for (Vector3& p : points) p = 0.01 * (r * p) + Vector3(2, -3, 1);
    points = ToFloat(points);
    const ConvexHull hull = BuildConvexHull(points);
    ExpectValidHull(hull, points, Tolerance(Scale(points)));
    EXPECT_NEAR(hull.volume, PolygonVolume(hull),
                VolumeTolerance(hull, points));
    EXPECT_NEAR(hull.volume, internal::QhullTotalVolume(points),
                VolumeTolerance(hull, points));
    ++checked;
  }
  EXPECT_EQ(checked, 23);
}

TEST(ConvexHull, PointsOnASphereAreAllVertices) {
  for (int n : {10, 100, 2000}) {
    const std::vector<Vector3> points = SpherePoints(n, n);
    const ConvexHull hull = BuildConvexHull(points);
    ExpectValidHull(hull, points, Tolerance(1.0));
    EXPECT_EQ(static_cast<int>(hull.vertices.size()), n);
    // Mostly triangles (a few nearly coplanar neighbours may be merged).
    EXPECT_GE(static_cast<int>(hull.faces.size()), 2 * n - 4 - n / 100);
    EXPECT_LT(hull.volume, 4.0 / 3.0 * M_PI);
    EXPECT_NEAR(hull.volume, internal::QhullTotalVolume(points),
                VolumeTolerance(hull, points));
  }
}

// Closed forms: cube, tetrahedron, octahedron (vertex/face counts, faces,
// volumes).
TEST(ConvexHull, CubeTetrahedronOctahedron) {
  std::vector<Vector3> cube;
  for (int i = 0; i < 8; ++i) {
    cube.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
  }
  const ConvexHull c = BuildConvexHull(cube);
  ExpectValidHull(c, cube, 1e-12);
  EXPECT_EQ(c.vertices.size(), 8u);
  EXPECT_EQ(c.faces.size(), 6u);
  EXPECT_EQ(c.num_edges, 12);
  EXPECT_NEAR(c.volume, 8.0, 1e-14);
  EXPECT_NEAR(c.bounding_radius, std::sqrt(3.0), 1e-15);
  for (const ConvexHull::Face& f : c.faces) {
    EXPECT_EQ(f.vertices.size(), 4u);
    EXPECT_NEAR(f.normal.cwiseAbs().maxCoeff(), 1.0, 1e-15);
    EXPECT_NEAR(f.offset, 1.0, 1e-15);
  }

  const std::vector<Vector3> tetra = {
      {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const ConvexHull t = BuildConvexHull(tetra);
  ExpectValidHull(t, tetra, 1e-12);
  EXPECT_EQ(t.vertices.size(), 4u);
  EXPECT_EQ(t.faces.size(), 4u);
  EXPECT_EQ(t.num_edges, 6);
  EXPECT_NEAR(t.volume, 1.0 / 6.0, 1e-15);
  int slanted = 0;
  for (const ConvexHull::Face& f : t.faces) {
    if (f.normal.minCoeff() > 0) {
      ++slanted;
      EXPECT_NEAR((f.normal - Vector3::Ones() / std::sqrt(3.0)).norm(), 0,
                  1e-15);
      EXPECT_NEAR(f.offset, 1 / std::sqrt(3.0), 1e-15);
    }
  }
  EXPECT_EQ(slanted, 1);

  const std::vector<Vector3> octa = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                     {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  const ConvexHull o = BuildConvexHull(octa);
  ExpectValidHull(o, octa, 1e-12);
  EXPECT_EQ(o.vertices.size(), 6u);
  EXPECT_EQ(o.faces.size(), 8u);
  EXPECT_EQ(o.num_edges, 12);
  EXPECT_NEAR(o.volume, 4.0 / 3.0, 1e-15);
}

// The hull of a cube's mesh is 8 vertices and 6 quads whatever the
// triangulation (2 per face, fans around face centres, a 10 x 10 grid per
// face: points in faces and on edges are no vertices), also rotated and
// rounded to single precision as a mesh file holds it.
TEST(ConvexHull, CubeHullIndependentOfTriangulation) {
  const Vector3 lo(-0.1, -0.2, -0.3), hi(0.3, 0.2, 0.1);
  const double volume = 0.4 * 0.4 * 0.4;
  struct Case {
    const char* name;
    std::vector<geometry_test::Triangle> triangles;
  };
  const std::vector<Case> cases = {{"two per face", BoxTriangles(lo, hi)},
                                   {"fan", FanBoxTriangles(lo, hi)},
                                   {"grid", GridBoxTriangles(lo, hi, 10)}};
  for (const Case& c : cases) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(std::string(c.name) + " variant " + std::to_string(variant));
      std::vector<Vector3> points = Corners(c.triangles);
      Eigen::Matrix3d r = Eigen::Matrix3d::Identity();
      if (variant >= 1) {
        r = RandomRotation(7 + variant);
        for (Vector3& p : points) p = r * p + Vector3(0.5, 0.25, -0.125);
      }
      if (variant == 2) points = ToFloat(points);
      const ConvexHull hull = BuildConvexHull(points);
      ExpectValidHull(hull, points, Tolerance(Scale(points)));
      EXPECT_EQ(hull.vertices.size(), 8u);
      ASSERT_EQ(hull.faces.size(), 6u);
      EXPECT_EQ(hull.num_edges, 12);
      for (const ConvexHull::Face& f : hull.faces) {
        EXPECT_EQ(f.vertices.size(), 4u);
        // Normals are the rotated axes.
        EXPECT_NEAR((r.transpose() * f.normal).cwiseAbs().maxCoeff(), 1.0,
                    variant == 2 ? 1e-6 : 1e-12);
      }
      EXPECT_NEAR(hull.volume, volume, (variant == 2 ? 1e-6 : 1e-12) * volume);
      EXPECT_NEAR(hull.volume, PolygonVolume(hull),
                  VolumeTolerance(hull, points));
      // Every hull vertex is a corner of the box.
      for (const Vector3& v : hull.vertices) {
        const Vector3 local =
            r.transpose() *
            (v - (variant >= 1 ? Vector3(0.5, 0.25, -0.125) : Vector3::Zero()));
        for (int k = 0; k < 3; ++k) {
          EXPECT_NEAR(
              std::min(std::abs(local[k] - lo[k]), std::abs(local[k] - hi[k])),
              0.0, 1e-6);
        }
      }
    }
  }
}

// A prism over a regular 40-gon: two big faces (plateaus for Support) and
// 40 quads; the cap vertices are all corners, the points added on the
// edges and in the faces are not.
TEST(ConvexHull, PrismWithPointsOnEdgesAndFaces) {
  const int n = 40;
  std::vector<Vector3> points;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * M_PI * i / n, b = 2 * M_PI * (i + 1) / n;
    const Vector3 p(std::cos(a), std::sin(a), 0),
        q(std::cos(b), std::sin(b), 0);
    for (double z : {-0.5, 0.5}) {
      points.push_back(p + Vector3(0, 0, z));
      points.push_back(0.5 * (p + q) + Vector3(0, 0, z));  // on a cap edge
      points.push_back(0.3 * p + Vector3(0, 0, z));        // in a cap
    }
    points.push_back(p);                                   // on a vertical edge
    points.push_back(0.5 * (p + q) + Vector3(0, 0, 0.2));  // in a side
  }
  const ConvexHull hull = BuildConvexHull(points);
  ExpectValidHull(hull, points, 1e-9);
  EXPECT_EQ(static_cast<int>(hull.vertices.size()), 2 * n);
  EXPECT_EQ(static_cast<int>(hull.faces.size()), n + 2);
  EXPECT_EQ(hull.num_edges, 3 * n);
  const double area = 0.5 * n * std::sin(2 * M_PI / n);
  EXPECT_NEAR(hull.volume, area, 1e-12);
  EXPECT_NEAR(hull.volume, internal::QhullTotalVolume(points), 1e-12);
  // Support along the axis: a plateau of 40 tied vertices.
  for (double sign : {-1.0, 1.0}) {
    for (int start = -1; start < static_cast<int>(hull.vertices.size());
         ++start) {
      const int s = hull.Support(Vector3(0, 0, sign), start);
      ASSERT_GE(s, 0);
      EXPECT_EQ(hull.vertices[s].z(), 0.5 * sign);
    }
  }
}

// Support against brute force for 10^4 random directions (and random
// starts) on hulls of 10, 100 and 2000 vertices (the last two hill-climb).
TEST(ConvexHull, SupportEqualsBruteForce) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int n : {10, 100, 2000}) {
    const ConvexHull hull = BuildConvexHull(SpherePoints(n, 3 * n));
    const int nv = static_cast<int>(hull.vertices.size());
    ASSERT_EQ(nv, n);
    std::uniform_int_distribution<int> pick(-1, nv - 1);
    int worse = 0, different = 0;
    for (int trial = 0; trial < 10000; ++trial) {
      const Vector3 d(g(rng), g(rng), g(rng));
      double best = -std::numeric_limits<double>::infinity();
      int best_index = -1;
      for (int i = 0; i < nv; ++i) {
        if (d.dot(hull.vertices[i]) > best) {
          best = d.dot(hull.vertices[i]);
          best_index = i;
        }
      }
      for (int start : {-1, pick(rng)}) {
        const int s = hull.Support(d, start);
        ASSERT_TRUE(s >= 0 && s < nv);
        if (d.dot(hull.vertices[s]) < best - 1e-14 * d.norm()) ++worse;
        if (s != best_index) ++different;
      }
    }
    EXPECT_EQ(worse, 0) << "n = " << n;
    EXPECT_EQ(different, 0) << "n = " << n;  // no ties on a random sphere
    // A zero direction returns a valid index.
    const int z = hull.Support(Vector3::Zero());
    EXPECT_TRUE(z >= 0 && z < nv);
    const int nan = hull.Support(Vector3::Constant(std::nan("")), 3);
    EXPECT_TRUE(nan >= 0 && nan < nv);
  }
  // A hull built without adjacency (by hand) scans every vertex.
  ConvexHull by_hand;
  by_hand.vertices = SpherePoints(100, 1);
  const Vector3 d(0.3, -0.2, 0.9);
  int expected = 0;
  for (int i = 1; i < 100; ++i) {
    if (d.dot(by_hand.vertices[i]) > d.dot(by_hand.vertices[expected])) {
      expected = i;
    }
  }
  EXPECT_EQ(by_hand.Support(d), expected);
  EXPECT_EQ(by_hand.Support(d, 50), expected);
  EXPECT_EQ(ConvexHull{}.Support(Vector3(1, 0, 0)), -1);
}

// Support on the cube grid hull (many directions tie on faces and edges):
// the value equals brute force.
TEST(ConvexHull, SupportWithTiesOnAFlatFacedHull) {
  std::vector<Vector3> points;
  const int n = 12;  // a 24-gon double pyramid with a ring of 24 points
  for (int i = 0; i < 2 * n; ++i) {
    const double a = M_PI * i / n;
    for (double z : {-1.0, 0.0, 1.0}) {
      points.emplace_back(std::cos(a) * (1.0 - 0.5 * std::abs(z)),
                          std::sin(a) * (1.0 - 0.5 * std::abs(z)), z);
    }
  }
  const ConvexHull hull = BuildConvexHull(points);
  ExpectValidHull(hull, points, 1e-9);
  ASSERT_GT(static_cast<int>(hull.vertices.size()), kSupportBruteForceVertices);
  const std::vector<Vector3> directions = {
      {0, 0, 1}, {0, 0, -1},  {1, 0, 0},    {0, 1, 0},
      {1, 1, 0}, {1, 0, 0.5}, {1, 0, -0.5}, {0, 0, 0}};
  for (const Vector3& d : directions) {
    double best = -1e300;
    for (const Vector3& v : hull.vertices) best = std::max(best, d.dot(v));
    for (int start = -1; start < static_cast<int>(hull.vertices.size());
         ++start) {
      EXPECT_NEAR(d.dot(hull.vertices[hull.Support(d, start)]), best, 1e-14);
    }
  }
}

TEST(ConvexHull, Errors) {
  auto message = [](const std::vector<Vector3>& points,
                    const std::string& context) {
    try {
      BuildConvexHull(points, context);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto starts_with = [](const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
  };
  const std::string few = message({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, "m.stl");
  EXPECT_TRUE(starts_with(few, "m.stl: ")) << few;
  EXPECT_NE(few.find("at least 4 points, got 3"), std::string::npos) << few;

  std::vector<Vector3> cloud = GaussianCloud(20, 1);
  cloud[7].y() = std::nan("");
  const std::string nan = message(cloud, "m.stl");
  EXPECT_NE(nan.find("m.stl: point 7 is not finite"), std::string::npos) << nan;
  cloud[7].y() = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(cloud, "").find("point 7 is not finite"),
            std::string::npos);
  EXPECT_TRUE(starts_with(message(cloud, ""), "point 7")) << "no context";

  // Coplanar (a flat square grid, tilted), collinear, coincident.
  std::vector<Vector3> flat;
  const Eigen::Matrix3d r = geometry_test::RandomRotation(3);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) flat.push_back(r * Vector3(i, j, 0));
  }
  const std::string coplanar = message(flat, "plate.stl");
  EXPECT_TRUE(starts_with(coplanar,
                          "plate.stl: the points are coplanar: a flat mesh "
                          "has no volume"))
      << coplanar;
  std::vector<Vector3> line;
  for (int i = 0; i < 6; ++i) line.push_back(Vector3(1, 2, 3) * i);
  EXPECT_TRUE(starts_with(message(line, "rod.stl"),
                          "rod.stl: the points are collinear"))
      << message(line, "rod.stl");
  const std::vector<Vector3> same(5, Vector3(1, 2, 3));
  EXPECT_TRUE(
      starts_with(message(same, "dot.stl"), "dot.stl: the points coincide"))
      << message(same, "dot.stl");
  // Thin but solid: a hull (thickness 1e-4 of the size).
  std::vector<Vector3> thin = flat;
  thin.push_back(r * Vector3(2, 2, 4e-4));
  EXPECT_EQ(message(thin, "thin"), "no error");
}

// One qhull instance per call: hulls built on 4 threads at once equal the
// serial ones.
TEST(ConvexHull, ConcurrentBuildsEqualSerial) {
  std::vector<std::vector<Vector3>> clouds;
  std::vector<ConvexHull> serial;
  for (unsigned k = 0; k < 8; ++k) {
    clouds.push_back(GaussianCloud(3000, 40 + k));
    serial.push_back(BuildConvexHull(clouds.back()));
  }
  std::vector<ConvexHull> parallel(clouds.size());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t k = t; k < clouds.size(); k += 4) {
        for (int repeat = 0; repeat < 5; ++repeat) {
          try {
            parallel[k] = BuildConvexHull(clouds[k]);
          } catch (...) {
            ++failures;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (std::size_t k = 0; k < clouds.size(); ++k) {
    EXPECT_EQ(parallel[k].vertices, serial[k].vertices);
    ASSERT_EQ(parallel[k].faces.size(), serial[k].faces.size());
    for (std::size_t f = 0; f < serial[k].faces.size(); ++f) {
      EXPECT_EQ(parallel[k].faces[f].vertices, serial[k].faces[f].vertices);
    }
    EXPECT_EQ(parallel[k].volume, serial[k].volume);
  }
}

}  // namespace
}  // namespace sapcontact
