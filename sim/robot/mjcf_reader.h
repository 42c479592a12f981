// Internal to sim/robot's MJCF front end (mjcf_loader.h): the reader that
// walks an MjcfDocument into an MjcfModel, split by concept over
// mjcf_loader.cc (options, assets, static bodies, the walk over
// <worldbody>), mjcf_bodies.cc (moving bodies: joint chains, mass
// properties, self-collision) and mjcf_sections.cc (<actuator>,
// <contact>, <keyframe>, <equality>).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/mjcf_document.h"
#include "sapcontact/sim/robot/mjcf_geom.h"
#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/robot/visual_mesh_cache.h"

namespace sapcontact {
// Named rather than anonymous: unity builds compile the loaders together.
namespace mjcf_loader_internal {

using Element = MjcfDocument::Element;
using Eigen::Isometry3d;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

inline Isometry3d Translation(const Vector3d& p) {
  Isometry3d X = Isometry3d::Identity();
  X.translation() = p;
  return X;
}

inline Pose ToPose(const Isometry3d& X) {
  Pose p;
  p.position = X.translation();
  p.orientation = Eigen::Quaterniond(X.linear()).normalized();
  return p;
}

// Mass properties given in the body frame B, in a frame L with X_LB.
inline LinkInertia InLink(const LinkInertia& in_body, const Isometry3d& X_LB) {
  LinkInertia li = in_body;
  li.com = X_LB * in_body.com;
  li.inertia = X_LB.linear() * in_body.inertia * X_LB.linear().transpose();
  return li;
}

inline Isometry3d ToIsometry(const Pose& p) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = p.rotation();
  X.translation() = p.position;
  return X;
}

// Mass properties accumulated about a common point.
struct MassSum {
  double mass{0.0};
  Vector3d first_moment{Vector3d::Zero()};
  Matrix3d inertia_origin{Matrix3d::Zero()};  // about the body origin

  void Add(double m, const Vector3d& com, const Matrix3d& I_com) {
    mass += m;
    first_moment += m * com;
    inertia_origin += I_com + m * (com.squaredNorm() * Matrix3d::Identity() -
                                   com * com.transpose());
  }
  LinkInertia ToLinkInertia() const {
    LinkInertia li;
    li.mass = mass;
    if (mass <= 0.0) return li;
    li.com = first_moment / mass;
    li.inertia =
        inertia_origin - mass * (li.com.squaredNorm() * Matrix3d::Identity() -
                                 li.com * li.com.transpose());
    li.inertia = 0.5 * (li.inertia + li.inertia.transpose());
    return li;
  }
};

// Counts of attributes read but not modelled, reported once per robot.
struct Unmodelled {
  std::map<std::string, int> count;
  std::map<std::string, std::string> first;
  void Add(const std::string& what, const std::string& where) {
    if (count[what]++ == 0) first[what] = where;
  }
  void Report(std::vector<std::string>* warnings) const {
    for (const auto& [what, n] : count) {
      warnings->push_back(first.at(what) + ": " + what + " of " +
                          std::to_string(n) + " joint" + (n == 1 ? "" : "s") +
                          " ignored (not modelled), the first here");
    }
  }
};

class MjcfReader {
 public:
  MjcfReader(const MjcfDocument& doc, const MjcfOptions& options)
      : doc_(doc), options_(options) {}

  MjcfModel Read();

 private:
  bool HasJoint(const Element* body) const;
  void ReadOptions();
  void ReadAssets();
  void ReadStatic(const Element* body, const std::string& cls,
                  const Isometry3d& X_W_parent, int parent_body);
  MjcfGeom ReadWorldGeom(const Element* g, const std::string& cls,
                         const Isometry3d& X_WB, int index);
  void ScaleToTotalMass();
  void ReadActuators();
  void ReadContactExcludes();
  void ReadKeyframes();
  void ReadJointEqualities();
  void ReadTendons();
  void ReadWeldsAndConnects();
  // Adds body `e` (and its subtree) to robot `d`.
  void ReadBody(const Element* e, const std::string& inherited, int parent_link,
                const Isometry3d& X_PL_parent, const Isometry3d& X_W_parent,
                int parent_body, int robot, RobotDescription* d,
                Unmodelled* unmodelled);
  bool MovesByHingeOrSlide(const Element* body) const;
  bool SelfCollides(int robot) const;
  int AddJointChain(const Element* body, const std::string& body_name,
                    const std::vector<const Element*>& joints,
                    const std::string& cls, int parent_link,
                    const Isometry3d& X_PL_B0, const Isometry3d& X_WB,
                    const LinkInertia& in_body, RobotDescription* d,
                    Unmodelled* unmodelled, Isometry3d* X_LB,
                    std::vector<double>* q0);
  LinkInertia BodyInertia(const Element* e, const Isometry3d& X_WB,
                          const std::vector<MjcfGeom>& geoms);
  void CountIgnored(const Element* e);

  const MjcfDocument& doc_;
  const MjcfOptions& options_;
  MjcfModel model_;
  // Mass of the static bodies (settotalmass counts them, as MuJoCo does).
  double static_mass_{0.0};
  std::map<std::string, const Element*> meshes_;
  std::map<std::string, int> ignored_;
  // A mesh file's triangles, scaled, for the visuals.
  VisualMeshCache visual_meshes_{options_.mesh_limits};
  // Per robot: the collision geoms' masks and bodies (SelfCollides).
  struct GeomMask {
    int contype, conaffinity, body;
  };
  std::vector<std::vector<GeomMask>> masks_;
  // MuJoCo's qpos layout: every MJCF joint in document order, its robot and
  // the tree index of its (first) joint.
  struct QposSlot {
    const Element* e;
    enum Kind { kFree, kBall, kScalar } kind;
    int robot, joint;
  };
  std::vector<QposSlot> qpos_slots_;
};

}  // namespace mjcf_loader_internal
}  // namespace sapcontact
