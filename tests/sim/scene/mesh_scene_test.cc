// Mesh and cylinder bodies in scene files: mass properties from the closed
// mesh (against closed forms), the body frame at the centroid with the
// mesh file's origin where `position` says, meshes shared by grid copies,
// warnings for meshes that collide as their hull, and errors naming the
// file, line, field and reason.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::AsciiStl;
using geometry_test::BinaryStl;
using geometry_test::BoxTriangles;
using geometry_test::TempDir;
using geometry_test::Triangle;
using geometry_test::WriteBytes;

// A scene with a ground plane and the given body entries (YAML list items).
std::string SceneWith(const std::string& bodies) {
  return "time_step: 0.001\nduration: 0.01\nbodies:\n"
         "  - {name: ground, fixed: true, shape: {type: plane}}\n" +
         bodies;
}

Scene Load(const TempDir& dir, const std::string& text) {
  const std::string path = dir.File("scene.yaml");
  std::ofstream(path) << text;
  return LoadScene(path);
}

// The SceneError of loading `text`, which must fail.
SceneError LoadError(const TempDir& dir, const std::string& text) {
  try {
    Load(dir, text);
  } catch (const SceneError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded:\n" << text;
  return SceneError("", 0, 0, "", "");
}

TEST(MeshScene, DensityWeighsTheClosedMeshAndTheFrameIsItsCentroid) {
  TempDir dir;
  // A 0.25 x 0.5 x 1 box from the file's origin (binary fractions: exact in
  // the STL's float32), scaled by 0.5 along z.
  WriteBytes(dir.File("brick.stl"),
             BinaryStl(BoxTriangles(Vector3(0, 0, 0), Vector3(0.25, 0.5, 1))));
  const Scene s = Load(
      dir, SceneWith("  - name: brick\n"
                     "    shape: {type: mesh, file: brick.stl, scale: [1, 1, "
                     "0.5]}\n"
                     "    density: 800\n"
                     "    position: [1, 2, 3]\n"
                     "    rpy: [0, 0, 1.5707963267948966]\n"));
  const Body& b = s.bodies[1];
  ASSERT_EQ(b.shape.type, ShapeType::kMesh);
  const double x = 0.25, y = 0.5, z = 0.5;
  const double m = 800 * x * y * z;
  EXPECT_NEAR(b.mass, m, 1e-12 * m);
  const Vector3 expected =
      m / 12 * Vector3(y * y + z * z, x * x + z * z, x * x + y * y);
  EXPECT_TRUE(b.inertia.isApprox(Matrix3(expected.asDiagonal()), 1e-12))
      << b.inertia;
  // The hull is centred on the centroid; the file's origin lies at -c.
  const MeshShape& mesh = *b.shape.mesh;
  EXPECT_TRUE(mesh.offset.isApprox(-Vector3(x, y, z) / 2, 1e-12));
  EXPECT_TRUE((mesh.hull.lower + mesh.hull.upper).isZero(1e-12));
  // Rotated by 90 degrees about z, the centroid (x/2, y/2, z/2) of the
  // file's frame is at (-y/2, x/2, z/2) from `position`.
  EXPECT_TRUE(
      b.pose.position.isApprox(Vector3(1 - y / 2, 2 + x / 2, 3 + z / 2), 1e-12))
      << b.pose.position.transpose();
  // Mass given: the same inertia scaled to it.
  const Scene given = Load(dir, SceneWith("  - name: brick\n"
                                          "    shape: {type: mesh, file: "
                                          "brick.stl, scale: [1, 1, 0.5]}\n"
                                          "    mass: 2\n"));
  EXPECT_EQ(given.bodies[1].mass, 2.0);
  EXPECT_TRUE(given.bodies[1].inertia.isApprox(b.inertia * (2.0 / m), 1e-12));
  EXPECT_TRUE(s.warnings.empty());
}

TEST(MeshScene, GridCopiesShareOneMeshAndFixedMeshesKeepTheirFrame) {
  TempDir dir;
  WriteBytes(dir.File("cube.stl"),
             AsciiStl(BoxTriangles(Vector3(0, 0, 0), Vector3(0.1, 0.1, 0.1))));
  const Scene s =
      Load(dir, SceneWith("  - name: c\n"
                          "    shape: {type: mesh, file: cube.stl}\n"
                          "    mass: 1\n"
                          "    grid: {count: [3, 1, 1], spacing: [0.2, 0, 0]}\n"
                          "  - name: shelf\n"
                          "    fixed: true\n"
                          "    shape: {type: mesh, file: cube.stl}\n"
                          "    position: [0, 1, 0]\n"));
  ASSERT_EQ(s.bodies.size(), 5u);
  EXPECT_EQ(s.bodies[1].shape.mesh, s.bodies[2].shape.mesh);
  EXPECT_EQ(s.bodies[1].shape.mesh, s.bodies[3].shape.mesh);
  EXPECT_NEAR(s.bodies[3].pose.position.x(), 0.45, 1e-12);
  // Fixed: not centred, the file's frame is the body frame.
  const Body& shelf = s.bodies[4];
  EXPECT_NE(shelf.shape.mesh, s.bodies[1].shape.mesh);
  EXPECT_TRUE(shelf.shape.mesh->offset.isZero());
  EXPECT_TRUE(shelf.pose.position.isApprox(Vector3(0, 1, 0)));
  EXPECT_NEAR(shelf.shape.mesh->hull.lower.norm(), 0.0, 1e-7);
}

// A closed L (the union of [0, 0.5] x [0, 0.25] x [0, 0.25] and
// [0, 0.25] x [0, 0.25] x [0.25, 0.5]) as one outward surface: three cubes
// of 0.25 m, its hull 3.5.
std::vector<Triangle> StepTriangles() {
  std::vector<Triangle> t;
  const double a = 0.25, b = 0.5;
  const std::vector<Vector3> outline = {{0, 0, 0}, {b, 0, 0}, {b, 0, a},
                                        {a, 0, a}, {a, 0, b}, {0, 0, b}};
  const Vector3 depth(0, a, 0);
  const int fan[][3] = {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}};
  for (const auto& f : fan) {
    t.push_back({outline[f[0]], outline[f[1]], outline[f[2]]});
    t.push_back(
        {outline[f[0]] + depth, outline[f[2]] + depth, outline[f[1]] + depth});
  }
  for (int i = 0; i < 6; ++i) {
    const Vector3 &p = outline[i], &q = outline[(i + 1) % 6];
    t.push_back({p, q + depth, q});
    t.push_back({p, p + depth, q + depth});
  }
  return t;
}

TEST(MeshScene, MeshesThatAreNotTheirHullAreWarnedOnce) {
  TempDir dir;
  WriteBytes(dir.File("step.stl"), BinaryStl(StepTriangles()));
  // Open meshes: a box without one triangle (its surface is its hull's: no
  // warning) and the L without one (not its hull).
  std::vector<Triangle> box =
      BoxTriangles(Vector3(0, 0, 0), Vector3(0.25, 0.25, 0.25));
  box.pop_back();
  WriteBytes(dir.File("open_box.stl"), BinaryStl(box));
  std::vector<Triangle> step = StepTriangles();
  step.pop_back();
  WriteBytes(dir.File("open_step.stl"), BinaryStl(step));
  const Scene s =
      Load(dir, SceneWith("  - name: a\n"
                          "    shape: {type: mesh, file: step.stl}\n"
                          "    density: 1000\n"
                          "  - name: b\n"
                          "    shape: {type: mesh, file: step.stl}\n"
                          "    density: 1000\n"
                          "    position: [2, 0, 0]\n"
                          "  - name: c\n"
                          "    fixed: true\n"
                          "    shape: {type: mesh, file: open_box.stl}\n"
                          "  - name: d\n"
                          "    fixed: true\n"
                          "    shape: {type: mesh, file: open_step.stl}\n"));
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0],
            "bodies.a.shape.file: mesh 'step.stl' is not "
            "convex (mesh volume 0.04688 m^3, its hull's "
            "0.05469 m^3): it collides as its convex hull");
  EXPECT_EQ(s.warnings[1].rfind("bodies.d.shape.file: mesh 'open_step.stl' "
                                "is not convex and not closed (edge between",
                                0),
            0u)
      << s.warnings[1];
  EXPECT_TRUE(s.bodies[3].shape.mesh->convex);
  EXPECT_FALSE(s.bodies[3].shape.mesh->closed);
  // The mass of the L, not of its hull.
  EXPECT_NEAR(s.bodies[1].mass, 1000 * 3 * 0.25 * 0.25 * 0.25, 1e-9);
}

TEST(MeshScene, ErrorsNameTheFieldAndTheReason) {
  TempDir dir;
  std::vector<Triangle> open =
      BoxTriangles(Vector3(0, 0, 0), Vector3(0.25, 0.25, 0.25));
  open.pop_back();
  WriteBytes(dir.File("open.stl"), BinaryStl(open));
  WriteBytes(dir.File("cube.stl"),
             BinaryStl(BoxTriangles(Vector3(0, 0, 0), Vector3(1, 1, 1))));
  WriteBytes(dir.File("empty.stl"), "");
  struct Case {
    std::string body, field, part;
  } cases[] = {
      {"    shape: {type: mesh, file: missing.stl}\n    mass: 1\n",
       "bodies.m.shape.file", "missing.stl"},
      {"    shape: {type: mesh, file: empty.stl}\n    mass: 1\n",
       "bodies.m.shape.file", "empty"},
      {"    shape: {type: mesh, file: open.stl}\n    mass: 1\n",
       "bodies.m.shape.file", "make the body fixed"},
      {"    shape: {type: mesh, file: cube.stl, scale: [1, 0, 1]}\n"
       "    mass: 1\n",
       "bodies.m.shape.scale[1]", "must not be zero"},
      {"    shape: {type: mesh, file: cube.stl, scale: [1e5, 1, 1]}\n"
       "    mass: 1\n",
       "bodies.m.shape.file", "largest extent"},
      {"    shape: {type: mesh, file: cube.stl, size: [1, 1, 1]}\n"
       "    mass: 1\n",
       "bodies.m.shape.size", "not a parameter of a mesh"},
      {"    shape: {type: mesh}\n    mass: 1\n", "bodies.m.shape.file",
       "'file'"},
      {"    shape: {type: cylinder, radius: 0.1}\n    mass: 1\n",
       "bodies.m.shape.length", "'length'"},
  };
  for (const Case& c : cases) {
    const SceneError e = LoadError(dir, SceneWith("  - name: m\n" + c.body));
    EXPECT_EQ(e.field(), c.field) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.part), std::string::npos)
        << e.what();
    EXPECT_GT(e.line(), 0) << e.what();
  }
}

TEST(CylinderScene, DensityGivesTheClosedFormMassProperties) {
  TempDir dir;
  const Scene s = Load(dir, SceneWith("  - name: can\n"
                                      "    shape: {type: cylinder, radius: "
                                      "0.05, length: 0.2}\n"
                                      "    density: 1000\n"));
  const double pi = 3.14159265358979323846;
  const double m = 1000 * pi * 0.05 * 0.05 * 0.2;
  EXPECT_NEAR(s.bodies[1].mass, m, 1e-12);
  EXPECT_NEAR(s.bodies[1].inertia(0, 0), m * (3 * 0.0025 + 0.04) / 12, 1e-15);
  EXPECT_NEAR(s.bodies[1].inertia(2, 2), m * 0.0025 / 2, 1e-15);
}

}  // namespace
}  // namespace sapcontact
