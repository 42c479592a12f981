// Reading mesh files into a welded TriangleMesh: binary and ASCII STL (our
// own reader: exact size and syntax checks with line numbers), Wavefront
// OBJ and Collada DAE (Debian's assimp 5.2.5, post-processing limited to
// triangulation). Coordinates are returned as they are in the file, in the
// file's units (no unit conversion and no up-axis rotation: the URDF/ROS
// convention, where a mesh is scaled by the URDF `scale` attribute only).
//
// Collada: assimp 5.2.5 keeps the vertex data as written and puts the
// <unit meter="..."> scale and the <up_axis> rotation (Z_UP and X_UP are
// turned to assimp's Y_UP) into the root node's transform; this reader
// ignores the root node's transform and applies the transforms of the
// <node>s below it (<matrix>, <translate>, <rotate>, ...), which place the
// geometry within the file. Checked on the WAM meshes of dart-doc
// (/usr/share/doc/dart/data/urdf/wam/meshes/wam/*.dae, Y_UP, meter 1):
// their coordinates coincide with the matching STL files'.
#pragma once

#include <string>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/triangle_mesh.h"

namespace sapcontact {

enum class MeshFileFormat { kBinaryStl, kAsciiStl, kObj, kCollada };

/// "binary STL", "ASCII STL", "OBJ", "Collada".
const char* MeshFileFormatName(MeshFileFormat format);

/// What ReadMeshFile found.
struct MeshFileReport {
  MeshFileFormat format{MeshFileFormat::kBinaryStl};
  /// Bytes of the file and triangles it holds (after triangulation of
  /// polygons for OBJ and Collada; points and lines are skipped).
  std::size_t file_bytes{0};
  int file_triangles{0};
  /// Welding of the triangles into the returned mesh.
  WeldReport weld;
};

/// Reads the mesh file at `path`; the format comes from the extension
/// (case-insensitive): .stl (binary or ASCII: a file whose size is
/// 84 + 50 n for the count n in bytes 80-83 is binary even when it starts
/// with "solid"), .obj, .dae. Returns the welded mesh (WeldMesh).
/// @throws MeshError whose message is "<path>: <reason>": missing or
/// unreadable file (the system's reason), a directory or other non-regular
/// file, an unknown extension, a file larger than limits.max_file_bytes
/// (checked before reading), an empty or truncated file, a binary STL whose
/// triangle count disagrees with its size, a triangle count above
/// limits.max_triangles (a binary STL's from its header, before
/// allocating), more than limits.max_vertices distinct vertices, an ASCII
/// STL syntax error or bad number (with its line number), a non-finite
/// coordinate (naming the triangle or vertex), assimp's reason for OBJ and
/// Collada files it cannot read, or no triangles at all.
TriangleMesh ReadMeshFile(const std::string& path,
                          const MeshLimits& limits = {},
                          MeshFileReport* report = nullptr);

}  // namespace sapcontact
