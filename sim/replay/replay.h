// The replay page of a run: a self-contained HTML file,
// DIR/replay.html, that shows a run's bodies moving in a browser (three.js,
// inlined; no network), from the files of its run directory:
//   DIR/replay_scene.json  what to draw: every body's and robot link
//                          geometry's shape, material, fixed flag and
//                          initial pose (WriteReplayScene; `sapsim run`
//                          writes it with every run)
//   DIR/trajectory.csv     the free bodies' poses (RunSimulation)
//   DIR/replay_poses.csv   poses of what trajectory.csv lacks: prescribed
//                          bodies and moving robot link frames
//                          (ReplayPoseRecorder; only when the scene has any)
//   DIR/contacts.csv       optional: contact points and impulses
//                          (SimulationOptions::write_contacts)
// Units SI, world frame, quaternions (w, x, y, z).
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

/// File names inside a run directory.
inline constexpr char kReplaySceneFile[] = "replay_scene.json";
inline constexpr char kReplayPosesFile[] = "replay_poses.csv";
inline constexpr char kReplayPageFile[] = "replay.html";

/// A run directory that cannot be read (missing or malformed file) or a page
/// that cannot be written; the message names the file, and the line and
/// field where there is one.
class ReplayError : public std::runtime_error {
 public:
  explicit ReplayError(const std::string& what) : std::runtime_error(what) {}
};

/// The JSON text of DIR/replay_scene.json for `scene`: format and version,
/// the scene's source file, time step [s], output.every, duration [s],
/// material names, and one object per body (scene order) and per robot
/// collision geometry (robots in scene order; named "<robot>/<link>/<i>" as
/// the time stepper's colliders): name, kind ("body" or "link"), shape
/// ("plane", "box", "sphere", "capsule") with size [m] (box edge lengths),
/// radius [m] and length [m] (capsule), material, fixed, the source of its
/// motion ("trajectory": trajectory.csv; "poses": replay_poses.csv;
/// "static": never moves) and its initial pose [x, y, z, qw, qx, qy, qz];
/// a link geometry also its link (index into "links") and pose in it.
/// "links": every robot link ("<robot>/<link>", motion "poses" or
/// "static", initial pose) with its URDF visuals (shape, parameters or
/// visual mesh index, pose in the link frame, rgba when given);
/// "meshes": each collision mesh's hull once; "visual_meshes": each visual
/// mesh once as written (vertices, triangles).
std::string ReplaySceneJson(const Scene& scene);

/// Writes ReplaySceneJson(scene) to dir/replay_scene.json.
/// @throws ReplayError when the file cannot be written.
void WriteReplayScene(const Scene& scene, const std::string& dir);

/// Records, at the cadence of trajectory.csv (the initial state, every
/// output.every steps and the last step), the world poses of what
/// trajectory.csv does not hold: prescribed bodies and the frames of robot
/// links that move ("<robot>/<link>"). Rows "time,name,x,y,z,qw,qx,qy,qz"
/// go to dir/replay_poses.csv.partial, renamed to replay_poses.csv by
/// Commit(); the partial file is removed if the recorder is destroyed
/// uncommitted. A scene with nothing to record writes no file.
class ReplayPoseRecorder {
 public:
  /// @throws ReplayError when the file cannot be opened.
  ReplayPoseRecorder(const Scene& scene, const std::string& dir);
  ~ReplayPoseRecorder();
  ReplayPoseRecorder(const ReplayPoseRecorder&) = delete;
  ReplayPoseRecorder& operator=(const ReplayPoseRecorder&) = delete;

  /// Whether the scene has anything to record.
  bool active() const { return file_ != nullptr; }
  /// Call after every step (SimulationOptions::on_step); writes a row per
  /// recorded object when the step is an output step.
  void Record(const TimeStepper& stepper);
  /// Closes the file and renames it to its final name.
  /// @throws ReplayError when that fails.
  void Commit();

 private:
  // One row per recorded object: prescribed bodies (`bodies`: every body's
  // pose) and moving robot links (`links`: X_WL per robot and link).
  void WriteRows(double time, const std::vector<Pose>& bodies,
                 const std::vector<std::vector<Eigen::Isometry3d>>& links);

  const Scene& scene_;
  std::filesystem::path partial_, final_;
  std::FILE* file_{nullptr};
  int every_{1};
  int steps_{1};
  bool wrote_initial_{false};
};

/// Limits that keep the page small and responsive for large runs.
struct ReplayPageOptions {
  /// At most this many frames in the page (the run's output frames are
  /// thinned evenly, the first and last kept).
  int max_frames{2000};
  /// At most this many pose numbers (7 per moving object and frame): fewer
  /// frames for scenes with many moving objects.
  long max_pose_numbers{2'500'000};
  /// At most this many contacts over all frames; each frame keeps its
  /// largest impulses.
  long max_contacts{150'000};
  /// At most this many triangles of robot visual meshes (URDF <visual>, each
  /// mesh once however many links show it; Atlas's 30 Collada meshes have
  /// 20065): beyond it the visual meshes are left out and their links draw
  /// their collision geometry.
  long max_visual_triangles{1'000'000};
  /// three.js (r111 or later, the UMD build); empty: DefaultThreeJsPath().
  std::string three_js_path;
};

/// What WriteReplayPage wrote.
struct ReplayPageInfo {
  std::string path;      ///< dir/replay.html
  long bytes{0};         ///< its size [bytes]
  int objects{0};        ///< bodies and robot geometries drawn
  int frames_in_run{0};  ///< output frames of trajectory.csv
  int frames{0};         ///< frames in the page
  bool has_contacts{false};
  long contacts{0};          ///< contacts in the page
  long contacts_dropped{0};  ///< over max_contacts, not in the page
  int visuals{0};            ///< robot visuals in the page
  long visual_triangles{0};  ///< triangles of the visual meshes in the page
  /// Visual meshes left out (over max_visual_triangles).
  size_t visual_meshes_dropped{0};
};

/// The path of three.min.js: the SAPCONTACT_THREE_JS environment variable
/// if set, else the path found when the project was configured, else
/// Debian's /usr/share/javascript/three/three.min.js (package libjs-three).
std::string DefaultThreeJsPath();

/// Reads three.js from `path`. @throws ReplayError naming the path and the
/// package (libjs-three) when it cannot be read.
std::string ReadThreeJs(const std::string& path);

/// Reads the run directory `dir` and writes dir/replay.html.
/// @throws ReplayError: dir is not a run directory (no trajectory.csv or
/// replay_scene.json), a file is malformed (message with file, line and
/// field), three.js is missing, or the page cannot be written.
ReplayPageInfo WriteReplayPage(const std::string& dir,
                               const ReplayPageOptions& options = {});

}  // namespace sapcontact
