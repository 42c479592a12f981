#include "sapcontact/sim/robot/sdf_loader.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "sapcontact/sim/robot/package_search.h"
#include "sapcontact/sim/robot/sdf_reader.h"

namespace sapcontact {
namespace sdf_loader_internal {

namespace fs = std::filesystem;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;

// libsdformat keeps process-wide state (its console, the parser's
// description cache): one parse at a time.
std::mutex& SdformatMutex() {
  static std::mutex m;
  return m;
}

// The colon-separated folders of an environment variable.
// Elements we do not simulate, counted by tag over the whole tree.
void CountIgnored(const sdf::ElementPtr& e, std::map<std::string, int>* n) {
  for (sdf::ElementPtr c = e->GetFirstElement(); c != nullptr;
       c = c->GetNextElement()) {
    const std::string tag = c->GetName();
    if (tag == "light" || tag == "sensor" || tag == "plugin" ||
        tag == "actor") {
      ++(*n)[tag];
    } else {
      CountIgnored(c, n);
    }
  }
}

std::string SdfReader::Where(const sdf::ElementPtr& e) const {
  if (e == nullptr) return source_;
  std::string file = e->FilePath();
  if (file.empty() || file == "data-string" || file == "<data-string>") {
    file = source_;
  }
  std::string out = file;
  if (e->LineNumber()) out += ":" + std::to_string(*e->LineNumber());
  out += ": <" + e->GetName();
  if (e->HasAttribute("name")) {
    out += " name='" + e->GetAttribute("name")->GetAsString() + "'";
  }
  return out + ">";
}

void SdfReader::Fail(const sdf::ElementPtr& e,
                     const std::string& message) const {
  throw SdfError(Where(e) + ": " + message);
}

std::string SdfReader::FolderOf(const sdf::ElementPtr& e) const {
  std::string file = e ? e->FilePath() : "";
  std::error_code ec;
  if (file.empty() || !fs::is_regular_file(file, ec)) file = source_;
  return fs::absolute(fs::path(file)).parent_path().string();
}

std::string SdfReader::FindPackage(const std::string& name, bool ros) const {
  if (auto it = options_.package_paths.find(name);
      it != options_.package_paths.end()) {
    return it->second;
  }
  if (!options_.use_environment) return "";
  std::vector<const char*> vars = {"SDF_PATH", "GZ_SIM_RESOURCE_PATH",
                                   "IGN_GAZEBO_RESOURCE_PATH",
                                   "GAZEBO_MODEL_PATH"};
  if (ros) vars.push_back("ROS_PACKAGE_PATH");
  return FindPackageFolder(name, vars);
}

std::string SdfReader::SearchedFolders(bool ros) const {
  std::string out;
  std::vector<const char*> vars = {"SDF_PATH", "GZ_SIM_RESOURCE_PATH",
                                   "IGN_GAZEBO_RESOURCE_PATH",
                                   "GAZEBO_MODEL_PATH"};
  if (ros) vars.push_back("ROS_PACKAGE_PATH");
  for (const char* var : vars) {
    if (std::getenv(var) != nullptr) {
      out +=
          std::string(out.empty() ? "" : ", ") + var + "=" + std::getenv(var);
    }
  }
  return out.empty() ? "none of SDF_PATH, GZ_SIM_RESOURCE_PATH, "
                       "IGN_GAZEBO_RESOURCE_PATH, GAZEBO_MODEL_PATH is set"
                     : "searched " + out;
}

std::string SdfReader::ResolveUri(const std::string& uri,
                                  const sdf::ElementPtr& e) const {
  const std::string kFile = "file://";
  for (const std::string scheme : {"model://", "package://"}) {
    if (uri.compare(0, scheme.size(), scheme) != 0) continue;
    const std::string rest = uri.substr(scheme.size());
    const size_t slash = rest.find('/');
    if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size()) {
      Fail(e, "'" + uri + "' is not " + scheme + "NAME/PATH");
    }
    const std::string name = rest.substr(0, slash);
    const std::string folder = FindPackage(name, scheme == "package://");
    if (folder.empty()) {
      Fail(e, "'" + uri + "': no folder '" + name +
                  "' found (give the robot package_paths: {" + name +
                  ": FOLDER}, or add the folder holding '" + name +
                  "' to SDF_PATH; " + SearchedFolders(true) + ")");
    }
    return (fs::path(folder) / rest.substr(slash + 1))
        .lexically_normal()
        .string();
  }
  if (uri.compare(0, kFile.size(), kFile) == 0) {
    return uri.substr(kFile.size());
  }
  if (uri.find("://") != std::string::npos) {
    Fail(e, "'" + uri +
                "': unknown URI scheme (model://, package://, "
                "file:// or a path)");
  }
  const fs::path p(uri);
  if (p.is_absolute()) return uri;
  return (fs::path(FolderOf(e)) / p).lexically_normal().string();
}

WorldDescription SdfReader::Read(const sdf::Root& root) {
  const sdf::World* world =
      root.WorldCount() > 0 ? root.WorldByIndex(0) : nullptr;
  world_.name = fs::path(source_).stem().string();
  if (world != nullptr) {
    if (root.WorldCount() > 1) {
      world_.warnings.push_back(Where(root.WorldByIndex(1)->Element()) +
                                ": only the file's first <world> is loaded");
    }
    world_.name = world->Name();
    world_.gravity = ToVector(world->Gravity());
    if (const sdf::Physics* p = world->PhysicsDefault()) {
      world_.time_step = p->MaxStepSize();
      if (!(world_.time_step > 0.0) || !std::isfinite(world_.time_step)) {
        Fail(p->Element(), "max_step_size must be finite and > 0");
      }
    }
    if (!world_.gravity.allFinite()) {
      Fail(world->Element(), "gravity is not finite");
    }
    for (uint64_t m = 0; m < world->ModelCount(); ++m) {
      const sdf::Model& model = *world->ModelByIndex(m);
      ignition::math::Pose3d X;
      const sdf::Errors errors = model.SemanticPose().Resolve(X, "world");
      if (!errors.empty()) Fail(model.Element(), errors[0].Message());
      ReadModel(model, ToIsometry(X));
    }
  } else if (const sdf::Model* model = root.Model()) {
    world_.name = model->Name();
    ReadModel(*model, ToIsometry(model->RawPose()));
  } else {
    throw SdfError(source_ + ": the file has neither a <world> nor a <model>");
  }
  std::map<std::string, int> ignored;
  CountIgnored(world != nullptr ? world->Element() : root.Model()->Element(),
               &ignored);
  if (!ignored.empty()) {
    std::string list;
    for (const auto& [tag, n] : ignored) {
      list += (list.empty() ? "" : ", ") + std::to_string(n) + " <" + tag + ">";
    }
    world_.warnings.push_back(source_ + ": " + list +
                              " ignored (not simulated)");
  }
  return std::move(world_);
}

WorldDescription Load(const std::string& xml, const std::string& source,
                      const SdfOptions& options, bool from_file) {
  SdfReader reader(source, options);
  sdf::ParserConfig config;
  config.SetFindCallback([&reader](const std::string& uri) -> std::string {
    const std::string kModel = "model://";
    if (uri.compare(0, kModel.size(), kModel) != 0) return "";
    const std::string rest = uri.substr(kModel.size());
    const size_t slash = rest.find('/');
    const std::string name = rest.substr(0, slash);
    const std::string folder = reader.FindPackage(name, false);
    if (folder.empty()) return "";
    return slash == std::string::npos
               ? folder
               : (fs::path(folder) / rest.substr(slash + 1)).string();
  });
  config.SetWarningsPolicy(sdf::EnforcementPolicy::LOG);
  sdf::Root root;
  std::lock_guard<std::mutex> lock(SdformatMutex());
  sdf::Console::Instance()->SetQuiet(true);
  const sdf::Errors errors =
      from_file ? root.Load(source, config) : root.LoadSdfString(xml, config);
  if (!errors.empty()) {
    const sdf::Error& e = errors[0];
    std::string file = e.FilePath().value_or(source);
    if (file.empty() || file == "data-string" || file == "<data-string>") {
      file = source;
    }
    std::string where = file;
    if (e.LineNumber()) where += ":" + std::to_string(*e.LineNumber());
    std::string message = e.Message();
    if (e.Code() == sdf::ErrorCode::URI_LOOKUP) {
      message +=
          " (add the folder that holds the model's folder to "
          "SDF_PATH, or in a scene give the robot package_paths: "
          "{NAME: FOLDER}; sapcontact's config/sdf_models has 'sun' "
          "and 'ground_plane'; " +
          reader.SearchedFolders(false) + ")";
    }
    if (e.XmlPath()) message = *e.XmlPath() + ": " + message;
    if (errors.size() > 1) {
      message += " (and " + std::to_string(errors.size() - 1) + " more error" +
                 (errors.size() > 2 ? "s" : "") + ")";
    }
    throw SdfError(where + ": " + message);
  }
  return reader.Read(root);
}

}  // namespace sdf_loader_internal

WorldDescription LoadSdf(const std::string& path, const SdfOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw SdfError(path + ": cannot open the SDFormat file");
  }
  return sdf_loader_internal::Load("", path, options, true);
}

WorldDescription ParseSdf(const std::string& xml, const std::string& source,
                          const SdfOptions& options) {
  return sdf_loader_internal::Load(xml, source, options, false);
}

}  // namespace sapcontact
