#include "sapcontact/sim/robot/urdf_loader.h"

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "sapcontact/sim/robot/urdf_reader.h"

namespace sapcontact {
namespace urdf_loader_internal {
namespace {

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

}  // namespace

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

}  // namespace urdf_loader_internal

RobotDescription ParseUrdf(const std::string& xml, const std::string& source,
                           const UrdfOptions& options) {
  return urdf_loader_internal::UrdfReader(source, options).Read(xml);
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
