#include <Eigen/Eigenvalues>
#include <cmath>
#include <locale>
#include <sstream>

#include "sapcontact/sim/robot/urdf_reader.h"

namespace sapcontact {
namespace urdf_loader_internal {

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
      if (Number(dynamics, "friction", who, &zero) < 0.0) {
        Fail(dynamics->Row(), who,
             Tag(dynamics, "friction") + ": must not be negative");
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

}  // namespace urdf_loader_internal
}  // namespace sapcontact
