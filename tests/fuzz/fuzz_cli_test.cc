// Fuzz class 4 (tests/fuzz/fuzz_rules.h): whole sapsim command lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/studies/sweep_table.h"
#include "sapsim/run_command.h"
#include "tests/fuzz/fuzz_rules.h"

namespace sapcontact {
namespace {

using namespace fuzz;  // NOLINT: the suite's rules

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
  // An FCLib problem: exported from one step of the scene (FCLib problems
  // are friction-cone problems: the sap contact model).
  ASSERT_EQ(RunSapsim({"run", scene, "--out", dir.File("o0"), "-q", "--set",
                       "duration=0.001", "--set", "solver.contact_model=sap",
                       "--export-fclib", dir.File("fc/step")})
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

}  // namespace
}  // namespace sapcontact
