// sapcontact against MuJoCo on the same scenes, side by side in one run
// (README "Benchmarks"). Each scene of bench/comparison_scenes.h is written
// once as a sapsim scene and once as MJCF, with matched contact parameters;
// both engines step it single-threaded for its duration and the table gives,
// per scene and time step, wall time per step (the fastest of repeated runs,
// the engines alternating: at least 3 runs each unless they take 10 s, and
// at least 1 s of stepping) of sapcontact's library path (a TimeStepper::Step
// loop: collision, contact problem, solve and integration), of its
// simulation path (RunSimulation, what `sapsim run` and Python's
// Simulation.run do: the stepper's construction and the energy and summary
// bookkeeping of every step, timed as summary.json's wall_time_s / steps)
// and of MuJoCo's mj_step, the ratios of both paths to MuJoCo, mean Newton
// iterations and contacts per step, and the scene's physical outcome in both
// engines, so that speed is never bought with sloppier physics.
//
// Robot rows (bench/comparison_robots.h) run a shipped scene whose URDF
// robot collides with meshes: sapcontact loads the scene file with the same
// contact parameters as overrides, MuJoCo compiles the same URDF (a copy
// with a <mujoco><compiler meshdir strippath discardvisual/></mujoco>
// element, written to a temporary folder), saves it as MJCF, and
// RobotMjcf adds the scene to it. Above a robot scene's rows, two lines:
// both engines' hulls of its meshes, and the largest difference of their
// initial link and body frames; under each of its rows, a line with the
// objects' motion and the largest difference of the final joint positions.
//
// This file holds the body rows, the options, the table and main; running
// and timing the engines is in bench/comparison_engines.h, the robot rows
// in bench/comparison_robot_rows.h.
//
//   cmake --build build --target mujoco_comparison
//   build/bin/mujoco_comparison [--scene NAME] [--dt 1e-3,1e-2] [--csv FILE]
//                               [--engine both|sapcontact|mujoco]
//                               [--path both|library|simulation] [--sigma S]
//                               [--set KEY=VALUE]... [--phases] [--scaling]
//                               [--print-yaml] [--print-mjcf]
//
// --scaling prints the scaling table instead (PrintScaling: sapcontact
// alone on sphere piles of 64 to 4096 spheres, time per contact-iteration
// and memory per body).
//
// --scene NAME selects the scenes whose name starts with NAME (e.g. "wam",
// "spheres"); --help lists the scenes and what each option does.
//
// Built against whichever MuJoCo CMake finds: a MuJoCo 3 CMake package
// first (installed anywhere: configure with
// -DCMAKE_PREFIX_PATH=/path/to/mujoco3; CMake finds /opt/mujoco* by
// itself, -DCMAKE_DISABLE_FIND_PACKAGE_mujoco=ON skips it), else Debian's
// libmujoco-dev 2.2.2 (installed by scripts/setup). The header line names the
// version it runs against. MuJoCo 2.2 preallocates its constraint buffers from
// <size nconmax njmax>; when they cannot be allocated (the 1600-box grid) the
// row says so. MuJoCo 3 sizes its arena itself, except where a scene sets it
// (ComparisonScene::mujoco_memory: spheres 4096); grid 10000 runs sapcontact
// only (ComparisonScene::mujoco_skipped says why).
#include <malloc.h>  // mallinfo2, malloc_trim (glibc): --scaling's memory
#include <mujoco/mujoco.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/comparison_engines.h"
#include "bench/comparison_mjcf_rows.h"
#include "bench/comparison_robot_rows.h"
#include "bench/comparison_robots.h"
#include "bench/comparison_scenes.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::comparison {
namespace {

// --- Body rows (bench/comparison_scenes.h) ---

int Steps(const ComparisonScene& s, double dt) {
  return static_cast<int>(std::lround(s.duration / dt));
}

// The free bodies' final positions of a run of scene `scene`.
std::vector<Eigen::Vector3d> FreeFinalPositions(
    const Scene& scene, const std::vector<BodyState>& state) {
  std::vector<Eigen::Vector3d> final;
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    if (!scene.bodies[i].fixed) final.push_back(state[i].pose.position);
  }
  return final;
}

// One run of sapcontact's library path (scene loading outside the timing).
EngineRun RunSapcontactOnce(const ComparisonScene& s, const std::string& yaml,
                            const std::vector<std::string>& overrides,
                            double dt) {
  EngineRun r;
  try {
    const Scene scene = LoadSceneFromString(yaml, s.name, overrides);
    TimeStepper stepper(scene);
    r.steps = Steps(s, dt);
    StepSapcontact(&stepper, &r);
    r.outcome = s.outcome(FreeFinalPositions(scene, stepper.state()));
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// One run of sapcontact's simulation path, RunSimulation (scene loading
// outside the timing; TimeStepper construction inside, as in `sapsim run`'s
// wall_time_s).
EngineRun RunSimulationOnce(const ComparisonScene& s, const std::string& yaml,
                            const std::vector<std::string>& overrides) {
  EngineRun r;
  try {
    const Scene scene = LoadSceneFromString(yaml, s.name, overrides);
    const SimulationSummary summary = RunSimulationTimed(scene, &r);
    r.outcome = s.outcome(FreeFinalPositions(scene, summary.final_state));
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// One run of MuJoCo on model `m`, compiled once per row (its mjData and the
// compilation outside the timing; nullptr: the model could not be made,
// `error` says why).
EngineRun RunMujocoOnce(const ComparisonScene& s, const mjModel* m,
                        const std::string& error, double dt) {
  EngineRun r;
  if (m == nullptr) {
    r.error = error.empty() ? "could not load the model" : error;
    return r;
  }
  MjDataPtr data(mj_makeData(m));
  if (data == nullptr) {
    r.error = "cannot allocate mjData";
    return r;
  }
  const mjData* d = data.get();
  r.steps = Steps(s, dt);
  StepMujoco(m, data.get(), &r);
  std::vector<Eigen::Vector3d> final;
  for (int b = 1; b < m->nbody; ++b) {  // body 0 is the world
    final.emplace_back(d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]);
  }
  r.outcome = s.outcome(final);
  CheckMujocoRun(m, d, &r);
  return r;
}

int FreeBodies(const ComparisonScene& s) {
  int n = 0;
  for (const ComparisonBody& b : s.bodies) n += b.fixed ? 0 : 1;
  return n;
}

std::string BodyMjcf(const ComparisonScene& s, double dt) {
  return ToMjcf(s, dt, 6 * FreeBodies(s), !SAPCONTACT_MUJOCO3);
}

// The runs of one row: sapcontact's library path, its simulation path and
// MuJoCo (each !ok with an empty error when not run).
struct RowRuns {
  EngineRun library, simulation, mujoco;
};

// Which engines and paths run (--engine, --path).
struct Selection {
  bool library{true};
  bool simulation{true};
  bool mujoco{true};
};

// The engines on one row, alternating (MeasureAlternating); empty functions
// for those not selected.
RowRuns MeasureRuns(const Selection& sel,
                    const std::function<EngineRun()>& library,
                    const std::function<EngineRun()>& simulation,
                    const std::function<EngineRun()>& mujoco) {
  const std::vector<EngineRun> runs = MeasureAlternating(
      {sel.library ? library : nullptr, sel.simulation ? simulation : nullptr,
       sel.mujoco ? mujoco : nullptr});
  return {runs[0], runs[1], runs[2]};
}

// The engines on one body scene and time step; MuJoCo's model is compiled
// once for the row (not for scenes that skip MuJoCo).
RowRuns MeasureRow(const ComparisonScene& s, double dt, double sigma,
                   const std::vector<std::string>& overrides,
                   const Selection& sel) {
  const std::string yaml = ToSapsimYaml(s, dt, sigma);
  Selection row_sel = sel;
  row_sel.mujoco = sel.mujoco && s.mujoco_skipped.empty();
  MjModelPtr model;
  std::string error;
  if (row_sel.mujoco) model.reset(LoadMjcf(BodyMjcf(s, dt), &error));
  RowRuns runs = MeasureRuns(
      row_sel, [&] { return RunSapcontactOnce(s, yaml, overrides, dt); },
      [&] { return RunSimulationOnce(s, yaml, overrides); },
      [&] { return RunMujocoOnce(s, model.get(), error, dt); });
  if (sel.mujoco && !s.mujoco_skipped.empty()) {
    runs.mujoco.error = "not run: " + s.mujoco_skipped;
  }
  return runs;
}

// --- Options and the table ---

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

// Logarithms of the rows' ratios to MuJoCo, for the geometric means.
struct LogRatios {
  std::vector<double> library, simulation;
};

std::string Format(const char* format, double x) {
  char text[32];
  std::snprintf(text, sizeof(text), format, x);
  return text;
}

// The --phases lines of a library-path run: time per step by phase, and
// both engines' counters per step (means; MuJoCo's when it ran).
void PrintPhases(const EngineRun& a, const EngineRun* mujoco = nullptr) {
  std::printf(
      "  phases us/step: collision %.1f, model %.1f, assembly %.1f, "
      "factorization %.1f, line search %.1f, other solver %.1f\n",
      a.us_collision, a.us_model, a.us_assembly, a.us_factorization,
      a.us_line_search, a.us_solver_other);
  auto per = [](double x, double n) { return n > 0 ? x / n : 0.0; };
  std::printf(
      "  counters/step: contacts %.1f (penetrating %.1f, speculative %.1f), "
      "islands %.1f (largest %.0f DOFs), Newton its %.2f (summed over "
      "islands %.2f), factorizations %.2f, low-rank updates %.1f, line-search "
      "evaluations %.1f (%.2f per island iteration); Hessian blocks since an "
      "island's previous factorization: %.1f changed, %.1f unchanged\n",
      a.mean_contacts, a.mean_penetrating, a.mean_speculative, a.mean_islands,
      a.mean_largest_island, a.mean_iterations, a.mean_island_iterations,
      a.mean_factorizations, a.mean_low_rank_updates,
      a.mean_line_search_iterations,
      per(a.mean_line_search_iterations, a.mean_island_iterations),
      a.mean_changed_blocks, a.mean_unchanged_blocks);
  if (mujoco != nullptr && (mujoco->ok || mujoco->steps > 0)) {
    const EngineRun& m = *mujoco;
    std::printf(
        "  MuJoCo counters/step: contacts %.1f (rows %.1f), islands %.1f "
        "(largest %.0f DOFs), Newton its %.2f (summed over islands %.2f), "
        "factorizations %.2f, Cholesky updates %.1f, line-search evaluations "
        "%.1f (%.2f per island iteration)\n",
        m.mean_contacts, m.mean_constraint_rows, m.mean_islands,
        m.mean_largest_island, m.mean_iterations, m.mean_island_iterations,
        m.mean_factorizations, m.mean_low_rank_updates,
        m.mean_line_search_iterations,
        per(m.mean_line_search_iterations, m.mean_island_iterations));
  }
}

// One table row (and the --phases line, the CSV line). `same_outcome`: the
// two sapcontact paths compute the same outcome (body rows), so that a
// difference is reported.
void PrintRow(const std::string& name, double dt, const std::string& outcome,
              const RowRuns& runs, bool same_outcome, Options* options,
              LogRatios* log_ratios) {
  const EngineRun& a = runs.library;
  const EngineRun& s = runs.simulation;
  const EngineRun& b = runs.mujoco;
  // Iterations, contacts and the outcome of sapcontact: the library run's,
  // else the simulation run's.
  const EngineRun& sap = a.ok ? a : s;
  const bool both = a.ok && b.ok;
  const bool sim_both = s.ok && b.ok;
  const double ratio = both ? a.us_per_step / b.us_per_step : NAN;
  const double sim_ratio = sim_both ? s.us_per_step / b.us_per_step : NAN;
  if (both) log_ratios->library.push_back(std::log(ratio));
  if (sim_both) log_ratios->simulation.push_back(std::log(sim_ratio));
  char its[32], contacts[32];
  // MuJoCo's counts: "-" when it did not run (not selected, or its model
  // could not be made).
  const bool mj_counts = b.ok || b.steps > 0;
  std::snprintf(its, sizeof(its), "%.2f/%s", sap.mean_iterations,
                mj_counts ? Format("%.2f", b.mean_iterations).c_str() : "-");
  std::snprintf(contacts, sizeof(contacts), "%.0f/%s", sap.mean_contacts,
                mj_counts ? Format("%.0f", b.mean_contacts).c_str() : "-");
  std::string notes;
  if (!a.ok && !a.error.empty()) notes += "  sapcontact: " + a.error;
  if (!s.ok && !s.error.empty()) notes += "  simulation: " + s.error;
  if (!b.error.empty()) notes += "  mujoco: " + b.error;
  if (same_outcome && a.ok && s.ok && a.outcome != s.outcome) {
    notes += "  simulation path outcome " + Format("%.6g", s.outcome);
  }
  std::printf(
      "%-12s %6g %6d | %9s %9s %10s %6s %6s | %11s | %11s | %-14s %12s "
      "%12s%s\n",
      name.c_str(), dt, sap.steps > 0 ? sap.steps : b.steps,
      a.ok ? Format("%.1f", a.us_per_step).c_str() : "-",
      s.ok ? Format("%.1f", s.us_per_step).c_str() : "-",
      b.ok ? Format("%.1f", b.us_per_step).c_str() : "-",
      both ? Format("%.2f", ratio).c_str() : "-",
      sim_both ? Format("%.2f", sim_ratio).c_str() : "-", its, contacts,
      outcome.c_str(), sap.ok ? Format("%.3g", sap.outcome).c_str() : "-",
      b.ok ? Format("%.3g", b.outcome).c_str() : "-", notes.c_str());
  if (options->phases && a.ok) PrintPhases(a, &b);
  std::fflush(stdout);
  if (options->csv.is_open()) {
    auto field = [](bool ok, double x) {
      std::ostringstream text;
      text.precision(9);
      if (ok) text << x;
      return text.str();
    };
    options->csv << '"' << name << "\"," << dt << ','
                 << (sap.steps > 0 ? sap.steps : b.steps) << ','
                 << field(a.ok, a.us_per_step) << ','
                 << field(b.ok, b.us_per_step) << ',' << field(both, ratio)
                 << ',' << sap.mean_iterations << ',' << b.mean_iterations
                 << ',' << sap.mean_contacts << ',' << b.mean_contacts << ",\""
                 << outcome << "\"," << field(sap.ok, sap.outcome) << ','
                 << field(b.ok, b.outcome) << ",\"" << b.error << "\","
                 << field(s.ok, s.us_per_step) << ','
                 << field(sim_both, sim_ratio) << ','
                 << field(a.ok, a.mean_contact_iterations) << ",\""
                 << (a.ok || a.error.empty() ? "" : a.error) << "\",\""
                 << (s.ok || s.error.empty() ? "" : s.error) << "\"\n";
  }
}

// --- Scaling (--scaling) ---

// Heap bytes in use (glibc: arena chunks in use plus mmap'ed chunks).
long long HeapBytesInUse() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<long long>(m.uordblks) + static_cast<long long>(m.hblkhd);
}

// Resident set size of this process now [bytes] (/proc/self/statm).
long long ResidentBytes() {
  long long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%lld %lld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

// Memory of sapcontact's library path on one scene, measured in a child
// process (fork) so that earlier rows' allocations do not count: after the
// scene is loaded and free heap pages are returned to the system
// (malloc_trim), heap bytes in use and the resident set; then the
// TimeStepper is constructed (heap again) and stepped for the scene's
// duration (heap again, the stepper still alive), the peak RSS growth being
// the largest resident set after construction or any step minus the first.
// (getrusage's ru_maxrss cannot serve: a forked child starts with the
// parent's resident pages, above what it needs after malloc_trim.)
struct MemoryUse {
  bool ok{false};
  long long heap_constructed{0};  ///< heap held by the new stepper [bytes]
  long long heap_stepped{0};      ///< heap held after stepping [bytes]
  long long peak_rss_growth{0};   ///< peak RSS growth over the run [bytes]
};

MemoryUse MeasureMemory(const std::string& yaml, const std::string& name,
                        const std::vector<std::string>& overrides, int steps) {
  MemoryUse use;
  int fds[2];
  if (pipe(fds) != 0) return use;
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return use;
  }
  if (child == 0) {
    close(fds[0]);
    MemoryUse m;
    try {
      const Scene scene = LoadSceneFromString(yaml, name, overrides);
      // Free heap pages the parent's earlier runs left resident would be
      // reused without growing the RSS: return them first.
      malloc_trim(0);
      const long long heap0 = HeapBytesInUse();
      const long long rss0 = ResidentBytes();
      TimeStepper stepper(scene);
      m.heap_constructed = HeapBytesInUse() - heap0;
      long long rss = ResidentBytes();
      for (int n = 0; n < steps; ++n) {
        stepper.Step();
        rss = std::max(rss, ResidentBytes());
      }
      m.heap_stepped = HeapBytesInUse() - heap0;
      m.peak_rss_growth = rss - rss0;
      m.ok = true;
    } catch (const std::exception&) {
    }
    const ssize_t written = write(fds[1], &m, sizeof(m));
    _exit(written == static_cast<ssize_t>(sizeof(m)) ? 0 : 1);
  }
  close(fds[1]);
  MemoryUse m;
  if (read(fds[0], &m, sizeof(m)) == static_cast<ssize_t>(sizeof(m))) use = m;
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return use;
}

// The scaling table: sapcontact's library path alone on the sphere piles of
// ScalingScenes() at each time step: time per step, contacts and Newton
// iterations per step, time per contact-iteration (stepping time over the
// sum over steps of contacts x max(Newton iterations, 1)), time per body
// and step, and memory per free body (MeasureMemory).
void PrintScaling(const std::vector<double>& dts, double sigma,
                  const std::vector<std::string>& overrides, Options* options) {
  std::printf(
      "scaling: sapcontact's library path only (MuJoCo not run); ns per "
      "contact-iteration = stepping time / sum over steps of contacts x "
      "max(Newton iterations, 1); memory per free body: heap in use "
      "(mallinfo2) after constructing the TimeStepper and after stepping, "
      "and peak RSS growth (/proc/self/statm after construction and every "
      "step), in a child process after malloc_trim\n");
  std::printf(
      "%-12s %6s %6s %6s | %10s %9s %7s %10s | %12s %11s | %11s %11s "
      "%11s\n",
      "scene", "dt", "steps", "bodies", "sap us", "contacts", "its",
      "contact-its", "ns/contact-it", "us/body-step", "heap B/body", "+stepped",
      "peak RSS");
  for (const ComparisonScene& s : ScalingScenes()) {
    const int bodies = FreeBodies(s);
    for (double dt : dts) {
      const std::string yaml = ToSapsimYaml(s, dt, sigma);
      const EngineRun a = MeasureAlternating(
          {[&] { return RunSapcontactOnce(s, yaml, overrides, dt); }})[0];
      if (!a.ok) {
        std::printf("%-12s %6g  sapcontact: %s\n", s.name.c_str(), dt,
                    a.error.c_str());
        continue;
      }
      const MemoryUse m = MeasureMemory(yaml, s.name, overrides, a.steps);
      const double ns_per_contact_iteration =
          a.mean_contact_iterations > 0
              ? 1e3 * a.us_per_step / a.mean_contact_iterations
              : NAN;
      const double us_per_body_step = a.us_per_step / bodies;
      std::printf(
          "%-12s %6g %6d %6d | %10.1f %9.1f %7.2f %10.1f | %12.1f %11.3f | "
          "%11s %11s %11s\n",
          s.name.c_str(), dt, a.steps, bodies, a.us_per_step, a.mean_contacts,
          a.mean_iterations, a.mean_contact_iterations,
          ns_per_contact_iteration, us_per_body_step,
          m.ok ? Format("%.0f", double(m.heap_constructed) / bodies).c_str()
               : "-",
          m.ok ? Format("%.0f", double(m.heap_stepped) / bodies).c_str() : "-",
          m.ok ? Format("%.0f", double(m.peak_rss_growth) / bodies).c_str()
               : "-");
      if (options->phases) PrintPhases(a);
      std::fflush(stdout);
      if (options->csv.is_open()) {
        options->csv << '"' << s.name << "\"," << dt << ',' << a.steps << ','
                     << bodies << ',' << a.us_per_step << ',' << a.mean_contacts
                     << ',' << a.mean_iterations << ','
                     << a.mean_contact_iterations << ','
                     << ns_per_contact_iteration << ',' << us_per_body_step
                     << ',' << (m.ok ? std::to_string(m.heap_constructed) : "")
                     << ',' << (m.ok ? std::to_string(m.heap_stepped) : "")
                     << ',' << (m.ok ? std::to_string(m.peak_rss_growth) : "")
                     << '\n';
      }
    }
  }
}

constexpr char kUsage[] =
    "usage: mujoco_comparison [--scene NAME] [--dt DT[,DT...]] [--csv FILE] "
    "[--engine both|sapcontact|mujoco]\n"
    "                         [--path both|library|simulation] [--sigma S] "
    "[--set KEY=VALUE]... [--phases] [--scaling] [--print-yaml] "
    "[--print-mjcf] [--mjcf]\n"
    "  columns: sap us = sapcontact's library path, a TimeStepper::Step loop "
    "[us per step]; sim us = its\n"
    "    simulation path, RunSimulation without output (what `sapsim run` and "
    "Python's Simulation.run do:\n"
    "    stepper construction, energy and summary bookkeeping), "
    "summary.wall_time_s / steps as in\n"
    "    summary.json; mujoco us = mj_step; ratio = sap us / mujoco us; "
    "sim/mj = sim us / mujoco us\n"
    "    (each engine's fastest of repeated runs, the engines alternating)\n"
    "  --engine sapcontact runs both sapcontact paths only, --engine mujoco "
    "MuJoCo only\n"
    "  --path library|simulation runs one sapcontact path only (default "
    "both)\n"
    "  --phases adds a line per row with the library path's time per step "
    "by phase [us]\n"
    "  --scaling prints the scaling table instead: sapcontact's library path "
    "alone on spheres 64, 512\n"
    "    and 4096 (dt 1e-3 unless --dt is given): ns per contact-iteration "
    "(stepping time / sum over\n"
    "    steps of contacts x max(Newton iterations, 1)), us per body and "
    "step, and heap and peak-RSS\n"
    "    bytes per free body (measured in a child process); with --phases "
    "also the time by phase\n"
    "  --sigma: sapcontact's friction regularization (default 1e-3; 0.005 "
    "matches MuJoCo's)\n"
    "  --set KEY=VALUE (repeatable) overrides a value of every sapcontact "
    "scene, as sapsim run --set does\n"
    "    (the scenes use the default contact model, lagged: --set "
    "solver.contact_model=sap runs the SAP paper's)\n"
    "  --mjcf prints the MJCF-file table instead: dart-doc's Gym humanoid, "
    "ant and half_cheetah\n"
    "    loaded from the same file by both engines (sapcontact as sapsim run "
    "model.xml does; MuJoCo\n"
    "    with the file's integrator and with Euler), no controls\n"
    "  --csv FILE writes the rows (or the scaling rows) as CSV\n"
    "  --print-yaml writes the sapsim scene of each selected case to stdout "
    "instead of running\n"
    "    (robot rows: the scene file and its --set overrides)\n"
    "  --print-mjcf writes the MuJoCo model of each selected case instead of "
    "running\n"
    "  scenes (simulated time 1 s unless given): rest, incline 20, stack 10, "
    "stack 20, spheres 64,\n"
    "    spheres 512 (0.3 s), spheres 4096 (0.1 s), grid 400, grid 729, grid "
    "1600, grid 10000 (0.1 s),\n"
    "    clutter 48; robots: wam tray, kr5 push (NAME matches a prefix, e.g. "
    "--scene spheres)\n";

int Main(int argc, char** argv) {
  std::string only_scene, csv_path, engines = "both", paths = "both";
  bool print_yaml = false;
  bool print_mjcf = false;
  bool scaling = false;
  bool mjcf_rows = false;
  bool dt_given = false;
  Options options;
  double sigma = 1e-3;
  std::vector<double> dts = {1e-3, 1e-2};
  std::vector<std::string> overrides;  // --set, applied to every scene
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
      dt_given = true;
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
    } else if (a == "--path") {
      paths = value();
      if (paths != "both" && paths != "library" && paths != "simulation") {
        std::fprintf(stderr,
                     "mujoco_comparison: --path both|library|simulation\n");
        return 2;
      }
    } else if (a == "--sigma") {
      sigma = std::stod(value());
    } else if (a == "--set") {
      overrides.push_back(value());
    } else if (a == "--print-yaml") {
      print_yaml = true;
    } else if (a == "--print-mjcf") {
      print_mjcf = true;
    } else if (a == "--phases") {
      options.phases = true;
    } else if (a == "--scaling") {
      scaling = true;
    } else if (a == "--mjcf") {
      mjcf_rows = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else {
      std::fprintf(stderr, "mujoco_comparison: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (mjcf_rows) {
    PrintMjcfRows(overrides);
    return 0;
  }
  if (scaling) {
    if (!csv_path.empty()) {
      options.csv.open(csv_path);
      options.csv << "scene,dt,steps,bodies,sap_us_per_step,sap_contacts,"
                     "sap_newton_iterations,sap_contact_iterations,"
                     "ns_per_contact_iteration,us_per_body_step,"
                     "heap_bytes_constructed,heap_bytes_stepped,"
                     "peak_rss_growth_bytes\n";
    }
    PrintScaling(dt_given ? dts : std::vector<double>{1e-3}, sigma, overrides,
                 &options);
    return 0;
  }
  Selection sel;
  sel.mujoco = engines != "sapcontact";
  sel.library = engines != "mujoco" && paths != "simulation";
  sel.simulation = engines != "mujoco" && paths != "library";
  if (!csv_path.empty()) {
    options.csv.open(csv_path);
    options.csv
        << "scene,dt,steps,sap_us_per_step,mujoco_us_per_step,ratio,"
           "sap_newton_iterations,mujoco_newton_iterations,sap_contacts,"
           "mujoco_contacts,outcome,sap_outcome,mujoco_outcome,mujoco_error,"
           "sim_us_per_step,sim_ratio,sap_contact_iterations,sap_error,"
           "sim_error\n";
  }
  const bool printing = print_yaml || print_mjcf;
  if (!printing) {
    // The contact model: the scenes' default unless --set names one.
    std::string model = "lagged (the default)";
    for (const std::string& o : overrides) {
      const std::string key = "solver.contact_model=";
      if (o.rfind(key, 0) == 0) model = o.substr(key.size());
    }
    std::string sets;
    for (const std::string& o : overrides) sets += " --set " + o;
    std::printf(
        "MuJoCo %s (library %d, header %d), Newton, elliptic cones; "
        "sapcontact contact model %s, beta %.2f, sigma %g, k = inf, tau_d = "
        "3 dt (sap), mu = %.1f%s\n",
        mj_versionString(), mj_version(), mjVERSION_HEADER, model.c_str(),
        kBeta, sigma, kFriction, sets.c_str());
    std::printf(
        "%-12s %6s %6s | %9s %9s %10s %6s %6s | %11s | %11s | %-14s %12s "
        "%12s\n",
        "scene", "dt", "steps", "sap us", "sim us", "mujoco us", "ratio",
        "sim/mj", "its sap/mj", "contacts", "outcome", "sapcontact", "mujoco");
  }
  auto selected = [&](const std::string& name) {
    return only_scene.empty() || name.rfind(only_scene, 0) == 0;
  };
  LogRatios log_ratios;
  for (const ComparisonScene& s : AllScenes()) {
    if (!selected(s.name)) continue;
    for (double dt : dts) {
      if (print_yaml) {
        std::printf("# %s, dt = %g\n%s", s.name.c_str(), dt,
                    ToSapsimYaml(s, dt, sigma).c_str());
        for (const std::string& o : overrides) {
          std::printf("#   --set %s\n", o.c_str());
        }
      }
      if (print_mjcf) {
        std::printf("<!-- %s, dt = %g -->\n%s", s.name.c_str(), dt,
                    BodyMjcf(s, dt).c_str());
      }
      if (printing) continue;
      const RowRuns runs = MeasureRow(s, dt, sigma, overrides, sel);
      PrintRow(s.name, dt, s.outcome_name, runs, true, &options, &log_ratios);
    }
  }
  for (const RobotComparisonScene& s : AllRobotScenes()) {
    if (!selected(s.name)) continue;
    std::string robot_mjcf, robot_error;
    bool hulls_printed = false;
    for (double dt : dts) {
      RobotRow row;
      try {
        row = MakeRobotRow(s, dt, sigma, &robot_mjcf, &robot_error, overrides);
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
      const RowRuns runs = MeasureRuns(
          sel, [&] { return RunSapcontactRobotOnce(row); },
          [&] { return RunSimulationRobotOnce(row); },
          [&] { return RunMujocoRobotOnce(row); });
      PrintRow(s.name, dt, s.outcome_name, runs, false, &options, &log_ratios);
      std::printf("%s\n",
                  RobotMotionLine(s, runs.library, runs.mujoco).c_str());
      std::fflush(stdout);
    }
  }
  auto geometric_mean = [](const std::vector<double>& logs) {
    double sum = 0;
    for (double l : logs) sum += l;
    return std::exp(sum / logs.size());
  };
  if (!log_ratios.library.empty()) {
    std::printf("geometric mean of the library ratios over %zu rows: %.2f\n",
                log_ratios.library.size(), geometric_mean(log_ratios.library));
  }
  if (!log_ratios.simulation.empty()) {
    std::printf("geometric mean of the simulation ratios over %zu rows: %.2f\n",
                log_ratios.simulation.size(),
                geometric_mean(log_ratios.simulation));
  }
  return 0;
}

}  // namespace
}  // namespace sapcontact::comparison

int main(int argc, char** argv) {
  return sapcontact::comparison::Main(argc, argv);
}