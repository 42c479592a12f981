// The fuzz suite's shared parts (tests/fuzz/*_test.cc): deterministic
// (seeded) mutations of scene files (YAML syntax and semantics), --set
// overrides, whole command lines, FCLib files, meshes and URDFs, each run
// through `sapsim` in process (cli::Run, cli::Main), asserting the rules of
// one error path:
//   - the exit status is 0, 1 or 2, nothing crashes or hangs;
//   - bad input (the loader rejects the scene, or the file is damaged)
//     exits 2 with one message "sapsim...: error: ..." naming the file
//     (scenes: file:line or the --set assignment) and leaves no outputs;
//   - no output file (trajectory.csv, summary.json, sweep.csv, FCLib CSV)
//     holds nan, inf or null, every trajectory row is whole, and no
//     *.partial file is left behind.
// Every test prints the number of cases it ran, per class. Environment:
// SAPCONTACT_FUZZ_SEED (default 12) changes the cases, SAPCONTACT_FUZZ_SCALE
// (default 1) multiplies their number (e.g. 10 for a longer local run).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapsim/run_command.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact {
namespace fuzz {

namespace fs = std::filesystem;
using cli_test::CliResult;
using cli_test::ReadFile;
using cli_test::RunSapsim;
using cli_test::TempDir;

inline uint64_t Seed() {
  const char* s = std::getenv("SAPCONTACT_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 12;
}

inline int Cases(int base) {
  const char* s = std::getenv("SAPCONTACT_FUZZ_SCALE");
  const double scale = s ? std::max(0.01, std::atof(s)) : 1.0;
  return std::max(1, static_cast<int>(base * scale));
}

// Deterministic choices (mt19937_64's sequence is fixed by the standard;
// the distributions of <random> are not, so none is used).
class Random {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}
  size_t Below(size_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Chance(int percent) { return Below(100) < static_cast<size_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }

 private:
  std::mt19937_64 rng_;
};

// --- Base scenes ---------------------------------------------------------

inline const std::vector<std::string>& BaseScenes() {
  static const std::vector<std::string> scenes = {
      // A box resting on the ground.
      cli_test::kBoxRestScene,
      // Every section and shape.
      "time_step: 0.002\n"
      "duration: 0.03\n"
      "gravity: [0, 0, -9.81]\n"
      "solver:\n"
      "  model: sap\n"
      "  near_rigid_threshold: 1.0\n"
      "  friction_regularization: 1.0e-3\n"
      "  rel_tolerance: 1.0e-6\n"
      "  abs_tolerance: 1.0e-14\n"
      "  max_iterations: 100\n"
      "  line_search: exact\n"
      "  linear_solver: auto\n"
      "materials:\n"
      "  default: {stiffness: 1.0e6, dissipation_time_scale: 0.01, "
      "friction: 0.5}\n"
      "  rubber: {stiffness: .inf, dissipation_time_scale: 0, friction: 1, "
      "model: lagged, hunt_crossley_dissipation: 20, stiction_tolerance: "
      "1.0e-3}\n"
      "collision:\n"
      "  margin: 1.0e-3\n"
      "output:\n"
      "  every: 2\n"
      "bodies:\n"
      "  - name: ground\n"
      "    fixed: true\n"
      "    shape: {type: plane}\n"
      "    material: rubber\n"
      "  - name: box\n"
      "    shape: {type: box, size: [0.2, 0.1, 0.1]}\n"
      "    density: 500\n"
      "    position: [0, 0, 0.06]\n"
      "    quaternion: [1, 0, 0, 0]\n"
      "    velocity: [0.5, 0, 0]\n"
      "    angular_velocity: [0, 0, 1]\n"
      "  - name: ball\n"
      "    shape: {type: sphere, radius: 0.05}\n"
      "    mass: 1\n"
      "    position: [0.4, 0, 0.05]\n"
      "    material: rubber\n"
      "  - name: rod\n"
      "    shape: {type: capsule, radius: 0.02, length: 0.2}\n"
      "    mass: 0.5\n"
      "    position: [-0.4, 0, 0.03]\n"
      "    rpy: [1.5707963, 0, 0]\n",
      // A stack from a grid, rigid model.
      "time_step: 0.001\n"
      "duration: 0.01\n"
      "solver: {model: rigid, max_iterations: 50}\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane}}\n"
      "  - name: box\n"
      "    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
      "    mass: 1\n"
      "    position: [0, 0, 0.05]\n"
      "    grid: {count: [1, 1, 3], spacing: [0, 0, 0.1]}\n",
  };
  return scenes;
}

// --- The rules ------------------------------------------------------------

struct Tally {
  std::map<std::string, int> counts;
  std::vector<std::string> failures;
  void Count(const std::string& what) { ++counts[what]; }
  void Fail(const std::string& what) {
    if (failures.size() < 20) failures.push_back(what);
  }
  std::string Summary() const {
    std::string s;
    for (const auto& [k, v] : counts) {
      s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
    }
    return s;
  }
};

inline std::string Show(const std::string& text, size_t max = 300) {
  std::string s = text.size() > max ? text.substr(0, max) + "..." : text;
  for (char& c : s) {
    if (c == '\0') c = '@';
  }
  return s;
}

// Every file below `dir`: no *.partial; CSV without nan/inf/null cells;
// JSON without null or non-finite numbers; trajectory.csv rows whole.
inline std::string OutputProblems(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return "";
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    const std::string path = entry.path().string();
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file()) continue;
    if (name.size() > 8 && name.substr(name.size() - 8) == ".partial") {
      return path + " left behind";
    }
    if (name == "trajectory.csv") {
      const std::string p = cli_test::TrajectoryProblem(path);
      if (!p.empty()) return path + ": " + p;
    } else if (name.size() > 4 && name.substr(name.size() - 4) == ".csv") {
      if (cli_test::HasNonFiniteCell(ReadFile(path))) {
        return path + " holds nan, inf or null: " + Show(ReadFile(path));
      }
    } else if (name.size() > 5 && name.substr(name.size() - 5) == ".json") {
      const std::string p = cli_test::JsonProblem(path);
      if (!p.empty()) return path + ": " + p;
    }
  }
  return "";
}

inline bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Runs `sapsim run` on a scene file with overrides and checks the rules.
// Scenes that load but would run long (or have many bodies) get a shorter
// duration, or are only loaded.
inline void CheckSceneRun(const std::string& scene_path,
                          std::vector<std::string> overrides,
                          const fs::path& out, const std::string& label,
                          Tally* tally) {
  bool bad_input = false;
  try {
    const Scene scene = LoadScene(scene_path, overrides);
    const long bodies = static_cast<long>(scene.bodies.size());
    if (bodies > 300) {
      tally->Count("loaded (too many bodies to run here)");
      return;
    }
    // Bound the work of one case (the test's time, not the rules): steps
    // times bodies and contacts (at the start), fewer steps for a large
    // rigid-model QP.
    long contacts = 0;
    try {
      contacts = FindInitialOverlap(scene).contacts;
    } catch (const std::exception&) {
      contacts = 0;  // the run reports it
    }
    long budget = 2000 / (bodies + contacts + 1);
    if (scene.solver.model == SolverModel::kRigid && contacts > 50) {
      budget = 2;
    }
    if (StepCount(scene) > budget) {
      char d[64];
      std::snprintf(d, sizeof(d), "duration=%.17g",
                    scene.time_step * std::max(1L, budget));
      overrides.push_back(d);
    }
    if (scene.solver.max_iterations > 200) {
      overrides.push_back("solver.max_iterations=200");
    }
  } catch (const SceneError&) {
    bad_input = true;
  } catch (const std::exception& e) {
    tally->Fail(label + ": LoadScene threw a non-SceneError: " + e.what());
    return;
  }
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out / "trajectory.csv") << "stale\n";
  std::ofstream(out / "summary.json") << "{}\n";
  if (std::getenv("SAPCONTACT_FUZZ_VERBOSE")) {
    std::printf("start %s\n", Show(label, 2000).c_str());
    std::fflush(stdout);
  }
  cli::RunOptions o;
  o.scene = scene_path;
  o.out = out.string();
  o.overrides = overrides;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  int status = -1;
  std::string thrown;
  try {
    status = cli::Run(o);  // returns a status for everything
  } catch (const std::exception& e) {
    thrown = e.what();
  } catch (...) {
    thrown = "a non-standard exception";
  }
  const std::string stdout_text = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  if (!thrown.empty()) {
    tally->Fail(label + ": cli::Run threw: " + thrown);
    return;
  }
  const std::string where = label + " (status " + std::to_string(status) +
                            ", stderr '" + Show(err) + "')";
  const bool outputs =
      fs::exists(out / "trajectory.csv") || fs::exists(out / "summary.json");
  if (std::getenv("SAPCONTACT_FUZZ_VERBOSE")) {
    std::string last = err;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(
        last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    std::printf("%s -> %d %s\n", label.substr(0, 60).c_str(), status,
                Show(last, 300).c_str());
  }
  if (status < 0 || status > 2) tally->Fail(where + ": status not 0, 1, 2");
  if (bad_input && status != 2) tally->Fail(where + ": bad input not 2");
  if (status == 2) {
    tally->Count("exit 2");
    if (!StartsWith(err, "sapsim run: error: " + scene_path)) {
      tally->Fail(where + ": message does not start with the file");
    }
    if (outputs) tally->Fail(where + ": outputs left after exit 2");
  } else if (status == 1 && !outputs) {
    tally->Count("exit 1 (stopped)");
    if (err.find("step ") == std::string::npos) {
      tally->Fail(where + ": stopped run does not name the step");
    }
  } else {
    tally->Count(status == 0 ? "exit 0" : "exit 1 (failed steps)");
    if (!fs::exists(out / "trajectory.csv") ||
        !fs::exists(out / "summary.json")) {
      tally->Fail(where + ": outputs missing");
    } else if (ReadFile((out / "trajectory.csv").string()) == "stale\n") {
      tally->Fail(where + ": stale trajectory kept");
    }
  }
  const std::string problem = OutputProblems(out);
  if (!problem.empty()) tally->Fail(where + ": " + problem);
}

inline void Report(const std::string& cls, int cases, const Tally& tally) {
  std::printf("fuzz class %s: %d cases (%s)\n", cls.c_str(), cases,
              tally.Summary().c_str());
  std::fflush(stdout);
  ::testing::Test::RecordProperty(cls + "_cases", cases);
  for (const std::string& f : tally.failures) ADD_FAILURE() << f;
}

}  // namespace fuzz
}  // namespace sapcontact
