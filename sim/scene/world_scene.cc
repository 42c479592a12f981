#include "sapcontact/sim/scene/world_scene.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/robot/sdf_loader.h"
#include "sapcontact/sim/robot/world_description.h"
#include "sapcontact/sim/scene/scene_parser.h"

namespace sapcontact {
namespace {

// A scene name from a model file's name: characters a scene name cannot hold
// (scene_internal::ForbiddenNameCharacter) become '_'.
std::string SceneName(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (scene_internal::ForbiddenNameCharacter(c)) c = '_';
  }
  return out.empty() ? std::string("_") : out;
}

void EmitVector(YAML::Emitter* out, const Eigen::Vector3d& v) {
  *out << YAML::Flow << YAML::BeginSeq << v.x() << v.y() << v.z()
       << YAML::EndSeq;
}

}  // namespace

ModelFileFormat ModelSceneFormat(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".xml" || ext == ".XML") return ModelFileFormat::kMjcf;
  if (ext == ".sdf" || ext == ".world" || ext == ".model" || ext == ".SDF") {
    return ModelFileFormat::kSdf;
  }
  return ModelFileFormat::kNone;
}

std::string ModelSceneYaml(const std::string& path, ModelFileFormat format,
                           std::vector<std::string>* warnings) {
  const bool mjcf = format == ModelFileFormat::kMjcf;
  WorldDescription model =
      mjcf ? static_cast<WorldDescription>(LoadMjcf(path)) : LoadSdf(path);
  // Static geoms by MuJoCo's contype/conaffinity against the robots' geoms.
  {
    std::vector<WorldGeometry> kept;
    for (const WorldGeometry& g : model.world_geometries) {
      int touching = 0, total = 0;
      for (const auto& robot : model.geometry_masks) {
        for (const auto& [contype, conaffinity] : robot) {
          ++total;
          if ((g.contype & conaffinity) || (contype & g.conaffinity)) {
            ++touching;
          }
        }
      }
      if (total > 0 && touching == 0) continue;
      if (touching < total) {
        warnings->push_back(
            path + ": static geom '" + g.name + "' may touch " +
            std::to_string(touching) + " of the robots' " +
            std::to_string(total) +
            " collision geoms by contype/conaffinity; it touches all of them "
            "(masks are not applied pair by pair)");
      }
      kept.push_back(g);
    }
    model.world_geometries = std::move(kept);
  }
  const std::string file = std::filesystem::absolute(path).string();
  // Materials: one per distinct friction (in order of appearance).
  std::map<double, std::string> materials;
  std::vector<double> order;
  const auto material = [&](double mu) {
    auto it = materials.find(mu);
    if (it != materials.end()) return it->second;
    const std::string name = "model_friction_" + std::to_string(order.size());
    order.push_back(mu);
    return materials[mu] = name;
  };
  for (const WorldGeometry& g : model.world_geometries) material(g.friction);
  for (const auto& f : model.geometry_friction) {
    for (double mu : f) material(mu);
  }

  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "time_step" << YAML::Value << model.time_step;
  out << YAML::Key << "duration" << YAML::Value << 1.0;
  out << YAML::Key << "gravity" << YAML::Value;
  EmitVector(&out, model.gravity);
  if (!order.empty()) {
    out << YAML::Key << "materials" << YAML::Value << YAML::BeginMap;
    for (double mu : order) {
      out << YAML::Key << materials[mu] << YAML::Value << YAML::Flow
          << YAML::BeginMap << YAML::Key << "friction" << YAML::Value << mu
          << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  std::set<std::string> names;
  for (const RobotDescription& r : model.robots)
    names.insert(SceneName(r.name));
  if (!model.world_geometries.empty()) {
    out << YAML::Key << "bodies" << YAML::Value << YAML::BeginSeq;
    for (const WorldGeometry& g : model.world_geometries) {
      std::string name =
          SceneName(g.name.rfind("world/", 0) == 0 ? g.name.substr(6) : g.name);
      if (names.count(name)) name = "world_" + name;
      while (names.count(name)) name += "_";
      names.insert(name);
      out << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << name;
      out << YAML::Key << "fixed" << YAML::Value << true;
      out << YAML::Key << "shape" << YAML::Value << YAML::Flow
          << YAML::BeginMap;
      const Shape& s = g.shape;
      out << YAML::Key << "type" << YAML::Value << ShapeTypeName(s.type);
      switch (s.type) {
        case ShapeType::kBox:
          out << YAML::Key << "size" << YAML::Value;
          EmitVector(&out, s.size);
          break;
        case ShapeType::kSphere:
          out << YAML::Key << "radius" << YAML::Value << s.radius;
          break;
        case ShapeType::kCapsule:
        case ShapeType::kCylinder:
          out << YAML::Key << "radius" << YAML::Value << s.radius;
          out << YAML::Key << "length" << YAML::Value << s.length;
          break;
        case ShapeType::kMesh:
          out << YAML::Key << "file" << YAML::Value << g.mesh_file;
          out << YAML::Key << "scale" << YAML::Value;
          EmitVector(&out, s.mesh->scale);
          break;
        case ShapeType::kPlane:
          break;
      }
      out << YAML::EndMap;
      out << YAML::Key << "position" << YAML::Value;
      EmitVector(&out, g.pose.position);
      const Eigen::Quaterniond& q = g.pose.orientation;
      out << YAML::Key << "quaternion" << YAML::Value << YAML::Flow
          << YAML::BeginSeq << q.w() << q.x() << q.y() << q.z() << YAML::EndSeq;
      out << YAML::Key << "material" << YAML::Value << materials[g.friction];
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!model.robots.empty()) {
    out << YAML::Key << "robots" << YAML::Value << YAML::BeginSeq;
    for (size_t r = 0; r < model.robots.size(); ++r) {
      const RobotDescription& d = model.robots[r];
      const std::vector<double>& mu = model.geometry_friction[r];
      // The robot's material: its most common friction.
      std::map<double, int> count;
      for (double x : mu) ++count[x];
      double common = 1.0;
      int best = -1;
      for (const auto& [x, n] : count) {
        if (n > best) common = x, best = n;
      }
      out << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << SceneName(d.name);
      out << YAML::Key << (mjcf ? "mjcf" : "sdf") << YAML::Value << file;
      out << YAML::Key << (mjcf ? "mjcf_body" : "sdf_model") << YAML::Value
          << d.name;
      if (best >= 0) {
        out << YAML::Key << "material" << YAML::Value << materials[common];
      }
      bool any = false;
      for (size_t g = 0; g < mu.size(); ++g) {
        if (mu[g] == common) continue;
        if (!any) {
          out << YAML::Key << "geometry_materials" << YAML::Value
              << YAML::BeginMap;
          any = true;
        }
        out << YAML::Key << d.geometries[g].name << YAML::Value
            << materials[mu[g]];
      }
      if (any) out << YAML::EndMap;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return out.c_str();
}

}  // namespace sapcontact
