#include "sapcontact/sim/geometry/mesh_shape.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/sim/geometry/mesh_file.h"
#include "sapcontact/sim/geometry/triangle_mesh.h"

namespace sapcontact {

std::shared_ptr<const MeshShape> LoadMeshShape(const std::string& path,
                                               const std::string& file,
                                               const Vector3& scale,
                                               bool centre,
                                               const MeshLimits& limits) {
  static const char* const kAxis[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(scale[k]) || scale[k] == 0.0) {
      std::ostringstream os;
      os << path << ": scale " << kAxis[k] << " = " << scale[k]
         << ": every scale component must be finite and non-zero (a "
            "negative one mirrors the mesh)";
      throw MeshError(os.str());
    }
  }
  auto shape = std::make_shared<MeshShape>();
  shape->file = file;
  shape->path = path;
  shape->scale = scale;

  TriangleMesh mesh = ReadMeshFile(path, limits);
  // Closedness in the file's coordinates (messages name them as written);
  // scaling keeps it, and ScaleMesh keeps the volume's sign.
  const MeshClosure closure = CheckClosed(mesh);
  shape->closed = closure.closed;
  shape->not_closed_reason = closure.reason;
  if (centre && !closure.closed) {
    throw MeshError(path + ": not closed (" + closure.reason +
                    "): a body of it has no volume to weigh; give the body "
                    "a mass and inertia instead of a density");
  }
  ScaleMesh(&mesh, scale);
  shape->mesh_vertices = static_cast<int>(mesh.vertices.size());
  shape->mesh_triangles = static_cast<int>(mesh.triangles.size());

  if (closure.closed) {
    const MeshVolumeProperties properties = ComputeVolumeProperties(mesh);
    shape->volume = properties.volume;
    shape->centroid = properties.centroid;
    shape->unit_inertia = properties.unit_inertia;
  }
  if (centre) {
    shape->offset = -shape->centroid;
    for (Vector3& v : mesh.vertices) v += shape->offset;
    shape->centroid.setZero();
  }
  try {
    shape->hull = BuildConvexHull(mesh.vertices, path);
  } catch (const MeshError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw MeshError(e.what());  // begins with the path
  }
  // Only a closed mesh has a volume to compare: an open one is reported as
  // not convex (unknown).
  shape->convex =
      shape->closed && shape->volume >= (1.0 - 1e-6) * shape->hull.volume;
  return shape;
}

}  // namespace sapcontact
