#include "sapcontact/geometry/mesh_file.h"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <sys/stat.h>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string_view>
#include <system_error>

namespace sapcontact {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& reason) {
  throw MeshError(path + ": " + reason);
}

std::string Describe(const Vector3& p) {
  std::ostringstream os;
  os.precision(9);
  os << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
  return os.str();
}

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

// Opens `path` for reading and checks it is a regular file within the
// byte limit; returns the open file and its size.
std::unique_ptr<FILE, FileCloser> OpenChecked(const std::string& path,
                                              const MeshLimits& limits,
                                              std::size_t* bytes) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    Fail(path, "cannot open the mesh file: " +
                   std::error_code(errno, std::generic_category()).message());
  }
  struct stat st {};
  if (fstat(fileno(file.get()), &st) != 0) {
    Fail(path, "cannot read the mesh file's size: " +
                   std::error_code(errno, std::generic_category()).message());
  }
  if (S_ISDIR(st.st_mode)) Fail(path, "is a directory, not a mesh file");
  if (!S_ISREG(st.st_mode)) Fail(path, "is not a regular file");
  *bytes = static_cast<std::size_t>(st.st_size);
  if (*bytes > limits.max_file_bytes) {
    Fail(path, "the file has " + std::to_string(*bytes) +
                   " bytes, more than the limit of " +
                   std::to_string(limits.max_file_bytes) +
                   " (MeshLimits::max_file_bytes)");
  }
  if (*bytes == 0) Fail(path, "the file is empty");
  return file;
}

std::string ReadAll(const std::string& path, FILE* file, std::size_t bytes) {
  std::string data(bytes, '\0');
  const std::size_t got = std::fread(data.data(), 1, bytes, file);
  if (got != bytes) {
    Fail(path,
         std::ferror(file)
             ? "cannot read the mesh file: " +
                   std::error_code(errno, std::generic_category()).message()
             : "the file shrank while it was read (" + std::to_string(got) +
                   " of " + std::to_string(bytes) + " bytes)");
  }
  return data;
}

void CheckTriangleLimit(const std::string& path, std::size_t triangles,
                        const MeshLimits& limits) {
  if (triangles > limits.max_triangles) {
    Fail(path, "the file holds " + std::to_string(triangles) +
                   " triangles, more than the limit of " +
                   std::to_string(limits.max_triangles) +
                   " (MeshLimits::max_triangles)");
  }
}

// ------------------------------------------------------------ binary STL --

std::uint32_t LittleEndian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(u[0]) |
         (static_cast<std::uint32_t>(u[1]) << 8) |
         (static_cast<std::uint32_t>(u[2]) << 16) |
         (static_cast<std::uint32_t>(u[3]) << 24);
}

float LittleEndianFloat(const char* p) {
  const std::uint32_t bits = LittleEndian32(p);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Binary STL: 80-byte header, uint32 triangle count n, then per triangle
// 12 float32 (normal, three vertices) and a uint16 attribute: 50 bytes.
TriangleMesh ParseBinaryStl(const std::string& path, const std::string& data,
                            const MeshLimits& limits) {
  const std::size_t n = LittleEndian32(data.data() + 80);
  CheckTriangleLimit(path, n, limits);
  if (n == 0) Fail(path, "the binary STL holds no triangles");
  TriangleMesh mesh;
  mesh.vertices.reserve(3 * n);
  mesh.triangles.reserve(n);
  for (std::size_t t = 0; t < n; ++t) {
    const char* record = data.data() + 84 + 50 * t;
    for (int k = 0; k < 3; ++k) {
      const char* v = record + 12 + 12 * k;
      const Vector3 p(LittleEndianFloat(v), LittleEndianFloat(v + 4),
                      LittleEndianFloat(v + 8));
      if (!p.allFinite()) {
        Fail(path, "vertex " + std::to_string(k + 1) + " of triangle " +
                       std::to_string(t + 1) + " is not finite " + Describe(p));
      }
      mesh.vertices.push_back(p);
    }
    const int first = static_cast<int>(3 * t);
    mesh.triangles.push_back({first, first + 1, first + 2});
  }
  return mesh;
}

// ------------------------------------------------------------- ASCII STL --

// Whitespace-separated tokens with line numbers.
class Tokens {
 public:
  explicit Tokens(const std::string& text) : text_(text) {}

  // The next token, empty at the end of the text.
  std::string_view Next() {
    while (pos_ < text_.size() && std::isspace(Byte(pos_))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    token_line_ = line_;
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !std::isspace(Byte(pos_))) ++pos_;
    return std::string_view(text_).substr(begin, pos_ - begin);
  }

  // Skips the rest of the current line (a solid's name).
  void SkipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  // Line of the token Next() returned last (from 1).
  int line() const { return token_line_; }

 private:
  unsigned char Byte(std::size_t i) const {
    return static_cast<unsigned char>(text_[i]);
  }
  const std::string& text_;
  std::size_t pos_{0};
  int line_{1};
  int token_line_{1};
};

bool Is(std::string_view token, const char* keyword) {
  const std::size_t n = std::strlen(keyword);
  if (token.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(token[i])) != keyword[i]) {
      return false;
    }
  }
  return true;
}

std::string Quoted(std::string_view token) {
  if (token.empty()) return "the end of the file";
  std::string s(token.substr(0, 40));
  return "'" + s + (token.size() > 40 ? "...'" : "'");
}

TriangleMesh ParseAsciiStl(const std::string& path, const std::string& text,
                           const MeshLimits& limits) {
  Tokens tokens(text);
  auto fail_at = [&](const std::string& what) -> void {
    Fail(path, "line " + std::to_string(tokens.line()) + ": " + what);
  };
  auto expect = [&](const char* keyword, const char* where) {
    const std::string_view token = tokens.Next();
    if (!Is(token, keyword)) {
      if (token.empty()) {
        fail_at(std::string("the file ends ") + where + " (truncated?)");
      }
      fail_at(std::string("expected '") + keyword + "' " + where + ", found " +
              Quoted(token));
    }
  };
  auto number = [&](const std::string& what) {
    std::string_view token = tokens.Next();
    if (token.empty()) fail_at("the file ends inside a facet (truncated?)");
    std::string_view digits = token;
    if (digits.size() > 1 && digits[0] == '+') digits.remove_prefix(1);
    double value = 0.0;
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      fail_at(Quoted(token) + " is not a number (" + what + ")");
    }
    return value;
  };

  TriangleMesh mesh;
  std::string_view token = tokens.Next();
  if (!Is(token, "solid")) {
    fail_at("an ASCII STL starts with 'solid', found " + Quoted(token));
  }
  tokens.SkipLine();
  std::size_t triangle = 0;
  for (;;) {
    token = tokens.Next();
    if (token.empty()) {
      fail_at("the file ends without 'endsolid' (truncated?)");
    }
    if (Is(token, "endsolid")) {
      tokens.SkipLine();
      token = tokens.Next();
      if (token.empty()) break;
      if (!Is(token, "solid")) {
        fail_at(
            "expected 'solid' or the end of the file after 'endsolid', "
            "found " +
            Quoted(token));
      }
      tokens.SkipLine();
      continue;
    }
    if (!Is(token, "facet")) {
      fail_at("expected 'facet' or 'endsolid', found " + Quoted(token));
    }
    ++triangle;
    CheckTriangleLimit(path, triangle, limits);
    const std::string name = "triangle " + std::to_string(triangle);
    expect("normal", "after 'facet'");
    for (int k = 0; k < 3; ++k) number("normal of " + name);
    expect("outer", "after the facet normal");
    expect("loop", "after 'outer'");
    const int first = static_cast<int>(mesh.vertices.size());
    for (int k = 0; k < 3; ++k) {
      expect("vertex", "inside the loop of a facet (3 vertices)");
      const std::string what =
          "vertex " + std::to_string(k + 1) + " of " + name;
      const int line = tokens.line();
      Vector3 p;
      for (int c = 0; c < 3; ++c) p[c] = number(what);
      if (!p.allFinite()) {
        Fail(path, "line " + std::to_string(line) + ": " + what +
                       " is not finite " + Describe(p));
      }
      mesh.vertices.push_back(p);
    }
    mesh.triangles.push_back({first, first + 1, first + 2});
    expect("endloop", "after the 3 vertices of a facet");
    expect("endfacet", "after 'endloop'");
  }
  if (mesh.triangles.empty()) Fail(path, "the ASCII STL holds no triangles");
  return mesh;
}

TriangleMesh ReadStl(const std::string& path, FILE* file, std::size_t bytes,
                     const MeshLimits& limits, MeshFileFormat* format) {
  const std::string data = ReadAll(path, file, bytes);
  // Binary when the size matches the count, whatever the header says.
  if (bytes >= 84) {
    const std::uint64_t n = LittleEndian32(data.data() + 80);
    if (84 + 50 * n == bytes) {
      *format = MeshFileFormat::kBinaryStl;
      return ParseBinaryStl(path, data, limits);
    }
  }
  // ASCII: starts with "solid" and holds no NUL byte (a binary STL's
  // header may start with "solid" too, but its count and floats hold
  // zero bytes in practice).
  const std::size_t start = data.find_first_not_of(" \t\r\n");
  const bool solid = start != std::string::npos && data.size() - start >= 5 &&
                     Is(std::string_view(data).substr(start, 5), "solid");
  if (solid && data.find('\0') == std::string::npos) {
    *format = MeshFileFormat::kAsciiStl;
    return ParseAsciiStl(path, data, limits);
  }
  if (bytes < 84) {
    Fail(path, "truncated binary STL: " + std::to_string(bytes) +
                   " bytes, fewer than the 84 of its header and triangle "
                   "count (and it does not start with 'solid')");
  }
  const std::uint64_t n = LittleEndian32(data.data() + 80);
  const std::uint64_t expected = 84 + 50 * n;
  Fail(path, "triangle count n = " + std::to_string(n) +
                 " (bytes 80-83 of the binary STL) disagrees with the file "
                 "size " +
                 std::to_string(bytes) +
                 " bytes: 84 + 50 n = " + std::to_string(expected) +
                 (bytes < expected ? " (truncated?)" : "") +
                 (bytes > expected ? " (trailing bytes?)" : "") +
                 (solid ? "; it starts with 'solid' but holds binary data, "
                          "so it is no ASCII STL"
                        : ""));
}

// ------------------------------------------------------- OBJ and Collada --

// Appends the triangles of `node` and its children, transformed by their
// accumulated node transforms (`parent` excludes the root's own).
struct Collector {
  const std::string& path;
  const aiScene* scene;
  TriangleMesh mesh;

  void Add(const aiNode* node, const Eigen::Matrix4d& parent) {
    Eigen::Matrix4d local;
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) local(r, c) = node->mTransformation[r][c];
    }
    const Eigen::Matrix4d transform = parent * local;
    AddMeshes(node, transform);
    for (unsigned i = 0; i < node->mNumChildren; ++i) {
      Add(node->mChildren[i], transform);
    }
  }

  void AddMeshes(const aiNode* node, const Eigen::Matrix4d& transform) {
    const Matrix3 linear = transform.topLeftCorner<3, 3>();
    const Vector3 shift = transform.topRightCorner<3, 1>();
    const bool mirrored = linear.determinant() < 0.0;
    for (unsigned m = 0; m < node->mNumMeshes; ++m) {
      if (node->mMeshes[m] >= scene->mNumMeshes) continue;
      const aiMesh* source = scene->mMeshes[node->mMeshes[m]];
      const int first = static_cast<int>(mesh.vertices.size());
      for (unsigned v = 0; v < source->mNumVertices; ++v) {
        const aiVector3D& a = source->mVertices[v];
        const Vector3 p = linear * Vector3(a.x, a.y, a.z) + shift;
        if (!p.allFinite()) {
          Fail(path, "vertex " + std::to_string(v + 1) + " of mesh '" +
                         source->mName.C_Str() + "' is not finite " +
                         Describe(Vector3(a.x, a.y, a.z)));
        }
        mesh.vertices.push_back(p);
      }
      for (unsigned f = 0; f < source->mNumFaces; ++f) {
        const aiFace& face = source->mFaces[f];
        if (face.mNumIndices != 3) continue;  // points and lines
        std::array<int, 3> t{};
        for (int k = 0; k < 3; ++k) {
          if (face.mIndices[k] >= source->mNumVertices) {
            Fail(path, "face " + std::to_string(f + 1) + " of mesh '" +
                           source->mName.C_Str() +
                           "' uses a vertex that does not exist");
          }
          t[k] = first + static_cast<int>(face.mIndices[k]);
        }
        if (mirrored) std::swap(t[1], t[2]);
        mesh.triangles.push_back(t);
      }
    }
  }
};

std::size_t CountTriangles(const aiNode* node, const aiScene* scene) {
  std::size_t n = 0;
  for (unsigned m = 0; m < node->mNumMeshes; ++m) {
    if (node->mMeshes[m] >= scene->mNumMeshes) continue;
    const aiMesh* mesh = scene->mMeshes[node->mMeshes[m]];
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      n += mesh->mFaces[f].mNumIndices == 3;
    }
  }
  for (unsigned i = 0; i < node->mNumChildren; ++i) {
    n += CountTriangles(node->mChildren[i], scene);
  }
  return n;
}

TriangleMesh ReadWithAssimp(const std::string& path, MeshFileFormat format,
                            const MeshLimits& limits) {
  // No logger is created, so assimp prints nothing. Post-processing:
  // triangulate polygons only (welding is ours, and no unit conversion).
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  const aiScene* scene = importer.ReadFile(path, aiProcess_Triangulate);
  const char* name = MeshFileFormatName(format);
  if (scene == nullptr) {
    Fail(path, std::string("assimp cannot read the ") + name +
                   " file: " + importer.GetErrorString());
  }
  if (scene->mRootNode == nullptr) {
    Fail(path, std::string("the ") + name + " file has no scene nodes");
  }
  CheckTriangleLimit(path, CountTriangles(scene->mRootNode, scene), limits);
  // The root's own transform is skipped: for Collada it is the <unit>
  // scale and the <up_axis> rotation, which ROS/URDF practice ignores.
  Collector collector{path, scene, {}};
  for (unsigned i = 0; i < scene->mRootNode->mNumChildren; ++i) {
    collector.Add(scene->mRootNode->mChildren[i], Eigen::Matrix4d::Identity());
  }
  collector.AddMeshes(scene->mRootNode, Eigen::Matrix4d::Identity());
  if (collector.mesh.triangles.empty()) {
    Fail(path, std::string("the ") + name + " file holds no triangles");
  }
  return std::move(collector.mesh);
}

}  // namespace

const char* MeshFileFormatName(MeshFileFormat format) {
  switch (format) {
    case MeshFileFormat::kBinaryStl:
      return "binary STL";
    case MeshFileFormat::kAsciiStl:
      return "ASCII STL";
    case MeshFileFormat::kObj:
      return "OBJ";
    case MeshFileFormat::kCollada:
      return "Collada";
  }
  return "unknown";
}

TriangleMesh ReadMeshFile(const std::string& path, const MeshLimits& limits,
                          MeshFileReport* report) {
  MeshFileReport r;
  const auto file = OpenChecked(path, limits, &r.file_bytes);
  const std::string extension =
      Lower(std::filesystem::path(path).extension().string());
  TriangleMesh raw;
  if (extension == ".stl") {
    raw = ReadStl(path, file.get(), r.file_bytes, limits, &r.format);
  } else if (extension == ".obj" || extension == ".dae") {
    r.format =
        extension == ".obj" ? MeshFileFormat::kObj : MeshFileFormat::kCollada;
    raw = ReadWithAssimp(path, r.format, limits);
  } else {
    Fail(path, "unknown mesh format " +
                   (extension.empty() ? std::string("(no extension)")
                                      : "'" + extension + "'") +
                   ": reads .stl (binary or ASCII), .obj (Wavefront) and "
                   ".dae (Collada)");
  }
  r.file_triangles = static_cast<int>(raw.triangles.size());
  TriangleMesh mesh = WeldMesh(raw, &r.weld);
  if (mesh.vertices.size() > limits.max_vertices) {
    Fail(path, "the mesh has " + std::to_string(mesh.vertices.size()) +
                   " distinct vertices, more than the limit of " +
                   std::to_string(limits.max_vertices) +
                   " (MeshLimits::max_vertices)");
  }
  if (mesh.triangles.empty()) {
    Fail(path, "all " + std::to_string(r.file_triangles) +
                   " triangles have zero area");
  }
  if (report != nullptr) *report = r;
  return mesh;
}

}  // namespace sapcontact
