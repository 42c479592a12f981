#include "sapcontact/sim/scene/scene_loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "sapcontact/sim/scene/scene_overrides.h"
#include "sapcontact/sim/scene/scene_yaml_reader.h"

namespace sapcontact {
namespace {

using scene_internal::Join;
using scene_internal::YamlReader;

// Upper bound on the number of bodies after grid expansion (guards against
// a typo such as count: [1000, 1000, 1000]).
constexpr long kMaxBodies = 1000000;

// Names are used in override paths and in output files.
bool ValidName(const std::string& name) {
  for (char c : name) {
    if (c == '.' || c == '=' || c == ',' || c == '"' ||
        std::isspace(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return !name.empty();
}

class Parser {
 public:
  explicit Parser(const YamlReader& r) : r_(r) {}

  Scene Parse(const YAML::Node& root) {
    if (!root.IsMap()) {
      if (root.IsNull()) {
        r_.FailNoPlace("",
                       "the scene is empty (expected a map with "
                       "time_step, duration and bodies)");
      }
      r_.Fail(root, "", "expected a map at the top level");
    }
    r_.CheckMap(root, "", scene_internal::RootKeys());
    Scene scene;
    scene.source = r_.file();
    scene.time_step =
        r_.Positive(r_.Required(root, "time_step", ""), "time_step");
    scene.duration = r_.Positive(r_.Required(root, "duration", ""), "duration");
    if (root["gravity"]) scene.gravity = r_.Vec3(root["gravity"], "gravity");
    if (root["solver"]) ParseSolver(root["solver"], &scene.solver);
    ParseMaterials(root["materials"], &scene);
    if (root["output"]) {
      const YAML::Node out = root["output"];
      r_.CheckMap(out, "output", scene_internal::OutputKeys());
      if (out["every"]) {
        scene.output.every = r_.PositiveInt(out["every"], "output.every");
      }
    }
    if (root["collision"]) {
      const YAML::Node col = root["collision"];
      r_.CheckMap(col, "collision", scene_internal::CollisionKeys());
      if (col["margin"]) {
        scene.collision.margin =
            r_.NonNegative(col["margin"], "collision.margin");
      }
    }
    ParseBodies(r_.Required(root, "bodies", ""), &scene);
    return scene;
  }

 private:
  void ParseSolver(const YAML::Node& n, SolverSettings* s) {
    r_.CheckMap(n, "solver", scene_internal::SolverKeys());
    if (n["model"]) {
      s->model = static_cast<SolverModel>(
          r_.Choice(n["model"], "solver.model", {"sap", "rigid"}));
    }
    if (n["near_rigid_threshold"]) {
      s->near_rigid_threshold = r_.NonNegative(n["near_rigid_threshold"],
                                               "solver.near_rigid_threshold");
    }
    if (n["friction_regularization"]) {
      s->friction_regularization = r_.Positive(
          n["friction_regularization"], "solver.friction_regularization");
    }
    if (n["rel_tolerance"]) {
      s->rel_tolerance =
          r_.Positive(n["rel_tolerance"], "solver.rel_tolerance");
    }
    if (n["abs_tolerance"]) {
      s->abs_tolerance =
          r_.NonNegative(n["abs_tolerance"], "solver.abs_tolerance");
    }
    if (n["max_iterations"]) {
      s->max_iterations =
          r_.PositiveInt(n["max_iterations"], "solver.max_iterations");
    }
    if (n["line_search"]) {
      s->line_search = static_cast<LineSearchMethod>(r_.Choice(
          n["line_search"], "solver.line_search", {"exact", "backtracking"}));
    }
    if (n["linear_solver"]) {
      s->linear_solver = static_cast<LinearSolverKind>(
          r_.Choice(n["linear_solver"], "solver.linear_solver",
                    {"auto", "dense", "cholmod"}));
    }
  }

  void ParseMaterials(const YAML::Node& n, Scene* scene) {
    scene->materials.assign(1, Material{});  // the built-in "default"
    if (!n) return;
    r_.CheckMap(n, "materials", {});
    for (const auto& item : n) {
      const std::string name = item.first.Scalar();
      const std::string field = "materials." + name;
      if (!ValidName(name)) {
        r_.Fail(item.first, field,
                "invalid material name (no spaces, '.', '=', ',' or '\"')");
      }
      const YAML::Node& m = item.second;
      r_.CheckMap(m, field, scene_internal::MaterialKeys());
      Material mat;
      mat.name = name;
      if (m["stiffness"]) {
        mat.stiffness =
            r_.Double(m["stiffness"], field + ".stiffness", /*allow_inf=*/true);
        if (!(mat.stiffness > 0.0)) {
          r_.Fail(m["stiffness"], field + ".stiffness",
                  "must be > 0 N/m (or .inf for rigid)");
        }
      }
      if (m["dissipation_time_scale"]) {
        mat.dissipation_time_scale = r_.NonNegative(
            m["dissipation_time_scale"], field + ".dissipation_time_scale");
      }
      if (m["friction"]) {
        mat.friction = r_.NonNegative(m["friction"], field + ".friction");
      }
      if (name == "default") {
        scene->materials[0] = mat;
      } else {
        scene->materials.push_back(mat);
      }
    }
  }

  Shape ParseShape(const YAML::Node& n, const std::string& field) {
    r_.CheckMap(n, field, scene_internal::ShapeKeys());
    Shape shape;
    shape.type = static_cast<ShapeType>(
        r_.Choice(r_.Required(n, "type", field), field + ".type",
                  {"plane", "box", "sphere", "capsule"}));
    static const std::vector<std::string> kUsed[] = {
        {"type"},
        {"type", "size"},
        {"type", "radius"},
        {"type", "radius", "length"}};
    const auto& used = kUsed[static_cast<int>(shape.type)];
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (std::find(used.begin(), used.end(), key) == used.end()) {
        r_.Fail(kv.first, Join(field, key),
                "'" + key + "' is not a parameter of a " +
                    ShapeTypeName(shape.type));
      }
    }
    if (shape.type == ShapeType::kBox) {
      const YAML::Node size = r_.Required(n, "size", field);
      shape.size = r_.Vec3(size, field + ".size");
      for (int i = 0; i < 3; ++i) {
        r_.Positive(size[i], field + ".size[" + std::to_string(i) + "]");
      }
    }
    if (shape.type == ShapeType::kSphere || shape.type == ShapeType::kCapsule) {
      shape.radius =
          r_.Positive(r_.Required(n, "radius", field), field + ".radius");
    }
    if (shape.type == ShapeType::kCapsule) {
      shape.length =
          r_.Positive(r_.Required(n, "length", field), field + ".length");
    }
    return shape;
  }

  // Parses one YAML body (not yet grid-expanded). Returns the grid counts
  // and spacing through the out-arguments ({1,1,1} and 0 without grid).
  Body ParseBody(const YAML::Node& n, const std::string& field,
                 Eigen::Vector3i* count, Vector3* spacing, const Scene& scene) {
    r_.CheckMap(n, field, scene_internal::BodyKeys());
    Body b;
    b.name = n["name"].Scalar();
    if (n["fixed"]) b.fixed = r_.Bool(n["fixed"], field + ".fixed");
    const YAML::Node shape_node = r_.Required(n, "shape", field);
    b.shape = ParseShape(shape_node, field + ".shape");
    const bool plane = b.shape.type == ShapeType::kPlane;
    if (plane && !b.fixed) {
      r_.Fail(n["fixed"] ? n["fixed"] : shape_node, field + ".fixed",
              "a plane must be on a fixed body (fixed: true)");
    }
    const YAML::Node mass = n["mass"];
    const YAML::Node density = n["density"];
    if (mass && density) {
      r_.Fail(density, field + ".density", "give mass or density, not both");
    }
    if (plane && (mass || density)) {
      r_.Fail(mass ? mass : density, field + (mass ? ".mass" : ".density"),
              "a plane has no mass or density");
    }
    if (!b.fixed && !mass && !density) {
      r_.Fail(n, field + ".mass",
              "missing required field 'mass' (or 'density') of a free body");
    }
    if (mass) {
      const double m = r_.Positive(mass, field + ".mass");
      if (!b.fixed) b.mass = m;
    }
    if (density) {
      const double rho = r_.Positive(density, field + ".density");
      if (!b.fixed) b.mass = MassPropertiesFromDensity(b.shape, rho).mass;
    }
    if (!b.fixed) b.inertia = MassPropertiesFromMass(b.shape, b.mass).inertia;

    if (n["position"]) {
      b.pose.position = r_.Vec3(n["position"], field + ".position");
    }
    if (n["rpy"] && n["quaternion"]) {
      r_.Fail(n["quaternion"], field + ".quaternion",
              "give rpy or quaternion, not both");
    }
    if (n["rpy"]) {
      b.pose.orientation = QuaternionFromRpy(r_.Vec3(n["rpy"], field + ".rpy"));
    }
    if (n["quaternion"]) {
      const Eigen::VectorXd q =
          r_.Vector(n["quaternion"], field + ".quaternion", 4);
      const double norm = q.norm();
      if (!(norm > 1e-12) || !std::isfinite(norm)) {
        r_.Fail(n["quaternion"], field + ".quaternion",
                "cannot be normalized (zero norm); expected [w, x, y, z]");
      }
      b.pose.orientation = Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
      b.pose.orientation.normalize();
    }
    const char* kMotion[] = {"velocity", "angular_velocity"};
    for (int i = 0; i < 2; ++i) {
      if (!n[kMotion[i]]) continue;
      const Vector3 v = r_.Vec3(n[kMotion[i]], field + "." + kMotion[i]);
      if (b.fixed && v.squaredNorm() > 0.0) {
        r_.Fail(n[kMotion[i]], field + "." + kMotion[i],
                "a fixed body cannot move");
      }
      (i == 0 ? b.velocity : b.angular_velocity) = v;
    }
    if (n["material"]) {
      b.material = r_.String(n["material"], field + ".material");
      b.material_index = scene.FindMaterial(b.material);
      if (b.material_index < 0) {
        std::string list;
        for (const auto& m : scene.materials) {
          list += (list.empty() ? "" : ", ") + m.name;
        }
        r_.Fail(
            n["material"], field + ".material",
            "no material named '" + b.material + "' (defined: " + list + ")");
      }
    }
    count->setOnes();
    spacing->setZero();
    if (n["grid"]) {
      const YAML::Node g = n["grid"];
      const std::string gf = field + ".grid";
      r_.CheckMap(g, gf, scene_internal::GridKeys());
      const YAML::Node c = r_.Required(g, "count", gf);
      r_.Vector(c, gf + ".count", 3);  // shape check
      for (int i = 0; i < 3; ++i) {
        (*count)[i] =
            r_.PositiveInt(c[i], gf + ".count[" + std::to_string(i) + "]");
      }
      const YAML::Node s = r_.Required(g, "spacing", gf);
      *spacing = r_.Vec3(s, gf + ".spacing");
      for (int i = 0; i < 3; ++i) {
        r_.NonNegative(s[i], gf + ".spacing[" + std::to_string(i) + "]");
      }
    }
    return b;
  }

  void ParseBodies(const YAML::Node& list, Scene* scene) {
    if (!list.IsSequence() || list.size() == 0) {
      r_.Fail(list, "bodies", "expected a non-empty list of bodies");
    }
    std::unordered_map<std::string, int> names;
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string index_field = "bodies[" + std::to_string(i) + "]";
      if (!n.IsMap()) r_.Fail(n, index_field, "expected a map (a body)");
      const YAML::Node name_node = r_.Required(n, "name", index_field);
      const std::string name = r_.String(name_node, index_field + ".name");
      if (!ValidName(name)) {
        r_.Fail(name_node, index_field + ".name",
                "invalid body name '" + name +
                    "' (no spaces, '.', '=', ',' or '\"')");
      }
      const std::string field = "bodies." + name;
      Eigen::Vector3i count;
      Vector3 spacing;
      const Body body = ParseBody(n, field, &count, &spacing, *scene);
      const long total = static_cast<long>(scene->bodies.size()) +
                         static_cast<long>(count[0]) * count[1] * count[2];
      if (total > kMaxBodies) {
        r_.Fail(n["grid"], field + ".grid.count",
                "more than " + std::to_string(kMaxBodies) + " bodies");
      }
      const bool grid = static_cast<bool>(n["grid"]);
      for (int a = 0; a < count[0]; ++a) {
        for (int b = 0; b < count[1]; ++b) {
          for (int c = 0; c < count[2]; ++c) {
            Body copy = body;
            if (grid) {
              copy.name += "_" + std::to_string(a) + "_" + std::to_string(b) +
                           "_" + std::to_string(c);
              copy.pose.position += Vector3(a, b, c).cwiseProduct(spacing);
            }
            if (!names.emplace(copy.name, i).second) {
              r_.Fail(name_node, field + ".name",
                      "duplicate body name '" + copy.name + "'");
            }
            scene->bodies.push_back(std::move(copy));
          }
        }
      }
    }
  }

  const YamlReader& r_;
};

Scene ParseWithOverrides(YAML::Node root, YamlReader* reader,
                         const std::vector<std::string>& overrides) {
  try {
    for (const auto& o : overrides) {
      scene_internal::ApplyOverride(root, o, reader);
    }
    return Parser(*reader).Parse(root);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) reader->FailNoPlace("", e.msg);
    throw SceneError(reader->file(), e.mark.line + 1, e.mark.column + 1, "",
                     reader->file() + ":" + std::to_string(e.mark.line + 1) +
                         ":" + std::to_string(e.mark.column + 1) + ": " +
                         e.msg);
  } catch (const std::invalid_argument& e) {
    reader->FailNoPlace("", e.what());
  }
}

[[noreturn]] void Malformed(const std::string& file,
                            const YAML::ParserException& e) {
  const int line = e.mark.line + 1;
  const int column = e.mark.column + 1;
  throw SceneError(file, line, column, "",
                   file + ":" + std::to_string(line) + ":" +
                       std::to_string(column) + ": malformed YAML: " + e.msg);
}

}  // namespace

Scene LoadScene(const std::string& path,
                const std::vector<std::string>& overrides) {
  YamlReader reader(path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    reader.FailNoPlace("", "cannot open the scene file");
  } catch (const YAML::ParserException& e) {
    Malformed(path, e);
  }
  return ParseWithOverrides(root, &reader, overrides);
}

Scene LoadSceneFromString(const std::string& yaml, const std::string& name,
                          const std::vector<std::string>& overrides) {
  YamlReader reader(name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    Malformed(name, e);
  }
  return ParseWithOverrides(root, &reader, overrides);
}

}  // namespace sapcontact
