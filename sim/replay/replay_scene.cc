// replay_scene.json and replay_poses.csv (replay.h).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/replay/replay.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "sapcontact/sim/stepping/simulation.h"

namespace sapcontact {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson PoseJson(const Pose& p) {
  const Eigen::Quaterniond& q = p.orientation;
  return OrderedJson{p.position.x(), p.position.y(), p.position.z(), q.w(),
                     q.x(),          q.y(),          q.z()};
}

Pose ToPose(const Eigen::Isometry3d& X) {
  Pose p;
  p.position = X.translation();
  p.orientation = Eigen::Quaterniond(X.linear()).normalized();
  return p;
}

// x to 7 significant digits (0.1 um on a 1 m hull; the page draws floats),
// which JSON writes in at most 7 digits.
double Significant7(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.7g", x);
  return std::strtod(text, nullptr);
}

// The meshes of a scene (each hull once, however many objects use it).
class MeshTable {
 public:
  // The index of `mesh` in the table, adding it.
  int Index(const MeshShape* mesh) {
    const auto it = index_.find(mesh);
    if (it != index_.end()) return it->second;
    const ConvexHull& hull = mesh->hull;
    OrderedJson vertices = OrderedJson::array();
    for (const Vector3& v : hull.vertices) {
      for (int k = 0; k < 3; ++k) vertices.push_back(Significant7(v[k]));
    }
    OrderedJson faces = OrderedJson::array();
    for (const ConvexHull::Face& f : hull.faces) faces.push_back(f.vertices);
    json_.push_back({{"file", mesh->file},
                     {"vertices", std::move(vertices)},
                     {"faces", std::move(faces)}});
    const int index = static_cast<int>(index_.size());
    index_[mesh] = index;
    return index;
  }
  const OrderedJson& json() const { return json_; }

 private:
  std::map<const MeshShape*, int> index_;
  OrderedJson json_ = OrderedJson::array();
};

// The visual meshes of a scene (each mesh once, vertices and triangles as
// written: they are drawn, not collided with).
class VisualMeshTable {
 public:
  int Index(const VisualGeometry& v) {
    const auto it = index_.find(v.mesh.get());
    if (it != index_.end()) return it->second;
    OrderedJson vertices = OrderedJson::array();
    for (const Vector3& x : v.mesh->vertices) {
      for (int k = 0; k < 3; ++k) vertices.push_back(Significant7(x[k]));
    }
    OrderedJson triangles = OrderedJson::array();
    for (const std::array<int, 3>& t : v.mesh->triangles) {
      for (int k = 0; k < 3; ++k) triangles.push_back(t[k]);
    }
    json_.push_back({{"file", v.file},
                     {"vertices", std::move(vertices)},
                     {"triangles", std::move(triangles)}});
    const int index = static_cast<int>(index_.size());
    index_[v.mesh.get()] = index;
    return index;
  }
  const OrderedJson& json() const { return json_; }

 private:
  std::map<const TriangleMesh*, int> index_;
  OrderedJson json_ = OrderedJson::array();
};

// A visual: shape and parameters (or the index of its mesh), pose in the
// link frame, colour when the URDF gives one.
OrderedJson VisualJson(const VisualGeometry& v, VisualMeshTable* meshes) {
  OrderedJson o;
  o["name"] = v.name;
  o["shape"] = ShapeTypeName(v.type);
  switch (v.type) {
    case ShapeType::kBox:
      o["size"] = {v.size.x(), v.size.y(), v.size.z()};
      break;
    case ShapeType::kSphere:
      o["radius"] = v.radius;
      break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      o["radius"] = v.radius;
      o["length"] = v.length;
      break;
    case ShapeType::kMesh:
      o["file"] = v.file;
      o["mesh"] = meshes->Index(v);
      break;
    default:
      break;
  }
  o["pose"] = PoseJson(v.pose_in_link);
  if (v.coloured) o["rgba"] = {v.rgba[0], v.rgba[1], v.rgba[2], v.rgba[3]};
  return o;
}

// Writes `list` one entry per line after `key` into `text` (which ends
// before the closing brace).
void AppendTable(std::string* text, const char* key, const OrderedJson& list) {
  const auto replace = nlohmann::json::error_handler_t::replace;
  *text += std::string(",\n \"") + key + "\": [";
  for (size_t i = 0; i < list.size(); ++i) {
    *text += (i > 0 ? ",\n  " : "\n  ") + list[i].dump(-1, ' ', false, replace);
  }
  *text += list.empty() ? "]" : "\n ]";
}

// The shape's name and parameters (geometry/shape_traits.h), its
// bounding radius, and for a mesh the index of its hull in `meshes`.
OrderedJson ShapeFields(const Shape& s, MeshTable* meshes, OrderedJson object) {
  object["shape"] = ShapeTypeName(s.type);
  for (const ShapeParameter& p : TraitsOf(s.type).parameters) {
    if (p.kind == ShapeParameterKind::kFile) {
      object[p.key] = s.mesh != nullptr ? s.mesh->file : "";
      continue;
    }
    const std::vector<double> values = ShapeParameterValues(s, p);
    object[p.key] = p.count == 1 ? OrderedJson(values[0]) : OrderedJson(values);
  }
  if (s.mesh != nullptr) object["mesh"] = meshes->Index(s.mesh.get());
  if (TraitsOf(s.type).bounded) object["bounding_radius"] = BoundingRadius(s);
  return object;
}

}  // namespace

std::string ReplaySceneJson(const Scene& scene) {
  OrderedJson j;
  j["format"] = "sapcontact replay scene";
  j["version"] = 1;
  j["scene"] = scene.source;
  j["time_step"] = scene.time_step;
  j["output_every"] = scene.output.every;
  j["duration"] = scene.duration;
  OrderedJson materials = OrderedJson::array();
  for (const Material& m : scene.materials) materials.push_back(m.name);
  j["materials"] = materials;
  OrderedJson objects = OrderedJson::array();
  MeshTable meshes;
  for (const Body& b : scene.bodies) {
    OrderedJson o;
    o["name"] = b.name;
    o["kind"] = "body";
    o = ShapeFields(b.shape, &meshes, o);
    o["material"] = b.material;
    o["fixed"] = b.fixed;
    o["motion"] = !b.fixed ? "trajectory" : b.prescribed ? "poses" : "static";
    o["pose"] = PoseJson(b.pose);
    objects.push_back(o);
  }
  // Robot links: their frames move (replay_poses.csv), their collision
  // geometry and visuals are fixed in them.
  OrderedJson links = OrderedJson::array();
  VisualMeshTable visual_meshes;
  std::vector<Eigen::Isometry3d> X_WL;
  for (const RobotSpec& r : scene.robots) {
    const RobotDescription& d = r.description;
    CalcLinkPoses(d.tree, RobotInitialPositions(r), &X_WL);
    const std::vector<bool> moves = MovingLinks(d.tree);
    const int first = static_cast<int>(links.size());
    for (int l = 0; l < d.tree.num_links(); ++l) {
      OrderedJson link;
      link["name"] = r.name + "/" + d.tree.link(l).name;
      link["motion"] = moves[l] ? "poses" : "static";
      link["pose"] = PoseJson(ToPose(X_WL[l]));
      link["visuals"] = OrderedJson::array();
      links.push_back(link);
    }
    for (const VisualGeometry& v : d.visuals) {
      links[first + v.link]["visuals"].push_back(VisualJson(v, &visual_meshes));
    }
    for (const RobotGeometry& g : d.geometries) {
      const OrderedJson& link = links[first + g.link];
      Pose X_WG;
      X_WG.position = X_WL[g.link] * g.pose_in_link.position;
      X_WG.orientation = Eigen::Quaterniond(X_WL[g.link].linear()) *
                         g.pose_in_link.orientation;
      OrderedJson o;
      o["name"] = r.name + "/" + g.name;
      o["kind"] = "link";
      o = ShapeFields(g.shape, &meshes, o);
      o["material"] = r.material;
      o["fixed"] = !moves[g.link];
      o["motion"] = link["motion"];
      o["pose"] = PoseJson(X_WG);
      o["link"] = first + g.link;
      o["pose_in_link"] = PoseJson(g.pose_in_link);
      objects.push_back(o);
    }
  }
  j["objects"] = objects;
  j["links"] = links;
  // The meshes one per line (thousands of numbers: indenting them would
  // put each on a line of its own).
  const auto replace = nlohmann::json::error_handler_t::replace;
  std::string text = j.dump(1, ' ', false, replace);
  text.pop_back();  // the closing brace
  while (!text.empty() && text.back() == '\n') text.pop_back();
  AppendTable(&text, "meshes", meshes.json());
  AppendTable(&text, "visual_meshes", visual_meshes.json());
  text += "\n}\n";
  return text;
}

void WriteReplayScene(const Scene& scene, const std::string& dir) {
  const std::filesystem::path path =
      std::filesystem::path(dir) / kReplaySceneFile;
  std::ofstream out(path);
  out << ReplaySceneJson(scene);
  out.close();
  if (!out) throw ReplayError("cannot write " + path.string());
}

ReplayPoseRecorder::ReplayPoseRecorder(const Scene& scene,
                                       const std::string& dir)
    : scene_(scene),
      partial_(std::filesystem::path(dir) /
               (std::string(kReplayPosesFile) + ".partial")),
      final_(std::filesystem::path(dir) / kReplayPosesFile),
      every_(std::max(1, scene.output.every)),
      steps_(StepCount(scene)) {
  std::error_code ec;
  std::filesystem::remove(final_, ec);
  bool any = !scene.robots.empty();
  for (const Body& b : scene.bodies) any = any || b.prescribed;
  if (!any) return;
  std::filesystem::create_directories(partial_.parent_path(), ec);
  file_ = std::fopen(partial_.c_str(), "w");
  if (file_ == nullptr) throw ReplayError("cannot write " + partial_.string());
  std::fputs("time,name,x,y,z,qw,qx,qy,qz\n", file_);
}

ReplayPoseRecorder::~ReplayPoseRecorder() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  std::error_code ec;
  std::filesystem::remove(partial_, ec);
}

void ReplayPoseRecorder::WriteRows(
    double t, const std::vector<Pose>& bodies,
    const std::vector<std::vector<Eigen::Isometry3d>>& links) {
  char time[40];
  std::snprintf(time, sizeof(time), "%.9g", t);
  auto row = [&](const std::string& name, const Pose& p) {
    const Vector3& x = p.position;
    const Eigen::Quaterniond& q = p.orientation;
    std::fprintf(file_, "%s,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", time,
                 name.c_str(), x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z());
  };
  for (size_t b = 0; b < scene_.bodies.size(); ++b) {
    if (scene_.bodies[b].prescribed) row(scene_.bodies[b].name, bodies[b]);
  }
  for (size_t r = 0; r < scene_.robots.size(); ++r) {
    const RobotSpec& spec = scene_.robots[r];
    const MultibodyTree& tree = spec.description.tree;
    const std::vector<bool> moves = MovingLinks(tree);
    for (int l = 0; l < tree.num_links(); ++l) {
      if (moves[l])
        row(spec.name + "/" + tree.link(l).name, ToPose(links[r][l]));
    }
  }
}

void ReplayPoseRecorder::Record(const TimeStepper& stepper) {
  if (file_ == nullptr) return;
  if (!wrote_initial_) {
    // The state before the first step, as trajectory.csv's first rows.
    wrote_initial_ = true;
    std::vector<Pose> bodies;
    for (const Body& b : scene_.bodies) bodies.push_back(b.pose);
    std::vector<std::vector<Eigen::Isometry3d>> links(scene_.robots.size());
    for (size_t r = 0; r < scene_.robots.size(); ++r) {
      CalcLinkPoses(scene_.robots[r].description.tree,
                    RobotInitialPositions(scene_.robots[r]), &links[r]);
    }
    WriteRows(0.0, bodies, links);
  }
  const int n = stepper.steps_taken();
  if (n % every_ != 0 && n != steps_) return;
  std::vector<Pose> bodies;
  for (const BodyState& s : stepper.state()) bodies.push_back(s.pose);
  std::vector<std::vector<Eigen::Isometry3d>> links;
  for (size_t r = 0; r < scene_.robots.size(); ++r) {
    links.push_back(stepper.LinkPoses(static_cast<int>(r)));
  }
  WriteRows(stepper.time(), bodies, links);
}

void ReplayPoseRecorder::Commit() {
  if (file_ == nullptr) return;
  const bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  std::error_code ec;
  if (ok) std::filesystem::rename(partial_, final_, ec);
  if (!ok || ec) {
    std::filesystem::remove(partial_, ec);
    throw ReplayError("cannot write " + final_.string());
  }
}

}  // namespace sapcontact
