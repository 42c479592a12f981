// Fuzz target: the SDFormat front end (ParseSdf, on Debian's libsdformat),
// then a scene of the loaded robots above the ground stepped a few times;
// with <!--scene--> also the file run as a whole scene (LoadScene of the
// .sdf, as `sapsim run world.sdf` does) and stepped.
//
// Input: SDFormat text. It is written to fuzz.sdf in a folder of this
// process's own that holds nothing else (created empty on first use,
// removed at exit), and is read from there: relative URIs resolve in that
// folder. Inputs that could name a file outside that folder are skipped:
// "..", a numeric character reference, a URI scheme ("://": model://,
// package://, file://) or element text or an attribute value that starts
// with '/'. The environment's model paths are not searched. Mesh files:
// 1 MiB, 20000 triangles, 20000 vertices. <!--novisuals--> sets
// load_visuals off; <!--scene--> runs the file as a scene as well.
// Rules:
//   - ParseSdf returns a world or throws std::invalid_argument (SdfError)
//     naming the problem; no other exception, crash, leak or hang;
//   - each robot is placed (PlaceRobot, as a scene's robots: [{sdf: ...}]
//     item is) without error;
//   - a scene of the robots is accepted or rejected by ValidateScene with
//     std::invalid_argument; an accepted one steps with a finite state or a
//     SimulationError (fuzz_steps.h);
//   - with <!--scene-->: LoadScene returns a scene or throws SceneError,
//     and that scene steps as above.
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sapcontact/sim/robot/sdf_loader.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/fuzz/targets/fuzz_steps.h"

namespace {

bool Has(const std::string& s, const char* what) {
  return s.find(what) != std::string::npos;
}

// Whether the text might name a file outside the fuzzer's folder, judged on
// the raw bytes so that it errs on the safe side.
bool SdfMayReachOutside(const std::string& xml) {
  if (Has(xml, "..") || Has(xml, "&#") || Has(xml, "://")) return true;
  for (std::size_t i = 0; i < xml.size(); ++i) {
    const char c = xml[i];
    if (c != '>' && c != '=' && c != '"' && c != '\'') continue;
    std::size_t k = i + 1;
    while (k < xml.size() &&
           (xml[k] == ' ' || xml[k] == '\t' || xml[k] == '\n' ||
            xml[k] == '\r' || xml[k] == '\v' || xml[k] == '\f' ||
            xml[k] == '"' || xml[k] == '\'')) {
      ++k;
    }
    if (k < xml.size() && xml[k] == '/' && c != '>') return true;
    if (c == '>' && k < xml.size() && xml[k] == '/' &&
        (k + 1 >= xml.size() || xml[k + 1] != '>')) {
      // Text starting with '/', not the '/' of a closing tag "</".
      if (k == 0 || xml[k - 1] != '<') return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  const std::string xml(reinterpret_cast<const char*>(data), size);
  if (SdfMayReachOutside(xml)) return 0;
  const std::string path = fuzz::InputFileDir("sdf_fuzzer") + "/fuzz.sdf";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  }
  SdfOptions options;
  options.use_environment = false;
  options.load_visuals = !Has(xml, "<!--novisuals-->");
  options.mesh_limits.max_file_bytes = 1u << 20;
  options.mesh_limits.max_triangles = 20000;
  options.mesh_limits.max_vertices = 20000;
  WorldDescription world;
  try {
    world = ParseSdf(xml, path, options);
  } catch (const std::invalid_argument&) {
    return 0;
  }

  int links = 0;
  for (const RobotDescription& d : world.robots) links += d.tree.num_links();
  if (links <= 64) {
    std::vector<RobotSpec> robots;
    for (std::size_t i = 0; i < world.robots.size(); ++i) {
      // What a scene's robots: [{sdf: fuzz.sdf, sdf_model: ...}] item makes
      // of the robot (scene_parse_robots.cc).
      RobotSpec robot;
      robot.name = "robot" + std::to_string(i);
      robot.sdf = "fuzz.sdf";
      robot.sdf_path = path;
      robot.sdf_model = world.robots[i].name;
      robot.description = std::move(world.robots[i]);
      robot.self_collision = world.robot_self_collision[i];
      robot.collision_filter_pairs = world.robot_filter_pairs[i];
      robots.push_back(std::move(robot));
    }
    fuzz::StepRobotsAboveGround(std::move(robots), "ParseSdf");
  }

  if (Has(xml, "<!--scene-->")) {
    Scene scene;
    try {
      scene = LoadScene(path);
    } catch (const SceneError&) {
      return 0;
    }
    fuzz::StepFew(scene, 3);
  }
  return 0;
}
