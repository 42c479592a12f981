// `sapsim fclib`: solve FCLib problem files (fclib/fclib_solver.h) and
// print a table, optionally a CSV with the columns
//   name,contacts,solver,status,iterations,solve_time_s,objective,
//   convex_residual,coulomb_residual,error
// (name: file name without .hdf5; residuals relative,
// fclib/fclib_residuals.h; error: why a problem was not solved or a file
// was bad). A number that is not finite is an empty cell (never nan or
// inf). Every file is read in a child process first (ProbeFclibFile): a
// damaged file that makes libfclib or HDF5 exit, crash or hang is a row
// with status bad_file and its error, and the batch goes on.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_solver.h"

namespace sapcontact::cli {

struct FclibCommandOptions {
  std::vector<std::string> files;
  std::string solver{"rigid"};
  /// "solver.KEY=VALUE" settings (see ApplyFclibSetting).
  std::vector<std::string> settings;
  std::string csv;
  /// Whether --csv was given (an empty path is then an error).
  bool csv_given{false};
  bool quiet{false};
  /// Each file is first read in a child process (ProbeFclibFile), stopped
  /// after this many seconds [s].
  double read_timeout_s{60.0};
};

/// Adds the `fclib` subcommand to `app`, filling `options`.
CLI::App* AddFclibCommand(CLI::App& app, FclibCommandOptions* options);

/// Applies one "solver.KEY=VALUE" setting. Keys (fclib/fclib_solver.h):
/// max_iterations (of the selected solver); rigid: feasibility_tolerance,
/// gap_tolerance, max_polish_iterations, psd_tolerance, linear_solver
/// (auto|dense|sparse), refine (true|false), refine_tolerance,
/// refine_max_iterations; sap: near_rigid_threshold (beta),
/// friction_regularization (sigma), rel_tolerance, abs_tolerance,
/// soft_norm_tolerance, line_search (exact|backtracking), linear_solver
/// (auto|dense|cholmod|block_sparse), continuation (true|false),
/// continuation_factor, rank_tolerance. @throws std::invalid_argument naming
/// the setting.
void ApplyFclibSetting(const std::string& assignment,
                       FclibSolverOptions* options);

/// Runs it. Exit status: 0 every problem solved (solver success with finite
/// residuals), 1 some solver failed, 2 bad input (a file that is not a
/// readable FCLib problem — the others are still solved, and the file is a
/// row with its error — a bad setting, or an unwritable CSV).
int RunFclib(const FclibCommandOptions& options);

}  // namespace sapcontact::cli
