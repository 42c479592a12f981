// Robot rows of the MuJoCo comparison (bench/mujoco_comparison.cc): a
// shipped sapsim scene (config/scenes) whose robot is a real URDF with mesh
// collision geometry, run by both engines.
//
//  - sapcontact loads the scene file itself with the comparison's contact
//    parameters and time step as --set overrides (RobotSceneOverrides): the
//    same materials.default (k = inf, tau_d = 1.5 dt per material, so 3 dt
//    per pair; mu = 0.5), beta and sigma as the body-only rows of
//    bench/comparison_scenes.h.
//  - MuJoCo compiles the robot from the same URDF with its own URDF reader
//    (UrdfToMjcf in comparison_robot_rows.h: an extension element
//    <mujoco><compiler meshdir strippath discardvisual/></mujoco> in a copy
//    of the file, then the compiled model saved as MJCF with
//    mj_saveLastXML). MuJoCo makes its own convex hull of each mesh.
//    RobotMjcf edits that MJCF into the scene: the comparison's options and
//    contact parameters; the links' frames and inertials from sapcontact's
//    loaded tree (so both engines move the same masses along the same joints:
//    mj_saveLastXML writes 6 significant digits, and MuJoCo 3.12.1's URDF
//    reader drops the rotation of an <inertial><origin rpy>,
//    google-deepmind/mujoco issue 3559); no contacts between the robot's own
//    links (sapcontact's self_collision: false); the PD actuation; the scene's
//    ground and free bodies (meshes from the same files, or sapcontact's hull
//    vertices of a file MuJoCo cannot read, an ASCII STL); and the robot's base
//    pose. The collision geometry keeps MuJoCo's placement (6 digits).
//
// PD in MuJoCo: sapcontact's u = kp (q_d - q) + kd (v_d - v) + u0 (implicit
// in q and v) becomes a position servo (general actuator, gain kp, bias
// -kp q, control q_d + (kd v_d + u0) / kp) plus joint damping kd, which
// MuJoCo's Euler integrator treats implicitly; the kp term stays explicit
// in MuJoCo. SI units; z up.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/comparison_scenes.h"
#include "sapcontact/sim/scene/scene.h"

namespace sapcontact::comparison {

/// One robot row: which scene, where MuJoCo finds the URDF's meshes, and
/// the outcome (how far the objects moved relative to a link).
struct RobotComparisonScene {
  std::string name;        ///< e.g. "wam tray"
  std::string scene_file;  ///< relative to the source tree
  std::string robot;       ///< the robot's name in the scene
  /// Folder holding the URDF's collision mesh files (MuJoCo does not
  /// resolve package:// URIs; with strippath it looks up the bare file
  /// names here).
  std::string mujoco_meshdir;
  double duration{1.0};  ///< simulated time [s]
  /// Outcome: each object's displacement in the frame of this link of the
  /// robot ("" for the world), split along the link's initial world z
  /// (normal) and across it (tangential: slip on the link, or horizontal
  /// motion in the world). The first object's tangential part is the
  /// outcome column.
  std::string reference_link;
  std::vector<std::string> objects;
  std::string outcome_name;  ///< with its unit
  /// Contacts MuJoCo 2.2 must preallocate room for (<size nconmax>).
  int max_contacts{64};
};

/// The Barrett WAM of config/scenes/wam_tray.yaml holding its forearm
/// level with a mesh prism resting on link /wam4; outcome: the prism's slip
/// on /wam4 over the run.
inline RobotComparisonScene WamTray() {
  RobotComparisonScene s;
  s.name = "wam tray";
  s.scene_file = "config/scenes/wam_tray.yaml";
  s.robot = "wam";
  s.mujoco_meshdir = "/usr/share/doc/dart/data/urdf/wam/meshes/wam";
  s.duration = 1.5;
  s.reference_link = "/wam4";
  s.objects = {"prism"};
  s.outcome_name = "slip on /wam4 [m]";
  s.max_contacts = 64;
  return s;
}

/// The KUKA KR5 of config/scenes/kr5_push.yaml sweeping its palm through a
/// mesh prism and a mesh wedge; outcome: the prism's horizontal
/// displacement (the wedge's on the detail line).
inline RobotComparisonScene Kr5Push() {
  RobotComparisonScene s;
  s.name = "kr5 push";
  s.scene_file = "config/scenes/kr5_push.yaml";
  s.robot = "kr5";
  s.mujoco_meshdir = "/usr/share/doc/dart/data/urdf/KR5/meshes";
  s.duration = 3.0;
  s.reference_link = "";
  s.objects = {"prism", "wedge"};
  s.outcome_name = "prism moved [m]";
  s.max_contacts = 128;
  return s;
}

/// The robot rows, in table order (after the body-only scenes).
inline std::vector<RobotComparisonScene> AllRobotScenes() {
  return {WamTray(), Kr5Push()};
}

/// The --set overrides that give the shipped scene the comparison's time
/// step, duration, contact parameters (materials.default, which every body
/// and robot of these scenes uses), beta and sigma, and no contacts between
/// the robot's own links (the shipped scenes filter every pair that comes
/// close in these runs: the same run with self_collision on).
inline std::vector<std::string> RobotSceneOverrides(
    const RobotComparisonScene& s, double dt, double sigma) {
  return {"time_step=" + Num(dt),
          "duration=" + Num(s.duration),
          "materials.default.stiffness=.inf",
          "materials.default.dissipation_time_scale=" + Num(1.5 * dt),
          "materials.default.friction=" + Num(kFriction),
          "solver.near_rigid_threshold=" + Num(kBeta),
          "solver.friction_regularization=" + Num(sigma),
          "robots." + s.robot + ".self_collision=false",
          "output.every=1000000"};
}

/// One object's displacement over the run in the reference frame (see
/// RobotComparisonScene::reference_link) [m].
struct ObjectMotion {
  double tangential{0.0};
  double normal{0.0};
};

/// Displacements of points p0 -> p1 (world) seen from a frame that moved
/// from X0 to X1 (world poses), split along the frame's initial world z.
inline std::vector<ObjectMotion> ObjectMotions(
    const Eigen::Isometry3d& X0, const Eigen::Isometry3d& X1,
    const std::vector<Eigen::Vector3d>& p0,
    const std::vector<Eigen::Vector3d>& p1) {
  const Eigen::Vector3d n = X0.linear().transpose() * Eigen::Vector3d::UnitZ();
  std::vector<ObjectMotion> out;
  for (size_t i = 0; i < p0.size() && i < p1.size(); ++i) {
    const Eigen::Vector3d d = X1.inverse() * p1[i] - X0.inverse() * p0[i];
    ObjectMotion m;
    m.normal = d.dot(n);
    m.tangential = (d - m.normal * n).norm();
    out.push_back(m);
  }
  return out;
}

// --- Editing the MJCF that MuJoCo saved from the URDF -----------------------

/// XML attribute text: & < > " escaped.
inline std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

inline std::string Vec3Text(const Eigen::Vector3d& v) {
  return Num(v.x()) + " " + Num(v.y()) + " " + Num(v.z());
}

inline std::string QuatText(const Eigen::Quaterniond& q) {
  return Num(q.w()) + " " + Num(q.x()) + " " + Num(q.y()) + " " + Num(q.z());
}

/// The MJCF the robot comes in cannot be edited as expected (an element or
/// a body missing, a construct this translation does not handle).
class MjcfEditError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Start and one-past-end of the start tag `<tag ...>` or `<tag .../>` that
/// has name="name" (any name when `name` is empty), searching from `from`;
/// npos when there is none.
inline std::pair<size_t, size_t> FindStartTag(const std::string& xml,
                                              const std::string& tag,
                                              const std::string& name,
                                              size_t from = 0) {
  const std::string open = "<" + tag;
  for (size_t p = xml.find(open, from); p != std::string::npos;
       p = xml.find(open, p + 1)) {
    const char next = p + open.size() < xml.size() ? xml[p + open.size()] : 0;
    if (!std::isspace(static_cast<unsigned char>(next)) && next != '>' &&
        next != '/') {
      continue;
    }
    const size_t end = xml.find('>', p);
    if (end == std::string::npos) break;
    if (name.empty() ||
        xml.substr(p, end - p).find(" name=\"" + XmlEscape(name) + "\"") !=
            std::string::npos) {
      return {p, end + 1};
    }
  }
  return {std::string::npos, std::string::npos};
}

/// Sets attribute `attr` of the start tag beginning at `tag_begin`
/// (replacing its value, or adding it after the tag name).
inline void SetAttribute(std::string* xml, size_t tag_begin,
                         const std::string& attr, const std::string& value) {
  const size_t end = xml->find('>', tag_begin);
  const size_t a = xml->find(" " + attr + "=\"", tag_begin);
  if (a != std::string::npos && a < end) {
    const size_t v = a + attr.size() + 3;
    const size_t q = xml->find('"', v);
    xml->replace(v, q - v, value);
  } else {
    const size_t name_end = xml->find_first_of(" \t\r\n/>", tag_begin + 1);
    xml->insert(name_end, " " + attr + "=\"" + value + "\"");
  }
}

/// Removes every attribute `attr="..."` from the document.
inline void RemoveAttribute(std::string* xml, const std::string& attr) {
  const std::string key = " " + attr + "=\"";
  for (size_t a = xml->find(key); a != std::string::npos; a = xml->find(key)) {
    const size_t q = xml->find('"', a + key.size());
    xml->erase(a, q + 1 - a);
  }
}

/// Removes every empty element <tag .../> (and a <tag>...</tag> block).
inline void RemoveElement(std::string* xml, const std::string& tag) {
  for (auto t = FindStartTag(*xml, tag, ""); t.first != std::string::npos;
       t = FindStartTag(*xml, tag, "")) {
    size_t end = t.second;
    if ((*xml)[end - 2] != '/') {
      const size_t close = xml->find("</" + tag + ">", end);
      if (close == std::string::npos) {
        throw MjcfEditError("<" + tag + "> without its end tag");
      }
      end = close + tag.size() + 3;
    }
    xml->erase(t.first, end - t.first);
  }
}

/// Mass properties of link `link` and every link welded to it through
/// fixed joints (MuJoCo fuses those into one body), in link's frame.
inline LinkInertia WeldedInertia(const MultibodyTree& tree, int link) {
  double mass = 0;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
  // Each welded link: its pose in `link`'s frame.
  std::vector<std::pair<int, Eigen::Isometry3d>> welded = {
      {link, Eigen::Isometry3d::Identity()}};
  for (int i = link + 1; i < tree.num_links(); ++i) {
    const Joint& j = tree.joint(i);
    if (j.type != JointType::kFixed) continue;
    for (size_t k = 0; k < welded.size(); ++k) {
      if (welded[k].first == j.parent) {
        welded.push_back({i, welded[k].second * j.origin});
        break;
      }
    }
  }
  for (const auto& [i, X] : welded) {
    const LinkInertia& in = tree.link(i).inertia;
    mass += in.mass;
    first_moment += in.mass * (X * in.com);
  }
  LinkInertia out;
  out.mass = mass;
  out.com =
      mass > 0 ? Eigen::Vector3d(first_moment / mass) : Eigen::Vector3d::Zero();
  for (const auto& [i, X] : welded) {
    const LinkInertia& in = tree.link(i).inertia;
    const Eigen::Vector3d r = X * in.com - out.com;
    out.inertia += X.linear() * in.inertia * X.linear().transpose() +
                   in.mass * (r.squaredNorm() * Eigen::Matrix3d::Identity() -
                              r * r.transpose());
  }
  return out;
}

/// <inertial .../> of mass properties (com and inertia in the body frame).
inline std::string InertialElement(double mass, const Eigen::Vector3d& com,
                                   const Eigen::Matrix3d& I) {
  return "<inertial pos=\"" + Vec3Text(com) + "\" mass=\"" + Num(mass) +
         "\" fullinertia=\"" + Num(I(0, 0)) + " " + Num(I(1, 1)) + " " +
         Num(I(2, 2)) + " " + Num(I(0, 1)) + " " + Num(I(0, 2)) + " " +
         Num(I(1, 2)) + "\"/>";
}

/// Whether MuJoCo reads this mesh file: OBJ, and binary STL (an ASCII STL
/// is not 84 + 50 n bytes for the n its header counts).
inline bool MujocoReadsMeshFile(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    if (path.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i) {
      const char c = path[path.size() - suffix.size() + i];
      if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) {
        return false;
      }
    }
    return true;
  };
  if (ends_with(".obj")) return true;
  if (!ends_with(".stl")) return false;
  std::ifstream in(path, std::ios::binary);
  unsigned char header[84];
  if (!in.read(reinterpret_cast<char*>(header), sizeof(header))) return false;
  const unsigned long long n =
      header[80] | (header[81] << 8) | (header[82] << 16) |
      (static_cast<unsigned long long>(header[83]) << 24);
  in.seekg(0, std::ios::end);
  return static_cast<unsigned long long>(in.tellg()) == 84 + 50 * n;
}

/// The <mesh> asset of a scene body's mesh shape: its file (scaled) when
/// MuJoCo reads it, else its hull's vertices in the file's frame (scaled).
inline std::string MeshAsset(const std::string& name, const MeshShape& mesh) {
  std::string a = "<mesh name=\"" + XmlEscape(name) + "\"";
  if (MujocoReadsMeshFile(mesh.path)) {
    return a + " file=\"" + XmlEscape(mesh.path) + "\" scale=\"" +
           Vec3Text(mesh.scale) + "\"/>";
  }
  a += " vertex=\"";
  for (size_t i = 0; i < mesh.hull.vertices.size(); ++i) {
    a += (i > 0 ? " " : "") + Vec3Text(mesh.hull.vertices[i] - mesh.offset);
  }
  return a + "\"/>";
}

/// The <geom> of a scene body's shape (its attributes up to, without, the
/// closing "/>"); a mesh refers to the asset `mesh_name`.
inline std::string ShapeGeom(const Shape& shape, const std::string& mesh_name) {
  switch (shape.type) {
    case ShapeType::kPlane:
      return "<geom type=\"plane\" size=\"0 0 1\"";
    case ShapeType::kBox:
      return "<geom type=\"box\" size=\"" + Vec3Text(shape.size / 2) + "\"";
    case ShapeType::kSphere:
      return "<geom type=\"sphere\" size=\"" + Num(shape.radius) + "\"";
    case ShapeType::kCapsule:
      return "<geom type=\"capsule\" size=\"" + Num(shape.radius) + " " +
             Num(shape.length / 2) + "\"";
    case ShapeType::kCylinder:
      return "<geom type=\"cylinder\" size=\"" + Num(shape.radius) + " " +
             Num(shape.length / 2) + "\"";
    case ShapeType::kMesh:
      // The mesh's vertices are in the file's frame, which lies at `offset`
      // in the body frame (the centroid frame of a free body); MuJoCo
      // re-centres its meshes and moves the geom frame to compensate.
      return "<geom type=\"mesh\" mesh=\"" + XmlEscape(mesh_name) +
             "\" pos=\"" + Vec3Text(shape.mesh->offset) + "\"";
  }
  throw MjcfEditError("unknown shape type");
}

/// Checks that the scene is one this translation reproduces in MuJoCo:
/// one robot, `s.robot`, with a fixed base and no self-collision; PD gains
/// kp > 0 and no effort limit; every body and the robot of the default
/// material; no prescribed bodies or external forces. Throws
/// std::invalid_argument naming what is not.
inline void CheckTranslatable(const Scene& scene,
                              const RobotComparisonScene& s) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(s.scene_file + ": " + what +
                                " (not translated to MuJoCo)");
  };
  if (scene.robots.size() != 1 || scene.robots[0].name != s.robot) {
    fail("the scene must have exactly one robot, '" + s.robot + "'");
  }
  const RobotSpec& r = scene.robots[0];
  if (!r.fixed_base) fail("a floating base");
  if (r.self_collision) fail("self_collision: true");
  if (r.material_index != 0) fail("a robot material other than default");
  if (!r.description.couplings.empty()) fail("mimic joints");
  for (const JointActuation& a : r.actuation) {
    const std::string& name = r.description.tree.joint(a.joint).name;
    if (!(a.kp > 0)) fail("joint " + name + ": kp = 0");
    if (std::isfinite(a.effort_limit)) fail("joint " + name + ": effort limit");
  }
  for (const Body& b : scene.bodies) {
    if (b.prescribed) fail("body " + b.name + ": prescribed motion");
    if (b.material_index != 0) fail("body " + b.name + ": a material");
  }
  if (!scene.external_forces.empty()) fail("external forces");
  for (const std::string& o : s.objects) {
    const int b = scene.FindBody(o);
    if (b < 0 || scene.bodies[b].fixed) fail("no free body '" + o + "'");
  }
  if (!s.reference_link.empty() &&
      r.description.tree.FindLink(s.reference_link) < 0) {
    fail("no link '" + s.reference_link + "'");
  }
}

/// The MuJoCo model of the robot scene at time step dt: `robot_mjcf` is
/// what mj_saveLastXML wrote for the robot's URDF (with meshdir and
/// strippath), `legacy_size` writes MuJoCo 2.2's preallocation
/// (<size nconmax njmax nstack>). The MJCF gets:
///  - the comparison's <option> and default geom contact parameters (as
///    ToMjcf: Newton, elliptic cones, condim 3, solref (2 dt, 1), solimp
///    (0.99, 0.99, 0.001));
///  - every moving link's inertial from sapcontact's tree (links welded to
///    it by fixed joints included);
///  - robot geoms contype 2, conaffinity 1: they touch the ground and the
///    objects (contype 1, conaffinity 1) but not each other;
///  - no actuatorfrcrange (MuJoCo 3 maps the URDF effort limit to it; the
///    scenes lift those limits), no frictionloss (sapcontact does not model
///    URDF joint friction);
///  - joint damping = the URDF's + kd, and one general actuator per actuated
///    joint (gain kp, bias -kp q), in the order of RobotSpec::actuation;
///  - the robot inside a body at the scene's base pose; the scene's fixed
///    bodies as world geoms and free bodies with a free joint and
///    sapcontact's mass and inertia about the centroid (the body frame).
inline std::string RobotMjcf(const Scene& scene, const RobotComparisonScene& s,
                             const std::string& robot_mjcf, double dt,
                             bool legacy_size) {
  CheckTranslatable(scene, s);
  const RobotSpec& r = scene.robots[0];
  const MultibodyTree& tree = r.description.tree;
  std::string x = robot_mjcf;
  RemoveElement(&x, "size");
  RemoveElement(&x, "default");
  RemoveElement(&x, "option");
  RemoveAttribute(&x, "actuatorfrcrange");
  RemoveAttribute(&x, "frictionloss");
  if (!r.joint_limits) RemoveAttribute(&x, "range");

  // Robot geoms (every geom so far): no contacts among themselves.
  int robot_geoms = 0;
  for (auto t = FindStartTag(x, "geom", ""); t.first != std::string::npos;
       t = FindStartTag(x, "geom", "", t.second)) {
    SetAttribute(&x, t.first, "contype", "2");
    SetAttribute(&x, t.first, "conaffinity", "1");
    ++robot_geoms;
  }
  if (robot_geoms == 0) throw MjcfEditError("the robot has no geoms");

  // Moving links: frames, inertials and joint damping. A link welded by
  // fixed joints to a moving link is fused into that link's body, one
  // welded to the world into the body at the base pose; in_body is each
  // link's pose in the frame of the MuJoCo body it belongs to. (Links are
  // numbered parents first.)
  int moving = 0;
  std::vector<Eigen::Isometry3d> in_body(tree.num_links());
  const Eigen::Isometry3d base_inverse =
      (Eigen::Translation3d(r.base_pose.position) * r.base_pose.orientation)
          .inverse();
  for (int i = 0; i < tree.num_links(); ++i) {
    const Joint& j = tree.joint(i);
    const Eigen::Isometry3d in_parent_body =
        (j.parent < 0 ? base_inverse : in_body[j.parent]) * j.origin;
    if (j.type == JointType::kFixed) {
      in_body[i] = in_parent_body;
      continue;
    }
    in_body[i].setIdentity();
    if (j.type != JointType::kRevolute && j.type != JointType::kPrismatic) {
      throw MjcfEditError("joint '" + j.name +
                          "': only revolute and "
                          "prismatic joints are translated");
    }
    ++moving;
    const auto body = FindStartTag(x, "body", tree.link(i).name);
    if (body.first == std::string::npos) {
      throw MjcfEditError("no <body name=\"" + tree.link(i).name + "\">");
    }
    // The body frame at full precision (mj_saveLastXML writes 6 digits).
    SetAttribute(&x, body.first, "pos", Vec3Text(in_parent_body.translation()));
    SetAttribute(&x, body.first, "quat",
                 QuatText(Eigen::Quaterniond(in_parent_body.linear())));
    const LinkInertia in = WeldedInertia(tree, i);
    const std::string inertial = InertialElement(in.mass, in.com, in.inertia);
    const size_t body_end = x.find('>', body.first) + 1;
    const size_t next = x.find_first_not_of(" \n", body_end);
    if (x.compare(next, 9, "<inertial") == 0) {
      const size_t end = x.find("/>", next);
      x.replace(next, end + 2 - next, inertial);
    } else {
      x.insert(body_end, "\n" + inertial);
    }
    const auto joint = FindStartTag(x, "joint", j.name);
    if (joint.first == std::string::npos) {
      throw MjcfEditError("no <joint name=\"" + j.name + "\">");
    }
    double damping = j.damping;
    for (const JointActuation& a : r.actuation) {
      if (a.joint == i) damping += a.kd;
    }
    SetAttribute(&x, joint.first, "damping", Num(damping));
  }
  int bodies = 0;
  for (auto t = FindStartTag(x, "body", ""); t.first != std::string::npos;
       t = FindStartTag(x, "body", "", t.second)) {
    ++bodies;
  }
  if (bodies != moving) {
    throw MjcfEditError("the MJCF has " + std::to_string(bodies) +
                        " bodies for the robot's " + std::to_string(moving) +
                        " moving links");
  }

  // Assets: the scene's mesh files, or (a file MuJoCo cannot read) the
  // vertices of sapcontact's hull of it, which MuJoCo collides as the same
  // hull.
  std::string assets;
  for (const Body& b : scene.bodies) {
    if (b.shape.type != ShapeType::kMesh) continue;
    assets += "    " + MeshAsset("scene " + b.name, *b.shape.mesh) + "\n";
  }
  const size_t asset_end = x.find("</asset>");
  if (asset_end != std::string::npos) {
    x.insert(x.rfind('\n', asset_end) + 1, assets);
  } else if (!assets.empty()) {
    x.insert(x.find("<worldbody>"), "<asset>\n" + assets + "  </asset>\n  ");
  }

  // The robot at its base pose, then the scene's bodies.
  const size_t wb = x.find("<worldbody>");
  const size_t wb_end = x.rfind("</worldbody>");
  if (wb == std::string::npos || wb_end == std::string::npos) {
    throw MjcfEditError("no <worldbody>");
  }
  std::ostringstream world;
  for (const Body& b : scene.bodies) {
    const std::string geom = ShapeGeom(b.shape, "scene " + b.name);
    const std::string pose = " pos=\"" + Vec3Text(b.pose.position) +
                             "\" quat=\"" + QuatText(b.pose.orientation) + "\"";
    if (b.fixed) {
      world << "    <body name=\"" << XmlEscape(b.name) << "\"" << pose << ">"
            << geom << "/></body>\n";
    } else {
      world << "    <body name=\"" << XmlEscape(b.name) << "\"" << pose
            << "><freejoint/>"
            << InertialElement(b.mass, Eigen::Vector3d::Zero(), b.inertia)
            << geom << "/></body>\n";
    }
  }
  x.insert(wb_end, "    </body>\n" + world.str());
  x.insert(wb + 11, "\n    <body name=\"robot base\" pos=\"" +
                        Vec3Text(r.base_pose.position) + "\" quat=\"" +
                        QuatText(r.base_pose.orientation) + "\">");

  // Actuators.
  std::ostringstream act;
  act << "  <actuator>\n";
  for (const JointActuation& a : r.actuation) {
    const std::string& name = tree.joint(a.joint).name;
    act << "    <general name=\"pd " << XmlEscape(name) << "\" joint=\""
        << XmlEscape(name)
        << "\" gaintype=\"fixed\" biastype=\"affine\" gainprm=\"" << Num(a.kp)
        << "\" biasprm=\"0 " << Num(-a.kp)
        << " 0\" ctrllimited=\"false\" forcelimited=\"false\"/>\n";
  }
  act << "  </actuator>\n";
  const size_t end = x.rfind("</mujoco>");
  if (end == std::string::npos) throw MjcfEditError("no </mujoco>");
  x.insert(end, act.str());

  // Options, sizes and contact parameters.
  const Eigen::Vector3d& g = scene.gravity;
  std::ostringstream head;
  head << "\n  <option timestep=\"" << Num(dt) << "\" gravity=\"" << Vec3Text(g)
       << "\" solver=\"Newton\" cone=\"elliptic\" impratio=\"1\" "
          "tolerance=\"1e-8\" iterations=\"100\"/>\n";
  if (legacy_size) {
    int nv = tree.num_velocities();
    for (const Body& b : scene.bodies) nv += b.fixed ? 0 : 6;
    const int njmax = 3 * s.max_contacts + 2 * tree.num_velocities();
    head << "  <size nconmax=\"" << s.max_contacts << "\" njmax=\"" << njmax
         << "\" nstack=\"" << 2LL * njmax * nv + 100000 << "\"/>\n";
  }
  head << "  <default><geom condim=\"3\" friction=\"" << Num(kFriction)
       << " 0 0\" solref=\"" << Num(2 * dt)
       << " 1\" solimp=\"0.99 0.99 0.001 0.5 2\"/></default>";
  const auto model = FindStartTag(x, "mujoco", "");
  if (model.first == std::string::npos) throw MjcfEditError("no <mujoco>");
  x.insert(model.second, head.str());
  return x;
}

}  // namespace sapcontact::comparison
