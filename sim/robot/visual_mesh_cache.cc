#include "sapcontact/sim/robot/visual_mesh_cache.h"

#include <sstream>

#include "sapcontact/geometry/mesh_file.h"

namespace sapcontact {

std::shared_ptr<const TriangleMesh> VisualMeshCache::Get(
    const std::string& path, const Vector3& scale) {
  std::ostringstream key;
  key.precision(17);
  key << scale.transpose();
  const auto k = std::make_pair(path, key.str());
  if (auto it = meshes_.find(k); it != meshes_.end()) return it->second;
  auto read = std::make_shared<TriangleMesh>(ReadMeshFile(path, limits_));
  ScaleMesh(read.get(), scale);
  return meshes_[k] = std::move(read);
}

}  // namespace sapcontact
