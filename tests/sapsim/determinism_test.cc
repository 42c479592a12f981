// Determinism: the same scene and binary give bitwise identical
// trajectory.csv and summary.json (timings aside) on repeated runs, with
// --threads 1, 2 and 3 (solver.threads), and a sweep gives a bitwise
// identical sweep.csv (timing columns aside) with --jobs 1 and --jobs 3.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/studies/sweep_table.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact {
namespace {

using cli_test::CliResult;
using cli_test::ReadFile;
using cli_test::RunSapsim;
using cli_test::TempDir;

// Wall-clock measurements: the only fields allowed to differ.
const std::set<std::string> kTimings = {"wall_time_s", "solver_time_s",
                                        "collision_time_s", "us_per_step"};

// summary.json without its timings, as text (numbers round-trip exactly).
std::string SummaryWithoutTimings(const std::string& path) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(ReadFile(path));
  for (const std::string& key : kTimings) j.erase(key);
  return j.dump(1);
}

// A small pile: 32 spheres and 9 rotated boxes just above the ground and
// each other, so that contacts (and CHOLMOD's supernodal path: 246 DOFs)
// start at once; plus a box sliding into them.
const char kMiniPile[] =
    "time_step: 0.001\n"
    "duration: 0.06\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: ball\n"
    "    shape: {type: sphere, radius: 0.03}\n"
    "    density: 1000\n"
    "    position: [-0.1, -0.1, 0.0305]\n"
    "    grid: {count: [4, 4, 2], spacing: [0.0605, 0.0605, 0.061]}\n"
    "  - name: crate\n"
    "    shape: {type: box, size: [0.05, 0.05, 0.05]}\n"
    "    mass: 0.0625\n"
    "    position: [-0.07, -0.07, 0.15]\n"
    "    rpy: [0.3, 0.2, 0.1]\n"
    "    grid: {count: [3, 3, 1], spacing: [0.07, 0.07, 0]}\n"
    "  - name: slider\n"
    "    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
    "    mass: 1\n"
    "    position: [-0.4, 0, 0.05]\n"
    "    velocity: [2, 0.1, 0]\n"
    "    angular_velocity: [0, 0, 3]\n"
    "output:\n"
    "  every: 1\n";

TEST(Determinism, RepeatedRunsAreBitwiseIdentical) {
  TempDir dir("determinism_run");
  const std::string scene = dir.Write("mini_pile.yaml", kMiniPile);
  for (const char* model : {"sap", "rigid"}) {
    SCOPED_TRACE(model);
    std::string trajectory[3], summary[3];
    for (int i = 0; i < 3; ++i) {
      const std::string out = dir.File(std::string(model) + std::to_string(i));
      const CliResult r = RunSapsim({"run", scene, "--out", out, "-q", "--set",
                                     std::string("solver.model=") + model});
      ASSERT_LE(r.status, 1) << r.err;
      trajectory[i] = ReadFile(out + "/trajectory.csv");
      summary[i] = SummaryWithoutTimings(out + "/summary.json");
      EXPECT_EQ(cli_test::TrajectoryProblem(out + "/trajectory.csv"), "");
      EXPECT_EQ(cli_test::JsonProblem(out + "/summary.json"), "");
    }
    EXPECT_GT(trajectory[0].size(), 100000u);  // 43 bodies x 61 rows
    EXPECT_NE(summary[0].find("\"max_contacts\""), std::string::npos);
    for (int i = 1; i < 3; ++i) {
      EXPECT_TRUE(trajectory[i] == trajectory[0]) << "run " << i;
      EXPECT_EQ(summary[i], summary[0]) << "run " << i;
    }
  }
}

TEST(Determinism, ThreadsGiveBitwiseIdenticalRuns) {
  // The mini pile (one large island, factored sparsely, the slider's
  // island) plus 8 rows of 12 separate boxes dropped at different heights
  // and spins (dense islands that start, stop and merge at different
  // steps): over 128 trees and 256 contacts, so that the model's and the
  // islands' loops go to the pool.
  TempDir dir("determinism_threads");
  std::string text = kMiniPile;
  text.insert(text.find("output:"),
              "  - name: drop\n"
              "    shape: {type: box, size: [0.04, 0.04, 0.04]}\n"
              "    mass: 0.1\n"
              "    position: [0.4, -0.3, 0.021]\n"
              "    angular_velocity: [0, 0, 5]\n"
              "    velocity: [0.3, 0, 0]\n"
              "    grid: {count: [8, 12, 1], spacing: [0.05, 0.05, 0]}\n");
  const std::string scene = dir.Write("threads.yaml", text);
  std::string trajectory[3], summary[3];
  for (int i = 0; i < 3; ++i) {
    const std::string threads = std::to_string(i + 1);
    const std::string out = dir.File("threads" + threads);
    const CliResult r = RunSapsim({"run", scene, "--out", out, "-q", "--set",
                                   "solver.model=sap", "--threads", threads});
    ASSERT_LE(r.status, 1) << r.err;
    trajectory[i] = ReadFile(out + "/trajectory.csv");
    summary[i] = SummaryWithoutTimings(out + "/summary.json");
  }
  EXPECT_GT(trajectory[0].size(), 100000u);
  for (int i = 1; i < 3; ++i) {
    EXPECT_TRUE(trajectory[i] == trajectory[0]) << i + 1 << " threads";
    EXPECT_EQ(summary[i], summary[0]) << i + 1 << " threads";
  }
  // A bad count is a usage error.
  EXPECT_EQ(RunSapsim({"run", scene, "--out", dir.File("bad"), "-q",
                       "--threads", "0"})
                .status,
            2);
  const CliResult bad_key = RunSapsim({"run", scene, "--out", dir.File("bad"),
                                       "-q", "--set", "solver.threads=-1"});
  EXPECT_EQ(bad_key.status, 2);
  EXPECT_NE(bad_key.err.find("solver.threads"), std::string::npos)
      << bad_key.err;
}

// sweep.csv as rows of cells without the timing columns.
std::vector<std::vector<std::string>> WithoutTimings(const SweepTable& t) {
  std::vector<int> keep;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (!kTimings.count(t.columns[c])) keep.push_back(static_cast<int>(c));
  }
  std::vector<std::vector<std::string>> rows{{}};
  for (int c : keep) rows[0].push_back(t.columns[c]);
  for (const auto& row : t.rows) {
    rows.emplace_back();
    for (int c : keep) rows.back().push_back(row[c]);
  }
  return rows;
}

TEST(Determinism, SweepsAreBitwiseIdenticalForAnyNumberOfJobs) {
  TempDir dir("determinism_sweep");
  const std::string scene = dir.Write("mini_pile.yaml", kMiniPile);
  std::vector<std::vector<std::string>> tables[2];
  const char* jobs[2] = {"1", "3"};
  for (int k = 0; k < 2; ++k) {
    const std::string out = dir.File(std::string("jobs") + jobs[k]);
    const CliResult r = RunSapsim(
        {"sweep", scene, "--vary", "materials.default.friction=0.2,0.8",
         "--vary", "time_step=1e-3,2e-3", "--vary", "solver.model=sap,rigid",
         "--set", "duration=0.03", "--out", out, "--jobs", jobs[k],
         "--no-plots", "-q"});
    ASSERT_LE(r.status, 1) << r.err;
    const std::string csv = ReadFile(out + "/sweep.csv");
    EXPECT_FALSE(cli_test::HasNonFiniteCell(csv)) << csv;
    const SweepTable table = ReadSweepCsv(out + "/sweep.csv");
    ASSERT_EQ(table.rows.size(), 8u);
    for (const auto& row : table.rows) {
      EXPECT_NE(row[table.Column("status")], "error")
          << row[table.Column("error")];
    }
    tables[k] = WithoutTimings(table);
  }
  ASSERT_EQ(tables[0].size(), tables[1].size());
  for (size_t i = 0; i < tables[0].size(); ++i) {
    EXPECT_EQ(tables[0][i], tables[1][i]) << "row " << i;
  }
}

}  // namespace
}  // namespace sapcontact
