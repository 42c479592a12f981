// URDF collision geometry beyond primitives: native cylinders, meshes
// (relative, file:// and package:// paths; scale; one load per file;
// approximation warnings), the counts of loaded, dropped and approximated
// shapes, and errors that name the URDF line, the link and the path tried.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/geometry/geometry_test_util.h"
#include "tests/sim/robot/robot_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::BinaryStl;
using geometry_test::BoxTriangles;
using geometry_test::TempDir;
using geometry_test::Triangle;
using geometry_test::WriteBytes;
using testing_util::At;
using testing_util::LineOf;

using testing_util::RobotUrdf;

// One link "a" with the given <collision> elements.
std::string OneLink(const std::string& collisions) {
  return RobotUrdf("  <link name=\"a\">\n" + collisions + "  </link>\n");
}

std::string Collision(const std::string& geometry,
                      const std::string& name = "") {
  return "    <collision" + (name.empty() ? "" : " name=\"" + name + "\"") +
         ">\n      <geometry>" + geometry + "</geometry>\n    </collision>\n";
}

// An L-shaped (non-convex) closed mesh, outward triangles: the cross-section
// of three square cells of side kCell (x-z plane) extruded by kCell along y.
// Binary fractions, exact in an STL's float32.
constexpr double kCell = 0.125;
std::vector<Triangle> LShapeTriangles() {
  const double c = kCell;
  // Counter-clockwise seen from -y.
  const std::vector<Vector3> outline = {{0, 0, 0},     {2 * c, 0, 0},
                                        {2 * c, 0, c}, {c, 0, c},
                                        {c, 0, 2 * c}, {0, 0, 2 * c}};
  const Vector3 depth(0, c, 0);
  std::vector<Triangle> t;
  // The caps, fanned from the reflex vertex 3.
  const int fan[][3] = {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}};
  for (const auto& f : fan) {
    t.push_back({outline[f[0]], outline[f[1]], outline[f[2]]});  // -y
    t.push_back({outline[f[0]] + depth, outline[f[2]] + depth,
                 outline[f[1]] + depth});  // +y
  }
  const int n = static_cast<int>(outline.size());
  for (int i = 0; i < n; ++i) {  // the sides
    const Vector3 &p = outline[i], &q = outline[(i + 1) % n];
    t.push_back({p, q + depth, q});
    t.push_back({p, p + depth, q + depth});
  }
  return t;
}

TEST(UrdfGeometry, CylindersLoadAsCylinders) {
  const std::string xml =
      OneLink(Collision("<cylinder radius=\"0.1\" length=\"0.5\"/>", "c"));
  const RobotDescription robot = ParseUrdf(xml, "cyl.urdf");
  ASSERT_EQ(robot.geometries.size(), 1u);
  const Shape& c = robot.geometries[0].shape;
  EXPECT_EQ(c.type, ShapeType::kCylinder);
  EXPECT_EQ(c.radius, 0.1);
  EXPECT_EQ(c.length, 0.5);
  EXPECT_TRUE(robot.warnings.empty());
  EXPECT_EQ(robot.collision_counts.loaded, 1);
  EXPECT_EQ(robot.collision_counts.approximated, 0);
}

TEST(UrdfGeometry, MeshesResolveRelativeFileAndPackagePaths) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("pkg/arm/meshes"));
  std::filesystem::create_directories(dir.File("urdf"));
  const std::string cube =
      BinaryStl(BoxTriangles(Vector3(-1, -1, -1), Vector3(1, 1, 1)));
  WriteBytes(dir.File("pkg/arm/meshes/cube.stl"), cube);
  WriteBytes(dir.File("urdf/near.stl"), cube);
  const std::string xml = OneLink(
      Collision("<mesh filename=\"near.stl\" scale=\"0.1 0.2 0.3\"/>",
                "relative") +
      Collision("<mesh filename=\"file://" +
                    dir.File("pkg/arm/meshes/cube.stl") + "\"/>",
                "file") +
      Collision("<mesh filename=\"package://arm/meshes/cube.stl\"/>", "pkg") +
      Collision("<mesh filename=\"package://arm/meshes/cube.stl\"/>", "again"));
  const std::string path = dir.File("urdf/robot.urdf");
  std::ofstream(path) << xml;
  UrdfOptions options;
  options.package_paths["arm"] = dir.File("pkg/arm");
  const RobotDescription robot = LoadUrdf(path, options);
  ASSERT_EQ(robot.geometries.size(), 4u);
  for (const RobotGeometry& g : robot.geometries) {
    ASSERT_EQ(g.shape.type, ShapeType::kMesh) << g.name;
    EXPECT_EQ(g.shape.mesh->hull.vertices.size(), 8u) << g.name;
    EXPECT_EQ(g.shape.mesh->hull.faces.size(), 6u) << g.name;
  }
  // Scaled per axis, in the file's frame (not centred).
  const ConvexHull& scaled = robot.geometries[0].shape.mesh->hull;
  EXPECT_TRUE(scaled.lower.isApprox(Vector3(-0.1, -0.2, -0.3)));
  EXPECT_TRUE(scaled.upper.isApprox(Vector3(0.1, 0.2, 0.3)));
  EXPECT_NEAR(scaled.volume, 0.2 * 0.4 * 0.6, 1e-12);
  EXPECT_EQ(robot.geometries[0].shape.mesh->path, dir.File("urdf/near.stl"));
  EXPECT_EQ(robot.geometries[0].shape.mesh->file, "near.stl");
  // The same file and scale is loaded once and shared.
  EXPECT_EQ(robot.geometries[2].shape.mesh, robot.geometries[3].shape.mesh);
  EXPECT_EQ(robot.geometries[1].shape.mesh->path,
            dir.File("pkg/arm/meshes/cube.stl"));
  EXPECT_TRUE(robot.warnings.empty());  // closed, convex meshes
  EXPECT_EQ(robot.collision_counts.loaded, 4);
  EXPECT_EQ(robot.collision_counts.dropped, 0);
  EXPECT_EQ(robot.collision_counts.approximated, 0);

  // ROS_PACKAGE_PATH: folders searched for a folder named like the
  // package; package_paths first.
  ::setenv("ROS_PACKAGE_PATH",
           (dir.File("nowhere") + ":" + dir.File("pkg")).c_str(), 1);
  const RobotDescription ros = LoadUrdf(path);
  EXPECT_EQ(ros.geometries[2].shape.mesh->path,
            dir.File("pkg/arm/meshes/cube.stl"));
  UrdfOptions no_env;
  no_env.use_ros_package_path = false;
  EXPECT_THROW(LoadUrdf(path, no_env), UrdfError);
  ::unsetenv("ROS_PACKAGE_PATH");
}

TEST(UrdfGeometry, NonConvexMeshesAreWarnedOnceAndCounted) {
  TempDir dir;
  WriteBytes(dir.File("l.stl"), BinaryStl(LShapeTriangles()));
  const std::string xml = RobotUrdf(
      "  <link name=\"a\">\n" + Collision("<mesh filename=\"l.stl\"/>") +
      Collision("<cylinder radius=\"0.1\" length=\"0.5\"/>") +
      "  </link>\n  <link name=\"b\">\n" +
      Collision("<mesh filename=\"l.stl\"/>") +
      "  </link>\n  <joint name=\"j\" type=\"fixed\"><parent "
      "link=\"a\"/><child link=\"b\"/></joint>\n");
  const std::string path = dir.File("l.urdf");
  std::ofstream(path) << xml;
  UrdfOptions options;
  options.cylinders_as_capsules = true;
  const RobotDescription robot = LoadUrdf(path, options);
  ASSERT_EQ(robot.geometries.size(), 3u);
  const MeshShape& l = *robot.geometries[0].shape.mesh;
  const double cell = kCell * kCell * kCell;
  EXPECT_TRUE(l.closed) << l.not_closed_reason;
  EXPECT_FALSE(l.convex);
  EXPECT_NEAR(l.volume, 3 * cell, 1e-15);         // three cells
  EXPECT_NEAR(l.hull.volume, 3.5 * cell, 1e-15);  // the corner filled
  EXPECT_EQ(robot.collision_counts.loaded, 3);
  EXPECT_EQ(robot.collision_counts.approximated, 3);
  ASSERT_EQ(robot.warnings.size(), 2u);  // the mesh once, the cylinder
  std::ostringstream expected;
  expected.precision(4);
  expected << path << ":" << LineOf(xml, "<mesh")
           << ": link 'a': collision 0: mesh 'l.stl' is not convex (mesh "
              "volume "
           << 3 * cell << " m^3, its hull's " << 3.5 * cell
           << " m^3): it collides as its convex hull";
  EXPECT_EQ(robot.warnings[0], expected.str());
  EXPECT_EQ(robot.warnings[1],
            path + ":" + std::to_string(LineOf(xml, "<cylinder")) +
                ": <cylinder> in link 'a' collision 1 loaded as a capsule "
                "(cylinders_as_capsules)");
}

TEST(UrdfGeometry, MeshErrorsNameTheLineTheLinkAndThePathTried) {
  TempDir dir;
  const std::string missing =
      OneLink(Collision("<mesh filename=\"package://arm/hand.stl\"/>", "hand"));
  UrdfOptions options;
  options.use_ros_package_path = false;
  try {
    ParseUrdf(missing, dir.File("r.urdf"), options);
    ADD_FAILURE() << "loaded";
  } catch (const UrdfError& e) {
    EXPECT_EQ(std::string(e.what()),
              At(dir.File("r.urdf"), missing, "<mesh") +
                  " link 'a': collision 'hand': <mesh "
                  "filename=\"package://arm/hand.stl\">: package 'arm' not "
                  "found (give the robot package_paths: {arm: FOLDER}, or add "
                  "the folder holding 'arm' to ROS_PACKAGE_PATH)");
  }
  options.package_paths["arm"] = dir.File("arm");
  try {
    ParseUrdf(missing, dir.File("r.urdf"), options);
    ADD_FAILURE() << "loaded";
  } catch (const UrdfError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(At(dir.File("r.urdf"), missing, "<mesh") +
                        " link 'a': collision 'hand': <mesh filename="),
              std::string::npos)
        << what;
    EXPECT_NE(what.find(dir.File("arm/hand.stl")), std::string::npos) << what;
  }
  const std::string zero =
      OneLink(Collision("<mesh filename=\"x.stl\" scale=\"1 0 1\"/>", "hand"));
  testing_util::ExpectUrdfError(
      zero, {At("bad.urdf", zero, "<mesh"), "link 'a': collision 'hand'",
             "scale=\"1 0 1\"", "must not be zero"});
  const std::string bad_uri =
      OneLink(Collision("<mesh filename=\"package://arm\"/>"));
  testing_util::ExpectUrdfError(bad_uri, {"not a package URI"});
  const std::string no_file = OneLink(Collision("<mesh/>"));
  testing_util::ExpectUrdfError(no_file,
                                {"the attribute 'filename' is missing"});
  // A truncated STL: the reader's reason, after the URDF's line.
  WriteBytes(
      dir.File("cut.stl"),
      BinaryStl(BoxTriangles(Vector3::Zero(), Vector3::Ones())).substr(0, 300));
  const std::string cut =
      OneLink(Collision("<mesh filename=\"" + dir.File("cut.stl") + "\"/>"));
  testing_util::ExpectUrdfError(
      cut, {At("bad.urdf", cut, "<mesh"), dir.File("cut.stl"), "size"});
}

TEST(UrdfGeometry, SkipUnsupportedDropsOnlyUnknownGeometry) {
  const std::string xml =
      OneLink(Collision("<cone radius=\"0.1\"/>") +
              Collision("<box size=\"0.1 0.1 0.1\"/>", "pad"));
  UrdfOptions options;
  options.skip_unsupported = true;
  const RobotDescription robot = ParseUrdf(xml, "skip.urdf", options);
  ASSERT_EQ(robot.geometries.size(), 1u);
  EXPECT_EQ(robot.geometries[0].name, "a/pad");
  EXPECT_EQ(robot.collision_counts.loaded, 1);
  EXPECT_EQ(robot.collision_counts.dropped, 1);
  ASSERT_EQ(robot.warnings.size(), 1u);
  EXPECT_EQ(robot.warnings[0], At("skip.urdf", xml, "<cone") +
                                   " <cone> in link 'a' collision 0 skipped "
                                   "(unknown geometry)");
  // Without the option: an error naming what is supported.
  testing_util::ExpectUrdfError(
      xml, {At("bad.urdf", xml, "<cone"), "unknown collision geometry <cone>",
            "box, sphere, cylinder, capsule or mesh"});
}

}  // namespace
}  // namespace sapcontact
