#include "sapcontact/sim/robot/mjcf_document.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxIncludeDepth = 16;
// An included file larger than this is refused (the scene file limit).
constexpr std::uintmax_t kMaxIncludeBytes = 64u << 20;

// The text of an included file, or why it cannot be read: only a regular
// file of at most kMaxIncludeBytes (a FIFO or /dev/zero would be read
// forever).
bool ReadIncludedFile(const std::string& path, std::string* text,
                      std::string* why) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    *why = fs::exists(path, ec) ? "not a regular file" : "no such file";
    return false;
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxIncludeBytes) {
    *why = ec ? ec.message() : "larger than 64 MiB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = "cannot open it";
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// Whitespace-separated numbers; false on anything else.
bool ParseNumbers(const char* text, std::vector<double>* out) {
  out->clear();
  const char* p = text;
  while (true) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    if (*p == '\0') return true;
    char* end = nullptr;
    const double x = std::strtod(p, &end);
    if (end == p || !std::isfinite(x)) return false;
    if (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' &&
        *end != '\r') {
      return false;
    }
    out->push_back(x);
    p = end;
  }
}

}  // namespace

MjcfDocument::MjcfDocument(const std::string& xml, const std::string& source) {
  const fs::path src(source);
  folder_ = src.has_parent_path() ? fs::absolute(src.parent_path()).string()
                                  : fs::current_path().string();
  file_of_[&doc_] = source;
  doc_.Parse(xml.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc_.Error()) {
    throw std::invalid_argument(source + ":" + std::to_string(doc_.ErrorRow()) +
                                ": malformed XML: " + doc_.ErrorDesc());
  }
  root_ = doc_.RootElement();
  if (root_ == nullptr || Tag(root_) != "mujoco") {
    throw std::invalid_argument(
        source + ":" + std::to_string(root_ ? root_->Row() : 1) +
        ": the root element is <" + (root_ ? Tag(root_) : std::string()) +
        ">, not <mujoco>: not an MJCF file");
  }
  const char* model = root_->Attribute("model");
  model_name_ = model != nullptr && *model != '\0' ? std::string(model)
                                                   : src.stem().string();
  ReadCompiler();
  classes_["main"] = DefaultClass{};
  for (const Element* d : Children(root_, "default")) {
    // The top-level <default> is class "main" (its class attribute, if
    // any, must say so).
    const char* name = d->Attribute("class");
    if (name != nullptr && std::string(name) != "main") {
      Fail(d, "a top-level <default> is class 'main', not '" +
                  std::string(name) + "'");
    }
    ReadDefaults(d, "");
  }
}

const TiXmlDocument* MjcfDocument::Load(const std::string& path,
                                        const Element* at) const {
  auto it = included_.find(path);
  if (it != included_.end()) return it->second.get();
  std::string text, why;
  if (!ReadIncludedFile(path, &text, &why)) {
    Fail(at, "cannot read the included file '" + path + "': " + why);
  }
  auto doc = std::make_unique<TiXmlDocument>();
  doc->Parse(text.c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc->Error()) {
    throw std::invalid_argument(path + ":" + std::to_string(doc->ErrorRow()) +
                                ": malformed XML: " + doc->ErrorDesc() +
                                " (included from " + Where(at) + ")");
  }
  if (doc->RootElement() == nullptr) {
    Fail(at, "the included file '" + path + "' has no root element");
  }
  file_of_[doc.get()] = path;
  return (included_[path] = std::move(doc)).get();
}

void MjcfDocument::ExpandInto(const Element* e, const char* tag,
                              std::vector<const Element*>* out,
                              int depth) const {
  for (const Element* c = e->FirstChildElement(); c != nullptr;
       c = c->NextSiblingElement()) {
    if (Tag(c) == "include") {
      if (depth >= kMaxIncludeDepth) {
        Fail(c, "<include> nested more than " +
                    std::to_string(kMaxIncludeDepth) + " deep (a cycle?)");
      }
      const char* file = c->Attribute("file");
      if (file == nullptr) Fail(c, "<include> needs a file attribute");
      const TiXmlDocument* doc = Load(Resolve(file, folder_), c);
      ExpandInto(doc->RootElement(), tag, out, depth + 1);
    } else if (tag == nullptr || Tag(c) == tag) {
      out->push_back(c);
    }
  }
}

std::vector<const MjcfDocument::Element*> MjcfDocument::Children(
    const Element* e, const char* tag) const {
  std::vector<const Element*> out;
  ExpandInto(e, tag, &out, 0);
  return out;
}

std::string MjcfDocument::Where(const Element* e) const {
  auto it = file_of_.find(e->GetDocument());
  std::string s = (it != file_of_.end() ? it->second : std::string("?")) + ":" +
                  std::to_string(e->Row()) + ": <" + Tag(e);
  const char* name = e->Attribute("name");
  if (name != nullptr) s += " name='" + std::string(name) + "'";
  return s + ">";
}

void MjcfDocument::Fail(const Element* e, const std::string& message) const {
  throw std::invalid_argument(Where(e) + ": " + message);
}

void MjcfDocument::ReadDefaults(const Element* d, const std::string& parent) {
  const std::string name = parent.empty() ? "main" : d->Attribute("class");
  DefaultClass& cls = classes_[name];
  cls.parent = parent;
  for (const Element* c : Children(d)) {
    const std::string tag = Tag(c);
    if (tag == "default") {
      const char* child = c->Attribute("class");
      if (child == nullptr) Fail(c, "a nested <default> needs a class");
      if (classes_.count(child)) {
        Fail(c, "default class '" + std::string(child) + "' defined twice");
      }
      ReadDefaults(c, name);
    } else {
      cls.elements[tag] = c;
    }
  }
}

void MjcfDocument::ReadCompiler() {
  compiler_.mesh_dir = folder_;
  for (const Element* c : Children(root_, "compiler")) {
    if (const char* a = c->Attribute("angle")) {
      const std::string s = a;
      if (s != "degree" && s != "radian") {
        Fail(c, "angle must be 'degree' or 'radian', not '" + s + "'");
      }
      compiler_.degrees = s == "degree";
    }
    if (const char* a = c->Attribute("eulerseq")) {
      const std::string s = a;
      if (s.size() != 3 || s.find_first_not_of("xyzXYZ") != std::string::npos) {
        Fail(c, "eulerseq must be three of x, y, z, X, Y, Z, not '" + s + "'");
      }
      compiler_.eulerseq = s;
    }
    if (const char* a = c->Attribute("coordinate")) {
      const std::string s = a;
      if (s != "local" && s != "global") {
        Fail(c, "coordinate must be 'local' or 'global', not '" + s + "'");
      }
      compiler_.global = s == "global";
    }
    if (const char* a = c->Attribute("inertiafromgeom")) {
      const std::string s = a;
      using I = MjcfCompiler::InertiaFromGeom;
      if (s == "true") {
        compiler_.inertia_from_geom = I::kTrue;
      } else if (s == "false") {
        compiler_.inertia_from_geom = I::kFalse;
      } else if (s == "auto") {
        compiler_.inertia_from_geom = I::kAuto;
      } else {
        Fail(c, "inertiafromgeom must be true, false or auto, not '" + s + "'");
      }
    }
    const char* asset_dir = c->Attribute("assetdir");
    const char* mesh_dir = c->Attribute("meshdir");
    if (mesh_dir != nullptr) {
      compiler_.mesh_dir = Resolve(mesh_dir, folder_);
    } else if (asset_dir != nullptr) {
      compiler_.mesh_dir = Resolve(asset_dir, folder_);
    }
    compiler_.bound_mass = Number(c, "boundmass", "", compiler_.bound_mass);
    compiler_.bound_inertia =
        Number(c, "boundinertia", "", compiler_.bound_inertia);
    compiler_.total_mass = Number(c, "settotalmass", "", compiler_.total_mass);
  }
}

std::string MjcfDocument::ClassOf(const Element* e,
                                  const std::string& inherited) const {
  const char* c = e->Attribute("class");
  if (c != nullptr) {
    if (!classes_.count(c)) {
      Fail(e, "unknown default class '" + std::string(c) + "'");
    }
    return c;
  }
  return inherited.empty() ? "main" : inherited;
}

std::string MjcfDocument::ChildClassOf(const Element* body,
                                       const std::string& inherited) const {
  const char* c = body->Attribute("childclass");
  if (c == nullptr) return inherited;
  if (!classes_.count(c)) {
    Fail(body, "unknown default class '" + std::string(c) + "' (childclass)");
  }
  return c;
}

const char* MjcfDocument::Find(const Element* e, const char* name,
                               const std::string& cls, const char* tag) const {
  const Element* owner = Owner(e, name, cls, tag);
  return owner != nullptr ? owner->Attribute(name) : nullptr;
}

const MjcfDocument::Element* MjcfDocument::Owner(const Element* e,
                                                 const char* name,
                                                 const std::string& cls,
                                                 const char* tag) const {
  if (e->Attribute(name) != nullptr) return e;
  if (cls.empty()) return nullptr;
  const std::string t = tag != nullptr ? tag : Tag(e);
  for (std::string c = cls; !c.empty();) {
    auto it = classes_.find(c);
    if (it == classes_.end()) break;
    auto el = it->second.elements.find(t);
    if (el != it->second.elements.end()) {
      if (el->second->Attribute(name) != nullptr) return el->second;
    }
    c = it->second.parent;
  }
  return nullptr;
}

double MjcfDocument::Number(const Element* e, const char* name,
                            const std::string& cls, double fallback) const {
  const char* a = Find(e, name, cls);
  if (a == nullptr) return fallback;
  std::vector<double> x;
  if (!ParseNumbers(a, &x) || x.size() != 1) {
    Fail(e, std::string(name) + "=\"" + a + "\" is not a finite number");
  }
  return x[0];
}

Eigen::VectorXd MjcfDocument::Numbers(const Element* e, const char* name,
                                      const std::string& cls,
                                      const Eigen::VectorXd& fallback,
                                      int min_count) const {
  const char* a = Find(e, name, cls);
  if (a == nullptr) return fallback;
  std::vector<double> x;
  const int n = static_cast<int>(fallback.size());
  const int lo = min_count < 0 ? n : min_count;
  if (!ParseNumbers(a, &x) || static_cast<int>(x.size()) < lo ||
      static_cast<int>(x.size()) > n) {
    Fail(e, std::string(name) + "=\"" + a + "\" is not " +
                (lo == n ? std::to_string(n)
                         : std::to_string(lo) + " to " + std::to_string(n)) +
                " finite numbers");
  }
  Eigen::VectorXd v = fallback;
  for (size_t i = 0; i < x.size(); ++i) v[i] = x[i];
  return v;
}

std::string MjcfDocument::Text(const Element* e, const char* name,
                               const std::string& cls,
                               const std::string& fallback) const {
  const char* a = Find(e, name, cls);
  return a != nullptr ? std::string(a) : fallback;
}

int MjcfDocument::Bool(const Element* e, const char* name,
                       const std::string& cls, int fallback) const {
  const char* a = Find(e, name, cls);
  if (a == nullptr) return fallback;
  const std::string s = a;
  if (s == "true") return 1;
  if (s == "false") return 0;
  if (s == "auto") return -1;
  Fail(e, std::string(name) + "=\"" + s + "\" is not true, false or auto");
}

Eigen::Quaterniond MjcfDocument::Orientation(const Element* e) const {
  const char* kinds[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  const char* given = nullptr;
  for (const char* k : kinds) {
    if (e->Attribute(k) != nullptr) {
      if (given != nullptr) {
        Fail(e, std::string("both ") + given + " and " + k +
                    " give the orientation (at most one may)");
      }
      given = k;
    }
  }
  const double unit = compiler_.degrees ? M_PI / 180.0 : 1.0;
  using Eigen::Vector3d;
  if (given == nullptr) return Eigen::Quaterniond::Identity();
  const std::string k = given;  // frames take no defaults
  if (k == "quat") {
    const Eigen::VectorXd q = Numbers(e, "quat", "", Eigen::VectorXd::Zero(4));
    if (q.norm() < 1e-10) Fail(e, "quat is zero");
    return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
  }
  if (k == "axisangle") {
    const Eigen::VectorXd a =
        Numbers(e, "axisangle", "", Eigen::VectorXd::Zero(4));
    if (a.head<3>().norm() < 1e-10) Fail(e, "axisangle's axis is zero");
    return Eigen::Quaterniond(
        Eigen::AngleAxisd(a[3] * unit, a.head<3>().normalized()));
  }
  if (k == "euler") {
    const Eigen::VectorXd a = Numbers(e, "euler", "", Eigen::VectorXd::Zero(3));
    Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
    for (int i = 0; i < 3; ++i) {
      const char s = compiler_.eulerseq[i];
      const int axis = std::tolower(s) - 'x';
      const Eigen::Quaterniond r(
          Eigen::AngleAxisd(a[i] * unit, Vector3d::Unit(axis)));
      // Lower case: axes that move with the frame (post-multiply); upper
      // case: the parent's fixed axes (pre-multiply).
      q = std::islower(s) ? q * r : r * q;
    }
    return q.normalized();
  }
  if (k == "xyaxes") {
    const Eigen::VectorXd a =
        Numbers(e, "xyaxes", "", Eigen::VectorXd::Zero(6));
    Vector3d x = a.head<3>(), y = a.tail<3>();
    if (x.norm() < 1e-10) Fail(e, "xyaxes: the x axis is zero");
    x.normalize();
    y -= x * x.dot(y);
    if (y.norm() < 1e-10) Fail(e, "xyaxes: the y axis is parallel to x");
    y.normalize();
    Eigen::Matrix3d R;
    R << x, y, x.cross(y);
    return Eigen::Quaterniond(R).normalized();
  }
  const Eigen::VectorXd a = Numbers(e, "zaxis", "", Eigen::VectorXd::Zero(3));
  if (a.norm() < 1e-10) Fail(e, "zaxis is zero");
  return MjcfZAxisToQuaternion(a.head<3>());
}

Eigen::Quaterniond MjcfZAxisToQuaternion(const Eigen::Vector3d& axis) {
  const Eigen::Vector3d z = axis.normalized();
  Eigen::Vector3d n = Eigen::Vector3d::UnitZ().cross(z);
  const double s = n.norm();
  // Antiparallel: a half turn about x, as MuJoCo does.
  n = s < 1e-10 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d(n / s);
  return Eigen::Quaterniond(Eigen::AngleAxisd(std::atan2(s, z.z()), n));
}

std::string MjcfDocument::Resolve(const std::string& name,
                                  const std::string& folder) const {
  const fs::path p(name);
  return p.is_absolute() ? name
                         : (fs::path(folder) / p).lexically_normal().string();
}

}  // namespace sapcontact
