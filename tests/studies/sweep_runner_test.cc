// Running sweeps (studies/sweep_runner.h), their tables
// (studies/sweep_table.h), sharding and merging, study files
// (studies/sweep_study.h) and plots (studies/sweep_plot.h).
#include "sapcontact/studies/sweep_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sapcontact/studies/sweep_plot.h"
#include "sapcontact/studies/sweep_processes.h"
#include "sapcontact/studies/sweep_study.h"
#include "sapcontact/studies/sweep_table.h"
#include "tests/studies/sweep_test_util.h"

namespace sapcontact {
namespace {

using sweep_testing::IsTiming;
using sweep_testing::ScenePath;
using sweep_testing::SmallAxes;
using sweep_testing::SmallOptions;
using sweep_testing::StudyPath;
using sweep_testing::TempDir;

// What RunSweep throws for a short sweep of a shipped scene recording
// `metric` (metric names are checked before any run starts).
std::string MetricError(const std::string& scene, const std::string& metric) {
  SweepOptions o;
  o.fixed_overrides = {"duration=0.01"};
  o.metrics.metrics = {metric};
  try {
    RunSweep(ScenePath(scene), {ParseSweepAxis("time_step=1e-3")}, o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepRunnerTest, UnionOfShardsEqualsTheUnshardedSweepRowForRow) {
  const std::vector<SweepAxis> axes = SmallAxes();
  const SweepOptions options = SmallOptions();
  const std::vector<SweepRow> all =
      RunSweep(ScenePath("box_rest"), axes, options);
  ASSERT_EQ(all.size(), 8u);
  const SweepTable full = MakeSweepTable(axes, options.metrics.metrics, all);
  std::vector<SweepTable> shards;
  std::vector<std::string> names;
  // The whole sweep ran in child processes (the default), the shards run
  // in threads: both paths give the same rows.
  for (int i = 0; i < 3; ++i) {
    SweepOptions o = options;
    o.shard = SweepShard{i, 3};
    o.jobs = 2;
    o.workers = SweepWorkers::kThreads;
    const std::vector<SweepRow> rows = RunSweep(ScenePath("box_rest"), axes, o);
    for (const SweepRow& r : rows) EXPECT_EQ(r.index % 3, i);
    // Through the CSV files, as sweep-merge does.
    const std::string dir = TempDir("shard" + std::to_string(i));
    WriteSweepCsv(MakeSweepTable(axes, o.metrics.metrics, rows),
                  dir + "/sweep.csv");
    names.push_back(dir + "/sweep.csv");
    shards.push_back(ReadSweepCsv(names.back()));
  }
  const SweepTable merged = MergeSweepTables(shards, names);
  EXPECT_TRUE(MissingIndices(merged, 8).empty());
  ASSERT_EQ(merged.columns, full.columns);
  ASSERT_EQ(merged.rows.size(), full.rows.size());
  int compared = 0;
  for (size_t r = 0; r < full.rows.size(); ++r) {
    EXPECT_EQ(full.rows[r][full.Column("status")], "ok");
    for (size_t c = 0; c < full.columns.size(); ++c) {
      if (IsTiming(full.columns[c])) continue;
      EXPECT_EQ(merged.rows[r][c], full.rows[r][c])
          << "row " << r << " column " << full.columns[c];
      ++compared;
    }
  }
  EXPECT_GT(compared, 8 * 30);
  // The varied values are in their own columns, the rows in index order.
  EXPECT_EQ(full.rows[5][full.Column("time_step")], "0.005");
  EXPECT_EQ(full.rows[5][full.Column("materials.default.stiffness")], ".inf");
  // A shard merged twice is an error naming both files.
  try {
    MergeSweepTables({shards[0], shards[0]}, {names[0], "again.csv"});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("again.csv"), std::string::npos);
  }
  EXPECT_EQ(MissingIndices(shards[1], 8), (std::vector<int>{0, 2, 3, 5, 6}));
}

TEST(SweepRunnerTest, AFailingRunIsARowWithItsError) {
  const std::vector<SweepAxis> axes = {ParseSweepAxis("time_step=1e-3,-1")};
  SweepOptions options = SmallOptions();
  options.fixed_overrides = {"duration=0.01"};
  const std::vector<SweepRow> rows =
      RunSweep(ScenePath("box_rest"), axes, options);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, SweepRunStatus::kOk);
  EXPECT_EQ(rows[1].status, SweepRunStatus::kError);
  EXPECT_NE(rows[1].error.find("time_step"), std::string::npos)
      << rows[1].error;
  const SweepTable t = MakeSweepTable(axes, options.metrics.metrics, rows);
  EXPECT_EQ(t.rows[1][t.Column("status")], "error");
  EXPECT_EQ(t.rows[1][t.Column("resting_penetration_m")], "");
  EXPECT_NE(t.rows[0][t.Column("resting_penetration_m")], "");
  EXPECT_THROW(RunSweep(ScenePath("box_rest"), axes,
                        [] {
                          SweepOptions o;
                          o.metrics.metrics = {"bogus"};
                          return o;
                        }()),
               std::invalid_argument);
}

// Per-body metrics: the final position and velocity of a named body, as
// sweep.csv columns. box_slide's box, launched at 1 m/s, stops after
// v^2 / (2 mu g) and rests there at its half height.
TEST(SweepRunnerTest, BodyMetricsAreTheBodysFinalState) {
  const std::vector<SweepAxis> axes = {
      ParseSweepAxis("materials.default.friction=0.25,0.5")};
  SweepOptions options;
  options.fixed_overrides = {"duration=0.6"};
  options.metrics.metrics = {"body.box.position", "body.box.velocity.x"};
  options.jobs = 2;
  const std::vector<SweepRow> rows =
      RunSweep(ScenePath("box_slide"), axes, options);
  ASSERT_EQ(rows.size(), 2u);
  const SweepTable t = MakeSweepTable(axes, options.metrics.metrics, rows);
  for (const char* column : {"body.box.position.x", "body.box.position.y",
                             "body.box.position.z", "body.box.velocity.x"}) {
    EXPECT_GE(t.Column(column), 0) << column;
  }
  EXPECT_LT(t.Column("body.box.position"), 0);
  EXPECT_LT(t.Column("body.box.velocity.y"), 0);
  const double mus[] = {0.25, 0.5};
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(t.rows[r][t.Column("status")], "ok") << rows[r].error;
    const double x = std::stod(t.rows[r][t.Column("body.box.position.x")]);
    const double stop = 1.0 / (2 * mus[r] * 9.81);
    EXPECT_NEAR(x, stop, 0.02 * stop) << "mu " << mus[r];
    EXPECT_NEAR(std::stod(t.rows[r][t.Column("body.box.position.y")]), 0.0,
                1e-9);
    EXPECT_NEAR(std::stod(t.rows[r][t.Column("body.box.position.z")]), 0.1,
                1e-3);
    EXPECT_NEAR(std::stod(t.rows[r][t.Column("body.box.velocity.x")]), 0.0,
                1e-3);
  }
  // The units label the plots' axes.
  EXPECT_EQ(MetricUnit("body.box.position.x"), "m");
  EXPECT_EQ(MetricUnit("body.box.velocity"), "m/s");
}

// A body metric of a body the scene does not have lists its bodies,
// nearest first; an unknown metric lists the known ones.
// Varying a robot's PD gain (robots.arm.actuation.joint2.kp, the key
// --set uses) and reading the joint's final state: at rest the PD effort
// balances gravity, u = kp (target - q) - kd v = tau_g(q), so the steady
// error (target - q) falls as 1 / kp while the effort stays the gravity
// torque (which moves only with the small change of pose).
TEST(SweepRunnerTest, RobotGainsVaryAndJointMetricsGiveThePdSteadyState) {
  const std::vector<SweepAxis> axes = {
      ParseSweepAxis("robots.arm.actuation.joint2.kp=1000,2000,4000,8000")};
  SweepOptions options;
  options.fixed_overrides = {"duration=2"};
  options.metrics.metrics = {"joint.arm.joint2.position",
                             "joint.arm.joint2.velocity",
                             "joint.arm.joint2.effort", "max_penetration_m"};
  options.jobs = 2;
  const std::vector<SweepRow> rows =
      RunSweep(ScenePath("arm_hold"), axes, options);
  ASSERT_EQ(rows.size(), 4u);
  const SweepTable t = MakeSweepTable(axes, options.metrics.metrics, rows);
  const double target = 0.9, kd = 150.0;  // config/scenes/arm_hold.yaml
  double effort0 = 0, error0 = 0;
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(t.rows[r][t.Column("status")], "ok") << rows[r].error;
    const double kp = 1000.0 * (1 << r);
    const double q =
        std::stod(t.rows[r][t.Column("joint.arm.joint2.position")]);
    const double v =
        std::stod(t.rows[r][t.Column("joint.arm.joint2.velocity")]);
    const double u = std::stod(t.rows[r][t.Column("joint.arm.joint2.effort")]);
    EXPECT_LT(std::abs(v), 1e-6) << "kp " << kp << ": not at rest";
    // The effort is the PD law's at the final state (the effort of the
    // last step, evaluated at its end: implicit PD).
    EXPECT_NEAR(u, kp * (target - q) - kd * v, 1e-6 * std::abs(u)) << kp;
    if (r == 0) {
      effort0 = u;
      error0 = target - q;
      EXPECT_LT(u, -40.0);  // gravity pulls joint2 down: tens of N m
      continue;
    }
    EXPECT_NEAR(u, effort0, 0.02 * std::abs(effort0)) << kp;
    EXPECT_NEAR((target - q) * (1 << r), error0, 0.02 * std::abs(error0)) << kp;
  }
  EXPECT_EQ(MetricUnit("joint.arm.joint2.effort"), "N m or N");
  // Joint metrics name what is missing.
  auto message = [](const std::string& metric) {
    return MetricError("arm_hold", metric);
  };
  EXPECT_EQ(message("joint.arm.joint9.position"),
            "metric 'joint.arm.joint9.position': robot 'arm' has no moving "
            "joint 'joint9' (joints, nearest first: joint1, joint2, joint3, "
            "joint4, joint5, joint6, joint7)");
  EXPECT_EQ(
      message("joint.arms.joint2.position")
          .rfind("metric 'joint.arms.joint2.position': no robot 'arms' in the "
                 "scene (robots, nearest first: arm)",
                 0),
      0u);
  EXPECT_NE(message("joint.arm.position").find("not a joint metric"),
            std::string::npos);
}

// Robots touching bodies: the metrics follow contacts on robot links (the
// contact velocity from the robot's joint velocities).
TEST(SweepRunnerTest, MetricsOfRobotScenesFollowTheirContacts) {
  const std::vector<SweepAxis> axes = {
      ParseSweepAxis("materials.default.friction=0.3,0.6")};
  SweepOptions options;
  options.metrics.metrics = {"body.box_a.position", "stiction_slip_speed_mps",
                             "max_penetration_m"};
  const std::vector<SweepRow> rows =
      RunSweep(ScenePath("arm_push"), axes, options);
  ASSERT_EQ(rows.size(), 2u);
  const SweepTable t = MakeSweepTable(axes, options.metrics.metrics, rows);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(t.rows[r][t.Column("status")], "ok") << rows[r].error;
    // box_a starts on the arc at -0.35 rad and is pushed along it.
    EXPECT_GT(std::stod(t.rows[r][t.Column("max_penetration_m")]), 0.0);
    EXPECT_LT(std::stod(t.rows[r][t.Column("max_penetration_m")]), 1e-3);
  }
}

TEST(SweepRunnerTest, BadMetricNamesListWhatThereIs) {
  auto message = [](const std::string& metric) {
    return MetricError("arm_push", metric);
  };
  EXPECT_EQ(message("body.box_d.position"),
            "metric 'body.box_d.position': no body 'box_d' in the scene "
            "(bodies, nearest first: box_a, box_b, box_c, ground)");
  EXPECT_EQ(message("body.pusher.velocity"),
            "metric 'body.pusher.velocity': no body 'pusher' in the scene "
            "('pusher' is a robot: body metrics are of the scene's bodies) "
            "(bodies, nearest first: ground, box_a, box_b, box_c)");
  const std::string unknown = message("penetration");
  EXPECT_EQ(unknown.rfind("metric 'penetration': unknown metric (known: "
                          "max_penetration_m, ",
                          0),
            0u)
      << unknown;
  EXPECT_NE(unknown.find("body.NAME.position, body.NAME.velocity"),
            std::string::npos);
}

TEST(SweepProcessesTest, ACrashingTaskIsAFailureNotTheEnd) {
  std::vector<std::string> outputs(4), failures(4);
  int calls = 0;
  RunInChildProcesses(
      4, 2,
      [](int i) -> std::string {
        if (i == 1) std::abort();
        if (i == 2) throw std::runtime_error("bad point");
        return std::string(100000, 'a' + i);  // more than a pipe buffer
      },
      [&](int i, const std::string& out, const std::string& failure) {
        ++calls;
        outputs[i] = out;
        failures[i] = failure;
      });
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(outputs[0], std::string(100000, 'a'));
  EXPECT_EQ(outputs[3], std::string(100000, 'd'));
  EXPECT_TRUE(failures[0].empty());
  EXPECT_NE(failures[1].find("killed by signal"), std::string::npos)
      << failures[1];
  EXPECT_EQ(failures[2], "task threw: bad point");
}

TEST(SweepRowTest, SerializationIsExact) {
  SweepRow r;
  r.index = 7;
  r.values = {"1e-3", "[0,0,-9.81]"};
  r.status = SweepRunStatus::kFailedSteps;
  r.error = "step 3: \"quoted\", comma";
  r.summary = {{"steps", "100"}, {"scene", "a b"}};
  r.metrics = {{"x", 0.1 + 0.2}, {"y", NAN}, {"z", -INFINITY}};
  r.estimates = {{"e", 1.0 / 3.0}};
  const SweepRow b = DeserializeSweepRow(SerializeSweepRow(r));
  EXPECT_EQ(b.index, 7);
  EXPECT_EQ(b.values, r.values);
  EXPECT_EQ(b.status, r.status);
  EXPECT_EQ(b.error, r.error);
  EXPECT_EQ(b.summary, r.summary);
  ASSERT_EQ(b.metrics.size(), 3u);
  EXPECT_EQ(b.metrics[0].value, 0.1 + 0.2);
  EXPECT_TRUE(std::isnan(b.metrics[1].value));
  EXPECT_EQ(b.metrics[2].value, -INFINITY);
  EXPECT_EQ(b.estimates[0].value, 1.0 / 3.0);
  EXPECT_THROW(DeserializeSweepRow("{"), std::runtime_error);
}

TEST(SweepTableTest, CsvRoundTripQuotesCommasQuotesAndNewlines) {
  SweepTable t;
  t.columns = {"index", "gravity", "error"};
  t.rows = {{"0", "[0,0,-9.81]", "bad \"value\", line\nnext"},
            {"1", "", "plain"}};
  const std::string path = TempDir("csv") + "/t.csv";
  WriteSweepCsv(t, path);
  const SweepTable back = ReadSweepCsv(path);
  EXPECT_EQ(back.columns, t.columns);
  EXPECT_EQ(back.rows, t.rows);
  std::ofstream(path) << "a,b\n1,2,3\n";
  EXPECT_THROW(ReadSweepCsv(path), std::runtime_error);
  std::ofstream(path) << "a,b\n\"1,2\n";
  EXPECT_THROW(ReadSweepCsv(path), std::runtime_error);
}

TEST(SweepStudyTest, ShippedStudiesLoadAndBadOnesAreNamed) {
  for (const char* name : {"near_rigid_penetration", "stiffness_to_rigid",
                           "stiction_slip", "gliding", "rigid_limit"}) {
    const SweepStudy s = LoadSweepStudy(StudyPath(name));
    EXPECT_EQ(s.name, name);
    EXPECT_TRUE(std::filesystem::exists(s.scene)) << s.scene;
    EXPECT_FALSE(s.vary.empty());
    EXPECT_FALSE(s.plots.empty());
    // The record (sweep.json) reads back as the same study.
    const SweepStudy again = ParseSweepStudy(
        SweepStudyToJson(s, 7, SweepShard{1, 3}), "sweep.json", "/");
    EXPECT_EQ(again.scene, std::filesystem::absolute(s.scene).string());
    EXPECT_EQ(again.set, s.set);
    ASSERT_EQ(again.vary.size(), s.vary.size());
    EXPECT_EQ(again.vary[0].values, s.vary[0].values);
    ASSERT_EQ(again.plots.size(), s.plots.size());
    EXPECT_EQ(again.plots[0].estimates.size(), s.plots[0].estimates.size());
  }
  struct Case {
    std::string yaml, expected;
  };
  const std::vector<Case> cases = {
      {"vary: [a=1]", "scene: missing"},
      {"scene: x.yaml\nvary: [a=1:2]", "vary[0]: --vary 'a=1:2'"},
      {"scene: x.yaml\nmetrics: [bogus]",
       "metrics[0]: 'bogus': unknown metric (known: max_penetration_m, "},
      {"scene: x.yaml\nmetrics: [body.box.speed]",
       "metrics[0]: 'body.box.speed': not a body metric: body.NAME.position "
       "or body.NAME.velocity"},
      {"scene: x.yaml\ncolour: red", "colour: unknown key"},
      {"scene: x.yaml\nplots: [{file: a.png, x: t}]", "plots[0].y: missing"},
      {"scene: x.yaml\nplots: [{file: a.svg, x: t, y: u}]",
       "plots[0].file: must be a file name ending in .png"},
      {"scene: x.yaml\nwindow_fraction: 2", "window_fraction: must be in"},
  };
  for (const Case& c : cases) {
    try {
      ParseSweepStudy(c.yaml, "s.yaml", "/tmp");
      ADD_FAILURE() << c.yaml;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("s.yaml: " + c.expected),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(SweepPlotTest, WritesScriptDataAndPngs) {
  SweepTable t;
  t.columns = {"index", "time_step", "beta", "status", "y", "estimate_y"};
  t.rows = {{"0", "0.001", "1", "ok", "1e-6", "1.1e-6"},
            {"1", "0.01", "1", "ok", "1e-4", "1.1e-4"},
            {"2", "0.1", "1", "failed_steps", "1e-2", "1.1e-2"},
            {"3", "0.001", "0.1", "error", "", ""},
            {"4", "0.01", "0.1", "ok", "", ""}};
  PlotSpec p;
  p.file = "y.png";
  p.x = "time_step";
  p.y = "y";
  p.series = {"beta"};
  p.estimates = {{"estimate_y", "estimate"}};
  PlotSpec bad = p;
  bad.x = "no_such_column";
  const std::string dir = TempDir("plots");
  EXPECT_THROW(WritePlots(t, {bad}, dir), std::invalid_argument);
  std::vector<std::string> written;
  const bool have_gnuplot =
      std::system("command -v gnuplot > /dev/null 2>&1") == 0;
  try {
    written = WritePlots(t, {p}, dir);
  } catch (const std::runtime_error& e) {
    EXPECT_FALSE(have_gnuplot) << e.what();
  }
  std::ifstream script(dir + "/plots.gp");
  std::stringstream text;
  text << script.rdbuf();
  const std::string gp = text.str();
  // Both axes span >= 2 decades of positive values: log-log.
  EXPECT_NE(gp.find("set logscale x 10"), std::string::npos);
  EXPECT_NE(gp.find("set logscale y 10"), std::string::npos);
  EXPECT_NE(gp.find("measured, beta = 1"), std::string::npos);
  EXPECT_NE(gp.find("measured (failed steps), beta = 1"), std::string::npos);
  EXPECT_NE(gp.find("estimate, beta = 1"), std::string::npos);
  // beta = 0.1 has no valid point: no series for it.
  EXPECT_EQ(gp.find("beta = 0.1"), std::string::npos);
  if (have_gnuplot) {
    ASSERT_EQ(written.size(), 1u);
    std::ifstream png(written[0], std::ios::binary);
    char magic[4] = {};
    png.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  }
}

}  // namespace
}  // namespace sapcontact
