// Meshes and cylinders in the replay files (sim/replay/replay.h):
// replay_scene.json lists each mesh's convex hull once (vertices, polygonal
// faces) and every object's bounding radius; the page draws the hull as
// triangles fanned from its faces; files written before these fields
// existed still make a page.
#include <gtest/gtest.h>

#include <filesystem>
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

namespace fs = std::filesystem;
using Json = nlohmann::json;
using geometry_test::BinaryStl;
using geometry_test::TempDir;
using replay_test::PageData;
using replay_test::ReadText;

// A hexagonal prism: 12 vertices, 8 faces (two hexagons, six quads).
std::vector<geometry_test::Triangle> PrismTriangles() {
  const double pi = 3.14159265358979323846;
  std::vector<Vector3> bottom, top;
  for (int k = 0; k < 6; ++k) {
    const Vector3 p(0.1 * std::cos(pi / 3 * k), 0.1 * std::sin(pi / 3 * k), 0);
    bottom.push_back(p - Vector3(0, 0, 0.05));
    top.push_back(p + Vector3(0, 0, 0.05));
  }
  std::vector<geometry_test::Triangle> t;
  for (int k = 1; k < 5; ++k) {
    t.push_back({bottom[0], bottom[k + 1], bottom[k]});
    t.push_back({top[0], top[k], top[k + 1]});
  }
  for (int k = 0; k < 6; ++k) {
    const int j = (k + 1) % 6;
    t.push_back({bottom[k], bottom[j], top[j]});
    t.push_back({bottom[k], top[j], top[k]});
  }
  return t;
}

constexpr char kHullScene[] =
    "time_step: 1.0e-3\n"
    "duration: 0.02\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: nut\n"
    "    shape: {type: mesh, file: prism.stl}\n"
    "    mass: 1\n"
    "    position: [0, 0, 0.05]\n"
    "    grid: {count: [2, 1, 1], spacing: [0.3, 0, 0]}\n"
    "  - name: can\n"
    "    shape: {type: cylinder, radius: 0.05, length: 0.2}\n"
    "    mass: 1\n"
    "    position: [0, 0.4, 0.1]\n"
    "output:\n"
    "  every: 5\n";

// Runs the scene into dir with the replay files and the page.
Scene RunScene(const TempDir& dir) {
  geometry_test::WriteBytes(dir.File("prism.stl"), BinaryStl(PrismTriangles()));
  std::ofstream(dir.File("scene.yaml")) << kHullScene;
  const Scene scene = LoadScene(dir.File("scene.yaml"));
  SimulationOptions options;
  options.output_dir = dir.File("out");
  RunSimulation(scene, options);
  WriteReplayScene(scene, dir.File("out"));
  return scene;
}

TEST(ReplayMeshes, SceneFileListsEachHullOnceAndEveryBoundingRadius) {
  TempDir dir;
  const Scene scene = RunScene(dir);
  const Json j = Json::parse(ReadText(dir.File("out/replay_scene.json")));
  const ConvexHull& hull = scene.bodies[1].shape.mesh->hull;
  ASSERT_EQ(j["meshes"].size(), 1u);  // two copies, one hull
  const Json& mesh = j["meshes"][0];
  EXPECT_EQ(mesh["file"], "prism.stl");
  ASSERT_EQ(mesh["vertices"].size(), 3 * hull.vertices.size());
  EXPECT_EQ(hull.vertices.size(), 12u);
  ASSERT_EQ(mesh["faces"].size(), 8u);
  for (size_t f = 0; f < hull.faces.size(); ++f) {
    EXPECT_EQ(mesh["faces"][f].get<std::vector<int>>(), hull.faces[f].vertices);
  }
  for (size_t v = 0; v < hull.vertices.size(); ++v) {
    for (int k = 0; k < 3; ++k) {  // 7 significant digits
      EXPECT_NEAR(mesh["vertices"][3 * v + k].get<double>(),
                  hull.vertices[v][k], 1e-7);
    }
  }
  const Json& o = j["objects"];
  for (int i : {1, 2}) {
    EXPECT_EQ(o[i]["shape"], "mesh");
    EXPECT_EQ(o[i]["file"], "prism.stl");
    EXPECT_EQ(o[i]["scale"], Json({1.0, 1.0, 1.0}));
    EXPECT_EQ(o[i]["mesh"], 0);
    EXPECT_DOUBLE_EQ(o[i]["bounding_radius"].get<double>(),
                     BoundingRadius(scene.bodies[i].shape));
  }
  EXPECT_EQ(o[3]["shape"], "cylinder");
  EXPECT_DOUBLE_EQ(o[3]["radius"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(o[3]["length"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(o[3]["bounding_radius"].get<double>(),
                   std::hypot(0.05, 0.1));
  EXPECT_FALSE(o[0].contains("bounding_radius"));  // the plane
}

TEST(ReplayMeshes, PageDrawsTheHullAsFannedTriangles) {
  TempDir dir;
  const Scene scene = RunScene(dir);
  const ReplayPageInfo info = WriteReplayPage(dir.File("out"));
  const Json data = PageData(info.path);
  const ConvexHull& hull = scene.bodies[1].shape.mesh->hull;
  ASSERT_EQ(data["meshes"].size(), 1u);
  EXPECT_EQ(data["meshes"][0]["v"].size(), 3 * hull.vertices.size());
  size_t triangles = 0;
  for (const ConvexHull::Face& f : hull.faces)
    triangles += f.vertices.size() - 2;
  EXPECT_EQ(triangles, 20u);  // 2 hexagons (4 each), 6 quads (2 each)
  ASSERT_EQ(data["meshes"][0]["f"].size(), 3 * triangles);
  // The first face's fan, in its order.
  const std::vector<int>& loop = hull.faces[0].vertices;
  EXPECT_EQ(data["meshes"][0]["f"][0], loop[0]);
  EXPECT_EQ(data["meshes"][0]["f"][1], loop[1]);
  EXPECT_EQ(data["meshes"][0]["f"][2], loop[2]);
  const Json& objects = data["objects"];
  EXPECT_EQ(objects[1]["s"], "mesh");
  EXPECT_EQ(objects[1]["h"], 0);
  EXPECT_EQ(objects[2]["h"], 0);
  EXPECT_NEAR(objects[1]["r"].get<double>(),
              BoundingRadius(scene.bodies[1].shape), 1e-6);
  EXPECT_EQ(objects[3]["s"], "cylinder");
  EXPECT_EQ(objects[3]["d"], Json({0.05, 0.2}));
  EXPECT_FALSE(objects[3].contains("h"));
}

TEST(ReplayMeshes, FilesWithoutBoundingRadiiStillMakeAPage) {
  TempDir dir;
  RunScene(dir);
  // replay_scene.json as earlier versions wrote it: no bounding radii and
  // no meshes (the mesh bodies written as boxes).
  Json j = Json::parse(ReadText(dir.File("out/replay_scene.json")));
  for (Json& o : j["objects"]) {
    o.erase("bounding_radius");
    if (o["shape"] != "mesh") continue;
    o["shape"] = "box";
    o["size"] = {0.2, 0.2, 0.1};
    o.erase("mesh");
    o.erase("file");
    o.erase("scale");
  }
  j.erase("meshes");
  std::ofstream(dir.File("out/replay_scene.json")) << j.dump(1);
  const ReplayPageInfo info = WriteReplayPage(dir.File("out"));
  const Json data = PageData(info.path);
  ASSERT_EQ(data["objects"].size(), 4u);
  EXPECT_NEAR(data["objects"][1]["r"].get<double>(), 0.15, 1e-6);
  EXPECT_NEAR(data["objects"][3]["r"].get<double>(), std::hypot(0.05, 0.1),
              1e-6);
  EXPECT_TRUE(data["meshes"].empty());
  // A mesh object whose hull is missing is an error naming the field.
  Json bad = Json::parse(ReadText(dir.File("out/replay_scene.json")));
  bad["objects"][1]["shape"] = "mesh";
  std::ofstream(dir.File("out/replay_scene.json")) << bad.dump(1);
  try {
    WriteReplayPage(dir.File("out"));
    ADD_FAILURE() << "no error";
  } catch (const ReplayError& e) {
    EXPECT_NE(std::string(e.what()).find("objects[1].mesh: missing or not an "
                                         "index into meshes"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
