#include "sapcontact/sim/robot/mjcf_loader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sapcontact/sim/robot/mjcf_reader.h"

namespace sapcontact {
namespace mjcf_loader_internal {

void MjcfReader::ReadOptions() {
  for (const Element* o : doc_.Children(doc_.root(), "option")) {
    model_.time_step = doc_.Number(o, "timestep", "", model_.time_step);
    if (!(model_.time_step > 0.0)) doc_.Fail(o, "timestep must be > 0");
    model_.gravity = doc_.Numbers(o, "gravity", "", model_.gravity);
    const std::string integrator = doc_.Text(o, "integrator", "", "Euler");
    if (integrator != "Euler") {
      model_.warnings.push_back(
          doc_.Where(o) + ": integrator '" + integrator +
          "' is not ours: the model steps with the convex implicit step "
          "(docs/theory.md)");
    }
  }
}

void MjcfReader::ReadAssets() {
  for (const Element* a : doc_.Children(doc_.root(), "asset")) {
    for (const Element* m : doc_.Children(a, "mesh")) {
      const char* name = m->Attribute("name");
      const char* file = m->Attribute("file");
      std::string key = name != nullptr ? std::string(name) : std::string();
      if (key.empty() && file != nullptr) {
        key = std::filesystem::path(file).stem().string();
      }
      if (key.empty()) doc_.Fail(m, "a <mesh> needs a name or a file");
      meshes_[key] = m;
    }
  }
}

void MjcfReader::CountIgnored(const Element* e) {
  ++ignored_[MjcfDocument::Tag(e)];
}

MjcfGeom MjcfReader::ReadWorldGeom(const Element* g, const std::string& cls,
                                   const Isometry3d& X_WB, int index) {
  MjcfGeom geom = ReadMjcfGeom(doc_, g, doc_.ClassOf(g, cls), X_WB, meshes_,
                               options_.mesh_limits, &model_.warnings);
  if (!geom.collides) return geom;
  WorldGeometry w;
  w.name = "world/" + (geom.name.empty() ? std::to_string(index) : geom.name);
  w.shape = geom.shape;
  w.pose = ToPose(X_WB * ToIsometry(geom.pose));
  w.surface = MjcfContactSurface(geom, model_.time_step);
  w.mesh_file = geom.mesh_file;
  w.contype = geom.contype;
  w.conaffinity = geom.conaffinity;
  model_.world_geometries.push_back(w);
  return geom;
}

void MjcfReader::ReadStatic(const Element* body, const std::string& cls,
                            const Isometry3d& X_W_parent, int parent_body) {
  const std::string own = doc_.ChildClassOf(body, cls);
  Isometry3d X_WB =
      Translation(doc_.Numbers(body, "pos", "", Vector3d::Zero()));
  X_WB.linear() = doc_.Orientation(body).toRotationMatrix();
  if (!doc_.compiler().global) X_WB = X_W_parent * X_WB;
  MjcfBody b;
  b.name = body->Attribute("name") ? body->Attribute("name") : "";
  b.parent = parent_body;
  b.body_in_link = ToPose(X_WB);
  const int self = static_cast<int>(model_.bodies.size());
  model_.bodies.push_back(b);
  int index = static_cast<int>(model_.world_geometries.size());
  std::vector<MjcfGeom> geoms;
  for (const Element* c : doc_.Children(body)) {
    const std::string t = MjcfDocument::Tag(c);
    if (t == "geom") {
      geoms.push_back(ReadWorldGeom(c, own, X_WB, index++));
    } else if (t == "body") {
      ReadStatic(c, own, X_WB, self);
    } else if (t != "inertial") {
      CountIgnored(c);
    }
  }
  static_mass_ += BodyInertia(body, X_WB, geoms).mass;
}

// compiler settotalmass: every body's mass and inertia times one factor.
void MjcfReader::ScaleToTotalMass() {
  const double target = doc_.compiler().total_mass;
  if (!(target > 0.0)) return;
  double total = static_mass_;
  for (const RobotDescription& d : model_.robots) total += d.tree.TotalMass();
  if (!(total > 0.0)) return;
  const double factor = target / total;
  const Element* compiler = doc_.Children(doc_.root(), "compiler").back();
  if (!std::isfinite(factor) || !(factor > 0.0)) {
    doc_.Fail(compiler,
              "settotalmass scales the masses by a factor that is "
              "not finite");
  }
  for (RobotDescription& d : model_.robots) {
    MultibodyTree scaled;
    for (int i = 0; i < d.tree.num_links(); ++i) {
      Link l = d.tree.link(i);
      l.inertia.mass *= factor;
      l.inertia.inertia *= factor;
      try {
        scaled.AddLink(l, d.tree.joint(i));
      } catch (const std::invalid_argument& e) {
        doc_.Fail(compiler, std::string("settotalmass: ") + e.what());
      }
    }
    d.tree = std::move(scaled);
  }
}

MjcfModel MjcfReader::Read() {
  model_.name = doc_.model_name();
  // MuJoCo's sections; anything else in <mujoco> (a <body> of a file
  // written to be included inside <worldbody>) is refused, as MuJoCo does.
  static const char* const kSections[] = {
      "compiler",  "option",   "size",   "visual",    "statistic", "default",
      "extension", "custom",   "asset",  "worldbody", "contact",   "equality",
      "tendon",    "actuator", "sensor", "keyframe"};
  for (const Element* c : doc_.Children(doc_.root())) {
    const std::string t = MjcfDocument::Tag(c);
    bool known = false;
    for (const char* s : kSections) known = known || t == s;
    if (!known) {
      doc_.Fail(c, "<" + t +
                       "> is not a section of <mujoco> (a file meant to be "
                       "<include>d inside another element?)");
    }
  }
  ReadOptions();
  ReadAssets();
  for (const Element* wb : doc_.Children(doc_.root(), "worldbody")) {
    int index = 0;
    for (const Element* c : doc_.Children(wb)) {
      const std::string t = MjcfDocument::Tag(c);
      if (t == "geom") {
        ReadWorldGeom(c, "main", Isometry3d::Identity(), index++);
      } else if (t == "body" && !HasJoint(c)) {
        ReadStatic(c, "main", Isometry3d::Identity(), -1);
      } else if (t == "body") {
        RobotDescription d;
        d.name = c->Attribute("name")
                     ? c->Attribute("name")
                     : "robot" + std::to_string(model_.robots.size());
        Unmodelled unmodelled;
        const int robot = static_cast<int>(model_.robots.size());
        model_.geometry_surfaces.emplace_back();
        model_.geometry_masks.emplace_back();
        masks_.emplace_back();
        int root = -1;
        if (MovesByHingeOrSlide(c)) {
          // Link 0 is welded to the world (RobotDescription's rule).
          Link world;
          world.name = "world";
          Joint weld;
          weld.name = d.name + "_base";
          weld.type = JointType::kFixed;
          root = d.tree.AddLink(world, weld);
        }
        ReadBody(c, "main", root, Isometry3d::Identity(),
                 Isometry3d::Identity(), -1, robot, &d, &unmodelled);
        unmodelled.Report(&d.warnings);
        model_.robot_self_collision.push_back(SelfCollides(robot));
        if (d.collision_counts.loaded == 0) {
          d.warnings.push_back(doc_.Where(c) +
                               ": the robot has no collision geometry");
        }
        model_.robots.push_back(std::move(d));
      } else {
        CountIgnored(c);
      }
    }
  }
  ScaleToTotalMass();
  ReadActuators();
  ReadContactExcludes();
  ReadKeyframes();
  ReadJointEqualities();
  ReadTendons();
  ReadWeldsAndConnects();
  // Elements this reader does not apply yet: one warning each, naming it;
  // sensors (which only measure) in one count.
  for (const char* section : {"equality", "contact"}) {
    for (const Element* s : doc_.Children(doc_.root(), section)) {
      for (const Element* c : doc_.Children(s)) {
        const std::string t = MjcfDocument::Tag(c);
        if (t == "exclude" || t == "joint" || t == "weld" || t == "connect") {
          continue;
        }
        model_.warnings.push_back(doc_.Where(c) + ": <" + section + "><" + t +
                                  "> is not applied (not supported yet)");
      }
    }
  }
  for (const Element* s : doc_.Children(doc_.root(), "sensor")) {
    const int n = static_cast<int>(doc_.Children(s).size());
    if (n > 0) {
      model_.warnings.push_back(doc_.Where(s) + ": " + std::to_string(n) +
                                " sensor" + (n == 1 ? "" : "s") +
                                " ignored (they only measure)");
    }
  }
  if (!ignored_.empty()) {
    std::string list;
    for (const auto& [tag, n] : ignored_) {
      list += (list.empty() ? "" : ", ") + std::to_string(n) + " <" + tag + ">";
    }
    model_.warnings.push_back(
        doc_.Where(doc_.root()) + ": ignored " + list +
        " (cameras, lights, sites and other elements that do not simulate)");
  }
  return std::move(model_);
}

}  // namespace mjcf_loader_internal

MjcfModel ParseMjcf(const std::string& xml, const std::string& source,
                    const MjcfOptions& options) {
  try {
    const MjcfDocument doc(xml, source);
    return mjcf_loader_internal::MjcfReader(doc, options).Read();
  } catch (const MjcfError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw MjcfError(e.what());
  }
}

MjcfModel LoadMjcf(const std::string& path, const MjcfOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MjcfError(path + ": cannot open the MJCF file");
  std::ostringstream s;
  s << in.rdbuf();
  return ParseMjcf(s.str(), path, options);
}

}  // namespace sapcontact
