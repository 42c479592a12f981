// Robots of a scene file (URDF, base, joint states, actuation) and external
// forces (docs/robots.md, docs/scenes.md; scene_parser.h).
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/robot/sdf_loader.h"
#include "sapcontact/sim/robot/srdf_reader.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "sapcontact/sim/scene/nearest_names.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_parser.h"

namespace sapcontact {
namespace scene_internal {

namespace limits = scene_limits;

void SceneParser::ParseRobots(const YAML::Node& list, Scene* scene) {
  if (!list) return;
  if (!list.IsSequence()) {
    r_.Fail(list, "robots", "expected a list of robots");
  }
  if (static_cast<long>(list.size()) > limits::kMaxRobots) {
    r_.Fail(list, "robots",
            std::to_string(list.size()) + " robots, more than the limit of " +
                std::to_string(limits::kMaxRobots) +
                " (docs/scenes.md, Limits)");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string index_field = "robots[" + std::to_string(i) + "]";
    if (!n.IsMap()) r_.Fail(n, index_field, "expected a map (a robot)");
    const YAML::Node name_node = r_.Required(n, "name", index_field);
    const std::string name = r_.String(name_node, index_field + ".name");
    CheckName(name_node, index_field + ".name", name, "robot");
    const std::string field = "robots." + name;
    if (scene->FindRobot(name) >= 0) {
      r_.Fail(name_node, field + ".name",
              "duplicate robot name '" + name + "'");
    }
    if (scene->FindBody(name) >= 0) {
      r_.Fail(name_node, field + ".name",
              "'" + name +
                  "' is already the name of a body (robot and body "
                  "names share one namespace)");
    }
    scene->robots.push_back(ParseRobot(n, field, *scene));
  }
}

RobotSpec SceneParser::ParseRobot(const YAML::Node& n, const std::string& field,
                                  const Scene& scene) {
  r_.CheckMap(n, field, scene_internal::RobotKeys());
  RobotSpec r;
  r.name = n["name"].Scalar();
  // The file the robot comes from: a URDF, or a robot of an MJCF or
  // SDFormat file.
  const char* const kFileKeys[] = {"urdf", "mjcf", "sdf"};
  const char* file_key = nullptr;
  for (const char* key : kFileKeys) {
    if (!n[key]) continue;
    if (file_key != nullptr) {
      r_.Fail(n[key], field + "." + key,
              std::string("a robot is loaded from one file: '") + file_key +
                  "' or '" + key + "', not both");
    }
    file_key = key;
  }
  if (file_key == nullptr) r_.Required(n, "urdf", field);
  const std::string kind = file_key;
  const bool urdf = kind == "urdf";
  const YAML::Node model = n[file_key];
  const std::string model_field = field + "." + kind;
  const struct {
    const char* key;
    const char* owner;
  } options[] = {{"skip_unsupported", "urdf"},
                 {"cylinders_as_capsules", "urdf"},
                 {"mjcf_body", "mjcf"},
                 {"mjcf_keyframe", "mjcf"},
                 {"sdf_model", "sdf"}};
  for (const auto& o : options) {
    if (n[o.key] && kind != o.owner) {
      r_.Fail(n[o.key], field + "." + o.key,
              std::string("an option of robots loaded from '") + o.owner +
                  "' files; this robot is loaded from '" + kind + "'");
    }
  }
  if (n["package_paths"] && kind == "mjcf") {
    r_.Fail(n["package_paths"], field + ".package_paths",
            "an option of robots loaded from URDF and SDFormat files; this "
            "robot is loaded from an MJCF file");
  }
  if (urdf) {
    r.urdf = r_.String(model, model_field);
    r.urdf_path = ResolveFile(r.urdf);
  } else {
    if (n["package_paths"]) {
      ParsePackagePaths(n["package_paths"], field + ".package_paths", &r);
    }
    LoadModelFileRobot(n, field, kind, &r);
  }
  const struct {
    const char* key;
    bool* value;
  } flags[] = {{"self_collision", &r.self_collision},
               {"joint_limits", &r.joint_limits},
               {"skip_unsupported", &r.skip_unsupported},
               {"cylinders_as_capsules", &r.cylinders_as_capsules}};
  for (const auto& flag : flags) {
    if (n[flag.key]) {
      *flag.value = r_.Bool(n[flag.key], field + "." + flag.key);
    }
  }
  if (n["material"]) {
    r.material = r_.String(n["material"], field + ".material");
    r.material_index =
        MaterialIndex(n["material"], field + ".material", r.material, scene);
  }
  if (urdf) {
    if (n["base"]) ParseBase(n["base"], field + ".base", &r);
    if (n["package_paths"]) {
      ParsePackagePaths(n["package_paths"], field + ".package_paths", &r);
    }
    LoadUrdfRobot(model, model_field, &r);
  }
  if (n["geometry_materials"]) {
    ParseGeometryMaterials(n["geometry_materials"],
                           field + ".geometry_materials", scene, &r);
  }
  const MultibodyTree& tree = r.description.tree;
  if (tree.num_links() > limits::kMaxRobotJoints) {
    r_.Fail(model, model_field,
            "the robot has " + std::to_string(tree.num_links()) +
                " joints, more than the limit of " +
                std::to_string(limits::kMaxRobotJoints) +
                " (docs/scenes.md, Limits)");
  }
  if (n["collision_filter"]) {
    ParseCollisionFilter(n["collision_filter"], field + ".collision_filter",
                         &r);
  }
  if (n["srdf"]) ParseSrdf(n["srdf"], field + ".srdf", &r);
  if (n["joints"]) ParseJointStates(n["joints"], field + ".joints", &r);
  if (n["actuation"]) {
    ParseActuation(n["actuation"], field + ".actuation", &r);
  }
  AddServoActuation(&r);
  return r;
}

std::string SceneParser::ResolveFile(const std::string& name) const {
  namespace fs = std::filesystem;
  const fs::path p(name);
  return p.is_absolute() ? name
                         : (fs::path(r_.file()).parent_path() / p)
                               .lexically_normal()
                               .string();
}

void SceneParser::CheckFile(const YAML::Node& node, const std::string& field,
                            const std::string& written,
                            const std::string& resolved, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(resolved, ec)) {
    r_.Fail(node, field,
            std::string("cannot open the ") + what + " file '" + resolved +
                "'" +
                (resolved != written ? " (relative to the scene file's folder)"
                                     : ""));
  }
}

void SceneParser::LoadUrdfRobot(const YAML::Node& node,
                                const std::string& field, RobotSpec* r) {
  CheckFile(node, field, r->urdf, r->urdf_path, "URDF");
  UrdfOptions options;
  options.base_pose = r->base_pose;
  options.floating_base = !r->fixed_base;
  options.skip_unsupported = r->skip_unsupported;
  options.cylinders_as_capsules = r->cylinders_as_capsules;
  options.package_paths = r->package_paths;
  try {
    r->description = LoadUrdf(r->urdf_path, options);
  } catch (const std::invalid_argument& e) {  // UrdfError and the tree's
    r_.Fail(node, field, std::string("cannot load the URDF: ") + e.what());
  }
}

// A robot of an MJCF file (its top-level body `mjcf_body`) or of an
// SDFormat file (its model `sdf_model`), or the file's only robot, placed
// by base, with the file's self-collision and (MJCF) parent-child filter
// (docs/robots.md, "MJCF robots in scenes" and "SDFormat robots in
// scenes"). Each file is loaded once per scene.
void SceneParser::LoadModelFileRobot(const YAML::Node& n,
                                     const std::string& field,
                                     const std::string& kind, RobotSpec* r) {
  const bool mjcf = kind == "mjcf";
  const YAML::Node file = n[kind];
  const std::string f = field + "." + kind;
  const char* const what = mjcf ? "MJCF" : "SDFormat";
  const std::string choice_key = mjcf ? "mjcf_body" : "sdf_model";
  std::string& written = mjcf ? r->mjcf : r->sdf;
  std::string& path = mjcf ? r->mjcf_path : r->sdf_path;
  written = r_.String(file, f);
  path = ResolveFile(written);
  CheckFile(file, f, written, path, what);
  std::string key = kind + ":" + path;
  for (const auto& [name, folder] : r->package_paths) {
    key += "\n" + name + "=" + folder;
  }
  std::shared_ptr<const LoadedModelFile>& loaded = model_files_[key];
  if (loaded == nullptr) {
    auto m = std::make_shared<LoadedModelFile>();
    try {
      if (mjcf) {
        MjcfModel model = LoadMjcf(path);
        m->keyframes = std::move(model.keyframes);
        m->world = std::move(model);
      } else {
        SdfOptions options;
        options.package_paths = r->package_paths;
        m->world = LoadSdf(path, options);
      }
    } catch (const std::invalid_argument& e) {
      r_.Fail(file, f,
              std::string("cannot load the ") + what + " file: " + e.what());
    }
    loaded = std::move(m);
  }
  const WorldDescription& world = loaded->world;
  std::vector<std::string> names;
  for (const RobotDescription& d : world.robots) names.push_back(d.name);
  std::string& choice = mjcf ? r->mjcf_body : r->sdf_model;
  int index = -1;
  if (n[choice_key]) {
    choice = r_.String(n[choice_key], field + "." + choice_key);
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == choice) index = static_cast<int>(i);
    }
    if (index < 0) {
      r_.Fail(n[choice_key], field + "." + choice_key,
              std::string("the ") + what + " file has no " +
                  (mjcf ? "moving top-level body" : "robot") + " '" + choice +
                  "' (its robots: " + NearestNames(choice, names) + ")");
    }
  } else if (names.size() == 1) {
    index = 0;
    choice = names[0];
  } else {
    std::string list;
    for (const std::string& s : names) list += (list.empty() ? "" : ", ") + s;
    r_.Fail(file, f,
            names.empty()
                ? std::string("the ") + what +
                      " file has no moving body (a robot is a body that a "
                      "joint moves)"
                : std::string("the ") + what + " file has " +
                      std::to_string(names.size()) + " robots (" + list +
                      "): choose one with " + choice_key);
  }
  r->description = world.robots[index];
  // The file's own warnings, with the first robot loaded from it (once: a
  // default class's line may be named by the robot and the file alike).
  if (warned_model_files_.insert(key).second) {
    std::vector<std::string>& own = r->description.warnings;
    for (const std::string& w : world.warnings) {
      if (std::find(own.begin(), own.end(), w) == own.end()) own.push_back(w);
    }
  }
  r->fixed_base = r->description.tree.joint(0).type == JointType::kFixed;
  r->self_collision = world.robot_self_collision[index];
  r->collision_filter_pairs = world.robot_filter_pairs[index];
  if (n["base"]) {
    const YAML::Node base = n["base"];
    const bool fixed = r->fixed_base;
    ParseBase(base, field + ".base", r);
    if (r->fixed_base != fixed) {
      r_.Fail(base["fixed"], field + ".base.fixed",
              std::string("the ") + what + " robot's root " +
                  (fixed ? "is welded to the world" : "floats freely") +
                  ": base.fixed must be " + (fixed ? "true" : "false") +
                  " (or left out)");
    }
  }
  if (n["mjcf_keyframe"]) {
    // The key's positions and velocities as the robot's initial state.
    const std::string name =
        r_.String(n["mjcf_keyframe"], field + ".mjcf_keyframe");
    r->mjcf_keyframe = name;
    std::vector<std::string> keys;
    const MjcfKeyframe* key = nullptr;
    for (const MjcfKeyframe& k : loaded->keyframes) {
      keys.push_back(k.name);
      if (k.name == name) key = &k;
    }
    if (key == nullptr) {
      r_.Fail(n["mjcf_keyframe"], field + ".mjcf_keyframe",
              keys.empty()
                  ? std::string("the MJCF file has no <keyframe>")
                  : "the MJCF file has no keyframe '" + name +
                        "' (its keys: " + NearestNames(name, keys) + ")");
    }
    const MultibodyTree& tree = r->description.tree;
    r->description.initial_positions = key->q[index];
    const Eigen::VectorXd& v = key->v[index];
    for (int j = 0; j < tree.num_links(); ++j) {
      const JointType t = tree.joint(j).type;
      if (t == JointType::kFloating) {
        // In the file's world frame, which base turns; base.velocity and
        // base.angular_velocity, when given, stay.
        const YAML::Node base = n["base"];
        if (!base || !base["velocity"]) {
          r->base_velocity = r->base_pose.orientation *
                             Vector3(v.segment<3>(tree.velocity_start(j)));
        }
        if (!base || !base["angular_velocity"]) {
          r->base_angular_velocity =
              r->base_pose.orientation *
              Vector3(v.segment<3>(tree.velocity_start(j) + 3));
        }
      } else if (t == JointType::kRevolute || t == JointType::kPrismatic) {
        r->joints.push_back({j, key->q[index][tree.position_start(j)],
                             v[tree.velocity_start(j)]});
      }
    }
  }
  PlaceRobot(r->base_pose, &r->description);
}

// geometry_materials: {"<link>/<collision>": MATERIAL}.
void SceneParser::ParseGeometryMaterials(const YAML::Node& n,
                                         const std::string& field,
                                         const Scene& scene, RobotSpec* r) {
  r_.CheckMap(n, field, {});
  const std::vector<RobotGeometry>& g = r->description.geometries;
  r->geometry_material_index.assign(g.size(), -1);
  std::vector<std::string> names;
  for (const RobotGeometry& x : g) names.push_back(x.name);
  for (const auto& item : n) {
    const std::string name = item.first.Scalar();
    const std::string f = field + "." + name;
    int k = -1;
    for (size_t i = 0; i < g.size(); ++i) {
      if (g[i].name == name) k = static_cast<int>(i);
    }
    if (k < 0) {
      r_.Fail(item.first, f,
              "robot '" + r->name + "' has no collision geometry '" + name +
                  "' (nearest: " + NearestNames(name, names) + ")");
    }
    const std::string material = r_.String(item.second, f);
    r->geometry_material_index[k] =
        MaterialIndex(item.second, f, material, scene);
  }
}

void SceneParser::ParseBase(const YAML::Node& n, const std::string& field,
                            RobotSpec* r) {
  r_.CheckMap(n, field, scene_internal::RobotBaseKeys());
  ParsePose(n, field, &r->base_pose);
  if (n["fixed"]) r->fixed_base = r_.Bool(n["fixed"], field + ".fixed");
  const char* kMotion[] = {"velocity", "angular_velocity"};
  for (int i = 0; i < 2; ++i) {
    const YAML::Node v_node = n[kMotion[i]];
    if (!v_node) continue;
    const std::string f = field + "." + kMotion[i];
    const Vector3 v = r_.Vec3(v_node, f);
    if (r->fixed_base && v.squaredNorm() > 0.0) {
      r_.Fail(v_node, f,
              "a fixed base cannot move (fixed: false makes it a floating "
              "base)");
    }
    if (i == 0) {
      r_.CheckRange(v_node, f, v.norm(), 0.0, limits::kMaxSpeed, "m/s",
                    "faster than any rigid-body contact (10 km/s)",
                    "|velocity|");
      r->base_velocity = v;
    } else {
      r_.CheckRange(v_node, f, v.norm(), 0.0, limits::kMaxAngularSpeed, "rad/s",
                    "a faster spin is not a rigid body", "|angular_velocity|");
      r->base_angular_velocity = v;
    }
  }
}

// robots[i].package_paths: {NAME: FOLDER}, folders relative to the scene
// file's folder.
void SceneParser::ParsePackagePaths(const YAML::Node& n,
                                    const std::string& field, RobotSpec* r) {
  namespace fs = std::filesystem;
  r_.CheckMap(n, field, {});
  for (const auto& item : n) {
    const std::string package = item.first.Scalar();
    const std::string f = field + "." + package;
    const std::string dir = r_.String(item.second, f);
    const std::string resolved = ResolveFile(dir);
    std::error_code ec;
    if (!fs::is_directory(resolved, ec)) {
      r_.Fail(item.second, f,
              "'" + resolved + "' is not a folder" +
                  (resolved != dir ? " (relative to the scene file's folder)"
                                   : ""));
    }
    r->package_paths[package] = resolved;
  }
}

namespace {

// The index of link `name` of the robot, or -1 with the nearest names in
// *nearest.
int FindLink(const RobotSpec& r, const std::string& name,
             std::string* nearest) {
  const MultibodyTree& tree = r.description.tree;
  const int l = tree.FindLink(name);
  if (l >= 0) return l;
  std::vector<std::string> names;
  for (int k = 0; k < tree.num_links(); ++k) {
    names.push_back(tree.link(k).name);
  }
  *nearest = NearestNames(name, names);
  return -1;
}

}  // namespace

void SceneParser::ParseCollisionFilter(const YAML::Node& n,
                                       const std::string& field, RobotSpec* r) {
  r_.CheckMap(n, field, scene_internal::RobotCollisionFilterKeys());
  if (n["adjacent"]) {
    const double adjacent = r_.NonNegative(n["adjacent"], field + ".adjacent");
    if (adjacent != std::floor(adjacent)) {
      r_.Fail(n["adjacent"], field + ".adjacent",
              "expected a whole number of joints");
    }
    r_.CheckRange(n["adjacent"], field + ".adjacent", adjacent, 0,
                  limits::kMaxRobotJoints, "joints",
                  "more than the robot's joints");
    r->collision_adjacent = static_cast<int>(adjacent);
  }
  const YAML::Node pairs = n["pairs"];
  if (!pairs) return;
  if (!pairs.IsSequence()) {
    r_.Fail(pairs, field + ".pairs",
            "expected a list of link pairs ([[link_a, link_b], ...])");
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    const YAML::Node p = pairs[i];
    const std::string f = field + ".pairs[" + std::to_string(i) + "]";
    if (!p.IsSequence() || p.size() != 2) {
      r_.Fail(p, f, "expected a pair of link names [link_a, link_b]");
    }
    int links[2];
    for (int k = 0; k < 2; ++k) {
      const std::string name = r_.String(p[k], f);
      std::string nearest;
      links[k] = FindLink(*r, name, &nearest);
      if (links[k] < 0) {
        r_.Fail(p[k], f,
                "robot '" + r->name + "' has no link named '" + name +
                    "' (nearest: " + nearest + ")");
      }
    }
    r->collision_filter_pairs.emplace_back(links[0], links[1]);
  }
}

void SceneParser::ParseSrdf(const YAML::Node& n, const std::string& field,
                            RobotSpec* r) {
  namespace fs = std::filesystem;
  r->srdf = r_.String(n, field);
  r->srdf_path = ResolveFile(r->srdf);
  std::vector<SrdfDisabledPair> pairs;
  try {
    pairs = LoadSrdfDisabledCollisions(r->srdf_path);
  } catch (const std::invalid_argument& e) {
    r_.Fail(
        n, field,
        std::string("cannot load the SRDF: ") + e.what() +
            (r->srdf_path != r->srdf ? " (relative to the scene file's folder)"
                                     : ""));
  }
  for (const SrdfDisabledPair& pair : pairs) {
    int links[2];
    const std::string* names[2] = {&pair.link1, &pair.link2};
    for (int k = 0; k < 2; ++k) {
      std::string nearest;
      links[k] = FindLink(*r, *names[k], &nearest);
      if (links[k] < 0) {
        r_.Fail(n, field,
                r->srdf_path + ":" + std::to_string(pair.line) +
                    ": <disable_collisions>: robot '" + r->name +
                    "' has no link named '" + *names[k] +
                    "' (nearest: " + nearest + ")");
      }
    }
    r->collision_filter_pairs.emplace_back(links[0], links[1]);
  }
}

// The tree index of the 1-DOF joint named by `key` (a key of joints: or
// actuation:), which must not be a mimic follower.
int SceneParser::OneDofJoint(const YAML::Node& key, const std::string& field,
                             const RobotSpec& r, const char* what) {
  const MultibodyTree& tree = r.description.tree;
  const std::string name = key.Scalar();
  std::string list;
  for (int j = 0; j < tree.num_links(); ++j) {
    const JointType t = tree.joint(j).type;
    if (t == JointType::kRevolute || t == JointType::kPrismatic) {
      list += (list.empty() ? "" : ", ") + tree.joint(j).name;
    }
  }
  if (list.empty()) list = "none";
  const int j = tree.FindJoint(name);
  if (j < 0) {
    r_.Fail(key, field,
            "robot '" + r.name + "' has no joint named '" + name +
                "' (its revolute and prismatic joints: " + list + ")");
  }
  const JointType t = tree.joint(j).type;
  if (t != JointType::kRevolute && t != JointType::kPrismatic) {
    r_.Fail(key, field,
            "joint '" + name + "' of robot '" + r.name + "' is " +
                JointTypeName(t) + "; only revolute and prismatic joints " +
                what + " (its revolute and prismatic joints: " + list + ")");
  }
  for (const JointCoupling& c : r.description.couplings) {
    if (c.follower == j) {
      r_.Fail(key, field,
              "joint '" + name + "' of robot '" + r.name + "' follows joint '" +
                  tree.joint(c.leader).name + "' (URDF <mimic>): " + what +
                  " only through its leader");
    }
  }
  return j;
}

void SceneParser::ParseJointStates(const YAML::Node& n,
                                   const std::string& field, RobotSpec* r) {
  r_.CheckMap(n, field, {});
  const MultibodyTree& tree = r->description.tree;
  for (const auto& item : n) {
    const std::string jf = field + "." + item.first.Scalar();
    JointInitialState s;
    s.joint = OneDofJoint(item.first, jf, *r, "have a state");
    const Joint& joint = tree.joint(s.joint);
    const bool revolute = joint.type == JointType::kRevolute;
    const char* unit = revolute ? "rad" : "m";
    r_.CheckMap(item.second, jf, scene_internal::JointStateKeys());
    const YAML::Node q = item.second["position"];
    if (q) {
      s.position = r_.Double(q, jf + ".position");
      const double max = revolute ? limits::kMaxAngle : limits::kMaxPosition;
      r_.CheckRange(q, jf + ".position", s.position, -max, max, unit,
                    revolute ? "give the angle modulo 2 pi"
                             : "double precision cannot resolve contact "
                               "farther out");
      if (r->joint_limits &&
          !(s.position >= joint.lower && s.position <= joint.upper)) {
        std::ostringstream os;
        os << "position " << s.position << " " << unit
           << " is outside the URDF limits [" << joint.lower << ", "
           << joint.upper << "] " << unit << " of joint '" << joint.name
           << "' (joint_limits: false ignores them)";
        r_.Fail(q, jf + ".position", os.str());
      }
    }
    const YAML::Node v = item.second["velocity"];
    if (v) {
      s.velocity = r_.Double(v, jf + ".velocity");
      r_.CheckRange(v, jf + ".velocity", std::abs(s.velocity), 0.0,
                    revolute ? limits::kMaxAngularSpeed : limits::kMaxSpeed,
                    revolute ? "rad/s" : "m/s",
                    "faster than any rigid-body contact", "|velocity|");
    }
    r->joints.push_back(s);
  }
}

void SceneParser::ParseActuation(const YAML::Node& n, const std::string& field,
                                 RobotSpec* r) {
  r_.CheckMap(n, field, {});
  const MultibodyTree& tree = r->description.tree;
  // Entries by joint name first (file order); then `default` and joint-name
  // patterns (* and ?) give every other actuable joint, in tree order, the
  // first pattern that matches it, else the default.
  struct Shared {
    std::string key, field;
    JointActuation a;
    bool effort_limit{false};
    int matched{0};
    YAML::Node node;
  };
  std::vector<Shared> patterns;
  std::optional<Shared> default_entry;
  std::vector<char> listed(tree.num_links(), 0);
  for (const auto& item : n) {
    const std::string key = item.first.Scalar();
    const std::string af = field + "." + key;
    const bool pattern = key.find_first_of("*?") != std::string::npos;
    Shared entry;
    if (key != "default" && !pattern) {
      entry.a.joint = OneDofJoint(item.first, af, *r, "can be actuated");
      listed[entry.a.joint] = 1;
    }
    entry.effort_limit = ParseActuationGains(item.second, af, &entry.a);
    if (key == "default") {
      entry.key = key;
      entry.field = af;
      entry.node = item.first;
      default_entry = std::move(entry);
    } else if (pattern) {
      entry.key = key;
      entry.field = af;
      entry.node = item.first;
      patterns.push_back(std::move(entry));
    } else {
      if (!entry.effort_limit) {
        entry.a.effort_limit = tree.joint(entry.a.joint).effort_limit;
      }
      r->actuation.push_back(std::move(entry.a));
    }
  }
  if (patterns.empty() && !default_entry) return;
  std::vector<char> follower(tree.num_links(), 0);
  for (const JointCoupling& c : r->description.couplings) {
    follower[c.follower] = 1;
  }
  for (int j = 0; j < tree.num_links(); ++j) {
    const JointType t = tree.joint(j).type;
    if ((t != JointType::kRevolute && t != JointType::kPrismatic) ||
        listed[j] || follower[j]) {
      continue;
    }
    Shared* use = nullptr;
    for (Shared& p : patterns) {
      if (fnmatch(p.key.c_str(), tree.joint(j).name.c_str(), 0) == 0) {
        use = &p;
        break;
      }
    }
    if (use == nullptr && default_entry) use = &*default_entry;
    if (use == nullptr) continue;
    ++use->matched;
    JointActuation a = use->a;
    a.joint = j;
    if (!use->effort_limit) a.effort_limit = tree.joint(j).effort_limit;
    r->actuation.push_back(std::move(a));
  }
  for (const Shared& p : patterns) {
    if (p.matched == 0) {
      r_.Fail(p.node, p.field,
              "the pattern '" + p.key + "' matches none of robot '" + r->name +
                  "''s actuable joints that are not listed by name");
    }
  }
}

// The file's position and velocity servos (RobotActuator kPosition,
// kVelocity) as implicit PD rows driven by their controls, on joints the
// scene's actuation: does not already drive.
void SceneParser::AddServoActuation(RobotSpec* r) {
  const std::vector<RobotActuator>& list = r->description.actuators;
  for (size_t k = 0; k < list.size(); ++k) {
    const RobotActuator& s = list[k];
    if (s.kind == ActuatorKind::kMotor) continue;
    bool driven = false;
    for (const JointActuation& a : r->actuation) {
      driven = driven || a.joint == s.joint;
    }
    if (driven) continue;
    JointActuation a;
    a.joint = s.joint;
    a.servo = static_cast<int>(k);
    const double g2 = s.gear * s.gear;
    a.kp = s.kind == ActuatorKind::kPosition ? s.kp * g2 : 0.0;
    a.kd = s.kv * g2;
    const double bound =
        std::max(std::abs(s.force_lower), std::abs(s.force_upper));
    a.effort_limit = std::isfinite(bound)
                         ? std::abs(s.gear) * bound
                         : std::numeric_limits<double>::infinity();
    r->actuation.push_back(std::move(a));
  }
}

bool SceneParser::ParseActuationGains(const YAML::Node& m,
                                      const std::string& af,
                                      JointActuation* a) {
  r_.CheckMap(m, af, scene_internal::ActuationKeys());
  if (m["kp"]) a->kp = r_.NonNegative(m["kp"], af + ".kp");
  if (m["kd"]) a->kd = r_.NonNegative(m["kd"], af + ".kd");
  if (!(a->kp + a->kd > 0.0)) {
    r_.Fail(m["kp"] ? m["kp"] : (m["kd"] ? m["kd"] : m), af,
            "kp + kd must be > 0 (a PD actuator without gains)");
  }
  if (m["target"]) a->target = r_.ScalarFunction(m["target"], af + ".target");
  a->target_velocity =
      m["target_velocity"]
          ? r_.ScalarFunction(m["target_velocity"], af + ".target_velocity")
          : a->target.TimeDerivative();
  if (m["feedforward"]) {
    a->feedforward = r_.ScalarFunction(m["feedforward"], af + ".feedforward");
  }
  if (!m["effort_limit"]) return false;
  a->effort_limit = r_.Double(m["effort_limit"], af + ".effort_limit",
                              /*allow_inf=*/true);
  if (!(a->effort_limit > 0.0)) {
    r_.Fail(m["effort_limit"], af + ".effort_limit",
            "must be > 0 (.inf for no limit)");
  }
  return true;
}

void SceneParser::ParseExternalForces(const YAML::Node& list, Scene* scene) {
  if (!list) return;
  if (!list.IsSequence()) {
    r_.Fail(list, "external_forces", "expected a list of forces");
  }
  if (static_cast<long>(list.size()) > limits::kMaxExternalForces) {
    r_.Fail(list, "external_forces",
            std::to_string(list.size()) + " forces, more than the limit of " +
                std::to_string(limits::kMaxExternalForces) +
                " (docs/scenes.md, Limits)");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string field = "external_forces[" + std::to_string(i) + "]";
    r_.CheckMap(n, field, scene_internal::ExternalForceKeys());
    ExternalForce e;
    const YAML::Node target = r_.Required(n, "body", field);
    e.target = r_.String(target, field + ".body");
    const std::string problem = ResolveForceTarget(*scene, &e);
    if (!problem.empty()) r_.Fail(target, field + ".body", problem);
    if (!n["force"] && !n["torque"]) {
      r_.Fail(n, field + ".force", "give force or torque (or both)");
    }
    if (n["force"]) e.force = r_.VectorFunction(n["force"], field + ".force");
    if (n["torque"]) {
      e.torque = r_.VectorFunction(n["torque"], field + ".torque");
    }
    if (n["point"]) {
      e.point = r_.Vec3(n["point"], field + ".point");
      for (int k = 0; k < 3; ++k) {
        r_.CheckRange(n["point"][k],
                      field + ".point[" + std::to_string(k) + "]", e.point[k],
                      -limits::kMaxPosition, limits::kMaxPosition, "m",
                      kPositionWhy);
      }
    }
    scene->external_forces.push_back(std::move(e));
  }
}

}  // namespace scene_internal
}  // namespace sapcontact
