// The fuzz suite of issue 12: deterministic (seeded) mutations of scene
// files (YAML syntax and semantics), --set overrides, whole command lines
// and FCLib files, each run through `sapsim` in process (cli::Run,
// cli::Main), asserting the rules of one error path:
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

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/sweep_table.h"
#include "sapsim/run_command.h"
#include "tests/fclib/fclib_test_util.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using cli_test::CliResult;
using cli_test::ReadFile;
using cli_test::RunSapsim;
using cli_test::TempDir;

uint64_t Seed() {
  const char* s = std::getenv("SAPCONTACT_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 12;
}

int Cases(int base) {
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

const std::vector<std::string>& BaseScenes() {
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

std::string Show(const std::string& text, size_t max = 300) {
  std::string s = text.size() > max ? text.substr(0, max) + "..." : text;
  for (char& c : s) {
    if (c == '\0') c = '@';
  }
  return s;
}

// Every file below `dir`: no *.partial; CSV without nan/inf/null cells;
// JSON without null or non-finite numbers; trajectory.csv rows whole.
std::string OutputProblems(const fs::path& dir) {
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

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Runs `sapsim run` on a scene file with overrides and checks the rules.
// Scenes that load but would run long (or have many bodies) get a shorter
// duration, or are only loaded.
void CheckSceneRun(const std::string& scene_path,
                   std::vector<std::string> overrides, const fs::path& out,
                   const std::string& label, Tally* tally) {
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

void Report(const std::string& cls, int cases, const Tally& tally) {
  std::printf("fuzz class %s: %d cases (%s)\n", cls.c_str(), cases,
              tally.Summary().c_str());
  std::fflush(stdout);
  ::testing::Test::RecordProperty(cls + "_cases", cases);
  for (const std::string& f : tally.failures) ADD_FAILURE() << f;
}

// --- Class 1: YAML syntax ---------------------------------------------------

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) lines.push_back(l);
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string t;
  for (const std::string& l : lines) t += l + "\n";
  return t;
}

std::string MutateSyntax(std::string text, Random& r) {
  static const std::string kSpecial = ":{}[],-&*!|>'\"#%@`\t\n ?.=0123456789e";
  const int edits = 1 + static_cast<int>(r.Below(2));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = r.Below(text.size());
    std::vector<std::string> lines = Lines(text);
    const size_t line = r.Below(lines.size());
    switch (r.Below(11)) {
      case 0:  // delete a few characters
        text.erase(at, 1 + r.Below(8));
        break;
      case 1:  // insert a special character
        text.insert(at, 1, kSpecial[r.Below(kSpecial.size())]);
        break;
      case 2:  // replace a character
        text[at] = kSpecial[r.Below(kSpecial.size())];
        break;
      case 3:  // duplicate a line
        lines.insert(lines.begin() + line, lines[line]);
        text = Join(lines);
        break;
      case 4:  // delete a line
        lines.erase(lines.begin() + line);
        text = Join(lines);
        break;
      case 5: {  // swap two lines
        std::swap(lines[line], lines[r.Below(lines.size())]);
        text = Join(lines);
        break;
      }
      case 6:  // indent or dedent
        if (r.Chance(50)) {
          lines[line] = (r.Chance(50) ? "  " : "\t") + lines[line];
        } else if (lines[line].size() > 1) {
          lines[line] = lines[line].substr(1 + r.Below(2));
        }
        text = Join(lines);
        break;
      case 7:  // truncate
        text.resize(at);
        break;
      case 8: {  // raw bytes
        const char bytes[] = {'\0', '\xff', '\xc3', '\x01', '\x7f', '\xef'};
        text.insert(at, 1, bytes[r.Below(sizeof(bytes))]);
        break;
      }
      case 9:  // a YAML directive, document marker or tag
        text.insert(0, r.Pick(std::vector<std::string>{
                           "%YAML 1.2\n---\n", "---\n", "--- !!map\n", "...\n",
                           "%TAG ! tag:x,2000:\n"}));
        break;
      default:  // repeat a slice
        text.insert(at, text.substr(at, r.Below(40)));
        break;
    }
  }
  return text;
}

TEST(Fuzz, YamlSyntax) {
  TempDir dir("fuzz_syntax");
  Random r(Seed() * 1000 + 1);
  Tally tally;
  const int n = Cases(500);
  for (int i = 0; i < n; ++i) {
    const std::string text = MutateSyntax(r.Pick(BaseScenes()), r);
    const std::string path = dir.Write("scene.yaml", text);
    CheckSceneRun(
        path, {}, dir.path() / "out",
        "yaml_syntax case " + std::to_string(i) + " '" + Show(text) + "'",
        &tally);
  }
  Report("yaml_syntax", n, tally);
}

// --- Class 2: YAML semantics ------------------------------------------------

// Values that are wrong, extreme or hostile.
const std::vector<std::string>& Values() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> v = {
        "0",
        "-0",
        "1",
        "-1",
        "0.5",
        "1e-3",
        "2",
        "10",
        "100",
        "1e3",
        "1e6",
        "1e9",
        "1e12",
        "1e15",
        "1e16",
        "1e20",
        "1e100",
        "1e154",
        "1e300",
        "1e307",
        "1.7976931348623157e308",
        "1e309",
        "-1e309",
        "4.9e-324",
        "1e-320",
        "1e-9",
        "1e-7",
        ".inf",
        "-.inf",
        ".nan",
        ".NaN",
        "inf",
        "nan",
        "0x10",
        "0o17",
        "1_000",
        "+5",
        "2147483647",
        "2147483648",
        "-2147483649",
        "99999999999999999999",
        "3.5",
        "abc",
        "''",
        "\"\"",
        "~",
        "null",
        "true",
        "false",
        "yes",
        "[]",
        "{}",
        "[1, 2]",
        "[1, 2, 3]",
        "[0, 0, 1e307]",
        "[.nan, 0, 0]",
        "[1e154, 0, 0]",
        "[0, 0, 0]",
        "[1, 1, 1]",
        "[100000, 1, 1]",
        "[300, 300, 300]",
        "[-1, 0, 0]",
        "[[1, 2, 3]]",
        "{a: 1}",
        "[a, b, c]",
        "*undefined",
        "&x 5",
        "!!str 5",
        "!!float 1",
        "!!binary aGk=",
        "plane",
        "box",
        "sphere",
        "capsule",
        "rigid",
        "sap",
        "cholmod",
        "dense",
        "backtracking",
        "default",
        "rubber",
        "ground",
        "box_0_0_0",
        "[1, 0, 0, 0]",
        "[0, 0, 0, 0]",
        "[0.2, 0.2, 0.2, 0.2]",
        "{count: [2, 2, 2], spacing: [0, 0, 0]}",
        "{count: [100, 100, 100], spacing: [1, 1, 1]}",
        "{count: [5, 5, 5], spacing: [0.01, 0.01, 0.01]}",
        "{type: box, size: [1, 1, 1]}",
        "{type: plane}",
        "{type: sphere, radius: 1e-9}"};
    v.push_back(std::string(600, 'x'));
    v.push_back("[" + std::string(40, '[') + "1" + std::string(40, ']') + "]");
    std::string bomb = "[&a0 [x,x,x,x,x,x,x,x,x]";
    for (int i = 1; i <= 9; ++i) {
      const std::string p = "*a" + std::to_string(i - 1);
      bomb += ", &a" + std::to_string(i) + " [" + p + "," + p + "," + p + "," +
              p + "," + p + "," + p + "," + p + "," + p + "," + p + "]";
    }
    v.push_back(bomb + "]");
    return v;
  }();
  return v;
}

// Values at and near the limits of docs/scenes.md (valid or just outside
// them): where the numerics are most likely to break.
const std::vector<std::string>& BoundaryValues() {
  static const std::vector<std::string> v = {
      "1e-7",
      "1",
      "1.0000001",
      "9.9e-8",
      "1e7",
      "9999",
      "-9999",
      "1e4",
      "10001",
      "[9999, 0, 0]",
      "[0, 0, 1e6]",
      "[1e6, -1e6, 1e6]",
      "[0, 0, -9999]",
      "[7000, 7000, 0]",
      "1e15",
      "1.1e15",
      "1e-3",
      "9e-4",
      "1e-6",
      "1e9",
      "1e-5",
      "[1e-5, 1e-5, 1e-5]",
      "[1e4, 1e4, 1e4]",
      "[1e4, 1e-5, 1]",
      "100",
      "1000",
      "10000",
      "0",
      "[0, 9999, 0]",
      "[1000, -1000, 1000]",
      "1e6",
      "1e-3",
      "64",
      "65",
      "1000000",
      "99999",
      "{count: [10, 10, 1], spacing: [0.2, 0.2, 0]}",
      "{count: [4, 4, 4], spacing: [0, 0, 0]}",
      "{count: [1, 1, 2], spacing: [0, 0, 1e6]}",
      "[3.14159, 1e3, -1e3]",
      "[1, 1e-12, 0, 0]",
      "[1e-300, 0, 0, 1e-300]"};
  return v;
}

// Ordinary values.
const std::vector<std::string>& PlausibleValues() {
  static const std::vector<std::string> v = {
      "0.001",
      "0.002",
      "0.05",
      "0.3",
      "0.5",
      "2",
      "5",
      "0.02",
      "0.1",
      "[0, 0, 0.5]",
      "[0.1, 0, 0.3]",
      "[1, 0, 0]",
      "[0, 0, -1.62]",
      "[0.5, 0.5, 0.5]",
      "[0.1, 0.2, 0.3]",
      "[0.7071, 0, 0.7071, 0]",
      "1000",
      "1.0e5",
      ".inf",
      "sap",
      "rigid",
      "backtracking",
      "dense",
      "cholmod",
      "true",
      "false",
      "rubber",
      "default",
      "{count: [2, 1, 1], spacing: [0.3, 0, 0]}"};
  return v;
}

// A value: hostile, at the limits, or ordinary.
const std::string& AnyValue(Random& r) {
  const size_t k = r.Below(100);
  if (k < 25) return r.Pick(Values());
  if (k < 65) return r.Pick(BoundaryValues());
  return r.Pick(PlausibleValues());
}

// Values of the right type for a key, ordinary or at the limits.
const std::string& ValueFor(const std::string& key, Random& r) {
  static const std::vector<std::string> kVectors = {
      "[0, 0, 0]",       "[0, 0, 0.3]",   "[1, 0, 0]",         "[9999, 0, 0]",
      "[0, 0, -9999]",   "[1e6, 0, 0.1]", "[-1e6, 1e6, 0.5]",  "[0.5, -0.3, 2]",
      "[0, 7000, 7000]", "[1e-5, 0, 0]",  "[1000, 1000, 1000]"};
  static const std::vector<std::string> kSizes = {
      "[0.2, 0.2, 0.2]", "[1e-5, 1e-5, 1e-5]", "[1e4, 1e4, 1e4]",
      "[1e4, 1e-5, 1]",  "[0.05, 2, 0.05]",    "[3, 3, 0.01]"};
  static const std::map<std::string, std::vector<std::string>> kByKey = {
      {"time_step", {"1e-7", "1", "0.001", "0.01", "0.0005", "0.1", "0.5"}},
      {"duration", {"0.001", "0.05", "1", "0.0001", "0.3", "1e7"}},
      {"gravity", kVectors},
      {"position", kVectors},
      {"velocity", kVectors},
      {"angular_velocity", kVectors},
      {"rpy",
       {"[0, 0, 0]", "[3.14159, 0, 0]", "[1e3, -1e3, 1e3]", "[0.3, 0.2, 0.1]",
        "[1.5707963, 0, 0]"}},
      {"quaternion",
       {"[1, 0, 0, 0]", "[0.7071, 0, 0.7071, 0]", "[1, 1e-12, 0, 0]",
        "[1e-300, 0, 0, 1e-300]", "[1e300, 1e300, 0, 0]", "[0, 0, 0, 1]"}},
      {"size", kSizes},
      {"spacing",
       {"[0, 0, 0]", "[0.2, 0.2, 0.2]", "[1e6, 0, 0]", "[0.05, 0.05, 0.05]",
        "[0, 0, 0.1]"}},
      {"count",
       {"[1, 1, 1]", "[2, 2, 2]", "[10, 10, 1]", "[1, 1, 50]", "[100000, 1, 1]",
        "[3, 3, 3]"}},
      {"mass", {"1e-6", "1e9", "1", "10", "0.001", "5e8", "1e-5"}},
      {"density", {"1e-3", "1e6", "1000", "7800", "1e5", "0.01"}},
      {"radius", {"1e-5", "1e4", "0.05", "0.5", "2"}},
      {"length", {"1e-5", "1e4", "0.1", "1"}},
      {"stiffness", {"1e-3", "1e15", ".inf", "1e6", "1", "1e12", "10"}},
      {"dissipation_time_scale", {"0", "1e3", "0.01", "1", "1e-6"}},
      {"friction", {"0", "100", "0.5", "1", "1e-9", "50"}},
      {"margin", {"0", "1", "1e-3", "0.5", "1e-9"}},
      {"every", {"1", "2", "1000000", "7"}},
      {"max_iterations", {"1", "2", "100", "10000", "3"}},
      {"near_rigid_threshold", {"0", "1", "1e3", "1e-6", "0.01"}},
      {"friction_regularization", {"1e-12", "1e3", "1e-3", "1", "1e-8"}},
      {"rel_tolerance", {"1", "1e-12", "1e-6", "0.5", "1e-300"}},
      {"abs_tolerance", {"0", "1", "1e-14", "1e-300"}},
      {"model", {"sap", "rigid", "similar", "lagged"}},
      {"hunt_crossley_dissipation", {"0", "1e4", "50", "1e5", "-1", "0.5"}},
      {"stiction_tolerance", {"1e-8", "10", "1e-4", "0", "1e-9", "0.01"}},
      {"line_search", {"exact", "backtracking"}},
      {"linear_solver", {"auto", "dense", "cholmod", "block_sparse"}},
      {"stiction_prediction", {"true", "false"}},
      {"supported_delassus_estimate", {"true", "false"}},
      {"line_search_slope_ratio", {"0", "0.9", "0.99", "1", "-0.1"}},
      {"fixed", {"true", "false"}},
      {"type", {"box", "sphere", "capsule", "plane"}},
      {"material", {"default", "rubber"}},
  };
  std::string k = key;
  const size_t dot = k.rfind('.');
  if (dot != std::string::npos) {
    k = k.substr(dot + 1);
    // "bodies.box.position.2" -> an element of a vector: a number.
    if (!k.empty() && std::isdigit(static_cast<unsigned char>(k[0]))) {
      k = key.substr(0, dot);
      k = k.substr(k.rfind('.') + 1);
      if (kByKey.count(k)) return r.Pick(BoundaryValues());
    }
  }
  const auto it = kByKey.find(k);
  if (it == kByKey.end() || r.Chance(25)) return AnyValue(r);
  return r.Pick(it->second);
}

const std::vector<std::string>& Keys() {
  static const std::vector<std::string> k = {"time_step",
                                             "duration",
                                             "gravity",
                                             "solver",
                                             "model",
                                             "near_rigid_threshold",
                                             "friction_regularization",
                                             "rel_tolerance",
                                             "abs_tolerance",
                                             "max_iterations",
                                             "line_search",
                                             "linear_solver",
                                             "stiction_prediction",
                                             "supported_delassus_estimate",
                                             "line_search_slope_ratio",
                                             "materials",
                                             "default",
                                             "stiffness",
                                             "dissipation_time_scale",
                                             "friction",
                                             "hunt_crossley_dissipation",
                                             "stiction_tolerance",
                                             "collision",
                                             "margin",
                                             "output",
                                             "every",
                                             "bodies",
                                             "name",
                                             "fixed",
                                             "shape",
                                             "type",
                                             "size",
                                             "radius",
                                             "length",
                                             "mass",
                                             "density",
                                             "position",
                                             "rpy",
                                             "quaternion",
                                             "velocity",
                                             "angular_velocity",
                                             "material",
                                             "grid",
                                             "count",
                                             "spacing",
                                             "bogus",
                                             "",
                                             "<<"};
  return k;
}

// A line "<indent>key: value" gets another value; or a key is renamed,
// added or removed; or a whole random body is appended.
std::string MutateSemantics(const std::string& base, Random& r) {
  std::vector<std::string> lines = Lines(base);
  const int edits = 1 + static_cast<int>(r.Below(2));
  for (int e = 0; e < edits; ++e) {
    const size_t line = r.Below(lines.size());
    std::string& l = lines[line];
    const size_t colon = l.find(": ");
    switch (r.Below(10)) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
      case 5:
      case 6:  // a new value for a "key: value" line
        if (colon != std::string::npos && l.find('{') == std::string::npos) {
          const size_t start = l.find_first_not_of(" -");
          const std::string key =
              start < colon ? l.substr(start, colon - start) : "";
          l = l.substr(0, colon + 2) + ValueFor(key, r);
        } else if (l.find(": ") != std::string::npos) {
          // In a flow map: replace the value after a random ": ".
          std::vector<size_t> at;
          for (size_t p = l.find(": "); p != std::string::npos;
               p = l.find(": ", p + 1)) {
            at.push_back(p);
          }
          const size_t p = r.Pick(at) + 2;
          const size_t end = l.find_first_of(",}", p);
          l = l.substr(0, p) + AnyValue(r) +
              (end == std::string::npos ? "" : l.substr(end));
        }
        break;
      case 7:  // rename a key
        if (colon != std::string::npos) {
          const size_t start = l.find_first_not_of(" -");
          if (start < colon)
            l = l.substr(0, start) + r.Pick(Keys()) + l.substr(colon);
        }
        break;
      case 8: {  // add a key next to this line, at its indentation
        const size_t indent = l.find_first_not_of(' ');
        lines.insert(
            lines.begin() + line + 1,
            std::string(indent == std::string::npos ? 0 : indent, ' ') +
                r.Pick(Keys()) + ": " + AnyValue(r));
        break;
      }
      default: {  // append a random body
        std::string body = "  - name: " +
                           r.Pick(std::vector<std::string>{
                               "extra", "box", "ground", "e_0_0_0"}) +
                           "\n";
        body += "    shape: " +
                r.Pick(std::vector<std::string>{
                    "{type: box, size: [0.1, 0.1, 0.1]}",
                    "{type: sphere, radius: 0.05}",
                    "{type: capsule, radius: 0.02, length: 0.1}",
                    "{type: plane}", "{type: " + AnyValue(r) + "}"}) +
                "\n";
        for (const char* key : {"mass", "position", "velocity", "grid", "fixed",
                                "rpy", "material"}) {
          if (r.Chance(40)) {
            body += std::string("    ") + key + ": " + AnyValue(r) + "\n";
          }
        }
        return Join(lines) + body;
      }
    }
  }
  return Join(lines);
}

TEST(Fuzz, YamlSemantics) {
  TempDir dir("fuzz_semantics");
  Random r(Seed() * 1000 + 2);
  Tally tally;
  const int n = Cases(600);
  for (int i = 0; i < n; ++i) {
    const std::string text = MutateSemantics(r.Pick(BaseScenes()), r);
    const std::string path = dir.Write("scene.yaml", text);
    CheckSceneRun(path, {}, dir.path() / "out",
                  "yaml_semantics case " + std::to_string(i) + " '" +
                      Show(text, 2000) + "'",
                  &tally);
  }
  Report("yaml_semantics", n, tally);
}

// --- Class 3: overrides
// -------------------------------------------------------

const std::vector<std::string>& OverrideKeys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> k = {"time_step",
                                  "duration",
                                  "gravity",
                                  "gravity.0",
                                  "gravity.2",
                                  "gravity.3",
                                  "gravity.x",
                                  "solver",
                                  "solver.model",
                                  "solver.near_rigid_threshold",
                                  "solver.friction_regularization",
                                  "solver.rel_tolerance",
                                  "solver.abs_tolerance",
                                  "solver.max_iterations",
                                  "solver.line_search",
                                  "solver.linear_solver",
                                  "solver.model.x",
                                  "materials.default.stiffness",
                                  "materials.default.dissipation_time_scale",
                                  "materials.default.friction",
                                  "materials.default.model",
                                  "materials.default.hunt_crossley_dissipation",
                                  "materials.default.stiction_tolerance",
                                  "materials.rubber.model",
                                  "materials.rubber.stiffness",
                                  "materials.steel.friction",
                                  "materials.default",
                                  "collision.margin",
                                  "output.every",
                                  "bodies.box.mass",
                                  "bodies.box.density",
                                  "bodies.box.position",
                                  "bodies.box.position.2",
                                  "bodies.box.position.7",
                                  "bodies.box.rpy",
                                  "bodies.box.quaternion",
                                  "bodies.box.velocity",
                                  "bodies.box.velocity.0",
                                  "bodies.box.angular_velocity",
                                  "bodies.box.shape.size",
                                  "bodies.box.shape.size.1",
                                  "bodies.box.shape.radius",
                                  "bodies.box.shape.type",
                                  "bodies.box.shape",
                                  "bodies.box.grid.count",
                                  "bodies.box.grid.spacing",
                                  "bodies.box.grid",
                                  "bodies.box.name",
                                  "bodies.box.fixed",
                                  "bodies.box.material",
                                  "bodies.box",
                                  "bodies.ground.velocity",
                                  "bodies.ground.fixed",
                                  "bodies.ball.mass",
                                  "bodies.ball.shape.radius",
                                  "bodies.rod.shape.length",
                                  "bodies.nobody.mass",
                                  "bodies",
                                  "",
                                  ".",
                                  "a..b",
                                  "=",
                                  "bogus",
                                  "bodies.box.mass.kg",
                                  "output.every.1"};
    k.push_back(std::string(5000, 'k'));
    return k;
  }();
  return k;
}

// Keys every base scene has (the body "box" included).
const std::vector<std::string>& ValidOverrideKeys() {
  static const std::vector<std::string> k = {
      "time_step",
      "duration",
      "gravity",
      "gravity.2",
      "solver.model",
      "solver.near_rigid_threshold",
      "solver.friction_regularization",
      "solver.rel_tolerance",
      "solver.max_iterations",
      "solver.line_search",
      "solver.linear_solver",
      "materials.default.stiffness",
      "materials.default.dissipation_time_scale",
      "materials.default.friction",
      "materials.default.model",
      "materials.default.hunt_crossley_dissipation",
      "materials.default.stiction_tolerance",
      "collision.margin",
      "output.every",
      "bodies.box.mass",
      "bodies.box.density",
      "bodies.box.position",
      "bodies.box.position.2",
      "bodies.box.rpy",
      "bodies.box.quaternion",
      "bodies.box.velocity",
      "bodies.box.angular_velocity",
      "bodies.box.shape.size",
      "bodies.box.shape.size.1",
      "bodies.box.grid.count",
      "bodies.box.grid.spacing"};
  return k;
}

TEST(Fuzz, Overrides) {
  TempDir dir("fuzz_overrides");
  Random r(Seed() * 1000 + 3);
  Tally tally;
  const int n = Cases(500);
  for (int i = 0; i < n; ++i) {
    const std::string path = dir.Write("scene.yaml", r.Pick(BaseScenes()));
    std::vector<std::string> overrides;
    const int count = 1 + static_cast<int>(r.Below(3));
    for (int k = 0; k < count; ++k) {
      const std::string key =
          r.Chance(70) ? r.Pick(ValidOverrideKeys()) : r.Pick(OverrideKeys());
      const std::string value = ValueFor(key, r);
      switch (r.Below(16)) {
        case 0:
          overrides.push_back(key);  // no '='
          break;
        case 1:
          overrides.push_back(key + "=");
          break;
        case 2:
          overrides.push_back(key + "==" + value);
          break;
        default:
          overrides.push_back(key + "=" + value);
      }
    }
    std::string label = "override case " + std::to_string(i) + ":";
    for (const std::string& o : overrides) label += " --set '" + Show(o) + "'";
    CheckSceneRun(path, overrides, dir.path() / "out", label, &tally);
  }
  Report("overrides", n, tally);
}

// --- Class 4: command lines
// ---------------------------------------------------

// Runs the enclosing scope in another working directory: command lines
// with a missing or odd value (`--export-fclib --`) write relative paths.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& path)
      : previous_(fs::current_path()) {
    fs::current_path(path);
  }
  ~WorkingDirectory() {
    std::error_code ec;
    fs::current_path(previous_, ec);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path previous_;
};

TEST(Fuzz, CommandLines) {
  TempDir dir("fuzz_cli");
  fs::create_directories(dir.path() / "cwd");
  const WorkingDirectory cwd(dir.path() / "cwd");
  Random r(Seed() * 1000 + 4);
  Tally tally;
  const std::string scene = dir.Write("scene.yaml", BaseScenes()[0]);
  const std::string bad_scene = dir.Write("bad.yaml", "time_step: [\n");
  const std::string study =
      dir.Write("study.yaml",
                "scene: scene.yaml\nset: [duration=0.005]\n"
                "vary: ['time_step=1e-3,2e-3']\n"
                "metrics: [max_penetration_m]\n");
  const std::string bad_study =
      dir.Write("bad_study.yaml", "scene: scene.yaml\nvary: 5\nbogus: 1\n");
  // An FCLib problem: exported from one step of the scene.
  ASSERT_EQ(RunSapsim({"run", scene, "--out", dir.File("o0"), "-q", "--set",
                       "duration=0.001", "--export-fclib", dir.File("fc/step")})
                .status,
            0);
  const std::string fclib_file = dir.File("fc/step-step000000.hdf5");
  ASSERT_TRUE(fs::exists(fclib_file));
  // Shards for sweep-merge.
  for (const char* shard : {"0/2", "1/2"}) {
    RunSapsim({"sweep", scene, "--vary", "time_step=1e-3,2e-3", "--set",
               "duration=0.004", "--shard", shard, "--out",
               dir.File(std::string("shard") + shard[0]), "--no-plots", "-q",
               "--jobs", "1"});
  }
  const std::string bad_shard = dir.File("bad_shard");
  fs::create_directories(bad_shard);
  std::ofstream(bad_shard + "/sweep.csv") << "index,x\n\"unterminated\n";
  std::ofstream(bad_shard + "/sweep.json") << "{\"total_points\": 2}\n";

  const std::vector<std::string> paths = {scene,
                                          bad_scene,
                                          dir.File("missing.yaml"),
                                          dir.path().string(),
                                          "/dev/null",
                                          fclib_file,
                                          study,
                                          bad_study,
                                          ""};
  const std::vector<std::string> outs = {dir.File("out"), dir.File("out"), "",
                                         dir.File("scene.yaml") + "/x",
                                         "/proc/sapsim_fuzz"};
  const std::vector<std::string> sets = {"duration=0.005",
                                         "time_step=2e-3",
                                         "solver.model=rigid",
                                         "gravity=[0,0,-1.62]",
                                         "bodies.box.velocity=[1e154,0,0]",
                                         "bodies.box.mass=0",
                                         "solver.bogus=1",
                                         "nokey",
                                         "=",
                                         "",
                                         "duration=1e308",
                                         "solver.max_iterations=5",
                                         "solver.rel_tolerance=nan",
                                         "solver.continuation_factor=1",
                                         "solver.refine=maybe",
                                         "bodies.box.grid.count=[2,1,1]"};
  const std::vector<std::string> numbers = {
      "1", "0", "-1",   "2.5",     "1e300", "nan", "inf",
      "x", "",  "1e-3", "1000000", "3",     "0.1"};
  std::map<std::string, std::vector<std::string>> options = {
      {"run",
       {"--out", "-o", "--set", "-s", "--quiet", "-q", "--export-fclib",
        "--bogus", "--", "-"}},
      {"sweep",
       {"--vary", "-v", "--set", "--metric", "--window", "--out", "--jobs",
        "--shard", "--quiet", "--bogus"}},
      {"study", {"--out", "--jobs", "--shard", "--quiet", "--bogus"}},
      {"sweep-merge", {"--out", "--quiet", "--bogus"}},
      {"fclib",
       {"--solver", "--set", "--csv", "--quiet", "--read-timeout", "--bogus"}},
      {"estimate",
       {"--mass", "--contacts", "--dt", "--stiffness", "--tau-d", "--friction",
        "--beta", "--sigma", "--gravity", "--bogus"}},
      {"demo", {"--bogus"}},
      {"bogus", {}},
      {"", {"--help", "--bogus", "-h"}},
  };
  const std::vector<std::string> subcommands = {
      "run",   "run",   "run",      "sweep", "study", "sweep-merge",
      "fclib", "fclib", "estimate", "demo",  "bogus", ""};
  const std::vector<std::string> varies = {
      "time_step=1e-3,2e-3",
      "materials.default.friction=0.1:0.9:2",
      "time_step=1:2",
      "bodies.box.mass=1,x",
      "nokey=1,2",
      "=",
      "",
      "duration=0.002:0.004:2:log",
      "time_step=1e-3:2e-3:99999999"};
  const std::vector<std::string> fclib_sets = {
      "solver.max_iterations=5",  "solver.bogus=1",
      "solver.refine=false",      "solver.continuation_factor=1",
      "solver.rel_tolerance=nan", "solver.max_iterations=2000000000",
      "max_iterations=3",         ""};

  const int n = Cases(250);
  for (int i = 0; i < n; ++i) {
    const fs::path out_root = dir.path() / "out";
    fs::remove_all(out_root);
    const std::string sub = r.Pick(subcommands);
    std::vector<std::string> args;
    if (!sub.empty()) args.push_back(sub);
    // Positional arguments.
    if (sub == "run" || sub == "sweep" || sub == "study") {
      const int count = static_cast<int>(r.Below(3));
      for (int k = 0; k < count; ++k) {
        args.push_back(r.Chance(70) ? (sub == "study" ? study : scene)
                                    : r.Pick(paths));
      }
    } else if (sub == "fclib") {
      const int count = static_cast<int>(r.Below(4));
      for (int k = 0; k < count; ++k) {
        args.push_back(r.Chance(60) ? fclib_file : r.Pick(paths));
      }
    } else if (sub == "sweep-merge") {
      for (const char* d : {"shard0", "shard1"}) {
        if (r.Chance(70)) args.push_back(dir.File(d));
      }
      if (r.Chance(30)) args.push_back(bad_shard);
      if (r.Chance(10)) args.push_back(dir.File("no_such_dir"));
    }
    // Options with (or without) values.
    const int count = static_cast<int>(r.Below(5));
    for (int k = 0; k < count; ++k) {
      const auto& opts = options[sub];
      if (opts.empty()) break;
      const std::string opt = r.Pick(opts);
      args.push_back(opt);
      if (r.Chance(10)) continue;  // value missing
      if (opt == "--out" || opt == "-o") {
        args.push_back(r.Pick(outs));
      } else if (opt == "--set" || opt == "-s") {
        args.push_back(sub == "fclib" ? r.Pick(fclib_sets) : r.Pick(sets));
      } else if (opt == "--vary" || opt == "-v") {
        args.push_back(r.Pick(varies));
      } else if (opt == "--metric") {
        args.push_back(r.Chance(50) ? "max_penetration_m" : "bogus_metric");
      } else if (opt == "--shard") {
        args.push_back(r.Pick(
            std::vector<std::string>{"0/1", "1/2", "2/2", "a", "0/0", "-1/2"}));
      } else if (opt == "--solver") {
        args.push_back(r.Pick(std::vector<std::string>{"rigid", "sap", "foo"}));
      } else if (opt == "--csv") {
        args.push_back(r.Chance(80) ? dir.File("out/table.csv") : "");
      } else if (opt == "--export-fclib") {
        args.push_back(r.Chance(80) ? dir.File("out/fc/s") : "");
      } else if (opt == "--jobs") {
        args.push_back(r.Pick(
            std::vector<std::string>{"1", "2", "0", "-1", "99999", "x"}));
      } else if (opt[0] == '-' && opt != "--quiet" && opt != "-q" &&
                 opt != "--" && opt != "-" && opt != "--help" && opt != "-h") {
        args.push_back(r.Pick(numbers));
      }
    }
    // Keep sweeps cheap: short runs, no gnuplot, few workers.
    if (sub == "sweep" || sub == "study" || sub == "sweep-merge") {
      args.push_back("--no-plots");
      if (sub != "sweep-merge") {
        args.insert(args.end(), {"--jobs", "2"});
      }
      if (sub == "sweep") args.insert(args.end(), {"--set", "duration=0.004"});
      if (r.Chance(80)) args.insert(args.end(), {"--out", dir.File("out/s")});
    }
    if (sub == "run" && r.Chance(80)) {
      args.insert(args.end(), {"--out", dir.File("out/r")});
    }
    std::string line = "sapsim";
    for (const std::string& a : args) line += " '" + Show(a, 80) + "'";
    const CliResult res = RunSapsim(args);
    const std::string where = "command line case " + std::to_string(i) + ": " +
                              line + " (status " + std::to_string(res.status) +
                              ", stderr '" + Show(res.err) + "')";
    if (res.status < 0 || res.status > 2) {
      tally.Fail(where + ": status not 0, 1, 2");
    }
    tally.Count("exit " + std::to_string(res.status));
    if (res.status == 2) {
      const std::string first = res.err.substr(0, res.err.find('\n'));
      if (!StartsWith(first, "sapsim") ||
          first.find("error: ") == std::string::npos) {
        tally.Fail(where + ": exit 2 without a 'sapsim...: error:' message");
      }
    }
    if (sub == "run" && res.status == 2 &&
        (fs::exists(out_root / "r" / "trajectory.csv") ||
         fs::exists(out_root / "r" / "summary.json"))) {
      tally.Fail(where + ": outputs left after exit 2");
    }
    for (const fs::path& root : {out_root, dir.path() / "cwd"}) {
      const std::string problem = OutputProblems(root);
      if (!problem.empty()) tally.Fail(where + ": " + problem);
    }
    for (const auto& entry : fs::directory_iterator(dir.path() / "cwd")) {
      fs::remove_all(entry.path());
    }
  }
  Report("command_lines", n, tally);
}

// --- Class 5: FCLib files ---------------------------------------------------

TEST(Fuzz, FclibFiles) {
  TempDir dir("fuzz_fclib");
  Random r(Seed() * 1000 + 5);
  Tally tally;
  // The issue's Rover1039.hdf5 when the shared set is there, else a
  // problem written here.
  std::string original;
  const std::string shared = fclib_test::SharedFclibDir();
  if (!shared.empty()) {
    original = ReadFile(shared + "/problems/Rover1039.hdf5");
  }
  if (original.empty()) {
    FclibLocalProblem p = fclib_test::RandomLocalProblem(4, 12, 7);
    WriteFclibLocal(dir.File("written.hdf5"), p);
    original = ReadFile(dir.File("written.hdf5"));
  }
  ASSERT_GT(original.size(), 1000u);
  const double extremes[] = {4.55e306, -1e300, 1e-310, std::nan(""),
                             HUGE_VAL, 0.0,    1e151};
  const int n = Cases(250);
  for (int i = 0; i < n; ++i) {
    std::string bytes = original;
    std::string what;
    const int edits = 1 + static_cast<int>(r.Below(3));
    for (int e = 0; e < edits; ++e) {
      const size_t at = r.Below(bytes.size());
      switch (r.Below(6)) {
        case 0:
        case 1: {  // flip bits of one byte
          const int mask = 1 + static_cast<int>(r.Below(255));
          bytes[at] = static_cast<char>(bytes[at] ^ mask);
          what += " xor@" + std::to_string(at);
          break;
        }
        case 2: {  // zero a range
          const size_t len = std::min(bytes.size() - at, 1 + r.Below(64));
          std::fill(bytes.begin() + at, bytes.begin() + at + len, '\0');
          what += " zero@" + std::to_string(at);
          break;
        }
        case 3:  // truncate
          bytes.resize(std::max<size_t>(at, 8));
          what += " cut@" + std::to_string(at);
          break;
        case 4: {  // an extreme double at an 8-byte boundary
          const double v = extremes[r.Below(std::size(extremes))];
          const size_t p = (at / 8) * 8;
          if (p + 8 <= bytes.size()) {
            std::memcpy(&bytes[p], &v, 8);
            what += " double@" + std::to_string(p);
          }
          break;
        }
        default: {  // copy a block elsewhere
          const size_t from = r.Below(bytes.size());
          const size_t len = std::min(
              {bytes.size() - at, bytes.size() - from, 1 + r.Below(256)});
          std::memmove(&bytes[at], &bytes[from], len);
          what += " copy@" + std::to_string(at);
          break;
        }
      }
    }
    const std::string path = dir.Write("damaged.hdf5", bytes);
    const std::string csv = dir.File("table.csv");
    fs::remove(csv);
    const char* solver = r.Chance(50) ? "sap" : "rigid";
    const CliResult res =
        RunSapsim({"fclib", path, "--solver", solver, "--csv", csv, "-q"});
    const std::string where =
        "fclib case " + std::to_string(i) + " (" + solver + what + "; status " +
        std::to_string(res.status) + ", stderr '" + Show(res.err) + "')";
    tally.Count("exit " + std::to_string(res.status));
    if (res.status < 0 || res.status > 2) {
      tally.Fail(where + ": status not 0, 1, 2");
    }
    SweepTable table;
    try {
      table = ReadSweepCsv(csv);  // RFC 4180, field counts checked
    } catch (const std::exception& e) {
      tally.Fail(where + ": the CSV: " + e.what());
      continue;
    }
    if (table.rows.size() != 1 || table.columns.size() != 10) {
      tally.Fail(where + ": expected one row of 10 cells");
      continue;
    }
    const std::string status = table.rows[0][table.Column("status")];
    if (res.status == 2) {
      if (status != "bad_file") tally.Fail(where + ": exit 2 but " + status);
      if (!StartsWith(res.err, "sapsim fclib: error: " + path + ": ")) {
        tally.Fail(where + ": message does not start with the file");
      }
    } else if (status == "bad_file") {
      tally.Fail(where + ": bad_file row without exit 2");
    }
    if (res.status == 0 &&
        !(StartsWith(status, "solved") || status == "converged")) {
      tally.Fail(where + ": exit 0 with status " + status);
    }
    const std::string problem = OutputProblems(dir.path());
    if (!problem.empty()) tally.Fail(where + ": " + problem);
  }
  Report("fclib_files", n, tally);
}

}  // namespace
}  // namespace sapcontact
