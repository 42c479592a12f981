// URDF <material> and <visual> elements into VisualGeometry
// (sim/robot/visual_geometry.h), for LoadUrdf (urdf_loader.cc), which hands
// it the TinyXML elements (line numbers known) before it removes them from
// the document urdfdom parses. Mesh URIs resolve as collision meshes do (a
// callback into the loader); mesh files are read as they are (STL, OBJ,
// Collada through geometry/mesh_file.h), welded and scaled, never
// convexified.
//
// Errors (UrdfError, "robot.urdf:12: link 'hand': visual 0: ...") for
// malformed elements: an <origin>, size, radius, length, scale or rgba that
// is not the right count of finite numbers, non-positive sizes, a colour
// outside [0, 1], a <visual> without <geometry> or shape, a top-level
// <material> without a name. Warnings (the visual is dropped or drawn in
// the page's colour) for what only affects the picture: a mesh file that
// cannot be found or read, an unknown geometry element, a material name
// that no <material> defines.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/sim/robot/visual_geometry.h"
#include "sapcontact/sim/robot/visual_mesh_cache.h"

class TiXmlElement;

namespace sapcontact {

class UrdfVisualReader {
 public:
  /// The file a <mesh filename> URI names, as for collision meshes;
  /// `who` names the element for messages. @throws UrdfError.
  using ResolveUri = std::function<std::string(const TiXmlElement* mesh,
                                               const std::string& uri,
                                               const std::string& who)>;

  /// `source` names the URDF in messages; warnings are appended to
  /// `warnings` ("robot.urdf:42: ...").
  UrdfVisualReader(std::string source, MeshLimits limits, ResolveUri resolve,
                   std::vector<std::string>* warnings);

  /// A top-level <material name="..."> (<color rgba>, <texture> ignored);
  /// later definitions of a name replace earlier ones. @throws UrdfError.
  void AddMaterial(const TiXmlElement* material);

  /// The <visual> elements of `link_element` (the <link> named
  /// `link_name`), in document order, with `link` as their link index;
  /// call after every top-level AddMaterial. A named material defined
  /// inside a visual becomes known to later references. Returns the
  /// visuals kept; `dropped` counts those not drawn. @throws UrdfError.
  std::vector<VisualGeometry> ReadVisuals(const TiXmlElement* link_element,
                                          const std::string& link_name,
                                          int* dropped);

 private:
  struct Colour {
    Eigen::Vector4d rgba{0.7, 0.7, 0.7, 1.0};
    bool set{false};
  };
  [[noreturn]] void Fail(int line, const std::string& who,
                         const std::string& what) const;
  void Warn(int line, const std::string& what);
  /// The numbers of attribute `attr` of `e` (exactly `count`), or
  /// `fallback` when the attribute is absent (null: required).
  std::vector<double> Numbers(const TiXmlElement* e, const char* attr,
                              int count, const std::string& who,
                              const std::vector<double>* fallback) const;
  Colour ReadColour(const TiXmlElement* material, const std::string& who);
  /// Reads one <visual>; false: dropped (warned).
  bool ReadVisual(const TiXmlElement* v, const std::string& who,
                  VisualGeometry* visual);
  std::shared_ptr<const TriangleMesh> ReadMesh(const TiXmlElement* s,
                                               const std::string& who,
                                               std::string* file);

  std::string source_;
  ResolveUri resolve_;
  std::vector<std::string>* warnings_;
  std::map<std::string, Colour> materials_;
  VisualMeshCache meshes_;
};

}  // namespace sapcontact
