// `sapsim fclib`: solve FCLib problem files (fclib/fclib_solver.h) and
// print a table, optionally a CSV with the columns
//   name,contacts,solver,status,iterations,solve_time_s,objective,
//   convex_residual,coulomb_residual
// (name: file name without .hdf5; residuals relative,
// fclib/fclib_residuals.h).
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
  bool quiet{false};
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
/// (auto|dense|cholmod), continuation (true|false), continuation_factor,
/// rank_tolerance. @throws std::invalid_argument naming the setting.
void ApplyFclibSetting(const std::string& assignment,
                       FclibSolverOptions* options);

/// Runs it. Exit status: 0 every problem solved (solver success), 1 some
/// solver failed, 2 bad input (a file that is not a readable FCLib problem
/// — the others are still solved — a bad setting, or an unwritable CSV).
int RunFclib(const FclibCommandOptions& options);

}  // namespace sapcontact::cli
