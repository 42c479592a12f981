#include "sapcontact/geometry/mesh_shape.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sapcontact/geometry/mesh_file.h"
#include "sapcontact/geometry/triangle_mesh.h"

namespace sapcontact {
namespace {

// Whether every triangle lies in the hull's boundary: on the supporting
// plane along its normal (either orientation: open meshes may be oriented
// inconsistently), within 4 kHullMergeTolerance of the largest coordinate:
// qhull's merging of nearly coplanar facets leaves input points up to about
// twice its merge distance inside the merged face (the WAM's wam7 mesh:
// 1.08e-6). Degenerate (zero-area) triangles have no normal and are
// skipped.
bool OnHullBoundary(const TriangleMesh& mesh, const ConvexHull& hull) {
  const double scale = std::max(hull.lower.cwiseAbs().maxCoeff(),
                                hull.upper.cwiseAbs().maxCoeff());
  const double tolerance = 4.0 * kHullMergeTolerance * scale;
  int start = -1;
  for (const std::array<int, 3>& t : mesh.triangles) {
    const Vector3& a = mesh.vertices[t[0]];
    const Vector3 n = (mesh.vertices[t[1]] - a).cross(mesh.vertices[t[2]] - a);
    const double length = n.norm();
    if (!(length > 0.0)) continue;
    bool on_boundary = false;
    for (const double sign : {1.0, -1.0}) {
      const Vector3 u = (sign / length) * n;
      start = hull.Support(u, start);
      if (u.dot(hull.vertices[start]) - u.dot(a) <= tolerance) {
        on_boundary = true;
        break;
      }
    }
    if (!on_boundary) return false;
  }
  return true;
}

}  // namespace

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
                    "): a body of it has no volume to weigh");
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
  shape->convex = OnHullBoundary(mesh, shape->hull);
  return shape;
}

std::string HullApproximation(const MeshShape& mesh) {
  if (mesh.convex) return "";
  std::ostringstream what;
  what.precision(4);
  what << "mesh '" << mesh.file << "' is not convex ";
  if (mesh.closed) {
    what << "(mesh volume " << mesh.volume << " m^3, its hull's "
         << mesh.hull.volume << " m^3)";
  } else {
    what << "and not closed (" << mesh.not_closed_reason << ")";
  }
  what << ": it collides as its convex hull";
  return what.str();
}

}  // namespace sapcontact
