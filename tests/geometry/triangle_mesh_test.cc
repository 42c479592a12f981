// TriangleMesh: welding, closedness and orientation with their reasons,
// volume properties against closed forms (box, rotated and offset box by
// the parallel-axis theorem, tetrahedra by monomial integrals over the
// simplex, a tessellated sphere converging to 2/5 m r^2), scaling and
// mirroring.
#include "sapcontact/geometry/triangle_mesh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::BoxInertia;
using geometry_test::BoxTriangles;
using geometry_test::GridBoxTriangles;
using geometry_test::RandomRotation;
using geometry_test::SphereTriangles;
using geometry_test::Triangle;

// A triangle soup: three vertices per triangle, as an STL file holds them.
TriangleMesh Soup(const std::vector<Triangle>& triangles) {
  TriangleMesh mesh;
  for (const Triangle& t : triangles) {
    const int first = static_cast<int>(mesh.vertices.size());
    for (const Vector3& v : t) mesh.vertices.push_back(v);
    mesh.triangles.push_back({first, first + 1, first + 2});
  }
  return mesh;
}

TriangleMesh Welded(const std::vector<Triangle>& triangles) {
  return WeldMesh(Soup(triangles));
}

using geometry_test::Contains;

TEST(TriangleMesh, WeldMergesEqualVerticesAndDropsDegenerateTriangles) {
  std::vector<Triangle> triangles =
      BoxTriangles(Vector3(0, -1, -2), Vector3(1, 1, 1));
  // -0.0 and 0.0 are the same vertex.
  for (Triangle& t : triangles) {
    for (Vector3& v : t) {
      if (v.x() == 0.0) v.x() = -0.0;
      break;
    }
  }
  // Degenerate: a repeated corner, three collinear corners.
  triangles.push_back({Vector3(0, 0, 0), Vector3(0, 0, 0), Vector3(1, 1, 1)});
  triangles.push_back({Vector3(0, 0, 0), Vector3(1, 1, 1), Vector3(2, 2, 2)});
  TriangleMesh soup = Soup(triangles);
  soup.vertices.push_back(Vector3(5, 5, 5));  // used by no triangle
  WeldReport report;
  const TriangleMesh mesh = WeldMesh(soup, &report);
  EXPECT_EQ(mesh.vertices.size(), 8u);
  EXPECT_EQ(mesh.triangles.size(), 12u);
  EXPECT_EQ(report.degenerate_triangles, 2);
  // 42 corners + 1 unused vertex; distinct positions: the 8 box corners
  // (one of them (1, 1, 1)), (0, 0, 0), (2, 2, 2) and (5, 5, 5).
  EXPECT_EQ(report.merged_vertices, 43 - 11);
  EXPECT_EQ(report.unused_vertices, 3);
  EXPECT_TRUE(CheckClosed(mesh).closed) << CheckClosed(mesh).reason;

  TriangleMesh bad = Soup(BoxTriangles(Vector3(0, 0, 0), Vector3(1, 1, 1)));
  bad.triangles[3][1] = 99;
  try {
    WeldMesh(bad);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(Contains(e.what(), "triangle 3 uses vertex 99 of 36"))
        << e.what();
  }
}

TEST(TriangleMesh, ClosednessReasons) {
  const std::vector<Triangle> box =
      BoxTriangles(Vector3(0, 0, 0), Vector3(1, 2, 3));
  EXPECT_TRUE(CheckClosed(Welded(box)).closed);
  EXPECT_TRUE(CheckClosed(Welded(box)).reason.empty());

  // A missing triangle: its edges belong to 1 triangle.
  std::vector<Triangle> open = box;
  open.erase(open.begin() + 5);
  const MeshClosure o = CheckClosed(Welded(open));
  EXPECT_FALSE(o.closed);
  EXPECT_TRUE(Contains(o.reason, "edge between vertices (")) << o.reason;
  EXPECT_TRUE(Contains(o.reason, ") belongs to 1 triangle")) << o.reason;

  // One triangle flipped: an edge used twice in the same direction.
  std::vector<Triangle> flipped = box;
  std::swap(flipped[7][1], flipped[7][2]);
  const MeshClosure f = CheckClosed(Welded(flipped));
  EXPECT_FALSE(f.closed);
  EXPECT_TRUE(Contains(f.reason, "is used twice in the same direction"))
      << f.reason;
  EXPECT_TRUE(Contains(f.reason, "are oriented inconsistently")) << f.reason;

  // All flipped: closed and consistent but inside out.
  std::vector<Triangle> inside_out = box;
  for (Triangle& t : inside_out) std::swap(t[1], t[2]);
  const MeshClosure i = CheckClosed(Welded(inside_out));
  EXPECT_FALSE(i.closed);
  EXPECT_TRUE(Contains(i.reason, "inside out (negative volume -6 m^3"))
      << i.reason;

  // An extra copy of a triangle's edge: 3 triangles at an edge.
  std::vector<Triangle> extra = box;
  extra.push_back({box[0][0], box[0][1], Vector3(5, 5, 5)});
  const MeshClosure e = CheckClosed(Welded(extra));
  EXPECT_FALSE(e.closed);
  EXPECT_TRUE(Contains(e.reason, "belongs to 3 triangles")) << e.reason;

  // A double-sided triangle: every edge twice, opposite, but no volume.
  const Vector3 a(0, 0, 0), b(1, 0, 0), c(1, 1, 0);
  const MeshClosure z = CheckClosed(Welded({{a, b, c}, {a, c, b}}));
  EXPECT_FALSE(z.closed);
  EXPECT_TRUE(Contains(z.reason, "encloses no volume")) << z.reason;

  EXPECT_EQ(CheckClosed(TriangleMesh{}).reason, "no triangles");
}

TEST(TriangleMesh, BoxVolumeProperties) {
  const Vector3 lo(-0.3, 0.1, 2.0), hi(0.5, 0.3, 2.7);
  const Vector3 e = hi - lo;
  for (int n : {1, 7}) {
    const TriangleMesh mesh = Welded(GridBoxTriangles(lo, hi, n));
    const MeshVolumeProperties p = ComputeVolumeProperties(mesh);
    EXPECT_NEAR(p.volume, e.prod(), 1e-14);
    EXPECT_NEAR((p.centroid - 0.5 * (lo + hi)).norm(), 0.0, 1e-14);
    EXPECT_NEAR((p.unit_inertia - BoxInertia(e)).norm(), 0.0, 1e-16)
        << p.unit_inertia;
  }
}

// A box rotated by R and moved to c: centroid c, inertia R I0 R'; its
// inertia about the origin (parallel axes) I0' + V (|c|^2 1 - c c').
TEST(TriangleMesh, RotatedOffsetBox) {
  const Vector3 e(0.4, 0.1, 0.25), c(1.5, -2.0, 0.75);
  const Eigen::Matrix3d r = RandomRotation(11);
  std::vector<Triangle> box = BoxTriangles(-0.5 * e, 0.5 * e);
  for (Triangle& t : box) {
    for (Vector3& v : t) v = r * v + c;
  }
  const MeshVolumeProperties p = ComputeVolumeProperties(Welded(box));
  EXPECT_NEAR(p.volume, e.prod(), 1e-15);
  EXPECT_NEAR((p.centroid - c).norm(), 0.0, 1e-14);
  const Matrix3 expected = r * BoxInertia(e) * r.transpose();
  EXPECT_NEAR((p.unit_inertia - expected).norm(), 0.0, 1e-16);
  // The same box with its inertia taken about the origin by the
  // parallel-axis theorem, against the moments summed directly.
  const Matrix3 about_origin =
      expected +
      p.volume * (c.squaredNorm() * Matrix3::Identity() - c * c.transpose());
  Matrix3 direct = p.unit_inertia +
                   p.volume * (p.centroid.squaredNorm() * Matrix3::Identity() -
                               p.centroid * p.centroid.transpose());
  EXPECT_NEAR((about_origin - direct).norm(), 0.0, 1e-14);
}

// The tetrahedron with vertices 0, a e_x, b e_y, c e_z: by the monomial
// integrals over the standard simplex (int x^i y^j z^k = i! j! k! /
// (i+j+k+3)!) scaled, int x^2 = a^3 b c / 60 and int x y = a^2 b^2 c / 120.
TEST(TriangleMesh, TetrahedronClosedForm) {
  const double a = 0.5, b = 2.0, c = 1.5;
  const Vector3 o(0, 0, 0), x(a, 0, 0), y(0, b, 0), z(0, 0, c);
  const TriangleMesh mesh =
      Welded({{o, y, x}, {o, x, z}, {o, z, y}, {x, y, z}});
  ASSERT_TRUE(CheckClosed(mesh).closed) << CheckClosed(mesh).reason;
  const MeshVolumeProperties p = ComputeVolumeProperties(mesh);
  const double v = a * b * c / 6;
  EXPECT_NEAR(p.volume, v, 1e-15);
  const Vector3 centroid(a / 4, b / 4, c / 4);
  EXPECT_NEAR((p.centroid - centroid).norm(), 0.0, 1e-15);
  const double xx = a * a * a * b * c / 60, yy = a * b * b * b * c / 60,
               zz = a * b * c * c * c / 60;
  const double xy = a * a * b * b * c / 120, xz = a * a * b * c * c / 120,
               yz = a * b * b * c * c / 120;
  Matrix3 about_origin;
  about_origin << yy + zz, -xy, -xz, -xy, xx + zz, -yz, -xz, -yz, xx + yy;
  const Matrix3 expected =
      about_origin - v * (centroid.squaredNorm() * Matrix3::Identity() -
                          centroid * centroid.transpose());
  EXPECT_NEAR((p.unit_inertia - expected).norm(), 0.0, 1e-15)
      << p.unit_inertia << "\n"
      << expected;
}

// A UV sphere's volume and inertia approach 4/3 pi r^3 and 2/5 m r^2 as
// O(h^2): the errors fall about 4x per doubling of the resolution.
TEST(TriangleMesh, TessellatedSphereConvergesToTwoFifthsMR2) {
  const double r = 0.3;
  const double volume = 4.0 / 3.0 * M_PI * r * r * r;
  const double inertia = 0.4 * volume * r * r;
  double previous_v = 1.0, previous_i = 1.0;
  for (int rings : {16, 32, 64, 128}) {
    const TriangleMesh mesh = Welded(SphereTriangles(r, rings, 2 * rings));
    ASSERT_TRUE(CheckClosed(mesh).closed) << CheckClosed(mesh).reason;
    const MeshVolumeProperties p = ComputeVolumeProperties(mesh);
    const double ev = std::abs(p.volume / volume - 1.0);
    const double ei =
        (p.unit_inertia - inertia * Matrix3::Identity()).norm() / inertia;
    // An inscribed polyhedron: at most the discretisation error of the
    // coarsest band, 2 (pi / rings)^2.
    EXPECT_LT(ev, 2 * std::pow(M_PI / rings, 2)) << rings;
    EXPECT_LT(ei, 4 * std::pow(M_PI / rings, 2)) << rings;
    EXPECT_LT(ev, previous_v / 3.5) << rings;
    EXPECT_LT(ei, previous_i / 3.5) << rings;
    EXPECT_LT(p.centroid.norm(), 1e-15);
    previous_v = ev;
    previous_i = ei;
  }
  EXPECT_LT(previous_i, 1e-3);  // 7.3e-4 at 128 rings
}

TEST(TriangleMesh, ScaleAndMirror) {
  const Vector3 lo(0.1, 0.2, 0.3), hi(0.5, 0.4, 1.3);
  const TriangleMesh box = Welded(BoxTriangles(lo, hi));
  const Vector3 e = hi - lo;
  for (const Vector3& scale : {Vector3(2, 3, 0.5), Vector3(-1, 1, 1),
                               Vector3(-2, -1, 0.5), Vector3(-1, -1, -1)}) {
    TriangleMesh mesh = box;
    ScaleMesh(&mesh, scale);
    const MeshClosure closure = CheckClosed(mesh);
    EXPECT_TRUE(closure.closed) << closure.reason << " scale " << scale;
    const MeshVolumeProperties p = ComputeVolumeProperties(mesh);
    const Vector3 se = e.cwiseProduct(scale).cwiseAbs();
    EXPECT_NEAR(p.volume, se.prod(), 1e-15);
    EXPECT_NEAR((p.centroid - (0.5 * (lo + hi)).cwiseProduct(scale)).norm(),
                0.0, 1e-15);
    EXPECT_NEAR((p.unit_inertia - BoxInertia(se)).norm(), 0.0, 1e-15);
  }
  // Mirroring the coordinates without reversing the triangles turns the
  // mesh inside out.
  TriangleMesh mirrored = box;
  for (Vector3& v : mirrored.vertices) v.x() = -v.x();
  EXPECT_TRUE(Contains(CheckClosed(mirrored).reason, "inside out"));

  TriangleMesh mesh = box;
  for (const Vector3& bad : {Vector3(1, 0, 1), Vector3(1, 1, NAN)}) {
    EXPECT_THROW(ScaleMesh(&mesh, bad), std::invalid_argument);
  }
}

}  // namespace
}  // namespace sapcontact
