// URDF -> RobotDescription in two passes over the document:
//  1. TinyXML (which records line numbers) reads the text, and every element
//     the loader maps is validated here, so that errors carry file:line and
//     name the element. This pass also applies the options (skipped or
//     converted collision geometry), resolves the project's <capsule>
//     extension, and records the tree structure.
//  2. The document, minus what the loader ignores or handles itself
//     (visuals, materials, skipped collisions, safety controllers,
//     calibration; capsules replaced by a placeholder sphere), goes to
//     urdfdom, whose model supplies the kinematic and inertial values.
#include "sapcontact/sim/robot/urdf_loader.h"

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <locale>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "sapcontact/sim/robot/urdf_visuals.h"

namespace sapcontact {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

/// One <collision> element after validation.
struct CollisionInfo {
  std::string label;         ///< name attribute, or the index among the link's
  bool keep{true};           ///< false: skipped (skip_unsupported)
  bool capsule{false};       ///< <capsule>: urdfdom sees a placeholder sphere
  bool approximated{false};  ///< a cylinder as a capsule, a mesh as its hull
  Shape shape;               ///< the shape as it will be loaded
};

struct LinkInfo {
  std::string name;
  int line{0};
  std::vector<CollisionInfo> collisions;
  TiXmlElement* element{nullptr};
  std::vector<VisualGeometry> visuals;  ///< link index set by Build
  int parent_joint{-1};                 ///< index in the joint list, -1: a root
  std::vector<int> child_joints;        ///< in document order
};

struct JointInfo {
  std::string name;
  int line{0};
  std::string type;
  std::string parent, child;
  int parent_line{0}, child_line{0};
  int parent_link{-1}, child_link{-1};
  std::string mimic_leader;  ///< "" without <mimic>
  int mimic_line{0};
};

/// Collects console_bridge output (urdfdom's messages) instead of printing
/// it; installed only while urdfdom runs, under a mutex because the handler
/// is process-wide.
class CapturedLog : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level,
           const char* /*filename*/, int /*line*/) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
      errors.push_back(text);
    }
  }
  std::vector<std::string> errors;
};

std::mutex& ConsoleBridgeMutex() {
  static std::mutex mutex;
  return mutex;
}

class UrdfReader {
 public:
  UrdfReader(const std::string& source, const UrdfOptions& options)
      : source_(source),
        options_(options),
        visual_reader_(
            source, options.mesh_limits,
            [this](const TiXmlElement* s, const std::string& uri,
                   const std::string& who) {
              return ResolveMeshUri(s, uri, who);
            },
            &warnings_) {}

  RobotDescription Read(const std::string& xml);

 private:
  [[noreturn]] void Fail(int line, const std::string& who,
                         const std::string& what) const {
    std::ostringstream msg;
    msg << source_;
    if (line > 0) msg << ":" << line;
    msg << ": ";
    if (!who.empty()) msg << who << ": ";
    msg << what;
    throw UrdfError(msg.str());
  }
  void Warn(int line, const std::string& what) {
    warnings_.push_back(source_ + (line > 0 ? ":" + std::to_string(line) : "") +
                        ": " + what);
  }

  // Attribute readers: validate the text like urdfdom's number parser
  // (classic locale, whole string) and finite, and write the canonical text
  // back so that urdfdom reads the same value.
  std::string Tag(const TiXmlElement* e, const char* attr) const;
  double Number(TiXmlElement* e, const char* attr, const std::string& who,
                const double* fallback);
  Eigen::Vector3d Vector(TiXmlElement* e, const char* attr,
                         const std::string& who,
                         const Eigen::Vector3d& fallback);
  /// Validates an optional <origin> element.
  void CheckOrigin(TiXmlElement* origin, const std::string& who);

  void ScanLink(TiXmlElement* e);
  void ScanInertial(TiXmlElement* inertial, const std::string& who);
  CollisionInfo ScanCollision(TiXmlElement* c, int index,
                              const std::string& who);
  /// The mesh of <mesh filename scale> element `s`, loaded once per file
  /// and scale; approximated: it collides as its hull of a mesh that is not
  /// convex or not closed (warned once per file).
  std::shared_ptr<const MeshShape> ScanMesh(TiXmlElement* s,
                                            const std::string& cwho,
                                            bool* approximated);
  /// The file a mesh URI names: package://NAME/..., file://..., or a path
  /// (relative to the URDF's folder).
  std::string ResolveMeshUri(const TiXmlElement* s, const std::string& uri,
                             const std::string& cwho) const;
  void ScanJoint(TiXmlElement* e);
  void ResolveTree(const TiXmlElement* robot);
  RobotDescription Build(const urdf::ModelInterface& model,
                         const std::string& name);

  std::string source_;
  UrdfOptions options_;
  std::vector<LinkInfo> links_;
  std::vector<JointInfo> joints_;
  std::map<std::string, int> link_index_, joint_index_;
  std::vector<int> order_;  ///< link indices in topological order
  std::vector<std::string> warnings_;
  std::map<std::pair<std::string, std::string>,
           std::shared_ptr<const MeshShape>>
      meshes_;  ///< by (path, scale text)
  std::set<std::string> warned_meshes_;
  UrdfVisualReader visual_reader_;
  int visuals_dropped_{0};
  /// Document edits for urdfdom, applied after the scan.
  std::vector<std::pair<TiXmlNode*, TiXmlNode*>> removals_;     // parent, child
  std::vector<std::pair<TiXmlNode*, TiXmlElement*>> capsules_;  // geometry
};

bool ParseNumber(const std::string& text, double* value) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  in >> *value;
  if (in.fail()) return false;  // also overflow, "nan", "inf"
  in >> std::ws;
  return in.eof() && std::isfinite(*value);
}

std::string Trim(const std::string& s) {
  const char* space = " \t\r\n";
  const size_t b = s.find_first_not_of(space);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

std::string UrdfReader::Tag(const TiXmlElement* e, const char* attr) const {
  std::string tag = "<" + e->ValueStr();
  if (attr != nullptr) {
    const char* v = e->Attribute(attr);
    tag += std::string(" ") + attr + "=\"" + (v ? v : "") + "\"";
  }
  return tag + ">";
}

double UrdfReader::Number(TiXmlElement* e, const char* attr,
                          const std::string& who, const double* fallback) {
  const char* text = e->Attribute(attr);
  if (text == nullptr) {
    if (fallback == nullptr) {
      Fail(e->Row(), who,
           Tag(e, nullptr) + ": the attribute '" + attr + "' is missing");
    }
    return *fallback;
  }
  double value = 0.0;
  const std::string trimmed = Trim(text);
  if (!ParseNumber(trimmed, &value)) {
    Fail(e->Row(), who, Tag(e, attr) + ": not a finite number");
  }
  e->SetAttribute(attr, trimmed);
  return value;
}

Eigen::Vector3d UrdfReader::Vector(TiXmlElement* e, const char* attr,
                                   const std::string& who,
                                   const Eigen::Vector3d& fallback) {
  const char* text = e->Attribute(attr);
  if (text == nullptr) return fallback;
  std::istringstream words(text);
  std::string word, canonical;
  std::vector<double> values;
  while (words >> word) {
    double value = 0.0;
    if (!ParseNumber(word, &value)) {
      Fail(e->Row(), who,
           Tag(e, attr) + ": '" + word + "' is not a finite number");
    }
    values.push_back(value);
    canonical += (canonical.empty() ? "" : " ") + word;
  }
  if (values.size() != 3) {
    Fail(e->Row(), who, Tag(e, attr) + ": expected 3 numbers");
  }
  e->SetAttribute(attr, canonical);
  return Eigen::Vector3d(values[0], values[1], values[2]);
}

void UrdfReader::CheckOrigin(TiXmlElement* origin, const std::string& who) {
  if (origin == nullptr) return;
  Vector(origin, "xyz", who, Eigen::Vector3d::Zero());
  Vector(origin, "rpy", who, Eigen::Vector3d::Zero());
}

void UrdfReader::ScanInertial(TiXmlElement* inertial, const std::string& who) {
  if (TiXmlElement* second = inertial->NextSiblingElement("inertial")) {
    Fail(second->Row(), who, "more than one <inertial>");
  }
  CheckOrigin(inertial->FirstChildElement("origin"), who);
  TiXmlElement* mass = inertial->FirstChildElement("mass");
  if (mass == nullptr) Fail(inertial->Row(), who, "<inertial> without <mass>");
  if (Number(mass, "value", who, nullptr) < 0.0) {
    Fail(mass->Row(), who, Tag(mass, "value") + ": negative mass");
  }
  TiXmlElement* inertia = inertial->FirstChildElement("inertia");
  if (inertia == nullptr) {
    Fail(inertial->Row(), who, "<inertial> without <inertia>");
  }
  const double ixx = Number(inertia, "ixx", who, nullptr);
  const double ixy = Number(inertia, "ixy", who, nullptr);
  const double ixz = Number(inertia, "ixz", who, nullptr);
  const double iyy = Number(inertia, "iyy", who, nullptr);
  const double iyz = Number(inertia, "iyz", who, nullptr);
  const double izz = Number(inertia, "izz", who, nullptr);
  Eigen::Matrix3d I;
  I << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
  // Positive semidefinite (rotation-invariant: checked before rotating).
  const Eigen::Vector3d eig =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues();
  if (eig(0) < -1e-9 * std::max(1e-300, eig.cwiseAbs().maxCoeff())) {
    std::ostringstream what;
    what << "<inertia>: not positive semidefinite (principal moments " << eig(0)
         << ", " << eig(1) << ", " << eig(2) << ")";
    Fail(inertia->Row(), who, what.str());
  }
}

CollisionInfo UrdfReader::ScanCollision(TiXmlElement* c, int index,
                                        const std::string& who) {
  CollisionInfo info;
  const char* name = c->Attribute("name");
  info.label = (name != nullptr && *name != '\0') ? std::string(name)
                                                  : std::to_string(index);
  const std::string label = "collision " + ((name != nullptr && *name != '\0')
                                                ? Quoted(name)
                                                : std::to_string(index));
  const std::string cwho = who + ": " + label;
  CheckOrigin(c->FirstChildElement("origin"), cwho);
  TiXmlElement* geometry = c->FirstChildElement("geometry");
  if (geometry == nullptr)
    Fail(c->Row(), cwho, "<collision> without <geometry>");
  TiXmlElement* s = geometry->FirstChildElement();
  if (s == nullptr) Fail(geometry->Row(), cwho, "<geometry> without a shape");
  const std::string type = s->ValueStr();
  auto positive = [&](const char* attr) {
    const double v = Number(s, attr, cwho, nullptr);
    if (v <= 0.0) Fail(s->Row(), cwho, Tag(s, attr) + ": must be positive");
    return v;
  };
  auto unsupported = [&](const std::string& error, const std::string& why) {
    if (!options_.skip_unsupported) Fail(s->Row(), who, error);
    Warn(s->Row(),
         "<" + type + "> in " + who + " " + label + " skipped (" + why + ")");
    info.keep = false;
    removals_.emplace_back(c->Parent(), c);
  };
  if (type == "box") {
    const Eigen::Vector3d size =
        Vector(s, "size", cwho, Eigen::Vector3d::Zero());
    if (s->Attribute("size") == nullptr) {
      Fail(s->Row(), cwho, "<box>: the attribute 'size' is missing");
    }
    if ((size.array() <= 0.0).any()) {
      Fail(s->Row(), cwho, Tag(s, "size") + ": sizes must be positive");
    }
    info.shape = MakeBox(size.x(), size.y(), size.z());
  } else if (type == "sphere") {
    info.shape = MakeSphere(positive("radius"));
  } else if (type == "capsule") {  // the project's extension
    const double radius = positive("radius");
    const double length = Number(s, "length", cwho, nullptr);
    if (length < 0.0) {
      Fail(s->Row(), cwho, Tag(s, "length") + ": must not be negative");
    }
    info.shape = MakeCapsule(radius, length);
    info.capsule = true;
    capsules_.emplace_back(geometry, s);
  } else if (type == "cylinder") {
    const double radius = positive("radius");
    const double length = positive("length");
    if (options_.cylinders_as_capsules) {
      info.shape = MakeCapsule(radius, std::max(length - 2.0 * radius, 0.0));
      info.approximated = true;
      Warn(s->Row(), "<cylinder> in " + who + " " + label +
                         " loaded as a capsule (cylinders_as_capsules)");
    } else {
      info.shape = MakeCylinder(radius, length);
    }
  } else if (type == "mesh") {
    info.shape = MakeMesh(ScanMesh(s, cwho, &info.approximated));
  } else {
    unsupported("unknown collision geometry <" + type +
                    "> (use box, sphere, cylinder, capsule or mesh; or skip "
                    "it with skip_unsupported)",
                "unknown geometry");
  }
  return info;
}

std::string UrdfReader::ResolveMeshUri(const TiXmlElement* s,
                                       const std::string& uri,
                                       const std::string& cwho) const {
  namespace fs = std::filesystem;
  const std::string tag = Tag(s, "filename");
  const std::string kPackage = "package://", kFile = "file://";
  if (uri.compare(0, kFile.size(), kFile) == 0) {
    return uri.substr(kFile.size());
  }
  if (uri.compare(0, kPackage.size(), kPackage) != 0) {
    const fs::path p(uri);
    if (p.is_absolute()) return uri;
    return (fs::path(source_).parent_path() / p).lexically_normal().string();
  }
  const std::string rest = uri.substr(kPackage.size());
  const size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size()) {
    Fail(s->Row(), cwho,
         tag + ": not a package URI (expected package://NAME/PATH)");
  }
  const std::string name = rest.substr(0, slash);
  const std::string file = rest.substr(slash + 1);
  if (auto it = options_.package_paths.find(name);
      it != options_.package_paths.end()) {
    return (fs::path(it->second) / file).lexically_normal().string();
  }
  std::string searched;
  const char* env =
      options_.use_ros_package_path ? std::getenv("ROS_PACKAGE_PATH") : nullptr;
  if (env != nullptr) {
    std::istringstream folders(env);
    std::string folder;
    while (std::getline(folders, folder, ':')) {
      if (folder.empty()) continue;
      searched += (searched.empty() ? "" : ", ") + folder;
      std::error_code ec;
      const fs::path f(folder);
      if (f.filename() == name && fs::is_directory(f, ec)) {
        return (f / file).lexically_normal().string();
      }
      if (fs::is_directory(f / name, ec)) {
        return (f / name / file).lexically_normal().string();
      }
    }
  }
  Fail(s->Row(), cwho,
       tag + ": package '" + name +
           "' not found (give the robot package_paths: {" + name +
           ": FOLDER}, or add the folder holding '" + name +
           "' to ROS_PACKAGE_PATH" +
           (options_.use_ros_package_path
                ? "; ROS_PACKAGE_PATH " + (searched.empty()
                                               ? std::string("is not set")
                                               : "searched: " + searched)
                : "") +
           ")");
}

std::shared_ptr<const MeshShape> UrdfReader::ScanMesh(TiXmlElement* s,
                                                      const std::string& cwho,
                                                      bool* approximated) {
  const char* filename = s->Attribute("filename");
  if (filename == nullptr || *filename == '\0') {
    Fail(s->Row(), cwho, "<mesh>: the attribute 'filename' is missing");
  }
  const Eigen::Vector3d scale = Vector(s, "scale", cwho, Vector3::Ones());
  if ((scale.array() == 0.0).any()) {
    Fail(s->Row(), cwho, Tag(s, "scale") + ": a scale must not be zero");
  }
  const std::string path = ResolveMeshUri(s, filename, cwho);
  std::ostringstream key;
  key.precision(17);
  key << scale.transpose();
  std::shared_ptr<const MeshShape>& mesh = meshes_[{path, key.str()}];
  if (mesh == nullptr) {
    try {
      mesh = LoadMeshShape(path, filename, scale, /*centre=*/false,
                           options_.mesh_limits);
    } catch (const std::invalid_argument& e) {  // MeshError
      meshes_.erase({path, key.str()});
      Fail(s->Row(), cwho, Tag(s, "filename") + ": " + e.what());
    }
  }
  *approximated = !mesh->convex;
  if (*approximated && warned_meshes_.insert(path).second) {
    Warn(s->Row(), cwho + ": " + HullApproximation(*mesh));
  }
  return mesh;
}

void UrdfReader::ScanLink(TiXmlElement* e) {
  const char* name = e->Attribute("name");
  if (name == nullptr || *name == '\0') {
    Fail(e->Row(), "", "<link> without a name");
  }
  const std::string who = "link " + Quoted(name);
  if (auto it = link_index_.find(name); it != link_index_.end()) {
    Fail(e->Row(), who,
         "duplicate link name (first defined at line " +
             std::to_string(links_[it->second].line) + ")");
  }
  LinkInfo link;
  link.name = name;
  link.line = e->Row();
  if (TiXmlElement* inertial = e->FirstChildElement("inertial")) {
    ScanInertial(inertial, who);
  }
  int index = 0;
  for (TiXmlElement* c = e->FirstChildElement("collision"); c != nullptr;
       c = c->NextSiblingElement("collision"), ++index) {
    link.collisions.push_back(ScanCollision(c, index, who));
  }
  // Visuals are read after the scan (urdf_visuals.h: materials may be
  // defined after the links naming them) and removed from urdfdom's
  // document: it would reject geometry or materials it does not know.
  link.element = e;
  for (TiXmlElement* v = e->FirstChildElement("visual"); v != nullptr;
       v = v->NextSiblingElement("visual")) {
    removals_.emplace_back(e, v);
  }
  link_index_[link.name] = static_cast<int>(links_.size());
  links_.push_back(std::move(link));
}

void UrdfReader::ScanJoint(TiXmlElement* e) {
  const char* name = e->Attribute("name");
  if (name == nullptr || *name == '\0') {
    Fail(e->Row(), "", "<joint> without a name");
  }
  const std::string who = "joint " + Quoted(name);
  if (auto it = joint_index_.find(name); it != joint_index_.end()) {
    Fail(e->Row(), who,
         "duplicate joint name (first defined at line " +
             std::to_string(joints_[it->second].line) + ")");
  }
  JointInfo joint;
  joint.name = name;
  joint.line = e->Row();
  const char* type = e->Attribute("type");
  if (type == nullptr) Fail(e->Row(), who, "the attribute 'type' is missing");
  joint.type = type;
  if (joint.type == "planar") {
    Fail(e->Row(), who,
         "planar joints are not supported (use revolute, continuous, "
         "prismatic, fixed or floating)");
  }
  const bool one_dof = joint.type == "revolute" || joint.type == "continuous" ||
                       joint.type == "prismatic";
  if (!one_dof && joint.type != "fixed" && joint.type != "floating") {
    Fail(e->Row(), who, "unknown joint type " + Quoted(joint.type));
  }
  for (const char* end : {"parent", "child"}) {
    TiXmlElement* x = e->FirstChildElement(end);
    const char* link = x != nullptr ? x->Attribute("link") : nullptr;
    if (link == nullptr) {
      Fail(x != nullptr ? x->Row() : e->Row(), who,
           std::string("missing <") + end + " link=\"...\">");
    }
    (std::strcmp(end, "parent") == 0 ? joint.parent : joint.child) = link;
    (std::strcmp(end, "parent") == 0 ? joint.parent_line : joint.child_line) =
        x->Row();
  }
  CheckOrigin(e->FirstChildElement("origin"), who);

  // Elements the loader ignores, removed so that urdfdom does not reject
  // them either.
  auto ignore = [&](const char* tag) {
    for (TiXmlElement* x = e->FirstChildElement(tag); x != nullptr;
         x = x->NextSiblingElement(tag)) {
      removals_.emplace_back(e, x);
    }
  };
  ignore("safety_controller");
  ignore("calibration");
  if (!one_dof) {
    ignore("axis");
    ignore("limit");
    if (TiXmlElement* mimic = e->FirstChildElement("mimic")) {
      Fail(mimic->Row(), who,
           "<mimic> on a " + joint.type +
               " joint (couplings need 1-DOF "
               "joints)");
    }
  }
  if (joint.type == "fixed") ignore("dynamics");

  if (one_dof) {
    if (TiXmlElement* axis = e->FirstChildElement("axis")) {
      if (axis->Attribute("xyz") == nullptr) {
        axis->SetAttribute("xyz", "1 0 0");  // the URDF default
      }
      const Eigen::Vector3d a =
          Vector(axis, "xyz", who, Eigen::Vector3d::UnitX());
      if (a.norm() == 0.0)
        Fail(axis->Row(), who, Tag(axis, "xyz") + ": zero axis");
    }
    TiXmlElement* limit = e->FirstChildElement("limit");
    const bool has_position_limits = joint.type != "continuous";
    if (limit == nullptr && has_position_limits) {
      Fail(e->Row(), who,
           joint.type + " joint without <limit>" +
               (joint.type == "revolute"
                    ? " (use type continuous for an unlimited revolute joint)"
                    : ""));
    }
    if (limit != nullptr) {
      const double zero = 0.0;
      const double lower = Number(limit, "lower", who, &zero);
      const double upper = Number(limit, "upper", who, &zero);
      if (has_position_limits && lower > upper) {
        std::ostringstream what;
        what << "<limit>: lower " << lower << " > upper " << upper;
        Fail(limit->Row(), who, what.str());
      }
      for (const char* attr : {"effort", "velocity"}) {
        if (Number(limit, attr, who, nullptr) < 0.0) {
          Fail(limit->Row(), who, Tag(limit, attr) + ": must not be negative");
        }
      }
    }
    if (TiXmlElement* mimic = e->FirstChildElement("mimic")) {
      const char* leader = mimic->Attribute("joint");
      if (leader == nullptr) {
        Fail(mimic->Row(), who, "<mimic>: the attribute 'joint' is missing");
      }
      joint.mimic_leader = leader;
      joint.mimic_line = mimic->Row();
      const double one = 1.0, zero = 0.0;
      Number(mimic, "multiplier", who, &one);
      Number(mimic, "offset", who, &zero);
    }
  }
  if (joint.type != "fixed") {
    if (TiXmlElement* dynamics = e->FirstChildElement("dynamics")) {
      if (dynamics->Attribute("damping") == nullptr &&
          dynamics->Attribute("friction") == nullptr) {
        Fail(dynamics->Row(), who, "<dynamics> without damping or friction");
      }
      const double zero = 0.0;
      if (Number(dynamics, "damping", who, &zero) < 0.0) {
        Fail(dynamics->Row(), who,
             Tag(dynamics, "damping") + ": must not be negative");
      }
      if (Number(dynamics, "friction", who, &zero) != 0.0) {
        Warn(dynamics->Row(), Tag(dynamics, "friction") + " of " + who +
                                  " ignored (joint friction is not modelled)");
      }
    }
  }
  joint_index_[joint.name] = static_cast<int>(joints_.size());
  joints_.push_back(std::move(joint));
}

void UrdfReader::ResolveTree(const TiXmlElement* robot) {
  if (links_.empty()) Fail(robot->Row(), "", "no <link> elements");
  for (int j = 0; j < static_cast<int>(joints_.size()); ++j) {
    JointInfo& joint = joints_[j];
    const std::string who = "joint " + Quoted(joint.name);
    auto find = [&](const std::string& link, int line, const char* end) {
      auto it = link_index_.find(link);
      if (it == link_index_.end()) {
        Fail(line, who,
             std::string(end) + " link " + Quoted(link) + " does not exist");
      }
      return it->second;
    };
    joint.parent_link = find(joint.parent, joint.parent_line, "parent");
    joint.child_link = find(joint.child, joint.child_line, "child");
    if (joint.parent_link == joint.child_link) {
      Fail(joint.child_line, who,
           "the child link is the parent link " + Quoted(joint.child));
    }
    LinkInfo& child = links_[joint.child_link];
    if (child.parent_joint >= 0) {
      Fail(joint.child_line, who,
           "link " + Quoted(child.name) + " is already the child of joint " +
               Quoted(joints_[child.parent_joint].name) + " (line " +
               std::to_string(joints_[child.parent_joint].line) +
               "): a URDF is a tree");
    }
    child.parent_joint = j;
    links_[joint.parent_link].child_joints.push_back(j);
    if (!joint.mimic_leader.empty()) {
      auto it = joint_index_.find(joint.mimic_leader);
      if (it == joint_index_.end()) {
        Fail(
            joint.mimic_line, who,
            "<mimic>: joint " + Quoted(joint.mimic_leader) + " does not exist");
      }
      const std::string& t = joints_[it->second].type;
      if (t != "revolute" && t != "continuous" && t != "prismatic") {
        Fail(joint.mimic_line, who,
             "<mimic>: joint " + Quoted(joint.mimic_leader) + " is " + t +
                 "; couplings need 1-DOF joints");
      }
      if (it->second == j) {
        Fail(joint.mimic_line, who, "<mimic>: a joint cannot mimic itself");
      }
    }
  }
  int root = -1;
  for (int i = 0; i < static_cast<int>(links_.size()); ++i) {
    if (links_[i].parent_joint >= 0) continue;
    if (root >= 0) {
      Fail(links_[i].line, "link " + Quoted(links_[i].name),
           "a second root link (the first is " + Quoted(links_[root].name) +
               " at line " + std::to_string(links_[root].line) +
               "): every link but one must be the child of a joint");
    }
    root = i;
  }
  if (root < 0) {
    Fail(robot->Row(), "", "no root link: the joints form a cycle");
  }
  const std::string base_joint = links_[root].name + "_base";
  if (auto it = joint_index_.find(base_joint); it != joint_index_.end()) {
    Fail(joints_[it->second].line, "joint " + Quoted(base_joint),
         "the name is reserved for the joint attaching the root link " +
             Quoted(links_[root].name) + " to the world");
  }
  // Depth-first preorder, children in the document order of their joints.
  std::vector<int> stack{root};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    order_.push_back(i);
    const std::vector<int>& children = links_[i].child_joints;
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      stack.push_back(joints_[*it].child_link);
    }
  }
  if (order_.size() != links_.size()) {
    std::vector<bool> seen(links_.size(), false);
    for (int i : order_) seen[i] = true;
    for (int i = 0; i < static_cast<int>(links_.size()); ++i) {
      if (!seen[i]) {
        Fail(links_[i].line, "link " + Quoted(links_[i].name),
             "not connected to the root link " + Quoted(links_[root].name) +
                 " (the joints form a cycle)");
      }
    }
  }
}

Eigen::Isometry3d ToIsometry(const urdf::Pose& pose) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() << pose.position.x, pose.position.y, pose.position.z;
  X.linear() = Eigen::Quaterniond(pose.rotation.w, pose.rotation.x,
                                  pose.rotation.y, pose.rotation.z)
                   .normalized()
                   .toRotationMatrix();
  return X;
}

Pose ToPose(const urdf::Pose& pose) {
  Pose p;
  p.position << pose.position.x, pose.position.y, pose.position.z;
  p.orientation = Eigen::Quaterniond(pose.rotation.w, pose.rotation.x,
                                     pose.rotation.y, pose.rotation.z)
                      .normalized();
  return p;
}

double LimitOrInf(double value) { return value > 0.0 ? value : kInf; }

RobotDescription UrdfReader::Build(const urdf::ModelInterface& model,
                                   const std::string& name) {
  RobotDescription robot;
  robot.name = name;
  std::vector<int> tree_index(links_.size(), -1);
  for (int link_index : order_) {
    const LinkInfo& info = links_[link_index];
    const std::string who = "link " + Quoted(info.name);
    urdf::LinkConstSharedPtr ulink = model.getLink(info.name);
    if (!ulink) Fail(info.line, who, "internal error: urdfdom lost the link");

    Link link;
    link.name = info.name;
    if (ulink->inertial) {
      const urdf::Inertial& in = *ulink->inertial;
      const Eigen::Isometry3d X_LI = ToIsometry(in.origin);
      Eigen::Matrix3d I_I;
      I_I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz,
          in.izz;
      const Eigen::Matrix3d R = X_LI.linear();
      link.inertia.mass = in.mass;
      link.inertia.com = X_LI.translation();
      Eigen::Matrix3d I_L = R * I_I * R.transpose();
      link.inertia.inertia = 0.5 * (I_L + I_L.transpose());
    }

    Joint joint;
    if (info.parent_joint < 0) {  // the root
      joint.name = info.name + "_base";
      joint.parent = -1;
      if (options_.floating_base) {
        joint.type = JointType::kFloating;
      } else {
        joint.type = JointType::kFixed;
        joint.origin = Eigen::Isometry3d::Identity();
        joint.origin.translation() = options_.base_pose.position;
        joint.origin.linear() =
            options_.base_pose.orientation.normalized().toRotationMatrix();
      }
    } else {
      const JointInfo& jinfo = joints_[info.parent_joint];
      urdf::JointConstSharedPtr ujoint = model.getJoint(jinfo.name);
      if (!ujoint) {
        Fail(jinfo.line, "joint " + Quoted(jinfo.name),
             "internal error: urdfdom lost the joint");
      }
      joint.name = jinfo.name;
      joint.parent = tree_index[jinfo.parent_link];
      joint.origin = ToIsometry(ujoint->parent_to_joint_origin_transform);
      switch (ujoint->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
          joint.type = JointType::kRevolute;
          break;
        case urdf::Joint::PRISMATIC:
          joint.type = JointType::kPrismatic;
          break;
        case urdf::Joint::FLOATING:
          joint.type = JointType::kFloating;
          break;
        case urdf::Joint::FIXED:
          joint.type = JointType::kFixed;
          break;
        default:  // rejected by the scan
          Fail(jinfo.line, "joint " + Quoted(jinfo.name),
               "unsupported joint type " + Quoted(jinfo.type));
      }
      if (joint.type == JointType::kRevolute ||
          joint.type == JointType::kPrismatic) {
        joint.axis =
            Eigen::Vector3d(ujoint->axis.x, ujoint->axis.y, ujoint->axis.z)
                .normalized();
        if (ujoint->limits) {
          if (ujoint->type != urdf::Joint::CONTINUOUS) {
            joint.lower = ujoint->limits->lower;
            joint.upper = ujoint->limits->upper;
          }
          joint.effort_limit = LimitOrInf(ujoint->limits->effort);
          joint.velocity_limit = LimitOrInf(ujoint->limits->velocity);
        }
      }
      if (ujoint->dynamics && joint.type != JointType::kFixed) {
        joint.damping = ujoint->dynamics->damping;
      }
    }
    try {
      tree_index[link_index] = robot.tree.AddLink(link, joint);
    } catch (const std::invalid_argument& e) {
      Fail(info.line, who, e.what());
    }

    int kept = 0;
    for (const CollisionInfo& c : info.collisions) {
      if (!c.keep) {
        ++robot.collision_counts.dropped;
        continue;
      }
      ++robot.collision_counts.loaded;
      if (c.approximated) ++robot.collision_counts.approximated;
      if (kept >= static_cast<int>(ulink->collision_array.size())) {
        Fail(info.line, who, "internal error: urdfdom lost a collision");
      }
      const urdf::Collision& uc = *ulink->collision_array[kept++];
      RobotGeometry g;
      g.name = info.name + "/" + c.label;
      g.link = tree_index[link_index];
      g.shape = c.shape;  // validated in the scan; urdfdom agrees (or has a
                          // placeholder sphere for a capsule)
      g.pose_in_link = ToPose(uc.origin);
      robot.geometries.push_back(std::move(g));
    }
    for (const VisualGeometry& v : info.visuals) {
      robot.visuals.push_back(v);
      robot.visuals.back().link = tree_index[link_index];
    }
  }
  robot.visual_counts.loaded = static_cast<int>(robot.visuals.size());
  robot.visual_counts.dropped = visuals_dropped_;
  for (const int link_index : order_) {
    const int j = links_[link_index].parent_joint;
    if (j < 0 || joints_[j].mimic_leader.empty()) continue;
    urdf::JointConstSharedPtr ujoint = model.getJoint(joints_[j].name);
    JointCoupling coupling;
    coupling.follower = robot.tree.FindJoint(joints_[j].name);
    coupling.leader = robot.tree.FindJoint(joints_[j].mimic_leader);
    coupling.multiplier = ujoint->mimic->multiplier;
    coupling.offset = ujoint->mimic->offset;
    robot.couplings.push_back(coupling);
  }
  robot.initial_positions = robot.tree.ZeroPositions();
  if (options_.floating_base) {
    const Eigen::Quaterniond q = options_.base_pose.orientation.normalized();
    robot.initial_positions.head<7>() << options_.base_pose.position, q.w(),
        q.x(), q.y(), q.z();
  }
  if (robot.collision_counts.loaded == 0) {
    Warn(0, "robot '" + name +
                "' has no collision geometry: none of its links can touch "
                "anything");
  }
  robot.warnings = warnings_;
  return robot;
}

RobotDescription UrdfReader::Read(const std::string& xml) {
  if (!options_.base_pose.position.allFinite() ||
      !options_.base_pose.orientation.coeffs().allFinite() ||
      options_.base_pose.orientation.norm() == 0.0) {
    Fail(0, "", "UrdfOptions::base_pose is not a finite pose");
  }
  TiXmlDocument doc;
  doc.Parse(xml.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc.Error()) {
    Fail(doc.ErrorRow(), "",
         std::string("XML syntax error: ") + doc.ErrorDesc());
  }
  TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr || robot->ValueStr() != "robot") {
    const int row = robot != nullptr ? robot->Row() : 0;
    const std::string root = robot != nullptr ? robot->ValueStr() : "";
    // The two robot formats a URDF is most often confused with.
    if (root == "mujoco") {
      Fail(row, "",
           "the root element is <mujoco>: MJCF is not supported: sapsim reads "
           "URDF robots (docs/robots.md)");
    }
    if (root == "sdf") {
      Fail(row, "",
           "the root element is <sdf>: SDFormat is not supported: sapsim "
           "reads URDF robots (docs/robots.md)");
    }
    Fail(row, "",
         root.empty() ? std::string("the root element is not <robot>")
                      : "the root element is <" + root + ">, not <robot>");
  }
  const char* name = robot->Attribute("name");
  if (name == nullptr) {
    Fail(robot->Row(), "", "<robot>: the attribute 'name' is missing");
  }
  for (TiXmlElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    if (e->ValueStr() == "link") {
      ScanLink(e);
    } else if (e->ValueStr() == "joint") {
      ScanJoint(e);
    } else if (e->ValueStr() == "material") {
      if (options_.load_visuals) visual_reader_.AddMaterial(e);
      removals_.emplace_back(robot, e);
    }
  }
  if (options_.load_visuals) {
    for (LinkInfo& link : links_) {
      link.visuals = visual_reader_.ReadVisuals(link.element, link.name,
                                                &visuals_dropped_);
    }
  }
  ResolveTree(robot);

  // The document as urdfdom should see it.
  for (auto& [geometry, shape] : capsules_) {
    TiXmlElement placeholder("sphere");
    placeholder.SetAttribute("radius", "1");
    geometry->ReplaceChild(shape, placeholder);
  }
  for (auto& [parent, child] : removals_) parent->RemoveChild(child);
  TiXmlPrinter printer;
  doc.Accept(&printer);

  urdf::ModelInterfaceSharedPtr model;
  CapturedLog log;
  {
    std::lock_guard<std::mutex> lock(ConsoleBridgeMutex());
    console_bridge::OutputHandler* previous =
        console_bridge::getOutputHandler();
    console_bridge::useOutputHandler(&log);
    try {
      model = urdf::parseURDF(printer.Str());
    } catch (const std::exception& e) {
      log.errors.push_back(e.what());
      model.reset();
    }
    console_bridge::useOutputHandler(previous);
  }
  if (!model) {
    // urdfdom gives no line numbers; its messages name links and joints in
    // [brackets] or 'quotes', which locates the element.
    std::string what = "urdfdom could not parse the robot";
    int line = 0;
    for (size_t i = 0; i < log.errors.size(); ++i) {
      const std::string& message = log.errors[i];
      what += (i == 0 ? ": " : "; ") + message;
      for (const char* quotes : {"[]", "''"}) {
        for (size_t b = message.find(quotes[0]);
             line == 0 && b != std::string::npos;
             b = message.find(quotes[0], b + 1)) {
          const size_t end = message.find(quotes[1], b + 1);
          if (end == std::string::npos) break;
          const std::string word = message.substr(b + 1, end - b - 1);
          if (auto it = joint_index_.find(word); it != joint_index_.end()) {
            line = joints_[it->second].line;
          } else if (auto jt = link_index_.find(word);
                     jt != link_index_.end()) {
            line = links_[jt->second].line;
          }
          b = end;
        }
      }
    }
    Fail(line, "", what);
  }
  return Build(*model, name);
}

}  // namespace

RobotDescription ParseUrdf(const std::string& xml, const std::string& source,
                           const UrdfOptions& options) {
  return UrdfReader(source, options).Read(xml);
}

RobotDescription LoadUrdf(const std::string& path, const UrdfOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UrdfError(path + ": cannot read the URDF file: it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UrdfError(path + ": cannot open the URDF file (" +
                    std::strerror(errno) + ")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw UrdfError(path + ": cannot read the URDF file");
  }
  return ParseUrdf(text.str(), path, options);
}

}  // namespace sapcontact
