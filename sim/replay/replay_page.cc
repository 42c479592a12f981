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

#include "sapcontact/sim/geometry/shape_traits.h"
#include "sapcontact/sim/replay/replay.h"
#include "sapcontact/sim/replay/replay_template.h"
#include "sapcontact/sim/stepping/csv_reader.h"

#ifndef SAPCONTACT_THREE_JS_PATH
#define SAPCONTACT_THREE_JS_PATH "/usr/share/javascript/three/three.min.js"
#endif

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Pose tracks of the moving objects at the frame times of trajectory.csv.
struct Tracks {
  std::vector<double> times;               // frame times [s], ascending
  std::vector<int> object;                 // track -> object index
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

// --- replay_scene.json ---

struct SceneObject {
  std::string name, shape, material, motion;
  // The shape's parameters in sim/geometry/shape_traits.h order (box: size;
  // sphere: radius; capsule: radius, length).
  std::vector<double> dims;
  bool fixed{false};
  double pose[7];
  int material_index{0};
  /// Radius of a sphere about the origin holding the shape [m] (0: a plane).
  double bounding_radius{0.0};
  /// A mesh's hull: index into ReplayScene::meshes (-1: not a mesh).
  int mesh{-1};
};

/// A mesh's convex hull as drawn: vertices (x, y, z, ...) [m] and faces as
/// triangles (index triples), fanned from each face polygon.
struct SceneMesh {
  std::vector<double> vertices;
  std::vector<int> triangles;
};

struct ReplayScene {
  std::string source;
  double time_step{0.0};
  std::vector<std::string> materials;
  std::vector<SceneObject> objects;
  std::vector<SceneMesh> meshes;
};

// replay_scene.json's "meshes" (absent in files of scenes without meshes).
std::vector<SceneMesh> ReadMeshes(
    const Json& j,
    const std::function<void(const std::string&, const std::string&)>& fail) {
  std::vector<SceneMesh> meshes;
  if (!j.contains("meshes")) return meshes;
  const Json& list = j["meshes"];
  if (!list.is_array()) fail("meshes", "not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "meshes[" + std::to_string(i) + "]";
    const Json& m = list[i];
    SceneMesh mesh;
    if (!m.is_object() || !m.contains("vertices") ||
        !m["vertices"].is_array() || m["vertices"].size() % 3 != 0 ||
        m["vertices"].size() < 12) {
      fail(where + ".vertices", "not a list of 3 n numbers (n >= 4)");
    }
    for (const Json& v : m["vertices"]) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        fail(where + ".vertices", "not a list of finite numbers");
      }
      mesh.vertices.push_back(v.get<double>());
    }
    const int n = static_cast<int>(mesh.vertices.size() / 3);
    if (!m.contains("faces") || !m["faces"].is_array() ||
        m["faces"].size() < 4) {
      fail(where + ".faces", "not a list of at least 4 faces");
    }
    for (const Json& f : m["faces"]) {
      if (!f.is_array() || f.size() < 3) {
        fail(where + ".faces", "a face is not a list of 3 or more indices");
      }
      std::vector<int> loop;
      for (const Json& k : f) {
        if (!k.is_number_integer() || k.get<int>() < 0 || k.get<int>() >= n) {
          fail(where + ".faces", "a vertex index is not an integer in [0, " +
                                     std::to_string(n) + ")");
        }
        loop.push_back(k.get<int>());
      }
      for (size_t t = 1; t + 1 < loop.size(); ++t) {
        mesh.triangles.insert(mesh.triangles.end(),
                              {loop[0], loop[t], loop[t + 1]});
      }
    }
    meshes.push_back(std::move(mesh));
  }
  return meshes;
}

ReplayScene ReadReplayScene(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw ReplayError("cannot read " + path.string());
  Json j;
  try {
    j = Json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ReplayError(path.string() + ": not JSON: " + e.what());
  }
  const std::string file = path.string();
  auto fail = [&](const std::string& field, const std::string& what) {
    throw ReplayError(file + ": " + field + ": " + what);
  };
  if (!j.is_object() || j.value("format", "") != "sapcontact replay scene") {
    fail("format", "not \"sapcontact replay scene\"");
  }
  if (j.value("version", 0) != 1) fail("version", "not 1");
  ReplayScene scene;
  scene.source = j.value("scene", "");
  const Json& dt = j["time_step"];
  if (!dt.is_number() || !(dt.get<double>() > 0)) {
    fail("time_step", "not a positive number");
  }
  scene.time_step = dt.get<double>();
  const Json& materials = j["materials"];
  if (!materials.is_array()) fail("materials", "not a list");
  for (const Json& m : materials) {
    if (!m.is_string()) fail("materials", "not a list of names");
    scene.materials.push_back(m.get<std::string>());
  }
  scene.meshes = ReadMeshes(j, fail);
  const Json& objects = j["objects"];
  if (!objects.is_array()) fail("objects", "not a list");
  for (size_t i = 0; i < objects.size(); ++i) {
    const Json& o = objects[i];
    const std::string where = "objects[" + std::to_string(i) + "]";
    auto text = [&](const char* key) {
      if (!o.contains(key) || !o[key].is_string()) {
        fail(where + "." + key, "missing or not a string");
      }
      return o[key].get<std::string>();
    };
    auto positive = [&](const char* key, bool zero_ok) {
      if (!o.contains(key) || !o[key].is_number() ||
          !std::isfinite(o[key].get<double>()) || o[key].get<double>() < 0 ||
          (!zero_ok && o[key].get<double>() == 0)) {
        fail(where + "." + key, zero_ok ? "missing or not a number >= 0"
                                        : "missing or not a number > 0");
      }
      return o[key].get<double>();
    };
    SceneObject s;
    s.name = text("name");
    s.shape = text("shape");
    s.material = text("material");
    s.motion = text("motion");
    const std::optional<ShapeType> type = ShapeTypeFromName(s.shape);
    if (!type) {
      fail(where + ".shape",
           "'" + s.shape + "' is not one of " + ShapeTypeNames(", "));
    }
    // The parameters in the table's order make the page's dims.
    for (const ShapeParameter& p : TraitsOf(*type).parameters) {
      if (p.kind != ShapeParameterKind::kLength) continue;
      const std::string field = where + "." + p.key;
      if (p.count == 1) {
        s.dims.push_back(positive(p.key, p.zero_allowed));
        continue;
      }
      const Json& values = o[p.key];
      const std::string list =
          "a list of " + std::to_string(p.count) + " numbers";
      if (!values.is_array() || static_cast<int>(values.size()) != p.count) {
        fail(field, "not " + list);
      }
      for (const Json& v : values) {
        if (!v.is_number() || !(v.get<double>() > 0) ||
            !std::isfinite(v.get<double>())) {
          fail(field, "not " + list + " > 0");
        }
        s.dims.push_back(v.get<double>());
      }
    }
    if (*type == ShapeType::kMesh) {
      if (!o.contains("mesh") || !o["mesh"].is_number_integer() ||
          o["mesh"].get<int>() < 0 ||
          o["mesh"].get<int>() >= static_cast<int>(scene.meshes.size())) {
        fail(where + ".mesh", "missing or not an index into meshes");
      }
      s.mesh = o["mesh"].get<int>();
    }
    if (TraitsOf(*type).bounded) {
      if (o.contains("bounding_radius")) {
        s.bounding_radius = positive("bounding_radius", false);
      } else if (*type != ShapeType::kMesh) {  // files without the field
        Shape shape;
        shape.type = *type;
        size_t next = 0;
        for (const ShapeParameter& p : TraitsOf(*type).parameters) {
          SetShapeParameter(
              &shape, p,
              std::vector<double>(s.dims.begin() + next,
                                  s.dims.begin() + next + p.count));
          next += p.count;
        }
        s.bounding_radius = BoundingRadius(shape);
      } else {
        fail(where + ".bounding_radius", "missing");
      }
    }
    if (s.motion != "trajectory" && s.motion != "poses" &&
        s.motion != "static") {
      fail(where + ".motion",
           "'" + s.motion + "' is not one of trajectory, poses, static");
    }
    if (!o.contains("fixed") || !o["fixed"].is_boolean()) {
      fail(where + ".fixed", "missing or not true/false");
    }
    s.fixed = o["fixed"].get<bool>();
    const Json& pose = o["pose"];
    if (!pose.is_array() || pose.size() != 7) {
      fail(where + ".pose",
           "not a list of 7 numbers (x, y, z, qw, qx, qy, qz)");
    }
    for (int k = 0; k < 7; ++k) {
      if (!pose[k].is_number() || !std::isfinite(pose[k].get<double>())) {
        fail(where + ".pose", "not a list of 7 finite numbers");
      }
      s.pose[k] = pose[k].get<double>();
    }
    const auto m =
        std::find(scene.materials.begin(), scene.materials.end(), s.material);
    s.material_index = m == scene.materials.end()
                           ? 0
                           : static_cast<int>(m - scene.materials.begin());
    scene.objects.push_back(s);
  }
  return scene;
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

  // Tracks: objects that move, by the file that holds their poses.
  Tracks tracks;
  std::unordered_map<std::string, int> from_trajectory, from_poses;
  std::vector<int> track_of_object(scene.objects.size(), -1);
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const SceneObject& o = scene.objects[i];
    if (o.motion == "static") continue;
    const int k = static_cast<int>(tracks.object.size());
    track_of_object[i] = k;
    tracks.object.push_back(static_cast<int>(i));
    (o.motion == "trajectory" ? from_trajectory : from_poses)[o.name] = k;
  }
  tracks.poses.resize(tracks.object.size());
  tracks.set.resize(tracks.object.size());
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
  for (size_t k = 0; k < tracks.object.size(); ++k) {
    const double* initial = scene.objects[tracks.object[k]].pose;
    for (int f = 0; f < frames_run; ++f) {
      if (tracks.set[k][f]) continue;
      const double* from = f == 0 ? initial : &tracks.poses[k][7 * (f - 1)];
      std::copy(from, from + 7, tracks.poses[k].begin() + 7 * f);
    }
  }

  // Frames kept: evenly thinned to the limits, the first and last kept.
  const long moving =
      std::max<long>(1, static_cast<long>(tracks.object.size()));
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
  data += "],\"t\":[";
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

  ReplayPageInfo info;
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
