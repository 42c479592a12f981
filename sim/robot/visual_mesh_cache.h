// The triangles of visual mesh files, read once per file and scale and
// shared by every visual that names them (VisualGeometry::mesh). Used by
// the URDF, MJCF and SDFormat front ends. Display only: never convexified.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/triangle_mesh.h"

namespace sapcontact {

class VisualMeshCache {
 public:
  explicit VisualMeshCache(const MeshLimits& limits) : limits_(limits) {}

  /// The mesh file at `path` (STL, OBJ, Collada) scaled by `scale`, read
  /// within the limits on first use. @throws std::invalid_argument
  /// (MeshError) when it cannot be read; nothing is cached then.
  std::shared_ptr<const TriangleMesh> Get(const std::string& path,
                                          const Vector3& scale);

 private:
  MeshLimits limits_;
  std::map<std::pair<std::string, std::string>,
           std::shared_ptr<const TriangleMesh>>
      meshes_;  // by (path, scale text)
};

}  // namespace sapcontact
