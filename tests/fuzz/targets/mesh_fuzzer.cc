// Fuzz target: the mesh readers (binary and ASCII STL: our reader; OBJ and
// Collada: assimp) and the mesh shape built from what they read (welding,
// convex hull with qhull, volume and inertia).
//
// Input: the first byte's low two bits choose the format (0 and 1 STL,
// read as binary or ASCII by its size rule; 2 OBJ; 3 Collada DAE); the rest
// is the file. Limits: 1 MiB, 20000 triangles, 20000 vertices.
// Rules:
//   - LoadMeshShape returns a shape or throws MeshError naming the file;
//     no other exception, crash or leak;
//   - a shape's hull has finite vertices, face normals and offsets, a
//     finite positive volume, and every face index points into its
//     vertices; a closed mesh has a finite positive volume, an open one
//     volume 0 and the reason it is open; centroid and inertia are finite.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sapcontact/geometry/mesh_shape.h"
#include "tests/fuzz/targets/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  if (size == 0) return 0;
  static const char* kExtensions[] = {".stl", ".stl", ".obj", ".dae"};
  static const std::string dir = fuzz::ProcessTempDir("mesh_fuzzer");
  const std::string path = dir + "/mesh" + kExtensions[data[0] & 3];
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data + 1),
            static_cast<std::streamsize>(size - 1));
  }
  MeshLimits limits;
  limits.max_file_bytes = 1u << 20;
  limits.max_triangles = 20000;
  limits.max_vertices = 20000;
  std::shared_ptr<const MeshShape> mesh;
  try {
    mesh = LoadMeshShape(path, "fuzz" + std::string(kExtensions[data[0] & 3]),
                         Vector3::Ones(), (data[0] & 4) != 0, limits);
  } catch (const MeshError&) {
    return 0;
  }
  const ConvexHull& hull = mesh->hull;
  for (const Vector3& v : hull.vertices) {
    SAPCONTACT_FUZZ_CHECK(fuzz::AllFinite(v), "non-finite hull vertex");
  }
  for (const ConvexHull::Face& f : hull.faces) {
    SAPCONTACT_FUZZ_CHECK(fuzz::AllFinite(f.normal) && std::isfinite(f.offset),
                          "non-finite hull face");
    for (int i : f.vertices) {
      SAPCONTACT_FUZZ_CHECK(
          i >= 0 && i < static_cast<int>(hull.vertices.size()),
          "hull face index out of range");
    }
  }
  SAPCONTACT_FUZZ_CHECK(std::isfinite(hull.volume) && hull.volume > 0.0,
                        "a hull without a finite positive volume");
  SAPCONTACT_FUZZ_CHECK(
      mesh->closed ? std::isfinite(mesh->volume) && mesh->volume > 0.0
                   : mesh->volume == 0.0 && !mesh->not_closed_reason.empty(),
      "a closed mesh without a positive volume, or an open one without the "
      "reason");
  SAPCONTACT_FUZZ_CHECK(
      fuzz::AllFinite(mesh->centroid) && fuzz::AllFinite(mesh->unit_inertia),
      "non-finite mass properties");
  return 0;
}
