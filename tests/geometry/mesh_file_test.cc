// ReadMeshFile: binary and ASCII STL written by the test, OBJ and Collada
// through assimp (same volume as the equivalent STL; Collada coordinates as
// in the file: no <unit> scale, no up-axis rotation; node transforms
// applied), every bad-input case with its message, limits, and that assimp
// prints nothing.
#include "sapcontact/geometry/mesh_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::AsciiStl;
using geometry_test::BinaryStl;
using geometry_test::BoxTriangles;
using geometry_test::Collada;
using geometry_test::GridBoxTriangles;
using geometry_test::Obj;
using geometry_test::TempDir;
using geometry_test::Triangle;
using geometry_test::WriteBytes;

const Vector3 kLo(-0.1, 0.25, 0.5), kHi(0.3, 0.5, 1.0);

// The message ReadMeshFile throws for `path`, or "no error".
std::string Error(const std::string& path, const MeshLimits& limits = {}) {
  try {
    ReadMeshFile(path, limits);
  } catch (const MeshError& e) {
    return e.what();
  }
  return "no error";
}

using geometry_test::Contains;

double Volume(const TriangleMesh& mesh) {
  return ComputeVolumeProperties(mesh).volume;
}

Vector3 Lower(const TriangleMesh& mesh) {
  Vector3 lo = mesh.vertices[0];
  for (const Vector3& v : mesh.vertices) lo = lo.cwiseMin(v);
  return lo;
}

Vector3 Upper(const TriangleMesh& mesh) {
  Vector3 hi = mesh.vertices[0];
  for (const Vector3& v : mesh.vertices) hi = hi.cwiseMax(v);
  return hi;
}

TEST(MeshFile, BinaryAndAsciiStl) {
  TempDir dir;
  const std::vector<Triangle> box = GridBoxTriangles(kLo, kHi, 3);
  const double volume = (kHi - kLo).prod();
  WriteBytes(dir.File("box.stl"), BinaryStl(box));
  // A binary STL whose header starts with "solid" (as many exporters
  // write): the size rule decides.
  WriteBytes(dir.File("solid_header.STL"), BinaryStl(box, "solid box"));
  WriteBytes(dir.File("ascii.stl"), AsciiStl(box));
  // Upper-case keywords and two solids in one file.
  std::string two = AsciiStl({box.begin(), box.begin() + 50}, "first") +
                    AsciiStl({box.begin() + 50, box.end()}, "second");
  WriteBytes(dir.File("two.stl"), two);
  std::string upper = AsciiStl(box);
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  WriteBytes(dir.File("upper.stl"), upper);

  struct Case {
    const char* name;
    MeshFileFormat format;
  };
  for (const Case& c : {Case{"box.stl", MeshFileFormat::kBinaryStl},
                        Case{"solid_header.STL", MeshFileFormat::kBinaryStl},
                        Case{"ascii.stl", MeshFileFormat::kAsciiStl},
                        Case{"two.stl", MeshFileFormat::kAsciiStl},
                        Case{"upper.stl", MeshFileFormat::kAsciiStl}}) {
    SCOPED_TRACE(c.name);
    MeshFileReport report;
    const TriangleMesh mesh = ReadMeshFile(dir.File(c.name), {}, &report);
    EXPECT_EQ(report.format, c.format);
    EXPECT_EQ(report.file_triangles, static_cast<int>(box.size()));
    EXPECT_EQ(report.file_bytes, std::filesystem::file_size(dir.File(c.name)));
    // A 3 x 3 grid per face: 6 * 16 - 12 * 2 - 8 * 2 = 56 distinct points.
    EXPECT_EQ(mesh.vertices.size(), 56u);
    EXPECT_EQ(mesh.triangles.size(), box.size());
    EXPECT_EQ(report.weld.merged_vertices, 3 * 108 - 56);
    EXPECT_EQ(report.weld.degenerate_triangles, 0);
    EXPECT_TRUE(CheckClosed(mesh).closed) << CheckClosed(mesh).reason;
    // Single precision in the file (binary) or 9 digits (ASCII).
    EXPECT_NEAR(Volume(mesh), volume, 1e-7 * volume);
    EXPECT_NEAR((Lower(mesh) - kLo).norm(), 0.0, 1e-7);
    EXPECT_NEAR((Upper(mesh) - kHi).norm(), 0.0, 1e-7);
  }
}

TEST(MeshFile, BinaryStlErrors) {
  TempDir dir;
  const std::string good = BinaryStl(BoxTriangles(kLo, kHi));  // 684 bytes
  ASSERT_EQ(good.size(), 84u + 50u * 12u);

  WriteBytes(dir.File("truncated.stl"), good.substr(0, good.size() - 10));
  const std::string truncated = Error(dir.File("truncated.stl"));
  EXPECT_TRUE(Contains(truncated,
                       "truncated.stl: triangle count n = 12 (bytes 80-83 of "
                       "the binary STL) disagrees with the file size 674 "
                       "bytes: 84 + 50 n = 684 (truncated?)"))
      << truncated;

  std::string wrong_count = good;
  wrong_count[80] = 13;
  WriteBytes(dir.File("count.stl"), wrong_count);
  const std::string count = Error(dir.File("count.stl"));
  EXPECT_TRUE(Contains(count, "triangle count n = 13")) << count;
  EXPECT_TRUE(Contains(count, "84 + 50 n = 734 (truncated?)")) << count;
  const std::string solid = BinaryStl(BoxTriangles(kLo, kHi), "solid box");
  WriteBytes(dir.File("solid.stl"), solid.substr(0, solid.size() - 50));
  const std::string solid_message = Error(dir.File("solid.stl"));
  EXPECT_TRUE(Contains(solid_message,
                       "triangle count n = 12 (bytes 80-83 of the binary STL) "
                       "disagrees with the file size 634 bytes: 84 + 50 n = "
                       "684 (truncated?); it starts with 'solid' but holds "
                       "binary data, so it is no ASCII STL"))
      << solid_message;
  WriteBytes(dir.File("trailing.stl"), good + "xy");
  EXPECT_TRUE(Contains(Error(dir.File("trailing.stl")), "(trailing bytes?)"));

  WriteBytes(dir.File("short.stl"), good.substr(0, 50));
  EXPECT_TRUE(
      Contains(Error(dir.File("short.stl")), "truncated binary STL: 50 bytes"))
      << Error(dir.File("short.stl"));

  WriteBytes(dir.File("empty.stl"), "");
  EXPECT_EQ(Error(dir.File("empty.stl")),
            dir.File("empty.stl") + ": the file is empty");

  WriteBytes(dir.File("none.stl"), BinaryStl({}));
  EXPECT_TRUE(Contains(Error(dir.File("none.stl")),
                       "the binary STL holds no triangles"));

  // A NaN and an infinite coordinate: vertex 2 of triangle 4.
  for (double bad : {std::nan(""), HUGE_VAL}) {
    std::vector<Triangle> box = BoxTriangles(kLo, kHi);
    box[3][1].y() = bad;
    WriteBytes(dir.File("nan.stl"), BinaryStl(box));
    const std::string nan = Error(dir.File("nan.stl"));
    EXPECT_TRUE(
        Contains(nan, "nan.stl: vertex 2 of triangle 4 is not finite ("))
        << nan;
  }

  // Triangles that all have zero area.
  WriteBytes(
      dir.File("flat.stl"),
      BinaryStl({{Vector3(0, 0, 0), Vector3(1, 0, 0), Vector3(2, 0, 0)},
                 {Vector3(0, 0, 0), Vector3(0, 0, 0), Vector3(1, 1, 1)}}));
  EXPECT_TRUE(
      Contains(Error(dir.File("flat.stl")), "all 2 triangles have zero area"));
}

TEST(MeshFile, AsciiStlErrors) {
  TempDir dir;
  const std::string good = AsciiStl(BoxTriangles(kLo, kHi));
  // Line 1 "solid test", then 7 lines per facet: facet, outer loop, three
  // vertices, endloop, endfacet. Triangle t's vertex k (both from 1) is on
  // line 1 + 7 (t - 1) + 2 + k.
  auto replace_line = [&](int line, const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < good.size()) {
      const std::size_t end = good.find('\n', start);
      lines.push_back(good.substr(start, end - start));
      start = end + 1;
    }
    lines[line - 1] = text;
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  };
  struct Case {
    const char* name;
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"number.stl", replace_line(1 + 7 * 3 + 2 + 2, "vertex 0.1 1.0.0 2"),
       "number.stl: line 26: '1.0.0' is not a number (vertex 2 of triangle "
       "4)"},
      {"nan.stl", replace_line(1 + 7 * 1 + 2 + 3, "  vertex 0.1 0.2 nan"),
       "nan.stl: line 13: vertex 3 of triangle 2 is not finite (0.1, 0.2, "
       "nan)"},
      {"inf.stl", replace_line(1 + 2 + 1, "vertex -inf 0 0"),
       "inf.stl: line 4: vertex 1 of triangle 1 is not finite (-inf, 0, 0)"},
      {"four.stl", replace_line(1 + 7 * 2 + 6, "vertex 1 2 3"),
       "four.stl: line 21: expected 'endloop' after the 3 vertices of a "
       "facet, found 'vertex'"},
      {"keyword.stl", replace_line(1 + 7 * 5 + 1, "facet normals 0 0 1"),
       "keyword.stl: line 37: expected 'normal' after 'facet', found "
       "'normals'"},
      {"cut.stl", good.substr(0, good.find("endloop", 300)),
       "the file ends after the 3 vertices of a facet (truncated?)"},
      {"cut2.stl", good.substr(0, good.find("vertex", 300) + 10),
       "the file ends inside a facet (truncated?)"},
      {"noend.stl", good.substr(0, good.rfind("endsolid")),
       "the file ends without 'endsolid' (truncated?)"},
      {"after.stl", good + "garbage\n",
       "expected 'solid' or the end of the file after 'endsolid', found "
       "'garbage'"},
      {"nosolid.stl", "solid\nendsolid\n", "the ASCII STL holds no triangles"},
  };
  for (const Case& c : cases) {
    WriteBytes(dir.File(c.name), c.text);
    const std::string message = Error(dir.File(c.name));
    EXPECT_TRUE(Contains(message, c.message))
        << c.name << ": " << message << "\n  expected: " << c.message;
  }
}

TEST(MeshFile, FilesAndLimits) {
  TempDir dir;
  const std::vector<Triangle> box = GridBoxTriangles(kLo, kHi, 4);  // 192
  WriteBytes(dir.File("box.stl"), BinaryStl(box));
  WriteBytes(dir.File("ascii.stl"), AsciiStl(box));
  WriteBytes(dir.File("box.obj"), geometry_test::Obj(box));

  const std::string missing = Error(dir.File("missing.stl"));
  EXPECT_EQ(missing, dir.File("missing.stl") +
                         ": cannot open the mesh file: No such file or "
                         "directory");
  std::filesystem::create_directory(dir.File("meshes.stl"));
  EXPECT_EQ(Error(dir.File("meshes.stl")),
            dir.File("meshes.stl") + ": is a directory, not a mesh file");
  WriteBytes(dir.File("box.ply"), "ply\n");
  EXPECT_EQ(Error(dir.File("box.ply")),
            dir.File("box.ply") +
                ": unknown mesh format '.ply': reads .stl (binary or ASCII), "
                ".obj (Wavefront) and .dae (Collada)");
  WriteBytes(dir.File("box"), "x");
  EXPECT_TRUE(Contains(Error(dir.File("box")), "(no extension)"));
  if (geteuid() != 0) {  // root reads anything
    WriteBytes(dir.File("secret.stl"), BinaryStl(box));
    std::filesystem::permissions(dir.File("secret.stl"),
                                 std::filesystem::perms::none);
    EXPECT_EQ(Error(dir.File("secret.stl")),
              dir.File("secret.stl") +
                  ": cannot open the mesh file: Permission denied");
  }

  MeshLimits bytes;
  bytes.max_file_bytes = 1000;
  EXPECT_TRUE(Contains(Error(dir.File("box.stl"), bytes),
                       "box.stl: the file has 9684 bytes, more than the "
                       "limit of 1000 (MeshLimits::max_file_bytes)"))
      << Error(dir.File("box.stl"), bytes);
  MeshLimits triangles;
  triangles.max_triangles = 191;
  for (const char* name : {"box.stl", "ascii.stl", "box.obj"}) {
    EXPECT_TRUE(Contains(Error(dir.File(name), triangles),
                         "triangles, more than the limit of 191 "
                         "(MeshLimits::max_triangles)"))
        << Error(dir.File(name), triangles);
  }
  // A binary STL claiming 10^9 triangles in 284 bytes is rejected by the
  // size rule, without allocating.
  std::string huge = BinaryStl(box);
  huge[80] = 0;
  huge[81] = char(0xCA);
  huge[82] = char(0x9A);
  huge[83] = char(0x3B);  // 0x3B9ACA00 = 10^9
  std::string huge_file = huge.substr(0, 84);
  huge_file.resize(84 + 50 * 4, '\0');
  WriteBytes(dir.File("huge.stl"), huge_file);
  const std::string huge_message = Error(dir.File("huge.stl"));
  EXPECT_TRUE(Contains(huge_message, "triangle count n = 1000000000"))
      << huge_message;
  MeshLimits vertices;
  vertices.max_vertices = 97;  // the grid box has 98
  EXPECT_TRUE(Contains(Error(dir.File("box.stl"), vertices),
                       "the mesh has 98 distinct vertices, more than the "
                       "limit of 97 (MeshLimits::max_vertices)"))
      << Error(dir.File("box.stl"), vertices);
  EXPECT_EQ(Error(dir.File("box.stl")), "no error");
}

// An OBJ cube and a Collada cube read back with the volume of the STL.
TEST(MeshFile, ObjAndColladaMatchStl) {
  TempDir dir;
  const std::vector<Triangle> box = GridBoxTriangles(kLo, kHi, 2);
  WriteBytes(dir.File("box.stl"), BinaryStl(box));
  WriteBytes(dir.File("box.obj"), Obj(box));
  WriteBytes(dir.File("box.dae"), Collada(box, 1.0, "Y_UP"));
  // OBJ with quads (triangulated by assimp) and a comment-only tail.
  WriteBytes(dir.File("quads.obj"),
             "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
             "v 0 0 2\nv 1 0 2\nv 1 1 2\nv 0 1 2\n"
             "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\n"
             "f 4 1 5 8\n# end\n");
  const TriangleMesh stl = ReadMeshFile(dir.File("box.stl"));
  const double volume = (kHi - kLo).prod();
  for (const char* name : {"box.obj", "box.dae"}) {
    SCOPED_TRACE(name);
    MeshFileReport report;
    const TriangleMesh mesh = ReadMeshFile(dir.File(name), {}, &report);
    EXPECT_EQ(report.format, std::string(name) == "box.obj"
                                 ? MeshFileFormat::kObj
                                 : MeshFileFormat::kCollada);
    EXPECT_EQ(mesh.vertices.size(), stl.vertices.size());
    EXPECT_EQ(mesh.triangles.size(), stl.triangles.size());
    EXPECT_TRUE(CheckClosed(mesh).closed) << CheckClosed(mesh).reason;
    EXPECT_NEAR(Volume(mesh), Volume(stl), 1e-7 * volume);
    EXPECT_NEAR(Volume(mesh), volume, 1e-7 * volume);
    EXPECT_NEAR((Lower(mesh) - kLo).norm(), 0.0, 1e-7);
  }
  const TriangleMesh quads = ReadMeshFile(dir.File("quads.obj"));
  EXPECT_EQ(quads.triangles.size(), 12u);
  EXPECT_TRUE(CheckClosed(quads).closed) << CheckClosed(quads).reason;
  EXPECT_NEAR(Volume(quads), 2.0, 1e-15);
}

// Collada coordinates are used as written: a file in millimetres with
// Z up reads back unscaled and unrotated; a node's matrix (translation,
// mirror) is applied.
TEST(MeshFile, ColladaUnitAndUpAxisIgnoredNodeTransformApplied) {
  TempDir dir;
  const std::vector<Triangle> box = BoxTriangles(kLo, kHi);
  const double volume = (kHi - kLo).prod();
  for (const char* up : {"Z_UP", "X_UP", "Y_UP"}) {
    WriteBytes(dir.File("mm.dae"), Collada(box, 0.001, up));
    const TriangleMesh mesh = ReadMeshFile(dir.File("mm.dae"));
    EXPECT_NEAR((Lower(mesh) - kLo).norm(), 0.0, 1e-7) << up;
    EXPECT_NEAR((Upper(mesh) - kHi).norm(), 0.0, 1e-7) << up;
    EXPECT_NEAR(Volume(mesh), volume, 1e-7 * volume) << up;
  }
  Eigen::Matrix4d node = Eigen::Matrix4d::Identity();
  node(0, 0) = -1;  // mirror x
  node.topRightCorner<3, 1>() = Vector3(1, 2, 3);
  WriteBytes(dir.File("node.dae"), Collada(box, 1.0, "Z_UP", node));
  const TriangleMesh moved = ReadMeshFile(dir.File("node.dae"));
  EXPECT_NEAR(
      (Lower(moved) - Vector3(1 - kHi.x(), 2 + kLo.y(), 3 + kLo.z())).norm(),
      0.0, 1e-7);
  const MeshClosure closure = CheckClosed(moved);
  EXPECT_TRUE(closure.closed) << closure.reason;  // winding reversed
  EXPECT_NEAR(Volume(moved), volume, 1e-7 * volume);
}

TEST(MeshFile, AssimpErrorsAndSilence) {
  TempDir dir;
  WriteBytes(dir.File("bad.dae"), "<COLLADA><library_geometries>");
  WriteBytes(dir.File("text.dae"), "this is not XML at all\n");
  WriteBytes(dir.File("lines.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\n");
  WriteBytes(dir.File("nan.obj"),
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 nan\n"
             "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const std::string bad = Error(dir.File("bad.dae"));
  const std::string text = Error(dir.File("text.dae"));
  const std::string lines = Error(dir.File("lines.obj"));
  const std::string nan = Error(dir.File("nan.obj"));
  WriteBytes(dir.File("ok.dae"), Collada(BoxTriangles(kLo, kHi)));
  const std::string ok = Error(dir.File("ok.dae"));
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
  EXPECT_TRUE(Contains(bad, "bad.dae: assimp cannot read the Collada file: "))
      << bad;
  EXPECT_TRUE(Contains(text, "text.dae: assimp cannot read the Collada file"))
      << text;
  EXPECT_TRUE(Contains(lines, "lines.obj: ")) << lines;
  EXPECT_TRUE(Contains(lines, "no triangles")) << lines;
  // assimp's OBJ parser reads "nan" as a number; the reader rejects it.
  EXPECT_TRUE(Contains(nan, "nan.obj: ")) << nan;
  EXPECT_TRUE(Contains(nan, "is not finite")) << nan;
  EXPECT_EQ(ok, "no error");
}

// The WAM meshes of dart-doc: the Collada files and the matching STL files
// describe the same links in the same coordinates (Y_UP, meter 1: read as
// written). wam_base has the same triangles in both.
TEST(MeshFile, WamColladaAgreesWithStl) {
  const std::string dir = "/usr/share/doc/dart/data/urdf/wam/meshes/wam/";
  if (!std::filesystem::exists(dir + "wam_base.dae")) {
    GTEST_SKIP() << "dart-doc is not installed (" << dir
                 << "): apt-get install dart-doc";
  }
  for (const char* name :
       {"wam_base", "wam1", "wam2", "wam3", "wam4", "wam5", "wam6", "wam7"}) {
    MeshFileReport dae_report, stl_report;
    const TriangleMesh dae = ReadMeshFile(dir + name + ".dae", {}, &dae_report);
    const TriangleMesh stl = ReadMeshFile(dir + name + ".STL", {}, &stl_report);
    const double extent = (Upper(stl) - Lower(stl)).norm();
    std::printf(
        "%-9s dae %5d triangles bounds (%.4f %.4f %.4f)-(%.4f %.4f %.4f) | "
        "stl %5d triangles (%.4f %.4f %.4f)-(%.4f %.4f %.4f)\n",
        name, dae_report.file_triangles, Lower(dae).x(), Lower(dae).y(),
        Lower(dae).z(), Upper(dae).x(), Upper(dae).y(), Upper(dae).z(),
        stl_report.file_triangles, Lower(stl).x(), Lower(stl).y(),
        Lower(stl).z(), Upper(stl).x(), Upper(stl).y(), Upper(stl).z());
    // Same place and size up to the models' differences in detail (the
    // Collada files are coarser: wam7's reaches 12 mm less far, 25 % of
    // its extent); a unit scale (x 0.001 ... 1000) or an up-axis rotation
    // (y and z swapped) would move them by far more.
    EXPECT_LT((Lower(dae) - Lower(stl)).cwiseAbs().maxCoeff(), 0.25 * extent)
        << name;
    EXPECT_LT((Upper(dae) - Upper(stl)).cwiseAbs().maxCoeff(), 0.25 * extent)
        << name;
    if (std::string(name) == "wam_base") {
      EXPECT_EQ(dae.triangles.size(), stl.triangles.size());
      EXPECT_EQ(dae.vertices.size(), stl.vertices.size());
      EXPECT_NEAR((Lower(dae) - Lower(stl)).norm(), 0.0, 1e-6);
      EXPECT_NEAR((Upper(dae) - Upper(stl)).norm(), 0.0, 1e-6);
    }
  }
}

}  // namespace
}  // namespace sapcontact
