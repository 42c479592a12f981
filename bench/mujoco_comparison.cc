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
//                               [--engine both|sapcontact|mujoco] [--sigma S]
//                               [--phases] [--print-yaml] [--print-mjcf]
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
// row says so. MuJoCo 3 sizes its arena itself.
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/comparison_engines.h"
#include "bench/comparison_robot_rows.h"
#include "bench/comparison_robots.h"
#include "bench/comparison_scenes.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::comparison {
namespace {

// --- Body rows (bench/comparison_scenes.h) ---

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

// One run of MuJoCo (model compilation and mjData outside the timing).
EngineRun RunMujocoOnce(const ComparisonScene& s, const std::string& xml,
                        double dt) {
  EngineRun r;
  MjModelPtr model;
  MjDataPtr data;
  if (!MakeMujoco(xml, &model, &data, &r.error)) return r;
  const mjModel* m = model.get();
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
      std::printf("%s\n", RobotMotionLine(s, a, b).c_str());
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