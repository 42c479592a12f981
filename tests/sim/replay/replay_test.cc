// The replay files (sim/replay/replay.h): replay_scene.json,
// replay_poses.csv and the data inside replay.html, checked against the
// scene, the run's own files and the motion they describe; the errors for
// run directories that are not, or are damaged.
#include "sapcontact/sim/replay/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/csv_reader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "tests/sim/replay/replay_test_util.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using replay_test::PageData;
using replay_test::ReadText;

// A box, a sphere and a capsule dropped on the ground next to a fixed wall
// and a belt moving at 0.2 m/s along x; every 5th step written.
constexpr char kBodiesScene[] =
    "time_step: 1.0e-3\n"
    "duration: 0.2\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: wall\n"
    "    fixed: true\n"
    "    shape: {type: box, size: [0.05, 1.0, 0.3]}\n"
    "    position: [0.6, 0, 0.15]\n"
    "    rpy: [0, 0, 0.2]\n"
    "  - name: belt\n"
    "    fixed: true\n"
    "    shape: {type: box, size: [0.4, 0.2, 0.02]}\n"
    "    position: [-0.5, 0, 0.01]\n"
    "    prescribed: {velocity: [0.2, 0, 0]}\n"
    "  - name: box\n"
    "    shape: {type: box, size: [0.1, 0.2, 0.3]}\n"
    "    mass: 1\n"
    "    position: [0, 0, 0.3]\n"
    "    rpy: [0.1, 0.2, 0.3]\n"
    "  - name: ball\n"
    "    shape: {type: sphere, radius: 0.05}\n"
    "    mass: 0.5\n"
    "    position: [0.3, 0, 0.1]\n"
    "  - name: pill\n"
    "    shape: {type: capsule, radius: 0.03, length: 0.1}\n"
    "    mass: 0.2\n"
    "    position: [-0.2, 0.2, 0.2]\n"
    "output:\n"
    "  every: 5\n";

class RunDir {
 public:
  explicit RunDir(const std::string& tag) {
    path_ = fs::temp_directory_path() /
            ("replay_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~RunDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs `scene` into `dir` as `sapsim run` does: trajectory.csv (and
// contacts.csv), the recorder's poses and replay_scene.json.
SimulationSummary RunWithReplayFiles(const Scene& scene, const fs::path& dir,
                                     bool contacts) {
  SimulationOptions options;
  options.output_dir = dir.string();
  options.write_contacts = contacts;
  ReplayPoseRecorder poses(scene, dir.string());
  options.on_step = [&](const TimeStepper& s, const StepInfo&) {
    poses.Record(s);
  };
  const SimulationSummary summary = RunSimulation(scene, options);
  poses.Commit();
  WriteReplayScene(scene, dir.string());
  return summary;
}

Scene LoadText(const RunDir& dir, const std::string& text,
               const std::vector<std::string>& overrides = {}) {
  const fs::path file = dir.path() / "scene.yaml";
  std::ofstream(file) << text;
  return LoadScene(file.string(), overrides);
}

// Every "time" of a CSV file, in order, without repeats.
std::vector<double> Times(const fs::path& path) {
  CsvReader csv(path);
  const int t = csv.Column("time");
  std::vector<double> times;
  while (csv.Next()) {
    if (times.empty() || csv.Number(t) != times.back()) {
      times.push_back(csv.Number(t));
    }
  }
  return times;
}

// replay_scene.json: every body with its shape's dimensions, fixed flag,
// source of motion and initial pose, in scene order.
TEST(ReplayScene, ListsEveryBodysShapeMotionAndInitialPose) {
  const RunDir dir("scene");
  const Scene scene = LoadText(dir, kBodiesScene);
  const Json j = Json::parse(ReplaySceneJson(scene));
  EXPECT_EQ(j["format"], "sapcontact replay scene");
  EXPECT_EQ(j["version"], 1);
  EXPECT_DOUBLE_EQ(j["time_step"].get<double>(), 1e-3);
  EXPECT_EQ(j["output_every"], 5);
  const Json& o = j["objects"];
  ASSERT_EQ(o.size(), scene.bodies.size());
  const char* names[] = {"ground", "wall", "belt", "box", "ball", "pill"};
  const char* shapes[] = {"plane", "box", "box", "box", "sphere", "capsule"};
  const char* motions[] = {"static",     "static",     "poses",
                           "trajectory", "trajectory", "trajectory"};
  for (size_t i = 0; i < o.size(); ++i) {
    EXPECT_EQ(o[i]["name"], names[i]);
    EXPECT_EQ(o[i]["shape"], shapes[i]);
    EXPECT_EQ(o[i]["motion"], motions[i]);
    EXPECT_EQ(o[i]["fixed"].get<bool>(), i < 3);
    EXPECT_EQ(o[i]["kind"], "body");
    const Pose& p = scene.bodies[i].pose;
    const std::vector<double> pose = o[i]["pose"];
    ASSERT_EQ(pose.size(), 7u);
    EXPECT_DOUBLE_EQ(pose[0], p.position.x());
    EXPECT_DOUBLE_EQ(pose[2], p.position.z());
    EXPECT_DOUBLE_EQ(pose[3], p.orientation.w());
    EXPECT_DOUBLE_EQ(pose[6], p.orientation.z());
  }
  EXPECT_EQ(o[3]["size"], Json({0.1, 0.2, 0.3}));
  EXPECT_DOUBLE_EQ(o[4]["radius"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(o[5]["radius"].get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(o[5]["length"].get<double>(), 0.1);
}

// replay_poses.csv holds the prescribed belt at every output time
// (including t = 0) at x0 + v t; trajectory.csv holds the free bodies.
TEST(ReplayPoses, PrescribedBodyMovesAtItsVelocityAtTheTrajectorysTimes) {
  const RunDir dir("belt");
  const Scene scene = LoadText(dir, kBodiesScene);
  RunWithReplayFiles(scene, dir.path(), false);
  const std::vector<double> frames = Times(dir.path() / "trajectory.csv");
  ASSERT_EQ(frames.size(), 200u / 5 + 1);
  CsvReader csv(dir.path() / kReplayPosesFile);
  const int t = csv.Column("time"), name = csv.Column("name"),
            x = csv.Column("x"), z = csv.Column("z"), qw = csv.Column("qw");
  size_t rows = 0;
  while (csv.Next()) {
    ASSERT_LT(rows, frames.size());
    EXPECT_EQ(csv.Text(name), "belt");
    EXPECT_NEAR(csv.Number(t), frames[rows], 1e-12);
    EXPECT_NEAR(csv.Number(x), -0.5 + 0.2 * frames[rows], 1e-9);
    EXPECT_NEAR(csv.Number(z), 0.01, 1e-12);
    EXPECT_NEAR(csv.Number(qw), 1.0, 1e-12);
    ++rows;
  }
  EXPECT_EQ(rows, frames.size());
}

// A robot's moving link: replay_poses.csv holds the link frame of the
// pendulum's bob (at the pivot, turned by Ry(q)); its ball, (0, 0, -0.5) in
// the link frame (replay_scene.json's pose_in_link), lands at
// pivot + Ry(q) (0, 0, -0.5) with q from joints.csv at the same time.
TEST(ReplayPoses, RobotLinkFrameFollowsItsJoint) {
  const RunDir dir("pendulum");
  const Scene scene =
      scene_tests::LoadShippedScene("pendulum", {"duration=0.3"});
  RunWithReplayFiles(scene, dir.path(), false);
  std::map<double, double> q;
  {
    CsvReader joints(dir.path() / "joints.csv");
    const int t = joints.Column("time"), p = joints.Column("position");
    while (joints.Next()) q[joints.Number(t)] = joints.Number(p);
  }
  ASSERT_EQ(q.size(), 300u / 10 + 1);
  const Json j = Json::parse(ReadText(dir.path() / kReplaySceneFile));
  const Json& bob = j["objects"][1];
  EXPECT_EQ(bob["kind"], "link");
  EXPECT_EQ(bob["motion"], "poses");
  EXPECT_DOUBLE_EQ(bob["radius"].get<double>(), 0.02);
  EXPECT_EQ(j["links"][bob["link"].get<int>()]["name"], "pendulum/bob");
  EXPECT_EQ(j["links"][0]["motion"], "static");  // the base
  const std::vector<double> in_link = bob["pose_in_link"];
  EXPECT_EQ(in_link, std::vector<double>({0, 0, -0.5, 1, 0, 0, 0}));
  CsvReader csv(dir.path() / kReplayPosesFile);
  const int t = csv.Column("time"), name = csv.Column("name");
  int c[7];
  const char* fields[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  for (int i = 0; i < 7; ++i) c[i] = csv.Column(fields[i]);
  size_t rows = 0;
  double swing = 0;
  while (csv.Next()) {
    ++rows;
    EXPECT_EQ(csv.Text(name), "pendulum/bob");
    const double angle = q.at(csv.Number(t));
    const Vector3 pivot(csv.Number(c[0]), csv.Number(c[1]), csv.Number(c[2]));
    const Eigen::Quaterniond R(csv.Number(c[3]), csv.Number(c[4]),
                               csv.Number(c[5]), csv.Number(c[6]));
    EXPECT_NEAR((pivot - Vector3(0, 0, 1)).norm(), 0.0, 1e-12);
    const Vector3 ball = pivot + R * Vector3(0, 0, -0.5);
    EXPECT_NEAR(ball.x(), -0.5 * std::sin(angle), 1e-8) << csv.Where();
    EXPECT_NEAR(ball.y(), 0.0, 1e-12);
    EXPECT_NEAR(ball.z(), 1.0 - 0.5 * std::cos(angle), 1e-8);
    swing = std::max(swing, std::abs(angle - 0.1));
  }
  EXPECT_EQ(rows, q.size());
  EXPECT_GT(swing, 0.05);  // it swings (period 1.4 s, from q = 0.1)
}

// The page's data: one track per moving object with the poses of
// trajectory.csv and replay_poses.csv at every frame (rounded to 5
// significant digits of the scene's extent, 4 decimals of the quaternion),
// static objects with their pose, and per frame the contacts of
// contacts.csv with impulse = impulse_n n + impulse_t.
TEST(ReplayPage, HoldsTheRunsPosesAndContactsFrameByFrame) {
  const RunDir dir("page");
  const Scene scene = LoadText(dir, kBodiesScene);
  RunWithReplayFiles(scene, dir.path(), true);
  const ReplayPageInfo info = WriteReplayPage(dir.path().string());
  EXPECT_EQ(info.path, (dir.path() / kReplayPageFile).string());
  EXPECT_EQ(info.bytes,
            static_cast<long>(fs::file_size(dir.path() / kReplayPageFile)));
  EXPECT_EQ(info.objects, 6);
  EXPECT_EQ(info.frames_in_run, 41);
  EXPECT_EQ(info.frames, 41);
  EXPECT_TRUE(info.has_contacts);

  const Json data = PageData(dir.path() / kReplayPageFile);
  const std::vector<double> times = data["t"];
  ASSERT_EQ(times.size(), 41u);
  // Free bodies: poses of trajectory.csv at every frame.
  std::map<std::string, int> track;
  for (const Json& o : data["objects"]) track[o["n"]] = o["k"];
  EXPECT_EQ(track["ground"], -1);
  EXPECT_EQ(track["wall"], -1);
  EXPECT_GE(track["belt"], 0);
  CsvReader traj(dir.path() / "trajectory.csv");
  const int t = traj.Column("time"), body = traj.Column("body");
  const int first = traj.Column("x");
  int checked = 0;
  for (int f = -1; traj.Next();) {
    if (f < 0 || traj.Number(t) != times[f]) ++f;
    ASSERT_LT(f, 41);
    EXPECT_NEAR(times[f], traj.Number(t), 1e-9);
    const std::vector<double>& pose =
        data["tracks"][track.at(traj.Text(body))].get<std::vector<double>>();
    for (int i = 0; i < 7; ++i) {
      // Extent ~0.6 m: positions to 1e-5 m; quaternions to 1e-4.
      EXPECT_NEAR(pose[7 * f + i], traj.Number(first + i), i < 3 ? 6e-6 : 6e-5)
          << traj.Where() << " component " << i;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 41 * 3);
  // The belt (replay_poses.csv) at its prescribed x.
  const std::vector<double> belt = data["tracks"][track["belt"]];
  for (size_t f = 0; f < times.size(); ++f) {
    EXPECT_NEAR(belt[7 * f], -0.5 + 0.2 * times[f], 6e-6);
  }
  // Contacts: the count per frame and the impulse vectors of contacts.csv.
  const std::vector<long> offsets = data["contacts"]["offsets"];
  const std::vector<double> values = data["contacts"]["values"];
  ASSERT_EQ(offsets.size(), 42u);
  EXPECT_EQ(offsets.back(), info.contacts);
  EXPECT_EQ(values.size(), static_cast<size_t>(6 * info.contacts));
  CsvReader contacts(dir.path() / "contacts.csv");
  std::map<double, std::vector<std::vector<double>>> rows;
  const int ct = contacts.Column("time");
  const char* cols[] = {"x",          "y",         "z",         "nx",
                        "ny",         "nz",        "impulse_n", "impulse_tx",
                        "impulse_ty", "impulse_tz"};
  while (contacts.Next()) {
    std::vector<double> r;
    for (const char* c : cols) r.push_back(contacts.Number(contacts.Column(c)));
    rows[contacts.Number(ct)].push_back(r);
  }
  long with_contacts = 0;
  for (size_t f = 0; f < times.size(); ++f) {
    const auto it = rows.find(times[f]);
    const size_t n = it == rows.end() ? 0 : it->second.size();
    ASSERT_EQ(static_cast<size_t>(offsets[f + 1] - offsets[f]), n)
        << "frame " << f;
    with_contacts += n > 0;
    for (size_t k = 0; k < n; ++k) {
      const std::vector<double>& r = it->second[k];
      const double* v = &values[6 * (offsets[f] + k)];
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(v[i], r[i], 6e-6);
        const double impulse = r[6] * r[3 + i] + r[7 + i];
        // Impulses to 3 significant digits (arrows need no more).
        EXPECT_NEAR(v[3 + i], impulse, 5e-3 * std::abs(impulse) + 1e-12);
      }
    }
  }
  EXPECT_GT(with_contacts, 20);
}

// Limits: frames thinned evenly (first and last kept), contacts per frame
// cut to the largest impulses; names cannot end the page's script.
TEST(ReplayPage, ThinsFramesAndContactsAndEscapesNames) {
  const RunDir dir("thin");
  std::string text = kBodiesScene;
  text.replace(text.find("name: ball"), 10, "name: </script><b>");
  const Scene scene = LoadText(dir, text, {"output.every=1"});
  RunWithReplayFiles(scene, dir.path(), true);
  ReplayPageOptions options;
  options.max_frames = 10;
  options.max_contacts = 10;  // 1 per frame
  const ReplayPageInfo info = WriteReplayPage(dir.path().string(), options);
  EXPECT_EQ(info.frames_in_run, 201);
  EXPECT_EQ(info.frames, 10);
  EXPECT_LE(info.contacts, 10);
  EXPECT_GT(info.contacts_dropped, 0);
  const std::string html = ReadText(dir.path() / kReplayPageFile);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
  const Json data = PageData(dir.path() / kReplayPageFile);
  const std::vector<double> times = data["t"];
  ASSERT_EQ(times.size(), 10u);
  EXPECT_DOUBLE_EQ(times.front(), 0.0);
  EXPECT_NEAR(times.back(), 0.2, 1e-12);
  for (size_t f = 1; f < times.size(); ++f) {
    EXPECT_NEAR(times[f] - times[f - 1], 0.2 / 9, 1.1e-3);  // even, +-1 step
  }
  bool named = false;
  for (const Json& o : data["objects"]) named |= o["n"] == "</script><b>";
  EXPECT_TRUE(named);
  // Each frame keeps its largest impulse (of contacts.csv at that time).
  const std::vector<long> offsets = data["contacts"]["offsets"];
  const std::vector<double> values = data["contacts"]["values"];
  CsvReader contacts(dir.path() / "contacts.csv");
  std::map<double, std::vector<double>> magnitudes;
  const int ct = contacts.Column("time"), n = contacts.Column("impulse_n"),
            tx = contacts.Column("impulse_tx"),
            ty = contacts.Column("impulse_ty"),
            tz = contacts.Column("impulse_tz");
  while (contacts.Next()) {
    const double nn = contacts.Number(n), a = contacts.Number(tx),
                 b = contacts.Number(ty), c = contacts.Number(tz);
    magnitudes[contacts.Number(ct)].push_back(
        std::sqrt(nn * nn + a * a + b * b + c * c));
  }
  for (size_t f = 0; f < times.size(); ++f) {
    std::vector<double> all = magnitudes[times[f]];
    std::sort(all.rbegin(), all.rend());
    const long shown = offsets[f + 1] - offsets[f];
    ASSERT_EQ(shown, std::min<long>(1, static_cast<long>(all.size())));
    for (long k = 0; k < shown; ++k) {
      const double* v = &values[6 * (offsets[f] + k)];
      const double m = std::sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
      EXPECT_GE(m, all[shown - 1] * (1 - 2e-3)) << "frame " << f;
    }
  }
}

// Errors name the directory or the file, line and field.
TEST(ReplayPage, DamagedRunDirectoriesAreErrorsNamingTheFileLineAndField) {
  const RunDir dir("errors");
  auto message = [&](const ReplayPageOptions& options = {}) -> std::string {
    try {
      WriteReplayPage(dir.path().string(), options);
    } catch (const ReplayError& e) {
      return e.what();
    }
    return "no error";
  };
  auto contains = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(contains(message(), "no trajectory.csv")) << message();
  const Scene scene = LoadText(dir, kBodiesScene);
  RunWithReplayFiles(scene, dir.path(), true);
  const fs::path traj = dir.path() / "trajectory.csv";
  const std::string good = ReadText(traj);

  fs::rename(dir.path() / kReplaySceneFile, dir.path() / "moved.json");
  EXPECT_TRUE(contains(message(), "replay_scene.json: missing")) << message();
  fs::rename(dir.path() / "moved.json", dir.path() / kReplaySceneFile);

  ReplayPageOptions no_three;
  no_three.three_js_path = (dir.path() / "none.js").string();
  EXPECT_TRUE(contains(message(no_three), "libjs-three")) << message(no_three);

  // Line 3 (the second data row): a field that is not a number.
  std::string bad = good;
  size_t line3 = bad.find('\n', bad.find('\n') + 1) + 1;
  bad.replace(bad.find(',', bad.find(',', line3) + 1) + 1, 1, "x");
  std::ofstream(traj) << bad;
  EXPECT_TRUE(contains(message(), "trajectory.csv:3: field 'x': 'x"))
      << message();

  bad = good;
  bad.replace(bad.find("box"), 3, "bux");
  std::ofstream(traj) << bad;
  EXPECT_TRUE(contains(message(), "field 'body': 'bux' is not a moving object"))
      << message();
  std::ofstream(traj) << good;

  const fs::path scene_json = dir.path() / kReplaySceneFile;
  std::string json = ReadText(scene_json);
  std::ofstream(scene_json)
      << std::string(json).replace(json.find("\"sphere\""), 8, "\"cone\"");
  EXPECT_TRUE(contains(message(), "objects[4].shape: 'cone' is not one of"))
      << message();
  std::ofstream(scene_json) << json;

  const fs::path contacts = dir.path() / "contacts.csv";
  std::ofstream(contacts, std::ios::app) << "0.5,ground,box,1,2\n";
  EXPECT_TRUE(contains(message(), "contacts.csv:")) << message();
  EXPECT_TRUE(contains(message(), "5 fields, the header has 15")) << message();
  fs::remove(contacts);
  // Without contacts.csv the page has none; everything else is there.
  const ReplayPageInfo info = WriteReplayPage(dir.path().string());
  EXPECT_FALSE(info.has_contacts);
  EXPECT_EQ(info.frames, 41);
  EXPECT_THROW(WriteReplayPage((dir.path() / "nothing").string()), ReplayError);
}

}  // namespace
}  // namespace sapcontact
