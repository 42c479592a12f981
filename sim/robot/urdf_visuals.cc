// URDF <material> and <visual> elements (urdf_visuals.h).
#include "sapcontact/sim/robot/urdf_visuals.h"

#include <tinyxml.h>

#include <Eigen/Geometry>
#include <cmath>
#include <locale>
#include <sstream>

#include "sapcontact/geometry/mesh_file.h"
#include "sapcontact/sim/robot/urdf_loader.h"

namespace sapcontact {
namespace {

std::string SingleQuoted(const std::string& s) { return "'" + s + "'"; }

// A number as urdfdom reads it: classic locale, the whole word, finite.
bool ParseWord(const std::string& word, double* value) {
  std::istringstream in(word);
  in.imbue(std::locale::classic());
  in >> *value;
  if (in.fail()) return false;
  in >> std::ws;
  return in.eof() && std::isfinite(*value);
}

std::string Tag(const TiXmlElement* e, const char* attr) {
  std::string tag = "<" + e->ValueStr();
  if (attr != nullptr) {
    const char* v = e->Attribute(attr);
    tag += std::string(" ") + attr + "=\"" + (v ? v : "") + "\"";
  }
  return tag + ">";
}

}  // namespace

UrdfVisualReader::UrdfVisualReader(std::string source, MeshLimits limits,
                                   ResolveUri resolve,
                                   std::vector<std::string>* warnings)
    : source_(std::move(source)),
      resolve_(std::move(resolve)),
      warnings_(warnings),
      meshes_(limits) {}

void UrdfVisualReader::Fail(int line, const std::string& who,
                            const std::string& what) const {
  std::ostringstream msg;
  msg << source_;
  if (line > 0) msg << ":" << line;
  msg << ": ";
  if (!who.empty()) msg << who << ": ";
  msg << what;
  throw UrdfError(msg.str());
}

void UrdfVisualReader::Warn(int line, const std::string& what) {
  warnings_->push_back(source_ + (line > 0 ? ":" + std::to_string(line) : "") +
                       ": " + what);
}

std::vector<double> UrdfVisualReader::Numbers(
    const TiXmlElement* e, const char* attr, int count, const std::string& who,
    const std::vector<double>* fallback) const {
  const char* text = e->Attribute(attr);
  if (text == nullptr) {
    if (fallback == nullptr) {
      Fail(e->Row(), who,
           Tag(e, nullptr) + ": the attribute '" + attr + "' is missing");
    }
    return *fallback;
  }
  std::istringstream words(text);
  std::string word;
  std::vector<double> values;
  while (words >> word) {
    double value = 0.0;
    if (!ParseWord(word, &value)) {
      Fail(e->Row(), who,
           Tag(e, attr) + ": '" + word + "' is not a finite number");
    }
    values.push_back(value);
  }
  if (static_cast<int>(values.size()) != count) {
    Fail(e->Row(), who,
         Tag(e, attr) + ": expected " + std::to_string(count) +
             (count == 1 ? " number" : " numbers"));
  }
  return values;
}

UrdfVisualReader::Colour UrdfVisualReader::ReadColour(
    const TiXmlElement* material, const std::string& who) {
  Colour colour;
  const TiXmlElement* c = material->FirstChildElement("color");
  if (c == nullptr) return colour;
  const std::vector<double> rgba = Numbers(c, "rgba", 4, who, nullptr);
  for (double x : rgba) {
    if (x < 0.0 || x > 1.0) {
      Fail(c->Row(), who, Tag(c, "rgba") + ": components must lie in [0, 1]");
    }
  }
  colour.rgba << rgba[0], rgba[1], rgba[2], rgba[3];
  colour.set = true;
  return colour;
}

void UrdfVisualReader::AddMaterial(const TiXmlElement* material) {
  const char* name = material->Attribute("name");
  if (name == nullptr || *name == '\0') {
    Fail(material->Row(), "",
         "<material>: a material outside a link needs a name");
  }
  materials_[name] = ReadColour(material, "material " + SingleQuoted(name));
}

std::shared_ptr<const TriangleMesh> UrdfVisualReader::ReadMesh(
    const TiXmlElement* s, const std::string& who, std::string* file) {
  const char* filename = s->Attribute("filename");
  if (filename == nullptr || *filename == '\0') {
    Fail(s->Row(), who, "<mesh>: the attribute 'filename' is missing");
  }
  *file = filename;
  const std::vector<double> one{1.0, 1.0, 1.0};
  const std::vector<double> k = Numbers(s, "scale", 3, who, &one);
  const Vector3 scale(k[0], k[1], k[2]);
  if ((scale.array() == 0.0).any()) {
    Fail(s->Row(), who, Tag(s, "scale") + ": a scale must not be zero");
  }
  std::string path;
  try {
    path = resolve_(s, filename, who);
  } catch (const UrdfError& e) {  // a package not found: not drawn
    warnings_->push_back(std::string(e.what()) + " (the visual is not drawn)");
    return nullptr;
  }
  try {
    return meshes_.Get(path, scale);
  } catch (const std::invalid_argument& e) {  // MeshError
    Warn(s->Row(), who + ": " + Tag(s, "filename") + ": " + e.what() +
                       " (the visual is not drawn)");
    return nullptr;
  }
}

bool UrdfVisualReader::ReadVisual(const TiXmlElement* v, const std::string& who,
                                  VisualGeometry* visual) {
  if (const TiXmlElement* origin = v->FirstChildElement("origin")) {
    const std::vector<double> zero{0.0, 0.0, 0.0};
    const std::vector<double> xyz = Numbers(origin, "xyz", 3, who, &zero);
    const std::vector<double> rpy = Numbers(origin, "rpy", 3, who, &zero);
    visual->pose_in_link.position << xyz[0], xyz[1], xyz[2];
    // Fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
    visual->pose_in_link.orientation =
        Eigen::AngleAxisd(rpy[2], Eigen::Vector3d::UnitZ()) *
        Eigen::AngleAxisd(rpy[1], Eigen::Vector3d::UnitY()) *
        Eigen::AngleAxisd(rpy[0], Eigen::Vector3d::UnitX());
  }
  if (const TiXmlElement* material = v->FirstChildElement("material")) {
    const char* name = material->Attribute("name");
    const std::string material_name = name != nullptr ? name : "";
    Colour colour = ReadColour(material, who);
    const bool defines =
        colour.set || material->FirstChildElement("texture") != nullptr;
    if (!defines && !material_name.empty()) {
      const auto it = materials_.find(material_name);
      if (it == materials_.end()) {
        Warn(material->Row(),
             who + ": material " + SingleQuoted(material_name) +
                 " is not defined (no <material name=" + "\"" + material_name +
                 "\"> with a <color>): drawn in the page's "
                 "colour");
      } else {
        colour = it->second;
      }
    } else if (defines && !material_name.empty() &&
               materials_.count(material_name) == 0) {
      materials_[material_name] = colour;  // known to later references
    }
    visual->material = material_name;
    visual->rgba = colour.rgba;
    visual->coloured = colour.set;
  }
  const TiXmlElement* geometry = v->FirstChildElement("geometry");
  if (geometry == nullptr) Fail(v->Row(), who, "<visual> without <geometry>");
  const TiXmlElement* s = geometry->FirstChildElement();
  if (s == nullptr) Fail(geometry->Row(), who, "<geometry> without a shape");
  const std::string type = s->ValueStr();
  auto positive = [&](const char* attr) {
    const double x = Numbers(s, attr, 1, who, nullptr)[0];
    if (x <= 0.0) Fail(s->Row(), who, Tag(s, attr) + ": must be positive");
    return x;
  };
  if (type == "box") {
    const std::vector<double> size = Numbers(s, "size", 3, who, nullptr);
    for (double x : size) {
      if (x <= 0.0) {
        Fail(s->Row(), who, Tag(s, "size") + ": sizes must be positive");
      }
    }
    visual->type = ShapeType::kBox;
    visual->size << size[0], size[1], size[2];
  } else if (type == "sphere") {
    visual->type = ShapeType::kSphere;
    visual->radius = positive("radius");
  } else if (type == "cylinder") {
    visual->type = ShapeType::kCylinder;
    visual->radius = positive("radius");
    visual->length = positive("length");
  } else if (type == "capsule") {  // the project's extension
    visual->type = ShapeType::kCapsule;
    visual->radius = positive("radius");
    visual->length = Numbers(s, "length", 1, who, nullptr)[0];
    if (visual->length < 0.0) {
      Fail(s->Row(), who, Tag(s, "length") + ": must not be negative");
    }
  } else if (type == "mesh") {
    visual->type = ShapeType::kMesh;
    visual->mesh = ReadMesh(s, who, &visual->file);
    if (visual->mesh == nullptr) return false;
  } else {
    Warn(s->Row(), "<" + type + "> in " + who +
                       " not drawn (unknown geometry; box, sphere, cylinder, "
                       "capsule and mesh are)");
    return false;
  }
  return true;
}

std::vector<VisualGeometry> UrdfVisualReader::ReadVisuals(
    const TiXmlElement* link_element, const std::string& link_name,
    int* dropped) {
  std::vector<VisualGeometry> visuals;
  int index = 0;
  for (const TiXmlElement* v = link_element->FirstChildElement("visual");
       v != nullptr; v = v->NextSiblingElement("visual"), ++index) {
    const char* name = v->Attribute("name");
    const bool named = name != nullptr && *name != '\0';
    const std::string label = named ? std::string(name) : std::to_string(index);
    const std::string who = "link " + SingleQuoted(link_name) + ": visual " +
                            (named ? SingleQuoted(name) : label);
    VisualGeometry visual;
    visual.name = link_name + "/" + label;
    if (ReadVisual(v, who, &visual)) {
      visuals.push_back(std::move(visual));
    } else {
      ++*dropped;
    }
  }
  return visuals;
}

}  // namespace sapcontact
