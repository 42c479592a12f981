// Every shipped scene with robots (config/scenes, examples) runs through
// `sapsim run` for a few steps with every robot's self_collision off and on,
// under each contact model: no crash, exit status 0, a summary, and any
// initial-overlap warning names the bodies by name (a robot link as
// "<robot>/<link>"). Also run under ASan+UBSan (scripts/test --sanitize).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using cli_test::RunSapsim;
using cli_test::TempDir;

// The shipped scene files that place robots.
std::vector<std::string> RobotSceneFiles() {
  const fs::path root = cli_test::SourceDir();
  std::vector<std::string> files;
  for (const fs::path& dir : {root / "config" / "scenes", root / "examples"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      if (text.find("\nrobots:") != std::string::npos) {
        files.push_back(entry.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RobotScenes, RunWithSelfCollisionOffAndOnUnderEveryContactModel) {
  const std::vector<std::string> files = RobotSceneFiles();
  // arm_hold, arm_push, double_pendulum, drchubo_drop, gripper, joint_limit,
  // kr5_push, pendulum, wam_tray and the controller example's scene.
  ASSERT_GE(files.size(), 10u);
  TempDir dir("robot_scenes");
  for (const std::string& file : files) {
    const Scene scene = LoadScene(file);
    ASSERT_FALSE(scene.robots.empty()) << file;
    for (const char* self : {"false", "true"}) {
      for (const char* model : {"sap", "similar", "lagged"}) {
        SCOPED_TRACE(file + " self_collision=" + self +
                     " contact_model=" + model);
        std::vector<std::string> args{
            "run",
            file,
            "--out",
            (dir.path() / "out").string(),
            "--quiet",
            "--set",
            "duration=" + std::to_string(3 * scene.time_step),
            "--set",
            std::string("solver.contact_model=") + model};
        for (const RobotSpec& r : scene.robots) {
          args.push_back("--set");
          args.push_back("robots." + r.name + ".self_collision=" + self);
        }
        const cli_test::CliResult r = RunSapsim(args);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(fs::exists(dir.path() / "out" / "summary.json"));
        // An overlap warning names both bodies; a robot's as robot/link.
        const auto at = r.err.find("overlap by");
        if (at != std::string::npos) {
          const std::string line = r.err.substr(r.err.rfind('\n', at) + 1,
                                                r.err.find('\n', at) - at);
          EXPECT_NE(line.find("bodies '"), std::string::npos) << line;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sapcontact
