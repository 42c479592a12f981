// `sapsim run --html --plot --contacts` and `sapsim view`: on
// every shipped scene the run writes contacts.csv, steps.csv, the seven
// PNGs (real 1000 x 600 PNG images) and replay.html with every frame of the
// run; `view` rewrites the page; missing three.js or gnuplot and damaged
// run directories are reported (exit status 2, or 1 for plots after a
// finished run), and files an earlier run wrote are not left behind.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/sim/stepping/csv_reader.h"
#include "sapcontact/studies/run_plots.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact::cli_test {
namespace {

// Width and height of a PNG file (its IHDR chunk), or {0, 0} if it is not
// one.
std::pair<int, int> PngSize(const std::string& path) {
  const std::string data = ReadFile(path);
  const std::string signature = "\x89PNG\r\n\x1a\n";
  if (data.size() < 24 || data.compare(0, 8, signature) != 0 ||
      data.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(data[at]) << 24) |
           (static_cast<unsigned char>(data[at + 1]) << 16) |
           (static_cast<unsigned char>(data[at + 2]) << 8) |
           static_cast<unsigned char>(data[at + 3]);
  };
  return {static_cast<int>(be32(16)), static_cast<int>(be32(20))};
}

// Distinct times of a CSV file's "time" column.
size_t DistinctTimes(const std::string& path) {
  CsvReader csv(path);
  const int t = csv.Column("time");
  size_t count = 0;
  double last = -1;
  while (csv.Next()) {
    if (count == 0 || csv.Number(t) != last) ++count;
    last = csv.Number(t);
  }
  return count;
}

// Sets an environment variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_{false};
};

TEST(RunOutputsCli, EveryShippedSceneWritesPlotsContactsAndTheReplayPage) {
  const fs::path scenes = fs::path(SourceDir()) / "config" / "scenes";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(scenes)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 13u);
  for (const fs::path& scene : files) {
    SCOPED_TRACE(scene.filename().string());
    const TempDir dir("outputs_" + scene.stem().string());
    const std::string out = dir.File("out");
    // 0.2 s: bodies land (the pile's first layer, the ball) and robots move.
    const CliResult r = RunSapsim({"run", scene.string(), "--out", out,
                                   "--html", "--plot", "--contacts", "--set",
                                   "duration=0.2", "--set", "output.every=5"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Replay: " + out + "/replay.html"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Plots: " + out), std::string::npos) << r.out;
    for (const std::string& png : RunPlotFiles()) {
      const auto [w, h] = PngSize(out + "/" + png);
      EXPECT_EQ(w, 1000) << png;
      EXPECT_EQ(h, 600) << png;
    }
    // steps.csv: one row per step; contacts.csv: parsable rows.
    const auto summary = nlohmann::json::parse(ReadFile(out + "/summary.json"));
    const int n = summary["steps"];
    EXPECT_NEAR(n * summary["time_step"].get<double>(), 0.2, 1e-9);
    CsvReader steps(out + "/steps.csv");
    int rows = 0;
    while (steps.Next()) ++rows;
    EXPECT_EQ(rows, n);
    CsvReader contacts(out + "/contacts.csv");
    const int phi = contacts.Column("phi");
    while (contacts.Next()) contacts.Number(phi);  // throws if malformed
    // The page holds every frame of the run: t = 0, every 5th step and the
    // last, from trajectory.csv or, for robots alone, replay_poses.csv.
    const size_t frames = n / 5 + (n % 5 ? 2 : 1);
    const size_t in_files =
        std::max(DistinctTimes(out + "/trajectory.csv"),
                 fs::exists(out + "/replay_poses.csv")
                     ? DistinctTimes(out + "/replay_poses.csv")
                     : 0);
    EXPECT_EQ(in_files, frames);
    const std::string of = std::to_string(frames);
    EXPECT_NE(r.out.find(", " + of + " of " + of + " frames"),
              std::string::npos)
        << r.out;
    const std::string page = ReadFile(out + "/replay.html");
    EXPECT_NE(page.find("REVISION"), std::string::npos);  // three.js inlined
    EXPECT_EQ(page.find("/*REPLAY_DATA*/"), std::string::npos);
    EXPECT_EQ(page.find("src=\"http"), std::string::npos);  // no network
  }
}

TEST(RunOutputsCli, ViewRewritesThePageAndRejectsWhatIsNotARunDirectory) {
  const TempDir dir("view");
  const std::string scene = dir.Write("box.yaml", kBoxRestScene);
  const std::string out = dir.File("out");
  ASSERT_EQ(
      RunSapsim({"run", scene, "--out", out, "-q", "--set", "output.every=1"})
          .status,
      0);
  EXPECT_FALSE(fs::exists(out + "/replay.html"));  // --html not given
  EXPECT_FALSE(fs::exists(out + "/contacts.csv"));
  CliResult r = RunSapsim({"view", out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no contacts.csv"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out + "/replay.html"));
  r = RunSapsim({"view", out, "--max-frames", "5"});
  EXPECT_NE(r.out.find("5 of 21 frames"), std::string::npos) << r.out;

  r = RunSapsim({"view", dir.File("missing")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  r = RunSapsim({"view", dir.path().string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no trajectory.csv"), std::string::npos) << r.err;
  r = RunSapsim({"view", out, "--max-frames", "1"});
  EXPECT_EQ(r.status, 2);  // CLI11's range check
  {
    const ScopedEnv no_three("SAPCONTACT_THREE_JS", dir.File("none.js"));
    r = RunSapsim({"view", out});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("libjs-three"), std::string::npos) << r.err;
    // `run --html` checks before running, and leaves no outputs.
    r = RunSapsim({"run", scene, "--out", out, "--html"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--html"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/trajectory.csv"));
  }
}

TEST(RunOutputsCli, PlotsWithoutGnuplotFailTheRunWithOneAndSayWhy) {
  const TempDir dir("nognuplot");
  const std::string scene = dir.Write("box.yaml", kBoxRestScene);
  const std::string out = dir.File("out");
  fs::create_directories(dir.path() / "empty_path");
  CliResult r;
  {
    const ScopedEnv path("PATH", dir.File("empty_path"));
    r = RunSapsim({"run", scene, "--out", out, "--plot"});
  }
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("gnuplot not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gnuplot-nox"), std::string::npos) << r.err;
  // The run itself is complete; only the PNGs are missing.
  EXPECT_TRUE(fs::exists(out + "/trajectory.csv"));
  EXPECT_TRUE(fs::exists(out + "/steps.csv"));
  EXPECT_FALSE(fs::exists(out + "/heights.png"));
}

TEST(RunOutputsCli, ALaterRunRemovesTheFilesItDoesNotWrite) {
  const TempDir dir("stale");
  const std::string scene = dir.Write("box.yaml", kBoxRestScene);
  const std::string out = dir.File("out");
  ASSERT_EQ(
      RunSapsim({"run", scene, "--out", out, "--html", "--plot", "-q"}).status,
      0);
  for (const char* f : {"replay.html", "contacts.csv", "steps.csv",
                        "heights.png", "penetration.png"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  ASSERT_EQ(RunSapsim({"run", scene, "--out", out, "-q"}).status, 0);
  for (const char* f : {"replay.html", "contacts.csv", "steps.csv",
                        "heights.png", "penetration.png"}) {
    EXPECT_FALSE(fs::exists(out + "/" + f)) << f;
  }
  EXPECT_TRUE(fs::exists(out + "/replay_scene.json"));  // `view` can follow
}

TEST(RunOutputsCli, HelpDescribesTheNewOptionsAndView) {
  CliResult r = RunSapsim({"run", "--help"});
  for (const char* text :
       {"--html", "replay.html", "--contacts", "contacts.csv", "--plot",
        "steps.csv", "heights.png", "sapsim view"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
  }
  r = RunSapsim({"view", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* text :
       {"replay.html", "--max-frames", "libjs-three", "Exit status 2"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace sapcontact::cli_test
