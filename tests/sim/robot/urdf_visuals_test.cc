// URDF <visual> elements: origins, primitive and mesh geometry (scale,
// relative and package:// paths, one read per file and scale, never
// convexified), material colours inline and by name (top-level and defined
// in an earlier visual), errors that name the line, warnings for what only
// affects the picture, and the shipped Atlas (its Collada visuals).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
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
using testing_util::ExpectUrdfError;

using testing_util::RobotUrdf;

// A link "a" (a 0.1 m box collision) with the given visuals.
std::string Link(const std::string& name, const std::string& visuals) {
  return "  <link name=\"" + name +
         "\">\n    <collision><geometry><box size=\"0.1 0.1 "
         "0.1\"/></geometry></collision>\n" +
         visuals + "  </link>\n";
}

std::string Visual(const std::string& inside, const std::string& name = "") {
  return "    <visual" + (name.empty() ? "" : " name=\"" + name + "\"") +
         ">\n" + inside + "    </visual>\n";
}

// A non-convex mesh (an L of two boxes, 24 triangles): its visual keeps
// every triangle where a convex hull would have fewer.
std::vector<Triangle> LTriangles() {
  std::vector<Triangle> t = BoxTriangles({0, 0, 0}, {2, 1, 1});
  const std::vector<Triangle> up = BoxTriangles({0, 0, 1}, {1, 1, 2});
  t.insert(t.end(), up.begin(), up.end());
  return t;
}

TEST(UrdfVisuals, OriginAndPrimitivesInLinkFrames) {
  const std::string xml = RobotUrdf(Link(
      "a",
      Visual(
          "      <origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/>\n"
          "      <geometry><box size=\"1 2 3\"/></geometry>\n",
          "body") +
          Visual("      <origin rpy=\"1.5707963267948966 0 0\"/>\n"
                 "      <geometry><cylinder radius=\"0.05\" "
                 "length=\"0.4\"/></geometry>\n") +
          Visual("      <geometry><sphere radius=\"0.25\"/></geometry>\n") +
          Visual("      <geometry><capsule radius=\"0.1\" "
                 "length=\"0.3\"/></geometry>\n")));
  const RobotDescription robot = ParseUrdf(xml, "v.urdf");
  ASSERT_EQ(robot.visuals.size(), 4u);
  EXPECT_EQ(robot.visual_counts.loaded, 4);
  EXPECT_EQ(robot.visual_counts.dropped, 0);
  const VisualGeometry& box = robot.visuals[0];
  EXPECT_EQ(box.name, "a/body");
  EXPECT_EQ(box.link, 0);
  EXPECT_EQ(box.type, ShapeType::kBox);
  EXPECT_EQ(box.size, Vector3(1, 2, 3));
  EXPECT_TRUE(box.pose_in_link.position.isApprox(Vector3(0.1, 0.2, 0.3)));
  // yaw 90 degrees: the visual's x axis along the link's y.
  EXPECT_TRUE((box.pose_in_link.orientation * Vector3::UnitX())
                  .isApprox(Vector3::UnitY(), 1e-15));
  EXPECT_FALSE(box.coloured);
  const VisualGeometry& can = robot.visuals[1];
  EXPECT_EQ(can.name, "a/1");
  EXPECT_EQ(can.type, ShapeType::kCylinder);
  EXPECT_EQ(can.radius, 0.05);
  EXPECT_EQ(can.length, 0.4);
  // roll 90 degrees: the cylinder's axis (z) along the link's -y.
  EXPECT_TRUE((can.pose_in_link.orientation * Vector3::UnitZ())
                  .isApprox(-Vector3::UnitY(), 1e-15));
  EXPECT_EQ(robot.visuals[2].type, ShapeType::kSphere);
  EXPECT_EQ(robot.visuals[2].radius, 0.25);
  EXPECT_EQ(robot.visuals[3].type, ShapeType::kCapsule);
  EXPECT_EQ(robot.visuals[3].length, 0.3);
  // Display only: the collision geometry is the box alone.
  EXPECT_EQ(robot.geometries.size(), 1u);
}

TEST(UrdfVisuals, RollPitchYawAsUrdfdom) {
  // R = Rz(yaw) Ry(pitch) Rx(roll), fixed axes.
  const std::string xml = RobotUrdf(
      Link("a", Visual("      <origin rpy=\"0.3 -0.7 1.1\"/>\n"
                       "      <geometry><sphere radius=\"1\"/></geometry>\n")));
  const Eigen::Quaterniond q =
      ParseUrdf(xml, "v.urdf").visuals[0].pose_in_link.orientation;
  const Eigen::Matrix3d R = (Eigen::AngleAxisd(1.1, Vector3::UnitZ()) *
                             Eigen::AngleAxisd(-0.7, Vector3::UnitY()) *
                             Eigen::AngleAxisd(0.3, Vector3::UnitX()))
                                .toRotationMatrix();
  EXPECT_TRUE(q.toRotationMatrix().isApprox(R, 1e-15));
}

TEST(UrdfVisuals, MaterialsInlineByNameAndDefinedInAVisual) {
  const std::string xml = RobotUrdf(
      "  <material name=\"blue\"><color rgba=\"0 0 0.8 1\"/></material>\n" +
      Link("a",
           Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                  "      <material name=\"blue\"/>\n") +
               Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                      "      <material name=\"\"><color rgba=\"0.25 0.5 "
                      "0.75 0.5\"/></material>\n") +
               Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                      "      <material name=\"orange\"><color rgba=\"1 0.5 0 "
                      "1\"/></material>\n")) +
      Link("b", Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                       "      <material name=\"orange\"/>\n") +
                    Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                           "      <material name=\"late\"/>\n")) +
      "  <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child "
      "link=\"b\"/></joint>\n"
      // Defined after the links that name it, as urdfdom allows.
      "  <material name=\"late\"><color rgba=\"0.1 0.2 0.3 1\"/></material>\n");
  const RobotDescription robot = ParseUrdf(xml, "v.urdf");
  ASSERT_EQ(robot.visuals.size(), 5u);
  auto rgba = [&](int i) { return robot.visuals[i].rgba; };
  EXPECT_EQ(rgba(0), Eigen::Vector4d(0, 0, 0.8, 1));
  EXPECT_EQ(robot.visuals[0].material, "blue");
  EXPECT_EQ(rgba(1), Eigen::Vector4d(0.25, 0.5, 0.75, 0.5));
  EXPECT_EQ(rgba(2), Eigen::Vector4d(1, 0.5, 0, 1));
  EXPECT_EQ(rgba(3), Eigen::Vector4d(1, 0.5, 0, 1));  // from link a's visual
  EXPECT_EQ(robot.visuals[3].link, 1);
  EXPECT_EQ(rgba(4), Eigen::Vector4d(0.1, 0.2, 0.3, 1));
  for (const VisualGeometry& v : robot.visuals) EXPECT_TRUE(v.coloured);
  EXPECT_TRUE(robot.warnings.empty()) << robot.warnings[0];
}

TEST(UrdfVisuals, MeshesScaledPackageAndRelativeNeverConvexified) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("pkg/meshes"));
  WriteBytes(dir.File("pkg/meshes/l.stl"), BinaryStl(LTriangles()));
  WriteBytes(dir.File("l2.stl"), BinaryStl(LTriangles()));
  const std::string xml = RobotUrdf(Link(
      "a",
      Visual("      <geometry><mesh filename=\"package://pkg/meshes/l.stl\" "
             "scale=\"0.5 2 1\"/></geometry>\n") +
          Visual("      <geometry><mesh filename=\"l2.stl\"/></geometry>\n") +
          Visual(
              "      <geometry><mesh filename=\"package://pkg/meshes/l.stl\" "
              "scale=\"0.5 2 1\"/></geometry>\n")));
  UrdfOptions options;
  options.package_paths["pkg"] = dir.File("pkg");
  options.use_ros_package_path = false;
  const RobotDescription robot =
      ParseUrdf(xml, dir.File("robot.urdf"), options);
  ASSERT_EQ(robot.visuals.size(), 3u);
  const VisualGeometry& v = robot.visuals[0];
  EXPECT_EQ(v.type, ShapeType::kMesh);
  EXPECT_EQ(v.file, "package://pkg/meshes/l.stl");
  ASSERT_NE(v.mesh, nullptr);
  // Every triangle of the L (welded: the two boxes' 24 triangles; the
  // shared face's pieces stay, a visual is drawn as written), scaled.
  EXPECT_EQ(v.mesh->triangles.size(), 24u);
  Vector3 hi = Vector3::Constant(-1e9);
  for (const Vector3& p : v.mesh->vertices) hi = hi.cwiseMax(p);
  EXPECT_EQ(hi, Vector3(1.0, 2.0, 2.0));
  EXPECT_EQ(robot.visuals[1].mesh->triangles.size(), 24u);
  EXPECT_EQ(robot.visuals[2].mesh, v.mesh);  // read once per file and scale
  EXPECT_NE(robot.visuals[1].mesh, v.mesh);
  EXPECT_TRUE(robot.warnings.empty()) << robot.warnings[0];
}

TEST(UrdfVisuals, UnreadableMeshesAndUnknownShapesAreWarnedAndDropped) {
  const std::string xml = RobotUrdf(Link(
      "a",
      Visual("      <geometry><mesh filename=\"missing.stl\"/></geometry>\n") +
          Visual("      <geometry><mesh filename=\"package://nopkg/x.stl\"/>"
                 "</geometry>\n") +
          Visual("      <geometry><torus r=\"1\"/></geometry>\n") +
          Visual("      <geometry><sphere radius=\"1\"/></geometry>\n"
                 "      <material name=\"nowhere\"/>\n")));
  UrdfOptions options;
  options.use_ros_package_path = false;
  const RobotDescription robot = ParseUrdf(xml, "/tmp/v.urdf", options);
  ASSERT_EQ(robot.visuals.size(), 1u);
  EXPECT_EQ(robot.visual_counts.loaded, 1);
  EXPECT_EQ(robot.visual_counts.dropped, 3);
  EXPECT_FALSE(robot.visuals[0].coloured);
  ASSERT_EQ(robot.warnings.size(), 4u);
  EXPECT_NE(robot.warnings[0].find(At("/tmp/v.urdf", xml, "missing.stl")),
            std::string::npos)
      << robot.warnings[0];
  EXPECT_NE(robot.warnings[0].find("not drawn"), std::string::npos);
  EXPECT_NE(robot.warnings[1].find("package 'nopkg' not found"),
            std::string::npos)
      << robot.warnings[1];
  EXPECT_NE(robot.warnings[2].find("<torus> in link 'a': visual 2 not drawn"),
            std::string::npos)
      << robot.warnings[2];
  EXPECT_NE(robot.warnings[3].find("material 'nowhere' is not defined"),
            std::string::npos)
      << robot.warnings[3];
  // Not read at all when asked not to.
  options.load_visuals = false;
  const RobotDescription bare = ParseUrdf(xml, "/tmp/v.urdf", options);
  EXPECT_TRUE(bare.visuals.empty());
  EXPECT_TRUE(bare.warnings.empty());
}

TEST(UrdfVisuals, MalformedVisualsNameTheLine) {
  auto bad = [](const std::string& visual, const std::string& marker,
                const std::string& what) {
    const std::string xml = RobotUrdf(Link("a", Visual(visual)));
    ExpectUrdfError(xml,
                    {At("bad.urdf", xml, marker), "link 'a': visual 0", what});
  };
  bad("      <origin xyz=\"0 x 0\"/><geometry><sphere radius=\"1\"/>"
      "</geometry>\n",
      "<origin", "'x' is not a finite number");
  bad("      <geometry><box size=\"1 2\"/></geometry>\n", "size=\"1 2\"",
      "expected 3 numbers");
  bad("      <geometry><sphere radius=\"-1\"/></geometry>\n", "<sphere",
      "must be positive");
  bad("      <geometry><sphere radius=\"1\"/></geometry>\n      <material "
      "name=\"m\"><color rgba=\"1 0 0 2\"/></material>\n",
      "<color", "components must lie in [0, 1]");
  bad("      <geometry><mesh filename=\"a.stl\" scale=\"1 0 1\"/></geometry>\n",
      "<mesh", "a scale must not be zero");
  bad("      <origin/>\n", "<visual", "<visual> without <geometry>");
  const std::string top = RobotUrdf(
      "  <material><color rgba=\"1 0 0 1\"/></material>\n" + Link("a", ""));
  ExpectUrdfError(top, {At("bad.urdf", top, "<material>"), "needs a name"});
}

TEST(UrdfVisuals, AtlasColladaVisuals) {
  const std::string atlas =
      "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf";
  if (!std::filesystem::exists(atlas)) GTEST_SKIP() << atlas;
  const RobotDescription robot = LoadUrdf(atlas);
  // A visual on each of the 32 links that have one (the camera frames have
  // none): Collada meshes but for the three cameras' boxes.
  EXPECT_EQ(robot.visual_counts.loaded, 32);
  EXPECT_EQ(robot.visual_counts.dropped, 0);
  ASSERT_EQ(robot.visuals.size(), 32u);
  long triangles = 0;
  int boxes = 0;
  for (const VisualGeometry& v : robot.visuals) {
    if (v.type == ShapeType::kBox) {
      ++boxes;
      continue;
    }
    ASSERT_EQ(v.type, ShapeType::kMesh) << v.name;
    EXPECT_NE(v.file.find(".dae"), std::string::npos) << v.name;
    triangles += static_cast<long>(v.mesh->triangles.size());
  }
  // The Collada meshes are finer than the STL collision meshes' hulls.
  long hull_faces = 0;
  for (const RobotGeometry& g : robot.geometries) {
    hull_faces += static_cast<long>(g.shape.mesh->hull.faces.size());
  }
  EXPECT_EQ(boxes, 3);
  EXPECT_GT(triangles, 2 * hull_faces);
  std::printf(
      "Atlas: %zu visuals, %ld triangles (collision hulls: %ld faces)\n",
      robot.visuals.size(), triangles, hull_faces);
}

}  // namespace
}  // namespace sapcontact
