#include "sapsim/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_step_export.h"
#include "sapcontact/sim/replay/replay.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/run_plots.h"

namespace sapcontact::cli {

CLI::App* AddRunCommand(CLI::App& app, RunOptions* o) {
  CLI::App* run = app.add_subcommand(
      "run",
      "Simulate a YAML scene (schema: docs/scenes.md; examples: "
      "config/scenes/*.yaml), or a MuJoCo MJCF model (.xml) or an SDFormat "
      "world or model (.sdf, .world, .model) as the scene it describes "
      "(docs/robots.md, \"Running MJCF files\" and \"Running SDFormat "
      "files\"; SDFormat <include>s resolve through SDF_PATH), to its "
      "duration "
      "and write DIR/trajectory.csv "
      "(columns time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz: every moving "
      "body every output.every steps, SI units, world frame) and "
      "DIR/summary.json (run statistics, energies, final state of every "
      "body); print a one-paragraph summary on stdout and, when stderr is a "
      "terminal, a progress bar on stderr. Exit status: 0 success; 1 the "
      "simulation finished but some solver steps failed (counted in "
      "summary.json), or a run went numerically bad and was stopped (the "
      "error names the step and the body or contact; no outputs); 2 bad "
      "input (command line, scene file, --set, output directory, values "
      "outside the limits of docs/scenes.md \"Limits\": e.g. time_step 1e-7 "
      "to 1 s, at most 1e7 steps, |velocity| <= 1e4 m/s, positions within "
      "1e6 m, at most 1e5 bodies, 1e5 contacts): the error names the file, "
      "line and field, and DIR is left without trajectory.csv and "
      "summary.json (outputs of an earlier run there are removed so that "
      "they cannot be mistaken for this one's). Warnings go to stderr as "
      "'sapsim: warning: ...' (also with --quiet) and into summary.json: "
      "bodies overlapping by more than 1 mm at the start, a mesh that "
      "collides as its convex hull because it is not convex, and what a "
      "robot's URDF loader dropped or approximated. Shapes: plane, box, "
      "sphere, capsule, cylinder, mesh (STL, OBJ, Collada).");
  run->add_option("scene", o->scene,
                  "the scene file (YAML), an MJCF model (.xml), or an "
                  "SDFormat world or model (.sdf, .world, .model)")
      ->required();
  run->add_option("--out,-o", o->out,
                  "output directory DIR (created if missing; its "
                  "trajectory.csv and summary.json are replaced)")
      ->capture_default_str();
  run->add_option(
      "--set,-s", o->overrides,
      "KEY=VALUE: override a scene value by its dotted path before "
      "validation; VALUE is YAML (a number, .inf, a word or a flow list). "
      "Repeatable, applied in order. Examples: --set time_step=0.01, --set "
      "duration=0.5, --set solver.model=rigid, --set "
      "solver.near_rigid_threshold=0.1, --set "
      "materials.default.stiffness=.inf, --set materials.default.friction=0.3, "
      "--set bodies.box.mass=5 (a body by its YAML name), --set "
      "gravity=[0,0,-1.62], --set gravity.2=-1.62, --set output.every=1. "
      "Unknown keys are errors");
  run->add_option("--threads,-j", o->threads,
                  "N: threads of the contact solve and collision (the scene's "
                  "solver.threads, >= 1); the results are bitwise identical "
                  "for every N")
      ->check(CLI::Range(1, 256));
  run->add_flag(
      "--quiet,-q", o->quiet,
      "print nothing but warnings and errors (no progress bar, no summary)");
  run->add_option(
         "--export-fclib", o->export_fclib,
         "PATH(.hdf5): write every step's contact problem as an FCLib local "
         "problem (W = J A^-1 J', plus SAP's regularization R for the sap "
         "model, so that its convex QP is the problem solved; q = J v* - "
         "v_hat; the step's impulses as /solution), one file per step with "
         "contacts: PATH-stepNNNNNN.hdf5 (libfclib stores one problem per "
         "file). Solve them with `sapsim fclib`. Not for scenes with robots "
         "or with similar or lagged contact (FCLib problems hold "
         "friction-cone contacts only)")
      ->each([o](const std::string&) { o->export_fclib_given = true; });
  run->add_flag(
      "--html", o->html,
      "after the run, write DIR/replay.html: a self-contained page (three.js "
      "inlined from Debian's libjs-three; opens from file:// without "
      "network) that plays the run in a browser: bodies and robot links, "
      "play/pause, time slider, speed, orbiting camera, and contact points "
      "with impulse arrows (implies --contacts). `sapsim view DIR` writes it "
      "for an earlier run");
  run->add_flag("--contacts", o->contacts,
                "also write DIR/contacts.csv: every contact of the output "
                "steps (columns time,body_a,body_b,x,y,z,nx,ny,nz,phi,"
                "impulse_n,impulse_tx,impulse_ty,impulse_tz,slip_speed; "
                "docs/output.md)");
  run->add_flag("--links", o->links,
                "with robots, also write DIR/links.csv: every link's world "
                "pose and velocity at the output steps (columns time,robot,"
                "link,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz; docs/output.md)");
  run->add_flag(
      "--plot", o->plot,
      "also write DIR/steps.csv (one row per step: contacts, solver "
      "iterations and time, max penetration, energies) and, after the run, "
      "PNGs drawn by gnuplot: heights.png and speeds.png (every moving "
      "body's centre of mass), energy.png, contacts.png, iterations.png, "
      "solver_time.png, penetration.png (DIR/run_plots.gp redraws them)");
  return run;
}

namespace {

// Removes DIR/trajectory.csv, summary.json, joints.csv and the replay files
// if present (a failed run must not leave an earlier run's outputs looking
// like its own).
void RemoveOutputs(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  for (const char* name :
       {"trajectory.csv", "summary.json", "joints.csv", "contacts.csv",
        "steps.csv", "links.csv", kReplaySceneFile, kReplayPosesFile,
        kReplayPageFile}) {
    std::filesystem::remove(std::filesystem::path(dir) / name, ec);
  }
}

// "; contact models: sap, lagged": the contact models of the pairs of
// materials that bodies and robots use (two of one material only if two
// use it), when the sap solver model uses any but sap; else "".
std::string ContactModels(const Scene& scene) {
  if (scene.solver.model != SolverModel::kSap) return "";
  std::vector<int> users(scene.materials.size(), 0);
  for (const Body& b : scene.bodies) ++users.at(b.material_index);
  for (const RobotSpec& r : scene.robots) users.at(r.material_index) += 2;
  bool used[3] = {false, false, false};
  for (size_t i = 0; i < users.size(); ++i) {
    for (size_t j = i; j < users.size(); ++j) {
      if (users[i] == 0 || users[j] == 0 || (i == j && users[i] < 2)) continue;
      used[static_cast<int>(
          scene.MaterialPairParameters(static_cast<int>(i), static_cast<int>(j))
              .model)] = true;
    }
  }
  if (!used[1] && !used[2]) return "";
  std::string list;
  for (ContactModel m :
       {ContactModel::kSap, ContactModel::kSimilar, ContactModel::kLagged}) {
    if (!used[static_cast<int>(m)]) continue;
    list += (list.empty() ? "" : ", ") + std::string(ToString(m));
  }
  return "; contact models: " + list;
}

// The material name of a collider: a body ("box") or a robot's link
// geometry ("arm/link3/0": the robot's material).
std::string MaterialOfCollider(const Scene& scene, const std::string& name) {
  const int b = scene.FindBody(name);
  if (b >= 0) return scene.bodies[b].material;
  const int r = scene.FindRobot(name.substr(0, name.find('/')));
  if (r >= 0) return scene.robots[r].material;
  return "default";
}

}  // namespace

int Run(const RunOptions& o) {
  if (o.out.empty()) {
    std::fprintf(stderr,
                 "sapsim run: error: --out: the output directory is an empty "
                 "path (give a directory, e.g. --out out)\n");
    return 2;
  }
  Scene scene;
  int total = 0;
  try {
    std::vector<std::string> overrides = o.overrides;
    if (o.threads > 0) {
      overrides.push_back("solver.threads=" + std::to_string(o.threads));
    }
    scene = LoadScene(o.scene, overrides);
    total = StepCount(scene);
  } catch (const SceneError& e) {
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s: %s\n", o.scene.c_str(),
                 e.what());
    return 2;
  }
  // What the loader approximated or dropped (Scene::warnings).
  for (const std::string& w : scene.warnings) {
    std::fprintf(stderr, "sapsim: warning: %s: %s\n", o.scene.c_str(),
                 w.c_str());
  }
  // The initial poses: bodies piled at one place exceed the collision
  // limits (bad input); a deep overlap is worth a warning.
  try {
    const InitialOverlap overlap = FindInitialOverlap(scene);
    if (overlap.depth > scene_limits::kOverlapWarning) {
      char warning[1024];
      std::snprintf(
          warning, sizeof(warning),
          "bodies '%s' and '%s' overlap by %.3g m at the start (more than "
          "%g m; %d contacts at the initial poses): the contact will push "
          "them apart with energy the scene did not intend (docs/scenes.md, "
          "Limits)",
          overlap.name_a.c_str(), overlap.name_b.c_str(), overlap.depth,
          scene_limits::kOverlapWarning, overlap.contacts);
      std::fprintf(stderr, "sapsim: warning: %s: %s\n", o.scene.c_str(),
                   warning);
      scene.warnings.push_back(warning);  // into summary.json
    }
    for (const std::string& w : SelfCollisionOverlapWarnings(scene)) {
      std::fprintf(stderr, "sapsim: warning: %s: %s\n", o.scene.c_str(),
                   w.c_str());
      scene.warnings.push_back(w);
    }
  } catch (const CollisionLimitError& e) {
    RemoveOutputs(o.out);
    const std::vector<std::string> names = ColliderBodyNames(scene);
    std::fprintf(
        stderr,
        "sapsim run: error: %s: bodies: at the initial poses, %s ('%s' and "
        "'%s'): bodies piled at one place (a grid with spacing 0?); limits: "
        "docs/scenes.md, Limits\n",
        o.scene.c_str(), e.what(), names[e.body_a()].c_str(),
        names[e.body_b()].c_str());
    return 2;
  } catch (const std::invalid_argument& e) {
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s: %s\n", o.scene.c_str(),
                 e.what());
    return 2;
  }
  const bool progress = !o.quiet && isatty(STDERR_FILENO);
  SimulationOptions options;
  options.output_dir = o.out;
  options.write_contacts = o.contacts || o.html;
  options.write_steps = o.plot;
  options.write_links = o.links;
  int last_percent = -1;
  if (progress) {
    options.on_step = [&](const TimeStepper& stepper, const StepInfo& info) {
      const int percent = 100 * stepper.steps_taken() / total;
      if (percent == last_percent) return;
      last_percent = percent;
      const int width = 40, filled = width * percent / 100;
      std::fprintf(stderr, "\r[%.*s%*s] %3d%%  t = %.3f s  contacts %d", filled,
                   "========================================", width - filled,
                   "", percent, stepper.time(), info.contacts);
      std::fflush(stderr);
    };
  }
  // --export-fclib: after each step, its problem as an FCLib file.
  std::unique_ptr<FclibStepWriter> fclib;
  if (o.export_fclib_given && o.export_fclib.empty()) {
    RemoveOutputs(o.out);
    std::fprintf(stderr,
                 "sapsim run: error: --export-fclib: empty path (give a path "
                 "prefix, e.g. --export-fclib out/steps)\n");
    return 2;
  }
  if (!o.export_fclib.empty() && !scene.robots.empty()) {
    RemoveOutputs(o.out);
    std::fprintf(stderr,
                 "sapsim run: error: --export-fclib: %s has robots; an FCLib "
                 "problem holds contacts only (their joint limits, couplings "
                 "and actuation would be lost)\n",
                 o.scene.c_str());
    return 2;
  }
  if (!o.export_fclib.empty()) {
    // FCLib problems are Coulomb cone problems: a Hunt-Crossley contact's
    // cost (docs/theory.md §18) is not one, and the exported W, q and
    // impulses would not match.
    int hunt_crossley = -1;
    auto check = [&](int m) {
      if (m >= 0 && scene.materials[m].model != ContactModel::kSap) {
        hunt_crossley = m;
      }
    };
    for (const Body& b : scene.bodies) check(b.material_index);
    for (const auto& r : scene.robots) check(r.material_index);
    if (hunt_crossley >= 0) {
      const Material& m = scene.materials[hunt_crossley];
      RemoveOutputs(o.out);
      std::fprintf(stderr,
                   "sapsim run: error: --export-fclib: material '%s' of %s "
                   "uses the %s contact model; FCLib problems hold "
                   "friction-cone (sap) contacts only (--set "
                   "solver.contact_model=sap makes every material sap)\n",
                   m.name.c_str(), o.scene.c_str(), ToString(m.model));
      return 2;
    }
  }
  if (!o.export_fclib.empty()) {
    try {
      fclib = std::make_unique<FclibStepWriter>(
          o.export_fclib, std::filesystem::path(o.scene).stem().string());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sapsim run: error: %s\n", e.what());
      return 2;
    }
    options.on_step = [&fclib, progress_bar = options.on_step](
                          const TimeStepper& stepper, const StepInfo& info) {
      Eigen::VectorXd R, impulses = stepper.last_impulses();
      if (stepper.scene().solver.model == SolverModel::kSap) {
        R = StackRegularization(stepper.last_sap_results().R_n,
                                stepper.last_sap_results().R_t);
      }
      if (!impulses.allFinite()) impulses.resize(0);  // failed step
      fclib->Write(stepper.steps_taken() - 1,
                   stepper.time() - stepper.scene().time_step,
                   stepper.last_problem(), R, impulses);
      if (progress_bar) progress_bar(stepper, info);
    };
  }
  // The replay files: three.js must be there before a long run, not after;
  // an earlier run's page must not outlive this run.
  if (o.html) {
    try {
      ReadThreeJs(DefaultThreeJsPath());
    } catch (const ReplayError& e) {
      RemoveOutputs(o.out);
      std::fprintf(stderr, "sapsim run: error: --html: %s\n", e.what());
      return 2;
    }
  }
  {
    // Files this run may not write would not match it.
    std::error_code ec;
    const std::filesystem::path dir(o.out);
    std::filesystem::remove(dir / kReplayPageFile, ec);
    for (const std::string& png : RunPlotFiles()) {
      std::filesystem::remove(dir / png, ec);
    }
  }
  std::unique_ptr<ReplayPoseRecorder> poses;
  try {
    poses = std::make_unique<ReplayPoseRecorder>(scene, o.out);
  } catch (const ReplayError& e) {
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s\n", e.what());
    return 2;
  }
  if (poses->active()) {
    options.on_step = [&poses, before = options.on_step](
                          const TimeStepper& stepper, const StepInfo& info) {
      poses->Record(stepper);
      if (before) before(stepper, info);
    };
  }
  SimulationSummary s;
  try {
    s = RunSimulation(scene, options);
  } catch (const SimulationError& e) {
    // Numerically bad (or too many contacts on the way): stopped, no
    // outputs.
    if (progress) std::fprintf(stderr, "\n");
    RemoveOutputs(o.out);
    std::fprintf(
        stderr,
        "sapsim run: error: %s: %s; the run was stopped and no outputs "
        "were written\n",
        o.scene.c_str(), e.what());
    return 1;
  } catch (const std::invalid_argument& e) {
    if (progress) std::fprintf(stderr, "\n");
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s: %s\n", o.scene.c_str(),
                 e.what());
    return 2;
  } catch (const std::runtime_error& e) {
    if (progress) std::fprintf(stderr, "\n");
    RemoveOutputs(o.out);
    std::fprintf(stderr, "sapsim run: error: %s\n", e.what());
    return 2;
  }
  if (progress) std::fprintf(stderr, "\n");
  ReplayPageInfo page;
  try {
    poses->Commit();
    WriteReplayScene(scene, o.out);
    if (o.html) page = WriteReplayPage(o.out);
  } catch (const ReplayError& e) {
    std::fprintf(stderr, "sapsim run: error: %s\n", e.what());
    return 2;
  }
  // --plot: like a sweep's plots, a failure (gnuplot missing or failing)
  // leaves the run's files in place and makes the exit status 1.
  bool plotted = true;
  if (o.plot) {
    try {
      WriteRunPlots(o.out);
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "sapsim run: error: --plot: %s\n", e.what());
      plotted = false;
    }
  }
  if (!o.quiet) {
    std::printf(
        "%s: simulated %.3f s in %d steps of %g s (%s model%s) in %.2f s wall "
        "time (solver %.2f s, collision %.2f s). Contacts: mean %.1f, max %d. "
        "Iterations per step: mean %.2f, max %d. Failed steps: %d. Max "
        "penetration %.3e m. Kinetic energy %.4g J -> %.4g J; total energy "
        "never rose above its initial value by more than %.2e (relative). "
        "Output: %s/trajectory.csv, %s/summary.json%s\n",
        o.scene.c_str(), s.steps * s.time_step, s.steps, s.time_step,
        SolverModelName(scene.solver.model), ContactModels(scene).c_str(),
        s.wall_time_s, s.solver_time_s, s.collision_time_s, s.mean_contacts,
        s.max_contacts, s.mean_newton_iterations, s.max_newton_iterations,
        s.failed_steps, s.max_penetration_m, s.kinetic_energy_initial_J,
        s.kinetic_energy_final_J, std::max(0.0, s.energy_max_increase_rel),
        o.out.c_str(), o.out.c_str(),
        scene.robots.empty() ? "" : (", " + o.out + "/joints.csv").c_str());
    if (s.failed_steps > 0) {
      std::printf("First failure: %s\n", s.first_failure.c_str());
    }
    if (s.max_hover_m > kHoverReportThreshold &&
        s.max_hover_bodies.size() == 2) {
      const Vector3& p = s.max_hover_point_m;
      const std::string fix =
          (scene.solver.model == SolverModel::kRigid ? "--set solver.model=sap "
                                                     : "") +
          std::string("--set materials.") +
          MaterialOfCollider(scene, s.max_hover_bodies[1]) +
          ".model=lagged (or --set solver.contact_model=lagged for every "
          "material that names no model)";
      std::printf(
          "Gliding: sliding contacts pushed across gaps of up to %.3g m "
          "(between '%s' and '%s' at [%.4g, %.4g, %.4g] m, in the step "
          "ending at t = %.6g s): the hover of the convex relaxation (docs/"
          "theory.md §10), not Coulomb friction. The lagged contact model "
          "does not glide: %s (docs/theory.md §18).\n",
          s.max_hover_m, s.max_hover_bodies[0].c_str(),
          s.max_hover_bodies[1].c_str(), p.x(), p.y(), p.z(),
          s.max_hover_time_s, fix.c_str());
    }
    if (fclib) {
      std::printf("FCLib: %d step problems written to %s\n",
                  fclib->files_written(), fclib->PathPattern().c_str());
    }
    if (options.write_contacts) {
      std::printf("Contacts: %s/contacts.csv\n", o.out.c_str());
    }
    if (o.plot && plotted) {
      std::string list;
      for (const std::string& png : RunPlotFiles()) {
        list += (list.empty() ? "" : ", ") + png;
      }
      std::printf("Plots: %s/{%s} (data: %s/steps.csv)\n", o.out.c_str(),
                  list.c_str(), o.out.c_str());
    }
    if (o.html) {
      std::printf(
          "Replay: %s (%.1f MB, %d of %d frames%s); open it in a browser\n",
          page.path.c_str(), page.bytes / 1e6, page.frames, page.frames_in_run,
          page.has_contacts
              ? (", " + std::to_string(page.contacts) + " contacts").c_str()
              : "");
    }
  }
  return s.failed_steps > 0 || !plotted ? 1 : 0;
}

}  // namespace sapcontact::cli
