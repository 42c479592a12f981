// The whole `sapsim` program as a function (sapsim.cc calls it), so that
// tests run command lines in process: the subcommands of run_command.h,
// sweep_command.h, fclib_command.h and view_command.h plus `estimate` and `demo`.
//
// One error path: every bad command line (unknown option, missing or empty
// value, a value that fails its check, no subcommand) prints
//   sapsim[ SUBCOMMAND]: error: <what CLI11 found>
//   Run 'sapsim[ SUBCOMMAND] --help' for the options.
// on stderr and returns 2, the status of every other bad input; `--help`
// prints the help on stdout and returns 0. CLI11's own exit codes (105,
// 106, 109, 114, ...) never reach the caller.
#pragma once

namespace sapcontact::cli {

/// Parses argv and runs the selected subcommand. Returns the process exit
/// status: 0 success, 1 a run finished but something failed (solver steps,
/// a numerically bad run, unsolved FCLib problems), 2 bad input.
int Main(int argc, const char* const* argv);

}  // namespace sapcontact::cli
