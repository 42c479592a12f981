// sapcontact against MuJoCo on the same scenes, side by side in one run
// (README "Benchmarks"). Each scene of bench/comparison_scenes.h is written
// once as a sapsim scene and once as MJCF, with matched contact parameters;
// both engines step it single-threaded for its duration and the table gives,
// per scene and time step, wall time per step (collision, contact problem,
// solve and integration; the fastest of repeated runs, the two engines
// alternating: at least 3 runs each unless they take 10 s, and at least 1 s
// of stepping), the ratio sapcontact / MuJoCo, mean Newton iterations and
// contacts per step, and the scene's physical outcome in both engines, so that
// speed is never bought with sloppier physics.
//
// Robot rows (bench/comparison_robots.h) run a shipped scene whose URDF
// robot collides with meshes: sapcontact loads the scene file with the same
// contact parameters as overrides, MuJoCo compiles the same URDF (a copy
// with a <mujoco><compiler meshdir strippath discardvisual/></mujoco>
// element, written to a temporary folder), saves it as MJCF, and
// RobotMjcf adds the scene to it.
//
//   cmake --build build --target mujoco_comparison
//   build/bin/mujoco_comparison [--scene NAME] [--dt 1e-3,1e-2] [--csv FILE]
//                               [--phases] [--print-yaml] [--print-mjcf]
//
// Built against whichever MuJoCo CMake finds: a MuJoCo 3 CMake package
// first (installed anywhere: configure with
// -DCMAKE_PREFIX_PATH=/path/to/mujoco3; CMake finds /opt/mujoco* by
// itself, -DCMAKE_DISABLE_FIND_PACKAGE_mujoco=ON skips it), else Debian's
// libmujoco-dev 2.2.2 (installed by scripts/setup). The header line names the
// version it runs against. MuJoCo 2.2 preallocates its constraint buffers from
// <size nconmax njmax>; when they cannot be allocated (the 1600-box grid) the
// row says so. MuJoCo 3 sizes its arena itself.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/comparison_robots.h"
#include "bench/comparison_scenes.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

// MuJoCo 3 (mjVERSION_HEADER 300 and up: 3.0.0 was 300, later releases
// 3MMMPPP) loads XML text through mj_addBufferVFS, has no preallocation to
// size, and reports solver iterations per constraint island.
#if mjVERSION_HEADER >= 300
#define SAPCONTACT_MUJOCO3 1
#else
#define SAPCONTACT_MUJOCO3 0
#endif

#ifndef SAPCONTACT_SOURCE_DIR
#define SAPCONTACT_SOURCE_DIR "."
#endif

namespace sapcontact::comparison {
namespace {

using Clock = std::chrono::steady_clock;

struct EngineRun {
  bool ok{false};
  std::string error;
  int steps{0};
  double us_per_step{0};
  double mean_iterations{0};
  double mean_contacts{0};
  double outcome{0};
  /// sapcontact only: wall time per step [us] by phase (collision; the
  /// solver's model, assembly, factorization, line search and the rest of
  /// the solve), from the solver's always-on statistics.
  double us_collision{0}, us_model{0}, us_assembly{0}, us_factorization{0},
      us_line_search{0}, us_solver_other{0};
  double mean_factorizations{0};
  double mean_line_search_iterations{0};
  double seconds{0};  ///< wall time of the stepping [s]
  /// Robot rows: each object's displacement (comparison_robots.h).
  std::vector<ObjectMotion> objects;
  /// Robot rows: the final positions of the robot's 1-DOF joints, in tree
  /// order [rad or m].
  std::vector<double> joint_positions;
};

// Repeats (MeasureRow): each engine runs at least kMinRuns times unless its
// runs have taken kLongSeconds in all, and until kMinSeconds of stepping
// (short runs are repeated many times: a 100-step run of one box takes
// half a millisecond, below the machine's noise), at most kMaxRuns times;
// the two engines alternate, and each one's fastest run counts.
constexpr int kMinRuns = 3;
constexpr int kMaxRuns = 2000;
constexpr double kMinSeconds = 1.0;
constexpr double kLongSeconds = 10.0;

int Steps(const ComparisonScene& s, double dt) {
  return static_cast<int>(std::lround(s.duration / dt));
}

// Steps sapcontact r->steps times and fills r's time per step (and by
// phase), mean Newton iterations and contacts.
void StepSapcontact(TimeStepper* stepper, EngineRun* r) {
  long long iterations = 0, contacts = 0, factorizations = 0,
            line_search_iterations = 0;
  double collision = 0, model = 0, assembly = 0, factorization = 0,
         line_search = 0, solver_other = 0;
  const auto start = Clock::now();
  for (int n = 0; n < r->steps; ++n) {
    const StepInfo info = stepper->Step();
    iterations += info.newton_iterations;
    contacts += info.contacts;
    collision += info.collision_time;
    const SapSolverStatistics& st = stepper->last_sap_results().statistics;
    model += st.time_model;
    assembly += st.time_assembly;
    factorization += st.time_factorization;
    line_search += st.time_line_search;
    solver_other += st.time_other;
    factorizations += st.factorizations;
    line_search_iterations += st.line_search_iterations;
  }
  r->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r->us_per_step = 1e6 * r->seconds / r->steps;
  const double per_step = 1e6 / r->steps;
  r->us_collision = collision * per_step;
  r->us_model = model * per_step;
  r->us_assembly = assembly * per_step;
  r->us_factorization = factorization * per_step;
  r->us_line_search = line_search * per_step;
  r->us_solver_other = solver_other * per_step;
  r->mean_factorizations = static_cast<double>(factorizations) / r->steps;
  r->mean_line_search_iterations =
      static_cast<double>(line_search_iterations) / r->steps;
  r->mean_iterations = static_cast<double>(iterations) / r->steps;
  r->mean_contacts = static_cast<double>(contacts) / r->steps;
}

// One run of sapcontact (scene loading outside the timing).
EngineRun RunSapcontactOnce(const ComparisonScene& s, const std::string& yaml,
                            double dt) {
  EngineRun r;
  try {
    const Scene scene = LoadSceneFromString(yaml, s.name);
    TimeStepper stepper(scene);
    r.steps = Steps(s, dt);
    StepSapcontact(&stepper, &r);
    std::vector<Eigen::Vector3d> final;
    for (size_t i = 0; i < scene.bodies.size(); ++i) {
      if (!scene.bodies[i].fixed) {
        final.push_back(stepper.state()[i].pose.position);
      }
    }
    r.outcome = s.outcome(final);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// MuJoCo 2.2 has no XML-from-string loader: the model goes through a VFS
// (files it names that are not in the VFS, e.g. meshes, come from disk).
mjModel* LoadMjcf(const std::string& xml, std::string* error) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* name = "comparison.xml";
#if SAPCONTACT_MUJOCO3
  if (mj_addBufferVFS(vfs.get(), name, xml.data(),
                      static_cast<int>(xml.size())) != 0) {
    mj_deleteVFS(vfs.get());
    *error = "mj_addBufferVFS failed";
    return nullptr;
  }
#else
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0) {
    *error = "mj_makeEmptyFileVFS failed";
    return nullptr;
  }
  const int i = mj_findFileVFS(vfs.get(), name);
  std::memcpy(vfs->filedata[i], xml.data(), xml.size());
#endif
  char message[1000] = "";
  mjModel* m = mj_loadXML(name, vfs.get(), message, sizeof(message));
  mj_deleteVFS(vfs.get());
  if (m == nullptr) *error = message;
  return m;
}

// Newton iterations of the last step: MuJoCo 3 solves each constraint
// island on its own, so this is the most any island took (as sapcontact's
// StepInfo::newton_iterations); MuJoCo 2.2 solves one problem.
int SolverIterations(const mjData* d) {
#if defined(mjNISLAND)
  const int n = std::min(d->nisland, mjNISLAND);
  if (n == 0) return d->nefc > 0 ? d->solver_niter[0] : 0;
  int iterations = 0;
  for (int i = 0; i < n; ++i) {
    iterations = std::max(iterations, d->solver_niter[i]);
  }
  return iterations;
#else
  return d->solver_iter;
#endif
}

// Warnings MuJoCo raised during a run (a full constraint buffer, bad
// accelerations): a run with any is reported, not measured.
int MujocoWarnings(const mjData* d) {
  int warnings = 0;
  for (int w = 0; w < mjNWARNING; ++w) warnings += d->warning[w].number;
  return warnings;
}

// One run of MuJoCo (model compilation and mjData outside the timing).
EngineRun RunMujocoOnce(const ComparisonScene& s, const std::string& xml,
                        double dt) {
  EngineRun r;
  mjModel* m = LoadMjcf(xml, &r.error);
  if (m == nullptr) {
    if (r.error.empty()) r.error = "could not load the model";
    return r;
  }
  mjData* d = mj_makeData(m);
  if (d == nullptr) {
    mj_deleteModel(m);
    r.error = "cannot allocate mjData";
    return r;
  }
  r.steps = Steps(s, dt);
  long long iterations = 0, contacts = 0;
  const auto start = Clock::now();
  for (int n = 0; n < r.steps; ++n) {
    mj_step(m, d);
    iterations += SolverIterations(d);
    contacts += d->ncon;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.us_per_step = 1e6 * r.seconds / r.steps;
  r.mean_iterations = static_cast<double>(iterations) / r.steps;
  r.mean_contacts = static_cast<double>(contacts) / r.steps;
  bool finite = true;
  for (int i = 0; i < m->nq; ++i) finite = finite && std::isfinite(d->qpos[i]);
  std::vector<Eigen::Vector3d> final;
  for (int b = 1; b < m->nbody; ++b) {  // body 0 is the world
    final.emplace_back(d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]);
  }
  r.outcome = s.outcome(final);
  const int warnings = MujocoWarnings(d);
  mj_deleteData(d);
  mj_deleteModel(m);
  r.ok = finite && warnings == 0;
  if (!finite) {
    r.error = "non-finite state";
  } else if (warnings > 0) {
    r.error = std::to_string(warnings) + " warnings";
  }
  return r;
}

// Both engines alternating (kMinRuns and the other repeat rules above);
// each engine's fastest run is returned. An engine that fails stops
// repeating and returns its error.
std::pair<EngineRun, EngineRun> MeasureAlternating(
    const std::function<EngineRun()>& run_sapcontact,
    const std::function<EngineRun()>& run_mujoco, bool sapcontact,
    bool mujoco) {
  struct Tally {
    bool active{true};
    EngineRun best;
    int runs{0};
    double seconds{0};
    bool more() const {
      return active && runs < kMaxRuns &&
             ((runs < kMinRuns && seconds < kLongSeconds) ||
              seconds < kMinSeconds);
    }
    void add(const EngineRun& r) {
      ++runs;
      seconds += r.seconds;
      if (!r.ok) {
        best = r;
        active = false;
      } else if (!best.ok || r.us_per_step < best.us_per_step) {
        best = r;
      }
    }
  };
  Tally sap, mj;
  sap.active = sapcontact;
  mj.active = mujoco;
  while (sap.more() || mj.more()) {
    if (sap.more()) sap.add(run_sapcontact());
    if (mj.more()) mj.add(run_mujoco());
  }
  return {sap.best, mj.best};
}

int FreeBodies(const ComparisonScene& s) {
  int n = 0;
  for (const ComparisonBody& b : s.bodies) n += b.fixed ? 0 : 1;
  return n;
}

std::string BodyMjcf(const ComparisonScene& s, double dt) {
  return ToMjcf(s, dt, 6 * FreeBodies(s), !SAPCONTACT_MUJOCO3);
}

// Both engines on one scene and time step (MeasureAlternating).
std::pair<EngineRun, EngineRun> MeasureRow(const ComparisonScene& s, double dt,
                                           double sigma, bool run_sapcontact,
                                           bool run_mujoco) {
  const std::string yaml = ToSapsimYaml(s, dt, sigma);
  const std::string xml = BodyMjcf(s, dt);
  return MeasureAlternating([&] { return RunSapcontactOnce(s, yaml, dt); },
                            [&] { return RunMujocoOnce(s, xml, dt); },
                            run_sapcontact, run_mujoco);
}

// --- Robot rows (bench/comparison_robots.h) ---

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder under the system's temporary directory, removed with the object.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mujoco_comparison_XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a folder like " + pattern);
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// MuJoCo's own compilation of the URDF at `urdf_path`, saved as MJCF text.
// MuJoCo does not resolve package:// URIs; a copy of the URDF with the
// extension element <mujoco><compiler meshdir="MESHDIR" strippath="true"
// discardvisual="true"/></mujoco> (first child of <robot>) makes it look up
// every mesh's bare file name in `meshdir` and keep only collision geometry.
// The copy and the saved MJCF live in a temporary folder.
std::string UrdfToMjcf(const std::string& urdf_path,
                       const std::string& meshdir) {
  std::string urdf = ReadFile(urdf_path);
  const auto robot = FindStartTag(urdf, "robot", "");
  if (robot.first == std::string::npos || urdf[robot.second - 2] == '/') {
    throw std::runtime_error(urdf_path + ": no <robot> element");
  }
  urdf.insert(robot.second, "\n  <mujoco><compiler meshdir=\"" +
                                XmlEscape(meshdir) +
                                "\" strippath=\"true\" "
                                "discardvisual=\"true\"/></mujoco>");
  TemporaryFolder folder;
  const std::string copy = (folder.path() / "robot.urdf").string();
  const std::string saved = (folder.path() / "robot.xml").string();
  std::ofstream(copy, std::ios::binary) << urdf;
  char message[1000] = "";
  mjModel* m = mj_loadXML(copy.c_str(), nullptr, message, sizeof(message));
  if (m == nullptr) {
    throw std::runtime_error("MuJoCo cannot load " + urdf_path + ": " +
                             message);
  }
  const int ok = mj_saveLastXML(saved.c_str(), m, message, sizeof(message));
  mj_deleteModel(m);
  if (!ok) {
    throw std::runtime_error("mj_saveLastXML of " + urdf_path + ": " + message);
  }
  return ReadFile(saved);
}

// One robot row at one time step: the scene as sapcontact loads it (with
// the comparison's overrides) and the MuJoCo model made from it.
struct RobotRow {
  const RobotComparisonScene* spec{nullptr};
  std::string path;  // the scene file
  std::vector<std::string> overrides;
  double dt{0};
  int steps{0};
  Scene scene;
  std::string mjcf;
  std::string error;  // the MuJoCo model could not be made
};

// The row of robot scene `s` at time step dt. `robot_mjcf` is MuJoCo's
// MJCF of the robot (UrdfToMjcf; made at the first call, "" with
// *robot_error set when MuJoCo could not make it). Throws when sapcontact
// cannot load the scene.
RobotRow MakeRobotRow(const RobotComparisonScene& s, double dt, double sigma,
                      std::string* robot_mjcf, std::string* robot_error) {
  RobotRow row;
  row.spec = &s;
  row.path = std::string(SAPCONTACT_SOURCE_DIR) + "/" + s.scene_file;
  row.overrides = RobotSceneOverrides(s, dt, sigma);
  row.dt = dt;
  row.steps = static_cast<int>(std::lround(s.duration / dt));
  row.scene = LoadScene(row.path, row.overrides);
  try {
    if (robot_mjcf->empty() && robot_error->empty()) {
      *robot_mjcf =
          UrdfToMjcf(row.scene.robots.at(0).urdf_path, s.mujoco_meshdir);
    }
    if (!robot_error->empty()) throw std::runtime_error(*robot_error);
    row.mjcf = RobotMjcf(row.scene, s, *robot_mjcf, dt, /*legacy_size=*/
                         !SAPCONTACT_MUJOCO3);
  } catch (const std::exception& e) {
    if (robot_mjcf->empty()) *robot_error = e.what();
    row.error = e.what();
  }
  return row;
}

EngineRun RunSapcontactRobotOnce(const RobotRow& row) {
  EngineRun r;
  try {
    const Scene scene = LoadScene(row.path, row.overrides);
    TimeStepper stepper(scene);
    const int link = row.spec->reference_link.empty()
                         ? -1
                         : scene.robots[0].description.tree.FindLink(
                               row.spec->reference_link);
    std::vector<int> objects;
    for (const std::string& o : row.spec->objects) {
      objects.push_back(scene.FindBody(o));
    }
    auto frame = [&]() {
      return link < 0 ? Eigen::Isometry3d::Identity()
                      : stepper.LinkPoses(0)[link];
    };
    auto positions = [&]() {
      std::vector<Eigen::Vector3d> p;
      for (int b : objects) p.push_back(stepper.state()[b].pose.position);
      return p;
    };
    const Eigen::Isometry3d X0 = frame();
    const std::vector<Eigen::Vector3d> p0 = positions();
    r.steps = row.steps;
    StepSapcontact(&stepper, &r);
    r.objects = ObjectMotions(X0, frame(), p0, positions());
    const MultibodyTree& tree = scene.robots[0].description.tree;
    for (int i = 0; i < tree.num_links(); ++i) {
      if (tree.num_positions(i) == 1) {
        r.joint_positions.push_back(
            stepper.robot_states()[0].q(tree.position_start(i)));
      }
    }
    r.outcome = r.objects[0].tangential;
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// World pose of MuJoCo body `b` (after kinematics).
Eigen::Isometry3d BodyPose(const mjData* d, int b) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (int i = 0; i < 3; ++i) {
    X.translation()(i) = d->xpos[3 * b + i];
    for (int j = 0; j < 3; ++j) X.linear()(i, j) = d->xmat[9 * b + 3 * i + j];
  }
  return X;
}

// Sets MuJoCo's state to the scene's initial one: the robot's joint
// positions and velocities by joint name, the free bodies' poses and
// velocities by body name. Returns what is missing, or "".
std::string SetMujocoInitialState(const Scene& scene, const mjModel* m,
                                  mjData* d) {
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  const Eigen::VectorXd q = RobotInitialPositions(robot);
  const Eigen::VectorXd v = RobotInitialVelocities(robot);
  for (int i = 0; i < tree.num_links(); ++i) {
    const Joint& joint = tree.joint(i);
    if (joint.type == JointType::kFixed) continue;
    const int id = mj_name2id(m, mjOBJ_JOINT, joint.name.c_str());
    if (id < 0) return "no MuJoCo joint '" + joint.name + "'";
    d->qpos[m->jnt_qposadr[id]] = q(tree.position_start(i));
    d->qvel[m->jnt_dofadr[id]] = v(tree.velocity_start(i));
  }
  for (const Body& b : scene.bodies) {
    if (b.fixed) continue;
    const int id = mj_name2id(m, mjOBJ_BODY, b.name.c_str());
    if (id < 0 || m->body_jntnum[id] != 1) {
      return "no MuJoCo free body '" + b.name + "'";
    }
    const int joint = m->body_jntadr[id];
    mjtNum* qpos = d->qpos + m->jnt_qposadr[joint];
    mjtNum* qvel = d->qvel + m->jnt_dofadr[joint];
    const Eigen::Quaterniond& o = b.pose.orientation;
    // A free joint's angular velocity is in the body frame.
    const Eigen::Vector3d w = o.conjugate() * b.angular_velocity;
    for (int k = 0; k < 3; ++k) {
      qpos[k] = b.pose.position(k);
      qvel[k] = b.velocity(k);
      qvel[3 + k] = w(k);
    }
    qpos[3] = o.w();
    qpos[4] = o.x();
    qpos[5] = o.y();
    qpos[6] = o.z();
  }
  return "";
}

// One run of MuJoCo on a robot row: the robot's initial joint positions and
// velocities and the free bodies' poses and velocities set by name in
// mjData, the PD targets as controls (at the end of each step, as
// sapcontact evaluates them); model compilation, mjData and the initial
// kinematics outside the timing.
EngineRun RunMujocoRobotOnce(const RobotRow& row) {
  EngineRun r;
  if (!row.error.empty()) {
    r.error = row.error;
    return r;
  }
  mjModel* m = LoadMjcf(row.mjcf, &r.error);
  if (m == nullptr) {
    if (r.error.empty()) r.error = "could not load the model";
    return r;
  }
  mjData* d = mj_makeData(m);
  if (d == nullptr) {
    mj_deleteModel(m);
    r.error = "cannot allocate mjData";
    return r;
  }
  auto fail = [&](const std::string& what) {
    mj_deleteData(d);
    mj_deleteModel(m);
    r.error = what;
    return r;
  };
  const std::string state_error = SetMujocoInitialState(row.scene, m, d);
  if (!state_error.empty()) return fail(state_error);
  const RobotSpec& robot = row.scene.robots[0];
  const std::vector<JointActuation>& actuation = robot.actuation;
  if (m->nu != static_cast<int>(actuation.size())) {
    return fail("MuJoCo has " + std::to_string(m->nu) + " actuators");
  }
  bool varying = false;
  for (const JointActuation& a : actuation) {
    varying = varying || !a.target.is_constant() ||
              !a.target_velocity.is_constant() || !a.feedforward.is_constant();
  }
  // u = kp (ctrl - q) - kd v with ctrl = q_d + (kd v_d + u0) / kp.
  auto set_controls = [&](double t) {
    for (size_t k = 0; k < actuation.size(); ++k) {
      const JointActuation& a = actuation[k];
      d->ctrl[k] =
          a.target.ScalarValue(t) + (a.kd * a.target_velocity.ScalarValue(t) +
                                     a.feedforward.ScalarValue(t)) /
                                        a.kp;
    }
  };
  const RobotComparisonScene& s = *row.spec;
  const int link = s.reference_link.empty()
                       ? -1
                       : mj_name2id(m, mjOBJ_BODY, s.reference_link.c_str());
  std::vector<int> objects;
  for (const std::string& o : s.objects) {
    objects.push_back(mj_name2id(m, mjOBJ_BODY, o.c_str()));
    if (objects.back() < 0) return fail("no MuJoCo body '" + o + "'");
  }
  auto frame = [&]() {
    return link < 0 ? Eigen::Isometry3d::Identity() : BodyPose(d, link);
  };
  auto positions = [&]() {
    std::vector<Eigen::Vector3d> p;
    for (int b : objects) {
      p.emplace_back(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    }
    return p;
  };
  mj_kinematics(m, d);
  const Eigen::Isometry3d X0 = frame();
  const std::vector<Eigen::Vector3d> p0 = positions();
  set_controls(row.dt);
  r.steps = row.steps;
  long long iterations = 0, contacts = 0;
  const auto start = Clock::now();
  for (int n = 0; n < r.steps; ++n) {
    if (varying) set_controls((n + 1) * row.dt);
    mj_step(m, d);
    iterations += SolverIterations(d);
    contacts += d->ncon;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.us_per_step = 1e6 * r.seconds / r.steps;
  r.mean_iterations = static_cast<double>(iterations) / r.steps;
  r.mean_contacts = static_cast<double>(contacts) / r.steps;
  bool finite = true;
  for (int i = 0; i < m->nq; ++i) finite = finite && std::isfinite(d->qpos[i]);
  mj_kinematics(m, d);  // mj_step leaves the frames of the step's start
  r.objects = ObjectMotions(X0, frame(), p0, positions());
  const MultibodyTree& tree = robot.description.tree;
  for (int i = 0; i < tree.num_links(); ++i) {
    if (tree.num_positions(i) == 1) {
      const int id = mj_name2id(m, mjOBJ_JOINT, tree.joint(i).name.c_str());
      r.joint_positions.push_back(d->qpos[m->jnt_qposadr[id]]);
    }
  }
  r.outcome = r.objects[0].tangential;
  const int warnings = MujocoWarnings(d);
  mj_deleteData(d);
  mj_deleteModel(m);
  r.ok = finite && warnings == 0;
  if (!finite) {
    r.error = "non-finite state";
  } else if (warnings > 0) {
    r.error = std::to_string(warnings) + " warnings";
  }
  return r;
}

// How far apart the two engines' initial world frames are: the robot's
// links (against MuJoCo's body of the same name; links fused into another
// body are skipped) and the free bodies, the largest distance [m] and
// rotation angle [rad]. Checks that both engines placed the robot and the
// scene alike.
std::string InitialFrameCheck(const RobotRow& row) {
  if (!row.error.empty()) return "-";
  std::string error;
  mjModel* m = LoadMjcf(row.mjcf, &error);
  if (m == nullptr) return error;
  mjData* d = mj_makeData(m);
  std::string out;
  error = SetMujocoInitialState(row.scene, m, d);
  if (error.empty()) {
    mj_kinematics(m, d);
    const TimeStepper stepper(row.scene);
    const std::vector<Eigen::Isometry3d> links = stepper.LinkPoses(0);
    const MultibodyTree& tree = row.scene.robots[0].description.tree;
    double position = 0, rotation = 0;
    int frames = 0;
    auto compare = [&](const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
      position = std::max(position, (a.translation() - b.translation()).norm());
      rotation = std::max(
          rotation,
          Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle());
      ++frames;
    };
    for (int i = 0; i < tree.num_links(); ++i) {
      const int b = mj_name2id(m, mjOBJ_BODY, tree.link(i).name.c_str());
      if (b > 0) compare(links[i], BodyPose(d, b));  // 0: MuJoCo's world
    }
    for (size_t i = 0; i < row.scene.bodies.size(); ++i) {
      const Body& body = row.scene.bodies[i];
      const int b = mj_name2id(m, mjOBJ_BODY, body.name.c_str());
      if (body.fixed || b < 0) continue;
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.translation() = body.pose.position;
      X.linear() = body.pose.rotation();
      compare(X, BodyPose(d, b));
    }
    char text[128];
    std::snprintf(text, sizeof(text),
                  "%d frames, largest difference %.2g m, %.2g rad", frames,
                  position, rotation);
    out = text;
  } else {
    out = error;
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return out;
}

// The hulls each engine collides the robot's meshes and the scene's mesh
// bodies as: "name vertices/faces" per mesh, sapcontact's (polygonal faces)
// then MuJoCo's (triangles), one line.
std::string HullSummary(const RobotRow& row) {
  std::ostringstream out;
  mjModel* m = nullptr;
  std::string error;
  if (row.error.empty()) m = LoadMjcf(row.mjcf, &error);
  auto mujoco_hull = [&](const std::string& name) -> std::string {
    const int id = m == nullptr ? -1 : mj_name2id(m, mjOBJ_MESH, name.c_str());
    if (id < 0 || m->mesh_graphadr[id] < 0) return "-";
    const int* graph = m->mesh_graph + m->mesh_graphadr[id];
    return std::to_string(graph[0]) + "v " + std::to_string(graph[1]) + "f";
  };
  auto sap_hull = [](const MeshShape& mesh) {
    return std::to_string(mesh.hull.vertices.size()) + "v " +
           std::to_string(mesh.hull.faces.size()) + "f";
  };
  out << "  hulls sapcontact | MuJoCo:";
  std::vector<const MeshShape*> seen;
  for (const RobotGeometry& g : row.scene.robots[0].description.geometries) {
    const MeshShape* mesh = g.shape.mesh.get();
    if (mesh == nullptr ||
        std::find(seen.begin(), seen.end(), mesh) != seen.end()) {
      continue;
    }
    seen.push_back(mesh);
    const std::string stem = std::filesystem::path(mesh->path).stem().string();
    out << " " << stem << " " << sap_hull(*mesh) << " | " << mujoco_hull(stem)
        << ";";
  }
  for (const Body& b : row.scene.bodies) {
    if (b.shape.mesh == nullptr) continue;
    out << " " << b.name << " " << sap_hull(*b.shape.mesh) << " | "
        << mujoco_hull("scene " + b.name) << ";";
  }
  if (m != nullptr) mj_deleteModel(m);
  if (!error.empty()) out << " (MuJoCo: " << error << ")";
  return out.str();
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

struct Options {
  bool phases{false};
  std::ofstream csv;
};

// One table row (and the --phases line, the CSV line); ratios of rows both
// engines ran go to log_ratios.
void PrintRow(const std::string& name, double dt, const std::string& outcome,
              const EngineRun& a, const EngineRun& b, Options* options,
              std::vector<double>* log_ratios) {
  const bool both = a.ok && b.ok;
  const double ratio = both ? a.us_per_step / b.us_per_step : NAN;
  if (both) log_ratios->push_back(std::log(ratio));
  char mj_us[32], ratio_text[16], its[32], contacts[32], mj_out[32];
  std::snprintf(mj_us, sizeof(mj_us), b.ok ? "%.1f" : "-", b.us_per_step);
  std::snprintf(ratio_text, sizeof(ratio_text), both ? "%.2f" : "-", ratio);
  std::snprintf(its, sizeof(its), "%.2f/%.2f", a.mean_iterations,
                b.mean_iterations);
  std::snprintf(contacts, sizeof(contacts), "%.0f/%.0f", a.mean_contacts,
                b.mean_contacts);
  std::snprintf(mj_out, sizeof(mj_out), b.ok ? "%.3g" : "-", b.outcome);
  std::printf(
      "%-12s %6g %6d | %10.1f %10s %6s | %11s | %11s | %-14s %12.3g "
      "%12s%s%s\n",
      name.c_str(), dt, a.steps, a.us_per_step, mj_us, ratio_text, its,
      contacts, outcome.c_str(), a.outcome, mj_out,
      a.ok ? "" : ("  sapcontact: " + a.error).c_str(),
      b.error.empty() ? "" : ("  mujoco: " + b.error).c_str());
  if (options->phases && a.ok) {
    std::printf(
        "  phases us/step: collision %.1f, model %.1f, assembly %.1f, "
        "factorization %.1f (%.2f per step), line search %.1f (%.2f "
        "iterations per step), other solver %.1f\n",
        a.us_collision, a.us_model, a.us_assembly, a.us_factorization,
        a.mean_factorizations, a.us_line_search, a.mean_line_search_iterations,
        a.us_solver_other);
  }
  std::fflush(stdout);
  if (options->csv.is_open()) {
    options->csv << '"' << name << "\"," << dt << ',' << a.steps << ','
                 << a.us_per_step << ','
                 << (b.ok ? std::to_string(b.us_per_step) : "") << ','
                 << (both ? std::to_string(ratio) : "") << ','
                 << a.mean_iterations << ',' << b.mean_iterations << ','
                 << a.mean_contacts << ',' << b.mean_contacts << ",\""
                 << outcome << "\"," << a.outcome << ','
                 << (b.ok ? std::to_string(b.outcome) : "") << ",\"" << b.error
                 << "\"\n";
  }
}

int Main(int argc, char** argv) {
  std::string only_scene, csv_path, engines = "both";
  bool print_yaml = false;
  bool print_mjcf = false;
  Options options;
  double sigma = 1e-3;
  std::vector<double> dts = {1e-3, 1e-2};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mujoco_comparison: %s needs a value\n",
                     a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scene") {
      only_scene = value();
    } else if (a == "--dt") {
      dts.clear();
      for (const std::string& v : Split(value(), ','))
        dts.push_back(std::stod(v));
    } else if (a == "--csv") {
      csv_path = value();
    } else if (a == "--engine") {
      engines = value();
      if (engines != "both" && engines != "sapcontact" && engines != "mujoco") {
        std::fprintf(stderr,
                     "mujoco_comparison: --engine both|sapcontact|mujoco\n");
        return 2;
      }
    } else if (a == "--sigma") {
      sigma = std::stod(value());
    } else if (a == "--print-yaml") {
      print_yaml = true;
    } else if (a == "--print-mjcf") {
      print_mjcf = true;
    } else if (a == "--phases") {
      options.phases = true;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: mujoco_comparison [--scene NAME] [--dt DT[,DT...]] "
          "[--csv FILE] [--engine both|sapcontact|mujoco] [--sigma S] "
          "[--print-yaml] [--print-mjcf] [--phases]\n"
          "  --phases adds a line per row with sapcontact's time per step by "
          "phase [us]\n"
          "  --sigma: sapcontact's friction regularization (default 1e-3; "
          "0.005 matches MuJoCo's)\n"
          "  --print-yaml writes the sapsim scene of each selected case to "
          "stdout instead of running\n"
          "    (robot rows: the scene file and its --set overrides)\n"
          "  --print-mjcf writes the MuJoCo model of each selected case "
          "instead of running\n"
          "  scenes: rest, incline 20, stack 10, stack 20, spheres 64, "
          "spheres 512, grid 400, grid 729, grid 1600, clutter 48; robots: "
          "wam tray, kr5 push (NAME matches a prefix, e.g. --scene "
          "spheres)\n");
      return 0;
    } else {
      std::fprintf(stderr, "mujoco_comparison: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!csv_path.empty()) {
    options.csv.open(csv_path);
    options.csv
        << "scene,dt,steps,sap_us_per_step,mujoco_us_per_step,ratio,"
           "sap_newton_iterations,mujoco_newton_iterations,sap_contacts,"
           "mujoco_contacts,outcome,sap_outcome,mujoco_outcome,mujoco_error\n";
  }
  const bool printing = print_yaml || print_mjcf;
  if (!printing) {
    std::printf(
        "MuJoCo %s (library %d, header %d), Newton, elliptic cones; "
        "sapcontact SAP, beta %.2f, sigma %g, k = inf, tau_d = 3 dt, mu = "
        "%.1f\n",
        mj_versionString(), mj_version(), mjVERSION_HEADER, kBeta, sigma,
        kFriction);
    std::printf(
        "%-12s %6s %6s | %10s %10s %6s | %11s | %11s | %-14s %12s %12s\n",
        "scene", "dt", "steps", "sap us", "mujoco us", "ratio", "its sap/mj",
        "contacts", "outcome", "sapcontact", "mujoco");
  }
  auto selected = [&](const std::string& name) {
    return only_scene.empty() || name.rfind(only_scene, 0) == 0;
  };
  std::vector<double> log_ratios;
  for (const ComparisonScene& s : AllScenes()) {
    if (!selected(s.name)) continue;
    for (double dt : dts) {
      if (print_yaml) {
        std::printf("# %s, dt = %g\n%s", s.name.c_str(), dt,
                    ToSapsimYaml(s, dt, sigma).c_str());
      }
      if (print_mjcf) {
        std::printf("<!-- %s, dt = %g -->\n%s", s.name.c_str(), dt,
                    BodyMjcf(s, dt).c_str());
      }
      if (printing) continue;
      const auto [a, b] = MeasureRow(s, dt, sigma, engines != "mujoco",
                                     engines != "sapcontact");
      PrintRow(s.name, dt, s.outcome_name, a, b, &options, &log_ratios);
    }
  }
  for (const RobotComparisonScene& s : AllRobotScenes()) {
    if (!selected(s.name)) continue;
    std::string robot_mjcf, robot_error;
    bool hulls_printed = false;
    for (double dt : dts) {
      RobotRow row;
      try {
        row = MakeRobotRow(s, dt, sigma, &robot_mjcf, &robot_error);
      } catch (const std::exception& e) {
        std::printf("%-12s %6g  sapcontact: %s\n", s.name.c_str(), dt,
                    e.what());
        continue;
      }
      if (print_yaml) {
        std::printf("# %s, dt = %g: %s with\n", s.name.c_str(), dt,
                    row.path.c_str());
        for (const std::string& o : row.overrides) {
          std::printf("#   --set %s\n", o.c_str());
        }
      }
      if (print_mjcf) {
        std::printf("<!-- %s, dt = %g -->\n%s\n", s.name.c_str(), dt,
                    row.error.empty() ? row.mjcf.c_str() : row.error.c_str());
      }
      if (printing) continue;
      if (!hulls_printed) {
        std::printf("%s\n  initial frames sapcontact vs MuJoCo: %s\n",
                    HullSummary(row).c_str(), InitialFrameCheck(row).c_str());
        hulls_printed = true;
      }
      const auto [a, b] =
          MeasureAlternating([&] { return RunSapcontactRobotOnce(row); },
                             [&] { return RunMujocoRobotOnce(row); },
                             engines != "mujoco", engines != "sapcontact");
      PrintRow(s.name, dt, s.outcome_name, a, b, &options, &log_ratios);
      std::printf(
          "  objects' motion on %s, tangential / normal [m]:",
          s.reference_link.empty() ? "the world" : s.reference_link.c_str());
      for (size_t i = 0; i < s.objects.size(); ++i) {
        auto motion = [&](const EngineRun& r) -> std::string {
          if (i >= r.objects.size()) return "-";
          char text[64];
          std::snprintf(text, sizeof(text), "%.3g / %.3g",
                        r.objects[i].tangential, r.objects[i].normal);
          return text;
        };
        std::printf(" %s sapcontact %s, MuJoCo %s;", s.objects[i].c_str(),
                    motion(a).c_str(), motion(b).c_str());
      }
      if (a.joint_positions.size() == b.joint_positions.size() &&
          !a.joint_positions.empty()) {
        double most = 0;
        for (size_t i = 0; i < a.joint_positions.size(); ++i) {
          most = std::max(
              most, std::abs(a.joint_positions[i] - b.joint_positions[i]));
        }
        std::printf(" final joint positions differ by at most %.2g rad", most);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  if (!log_ratios.empty()) {
    double sum = 0;
    for (double l : log_ratios) sum += l;
    std::printf("geometric mean of the ratios over %zu rows: %.2f\n",
                log_ratios.size(), std::exp(sum / log_ratios.size()));
  }
  return 0;
}

}  // namespace
}  // namespace sapcontact::comparison

int main(int argc, char** argv) {
  return sapcontact::comparison::Main(argc, argv);
}
