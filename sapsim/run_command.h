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
  bool quiet{false};
  /// --export-fclib PATH: each step's contact problem as an FCLib local
  /// problem, one file per step PATH-stepNNNNNN.hdf5
  /// (fclib/fclib_step_export.h).
  std::string export_fclib;
};

/// Adds the `run` subcommand to `app`, filling `options`.
CLI::App* AddRunCommand(CLI::App& app, RunOptions* options);

/// Runs it. Returns the process exit status: 0 success, 1 simulation
/// finished with failed solver steps (outputs written, the failures counted
/// in summary.json), 2 bad input (scene file, override, output directory):
/// the message on stderr names the file, line and field, and
/// options.out/trajectory.csv and options.out/summary.json do not exist
/// afterwards.
int Run(const RunOptions& options);

}  // namespace sapcontact::cli
