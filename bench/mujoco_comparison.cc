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
//   cmake --build build --target mujoco_comparison
//   build/bin/mujoco_comparison [--scene NAME] [--dt 1e-3,1e-2] [--csv FILE]
//                               [--phases]
//
// Built against whichever MuJoCo CMake finds: a MuJoCo 3 CMake package
// first (installed anywhere: configure with
// -DCMAKE_PREFIX_PATH=/path/to/mujoco3; CMake finds /opt/mujoco* by
// itself, -DCMAKE_DISABLE_FIND_PACKAGE_mujoco=ON skips it), else Debian's
// libmujoco-dev 2.2.2 (installed by scripts/setup). The header line names
// the version it runs against. MuJoCo 2.2 preallocates its constraint
// buffers from <size nconmax njmax>; when they cannot be allocated (the
// 1600-box grid) the row says so. MuJoCo 3 sizes its arena itself.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

// One run of sapcontact (scene loading outside the timing).
EngineRun RunSapcontactOnce(const ComparisonScene& s, const std::string& yaml,
                            double dt) {
  EngineRun r;
  try {
    const Scene scene = LoadSceneFromString(yaml, s.name);
    TimeStepper stepper(scene);
    r.steps = Steps(s, dt);
    long long iterations = 0, contacts = 0, factorizations = 0,
              line_search_iterations = 0;
    double collision = 0, model = 0, assembly = 0, factorization = 0,
           line_search = 0, solver_other = 0;
    const auto start = Clock::now();
    for (int n = 0; n < r.steps; ++n) {
      const StepInfo info = stepper.Step();
      iterations += info.newton_iterations;
      contacts += info.contacts;
      collision += info.collision_time;
      const SapSolverStatistics& st = stepper.last_sap_results().statistics;
      model += st.time_model;
      assembly += st.time_assembly;
      factorization += st.time_factorization;
      line_search += st.time_line_search;
      solver_other += st.time_other;
      factorizations += st.factorizations;
      line_search_iterations += st.line_search_iterations;
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.us_per_step = 1e6 * r.seconds / r.steps;
    const double per_step = 1e6 / r.steps;
    r.us_collision = collision * per_step;
    r.us_model = model * per_step;
    r.us_assembly = assembly * per_step;
    r.us_factorization = factorization * per_step;
    r.us_line_search = line_search * per_step;
    r.us_solver_other = solver_other * per_step;
    r.mean_factorizations = static_cast<double>(factorizations) / r.steps;
    r.mean_line_search_iterations =
        static_cast<double>(line_search_iterations) / r.steps;
    r.mean_iterations = static_cast<double>(iterations) / r.steps;
    r.mean_contacts = static_cast<double>(contacts) / r.steps;
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

// Both engines on one scene and time step, alternating runs (kMinRuns and
// the other repeat rules above); each engine's fastest run is returned. An
// engine that fails stops repeating and returns its error.
std::pair<EngineRun, EngineRun> MeasureRow(const ComparisonScene& s, double dt,
                                           double sigma, bool run_sapcontact,
                                           bool run_mujoco) {
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
  sap.active = run_sapcontact;
  mj.active = run_mujoco;
  const std::string yaml = ToSapsimYaml(s, dt, sigma);
  int free_bodies = 0;
  for (const ComparisonBody& b : s.bodies) free_bodies += b.fixed ? 0 : 1;
  const std::string xml = ToMjcf(s, dt, 6 * free_bodies, !SAPCONTACT_MUJOCO3);
  while (sap.more() || mj.more()) {
    if (sap.more()) sap.add(RunSapcontactOnce(s, yaml, dt));
    if (mj.more()) mj.add(RunMujocoOnce(s, xml, dt));
  }
  return {sap.best, mj.best};
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

int Main(int argc, char** argv) {
  std::string only_scene, csv_path, engines = "both";
  bool print_yaml = false;
  bool phases = false;
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
    } else if (a == "--phases") {
      phases = true;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: mujoco_comparison [--scene NAME] [--dt DT[,DT...]] "
          "[--csv FILE] [--engine both|sapcontact|mujoco] [--sigma S] "
          "[--print-yaml] [--phases]\n"
          "  --phases adds a line per row with sapcontact's time per step by "
          "phase [us]\n"
          "  --sigma: sapcontact's friction regularization (default 1e-3; "
          "0.005 matches MuJoCo's)\n"
          "  --print-yaml writes the sapsim scene of each selected case to "
          "stdout instead of running\n  scenes: rest, incline 20, stack 10, "
          "stack 20, "
          "spheres 64, spheres 512, grid 400, grid 729, grid 1600, clutter "
          "48 (NAME matches a prefix, e.g. --scene spheres)\n");
      return 0;
    } else {
      std::fprintf(stderr, "mujoco_comparison: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "scene,dt,steps,sap_us_per_step,mujoco_us_per_step,ratio,"
           "sap_newton_iterations,mujoco_newton_iterations,sap_contacts,"
           "mujoco_contacts,outcome,sap_outcome,mujoco_outcome,mujoco_error\n";
  }
  if (!print_yaml) {
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
  std::vector<double> log_ratios;
  for (const ComparisonScene& s : AllScenes()) {
    if (!only_scene.empty() && s.name.rfind(only_scene, 0) != 0) continue;
    for (double dt : dts) {
      if (print_yaml) {
        std::printf("# %s, dt = %g\n%s", s.name.c_str(), dt,
                    ToSapsimYaml(s, dt, sigma).c_str());
        continue;
      }
      const auto [a, b] = MeasureRow(s, dt, sigma, engines != "mujoco",
                                     engines != "sapcontact");
      const bool both = a.ok && b.ok;
      const double ratio = both ? a.us_per_step / b.us_per_step : NAN;
      if (both) log_ratios.push_back(std::log(ratio));
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
          s.name.c_str(), dt, a.steps, a.us_per_step, mj_us, ratio_text, its,
          contacts, s.outcome_name.c_str(), a.outcome, mj_out,
          a.ok ? "" : ("  sapcontact: " + a.error).c_str(),
          b.error.empty() ? "" : ("  mujoco: " + b.error).c_str());
      if (phases && a.ok) {
        std::printf(
            "  phases us/step: collision %.1f, model %.1f, assembly %.1f, "
            "factorization %.1f (%.2f per step), line search %.1f (%.2f "
            "iterations per step), other solver %.1f\n",
            a.us_collision, a.us_model, a.us_assembly, a.us_factorization,
            a.mean_factorizations, a.us_line_search,
            a.mean_line_search_iterations, a.us_solver_other);
      }
      std::fflush(stdout);
      if (csv.is_open()) {
        csv << '"' << s.name << "\"," << dt << ',' << a.steps << ','
            << a.us_per_step << ','
            << (b.ok ? std::to_string(b.us_per_step) : "") << ','
            << (both ? std::to_string(ratio) : "") << ',' << a.mean_iterations
            << ',' << b.mean_iterations << ',' << a.mean_contacts << ','
            << b.mean_contacts << ",\"" << s.outcome_name << "\"," << a.outcome
            << ',' << (b.ok ? std::to_string(b.outcome) : "") << ",\""
            << b.error << "\"\n";
      }
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
