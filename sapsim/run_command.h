// `sapsim run`: simulate a YAML scene and write trajectory.csv and
// summary.json (sim/stepping/simulation.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sapcontact::cli {

struct RunOptions {
  std::string scene;
  std::string out{"out"};
  std::vector<std::string> overrides;
  /// --threads N: solver.threads (applied after the overrides); 0: not
  /// given.
  int threads{0};
  bool quiet{false};
  /// --export-fclib PATH: each step's contact problem as an FCLib local
  /// problem, one file per step PATH-stepNNNNNN.hdf5
  /// (fclib/fclib_step_export.h).
  std::string export_fclib;
  /// Whether --export-fclib was given (an empty PATH is then an error).
  bool export_fclib_given{false};
  /// --html: after the run, write DIR/replay.html (sim/replay/replay.h);
  /// implies contacts.
  bool html{false};
  /// --contacts: write DIR/contacts.csv (SimulationOptions::write_contacts).
  bool contacts{false};
  /// --plot: write DIR/steps.csv and, after the run, the PNGs of
  /// studies/run_plots.h.
  bool plot{false};
  /// --links: write DIR/links.csv (SimulationOptions::write_links).
  bool links{false};
};

/// Adds the `run` subcommand to `app`, filling `options`.
CLI::App* AddRunCommand(CLI::App& app, RunOptions* options);

/// Runs it. Returns the process exit status: 0 success; 1 simulation
/// finished with failed solver steps (outputs written, the failures counted
/// in summary.json), or a run that went numerically bad and was stopped
/// (SimulationError: the message names the step and the body or contact;
/// no outputs); 2 bad input (scene file, override, output directory, an
/// empty --out, bodies piled at one place beyond the collision limits): the
/// message on stderr names the file, line and field. Whenever the status is
/// not 0 or 1-with-failed-steps, options.out/trajectory.csv and
/// options.out/summary.json do not exist afterwards. A warning goes to
/// stderr (unless quiet) when bodies overlap at the start by more than
/// scene_limits::kOverlapWarning.
int Run(const RunOptions& options);

}  // namespace sapcontact::cli
