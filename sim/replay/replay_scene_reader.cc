// replay_scene.json read back (replay_scene_reader.h).
#include "sapcontact/sim/replay/replay_scene_reader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/replay/replay.h"

namespace sapcontact {
namespace replay_internal {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using FailFunction =
    std::function<void(const std::string&, const std::string&)>;

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

// A pose [x, y, z, qw, qx, qy, qz] of 7 finite numbers into `pose`.
void ReadPose(const Json& j, const std::string& where, const FailFunction& fail,
              double* pose) {
  if (!j.is_array() || j.size() != 7) {
    fail(where, "not a list of 7 numbers (x, y, z, qw, qx, qy, qz)");
  }
  for (int k = 0; k < 7; ++k) {
    if (!j[k].is_number() || !std::isfinite(j[k].get<double>())) {
      fail(where, "not a list of 7 finite numbers");
    }
    pose[k] = j[k].get<double>();
  }
}

// "visual_meshes" (absent in files without robot visual meshes).
std::vector<SceneVisualMesh> ReadVisualMeshes(const Json& j,
                                              const FailFunction& fail) {
  std::vector<SceneVisualMesh> meshes;
  if (!j.contains("visual_meshes")) return meshes;
  const Json& list = j["visual_meshes"];
  if (!list.is_array()) fail("visual_meshes", "not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "visual_meshes[" + std::to_string(i) + "]";
    const Json& m = list[i];
    SceneVisualMesh mesh;
    if (!m.is_object() || !m.contains("vertices") ||
        !m["vertices"].is_array() || m["vertices"].size() % 3 != 0 ||
        m["vertices"].size() < 9) {
      fail(where + ".vertices", "not a list of 3 n numbers (n >= 3)");
    }
    for (const Json& v : m["vertices"]) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        fail(where + ".vertices", "not a list of finite numbers");
      }
      mesh.vertices.push_back(v.get<double>());
    }
    const int n = static_cast<int>(mesh.vertices.size() / 3);
    if (!m.contains("triangles") || !m["triangles"].is_array() ||
        m["triangles"].empty() || m["triangles"].size() % 3 != 0) {
      fail(where + ".triangles", "not a list of 3 k vertex indices (k >= 1)");
    }
    for (const Json& k : m["triangles"]) {
      if (!k.is_number_integer() || k.get<int>() < 0 || k.get<int>() >= n) {
        fail(where + ".triangles", "a vertex index is not an integer in [0, " +
                                       std::to_string(n) + ")");
      }
      mesh.triangles.push_back(k.get<int>());
    }
    meshes.push_back(std::move(mesh));
  }
  return meshes;
}

// "links" (absent in files written before robot links were recorded).
std::vector<SceneLink> ReadLinks(const Json& j, size_t visual_meshes,
                                 const FailFunction& fail) {
  std::vector<SceneLink> links;
  if (!j.contains("links")) return links;
  const Json& list = j["links"];
  if (!list.is_array()) fail("links", "not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "links[" + std::to_string(i) + "]";
    const Json& l = list[i];
    SceneLink link;
    if (!l.is_object() || !l.contains("name") || !l["name"].is_string()) {
      fail(where + ".name", "missing or not a string");
    }
    link.name = l["name"].get<std::string>();
    link.motion = l.value("motion", "");
    if (link.motion != "poses" && link.motion != "static") {
      fail(where + ".motion", "'" + link.motion + "' is not poses or static");
    }
    ReadPose(l.value("pose", Json()), where + ".pose", fail, link.pose);
    const Json& visuals = l.value("visuals", Json::array());
    if (!visuals.is_array()) fail(where + ".visuals", "not a list");
    for (size_t k = 0; k < visuals.size(); ++k) {
      const std::string at = where + ".visuals[" + std::to_string(k) + "]";
      const Json& v = visuals[k];
      SceneVisual visual;
      if (!v.is_object() || !v.contains("shape") || !v["shape"].is_string()) {
        fail(at + ".shape", "missing or not a string");
      }
      visual.shape = v["shape"].get<std::string>();
      auto number = [&](const char* key) {
        if (!v.contains(key) || !v[key].is_number() ||
            !std::isfinite(v[key].get<double>()) || v[key].get<double>() < 0) {
          fail(at + "." + key, "missing or not a number >= 0");
        }
        visual.dims.push_back(v[key].get<double>());
      };
      if (visual.shape == "box") {
        const Json& size = v.value("size", Json());
        if (!size.is_array() || size.size() != 3) {
          fail(at + ".size", "not a list of 3 numbers");
        }
        for (const Json& x : size) {
          if (!x.is_number() || !(x.get<double>() > 0) ||
              !std::isfinite(x.get<double>())) {
            fail(at + ".size", "not a list of 3 numbers > 0");
          }
          visual.dims.push_back(x.get<double>());
        }
      } else if (visual.shape == "sphere") {
        number("radius");
      } else if (visual.shape == "cylinder" || visual.shape == "capsule") {
        number("radius");
        number("length");
      } else if (visual.shape == "mesh") {
        if (!v.contains("mesh") || !v["mesh"].is_number_integer() ||
            v["mesh"].get<int>() < 0 ||
            v["mesh"].get<size_t>() >= visual_meshes) {
          fail(at + ".mesh", "missing or not an index into visual_meshes");
        }
        visual.mesh = v["mesh"].get<int>();
      } else {
        fail(at + ".shape", "'" + visual.shape +
                                "' is not one of box, sphere, cylinder, "
                                "capsule, mesh");
      }
      ReadPose(v.value("pose", Json()), at + ".pose", fail, visual.pose);
      if (v.contains("rgba")) {
        const Json& c = v["rgba"];
        if (!c.is_array() || c.size() != 4) {
          fail(at + ".rgba", "not a list of 4 numbers in [0, 1]");
        }
        for (int n = 0; n < 4; ++n) {
          if (!c[n].is_number() || !(c[n].get<double>() >= 0) ||
              !(c[n].get<double>() <= 1)) {
            fail(at + ".rgba", "not a list of 4 numbers in [0, 1]");
          }
          visual.rgba[n] = c[n].get<double>();
        }
        visual.coloured = true;
      }
      link.visuals.push_back(std::move(visual));
    }
    links.push_back(std::move(link));
  }
  return links;
}

}  // namespace

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
  scene.visual_meshes = ReadVisualMeshes(j, fail);
  scene.links = ReadLinks(j, scene.visual_meshes.size(), fail);
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
    if (o.contains("link")) {
      if (!o["link"].is_number_integer() || o["link"].get<int>() < 0 ||
          o["link"].get<size_t>() >= scene.links.size()) {
        fail(where + ".link", "not an index into links");
      }
      s.link = o["link"].get<int>();
      ReadPose(o.value("pose_in_link", Json()), where + ".pose_in_link", fail,
               s.pose_in_link);
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

}  // namespace replay_internal
}  // namespace sapcontact
