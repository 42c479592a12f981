// Every bad input found with damaged scenes, overrides,
// command lines and FCLib files, as a regression test. Each exits with
// status 2 and one message naming the file (and line and field for YAML)
// or the option, leaves no outputs, and never hangs or crashes; a run that
// goes numerically bad stops naming the step and the body; no output holds
// nan, inf or null.
#include <gtest/gtest.h>

#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/fclib/fclib_solver.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/fclib/fclib_test_util.h"
#include "tests/sapsim/cli_test_util.h"

namespace sapcontact {
namespace {

using cli_test::CliResult;
using cli_test::RunSapsim;
using cli_test::TempDir;
namespace fs = std::filesystem;

using cli_test::kBoxRestScene;
const char* const kBoxRest = kBoxRestScene;

// The first line of stderr.
std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Status 2, one error message starting "sapsim", nothing on stdout.
void ExpectBadInput(const CliResult& r, const std::string& must_name) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(FirstLine(r.err).rfind("sapsim", 0), 0u) << r.err;
  EXPECT_NE(FirstLine(r.err).find(": error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(must_name), std::string::npos)
      << "'" << must_name << "' not in: " << r.err;
}

void ExpectNoOutputs(const std::string& dir) {
  for (const char* f : {"trajectory.csv", "summary.json",
                        "trajectory.csv.partial", "summary.json.partial"}) {
    EXPECT_FALSE(fs::exists(fs::path(dir) / f)) << dir << "/" << f;
  }
}

// --- Command lines: CLI11's own codes 105, 106, 109, 114 never escape. ----

TEST(CommandLineRegression, ParseErrorsExitWithTwoAndNameTheOption) {
  TempDir dir("cli_parse");
  const std::string scene = dir.Write("box_rest.yaml", kBoxRest);
  struct Case {
    std::vector<std::string> args;
    std::string names;  // what the message must contain
  };
  const std::vector<Case> cases = {
      {{"run", scene, "--bogus"}, "--bogus"},                // was 109
      {{}, "subcommand"},                                    // was 106
      {{"run"}, "scene"},                                    // was 106
      {{"run", scene, "--out"}, "--out"},                    // was 114
      {{"run", scene, "--export-fclib"}, "--export-fclib"},  // was 114
      {{"fclib", "x.hdf5", "--solver", "foo"}, "--solver"},  // was 105
      {{"sweep", scene, "--out"}, "--out"},
      {{"estimate", "--dt", "-1"}, "--dt"},
      {{"estimate", "--mass", "nan"}, "--mass"},
      {{"frobnicate"}, "frobnicate"},
  };
  for (const Case& c : cases) {
    std::string line = "sapsim";
    for (const std::string& a : c.args) line += " " + a;
    SCOPED_TRACE(line);
    const CliResult r = RunSapsim(c.args);
    ExpectBadInput(r, c.names);
    EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(CommandLineRegression, HelpExitsWithZero) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"run", "--help"},
                                             {"fclib", "--help"},
                                             {"sweep", "--help"},
                                             {"estimate", "--help"}}) {
    const CliResult r = RunSapsim(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Usage"), std::string::npos);
  }
}

TEST(CommandLineRegression, FclibExportOfARobotSceneIsAnError) {
  // An FCLib problem holds contacts only: exporting a scene with robots
  // would silently drop their limits and actuation (was: a solver error
  // naming the rigid QP after the run had started).
  TempDir dir("cli_robot_fclib");
  const std::string scene =
      cli_test::SourceDir() + "/config/scenes/gripper.yaml";
  const CliResult r = RunSapsim({"run", scene, "--out", dir.File("o"),
                                 "--export-fclib", dir.File("steps")});
  ExpectBadInput(r, "--export-fclib");
  EXPECT_NE(r.err.find("has robots"), std::string::npos) << r.err;
  ExpectNoOutputs(dir.File("o"));
}

TEST(CommandLineRegression, FclibExportOfAHuntCrossleySceneIsAnError) {
  // FCLib problems are friction-cone problems: a lagged or similar contact's
  // problem is not one (docs/theory.md §18).
  TempDir dir("cli_hc_fclib");
  const std::string scene =
      cli_test::SourceDir() + "/config/scenes/box_slide.yaml";
  const CliResult r = RunSapsim({"run", scene, "--out", dir.File("o"), "--set",
                                 "materials.default.model=lagged",
                                 "--export-fclib", dir.File("steps")});
  ExpectBadInput(r, "--export-fclib");
  EXPECT_NE(r.err.find("lagged contact model"), std::string::npos) << r.err;
  ExpectNoOutputs(dir.File("o"));
}

TEST(CommandLineRegression, EmptyOutputPathIsAnError) {
  TempDir dir("cli_empty_out");
  const std::string scene = dir.Write("box_rest.yaml", kBoxRest);
  // Was: exit 0, nothing written, "Output: /trajectory.csv".
  CliResult r = RunSapsim({"run", scene, "--out", ""});
  ExpectBadInput(r, "--out");
  EXPECT_EQ(r.out, "");
  r = RunSapsim({"run", scene, "--out", dir.File("o"), "--export-fclib", ""});
  ExpectBadInput(r, "--export-fclib");
  ExpectNoOutputs(dir.File("o"));
  r = RunSapsim({"sweep", scene, "--vary", "time_step=1e-3,2e-3", "--out", "",
                 "--no-plots"});
  ExpectBadInput(r, "--out");
  r = RunSapsim({"fclib", "x.hdf5", "--csv", ""});
  ExpectBadInput(r, "--csv");
}

// --- Overrides -----------------------------------------------------------

// `&a0 [x,...]`, `&a1 [*a0,...]`, ... `levels` deep: 9^levels nodes when
// expanded (9 levels took 5.7 GB before the fix).
std::string NestedAliases(int levels) {
  std::string v = "[&a0 [x,x,x,x,x,x,x,x,x]";
  for (int i = 1; i <= levels; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    v += ", &a" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) v += (k ? "," : "") + prev;
    v += "]";
  }
  return v + "]";
}

TEST(OverrideRegression, NestedAliasesAreRejectedBeforeExpansion) {
  TempDir dir("alias");
  const std::string scene = dir.Write("box_rest.yaml", kBoxRest);
  for (int levels : {7, 9, 12}) {
    SCOPED_TRACE(levels);
    const std::string assignment = "gravity=" + NestedAliases(levels);
    const CliResult r =
        RunSapsim({"run", scene, "--out", dir.File("o"), "--set", assignment});
    ExpectBadInput(r, scene);
    EXPECT_NE(r.err.find("alias"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--set gravity="), std::string::npos) << r.err;
    ExpectNoOutputs(dir.File("o"));
  }
  // The same aliases in the scene file: rejected as well.
  const std::string in_file = dir.Write(
      "aliases.yaml",
      std::string(kBoxRest) + "output: {every: " + NestedAliases(9) + "}\n");
  const CliResult r = RunSapsim({"run", in_file, "--out", dir.File("o")});
  ExpectBadInput(r, in_file);
}

TEST(OverrideRegression, OversizedOverridesAreRejected) {
  TempDir dir("big_override");
  const std::string scene = dir.Write("box_rest.yaml", kBoxRest);
  const std::string long_value =
      "bodies.box.material=" +
      std::string(scene_limits::kMaxOverrideLength, 'm');
  CliResult r = RunSapsim({"run", scene, "--set", long_value});
  ExpectBadInput(r, "characters");
  std::vector<std::string> args = {"run", scene};
  for (size_t i = 0; i <= scene_limits::kMaxOverrides; ++i) {
    args.push_back("--set");
    args.push_back("time_step=0.001");
  }
  r = RunSapsim(args);
  ExpectBadInput(r, "overrides");
}

// --- Overflow, step counts, names ------------------------------------------

TEST(ValueRegression, OverflowingValuesAreBadInputWithTheirField) {
  TempDir dir("overflow");
  const std::string scene = dir.Write("box_rest.yaml", kBoxRest);
  struct Case {
    std::string set, field;
  };
  const std::vector<Case> cases = {
      // Was exit 1 with null energies in summary.json.
      {"bodies.box.velocity=[1e154,0,0]", "bodies.box.velocity"},
      // Was exit 0 with energy_initial_J: null.
      {"bodies.box.position=[0,0,1e307]", "bodies.box.position[2]"},
      {"bodies.box.angular_velocity=[0,1e200,0]",
       "bodies.box.angular_velocity"},
      {"gravity=[0,0,-1e300]", "gravity"},
      {"materials.default.stiffness=1e300", "materials.default.stiffness"},
      {"bodies.box.mass=1e-300", "bodies.box.mass"},
      {"bodies.box.shape.size=[1e200,1,1]", "bodies.box.shape.size[0]"},
      // The step count duration / time_step was cast to int unchecked:
      // 2147483.648 s at 1 ms ran 1 step, 1e308 ran 1 step, 1e-12 s with
      // 5 s wrapped to 658,067,456 steps.
      {"duration=2147483.648", "duration"},
      {"duration=1e308", "duration"},
      {"time_step=1e-12", "time_step"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.set);
    const std::string out = dir.File("out");
    std::vector<std::string> args = {"run", scene,   "--out",
                                     out,   "--set", c.set};
    if (c.set == "time_step=1e-12") {
      args.insert(args.end(), {"--set", "duration=5"});
    }
    const CliResult r = RunSapsim(args);
    ExpectBadInput(r, "--set " + c.set);
    EXPECT_NE(r.err.find(c.field + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Limits"), std::string::npos) << r.err;
    ExpectNoOutputs(out);
  }
}

TEST(ValueRegression, LongBodyNamesAreRejectedAndLimitNamesMakeWholeRows) {
  TempDir dir("names");
  // Was: names over ~400 characters cut trajectory.csv rows at 511.
  std::string long_scene = kBoxRest;
  long_scene.replace(long_scene.find("name: box"), 9,
                     "name: " + std::string(500, 'b'));
  const std::string bad = dir.Write("long.yaml", long_scene);
  CliResult r = RunSapsim({"run", bad, "--out", dir.File("o1")});
  ExpectBadInput(r, bad + ":5:");
  EXPECT_NE(r.err.find("bodies[1].name"), std::string::npos) << r.err;
  ExpectNoOutputs(dir.File("o1"));

  // A name at the limit, in a grid (the copies' names are longer): every
  // row is whole.
  std::string at_limit = kBoxRest;
  const std::string name(scene_limits::kMaxNameLength, 'n');
  at_limit.replace(at_limit.find("name: box"), 9, "name: " + name);
  at_limit += "    grid: {count: [2, 1, 1], spacing: [0.3, 0, 0]}\n";
  const std::string good = dir.Write("limit.yaml", at_limit);
  r = RunSapsim(
      {"run", good, "--out", dir.File("o2"), "-q", "--set", "output.every=1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cli_test::TrajectoryProblem(dir.File("o2") + "/trajectory.csv"),
            "");
  EXPECT_EQ(cli_test::JsonProblem(dir.File("o2") + "/summary.json"), "");
  EXPECT_NE(cli_test::ReadFile(dir.File("o2") + "/trajectory.csv")
                .find(name + "_1_0_0,"),
            std::string::npos);
}

// --- Bodies piled at one place -----------------------------------------------

TEST(LimitRegression, CoincidentBodiesAreBadInputBeforeTheMemoryGoes) {
  TempDir dir("coincident");
  // Was: 2000 boxes at one place ran past 60 s at 2.8 GB for 2 steps; 3000
  // ended in "std::bad_alloc" naming neither file nor field.
  for (const char* count : {"[10, 10, 20]", "[10, 10, 30]", "[3, 3, 200]"}) {
    SCOPED_TRACE(count);
    const std::string scene =
        dir.Write("coincident.yaml", std::string(kBoxRest) +
                                         "    grid: {count: " + count +
                                         ", spacing: [0, 0, 0]}\n");
    const CliResult r = RunSapsim({"run", scene, "--out", dir.File("o")});
    ExpectBadInput(r, scene);
    EXPECT_NE(r.err.find("bodies"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("limit"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    ExpectNoOutputs(dir.File("o"));
  }
  // Beyond the body limit: rejected at the grid's line.
  const std::string many = dir.Write(
      "many.yaml", std::string(kBoxRest) +
                       "    grid: {count: [1000, 1000, 1], spacing: [1, 1, "
                       "0]}\n");
  const CliResult r = RunSapsim({"run", many, "--out", dir.File("o")});
  ExpectBadInput(r, many + ":10:");
  EXPECT_NE(r.err.find("bodies.box.grid.count"), std::string::npos) << r.err;
}

TEST(LimitRegression, DeepInitialOverlapWarns) {
  TempDir dir("overlap");
  // Was: a ball inside a box ran without a word.
  const std::string scene = dir.Write(
      "ball_in_box.yaml",
      std::string(kBoxRest) +
          "  - {name: ball, shape: {type: sphere, radius: 0.05}, mass: 1, "
          "position: [0, 0, 0.1]}\n");
  CliResult r = RunSapsim({"run", scene, "--out", dir.File("o")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'box' and 'ball' overlap by 0.15 m"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(scene), std::string::npos) << r.err;
  // Also with --quiet, and counted in summary.json.
  r = RunSapsim({"run", scene, "--out", dir.File("o"), "--quiet"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("sapsim: warning: " + scene +
                            ": bodies 'box' and 'ball' overlap by 0.15 m",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(cli_test::ReadFile(dir.File("o/summary.json"))
                .find("\"bodies 'box' and 'ball' overlap by 0.15 m"),
            std::string::npos);
  // A resting box (touching, not overlapping) does not warn.
  const std::string rest = dir.Write("box_rest.yaml", kBoxRest);
  r = RunSapsim({"run", rest, "--out", dir.File("o")});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
}

// --- Errors while running name the step and the body -------------------------

TEST(RuntimeRegression, NonFiniteStateStopsNamingStepAndBody) {
  const Scene scene = LoadSceneFromString(kBoxRest, "box_rest.yaml");
  const double nan = std::nan("");
  struct Case {
    const char* what;
    Vector3 velocity, angular_velocity;
    const char* mentions;
  };
  // Was: "FindContacts: body 1: non-finite pose" and "contact 0: invalid
  // Delassus estimate w = inf", naming neither step nor body.
  const Case cases[] = {
      {"nan velocity", Vector3(nan, 0, 0), Vector3::Zero(), "motion bound"},
      {"overflowing spin", Vector3::Zero(), Vector3(1e300, 2e300, 0),
       "body 'box'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TimeStepper stepper(scene);
    stepper.Step();
    std::vector<BodyState> state = stepper.state();
    state[1].velocity = c.velocity;
    state[1].angular_velocity = c.angular_velocity;
    stepper.SetState(state);
    try {
      stepper.Step();
      FAIL() << "no SimulationError";
    } catch (const SimulationError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.step(), 2);
      EXPECT_EQ(what.rfind("step 2 (t = 0.001 s to 0.002 s): ", 0), 0u) << what;
      EXPECT_NE(what.find("body 'box'"), std::string::npos) << what;
      EXPECT_NE(what.find(c.mentions), std::string::npos) << what;
    }
  }
  // A non-finite position: collision detection names the body.
  TimeStepper stepper(scene);
  std::vector<BodyState> state = stepper.state();
  state[1].pose.position.x() = nan;
  stepper.SetState(state);
  try {
    stepper.Step();
    FAIL() << "no SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "step 1 (t = 0 s to 0.001 s): collision detection: body "
                  "'box': non-finite pose"),
              std::string::npos)
        << e.what();
  }
}

// --- FCLib -----------------------------------------------------------------

// A copy of the shared Rover1039.hdf5 with byte `offset` XOR `mask`, or ""
// when the shared set is not there.
std::string DamagedRover(const TempDir& dir, long offset, int mask) {
  const std::string shared = fclib_test::SharedFclibDir();
  if (shared.empty()) return "";
  std::string bytes = cli_test::ReadFile(shared + "/problems/Rover1039.hdf5");
  if (bytes.size() != 12888) return "";
  bytes[offset] = static_cast<char>(bytes[offset] ^ mask);
  return dir.Write("Rover1039_" + std::to_string(offset) + ".hdf5", bytes);
}

TEST(FclibRegression, DamagedFileIsARowAndTheBatchGoesOn) {
  TempDir dir("fclib_damaged");
  const std::string shared = fclib_test::SharedFclibDir();
  if (shared.empty()) GTEST_SKIP() << "../shared/fclib not found";
  const std::string good_a = shared + "/problems/Rover4396.hdf5";
  const std::string good_b = shared + "/problems/Rover1039.hdf5";
  // One flipped byte each: 9016 made libfclib print "ERROR: HDF5 call
  // failed" and exit(1) the whole process; 6699 and 8183 fail in HDF5
  // reads (8183 also made HDF5 allocate 4 GB).
  for (long offset : {9016L, 6699L, 8183L}) {
    SCOPED_TRACE(offset);
    const std::string bad = DamagedRover(dir, offset, 0xFF);
    ASSERT_FALSE(bad.empty());
    const std::string csv = dir.File("c.csv");
    const CliResult r = RunSapsim(
        {"fclib", good_a, bad, good_b, "--csv", csv, "--solver", "rigid"});
    ExpectBadInput(r, bad);
    const std::string table = cli_test::ReadFile(csv);
    EXPECT_FALSE(cli_test::HasNonFiniteCell(table)) << table;
    std::vector<std::string> lines;
    std::stringstream s(table);
    for (std::string l; std::getline(s, l);) lines.push_back(l);
    ASSERT_EQ(lines.size(), 4u) << table;  // header + 3 rows, in order
    EXPECT_EQ(lines[1].rfind("Rover4396,2,rigid,solved", 0), 0u) << table;
    EXPECT_EQ(
        lines[2].rfind(
            "Rover1039_" + std::to_string(offset) + ",,rigid,bad_file,", 0),
        0u)
        << table;
    EXPECT_NE(lines[2].find(bad), std::string::npos) << table;
    EXPECT_EQ(lines[3].rfind("Rover1039,4,rigid,solved", 0), 0u) << table;
    EXPECT_NE(r.out.find("3 file(s): 2 solved, 0 failed, 1 bad"),
              std::string::npos)
        << r.out;
  }
}

TEST(FclibRegression, HugeDelassusEntryIsRejectedNotConverged) {
  TempDir dir("fclib_huge");
  // Byte 3087 XOR 0x40 turns W/x[0] = 0.0139 into 2.5e306 (the reported
  // file had 4.55e306): --solver sap reported "converged" with e_S = -nan
  // and exit 0.
  const std::string bad = DamagedRover(dir, 3087, 0x40);
  if (bad.empty()) GTEST_SKIP() << "../shared/fclib not found";
  for (const char* solver : {"sap", "rigid"}) {
    SCOPED_TRACE(solver);
    const std::string csv = dir.File("c.csv");
    const CliResult r =
        RunSapsim({"fclib", bad, "--solver", solver, "--csv", csv});
    ExpectBadInput(r, "/fclib_local/W/x[0]");
    EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
    EXPECT_FALSE(cli_test::HasNonFiniteCell(cli_test::ReadFile(csv)));
    EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  }
}

TEST(FclibRegression, NonFiniteResidualNeverCountsAsSolved) {
  // In memory (no file check): W entries whose products overflow.
  FclibLocalProblem p;
  p.W.resize(3, 3);
  std::vector<Eigen::Triplet<double>> t = {
      {0, 0, 4.55e306}, {1, 1, 1.0}, {2, 2, 1.0}, {0, 1, 3e306}};
  p.W.setFromTriplets(t.begin(), t.end());
  p.q = Eigen::Vector3d(-1e300, 0.5, 0.0);
  p.mu = Eigen::VectorXd::Constant(1, 0.5);
  for (FclibSolverKind kind :
       {FclibSolverKind::kSap, FclibSolverKind::kRigid}) {
    FclibSolverOptions o;
    o.solver = kind;
    const FclibSolveResult r = SolveFclibLocal(p, o);
    SCOPED_TRACE(ToString(kind));
    if (r.success) {
      EXPECT_TRUE(std::isfinite(r.residuals.convex_residual));
      EXPECT_TRUE(std::isfinite(r.residuals.coulomb_residual));
      EXPECT_TRUE(std::isfinite(r.residuals.objective));
    } else {
      EXPECT_NE(r.status, "converged");
    }
  }
}

}  // namespace
}  // namespace sapcontact
