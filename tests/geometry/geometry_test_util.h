// Helpers for the tests of geometry meshes and hulls: point sets,
// independent checks of a convex hull, temporary directories and mesh
// files written from code (binary and ASCII STL, OBJ, Collada).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/convex_hull.h"

namespace sapcontact::geometry_test {

/// Whether s contains part (error messages).
inline bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

using Triangle = std::array<Vector3, 3>;

inline std::vector<Vector3> GaussianCloud(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vector3> points(n);
  for (Vector3& p : points) p = Vector3(g(rng), g(rng), g(rng));
  return points;
}

/// n random points on the sphere of `radius` about `centre`: all extreme.
inline std::vector<Vector3> SpherePoints(int n, unsigned seed,
                                         double radius = 1.0,
                                         const Vector3& centre = {0, 0, 0}) {
  std::vector<Vector3> points = GaussianCloud(n, seed);
  for (Vector3& p : points) p = centre + radius * p.normalized();
  return points;
}

inline Eigen::Matrix3d RandomRotation(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

/// Rounds every coordinate to single precision (what an STL file holds).
inline std::vector<Vector3> ToFloat(std::vector<Vector3> points) {
  for (Vector3& p : points) p = p.cast<float>().cast<double>();
  return points;
}

/// Independent checks of a hull of `points`: every hull vertex is an input
/// point; faces are convex counter-clockwise polygons with strict corners,
/// in their planes, with unit outward normals; every input point is inside
/// every face plane; each edge is shared by exactly two faces in opposite
/// directions; Euler's V - E + F = 2; the adjacency, bounds, extreme
/// vertices and bounding radius agree with brute force. `tolerance` [m]:
/// the distance allowed for round-off and merging. `corner` [m]: how far
/// beyond the chord of its loop neighbours every face vertex must lie
/// (default tolerance / 10; real meshes have micrometre edges whose
/// vertices are corners by nanometres).
inline void ExpectValidHull(const ConvexHull& hull,
                            const std::vector<Vector3>& points,
                            double tolerance, double corner = -1.0) {
  if (corner < 0.0) corner = 0.1 * tolerance;
  const int nv = static_cast<int>(hull.vertices.size());
  const int nf = static_cast<int>(hull.faces.size());
  ASSERT_GE(nv, 4);
  ASSERT_GE(nf, 4);
  // Vertices are input points, distinct.
  auto key = [](const Vector3& p) {
    return std::array<double, 3>{p.x(), p.y(), p.z()};
  };
  std::set<std::array<double, 3>> inputs, seen;
  for (const Vector3& p : points) inputs.insert(key(p));
  for (int i = 0; i < nv; ++i) {
    EXPECT_TRUE(inputs.count(key(hull.vertices[i])))
        << "vertex " << i << " is no input point";
    EXPECT_TRUE(seen.insert(key(hull.vertices[i])).second)
        << "vertex " << i << " twice";
  }
  // Faces.
  std::set<std::pair<int, int>> directed;
  std::vector<std::set<int>> faces_of(nv);
  for (int f = 0; f < nf; ++f) {
    const ConvexHull::Face& face = hull.faces[f];
    const int m = static_cast<int>(face.vertices.size());
    ASSERT_GE(m, 3) << "face " << f;
    EXPECT_NEAR(face.normal.norm(), 1.0, 1e-12);
    for (int k = 0; k < m; ++k) {
      const int a = face.vertices[(k + m - 1) % m];
      const int b = face.vertices[k];
      const int c = face.vertices[(k + 1) % m];
      ASSERT_TRUE(b >= 0 && b < nv);
      EXPECT_NEAR(face.normal.dot(hull.vertices[b]), face.offset, tolerance)
          << "face " << f << " vertex " << b << " off its plane";
      // Strict convex corner, counter-clockwise about the normal: b lies
      // beyond the chord from a to c by more than the round-off.
      const Vector3 chord = hull.vertices[c] - hull.vertices[a];
      const double height =
          (hull.vertices[b] - hull.vertices[a]).cross(chord).dot(face.normal) /
          chord.norm();
      EXPECT_GT(height, corner)
          << "face " << f << ": vertex " << b << " is no corner";
      EXPECT_TRUE(directed.emplace(b, c).second)
          << "directed edge " << b << "->" << c << " twice";
      EXPECT_TRUE(faces_of[b].insert(f).second);
    }
    // Outward: the mean of all points is behind the plane.
    Vector3 mean = Vector3::Zero();
    for (const Vector3& p : points) mean += p;
    mean /= static_cast<double>(points.size());
    EXPECT_LT(face.normal.dot(mean), face.offset);
  }
  for (const auto& [a, b] : directed) {
    EXPECT_TRUE(directed.count({b, a}))
        << "edge " << a << "->" << b << " has no reverse";
  }
  const int ne = static_cast<int>(directed.size() / 2);
  EXPECT_EQ(hull.num_edges, ne);
  EXPECT_EQ(nv - ne + nf, 2) << "Euler characteristic";
  // Every input point inside every face plane.
  double worst = -1e300;
  for (const Vector3& p : points) {
    for (const ConvexHull::Face& face : hull.faces) {
      worst = std::max(worst, face.normal.dot(p) - face.offset);
    }
  }
  EXPECT_LE(worst, tolerance) << "an input point is outside the hull";
  // Adjacency against the edges and faces found above.
  ASSERT_EQ(static_cast<int>(hull.neighbour_begin.size()), nv + 1);
  ASSERT_EQ(static_cast<int>(hull.vertex_face_begin.size()), nv + 1);
  std::vector<std::set<int>> neighbours_of(nv);
  for (const auto& [a, b] : directed) neighbours_of[a].insert(b);
  for (int i = 0; i < nv; ++i) {
    const std::set<int>& expected = neighbours_of[i];
    const std::set<int> actual(
        hull.neighbours.begin() + hull.neighbour_begin[i],
        hull.neighbours.begin() + hull.neighbour_begin[i + 1]);
    EXPECT_EQ(actual, expected) << "neighbours of " << i;
    EXPECT_EQ(hull.neighbour_begin[i + 1] - hull.neighbour_begin[i],
              static_cast<int>(expected.size()));
    const std::set<int> faces(
        hull.vertex_faces.begin() + hull.vertex_face_begin[i],
        hull.vertex_faces.begin() + hull.vertex_face_begin[i + 1]);
    EXPECT_EQ(faces, faces_of[i]) << "faces of " << i;
    EXPECT_GE(faces_of[i].size(), 3u) << "vertex " << i;
  }
  // Bounds, extreme vertices, bounding radius.
  Vector3 lower = points[0], upper = points[0];
  double radius = 0.0;
  for (const Vector3& p : points) {
    lower = lower.cwiseMin(p);
    upper = upper.cwiseMax(p);
    radius = std::max(radius, p.norm());
  }
  EXPECT_LE((hull.lower - lower).cwiseAbs().maxCoeff(), tolerance);
  EXPECT_LE((hull.upper - upper).cwiseAbs().maxCoeff(), tolerance);
  EXPECT_NEAR(hull.bounding_radius, radius, tolerance);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(hull.vertices[hull.extreme_vertices[2 * k]][k], hull.lower[k]);
    EXPECT_EQ(hull.vertices[hull.extreme_vertices[2 * k + 1]][k],
              hull.upper[k]);
  }
}

/// Volume of a closed polyhedron from its face polygons by the divergence
/// theorem in the form V = (1/3) sum_f (n_f . x_f) A_f, with each face's
/// area vector from the shoelace formula (independent of the fan of
/// tetrahedra the library sums).
inline double PolygonVolume(const ConvexHull& hull) {
  double volume = 0.0;
  for (const ConvexHull::Face& face : hull.faces) {
    Vector3 area = Vector3::Zero();
    Vector3 centre = Vector3::Zero();
    const std::size_t m = face.vertices.size();
    for (std::size_t k = 0; k < m; ++k) {
      const Vector3& a = hull.vertices[face.vertices[k]];
      const Vector3& b = hull.vertices[face.vertices[(k + 1) % m]];
      area += 0.5 * a.cross(b);
      centre += a / static_cast<double>(m);
    }
    volume += centre.dot(area) / 3.0;
  }
  return volume;
}

/// Total area of the hull's faces (shoelace).
inline double SurfaceArea(const ConvexHull& hull) {
  double total = 0.0;
  for (const ConvexHull::Face& face : hull.faces) {
    Vector3 area = Vector3::Zero();
    const std::size_t m = face.vertices.size();
    for (std::size_t k = 0; k < m; ++k) {
      area += 0.5 * hull.vertices[face.vertices[k]].cross(
                        hull.vertices[face.vertices[(k + 1) % m]]);
    }
    total += area.norm();
  }
  return total;
}

/// Inertia of a solid box of edge lengths e per unit density about its
/// centre, in its axes: V/12 (e_y^2 + e_z^2, ...).
inline Matrix3 BoxInertia(const Vector3& e) {
  const double v = e.prod();
  return Vector3(v / 12 * (e.y() * e.y() + e.z() * e.z()),
                 v / 12 * (e.x() * e.x() + e.z() * e.z()),
                 v / 12 * (e.x() * e.x() + e.y() * e.y()))
      .asDiagonal();
}

// ---------------------------------------------------------------- files --

/// A fresh temporary directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    const auto base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = base / ("sapcontact_geometry_test_" + std::to_string(rd()));
      if (std::filesystem::create_directory(path_)) return;
    }
    ADD_FAILURE() << "cannot create a temporary directory";
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const {
    return (path_ / name).string();
  }

 private:
  std::filesystem::path path_;
};

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

/// A binary STL: 80-byte header, uint32 count, 50 bytes per triangle
/// (normal, three vertices as little-endian float32, uint16 attribute).
/// `header` is padded with spaces to 80 bytes.
inline std::string BinaryStl(const std::vector<Triangle>& triangles,
                             const std::string& header = "binary test") {
  std::string bytes = header.substr(0, 80);
  bytes.resize(80, ' ');
  auto put_u32 = [&](std::uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes.push_back(char((v >> (8 * k)) & 255));
  };
  auto put_f32 = [&](float f) {
    std::uint32_t v;
    std::memcpy(&v, &f, 4);
    put_u32(v);
  };
  put_u32(static_cast<std::uint32_t>(triangles.size()));
  for (const Triangle& t : triangles) {
    const Vector3 n = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
    for (int k = 0; k < 3; ++k) put_f32(static_cast<float>(n[k]));
    for (const Vector3& v : t) {
      for (int k = 0; k < 3; ++k) put_f32(static_cast<float>(v[k]));
    }
    bytes.push_back(0);
    bytes.push_back(0);
  }
  return bytes;
}

inline std::string AsciiStl(const std::vector<Triangle>& triangles,
                            const std::string& name = "test") {
  std::ostringstream os;
  os.precision(9);
  os << "solid " << name << "\n";
  for (const Triangle& t : triangles) {
    const Vector3 n = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
    os << "  facet normal " << n.x() << " " << n.y() << " " << n.z() << "\n"
       << "    outer loop\n";
    for (const Vector3& v : t) {
      os << "      vertex " << v.x() << " " << v.y() << " " << v.z() << "\n";
    }
    os << "    endloop\n  endfacet\n";
  }
  os << "endsolid " << name << "\n";
  return os.str();
}

/// Vertices and 1-based index triples (welded) of the triangles.
inline void IndexTriangles(const std::vector<Triangle>& triangles,
                           std::vector<Vector3>* vertices,
                           std::vector<std::array<int, 3>>* faces) {
  for (const Triangle& t : triangles) {
    std::array<int, 3> face{};
    for (int k = 0; k < 3; ++k) {
      const auto it = std::find(vertices->begin(), vertices->end(), t[k]);
      face[k] = static_cast<int>(it - vertices->begin());
      if (it == vertices->end()) vertices->push_back(t[k]);
    }
    faces->push_back(face);
  }
}

inline std::string Obj(const std::vector<Triangle>& triangles) {
  std::vector<Vector3> vertices;
  std::vector<std::array<int, 3>> faces;
  IndexTriangles(triangles, &vertices, &faces);
  std::ostringstream os;
  os.precision(17);
  os << "# test mesh\no test\n";
  for (const Vector3& v : vertices) {
    os << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  }
  for (const auto& f : faces) {
    os << "f " << f[0] + 1 << " " << f[1] + 1 << " " << f[2] + 1 << "\n";
  }
  return os.str();
}

/// A Collada 1.4.1 file with one mesh of the triangles, instanced by one
/// node with the given 4x4 row-major matrix, <unit meter=...> and up axis.
inline std::string Collada(
    const std::vector<Triangle>& triangles, double unit_meter = 1.0,
    const std::string& up_axis = "Z_UP",
    const Eigen::Matrix4d& node = Eigen::Matrix4d::Identity()) {
  std::vector<Vector3> vertices;
  std::vector<std::array<int, 3>> faces;
  IndexTriangles(triangles, &vertices, &faces);
  std::ostringstream os;
  os.precision(17);
  os << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
        "version=\"1.4.1\">\n"
     << "  <asset><unit name=\"u\" meter=\"" << unit_meter << "\"/><up_axis>"
     << up_axis << "</up_axis></asset>\n"
     << "  <library_geometries><geometry id=\"g\" name=\"g\"><mesh>\n"
     << "    <source id=\"g-pos\"><float_array id=\"g-pos-array\" count=\""
     << 3 * vertices.size() << "\">";
  for (const Vector3& v : vertices) {
    os << v.x() << " " << v.y() << " " << v.z() << " ";
  }
  os << "</float_array>\n"
     << "      <technique_common><accessor source=\"#g-pos-array\" count=\""
     << vertices.size() << "\" stride=\"3\">"
     << "<param name=\"X\" type=\"float\"/><param name=\"Y\" "
        "type=\"float\"/><param name=\"Z\" type=\"float\"/>"
     << "</accessor></technique_common></source>\n"
     << "    <vertices id=\"g-vtx\"><input semantic=\"POSITION\" "
        "source=\"#g-pos\"/></vertices>\n"
     << "    <triangles count=\"" << faces.size()
     << "\"><input semantic=\"VERTEX\" source=\"#g-vtx\" offset=\"0\"/><p>";
  for (const auto& f : faces) os << f[0] << " " << f[1] << " " << f[2] << " ";
  os << "</p></triangles>\n"
     << "  </mesh></geometry></library_geometries>\n"
     << "  <library_visual_scenes><visual_scene id=\"s\" name=\"s\">\n"
     << "    <node id=\"n\" name=\"n\"><matrix>";
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) os << node(r, c) << " ";
  }
  os << "</matrix><instance_geometry url=\"#g\"/></node>\n"
     << "  </visual_scene></library_visual_scenes>\n"
     << "  <scene><instance_visual_scene url=\"#s\"/></scene>\n"
     << "</COLLADA>\n";
  return os.str();
}

// --------------------------------------------------------------- meshes --

/// The 12 outward triangles of the box [lo, hi].
inline std::vector<Triangle> BoxTriangles(const Vector3& lo,
                                          const Vector3& hi) {
  auto corner = [&](int i) {
    return Vector3(i & 1 ? hi.x() : lo.x(), i & 2 ? hi.y() : lo.y(),
                   i & 4 ? hi.z() : lo.z());
  };
  // Quads counter-clockwise seen from outside.
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  std::vector<Triangle> triangles;
  for (const auto& q : quads) {
    triangles.push_back({corner(q[0]), corner(q[1]), corner(q[2])});
    triangles.push_back({corner(q[0]), corner(q[2]), corner(q[3])});
  }
  return triangles;
}

/// The box [lo, hi] with every face split into an n x n grid of quads (two
/// triangles each): many coplanar triangles and vertices on edges and in
/// faces.
inline std::vector<Triangle> GridBoxTriangles(const Vector3& lo,
                                              const Vector3& hi, int n) {
  std::vector<Triangle> triangles;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      auto point = [&](int i, int j) {
        Vector3 p;
        p[axis] = side ? hi[axis] : lo[axis];
        p[u] = lo[u] + (hi[u] - lo[u]) * i / n;
        p[v] = lo[v] + (hi[v] - lo[v]) * j / n;
        return p;
      };
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          Triangle t1{point(i, j), point(i + 1, j), point(i + 1, j + 1)};
          Triangle t2{point(i, j), point(i + 1, j + 1), point(i, j + 1)};
          // u x v = axis: counter-clockwise seen from +axis; flip for -axis.
          if (!side) {
            std::swap(t1[1], t1[2]);
            std::swap(t2[1], t2[2]);
          }
          triangles.push_back(t1);
          triangles.push_back(t2);
        }
      }
    }
  }
  return triangles;
}

/// The box with each face a fan of 4 triangles around its centre.
inline std::vector<Triangle> FanBoxTriangles(const Vector3& lo,
                                             const Vector3& hi) {
  std::vector<Triangle> triangles;
  const std::vector<Triangle> box = BoxTriangles(lo, hi);
  for (std::size_t q = 0; q < box.size(); q += 2) {
    const Vector3 a = box[q][0], b = box[q][1], c = box[q][2],
                  d = box[q + 1][2];
    const Vector3 centre = (a + b + c + d) / 4.0;
    triangles.push_back({a, b, centre});
    triangles.push_back({b, c, centre});
    triangles.push_back({c, d, centre});
    triangles.push_back({d, a, centre});
  }
  return triangles;
}

/// A UV sphere of `radius` with `rings` latitude bands and `segments`
/// longitudes, triangles outward.
inline std::vector<Triangle> SphereTriangles(double radius, int rings,
                                             int segments) {
  const double pi = 3.14159265358979323846;
  auto point = [&](int i, int j) {
    if (i == 0) return Vector3(0, 0, radius);
    if (i == rings) return Vector3(0, 0, -radius);
    // j % segments: the seam's vertices are the same numbers (sin 2 pi is
    // not 0 in floating point).
    const double theta = pi * i / rings,
                 phi = 2 * pi * (j % segments) / segments;
    return Vector3(radius * std::sin(theta) * std::cos(phi),
                   radius * std::sin(theta) * std::sin(phi),
                   radius * std::cos(theta));
  };
  std::vector<Triangle> triangles;
  for (int i = 0; i < rings; ++i) {
    for (int j = 0; j < segments; ++j) {
      const Vector3 a = point(i, j), b = point(i + 1, j),
                    c = point(i + 1, j + 1), d = point(i, j + 1);
      if (i > 0) triangles.push_back({a, b, d});
      if (i + 1 < rings) triangles.push_back({b, c, d});
    }
  }
  return triangles;
}

inline std::vector<Vector3> Corners(const std::vector<Triangle>& triangles) {
  std::vector<Vector3> points;
  for (const Triangle& t : triangles) {
    for (const Vector3& v : t) points.push_back(v);
  }
  return points;
}

}  // namespace sapcontact::geometry_test
