// `sapsim view DIR`: write the replay page DIR/replay.html of an earlier
// `sapsim run --out DIR` (sim/replay/replay.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace sapcontact::cli {

struct ViewOptions {
  /// The run directory.
  std::string dir;
  /// At most this many frames in the page.
  int max_frames{2000};
  bool quiet{false};
};

/// Adds the `view` subcommand to `app`, filling `options`.
CLI::App* AddViewCommand(CLI::App& app, ViewOptions* options);

/// Writes the page. Returns the exit status: 0 written; 2 bad input (DIR is
/// not a run directory, a malformed file: the message names the file, line
/// and field; three.js missing; the page cannot be written).
int RunView(const ViewOptions& options);

}  // namespace sapcontact::cli
