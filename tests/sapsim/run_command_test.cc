// `sapsim run` in process (cli::Run with temporary directories): bad input
// exits with status 2, names the file, the line and the field, and leaves
// no trajectory.csv / summary.json in the output directory (not even an
// earlier run's); a good run writes both with the documented content; the
// help text explains every option.
#include "sapsim/run_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sapsim/cli_test_util.h"

namespace sapcontact::cli {
namespace {

namespace fs = std::filesystem;

// A fresh temporary directory per test.
class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() /
        ("sapsim_cli_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string WriteScene(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // An output directory holding the outputs of an "earlier run".
  std::string StaleOutputDir() {
    const fs::path out = dir_ / "out";
    fs::create_directories(out);
    std::ofstream(out / "trajectory.csv") << "stale\n";
    std::ofstream(out / "summary.json") << "{}\n";
    return out.string();
  }
  // Runs with stderr and stdout captured.
  int RunCaptured(const RunOptions& o) {
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const int status = cli::Run(o);
    stdout_ = ::testing::internal::GetCapturedStdout();
    stderr_ = ::testing::internal::GetCapturedStderr();
    return status;
  }

  fs::path dir_;
  std::string stdout_, stderr_;
};

// A valid scene: a box resting on the ground (lines 1-9).
const char* const kGood = cli_test::kBoxRestScene;

struct BadInput {
  const char* name;
  std::string yaml;                    // the scene file
  std::vector<std::string> overrides;  // --set assignments
  const char* field;                   // must appear in the message
  int line;                            // 1-based line in the message, or 0
};

// kGood with line `line` (1-based) replaced by `text`.
std::string ReplaceLine(int line, const std::string& text) {
  std::istringstream in(kGood);
  std::string out, l;
  for (int i = 1; std::getline(in, l); ++i)
    out += (i == line ? text : l) + "\n";
  return out;
}

std::vector<BadInput> BadInputs() {
  return {
      {"malformed_yaml",
       ReplaceLine(6, "    shape: {type: box, size: [0.2"),
       {},
       "",
       0},
      {"unknown_key", ReplaceLine(7, "    mas: 10"), {}, "bodies.box.mas", 7},
      {"missing_required_field",
       ReplaceLine(2, "output: {every: 1}"),
       {},
       "duration",
       0},
      {"wrong_type",
       ReplaceLine(7, "    mass: heavy"),
       {},
       "bodies.box.mass",
       7},
      {"zero_size",
       ReplaceLine(6, "    shape: {type: box, size: [0.2, 0, 0.2]}"),
       {},
       "bodies.box.shape.size[1]",
       6},
      {"negative_size",
       ReplaceLine(6, "    shape: {type: box, size: [0.2, 0.2, -0.2]}"),
       {},
       "bodies.box.shape.size[2]",
       6},
      {"zero_mass", ReplaceLine(7, "    mass: 0"), {}, "bodies.box.mass", 7},
      {"negative_mass",
       ReplaceLine(7, "    mass: -10"),
       {},
       "bodies.box.mass",
       7},
      {"zero_time_step", ReplaceLine(1, "time_step: 0"), {}, "time_step", 1},
      {"negative_time_step_override",
       kGood,
       {"time_step=-0.001"},
       "time_step",
       0},
      {"zero_quaternion",
       ReplaceLine(9, "    quaternion: [0, 0, 0, 0]"),
       {},
       "bodies.box.quaternion",
       9},
      {"nan_quaternion",
       ReplaceLine(9, "    quaternion: [.nan, 0, 0, 1]"),
       {},
       "bodies.box.quaternion",
       9},
      {"missing_material",
       ReplaceLine(9, "    material: rubber"),
       {},
       "bodies.box.material",
       9},
      {"unknown_set_key",
       kGood,
       {"solver.near_rigid=0.1"},
       "solver.near_rigid",
       0},
      {"unknown_set_body", kGood, {"bodies.crate.mass=1"}, "bodies.crate", 0},
      {"set_wrong_type",
       kGood,
       {"materials.default.friction=high"},
       "materials.default.friction",
       0},
  };
}

TEST_F(RunCommandTest, BadInputExitsWithTwoAndLeavesNoOutputs) {
  for (const BadInput& c : BadInputs()) {
    SCOPED_TRACE(c.name);
    RunOptions o;
    o.scene = WriteScene(std::string(c.name) + ".yaml", c.yaml);
    o.overrides = c.overrides;
    o.out = StaleOutputDir();
    EXPECT_EQ(RunCaptured(o), 2);
    EXPECT_NE(stderr_.find(o.scene), std::string::npos) << stderr_;
    EXPECT_NE(stderr_.find(c.field), std::string::npos) << stderr_;
    if (c.line > 0) {
      EXPECT_NE(stderr_.find(o.scene + ":" + std::to_string(c.line) + ":"),
                std::string::npos)
          << stderr_;
    } else if (c.overrides.empty()) {
      // Still a line number of the file.
      EXPECT_NE(stderr_.find(o.scene + ":"), std::string::npos) << stderr_;
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(
          stderr_[stderr_.find(o.scene + ":") + o.scene.size() + 1])))
          << stderr_;
    } else {
      EXPECT_NE(stderr_.find("--set " + c.overrides[0]), std::string::npos)
          << stderr_;
    }
    EXPECT_FALSE(fs::exists(fs::path(o.out) / "trajectory.csv"));
    EXPECT_FALSE(fs::exists(fs::path(o.out) / "summary.json"));
    EXPECT_FALSE(fs::exists(fs::path(o.out) / "trajectory.csv.partial"));
    EXPECT_EQ(stdout_, "");
  }
}

TEST_F(RunCommandTest, MissingSceneFileExitsWithTwo) {
  RunOptions o;
  o.scene = (dir_ / "no_such_scene.yaml").string();
  o.out = StaleOutputDir();
  EXPECT_EQ(RunCaptured(o), 2);
  EXPECT_NE(stderr_.find(o.scene), std::string::npos) << stderr_;
  EXPECT_FALSE(fs::exists(fs::path(o.out) / "summary.json"));
  EXPECT_FALSE(fs::exists(fs::path(o.out) / "trajectory.csv"));
}

TEST_F(RunCommandTest, UnwritableOutputDirectoryExitsWithTwo) {
  RunOptions o;
  o.scene = WriteScene("good.yaml", kGood);
  const fs::path file = dir_ / "a_file";
  std::ofstream(file) << "x\n";
  o.out = (file / "out").string();  // a directory below a regular file
  EXPECT_EQ(RunCaptured(o), 2);
  EXPECT_NE(stderr_.find(o.out), std::string::npos) << stderr_;
}

TEST_F(RunCommandTest, GoodRunWritesTrajectoryAndSummary) {
  RunOptions o;
  o.scene = WriteScene("good.yaml", kGood);
  o.out = StaleOutputDir();
  o.overrides = {"output.every=10"};
  ASSERT_EQ(RunCaptured(o), 0) << stderr_;
  EXPECT_EQ(stderr_, "");  // no progress bar: stderr is not a terminal
  EXPECT_NE(stdout_.find(o.out + "/trajectory.csv"), std::string::npos);
  EXPECT_NE(stdout_.find(o.out + "/summary.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(o.out) / "trajectory.csv.partial"));
  EXPECT_FALSE(fs::exists(fs::path(o.out) / "summary.json.partial"));

  std::ifstream js(fs::path(o.out) / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(js);
  for (const char* key :
       {"steps", "time_step", "wall_time_s", "solver_time_s",
        "collision_time_s", "mean_contacts", "max_contacts",
        "mean_newton_iterations", "max_newton_iterations", "failed_steps",
        "max_penetration_m", "max_hover_m", "max_hover_time_s",
        "max_hover_bodies", "max_hover_point_m", "kinetic_energy_initial_J",
        "kinetic_energy_final_J", "energy_max_increase_rel", "bodies"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["steps"], 20);
  EXPECT_EQ(j["time_step"], 0.001);
  EXPECT_EQ(j["failed_steps"], 0);
  EXPECT_EQ(j["max_contacts"], 4);  // the box rests on its 4 corners
  // Resting: nothing glides, and no gliding line is printed.
  EXPECT_EQ(j["max_hover_m"], 0.0);
  EXPECT_TRUE(j["max_hover_bodies"].empty());
  EXPECT_EQ(stdout_.find("Gliding:"), std::string::npos) << stdout_;
  ASSERT_EQ(j["bodies"].size(), 2u);
  const auto& box = j["bodies"][1];
  EXPECT_EQ(box["name"], "box");
  for (const char* key :
       {"position", "quaternion_wxyz", "velocity", "angular_velocity"}) {
    ASSERT_EQ(box[key].size(), key[0] == 'q' ? 4u : 3u) << key;
  }
  // Sinking into the compliant contact (4.9e-5 m at rest).
  EXPECT_NEAR(box["position"][2].get<double>(), 0.1, 1e-4);

  std::ifstream csv(fs::path(o.out) / "trajectory.csv");
  std::string header, row, last;
  std::getline(csv, header);
  EXPECT_EQ(header, "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
  int rows = 0;
  while (std::getline(csv, row)) {
    ++rows;
    last = row;
  }
  EXPECT_EQ(rows, 3);  // t = 0, 0.01, 0.02: the moving box only
  // The last row is the final state of the summary.
  std::vector<std::string> cells;
  std::stringstream ss(last);
  for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
  ASSERT_EQ(cells.size(), 15u);
  EXPECT_NEAR(std::stod(cells[0]), 0.02, 1e-12);
  EXPECT_EQ(cells[1], "box");
  EXPECT_NEAR(std::stod(cells[4]), box["position"][2].get<double>(), 1e-12);
}

// A sliding box glides: summary.json says how high, when and between
// which bodies, and the printed summary says so and points to the lagged
// model.
TEST_F(RunCommandTest, GlidingIsReportedInTheSummaryAndPrinted) {
  RunOptions o;
  o.scene = WriteScene("slide.yaml", kGood);
  o.out = (dir_ / "out").string();
  // The SAP paper's contact model glides; the lagged default does not.
  o.overrides = {"bodies.box.velocity=[1,0,0]", "duration=0.05",
                 "solver.contact_model=sap"};
  ASSERT_EQ(RunCaptured(o), 0) << stderr_;
  std::ifstream js(fs::path(o.out) / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(js);
  const double hover = j["max_hover_m"].get<double>();
  EXPECT_GT(hover, 2.5e-4);  // dt mu |v_t| = 0.5 mm (docs/theory.md §10)
  EXPECT_LT(hover, 0.03);
  const double t = j["max_hover_time_s"].get<double>();
  EXPECT_GT(t, 0.0);
  EXPECT_LE(t, 0.05);
  ASSERT_EQ(j["max_hover_bodies"].size(), 2u);
  const std::string a = j["max_hover_bodies"][0], b = j["max_hover_bodies"][1];
  EXPECT_TRUE((a == "ground" && b == "box") || (a == "box" && b == "ground"))
      << a << ", " << b;
  ASSERT_EQ(j["max_hover_point_m"].size(), 3u);
  const size_t line = stdout_.find("Gliding:");
  ASSERT_NE(line, std::string::npos) << stdout_;
  const std::string text = stdout_.substr(line);
  char height[32];
  std::snprintf(height, sizeof(height), "%.3g m", hover);
  for (const std::string& part :
       {std::string(height), "'" + a + "' and '" + b + "'",
        std::string("materials.default.model=lagged"),
        std::string("solver.contact_model=lagged"),
        std::string("docs/theory.md §18")}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  EXPECT_NE(stdout_.find("(sap model) in"), std::string::npos) << stdout_;
  // The lagged model does not glide: no line, and the summary names the
  // contact model.
  o.overrides.push_back("materials.default.model=lagged");
  ASSERT_EQ(RunCaptured(o), 0) << stderr_;
  EXPECT_EQ(stdout_.find("Gliding:"), std::string::npos) << stdout_;
  EXPECT_NE(stdout_.find("(sap model; contact models: lagged)"),
            std::string::npos)
      << stdout_;
  o.overrides.pop_back();
  // With the rigid QP the remedy also switches the solver model.
  o.overrides.push_back("solver.model=rigid");
  ASSERT_EQ(RunCaptured(o), 0) << stderr_;
  EXPECT_NE(stdout_.find("--set solver.model=sap --set "
                         "materials.default.model=lagged"),
            std::string::npos)
      << stdout_;
}

TEST_F(RunCommandTest, FailedSolverStepsExitWithOneAndAreReported) {
  RunOptions o;
  o.scene = WriteScene("good.yaml", kGood);
  o.out = (dir_ / "out").string();
  o.quiet = true;
  // One Newton iteration cannot resolve a spinning box on the ground.
  o.overrides = {"solver.max_iterations=1",
                 "bodies.box.angular_velocity=[3,-2,5]"};
  ASSERT_EQ(RunCaptured(o), 1) << stderr_;
  EXPECT_EQ(stdout_, "");  // quiet
  std::ifstream js(fs::path(o.out) / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(js);
  EXPECT_GT(j["failed_steps"].get<int>(), 0);
  EXPECT_NE(j["first_failure"].get<std::string>(), "");
}

TEST(RunCommandHelp, ExplainsEveryOption) {
  CLI::App app{"sapsim"};
  RunOptions o;
  CLI::App* run = AddRunCommand(app, &o);
  const std::string help = run->help();
  for (const char* text :
       {"scene", "--out", "--set", "KEY=VALUE", "--quiet", "trajectory.csv",
        "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz", "summary.json",
        "Exit status", "bad input", "progress", "docs/scenes.md"}) {
    EXPECT_NE(help.find(text), std::string::npos) << text << "\n" << help;
  }
  // Every option of the subcommand has a description.
  for (const CLI::Option* opt : run->get_options()) {
    if (opt->get_name() == "--help") continue;
    EXPECT_FALSE(opt->get_description().empty()) << opt->get_name();
  }
}

TEST(RunCommandHelp, ParsesRepeatedOverrides) {
  CLI::App app{"sapsim"};
  RunOptions o;
  AddRunCommand(app, &o);
  const char* argv[] = {"sapsim", "run", "s.yaml", "--set", "a=1",
                        "-s",     "b=2", "--out",  "dir",   "--quiet"};
  app.parse(static_cast<int>(std::size(argv)), argv);
  EXPECT_EQ(o.scene, "s.yaml");
  EXPECT_EQ(o.overrides, (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(o.out, "dir");
  EXPECT_TRUE(o.quiet);
}

}  // namespace
}  // namespace sapcontact::cli
