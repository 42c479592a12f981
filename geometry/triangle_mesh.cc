#include "sapcontact/geometry/triangle_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace sapcontact {
namespace {

std::string Describe(const Vector3& p) {
  std::ostringstream os;
  os.precision(9);
  os << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
  return os.str();
}

// Exact-coordinates key: the bit patterns, with -0.0 made +0.0.
struct Key {
  std::uint64_t bits[3];
  bool operator==(const Key& o) const {
    return bits[0] == o.bits[0] && bits[1] == o.bits[1] && bits[2] == o.bits[2];
  }
};

Key KeyOf(const Vector3& p) {
  Key key;
  for (int k = 0; k < 3; ++k) {
    const double x = p[k] + 0.0;  // -0.0 + 0.0 = +0.0
    std::memcpy(&key.bits[k], &x, sizeof(double));
  }
  return key;
}

struct KeyHash {
  std::size_t operator()(const Key& key) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (std::uint64_t b : key.bits) {
      h ^= b + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

}  // namespace

TriangleMesh WeldMesh(const TriangleMesh& mesh, WeldReport* report) {
  WeldReport r;
  const int n = static_cast<int>(mesh.vertices.size());
  std::unordered_map<Key, int, KeyHash> first;
  first.reserve(mesh.vertices.size());
  std::vector<int> weld(n, -1);  // input vertex -> first equal input vertex
  for (int i = 0; i < n; ++i) {
    weld[i] = first.emplace(KeyOf(mesh.vertices[i]), i).first->second;
  }
  TriangleMesh out;
  out.triangles.reserve(mesh.triangles.size());
  std::vector<int> index(n, -1);  // first equal input vertex -> output
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    std::array<int, 3> w{};
    for (int k = 0; k < 3; ++k) {
      const int v = mesh.triangles[t][k];
      if (v < 0 || v >= n) {
        throw std::invalid_argument("triangle " + std::to_string(t) +
                                    " uses vertex " + std::to_string(v) +
                                    " of " + std::to_string(n));
      }
      w[k] = weld[v];
    }
    const Vector3& a = mesh.vertices[w[0]];
    const Vector3& b = mesh.vertices[w[1]];
    const Vector3& c = mesh.vertices[w[2]];
    if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0] ||
        (b - a).cross(c - a) == Vector3::Zero()) {
      ++r.degenerate_triangles;
      continue;
    }
    std::array<int, 3> triangle{};
    for (int k = 0; k < 3; ++k) {
      if (index[w[k]] < 0) {
        index[w[k]] = static_cast<int>(out.vertices.size());
        out.vertices.push_back(mesh.vertices[w[k]]);
      }
      triangle[k] = index[w[k]];
    }
    out.triangles.push_back(triangle);
  }
  int distinct = 0;
  for (int i = 0; i < n; ++i) distinct += weld[i] == i;
  r.merged_vertices = n - distinct;
  r.unused_vertices = distinct - static_cast<int>(out.vertices.size());
  if (report != nullptr) *report = r;
  return out;
}

MeshClosure CheckClosed(const TriangleMesh& mesh) {
  MeshClosure result;
  if (mesh.triangles.empty()) {
    result.reason = "no triangles";
    return result;
  }
  // Every directed edge as (low vertex, high vertex, triangle, forward):
  // forward when it runs from low to high.
  struct Edge {
    int low, high, triangle;
    bool forward;
  };
  std::vector<Edge> edges;
  edges.reserve(3 * mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const int a = mesh.triangles[t][k], b = mesh.triangles[t][(k + 1) % 3];
      edges.push_back(
          {std::min(a, b), std::max(a, b), static_cast<int>(t), a < b});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return std::tie(x.low, x.high, x.triangle) <
           std::tie(y.low, y.high, y.triangle);
  });
  // The offending group whose first triangle comes first.
  int worst_triangle = -1;
  std::string worst;
  for (std::size_t g = 0; g < edges.size();) {
    std::size_t end = g;
    int forward = 0;
    while (end < edges.size() && edges[end].low == edges[g].low &&
           edges[end].high == edges[g].high) {
      forward += edges[end].forward;
      ++end;
    }
    const int count = static_cast<int>(end - g);
    std::string problem;
    if (count != 2) {
      problem = "belongs to " + std::to_string(count) +
                (count == 1 ? " triangle" : " triangles");
    } else if (forward != 1) {
      problem = "is used twice in the same direction (triangles " +
                std::to_string(edges[g].triangle) + " and " +
                std::to_string(edges[g + 1].triangle) +
                " are oriented inconsistently)";
    }
    if (!problem.empty() &&
        (worst_triangle < 0 || edges[g].triangle < worst_triangle)) {
      worst_triangle = edges[g].triangle;
      worst = "edge between vertices " + Describe(mesh.vertices[edges[g].low]) +
              " and " + Describe(mesh.vertices[edges[g].high]) + " " + problem;
    }
    g = end;
  }
  if (worst_triangle >= 0) {
    result.reason = worst;
    return result;
  }
  const double volume = ComputeVolumeProperties(mesh).volume;
  Vector3 lo = mesh.vertices[0], hi = mesh.vertices[0];
  for (const Vector3& v : mesh.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  const double size = (hi - lo).norm();
  std::ostringstream os;
  os.precision(6);
  if (!(std::abs(volume) > 1e-12 * size * size * size)) {
    os << "encloses no volume (volume " << volume << " m^3)";
    result.reason = os.str();
  } else if (volume < 0) {
    os << "inside out (negative volume " << volume
       << " m^3: the triangles' normals point inwards)";
    result.reason = os.str();
  } else {
    result.closed = true;
  }
  return result;
}

MeshVolumeProperties ComputeVolumeProperties(const TriangleMesh& mesh) {
  MeshVolumeProperties p;
  if (mesh.vertices.empty()) return p;
  Vector3 lo = mesh.vertices[0], hi = mesh.vertices[0];
  for (const Vector3& v : mesh.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  const Vector3 reference = 0.5 * (lo + hi);
  // Per tetrahedron (reference, a, b, c) with a, b, c relative to the
  // reference: volume V = a . (b x c) / 6, first moment V (a + b + c) / 4,
  // second moment  int x x' dV = V / 20 (a a' + b b' + c c' + s s'),
  // s = a + b + c (the reference tetrahedron's covariance mapped linearly).
  double volume = 0.0;
  Vector3 first = Vector3::Zero();
  Matrix3 second = Matrix3::Zero();
  for (const auto& t : mesh.triangles) {
    const Vector3 a = mesh.vertices[t[0]] - reference;
    const Vector3 b = mesh.vertices[t[1]] - reference;
    const Vector3 c = mesh.vertices[t[2]] - reference;
    const double v = a.dot(b.cross(c)) / 6.0;
    const Vector3 s = a + b + c;
    volume += v;
    first += v * s / 4.0;
    second += v / 20.0 *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() +
               s * s.transpose());
  }
  p.volume = volume;
  if (volume == 0.0) return p;
  const Vector3 centroid = first / volume;  // relative to the reference
  p.centroid = reference + centroid;
  // Second moment about the centroid, then I = tr(C) 1 - C.
  const Matrix3 about = second - volume * centroid * centroid.transpose();
  p.unit_inertia = about.trace() * Matrix3::Identity() - about;
  p.unit_inertia = 0.5 * (p.unit_inertia + p.unit_inertia.transpose());
  return p;
}

void ScaleMesh(TriangleMesh* mesh, const Vector3& scale) {
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(scale[k]) || scale[k] == 0.0) {
      throw std::invalid_argument("scale component " + std::to_string(k) +
                                  " is " + std::to_string(scale[k]) +
                                  ": every component must be finite and "
                                  "non-zero");
    }
  }
  for (Vector3& v : mesh->vertices) v = v.cwiseProduct(scale);
  if (scale.prod() < 0.0) {
    for (auto& t : mesh->triangles) std::swap(t[1], t[2]);
  }
}

}  // namespace sapcontact
