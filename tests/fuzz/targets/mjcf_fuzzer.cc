// Fuzz target: the MJCF reader (ParseMjcf, on tinyxml2), then a scene of
// the loaded robots above the ground stepped a few times; with
// <!--scene--> also the MJCF file run as a whole scene (LoadScene of the
// .xml, as `sapsim run model.xml` does) and stepped.
//
// Input: MJCF text. It is written to fuzz.xml in a folder of this
// process's own that holds nothing else (created empty on first use,
// removed at exit), and is read from there: relative <include> files,
// meshdir and mesh files resolve in that folder, so an input can include
// itself (the include depth check) but reach no other file. Inputs with an
// attribute value that could name a file outside that folder (an absolute
// path or "..", or a numeric character reference that might spell one) are
// skipped: the reader reads any file a model names (docs/robots.md), and
// /dev/zero would exhaust the memory, /dev/stdin wait for input. Mesh
// files: 1 MiB, 20000 triangles, 20000 vertices. The comment
// <!--novisuals--> anywhere sets load_visuals off; <!--scene--> runs the
// file as a scene as well.
// Rules:
//   - ParseMjcf returns a model or throws std::invalid_argument (MjcfError)
//     naming the problem; no other exception, crash, leak or hang;
//   - each robot of a model is placed (PlaceRobot, as a scene's robots:
//     [{mjcf: ...}] item is) without error;
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

#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/fuzz/targets/fuzz_steps.h"

namespace {

bool Contains(const std::string& s, const char* what) {
  return s.find(what) != std::string::npos;
}

bool IsXmlSpace(char c) {
  // tinyxml2 skips isspace() characters between '=' and the quote.
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

// Whether an attribute value of the text might name a file outside the
// fuzzer's folder, judged on the raw bytes so that it errs on the safe
// side: "..", a numeric character reference ("&#47;" is '/', "&#46;" '.';
// tinyxml2's named entities spell neither), or a value that starts with
// '/' (an '=', optional white space, a quote, then '/').
bool MayReachOutside(const std::string& xml) {
  if (Contains(xml, "..") || Contains(xml, "&#")) return true;
  for (std::size_t i = 0; i < xml.size(); ++i) {
    if (xml[i] != '=') continue;
    std::size_t k = i + 1;
    while (k < xml.size() && IsXmlSpace(xml[k])) ++k;
    if (k + 1 < xml.size() && (xml[k] == '"' || xml[k] == '\'') &&
        xml[k + 1] == '/') {
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  const std::string xml(reinterpret_cast<const char*>(data), size);
  if (MayReachOutside(xml)) return 0;
  const std::string path = fuzz::InputFileDir("mjcf_fuzzer") + "/fuzz.xml";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  }
  MjcfOptions options;
  options.load_visuals = !Contains(xml, "<!--novisuals-->");
  options.mesh_limits.max_file_bytes = 1u << 20;
  options.mesh_limits.max_triangles = 20000;
  options.mesh_limits.max_vertices = 20000;
  MjcfModel model;
  try {
    model = ParseMjcf(xml, path, options);
  } catch (const std::invalid_argument&) {
    return 0;
  }

  int links = 0;
  for (const RobotDescription& d : model.robots) links += d.tree.num_links();
  if (links <= 64) {
    std::vector<RobotSpec> robots;
    for (std::size_t i = 0; i < model.robots.size(); ++i) {
      // What a scene's robots: [{mjcf: fuzz.xml, mjcf_body: ...}] item
      // makes of the robot (scene_parse_robots.cc): MuJoCo's parent-child
      // and <exclude> pairs never collide.
      RobotSpec robot;
      robot.name = "robot" + std::to_string(i);
      robot.mjcf = "fuzz.xml";
      robot.mjcf_path = path;
      robot.mjcf_body = model.robots[i].name;
      robot.description = std::move(model.robots[i]);
      robot.self_collision = model.robot_self_collision[i];
      robot.collision_filter_pairs = model.robot_filter_pairs[i];
      robots.push_back(std::move(robot));
    }
    fuzz::StepRobotsAboveGround(std::move(robots), "ParseMjcf");
  }

  if (Contains(xml, "<!--scene-->")) {
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
