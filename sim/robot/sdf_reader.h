// Internal to sim/robot's SDFormat front end (sdf_loader.h): the reader
// that walks libsdformat's DOM into a WorldDescription, split by concept
// over sdf_loader.cc (files, URIs, the world), sdf_geometry.cc (collision
// and visual shapes, friction, static models) and sdf_model_tree.cc (a
// model's links and joints into multibody trees).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <memory>
#include <sdf/sdf.hh>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/triangle_mesh.h"
#include "sapcontact/sim/robot/sdf_loader.h"
#include "sapcontact/sim/robot/visual_mesh_cache.h"

namespace sapcontact {
// Named rather than anonymous: unity builds compile the loaders together.
namespace sdf_loader_internal {

// SDFormat's "no limit" default for <lower>/<upper> is -/+1e16.
inline constexpr double kNoLimit = 1e15;

inline Eigen::Isometry3d ToIsometry(const ignition::math::Pose3d& p) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(p.Pos().X(), p.Pos().Y(), p.Pos().Z());
  X.linear() =
      Eigen::Quaterniond(p.Rot().W(), p.Rot().X(), p.Rot().Y(), p.Rot().Z())
          .normalized()
          .toRotationMatrix();
  return X;
}

inline Pose ToPose(const Eigen::Isometry3d& X) {
  Pose p;
  p.position = X.translation();
  p.orientation = Eigen::Quaterniond(X.linear()).normalized();
  return p;
}

inline Eigen::Vector3d ToVector(const ignition::math::Vector3d& v) {
  return Eigen::Vector3d(v.X(), v.Y(), v.Z());
}

// A parsed link of a model (nested models flattened), in the model frame.
struct LinkInfo {
  std::string name;  // scoped from the top-level model
  const sdf::Link* link{nullptr};
  Eigen::Isometry3d X_ML{Eigen::Isometry3d::Identity()};
};

struct JointInfo {
  std::string name;
  const sdf::Joint* joint{nullptr};
  std::string parent, child;  // scoped link names; parent may be "world"
  Eigen::Isometry3d X_MJ{Eigen::Isometry3d::Identity()};
};

class SdfReader {
 public:
  SdfReader(const std::string& source, const SdfOptions& options)
      : source_(source), options_(options) {}

  WorldDescription Read(const sdf::Root& root);
  // Where model:// and package:// NAME live ("" if nowhere).
  std::string FindPackage(const std::string& name, bool ros) const;
  std::string SearchedFolders(bool ros) const;

 private:
  [[noreturn]] void Fail(const sdf::ElementPtr& e,
                         const std::string& message) const;
  std::string Where(const sdf::ElementPtr& e) const;
  std::string FolderOf(const sdf::ElementPtr& e) const;
  void ReadModel(const sdf::Model& model, const Eigen::Isometry3d& X_WM);
  void Flatten(const sdf::Model& model, const std::string& prefix,
               const Eigen::Isometry3d& X_MN, std::vector<LinkInfo>* links,
               std::vector<JointInfo>* joints);
  void ReadStatic(const sdf::Model& model, const Eigen::Isometry3d& X_WM);
  // The collision's shape; false for no shape (warned).
  bool ReadShape(const sdf::Geometry& geom, const sdf::ElementPtr& e,
                 bool moving, Shape* shape, std::string* mesh_file,
                 bool* approximated);
  // <surface><friction><ode><mu> (default 1); a different mu2 is warned.
  double Friction(const sdf::Collision& c,
                  std::vector<std::string>* warnings) const;
  int Bitmask(const sdf::Collision& c) const;
  std::string ResolveUri(const std::string& uri,
                         const sdf::ElementPtr& e) const;
  void AddLinkGeometry(const LinkInfo& info, int link,
                       const Eigen::Isometry3d& X_TL, int robot,
                       RobotDescription* d);

  std::string source_;
  const SdfOptions& options_;
  WorldDescription world_;
  VisualMeshCache visual_meshes_{options_.mesh_limits};
};

}  // namespace sdf_loader_internal
}  // namespace sapcontact
