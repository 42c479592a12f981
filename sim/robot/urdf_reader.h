// Internal to sim/robot's URDF front end (urdf_loader.h): the reader that
// turns a URDF into a RobotDescription in two passes over the document:
//  1. TinyXML (which records line numbers) reads the text, and every element
//     the loader maps is validated here, so that errors carry file:line and
//     name the element. This pass also applies the options (skipped or
//     converted collision geometry), resolves the project's <capsule>
//     extension, and records the tree structure (urdf_scan.cc; collision
//     shapes and mesh URIs: urdf_collision.cc).
//  2. The document, minus what the loader ignores or handles itself
//     (visuals, materials, skipped collisions, safety controllers,
//     calibration; capsules replaced by a placeholder sphere), goes to
//     urdfdom (urdf_loader.cc), whose model supplies the kinematic and
//     inertial values (urdf_build.cc).
#pragma once

#include <tinyxml.h>
#include <urdf_model/model.h>

#include <Eigen/Core>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/sim/robot/urdf_loader.h"
#include "sapcontact/sim/robot/urdf_visuals.h"

namespace sapcontact {
// Named rather than anonymous: unity builds compile the loaders together.
namespace urdf_loader_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline std::string Quoted(const std::string& s) { return "'" + s + "'"; }

/// One <collision> element after validation.
struct CollisionInfo {
  std::string label;         ///< name attribute, or the index among the link's
  bool keep{true};           ///< false: skipped (skip_unsupported)
  bool capsule{false};       ///< <capsule>: urdfdom sees a placeholder sphere
  bool approximated{false};  ///< a cylinder as a capsule, a mesh as its hull
  Shape shape;               ///< the shape as it will be loaded
};

struct LinkInfo {
  std::string name;
  int line{0};
  std::vector<CollisionInfo> collisions;
  TiXmlElement* element{nullptr};
  std::vector<VisualGeometry> visuals;  ///< link index set by Build
  int parent_joint{-1};                 ///< index in the joint list, -1: a root
  std::vector<int> child_joints;        ///< in document order
};

struct JointInfo {
  std::string name;
  int line{0};
  std::string type;
  std::string parent, child;
  int parent_line{0}, child_line{0};
  int parent_link{-1}, child_link{-1};
  std::string mimic_leader;  ///< "" without <mimic>
  int mimic_line{0};
};

class UrdfReader {
 public:
  UrdfReader(const std::string& source, const UrdfOptions& options)
      : source_(source),
        options_(options),
        visual_reader_(
            source, options.mesh_limits,
            [this](const TiXmlElement* s, const std::string& uri,
                   const std::string& who) {
              return ResolveMeshUri(s, uri, who);
            },
            &warnings_) {}

  RobotDescription Read(const std::string& xml);

 private:
  [[noreturn]] void Fail(int line, const std::string& who,
                         const std::string& what) const {
    std::ostringstream msg;
    msg << source_;
    if (line > 0) msg << ":" << line;
    msg << ": ";
    if (!who.empty()) msg << who << ": ";
    msg << what;
    throw UrdfError(msg.str());
  }
  void Warn(int line, const std::string& what) {
    warnings_.push_back(source_ + (line > 0 ? ":" + std::to_string(line) : "") +
                        ": " + what);
  }

  // Attribute readers: validate the text like urdfdom's number parser
  // (classic locale, whole string) and finite, and write the canonical text
  // back so that urdfdom reads the same value.
  std::string Tag(const TiXmlElement* e, const char* attr) const;
  double Number(TiXmlElement* e, const char* attr, const std::string& who,
                const double* fallback);
  Eigen::Vector3d Vector(TiXmlElement* e, const char* attr,
                         const std::string& who,
                         const Eigen::Vector3d& fallback);
  /// Validates an optional <origin> element.
  void CheckOrigin(TiXmlElement* origin, const std::string& who);

  void ScanLink(TiXmlElement* e);
  void ScanInertial(TiXmlElement* inertial, const std::string& who);
  CollisionInfo ScanCollision(TiXmlElement* c, int index,
                              const std::string& who);
  /// The mesh of <mesh filename scale> element `s`, loaded once per file
  /// and scale; approximated: it collides as its hull of a mesh that is not
  /// convex or not closed (warned once per file).
  std::shared_ptr<const MeshShape> ScanMesh(TiXmlElement* s,
                                            const std::string& cwho,
                                            bool* approximated);
  /// The file a mesh URI names: package://NAME/..., file://..., or a path
  /// (relative to the URDF's folder).
  std::string ResolveMeshUri(const TiXmlElement* s, const std::string& uri,
                             const std::string& cwho) const;
  void ScanJoint(TiXmlElement* e);
  void ResolveTree(const TiXmlElement* robot);
  RobotDescription Build(const urdf::ModelInterface& model,
                         const std::string& name);

  std::string source_;
  UrdfOptions options_;
  std::vector<LinkInfo> links_;
  std::vector<JointInfo> joints_;
  std::map<std::string, int> link_index_, joint_index_;
  std::vector<int> order_;  ///< link indices in topological order
  std::vector<std::string> warnings_;
  std::map<std::pair<std::string, std::string>,
           std::shared_ptr<const MeshShape>>
      meshes_;  ///< by (path, scale text)
  std::set<std::string> warned_meshes_;
  UrdfVisualReader visual_reader_;
  int visuals_dropped_{0};
  /// Document edits for urdfdom, applied after the scan.
  std::vector<std::pair<TiXmlNode*, TiXmlNode*>> removals_;     // parent, child
  std::vector<std::pair<TiXmlNode*, TiXmlElement*>> capsules_;  // geometry
};

/// Parses a whole number text like urdfdom (classic locale); false if it
/// is not one.
bool ParseNumber(const std::string& text, double* value);
/// `s` without leading and trailing white space.
std::string Trim(const std::string& s);

}  // namespace urdf_loader_internal
}  // namespace sapcontact
