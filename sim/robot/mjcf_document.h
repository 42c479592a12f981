// An MJCF file (https://mujoco.readthedocs.io/en/stable/XMLreference.html) as
// the MJCF front end reads it (TinyXML, which MuJoCo 3 does not bundle:
// its own tinyxml2 would clash with ours in one process): the XML tree with
// <include> expanded, the
// <default> classes, the <compiler> settings, and attribute readers that
// name the file, line and element in their errors. Used by LoadMjcf
// (mjcf_loader.h); knows nothing of bodies or robots.
#pragma once

#include <tinyxml.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sapcontact {

/// MuJoCo's <compiler> settings that change what a number means.
struct MjcfCompiler {
  /// angle="degree" (MuJoCo's default): angles in the file (euler,
  /// axisangle, hinge range and ref) are degrees; "radian": radians.
  bool degrees{true};
  /// eulerseq: three of x, y, z (rotating axes) or X, Y, Z (fixed axes).
  std::string eulerseq{"xyz"};
  /// coordinate="global" (MJCF before MuJoCo 2.3.3): body, joint, geom and
  /// inertial frames are given in the world frame.
  bool global{false};
  /// inertiafromgeom: kAuto uses the geoms of a body without <inertial>.
  enum class InertiaFromGeom { kFalse, kTrue, kAuto };
  InertiaFromGeom inertia_from_geom{InertiaFromGeom::kAuto};
  /// Folders of mesh files (meshdir, else assetdir, else the model's
  /// folder), absolute.
  std::string mesh_dir;
  /// boundmass, boundinertia: lower bounds on body masses and inertias.
  double bound_mass{0.0};
  double bound_inertia{0.0};
  /// settotalmass > 0: every body's mass and inertia are scaled so that
  /// the moving bodies weigh this much in total [kg].
  double total_mass{-1.0};
};

/// The rotation that takes the z axis to `axis` by the shortest arc (a half
/// turn about x when they are opposite): MJCF's zaxis and fromto frames.
Eigen::Quaterniond MjcfZAxisToQuaternion(const Eigen::Vector3d& axis);

class MjcfDocument {
 public:
  using Element = TiXmlElement;
  /// The element's tag.
  static std::string Tag(const Element* e) { return e->Value(); }

  /// Parses `xml`; `source` names it in messages, and relative file names
  /// (<include file>, meshdir) resolve against its folder. Throws
  /// std::invalid_argument ("file:line: ...") on malformed XML, a root that
  /// is not <mujoco>, or an <include> that cannot be read.
  MjcfDocument(const std::string& xml, const std::string& source);

  const Element* root() const { return root_; }
  const MjcfCompiler& compiler() const { return compiler_; }
  /// The model name (<mujoco model="...">), or the file's stem.
  const std::string& model_name() const { return model_name_; }

  /// The children of `e` (those named `tag`, or all), with every <include>
  /// replaced by the children of its file's root, in document order.
  std::vector<const Element*> Children(const Element* e,
                                       const char* tag = nullptr) const;

  /// "file:line: <tag name='n'>" for messages.
  std::string Where(const Element* e) const;
  /// Throws std::invalid_argument "file:line: <tag name='n'>: message".
  [[noreturn]] void Fail(const Element* e, const std::string& message) const;

  /// The element's default class: its own class="..." (which must exist),
  /// else `inherited` (the nearest childclass), else "main".
  std::string ClassOf(const Element* e, const std::string& inherited) const;
  /// The class a body passes to its children: its childclass="..." (which
  /// must exist), else `inherited`.
  std::string ChildClassOf(const Element* body,
                           const std::string& inherited) const;
  /// The attribute `name` of `e`, else of the <tag> element of `cls` or its
  /// ancestors' defaults (tag defaults to e's own name), else nullptr.
  const char* Find(const Element* e, const char* name, const std::string& cls,
                   const char* tag = nullptr) const;
  /// The element Find takes the attribute from (e or a default class's
  /// element), else nullptr: where a message about the value points.
  const Element* Owner(const Element* e, const char* name,
                       const std::string& cls, const char* tag = nullptr) const;

  /// Typed readers of Find(...); `fallback` when absent. A malformed value
  /// is an error naming the attribute.
  double Number(const Element* e, const char* name, const std::string& cls,
                double fallback) const;
  /// n numbers (n > 0); with `min_count`, between min_count and n numbers
  /// are accepted and the rest are taken from `fallback`.
  Eigen::VectorXd Numbers(const Element* e, const char* name,
                          const std::string& cls,
                          const Eigen::VectorXd& fallback,
                          int min_count = -1) const;
  std::string Text(const Element* e, const char* name, const std::string& cls,
                   const std::string& fallback) const;
  /// "true"/"false" (and "auto" as `automatic` when given).
  int Bool(const Element* e, const char* name, const std::string& cls,
           int fallback) const;
  /// The orientation of a frame element (quat, axisangle, euler, xyaxes,
  /// zaxis; at most one), in the compiler's angle unit and eulerseq
  /// (identity when none is given). Frames take no defaults.
  Eigen::Quaterniond Orientation(const Element* e) const;
  /// A file named by the model resolved against `folder` (absolute names
  /// as they are).
  std::string Resolve(const std::string& name, const std::string& folder) const;
  /// The model's own folder.
  const std::string& folder() const { return folder_; }

 private:
  struct DefaultClass {
    std::string parent;                              // "" for main
    std::map<std::string, const Element*> elements;  // tag -> element
  };
  const TiXmlDocument* Load(const std::string& path, const Element* at) const;
  void ReadDefaults(const Element* d, const std::string& parent);
  void ReadCompiler();
  void ExpandInto(const Element* e, const char* tag,
                  std::vector<const Element*>* out, int depth) const;

  TiXmlDocument doc_;
  const Element* root_{nullptr};
  std::string folder_, model_name_;
  // Included files, owned; doc -> file name for messages.
  mutable std::map<std::string, std::unique_ptr<TiXmlDocument>> included_;
  mutable std::map<const TiXmlDocument*, std::string> file_of_;
  std::map<std::string, DefaultClass> classes_;
  MjcfCompiler compiler_;
};

}  // namespace sapcontact
