#include "sapcontact/sim/scene/world_scene.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/robot/sdf_loader.h"
#include "sapcontact/sim/robot/world_description.h"
#include "sapcontact/sim/scene/scene_limits.h"
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

constexpr int kWorldOwner = -1;
constexpr int kAnyOwner = -2;

bool HasLaw(const ContactSurface& s) {
  return std::isfinite(s.stiffness_per_mass) &&
         std::isfinite(s.damping_per_mass);
}

// A scene material made for a surface: per owner (a robot's index, the
// world, or kAnyOwner for a surface without a law per unit mass).
struct SurfaceMaterial {
  ContactSurface surface;
  int owner;
  std::string name;
  bool SameAs(const SurfaceMaterial& o) const {
    if (owner != o.owner || surface.friction != o.surface.friction ||
        surface.frictional != o.surface.frictional) {
      return false;
    }
    if (!HasLaw(surface)) return !HasLaw(o.surface);
    return surface.stiffness_per_mass == o.surface.stiffness_per_mass &&
           surface.damping_per_mass == o.surface.damping_per_mass &&
           surface.mix == o.surface.mix;
  }
};

}  // namespace

ContactParameters SurfacePairParameters(const ContactSurface& a,
                                        const ContactSurface& b, double mass) {
  ContactParameters p;
  p.model = ContactModel::kSap;
  p.friction =
      a.frictional || b.frictional ? std::max(a.friction, b.friction) : 0.0;
  const double total = a.mix + b.mix;
  const double wa = total > 0.0 ? a.mix / total : 0.5;
  const double k =
      wa * a.stiffness_per_mass + (1.0 - wa) * b.stiffness_per_mass;
  const double c = wa * a.damping_per_mass + (1.0 - wa) * b.damping_per_mass;
  p.stiffness = mass * k;
  p.dissipation_time_scale = c / k;
  return p;
}

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
  // Materials: one per distinct surface (in order of appearance); a
  // surface with a contact law per unit mass also per robot (or the world),
  // whose mass turns it into a stiffness.
  std::vector<double> robot_mass;
  for (const RobotDescription& r : model.robots) {
    robot_mass.push_back(r.tree.TotalMass());
  }
  std::vector<SurfaceMaterial> materials;
  const auto material = [&](const ContactSurface& s, int owner) {
    SurfaceMaterial m{s, HasLaw(s) ? owner : kAnyOwner, ""};
    for (const SurfaceMaterial& x : materials) {
      if (x.SameAs(m)) return x.name;
    }
    m.name = "model_surface_" + std::to_string(materials.size());
    materials.push_back(m);
    return m.name;
  };
  std::vector<std::string> world_material;
  for (const WorldGeometry& g : model.world_geometries) {
    world_material.push_back(material(g.surface, kWorldOwner));
  }
  std::vector<std::vector<std::string>> geometry_material(model.robots.size());
  for (size_t r = 0; r < model.robots.size(); ++r) {
    for (const ContactSurface& s : model.geometry_surfaces[r]) {
      geometry_material[r].push_back(material(s, static_cast<int>(r)));
    }
  }

  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "time_step" << YAML::Value << model.time_step;
  out << YAML::Key << "duration" << YAML::Value << 1.0;
  out << YAML::Key << "gravity" << YAML::Value;
  EmitVector(&out, model.gravity);
  if (!materials.empty()) {
    out << YAML::Key << "materials" << YAML::Value << YAML::BeginMap;
    for (const SurfaceMaterial& m : materials) {
      out << YAML::Key << m.name << YAML::Value << YAML::Flow << YAML::BeginMap
          << YAML::Key << "friction" << YAML::Value << m.surface.friction;
      // A contact law per unit mass is SAP's linear spring-damper.
      if (HasLaw(m.surface)) {
        out << YAML::Key << "model" << YAML::Value
            << ToString(ContactModel::kSap);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  // Pair parameters of every two materials with contact laws per unit mass
  // that may meet (not two of the world's).
  bool any_pair = false;
  for (size_t i = 0; i < materials.size(); ++i) {
    for (size_t j = i; j < materials.size(); ++j) {
      const SurfaceMaterial &a = materials[i], &b = materials[j];
      if (!HasLaw(a.surface) || !HasLaw(b.surface)) continue;
      if (a.owner == kWorldOwner && b.owner == kWorldOwner) continue;
      double mass;
      if (a.owner == kWorldOwner || a.owner == b.owner) {
        mass = robot_mass[b.owner];
      } else if (b.owner == kWorldOwner) {
        mass = robot_mass[a.owner];
      } else {
        const double ma = robot_mass[a.owner], mb = robot_mass[b.owner];
        mass = ma * mb / (ma + mb);
      }
      ContactParameters p = SurfacePairParameters(a.surface, b.surface, mass);
      // A (nearly) massless robot's law would give no stiffness at all.
      if (p.stiffness < scene_limits::kMinStiffness ||
          p.stiffness > scene_limits::kMaxStiffness) {
        const double k = std::clamp(p.stiffness, scene_limits::kMinStiffness,
                                    scene_limits::kMaxStiffness);
        std::ostringstream w;
        w << path << ": the contacts of materials " << a.name << " and "
          << b.name << " would have stiffness " << p.stiffness
          << " N/m (the law per unit mass times " << mass
          << " kg), outside the limits of docs/scenes.md: they take " << k;
        warnings->push_back(w.str());
        p.stiffness = k;
      }
      if (!any_pair) {
        out << YAML::Key << "material_pairs" << YAML::Value << YAML::BeginSeq;
        any_pair = true;
      }
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "materials" << YAML::Value << YAML::Flow
          << YAML::BeginSeq << a.name << b.name << YAML::EndSeq;
      out << YAML::Key << "stiffness" << YAML::Value << p.stiffness;
      out << YAML::Key << "dissipation_time_scale" << YAML::Value
          << p.dissipation_time_scale;
      out << YAML::Key << "friction" << YAML::Value << p.friction;
      out << YAML::EndMap;
    }
  }
  if (any_pair) out << YAML::EndSeq;
  std::set<std::string> names;
  for (const RobotDescription& r : model.robots)
    names.insert(SceneName(r.name));
  if (!model.world_geometries.empty()) {
    out << YAML::Key << "bodies" << YAML::Value << YAML::BeginSeq;
    for (size_t w = 0; w < model.world_geometries.size(); ++w) {
      const WorldGeometry& g = model.world_geometries[w];
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
      out << YAML::Key << "material" << YAML::Value << world_material[w];
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!model.robots.empty()) {
    out << YAML::Key << "robots" << YAML::Value << YAML::BeginSeq;
    for (size_t r = 0; r < model.robots.size(); ++r) {
      const RobotDescription& d = model.robots[r];
      const std::vector<std::string>& mat = geometry_material[r];
      // The robot's material: its most common one.
      std::map<std::string, int> count;
      for (const std::string& x : mat) ++count[x];
      std::string common;
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
        out << YAML::Key << "material" << YAML::Value << common;
      }
      bool any = false;
      for (size_t g = 0; g < mat.size(); ++g) {
        if (mat[g] == common) continue;
        if (!any) {
          out << YAML::Key << "geometry_materials" << YAML::Value
              << YAML::BeginMap;
          any = true;
        }
        out << YAML::Key << d.geometries[g].name << YAML::Value << mat[g];
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
