// LoadMeshShape: scaled, centred boxes against closed forms; non-convex,
// open, inside-out and flat meshes with their reasons; the KR5 and WAM
// meshes of dart-doc (statistics printed); load time of a 50k-triangle
// mesh printed (not asserted).
#include "sapcontact/geometry/mesh_shape.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "sapcontact/geometry/mesh_file.h"
#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::AsciiStl;
using geometry_test::BinaryStl;
using geometry_test::BoxInertia;
using geometry_test::BoxTriangles;
using geometry_test::ExpectValidHull;
using geometry_test::GridBoxTriangles;
using geometry_test::SphereTriangles;
using geometry_test::TempDir;
using geometry_test::Triangle;
using geometry_test::WriteBytes;

using geometry_test::Contains;

std::string Error(const std::string& path, const Vector3& scale, bool centre) {
  try {
    LoadMeshShape(path, "mesh", scale, centre);
  } catch (const MeshError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MeshShape, ScaledCentredBox) {
  TempDir dir;
  const Vector3 lo(0.5, -0.25, 0.125), hi(1.5, 0.25, 0.375);  // exact floats
  WriteBytes(dir.File("box.stl"), BinaryStl(GridBoxTriangles(lo, hi, 4)));
  for (const Vector3& scale : {Vector3(1, 1, 1), Vector3(2, 0.5, 3),
                               Vector3(-1, 1, 1), Vector3(-2, -0.5, -3)}) {
    SCOPED_TRACE(scale.transpose());
    for (bool centre : {false, true}) {
      const auto shape =
          LoadMeshShape(dir.File("box.stl"), "box.stl", scale, centre);
      EXPECT_EQ(shape->file, "box.stl");
      EXPECT_EQ(shape->path, dir.File("box.stl"));
      EXPECT_EQ(shape->scale, scale);
      EXPECT_EQ(shape->mesh_vertices, 98);
      EXPECT_EQ(shape->mesh_triangles, 192);
      EXPECT_TRUE(shape->closed) << shape->not_closed_reason;
      EXPECT_TRUE(shape->not_closed_reason.empty());
      const Vector3 e = (hi - lo).cwiseProduct(scale).cwiseAbs();
      const Vector3 centroid = (0.5 * (lo + hi)).cwiseProduct(scale);
      EXPECT_NEAR(shape->volume, e.prod(), 1e-14);
      EXPECT_NEAR((shape->unit_inertia - BoxInertia(e)).norm(), 0.0, 1e-14);
      EXPECT_NEAR(
          (shape->offset - (centre ? Vector3(-centroid) : Vector3::Zero()))
              .norm(),
          0.0, 1e-15);
      EXPECT_NEAR(
          (shape->centroid - (centre ? Vector3::Zero() : Vector3(centroid)))
              .norm(),
          0.0, 1e-15);
      // The hull: the 8 corners, 6 quads, in the shape frame.
      EXPECT_EQ(shape->hull.vertices.size(), 8u);
      EXPECT_EQ(shape->hull.faces.size(), 6u);
      EXPECT_NEAR(shape->hull.volume, e.prod(), 1e-14);
      const Vector3 middle = 0.5 * (shape->hull.lower + shape->hull.upper);
      EXPECT_NEAR(
          (middle - (centre ? Vector3::Zero() : Vector3(centroid))).norm(), 0.0,
          1e-15);
      EXPECT_TRUE(shape->convex);
    }
  }
}

// An L-shaped prism (closed, not convex): volume 3 of its hull's 3.5.
TEST(MeshShape, NonConvexClosedMesh) {
  TempDir dir;
  // The L in the xy plane, extruded along z from 0 to 1.
  const std::vector<Vector3> l = {{0, 0, 0}, {2, 0, 0}, {2, 1, 0},
                                  {1, 1, 0}, {1, 2, 0}, {0, 2, 0}};
  std::vector<Triangle> triangles;
  const Vector3 up(0, 0, 1);
  // Bottom (seen from below: clockwise in xy) and top as fans from the
  // reflex-free corner 0 ... the L is not convex, so triangulate by hand.
  const int bottom[4][3] = {{0, 2, 1}, {0, 3, 2}, {0, 5, 3}, {3, 5, 4}};
  for (const auto& t : bottom) {
    triangles.push_back({l[t[0]], l[t[1]], l[t[2]]});
    triangles.push_back({l[t[0]] + up, l[t[2]] + up, l[t[1]] + up});
  }
  for (int i = 0; i < 6; ++i) {
    const Vector3 a = l[i], b = l[(i + 1) % 6];
    triangles.push_back({a, b, b + up});
    triangles.push_back({a, b + up, a + up});
  }
  WriteBytes(dir.File("l.stl"), AsciiStl(triangles));
  const auto shape =
      LoadMeshShape(dir.File("l.stl"), "l.stl", Vector3::Ones(), true);
  EXPECT_TRUE(shape->closed) << shape->not_closed_reason;
  EXPECT_NEAR(shape->volume, 3.0, 1e-12);
  EXPECT_NEAR(shape->hull.volume, 3.5, 1e-12);
  EXPECT_FALSE(shape->convex);
  EXPECT_EQ(shape->hull.vertices.size(), 10u);  // the reflex corner is not
  EXPECT_EQ(shape->hull.faces.size(), 7u);
  // Centroid of the L: (3 squares) ((0.5,0.5) + (1.5,0.5) + (0.5,1.5)) / 3.
  EXPECT_NEAR((shape->offset + Vector3(5.0 / 6, 5.0 / 6, 0.5)).norm(), 0.0,
              1e-12);
}

TEST(MeshShape, OpenInsideOutFlatAndBadScale) {
  TempDir dir;
  const Vector3 lo(0, 0, 0), hi(1, 2, 3);
  std::vector<Triangle> open = BoxTriangles(lo, hi);
  open.pop_back();
  WriteBytes(dir.File("open.stl"), BinaryStl(open));
  // Without centring: loads, not closed, no volume; convex: its triangles
  // lie on its hull's boundary (what a box without one triangle describes
  // is the box).
  const auto shape =
      LoadMeshShape(dir.File("open.stl"), "open.stl", Vector3::Ones(), false);
  EXPECT_FALSE(shape->closed);
  EXPECT_TRUE(Contains(shape->not_closed_reason, "belongs to 1 triangle"));
  EXPECT_EQ(shape->volume, 0.0);
  EXPECT_EQ(shape->unit_inertia, Matrix3::Zero());
  EXPECT_TRUE(shape->convex);
  EXPECT_EQ(HullApproximation(*shape), "");
  EXPECT_EQ(shape->hull.vertices.size(), 8u);
  EXPECT_NEAR(shape->hull.volume, 6.0, 1e-14);
  // Centring needs a volume.
  const std::string message =
      Error(dir.File("open.stl"), Vector3::Ones(), true);
  EXPECT_TRUE(Contains(
      message, dir.File("open.stl") + ": not closed (edge between vertices ("))
      << message;
  EXPECT_TRUE(Contains(message,
                       ") belongs to 1 triangle): a body of it has no volume "
                       "to weigh"))
      << message;

  std::vector<Triangle> inside_out = BoxTriangles(lo, hi);
  for (Triangle& t : inside_out) std::swap(t[1], t[2]);
  WriteBytes(dir.File("inside_out.stl"), BinaryStl(inside_out));
  const std::string inverted =
      Error(dir.File("inside_out.stl"), Vector3::Ones(), true);
  EXPECT_TRUE(Contains(inverted,
                       "inside_out.stl: not closed (inside out (negative "
                       "volume -6 m^3"))
      << inverted;

  // A flat plate (two triangles): no hull.
  WriteBytes(
      dir.File("plate.stl"),
      BinaryStl({{Vector3(0, 0, 0), Vector3(1, 0, 0), Vector3(1, 1, 0)},
                 {Vector3(0, 0, 0), Vector3(1, 1, 0), Vector3(0, 1, 0)}}));
  const std::string plate =
      Error(dir.File("plate.stl"), Vector3::Ones(), false);
  EXPECT_TRUE(Contains(plate, dir.File("plate.stl") +
                                  ": the points are coplanar: a flat mesh "
                                  "has no volume"))
      << plate;

  WriteBytes(dir.File("box.stl"), BinaryStl(BoxTriangles(lo, hi)));
  EXPECT_TRUE(Contains(Error(dir.File("box.stl"), Vector3(1, 0, 1), true),
                       "box.stl: scale y = 0: every scale component must be "
                       "finite and non-zero"))
      << Error(dir.File("box.stl"), Vector3(1, 0, 1), true);
  EXPECT_TRUE(Contains(Error(dir.File("missing.stl"), Vector3::Ones(), true),
                       "missing.stl: cannot open the mesh file"));
}

struct Statistics {
  MeshFileReport report;
  std::shared_ptr<const MeshShape> shape;
  double seconds;
};

Statistics Load(const std::string& path) {
  Statistics s;
  const auto start = std::chrono::steady_clock::now();
  s.shape = LoadMeshShape(path, path, Vector3::Ones(), false);
  s.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ReadMeshFile(path, {}, &s.report);
  return s;
}

void PrintHeader() {
  std::printf("%-22s %6s %6s %6s %-7s %11s %5s %5s %11s %6s %7s\n", "mesh",
              "file_t", "verts", "tris", "closed", "volume", "hullV", "hullF",
              "hull_vol", "convex", "ms");
}

void Print(const std::string& name, const Statistics& s) {
  const MeshShape& m = *s.shape;
  std::printf("%-22s %6d %6d %6d %-7s %11.4e %5zu %5zu %11.4e %6s %7.2f\n",
              name.c_str(), s.report.file_triangles, m.mesh_vertices,
              m.mesh_triangles, m.closed ? "yes" : "no", m.volume,
              m.hull.vertices.size(), m.hull.faces.size(), m.hull.volume,
              m.convex ? "yes" : "no", 1e3 * s.seconds);
  if (!m.closed)
    std::printf("    not closed: %s\n", m.not_closed_reason.c_str());
}

// Every mesh of the dart-doc robots loads; its hull is a valid hull of the
// mesh's vertices and holds the mesh's volume.
void CheckRobotMeshes(const std::string& dir,
                      const std::vector<std::string>& names) {
  if (!std::filesystem::exists(dir)) {
    GTEST_SKIP() << "dart-doc is not installed (" << dir
                 << "): apt-get install dart-doc";
  }
  PrintHeader();
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Statistics s = Load(dir + name);
    Print(name, s);
    const MeshShape& m = *s.shape;
    const TriangleMesh mesh = ReadMeshFile(dir + name);
    // Faces strictly convex (micrometre edges of the CAD data leave
    // corners of a few nanometres: kept, they are extreme points).
    ExpectValidHull(m.hull, mesh.vertices,
                    4 * kHullMergeTolerance * m.hull.bounding_radius, 0.0);
    EXPECT_EQ(m.mesh_vertices, static_cast<int>(mesh.vertices.size()));
    if (m.closed) {
      EXPECT_GT(m.volume, 0.0);
      EXPECT_LE(m.volume, m.hull.volume * (1 + 1e-6));
      // Inertia: symmetric positive definite, triangle inequalities.
      const Eigen::SelfAdjointEigenSolver<Matrix3> eig(m.unit_inertia);
      EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
      const Vector3 d = eig.eigenvalues();
      EXPECT_LE(d[2], d[0] + d[1] + 1e-12 * d[2]);
    }
  }
}

TEST(MeshShape, Kr5Meshes) {
  CheckRobotMeshes("/usr/share/doc/dart/data/urdf/KR5/meshes/",
                   {"base_link.STL", "shoulder.STL", "bicep.STL", "elbow.STL",
                    "forearm.STL", "wrist.STL", "palm.STL"});
}

TEST(MeshShape, WamMeshes) {
  std::vector<std::string> names;
  for (const char* link :
       {"wam_base", "wam1", "wam2", "wam3", "wam4", "wam5", "wam6", "wam7"}) {
    names.push_back(std::string(link) + ".STL");
    names.push_back(std::string(link) + ".dae");
    names.push_back(std::string(link) + "_collision.STL");
  }
  CheckRobotMeshes("/usr/share/doc/dart/data/urdf/wam/meshes/wam/", names);
  // Which collision meshes are their own hulls (every triangle on the
  // hull's boundary; wam7's lie within 1.1e-6 of its size, inside the
  // tolerance the merging of nearly coplanar facets needs).
  const std::string dir = "/usr/share/doc/dart/data/urdf/wam/meshes/wam/";
  if (!std::filesystem::exists(dir)) return;
  for (const char* link :
       {"wam_base", "wam1", "wam2", "wam3", "wam4", "wam5", "wam6", "wam7"}) {
    const std::string file = std::string(link) + "_collision.STL";
    const bool convex =
        LoadMeshShape(dir + file, file, Vector3::Ones(), false)->convex;
    const bool expected = std::string(link) == "wam_base" ||
                          std::string(link) == "wam2" ||
                          std::string(link) == "wam7";
    EXPECT_EQ(convex, expected) << file;
  }
}

// Loads on 4 threads at once (qhull and assimp instances per call) equal
// the serial ones.
TEST(MeshShape, ConcurrentLoadsEqualSerial) {
  TempDir dir;
  WriteBytes(dir.File("a.stl"), BinaryStl(SphereTriangles(0.2, 20, 40)));
  WriteBytes(dir.File("b.obj"), geometry_test::Obj(GridBoxTriangles(
                                    Vector3(0, 0, 0), Vector3(1, 2, 3), 5)));
  WriteBytes(dir.File("c.dae"),
             geometry_test::Collada(SphereTriangles(0.1, 12, 24)));
  WriteBytes(dir.File("d.stl"), AsciiStl(GridBoxTriangles(
                                    Vector3(-1, -1, -1), Vector3(1, 1, 1), 3)));
  const std::vector<std::string> files = {"a.stl", "b.obj", "c.dae", "d.stl"};
  std::vector<std::shared_ptr<const MeshShape>> serial;
  for (const std::string& f : files) {
    serial.push_back(LoadMeshShape(dir.File(f), f, Vector3(1, 2, 1), true));
  }
  std::vector<std::vector<std::shared_ptr<const MeshShape>>> parallel(
      files.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < files.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 8; ++repeat) {
        const std::string& f = files[(t + repeat) % files.size()];
        parallel[t].push_back(
            LoadMeshShape(dir.File(f), f, Vector3(1, 2, 1), true));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t t = 0; t < files.size(); ++t) {
    ASSERT_EQ(parallel[t].size(), 8u);
    for (int repeat = 0; repeat < 8; ++repeat) {
      const MeshShape& a = *parallel[t][repeat];
      const MeshShape& b = *serial[(t + repeat) % files.size()];
      EXPECT_EQ(a.volume, b.volume) << a.file;
      EXPECT_EQ(a.unit_inertia, b.unit_inertia) << a.file;
      EXPECT_EQ(a.hull.vertices, b.hull.vertices) << a.file;
      EXPECT_EQ(a.hull.faces.size(), b.hull.faces.size()) << a.file;
    }
  }
}

// Load time of a 50k-triangle sphere (printed, not asserted), and its
// properties against the sphere's.
TEST(MeshShape, FiftyThousandTriangles) {
  TempDir dir;
  const double r = 0.1;
  const std::vector<Triangle> sphere = SphereTriangles(r, 125, 200);
  ASSERT_GT(sphere.size(), 49000u);
  WriteBytes(dir.File("sphere.stl"), BinaryStl(sphere));
  WriteBytes(dir.File("sphere_ascii.stl"), AsciiStl(sphere));
  for (const char* name : {"sphere.stl", "sphere_ascii.stl"}) {
    const Statistics s = Load(dir.File(name));
    PrintHeader();
    Print(name, s);
    const MeshShape& m = *s.shape;
    EXPECT_TRUE(m.closed) << m.not_closed_reason;
    EXPECT_TRUE(m.convex);
    const double volume = 4.0 / 3.0 * M_PI * r * r * r;
    EXPECT_NEAR(m.volume, volume, 1e-3 * volume);
    EXPECT_NEAR(m.unit_inertia(0, 0), 0.4 * volume * r * r,
                2e-3 * 0.4 * volume * r * r);
  }
}

}  // namespace
}  // namespace sapcontact
