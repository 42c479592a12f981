#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "sapcontact/sim/robot/package_search.h"
#include "sapcontact/sim/robot/urdf_reader.h"

namespace sapcontact {
namespace urdf_loader_internal {

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
  if (options_.use_ros_package_path) {
    const std::string folder = FindPackageFolder(name, {"ROS_PACKAGE_PATH"});
    if (!folder.empty()) {
      return (fs::path(folder) / file).lexically_normal().string();
    }
    for (const std::string& f : EnvFolders("ROS_PACKAGE_PATH")) {
      searched += (searched.empty() ? "" : ", ") + f;
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

}  // namespace urdf_loader_internal
}  // namespace sapcontact
