// Fuzz target: the YAML scene loader with --set overrides, then a few steps
// of what it accepts.
//
// Input: scene YAML text. Leading lines "#set KEY=VALUE" are also passed as
// overrides (LoadSceneFromString), as `sapsim run --set` does; the scene
// resolves URDF files against config/scenes/ (its robots/ folder).
// Rules:
//   - the loader returns a scene or throws SceneError (a message naming the
//     file, line or override); no other exception, crash or leak;
//   - an accepted scene constructs a TimeStepper, and each step either
//     returns a finite state or throws SimulationError (fuzz_target.h).
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/fuzz/targets/fuzz_steps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  std::size_t pos = 0;
  while (text.compare(pos, 5, "#set ") == 0 && overrides.size() < 16) {
    const std::size_t end = text.find('\n', pos);
    overrides.push_back(text.substr(
        pos + 5, end == std::string::npos ? std::string::npos : end - pos - 5));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  Scene scene;
  try {
    scene = LoadSceneFromString(
        text, fuzz::SourceDir() + "/config/scenes/fuzz.yaml", overrides);
  } catch (const SceneError&) {
    return 0;
  }
  fuzz::StepFew(scene, 3);
  return 0;
}
