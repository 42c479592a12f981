// Robot visuals in the replay files (sim/replay/replay.h): replay_scene.json
// lists each robot link (motion, initial pose) with its URDF visuals (shape
// or visual mesh index, pose in the link frame, colour), each visual mesh
// once with every triangle (not its hull), and ties each link geometry to
// its link; the page holds the links, their visuals and the visual meshes
// quantised to 16 bits, and moves them by the links' tracks.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sapcontact/sim/replay/replay.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "tests/geometry/geometry_test_util.h"
#include "tests/sim/replay/replay_test_util.h"

namespace sapcontact {
namespace {

using Json = nlohmann::json;
using geometry_test::BinaryStl;
using geometry_test::BoxTriangles;
using geometry_test::TempDir;
using replay_test::PageData;
using replay_test::ReadText;

// A swinging arm: a fixed base with a box visual in a top-level material,
// and a link on a revolute joint with an L-shaped mesh visual (not convex:
// 24 triangles, its hull has fewer) and an inline colour.
constexpr char kUrdf[] = R"(<?xml version="1.0"?>
<robot name="arm">
  <material name="steel"><color rgba="0.5 0.5 0.6 1"/></material>
  <link name="base">
    <visual><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry>
      <material name="steel"/></visual>
  </link>
  <joint name="j" type="continuous"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/></joint>
  <link name="arm">
    <inertial><origin xyz="0.25 0 0"/><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 0" rpy="0 0 0.5"/>
      <geometry><mesh filename="l.stl" scale="0.25 0.05 0.05"/></geometry>
      <material name=""><color rgba="1 0.5 0 0.75"/></material></visual>
    <collision><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.05 0.05"/></geometry></collision>
  </link>
</robot>
)";

constexpr char kArmScene[] =
    "time_step: 1.0e-3\n"
    "duration: 0.05\n"
    "robots:\n"
    "  - name: arm\n"
    "    urdf: arm.urdf\n"
    "    base: {position: [0, 0, 0.5], fixed: true}\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "output:\n"
    "  every: 10\n";

std::vector<geometry_test::Triangle> LTriangles() {
  std::vector<geometry_test::Triangle> t = BoxTriangles({0, 0, 0}, {2, 1, 1});
  const auto up = BoxTriangles({0, 0, 1}, {1, 1, 2});
  t.insert(t.end(), up.begin(), up.end());
  return t;
}

Scene RunArm(const TempDir& dir) {
  geometry_test::WriteBytes(dir.File("l.stl"), BinaryStl(LTriangles()));
  std::ofstream(dir.File("arm.urdf")) << kUrdf;
  std::ofstream(dir.File("scene.yaml")) << kArmScene;
  const Scene scene = LoadScene(dir.File("scene.yaml"));
  SimulationOptions options;
  options.output_dir = dir.File("out");
  ReplayPoseRecorder poses(scene, dir.File("out"));
  options.on_step = [&](const TimeStepper& s, const StepInfo&) {
    poses.Record(s);
  };
  RunSimulation(scene, options);
  poses.Commit();
  WriteReplayScene(scene, dir.File("out"));
  return scene;
}

TEST(ReplayVisuals, SceneFileListsLinksVisualsAndVisualMeshes) {
  TempDir dir;
  const Scene scene = RunArm(dir);
  const Json j = Json::parse(ReadText(dir.File("out/replay_scene.json")));
  const Json& links = j["links"];
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0]["name"], "arm/base");
  EXPECT_EQ(links[0]["motion"], "static");
  EXPECT_EQ(links[0]["pose"], Json({0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0}));
  const Json& box = links[0]["visuals"][0];
  EXPECT_EQ(box["name"], "base/0");
  EXPECT_EQ(box["shape"], "box");
  EXPECT_EQ(box["size"], Json({0.2, 0.2, 0.1}));
  EXPECT_EQ(box["pose"], Json({0.0, 0.0, 0.05, 1.0, 0.0, 0.0, 0.0}));
  EXPECT_EQ(box["rgba"], Json({0.5, 0.5, 0.6, 1.0}));  // by name
  EXPECT_EQ(links[1]["name"], "arm/arm");
  EXPECT_EQ(links[1]["motion"], "poses");
  const Json& l = links[1]["visuals"][0];
  EXPECT_EQ(l["shape"], "mesh");
  EXPECT_EQ(l["file"], "l.stl");
  EXPECT_EQ(l["mesh"], 0);
  EXPECT_EQ(l["rgba"], Json({1.0, 0.5, 0.0, 0.75}));
  EXPECT_NEAR(l["pose"][3].get<double>(), std::cos(0.25), 1e-15);
  EXPECT_NEAR(l["pose"][6].get<double>(), std::sin(0.25), 1e-15);
  // The mesh as written (every triangle), scaled; never its hull.
  ASSERT_EQ(j["visual_meshes"].size(), 1u);
  const Json& mesh = j["visual_meshes"][0];
  const TriangleMesh& written = *scene.robots[0].description.visuals[1].mesh;
  EXPECT_EQ(mesh["triangles"].size(), 3 * written.triangles.size());
  EXPECT_EQ(written.triangles.size(), 24u);
  ASSERT_EQ(mesh["vertices"].size(), 3 * written.vertices.size());
  double x_max = 0;
  for (size_t i = 0; i < mesh["vertices"].size(); i += 3) {
    x_max = std::max(x_max, mesh["vertices"][i].get<double>());
  }
  EXPECT_DOUBLE_EQ(x_max, 0.5);  // 2 * 0.25
  // The collision box is tied to its link, posed in it.
  const Json& collision = j["objects"][1];
  EXPECT_EQ(collision["name"], "arm/arm/0");
  EXPECT_EQ(collision["link"], 1);
  EXPECT_EQ(collision["pose_in_link"],
            Json({0.25, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0}));
  EXPECT_EQ(j["meshes"].size(), 0u);  // no collision meshes
}

TEST(ReplayVisuals, PageHoldsLinksTracksAndQuantisedMeshes) {
  TempDir dir;
  const Scene scene = RunArm(dir);
  const ReplayPageInfo info = WriteReplayPage(dir.File("out"));
  EXPECT_EQ(info.visuals, 2);
  EXPECT_EQ(info.visual_triangles, 24);
  EXPECT_EQ(info.visual_meshes_dropped, 0u);
  const Json data = PageData(info.path);
  ASSERT_EQ(data["links"].size(), 2u);
  EXPECT_EQ(data["links"][0]["k"], -1);  // the base does not move
  const int track = data["links"][1]["k"];
  ASSERT_GE(track, 0);
  // The arm swings down from horizontal: its track's orientation changes.
  const Json& poses = data["tracks"][track];
  const size_t frames = data["t"].size();
  ASSERT_EQ(poses.size(), 7 * frames);
  EXPECT_NE(poses[3], poses[7 * (frames - 1) + 3]);
  EXPECT_EQ(data["links"][1]["v"][0]["c"], Json({1, 0.5, 0, 0.75}));
  // The collision box is drawn in its link, not by a track of its own.
  EXPECT_EQ(data["objects"][1]["l"], 1);
  EXPECT_EQ(data["objects"][1]["k"], -1);
  // Vertices: 16-bit integers over the mesh's box, within half a step.
  const Json& m = data["vmeshes"][0];
  const TriangleMesh& written = *scene.robots[0].description.visuals[1].mesh;
  const double step = m["q"];
  EXPECT_NEAR(step, 0.5 / 65535, 1e-12);
  for (size_t v = 0; v < written.vertices.size(); ++v) {
    for (int k = 0; k < 3; ++k) {
      const int n = m["v"][3 * v + k];
      EXPECT_GE(n, 0);
      EXPECT_LE(n, 65535);
      EXPECT_NEAR(m["o"][k].get<double>() + step * n, written.vertices[v][k],
                  0.51 * step);
    }
  }
  EXPECT_EQ(m["f"].size(), 72u);
  // Over the triangle cap the meshes are left out (links draw their hulls).
  ReplayPageOptions small;
  small.max_visual_triangles = 10;
  const ReplayPageInfo capped = WriteReplayPage(dir.File("out"), small);
  EXPECT_EQ(capped.visuals, 1);  // the box
  EXPECT_EQ(capped.visual_meshes_dropped, 1u);
  EXPECT_EQ(PageData(capped.path)["vmeshes"].size(), 0u);
}

}  // namespace
}  // namespace sapcontact
