// Helpers of the scene physics tests: locating the shipped scene files
// (config/scenes/<name>.yaml) at run time, running them with overrides and
// recording per-step data.
//
// The scene directory is found from, in order: the environment variable
// SAPCONTACT_SOURCE_DIR (the repository root); the current working directory
// and its parents (ctest runs the tests from <build>/tests, inside or next to
// the source tree); the source path of this header as compiled.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
namespace scene_tests {

/// Path of config/scenes/<name>.yaml, or "" if it cannot be found.
inline std::string FindSceneFile(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path relative = fs::path("config") / "scenes" / (name + ".yaml");
  std::error_code ec;
  if (const char* root = std::getenv("SAPCONTACT_SOURCE_DIR")) {
    const fs::path p = fs::path(root) / relative;
    if (fs::exists(p, ec)) return p.string();
  }
  for (fs::path dir = fs::current_path(ec); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / relative, ec)) return (dir / relative).string();
    if (dir == dir.root_path()) break;
  }
  const std::string here = __FILE__;
  const auto cut = here.rfind("/tests/");
  if (cut != std::string::npos) {
    const fs::path p = fs::path(here.substr(0, cut)) / relative;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

/// Loads a shipped scene with overrides; fails the test if it is missing.
inline Scene LoadShippedScene(const std::string& name,
                              const std::vector<std::string>& overrides = {}) {
  const std::string path = FindSceneFile(name);
  if (path.empty()) {
    ADD_FAILURE() << "config/scenes/" << name
                  << ".yaml not found (set SAPCONTACT_SOURCE_DIR)";
    throw std::runtime_error("scene file not found: " + name);
  }
  return LoadScene(path, overrides);
}

/// Runs `scene` with RunSimulation (no output files), calling `on_step`
/// after every step.
inline SimulationSummary Simulate(
    const Scene& scene,
    std::function<void(const TimeStepper&, const StepInfo&)> on_step = {}) {
  SimulationOptions options;
  options.on_step = std::move(on_step);
  return RunSimulation(scene, options);
}

/// Largest |v| of the centre of mass and |w| r (r the distance of the
/// farthest point, `radius`) over the moving bodies [m/s].
inline double MaxPointSpeed(const Scene& scene,
                            const std::vector<BodyState>& state,
                            double radius) {
  double v = 0.0;
  for (size_t b = 0; b < state.size(); ++b) {
    if (scene.bodies[b].fixed) continue;
    v = std::max(v, state[b].velocity.norm() +
                        radius * state[b].angular_velocity.norm());
  }
  return v;
}

}  // namespace scene_tests
}  // namespace sapcontact
