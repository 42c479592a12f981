// replay.html (replay.h): reads the run directory, thins the frames,
// writes compact JSON into the page template with three.js inlined.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/replay/replay.h"
#include "sapcontact/sim/replay/replay_scene_reader.h"
#include "sapcontact/sim/replay/replay_template.h"
#include "sapcontact/sim/stepping/csv_reader.h"

#ifndef SAPCONTACT_THREE_JS_PATH
#define SAPCONTACT_THREE_JS_PATH "/usr/share/javascript/three/three.min.js"
#endif

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using replay_internal::ReadReplayScene;
using replay_internal::ReplayScene;
using replay_internal::SceneMesh;
using replay_internal::SceneObject;

// Pose tracks of the moving objects at the frame times of trajectory.csv.
struct Tracks {
  std::vector<double> times;               // frame times [s], ascending
  std::vector<const double*> initial;      // per track, the initial pose
  std::vector<std::vector<double>> poses;  // per track, 7 per frame
  std::vector<std::vector<bool>> set;      // per track, per frame
};

// The frame of time t: the exact time, else the nearest one.
int FrameOf(const std::vector<double>& times, double t) {
  const auto it = std::lower_bound(times.begin(), times.end(), t);
  if (it == times.end()) return static_cast<int>(times.size()) - 1;
  const int i = static_cast<int>(it - times.begin());
  if (i > 0 && t - times[i - 1] < *it - t) return i - 1;
  return i;
}

// Reads the pose rows of trajectory.csv (name_field "body") or
// replay_poses.csv ("name") into the tracks of the objects named in
// `track_of` (name -> track). The first file read with rows defines the
// frames (its distinct times); the rows of a later one go to the nearest
// frame. Returns the number of rows.
size_t ReadPoses(const fs::path& path, const char* name_field,
                 const std::unordered_map<std::string, int>& track_of,
                 Tracks* tracks) {
  const bool define_frames = tracks->times.empty();
  CsvReader csv(path);
  const int time = csv.Column("time");
  const int name = csv.Column(name_field);
  int c[7];
  const char* fields[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  for (int i = 0; i < 7; ++i) c[i] = csv.Column(fields[i]);
  struct Row {
    double time;
    int track;
    double pose[7];
  };
  std::vector<Row> rows;
  double last_time = -INFINITY;
  while (csv.Next()) {
    Row r;
    r.time = csv.Number(time);
    if (r.time < last_time) {
      throw ReplayError(csv.Where() + ": field 'time': " + csv.Text(time) +
                        " is earlier than the row before (rows must be in "
                        "time order)");
    }
    if (define_frames && r.time > last_time) tracks->times.push_back(r.time);
    last_time = r.time;
    const auto it = track_of.find(csv.Text(name));
    if (it == track_of.end()) {
      throw ReplayError(csv.Where() + ": field '" + name_field + "': '" +
                        csv.Text(name) + "' is not a moving object of " +
                        kReplaySceneFile);
    }
    r.track = it->second;
    for (int i = 0; i < 7; ++i) r.pose[i] = csv.Number(c[i]);
    rows.push_back(r);
  }
  const size_t frames = tracks->times.size();
  for (size_t k = 0; k < tracks->poses.size(); ++k) {
    tracks->poses[k].resize(7 * frames, 0.0);
    tracks->set[k].resize(frames, false);
  }
  for (const Row& r : rows) {
    const int f = FrameOf(tracks->times, r.time);
    std::copy(r.pose, r.pose + 7, tracks->poses[r.track].begin() + 7 * f);
    tracks->set[r.track][f] = true;
  }
  return rows.size();
}

// A contact as the page draws it: point [m] and impulse on B [N s].
struct PageContact {
  float x[3];
  float impulse[3];
  float magnitude;
};

// contacts.csv grouped by time.
struct ContactGroups {
  std::vector<double> times;
  std::vector<std::vector<PageContact>> contacts;
};

ContactGroups ReadContacts(const fs::path& path) {
  CsvReader csv(path);
  const char* names[10] = {"x",          "y",         "z",         "nx",
                           "ny",         "nz",        "impulse_n", "impulse_tx",
                           "impulse_ty", "impulse_tz"};
  int c[10];
  for (int i = 0; i < 10; ++i) c[i] = csv.Column(names[i]);
  const int time = csv.Column("time");
  ContactGroups g;
  while (csv.Next()) {
    const double t = csv.Number(time);
    if (!g.times.empty() && t < g.times.back()) {
      throw ReplayError(csv.Where() + ": field 'time': " + csv.Text(time) +
                        " is earlier than the row before (rows must be in "
                        "time order)");
    }
    if (g.times.empty() || t > g.times.back()) {
      g.times.push_back(t);
      g.contacts.emplace_back();
    }
    double v[10];
    for (int i = 0; i < 10; ++i) v[i] = csv.Number(c[i]);
    PageContact k;
    for (int i = 0; i < 3; ++i) {
      k.x[i] = static_cast<float>(v[i]);
      k.impulse[i] = static_cast<float>(v[6] * v[3 + i] + v[7 + i]);
    }
    k.magnitude =
        std::sqrt(k.impulse[0] * k.impulse[0] + k.impulse[1] * k.impulse[1] +
                  k.impulse[2] * k.impulse[2]);
    g.contacts.back().push_back(k);
  }
  return g;
}

// --- Compact numbers ---

// Appends v with `decimals` digits after the point, trailing zeros dropped
// ("0.25", "-1", "0").
void AppendFixed(std::string* out, double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, v);
  std::string s(text);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  out->append(s);
}

// Appends v with `digits` significant digits ("%.*g").
void AppendSignificant(std::string* out, double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*g", digits, v);
  out->append(text);
}

// A JSON string literal that is safe inside <script>: "</" is escaped.
std::string ScriptSafeJson(const Json& value) {
  std::string s =
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Appends v rounded to an integer.
void AppendInt(std::string* out, double v) {
  out->append(std::to_string(std::llround(v)));
}

// The page's robot links (their track, initial pose and visuals) and
// visual meshes: vertices quantised to 16 bits over each mesh's bounding
// box ("o" its low corner, "q" the step [m]), triangles as indices. With
// more visual triangles than `max_triangles` the meshes are left out (and
// their links draw their collision geometry).
void AppendLinks(
    const ReplayScene& scene, const std::vector<int>& track_of_link,
    long max_triangles,
    const std::function<void(std::string*, const double*)>& append_pose,
    std::string* data, ReplayPageInfo* info) {
  long triangles = 0;
  for (const auto& m : scene.visual_meshes) {
    triangles += static_cast<long>(m.triangles.size() / 3);
  }
  const bool meshes = triangles <= max_triangles;
  *data += ",\"links\":[";
  for (size_t i = 0; i < scene.links.size(); ++i) {
    const replay_internal::SceneLink& l = scene.links[i];
    *data += (i > 0 ? ",{\"n\":" : "{\"n\":") + ScriptSafeJson(l.name) +
             ",\"k\":" + std::to_string(track_of_link[i]) + ",\"p\":";
    append_pose(data, l.pose);
    *data += ",\"v\":[";
    bool first = true;
    for (const replay_internal::SceneVisual& v : l.visuals) {
      if (v.mesh >= 0 && !meshes) continue;
      *data += first ? "{\"s\":\"" : ",{\"s\":\"";
      first = false;
      *data += v.shape + "\",\"d\":[";
      for (size_t k = 0; k < v.dims.size(); ++k) {
        if (k > 0) *data += ',';
        AppendSignificant(data, v.dims[k], 6);
      }
      *data += ']';
      if (v.mesh >= 0) *data += ",\"h\":" + std::to_string(v.mesh);
      *data += ",\"p\":";
      append_pose(data, v.pose);
      if (v.coloured) {
        *data += ",\"c\":[";
        for (int k = 0; k < 4; ++k) {
          if (k > 0) *data += ',';
          AppendFixed(data, v.rgba[k], 3);
        }
        *data += ']';
      }
      *data += '}';
      ++info->visuals;
    }
    *data += "]}";
  }
  *data += "],\"vmeshes\":[";
  for (size_t k = 0; meshes && k < scene.visual_meshes.size(); ++k) {
    const replay_internal::SceneVisualMesh& m = scene.visual_meshes[k];
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) lo[a] = hi[a] = m.vertices[a];
    for (size_t i = 0; i < m.vertices.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], m.vertices[i]);
      hi[i % 3] = std::max(hi[i % 3], m.vertices[i]);
    }
    const double extent =
        std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9});
    const double step = extent / 65535.0;
    *data += k > 0 ? ",{\"o\":[" : "{\"o\":[";
    for (int a = 0; a < 3; ++a) {
      if (a > 0) *data += ',';
      AppendSignificant(data, lo[a], 9);
    }
    *data += "],\"q\":";
    AppendSignificant(data, step, 9);
    *data += ",\"v\":[";
    for (size_t i = 0; i < m.vertices.size(); ++i) {
      if (i > 0) *data += ',';
      AppendInt(data, (m.vertices[i] - lo[i % 3]) / step);
    }
    *data += "],\"f\":[";
    for (size_t i = 0; i < m.triangles.size(); ++i) {
      if (i > 0) *data += ',';
      *data += std::to_string(m.triangles[i]);
    }
    *data += "]}";
    info->visual_triangles += static_cast<long>(m.triangles.size() / 3);
  }
  *data += ']';
  info->visual_meshes_dropped = meshes ? 0 : scene.visual_meshes.size();
}

// Replaces the one occurrence of `marker` in `page` with `text`.
void Fill(std::string* page, const std::string& marker,
          const std::string& text) {
  const size_t at = page->find(marker);
  if (at == std::string::npos) {
    throw ReplayError("replay page template: no " + marker +
                      " (a build problem)");
  }
  page->replace(at, marker.size(), text);
}

}  // namespace

std::string DefaultThreeJsPath() {
  if (const char* env = std::getenv("SAPCONTACT_THREE_JS")) {
    if (*env != '\0') return env;
  }
  std::error_code ec;
  if (fs::exists(SAPCONTACT_THREE_JS_PATH, ec)) return SAPCONTACT_THREE_JS_PATH;
  return "/usr/share/javascript/three/three.min.js";
}

std::string ReadThreeJs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ReplayError("cannot read three.js at " + path +
                      " (the replay page inlines it: install the Debian "
                      "package libjs-three, or set SAPCONTACT_THREE_JS to a "
                      "three.min.js)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (s.find("REVISION") == std::string::npos ||
      s.find("</script") != std::string::npos) {
    throw ReplayError(path +
                      ": not a three.js build (no REVISION) or one "
                      "that cannot be inlined (contains </script)");
  }
  return s;
}

namespace {

ReplayPageInfo WritePage(const std::string& dir,
                         const ReplayPageOptions& options) {
  const fs::path d(dir);
  std::error_code ec;
  if (!fs::is_directory(d, ec)) {
    throw ReplayError(dir +
                      ": not a directory (give the --out directory of "
                      "a `sapsim run`)");
  }
  if (!fs::exists(d / "trajectory.csv", ec)) {
    throw ReplayError(dir +
                      ": not a run directory: no trajectory.csv (write "
                      "one with `sapsim run SCENE --out " +
                      dir + "`)");
  }
  if (!fs::exists(d / kReplaySceneFile, ec)) {
    throw ReplayError((d / kReplaySceneFile).string() +
                      ": missing (the run was written by an earlier sapsim "
                      "that did not record its scene: run it again)");
  }
  const std::string three =
      ReadThreeJs(options.three_js_path.empty() ? DefaultThreeJsPath()
                                                : options.three_js_path);
  const ReplayScene scene = ReadReplayScene(d / kReplaySceneFile);

  // Tracks: objects that move, by the file that holds their poses; robot
  // link geometries move with their link's track.
  Tracks tracks;
  std::unordered_map<std::string, int> from_trajectory, from_poses;
  std::vector<int> track_of_object(scene.objects.size(), -1);
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const SceneObject& o = scene.objects[i];
    if (o.motion == "static" || o.link >= 0) continue;
    const int k = static_cast<int>(tracks.initial.size());
    track_of_object[i] = k;
    tracks.initial.push_back(o.pose);
    (o.motion == "trajectory" ? from_trajectory : from_poses)[o.name] = k;
  }
  std::vector<int> track_of_link(scene.links.size(), -1);
  for (size_t i = 0; i < scene.links.size(); ++i) {
    if (scene.links[i].motion == "static") continue;
    const int k = static_cast<int>(tracks.initial.size());
    track_of_link[i] = k;
    tracks.initial.push_back(scene.links[i].pose);
    from_poses[scene.links[i].name] = k;
  }
  tracks.poses.resize(tracks.initial.size());
  tracks.set.resize(tracks.initial.size());
  // Frames: the times of trajectory.csv; with no free bodies, those of
  // replay_poses.csv; when nothing moves, one at t = 0.
  if (ReadPoses(d / "trajectory.csv", "body", from_trajectory, &tracks) == 0 &&
      !from_trajectory.empty()) {
    throw ReplayError((d / "trajectory.csv").string() +
                      ": no rows (the run wrote no frames)");
  }
  const bool have_poses = fs::exists(d / kReplayPosesFile, ec);
  if (!from_poses.empty() && !have_poses) {
    throw ReplayError((d / kReplayPosesFile).string() +
                      ": missing (the scene has prescribed bodies or robot "
                      "links whose poses it records: run it again)");
  }
  if (have_poses && !from_poses.empty()) {
    ReadPoses(d / kReplayPosesFile, "name", from_poses, &tracks);
  }
  if (tracks.times.empty()) tracks.times.push_back(0.0);
  const int frames_run = static_cast<int>(tracks.times.size());
  // An object missing at a frame keeps its pose of the frame before (or its
  // initial pose).
  for (size_t k = 0; k < tracks.initial.size(); ++k) {
    const double* initial = tracks.initial[k];
    for (int f = 0; f < frames_run; ++f) {
      if (tracks.set[k][f]) continue;
      const double* from = f == 0 ? initial : &tracks.poses[k][7 * (f - 1)];
      std::copy(from, from + 7, tracks.poses[k].begin() + 7 * f);
    }
  }

  // Frames kept: evenly thinned to the limits, the first and last kept.
  const long moving =
      std::max<long>(1, static_cast<long>(tracks.initial.size()));
  const long cap = std::max<long>(
      2, std::min<long>(options.max_frames,
                        options.max_pose_numbers / (7 * moving)));
  std::vector<int> kept;
  if (frames_run <= cap) {
    for (int f = 0; f < frames_run; ++f) kept.push_back(f);
  } else {
    for (long k = 0; k < cap; ++k) {
      const int f = static_cast<int>(
          std::llround(static_cast<double>(k) * (frames_run - 1) / (cap - 1)));
      if (kept.empty() || f > kept.back()) kept.push_back(f);
    }
  }

  // Decimals of positions: 5 significant digits of the scene's extent.
  double extent = 1e-3;
  for (const SceneObject& o : scene.objects) {
    if (o.shape == "plane") continue;
    for (int i = 0; i < 3; ++i) extent = std::max(extent, std::abs(o.pose[i]));
  }
  for (const auto& p : tracks.poses) {
    for (int f : kept) {
      for (int i = 0; i < 3; ++i) {
        extent = std::max(extent, std::abs(p[7 * f + i]));
      }
    }
  }
  const int decimals =
      std::clamp(4 - static_cast<int>(std::floor(std::log10(extent))), 0, 9);
  auto append_pose = [&](std::string* out, const double* pose) {
    out->push_back('[');
    for (int i = 0; i < 7; ++i) {
      if (i > 0) out->push_back(',');
      AppendFixed(out, pose[i], i < 3 ? decimals : 4);
    }
    out->push_back(']');
  };

  // The page's data (compact JSON; see replay_template.html for its use).
  std::string data;
  data.reserve(1 << 20);
  Json header;
  header["scene"] = scene.source;
  header["time_step"] = scene.time_step;
  header["materials"] = scene.materials;
  data += "{\"header\":" + ScriptSafeJson(header);
  data += ",\"objects\":[";
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const SceneObject& o = scene.objects[i];
    if (i > 0) data += ',';
    data += "{\"n\":" + ScriptSafeJson(o.name) + ",\"s\":\"" + o.shape +
            "\",\"d\":[";
    for (size_t k = 0; k < o.dims.size(); ++k) {
      if (k > 0) data += ',';
      AppendSignificant(&data, o.dims[k], 6);
    }
    data += "],\"r\":";
    AppendSignificant(&data, o.bounding_radius, 6);
    if (o.mesh >= 0) data += ",\"h\":" + std::to_string(o.mesh);
    if (o.link >= 0) {
      data += ",\"l\":" + std::to_string(o.link) + ",\"lp\":";
      append_pose(&data, o.pose_in_link);
    }
    data += ",\"m\":" + std::to_string(o.material_index) +
            ",\"f\":" + (o.fixed ? "1" : "0") +
            ",\"k\":" + std::to_string(track_of_object[i]) + ",\"p\":";
    append_pose(&data, o.pose);
    data += '}';
  }
  data += "],\"meshes\":[";
  for (size_t k = 0; k < scene.meshes.size(); ++k) {
    const SceneMesh& m = scene.meshes[k];
    data += k > 0 ? ",{\"v\":[" : "{\"v\":[";
    for (size_t i = 0; i < m.vertices.size(); ++i) {
      if (i > 0) data += ',';
      AppendSignificant(&data, m.vertices[i], 6);
    }
    data += "],\"f\":[";
    for (size_t i = 0; i < m.triangles.size(); ++i) {
      if (i > 0) data += ',';
      data += std::to_string(m.triangles[i]);
    }
    data += "]}";
  }
  data += ']';
  ReplayPageInfo info;
  AppendLinks(scene, track_of_link, options.max_visual_triangles, append_pose,
              &data, &info);
  data += ",\"t\":[";
  for (size_t k = 0; k < kept.size(); ++k) {
    if (k > 0) data += ',';
    AppendSignificant(&data, tracks.times[kept[k]], 7);
  }
  data += "],\"tracks\":[";
  for (size_t k = 0; k < tracks.poses.size(); ++k) {
    if (k > 0) data += ',';
    data += '[';
    for (size_t f = 0; f < kept.size(); ++f) {
      const double* p = &tracks.poses[k][7 * kept[f]];
      for (int i = 0; i < 7; ++i) {
        if (f > 0 || i > 0) data += ',';
        AppendFixed(&data, p[i], i < 3 ? decimals : 4);
      }
    }
    data += ']';
  }
  data += ']';

  const fs::path contacts_path = d / "contacts.csv";
  if (fs::exists(contacts_path, ec)) {
    ContactGroups groups = ReadContacts(contacts_path);
    info.has_contacts = true;
    const long per_frame = std::max<long>(
        1, options.max_contacts / static_cast<long>(kept.size()));
    std::string offsets = "[0", values;
    long count = 0;
    std::vector<float> magnitudes;
    for (int f : kept) {
      const double t = tracks.times[f];
      if (!groups.times.empty()) {
        const int g = FrameOf(groups.times, t);
        if (std::abs(groups.times[g] - t) <= 0.5 * scene.time_step) {
          std::vector<PageContact>& c = groups.contacts[g];
          if (static_cast<long>(c.size()) > per_frame) {
            std::partial_sort(c.begin(), c.begin() + per_frame, c.end(),
                              [](const PageContact& a, const PageContact& b) {
                                return a.magnitude > b.magnitude;
                              });
            info.contacts_dropped += static_cast<long>(c.size()) - per_frame;
          }
          const long n = std::min<long>(per_frame, c.size());
          for (long i = 0; i < n; ++i) {
            for (int k = 0; k < 3; ++k) {
              if (!values.empty()) values += ',';
              AppendFixed(&values, c[i].x[k], decimals);
            }
            for (int k = 0; k < 3; ++k) {
              values += ',';
              AppendSignificant(&values, c[i].impulse[k], 3);
            }
            magnitudes.push_back(c[i].magnitude);
          }
          count += n;
        }
      }
      offsets += "," + std::to_string(count);
    }
    info.contacts = count;
    data += ",\"contacts\":{\"offsets\":" + offsets + "],\"values\":[" +
            values + "],\"reference\":";
    // The arrows' scale: the 90th percentile of the impulses shown, so that
    // one impact does not shrink every resting contact's arrow to nothing.
    float reference = 0.0f;
    if (!magnitudes.empty()) {
      const auto at = magnitudes.begin() + (magnitudes.size() * 9) / 10;
      std::nth_element(magnitudes.begin(), at, magnitudes.end());
      reference = *at;
    }
    AppendSignificant(&data, reference, 4);
    data += '}';
  }
  data += ",\"info\":{\"frames_run\":" + std::to_string(frames_run) +
          ",\"contacts_dropped\":" + std::to_string(info.contacts_dropped) +
          "}}";

  std::string page = ReplayTemplateHtml();
  // three.js first: the data (body names) could hold the other marker.
  Fill(&page, "/*THREE_JS*/", three);
  Fill(&page, "/*ROBOT_JS*/", ReplayRobotJs());
  Fill(&page, "/*REPLAY_DATA*/", data);
  const fs::path out_path = d / kReplayPageFile;
  const fs::path partial = d / (std::string(kReplayPageFile) + ".partial");
  {
    std::ofstream out(partial, std::ios::binary);
    out << page;
    out.close();
    if (!out) {
      fs::remove(partial, ec);
      throw ReplayError("cannot write " + partial.string());
    }
  }
  fs::rename(partial, out_path, ec);
  if (ec) {
    fs::remove(partial, ec);
    throw ReplayError("cannot write " + out_path.string() + ": " +
                      ec.message());
  }
  info.path = out_path.string();
  info.bytes = static_cast<long>(page.size());
  info.objects = static_cast<int>(scene.objects.size());
  info.frames_in_run = frames_run;
  info.frames = static_cast<int>(kept.size());
  return info;
}

}  // namespace

ReplayPageInfo WriteReplayPage(const std::string& dir,
                               const ReplayPageOptions& options) {
  try {
    return WritePage(dir, options);
  } catch (const CsvError& e) {
    throw ReplayError(e.what());
  }
}

}  // namespace sapcontact
