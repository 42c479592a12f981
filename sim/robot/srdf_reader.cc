#include "sapcontact/sim/robot/srdf_reader.h"

#include <tinyxml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sapcontact/sim/robot/urdf_loader.h"

namespace sapcontact {
namespace {

[[noreturn]] void Fail(const std::string& source, int line,
                       const std::string& what) {
  throw UrdfError(source + (line > 0 ? ":" + std::to_string(line) : "") + ": " +
                  what);
}

}  // namespace

std::vector<SrdfDisabledPair> ParseSrdfDisabledCollisions(
    const std::string& xml, const std::string& source) {
  TiXmlDocument doc;
  doc.Parse(xml.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc.Error()) {
    Fail(source, doc.ErrorRow(),
         std::string("XML syntax error: ") + doc.ErrorDesc());
  }
  const TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr || robot->ValueStr() != "robot") {
    Fail(source, robot != nullptr ? robot->Row() : 0,
         robot == nullptr ? std::string("the SRDF has no root element")
                          : "the root element is <" + robot->ValueStr() +
                                ">, not <robot> (an SRDF file?)");
  }
  std::vector<SrdfDisabledPair> pairs;
  for (const TiXmlElement* e = robot->FirstChildElement("disable_collisions");
       e != nullptr; e = e->NextSiblingElement("disable_collisions")) {
    SrdfDisabledPair p;
    p.line = e->Row();
    for (const char* attr : {"link1", "link2"}) {
      const char* value = e->Attribute(attr);
      if (value == nullptr || *value == '\0') {
        Fail(source, p.line,
             std::string("<disable_collisions>: the attribute '") + attr +
                 "' is missing");
      }
      (attr[4] == '1' ? p.link1 : p.link2) = value;
    }
    pairs.push_back(p);
  }
  return pairs;
}

std::vector<SrdfDisabledPair> LoadSrdfDisabledCollisions(
    const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UrdfError(path + ": cannot read the SRDF file: it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UrdfError(path + ": cannot open the SRDF file (" +
                    std::strerror(errno) + ")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UrdfError(path + ": cannot read the SRDF file");
  return ParseSrdfDisabledCollisions(text.str(), path);
}

}  // namespace sapcontact
