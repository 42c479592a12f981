// Bodies of a scene file: names, grids, shapes, mass properties, poses,
// initial and prescribed motion (docs/scenes.md; scene_parser.h).
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_parser.h"

namespace sapcontact {
namespace scene_internal {

namespace limits = scene_limits;

// `bodies` may be empty (or absent: a null node) when the scene has
// robots.
void SceneParser::ParseBodies(const YAML::Node& list, bool may_be_empty,
                              Scene* scene) {
  if (may_be_empty &&
      (!list || list.IsNull() || (list.IsSequence() && list.size() == 0))) {
    return;
  }
  if (!list.IsSequence() || list.size() == 0) {
    r_.Fail(list, "bodies",
            "expected a non-empty list of bodies (a scene needs bodies or "
            "robots)");
  }
  std::unordered_map<std::string, int> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string index_field = "bodies[" + std::to_string(i) + "]";
    if (!n.IsMap()) r_.Fail(n, index_field, "expected a map (a body)");
    const YAML::Node name_node = r_.Required(n, "name", index_field);
    const std::string name = r_.String(name_node, index_field + ".name");
    if (name.size() > limits::kMaxNameLength) {
      r_.Fail(name_node, index_field + ".name",
              "a body name of " + std::to_string(name.size()) +
                  " characters, more than the limit of " +
                  std::to_string(limits::kMaxNameLength) +
                  " (docs/scenes.md, Limits)");
    }
    if (!ValidName(name)) {
      r_.Fail(name_node, index_field + ".name",
              "invalid body name '" + name +
                  "' (no spaces, '.', '=', ',', '\"' or control "
                  "characters; UTF-8)");
    }
    const std::string field = "bodies." + name;
    Eigen::Vector3i count;
    Vector3 spacing;
    const Body body = ParseBody(n, field, &count, &spacing, *scene);
    const long total = static_cast<long>(scene->bodies.size()) +
                       static_cast<long>(count[0]) * count[1] * count[2];
    if (total > limits::kMaxBodies) {
      r_.Fail(
          n["grid"] ? n["grid"] : n, field + (n["grid"] ? ".grid.count" : ""),
          "the scene would have " + std::to_string(total) +
              " bodies, more than the limit of " +
              std::to_string(limits::kMaxBodies) + " (docs/scenes.md, Limits)");
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

// Parses one YAML body (not yet grid-expanded). Returns the grid counts
// and spacing through the out-arguments ({1,1,1} and 0 without grid).
Body SceneParser::ParseBody(const YAML::Node& n, const std::string& field,
                            Eigen::Vector3i* count, Vector3* spacing,
                            const Scene& scene) {
  r_.CheckMap(n, field, scene_internal::BodyKeys());
  Body b;
  b.name = n["name"].Scalar();
  if (n["fixed"]) b.fixed = r_.Bool(n["fixed"], field + ".fixed");
  const YAML::Node shape_node = r_.Required(n, "shape", field);
  // A free body's frame is its centre of mass: its mesh is centred there.
  b.shape = ParseShape(shape_node, field + ".shape", !b.fixed);
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
    CheckMass(mass, field + ".mass", m);
    if (!b.fixed) b.mass = m;
  }
  if (density) {
    const double rho = r_.Positive(density, field + ".density");
    r_.CheckRange(density, field + ".density", rho, limits::kMinDensity,
                  limits::kMaxDensity, "kg/m^3",
                  "no material is lighter than a thousandth of air's or "
                  "denser than 1000 kg per litre");
    if (!b.fixed) {
      b.mass = MassPropertiesFromDensity(b.shape, rho).mass;
      CheckMass(density, field + ".density", b.mass);
    }
  }
  if (!b.fixed) b.inertia = MassPropertiesFromMass(b.shape, b.mass).inertia;

  ParsePose(n, field, &b.pose);
  if (b.shape.mesh != nullptr) {
    // `position` places the mesh file's origin; the body origin is the
    // centroid, at -offset from it.
    b.pose.position -= b.pose.orientation * b.shape.mesh->offset;
  }
  const char* kMotion[] = {"velocity", "angular_velocity"};
  for (int i = 0; i < 2; ++i) {
    if (!n[kMotion[i]]) continue;
    const Vector3 v = r_.Vec3(n[kMotion[i]], field + "." + kMotion[i]);
    if (b.fixed && v.squaredNorm() > 0.0) {
      r_.Fail(n[kMotion[i]], field + "." + kMotion[i],
              "a fixed body cannot move (prescribed: gives a fixed body "
              "velocities)");
    }
    if (i == 0) {
      r_.CheckRange(n[kMotion[i]], field + "." + kMotion[i], v.norm(), 0.0,
                    limits::kMaxSpeed, "m/s",
                    "faster than any rigid-body contact (10 km/s)",
                    "|velocity|");
    } else {
      r_.CheckRange(n[kMotion[i]], field + "." + kMotion[i], v.norm(), 0.0,
                    limits::kMaxAngularSpeed, "rad/s",
                    "a faster spin is not a rigid body", "|angular_velocity|");
    }
    (i == 0 ? b.velocity : b.angular_velocity) = v;
  }
  if (n["prescribed"]) ParsePrescribed(n, field, &b);
  if (n["material"]) {
    b.material = r_.String(n["material"], field + ".material");
    b.material_index =
        MaterialIndex(n["material"], field + ".material", b.material, scene);
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
      const std::string f = gf + ".count[" + std::to_string(i) + "]";
      (*count)[i] = r_.PositiveInt(c[i], f);
      r_.CheckRange(c[i], f, (*count)[i], 1,
                    static_cast<double>(limits::kMaxBodies), "",
                    "the scene's body limit");
    }
    const YAML::Node s = r_.Required(g, "spacing", gf);
    *spacing = r_.Vec3(s, gf + ".spacing");
    for (int i = 0; i < 3; ++i) {
      const std::string f = gf + ".spacing[" + std::to_string(i) + "]";
      r_.NonNegative(s[i], f);
      // The last copy's position must be within the position limit too.
      r_.CheckRange(
          s[i], f,
          std::abs(b.pose.position[i]) + ((*count)[i] - 1.0) * (*spacing)[i],
          0.0, limits::kMaxPosition, "m", kPositionWhy,
          "|position| of the last grid copy");
    }
  }
  return b;
}

Shape SceneParser::ParseShape(const YAML::Node& n, const std::string& field,
                              bool centre) {
  r_.CheckMap(n, field, AllShapeKeys());
  std::vector<std::string> names;
  for (const ShapeTraits& t : AllShapeTraits()) names.push_back(t.name);
  Shape shape;
  shape.type = static_cast<ShapeType>(
      r_.Choice(r_.Required(n, "type", field), field + ".type", names));
  const ShapeTraits& traits = TraitsOf(shape.type);
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    bool used = key == "type";
    for (const ShapeParameter& p : traits.parameters) {
      used = used || key == p.key;
    }
    if (!used) {
      r_.Fail(kv.first, Join(field, key),
              "'" + key + "' is not a parameter of a " + traits.name);
    }
  }
  if (shape.type == ShapeType::kMesh) {
    shape.mesh = ParseMesh(n, field, centre);
    return shape;
  }
  for (const ShapeParameter& p : traits.parameters) {
    const YAML::Node node = r_.Required(n, p.key, field);
    const std::string f = field + "." + p.key;
    std::vector<double> values;
    if (p.count == 3) {
      const Vector3 v = r_.Vec3(node, f);
      for (int i = 0; i < 3; ++i) {
        const std::string fi = f + "[" + std::to_string(i) + "]";
        CheckSize(node[i], fi, r_.Positive(node[i], fi));
        values.push_back(v[i]);
      }
    } else {
      values.push_back(r_.Positive(node, f));
      CheckSize(node, f, values.back());
    }
    SetShapeParameter(&shape, p, values);
  }
  return shape;
}

// shape: {type: mesh, file: PATH, scale: [sx, sy, sz]}: PATH relative to
// the scene file's folder; centred at its centroid for a free body.
std::shared_ptr<const MeshShape> SceneParser::ParseMesh(
    const YAML::Node& n, const std::string& field, bool centre) {
  namespace fs = std::filesystem;
  const YAML::Node file_node = r_.Required(n, "file", field);
  const std::string file = r_.String(file_node, field + ".file");
  Vector3 scale = Vector3::Ones();
  if (n["scale"]) {
    scale = r_.Vec3(n["scale"], field + ".scale");
    for (int i = 0; i < 3; ++i) {
      if (scale[i] == 0.0) {
        r_.Fail(n["scale"][i], field + ".scale[" + std::to_string(i) + "]",
                "a scale must not be zero");
      }
    }
  }
  const std::string path = ResolveFile(file);
  std::ostringstream key;
  key.precision(17);
  key << path << '\n' << scale.transpose() << '\n' << centre;
  std::shared_ptr<const MeshShape>& mesh = meshes_[key.str()];
  if (mesh != nullptr) return mesh;
  try {
    mesh = LoadMeshShape(path, file, scale, centre);
  } catch (const std::invalid_argument& e) {  // MeshError
    meshes_.erase(key.str());
    std::string what = e.what();
    if (centre && what.find("not closed") != std::string::npos) {
      what +=
          " (a free body is weighed by its closed mesh: close the mesh, or "
          "make the body fixed, which may be open)";
    }
    r_.Fail(file_node, field + ".file", what);
  }
  const Vector3 extent = mesh->hull.upper - mesh->hull.lower;
  r_.CheckRange(file_node, field + ".file", extent.maxCoeff(), 0.0,
                limits::kMaxSize, "m",
                "larger shapes are not rigid bodies (check the scale: mesh "
                "files in millimetres need scale: [0.001, 0.001, 0.001])",
                "the mesh's largest extent");
  r_.CheckRange(file_node, field + ".file", extent.minCoeff(), limits::kMinSize,
                limits::kMaxSize, "m",
                "thinner shapes are not resolved by the millimetre contact "
                "margin",
                "the mesh's smallest extent");
  if (!mesh->convex) {
    warnings_.push_back(field + ".file: " + HullApproximation(*mesh));
  }
  return mesh;
}

// position, rpy or quaternion of a body or a robot base.
void SceneParser::ParsePose(const YAML::Node& n, const std::string& field,
                            Pose* pose) {
  if (n["position"]) {
    pose->position = r_.Vec3(n["position"], field + ".position");
    for (int i = 0; i < 3; ++i) {
      r_.CheckRange(n["position"][i],
                    field + ".position[" + std::to_string(i) + "]",
                    pose->position[i], -limits::kMaxPosition,
                    limits::kMaxPosition, "m", kPositionWhy);
    }
  }
  if (n["rpy"] && n["quaternion"]) {
    r_.Fail(n["quaternion"], field + ".quaternion",
            "give rpy or quaternion, not both");
  }
  if (n["rpy"]) {
    const Vector3 rpy = r_.Vec3(n["rpy"], field + ".rpy");
    for (int i = 0; i < 3; ++i) {
      r_.CheckRange(n["rpy"][i], field + ".rpy[" + std::to_string(i) + "]",
                    rpy[i], -limits::kMaxAngle, limits::kMaxAngle, "rad",
                    "give the angle modulo 2 pi");
    }
    pose->orientation = QuaternionFromRpy(rpy);
  }
  if (n["quaternion"]) {
    const Eigen::VectorXd q =
        r_.Vector(n["quaternion"], field + ".quaternion", 4);
    const double norm = q.norm();
    if (!(norm > 1e-12) || !std::isfinite(norm)) {
      r_.Fail(n["quaternion"], field + ".quaternion",
              "cannot be normalized (zero norm); expected [w, x, y, z]");
    }
    pose->orientation = Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
    pose->orientation.normalize();
  }
}

// bodies[i].prescribed: velocities of a fixed body as functions of time.
void SceneParser::ParsePrescribed(const YAML::Node& body,
                                  const std::string& body_field, Body* b) {
  const YAML::Node n = body["prescribed"];
  const std::string field = body_field + ".prescribed";
  r_.CheckMap(n, field, scene_internal::PrescribedKeys());
  if (!b->fixed) {
    r_.Fail(n, field,
            "prescribed motion needs fixed: true (a body with dynamics "
            "cannot follow given velocities)");
  }
  if (n.size() == 0) {
    r_.Fail(n, field,
            "give at least one of velocity, angular_velocity, "
            "surface_velocity");
  }
  const bool plane = b->shape.type == ShapeType::kPlane;
  struct Item {
    const char* key;
    TimeFunction* f;
    double max;
    const char* unit;
  } items[] = {{"velocity", &b->motion.velocity, limits::kMaxSpeed, "m/s"},
               {"angular_velocity", &b->motion.angular_velocity,
                limits::kMaxAngularSpeed, "rad/s"},
               {"surface_velocity", &b->motion.surface_velocity,
                limits::kMaxSpeed, "m/s"}};
  for (const Item& item : items) {
    const YAML::Node v = n[item.key];
    if (!v) continue;
    const std::string f = field + "." + item.key;
    if (plane && std::string(item.key) != "surface_velocity") {
      r_.Fail(v, f,
              "a plane is unbounded: it can only have a surface_velocity "
              "(a conveyor belt)");
    }
    *item.f = r_.VectorFunction(v, f);
    r_.CheckRange(v, f, item.f->MaxNorm(), 0.0, item.max, item.unit,
                  "faster than any rigid-body contact",
                  std::string("max |") + item.key + "|");
  }
  b->prescribed = true;
}

void SceneParser::CheckSize(const YAML::Node& node, const std::string& field,
                            double value) {
  r_.CheckRange(node, field, value, limits::kMinSize, limits::kMaxSize, "m",
                "shapes outside 10 um to 10 km are not resolved by the "
                "millimetre contact margin or are not rigid bodies");
}

void SceneParser::CheckMass(const YAML::Node& node, const std::string& field,
                            double mass) {
  r_.CheckRange(node, field, mass, limits::kMinMass, limits::kMaxMass, "kg",
                "lighter or heavier bodies make the contact problem "
                "singular in double precision",
                "the mass");
}

}  // namespace scene_internal
}  // namespace sapcontact
