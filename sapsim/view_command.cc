#include "sapsim/view_command.h"

#include <cstdio>

#include "sapcontact/sim/replay/replay.h"

namespace sapcontact::cli {

CLI::App* AddViewCommand(CLI::App& app, ViewOptions* o) {
  CLI::App* view = app.add_subcommand(
      "view",
      "Write DIR/replay.html for the run directory DIR of an earlier `sapsim "
      "run --out DIR` (as `sapsim run --html` does after its run): a "
      "self-contained page (three.js inlined from Debian's libjs-three, no "
      "network) that plays the run in a browser, from DIR/trajectory.csv, "
      "DIR/replay_scene.json (the scene's shapes, written by every run), "
      "DIR/replay_poses.csv (prescribed bodies and robot links, when the "
      "scene has any) and DIR/contacts.csv if present (sapsim run "
      "--contacts). Prints the page's path. Exit status 2 when DIR is not a "
      "run directory or a file in it is malformed (the message names the "
      "file, line and field), or three.js is missing.");
  view->add_option("dir", o->dir, "the run directory (sapsim run --out DIR)")
      ->required();
  view->add_option("--max-frames", o->max_frames,
                   "at most this many frames in the page (the run's frames "
                   "are thinned evenly)")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  view->add_flag("--quiet,-q", o->quiet, "print nothing but errors");
  return view;
}

int RunView(const ViewOptions& o) {
  ReplayPageOptions options;
  options.max_frames = o.max_frames;
  try {
    const ReplayPageInfo page = WriteReplayPage(o.dir, options);
    if (!o.quiet) {
      std::printf(
          "Replay: %s (%.1f MB, %d objects, %d of %d frames%s); open it in "
          "a browser\n",
          page.path.c_str(), page.bytes / 1e6, page.objects, page.frames,
          page.frames_in_run,
          page.has_contacts
              ? (", " + std::to_string(page.contacts) + " contacts").c_str()
              : ", no contacts.csv");
    }
  } catch (const ReplayError& e) {
    std::fprintf(stderr, "sapsim view: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace sapcontact::cli
