// Convex hulls with Debian's reentrant qhull (libqhull_r). qhull computes
// the facets (its default pre-merging 'C-0' merges coplanar ones); this file
// turns each merged facet into an ordered polygon, drops vertices that are
// not corners, recomputes the planes and builds the adjacency.
#include "sapcontact/geometry/convex_hull.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

// qhull last: its headers define macros (True, False, FOREACH..., trace...).
#include <libqhull_r/qhull_ra.h>

namespace sapcontact {
namespace {

[[noreturn]] void Fail(const std::string& context, const std::string& what) {
  throw std::invalid_argument(context.empty() ? what : context + ": " + what);
}

std::string Describe(const Vector3& p) {
  std::ostringstream os;
  os.precision(9);
  os << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
  return os.str();
}

// Checks the input before qhull sees it: count and finiteness.
void CheckPoints(const std::vector<Vector3>& points,
                 const std::string& context) {
  if (points.size() < 4) {
    Fail(context, "a convex hull needs at least 4 points, got " +
                      std::to_string(points.size()));
  }
  if (points.size() >
      static_cast<std::size_t>(std::numeric_limits<int>::max() / 3)) {
    Fail(context,
         "too many points for qhull: " + std::to_string(points.size()));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite()) {
      Fail(context, "point " + std::to_string(i) + " is not finite " +
                        Describe(points[i]));
    }
  }
}

// Why a point set qhull could not hull is degenerate, from the spread of
// the points about their mean along the principal axes; empty when it
// does not look degenerate.
std::string DegeneracyReason(const std::vector<Vector3>& points) {
  Vector3 mean = Vector3::Zero();
  for (const Vector3& p : points) mean += p;
  mean /= static_cast<double>(points.size());
  Matrix3 covariance = Matrix3::Zero();
  double scale = 0.0;
  for (const Vector3& p : points) {
    const Vector3 d = p - mean;
    covariance += d * d.transpose();
    scale = std::max(scale, p.cwiseAbs().maxCoeff());
  }
  covariance /= static_cast<double>(points.size());
  const Eigen::SelfAdjointEigenSolver<Matrix3> solver(covariance);
  // Ascending eigenvalues: RMS spreads s[2] >= s[1] >= s[0].
  const Vector3 s = solver.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  if (s[2] <= 1e-14 * std::max(scale, 1e-300)) {
    return "the points coincide: a point has no volume";
  }
  if (s[1] <= 1e-7 * s[2]) {
    return "the points are collinear: a needle-like mesh has no volume";
  }
  if (s[0] <= 1e-6 * s[2]) {
    return "the points are coplanar: a flat mesh has no volume";
  }
  return "";
}

// One qhull run: owns the qhT, the message stream and the cleanup.
class QhullRun {
 public:
  QhullRun() : qh_(std::make_unique<qhT>()) {
    errfile_ = open_memstream(&buffer_, &buffer_size_);
    if (errfile_ == nullptr) {
      errfile_ = std::tmpfile();
      is_tmpfile_ = true;
    }
    qh_zero(qh_.get(), errfile_);
  }
  QhullRun(const QhullRun&) = delete;
  QhullRun& operator=(const QhullRun&) = delete;
  ~QhullRun() {
    if (ran_) {
      int curlong = 0, totlong = 0;
      qh_freeqhull(qh_.get(), !qh_ALL);
      qh_memfreeshort(qh_.get(), &curlong, &totlong);
    }
    if (errfile_ != nullptr) std::fclose(errfile_);
    std::free(buffer_);
  }

  bool has_errfile() const { return errfile_ != nullptr; }

  // Runs qhull on `coords` (3 per point); returns qhull's exit code.
  int Run(std::vector<coordT>& coords, const char* options) {
    char command[128];
    std::snprintf(command, sizeof(command), "qhull %s", options);
    ran_ = true;
    return qh_new_qhull(qh_.get(), 3, static_cast<int>(coords.size() / 3),
                        coords.data(), False, command, nullptr, errfile_);
  }

  // The first line of what qhull wrote to its error stream.
  std::string FirstMessageLine() {
    std::string text;
    std::fflush(errfile_);
    if (is_tmpfile_) {
      std::rewind(errfile_);
      char line[512];
      if (std::fgets(line, sizeof(line), errfile_) != nullptr) text = line;
    } else if (buffer_ != nullptr) {
      text.assign(buffer_, buffer_size_);
    }
    const std::size_t end = text.find('\n');
    if (end != std::string::npos) text.resize(end);
    return text;
  }

  qhT* qh() { return qh_.get(); }

 private:
  std::unique_ptr<qhT> qh_;
  FILE* errfile_{nullptr};
  char* buffer_{nullptr};
  std::size_t buffer_size_{0};
  bool is_tmpfile_{false};
  bool ran_{false};
};

// A qhull facet: its outward unit normal, its vertices (input indices) and
// its edges (pairs of input indices; qhull's ridges in 3-d).
struct RawFacet {
  Vector3 normal;
  std::vector<int> points;
  std::vector<std::pair<int, int>> edges;
};

// Runs qhull (options 'FA': also its total volume, and 'C-<merge>':
// pre-merge facets whose centrums are within `merge` [m] of a neighbour's
// plane, and do not add points within it of a facet) and copies the facets
// out; throws with the reason when qhull fails.
std::vector<RawFacet> RunQhull(const std::vector<Vector3>& points, double merge,
                               const std::string& context,
                               double* qhull_volume) {
  std::vector<coordT> coords(3 * points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (int k = 0; k < 3; ++k) coords[3 * i + k] = points[i][k];
  }
  QhullRun run;
  if (!run.has_errfile()) {
    Fail(context, "cannot open a scratch stream for qhull's messages");
  }
  char options[64];
  std::snprintf(options, sizeof(options), "FA C-%.17g", merge);
  const int exit_code = run.Run(coords, options);
  if (exit_code != qh_ERRnone) {
    const std::string message = run.FirstMessageLine();
    const std::string qhull_says =
        message.empty() ? "exit code " + std::to_string(exit_code) : message;
    const std::string reason = DegeneracyReason(points);
    if (!reason.empty()) Fail(context, reason + " (qhull: " + qhull_says + ")");
    Fail(context, "qhull failed: " + qhull_says);
  }
  qhT* qh = run.qh();
  const int n = static_cast<int>(points.size());
  std::vector<RawFacet> facets;
  facetT* facet;
  vertexT *vertex, **vertexp;
  ridgeT *ridge, **ridgep;
  bool valid_ids = true;
  auto id_of = [&](vertexT* v) {
    const int id = qh_pointid(qh, v->point);
    if (id < 0 || id >= n) valid_ids = false;
    return id;
  };
  FORALLfacets {
    RawFacet raw;
    raw.normal = Vector3(facet->normal[0], facet->normal[1], facet->normal[2]);
    FOREACHvertex_(facet->vertices) raw.points.push_back(id_of(vertex));
    if (facet->simplicial) {
      for (int k = 0; k < 3 && raw.points.size() == 3; ++k) {
        raw.edges.emplace_back(raw.points[k], raw.points[(k + 1) % 3]);
      }
    } else {
      FOREACHridge_(facet->ridges) {
        raw.edges.emplace_back(
            id_of(static_cast<vertexT*>(SETfirst_(ridge->vertices))),
            id_of(static_cast<vertexT*>(SETsecond_(ridge->vertices))));
      }
    }
    facets.push_back(std::move(raw));
  }
  if (!valid_ids) {
    Fail(context, "qhull returned a vertex that is no input point");
  }
  if (qhull_volume != nullptr) *qhull_volume = qh->totvol;
  return facets;
}

// The facet's boundary loop from its edges, counter-clockwise about its
// normal; empty when the edges do not form one loop.
std::vector<int> FacetLoop(const std::vector<Vector3>& points,
                           const RawFacet& facet) {
  // Both directions of every edge, grouped by their first vertex.
  std::vector<std::pair<int, int>> half;
  for (const auto& [a, b] : facet.edges) {
    half.emplace_back(a, b);
    half.emplace_back(b, a);
  }
  std::sort(half.begin(), half.end());
  auto neighbours = [&](int v) {
    return std::lower_bound(half.begin(), half.end(), std::make_pair(v, -1));
  };
  std::vector<int> loop;
  if (half.size() < 6) return loop;
  const int start = half[0].first;
  int previous = -1, current = start;
  for (std::size_t steps = 0; steps <= facet.edges.size(); ++steps) {
    const auto it = neighbours(current);
    // Exactly two edges at every vertex of the loop.
    if (it + 1 >= half.end() || it->first != current ||
        (it + 1)->first != current ||
        (it + 2 < half.end() && (it + 2)->first == current)) {
      return {};
    }
    loop.push_back(current);
    const int next = it->second != previous ? it->second : (it + 1)->second;
    previous = current;
    current = next;
    if (current == start) break;
  }
  if (current != start || loop.size() != facet.edges.size()) return {};
  // Orientation: Newell's normal against qhull's.
  Vector3 newell = Vector3::Zero();
  for (std::size_t k = 0; k < loop.size(); ++k) {
    newell += points[loop[k]].cross(points[loop[(k + 1) % loop.size()]]);
  }
  if (newell.dot(facet.normal) < 0.0) std::reverse(loop.begin(), loop.end());
  return loop;
}

// The merge distance [m] for the points: kHullMergeTolerance times their
// largest coordinate magnitude.
double MergeDistance(const std::vector<Vector3>& points) {
  double scale = 0.0;
  for (const Vector3& p : points)
    scale = std::max(scale, p.cwiseAbs().maxCoeff());
  return kHullMergeTolerance * scale;
}

}  // namespace

ConvexHull BuildConvexHull(const std::vector<Vector3>& points,
                           const std::string& context) {
  CheckPoints(points, context);
  const double merge = MergeDistance(points);
  const std::vector<RawFacet> facets =
      RunQhull(points, merge, context, nullptr);
  const int n = static_cast<int>(points.size());

  // Facet loops, and how many loops each input point is in.
  std::vector<std::vector<int>> loops;
  loops.reserve(facets.size());
  std::vector<int> count(n, 0);
  for (const RawFacet& facet : facets) {
    loops.push_back(FacetLoop(points, facet));
    if (loops.back().size() < 3) {
      Fail(context,
           "qhull returned a facet whose ridges are not one loop: "
           "the points are nearly degenerate");
    }
    for (int i : loops.back()) ++count[i];
  }
  // A vertex in exactly two faces lies on the line where their planes meet,
  // between its two loop neighbours (the same two in both loops): it is no
  // corner. Drop it from both loops unless one would lose its area.
  std::vector<int> dropped(n, 0);
  {
    std::vector<int> face_of_a(n, -1), face_of_b(n, -1);
    for (int f = 0; f < static_cast<int>(loops.size()); ++f) {
      for (int i : loops[f]) (face_of_a[i] < 0 ? face_of_a : face_of_b)[i] = f;
    }
    for (int i = 0; i < n; ++i) {
      if (count[i] != 2) continue;
      std::vector<int>& a = loops[face_of_a[i]];
      std::vector<int>& b = loops[face_of_b[i]];
      if (a.size() <= 3 || b.size() <= 3) continue;
      a.erase(std::find(a.begin(), a.end(), i));
      b.erase(std::find(b.begin(), b.end(), i));
      dropped[i] = 1;
    }
  }
  std::vector<int> index(n, -1);  // input point -> hull vertex, or -1
  ConvexHull hull;
  for (int i = 0; i < n; ++i) {
    if (count[i] > 0 && !dropped[i]) {
      index[i] = static_cast<int>(hull.vertices.size());
      hull.vertices.push_back(points[i]);
    }
  }
  const int num_vertices = static_cast<int>(hull.vertices.size());

  // Faces with their planes from the final loops (Newell's normal).
  hull.faces.reserve(loops.size());
  for (std::size_t f = 0; f < loops.size(); ++f) {
    ConvexHull::Face face;
    for (int i : loops[f]) face.vertices.push_back(index[i]);
    const std::size_t m = face.vertices.size();
    Vector3 newell = Vector3::Zero();
    Vector3 centre = Vector3::Zero();
    for (std::size_t k = 0; k < m; ++k) {
      const Vector3& a = hull.vertices[face.vertices[k]];
      const Vector3& b = hull.vertices[face.vertices[(k + 1) % m]];
      newell += a.cross(b);
      centre += a;
    }
    centre /= static_cast<double>(m);
    const double norm = newell.norm();
    if (!(norm > 0.0) || newell.dot(facets[f].normal) <= 0.0) {
      Fail(context,
           "a hull face's vertex loop does not turn about qhull's "
           "normal: the points are nearly degenerate");
    }
    face.normal = newell / norm;
    face.offset = face.normal.dot(centre);
    hull.faces.push_back(std::move(face));
  }

  // Edges: every directed edge of a loop must appear once, its reverse
  // once (a closed, consistently oriented polyhedron).
  std::vector<std::pair<int, int>> directed;
  for (const ConvexHull::Face& face : hull.faces) {
    const std::size_t m = face.vertices.size();
    for (std::size_t k = 0; k < m; ++k) {
      directed.emplace_back(face.vertices[k], face.vertices[(k + 1) % m]);
    }
  }
  std::vector<std::pair<int, int>> sorted = directed;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    const bool duplicate = k > 0 && sorted[k] == sorted[k - 1];
    const bool has_reverse =
        std::binary_search(sorted.begin(), sorted.end(),
                           std::make_pair(sorted[k].second, sorted[k].first));
    if (duplicate || !has_reverse) {
      Fail(context, "the hull's faces do not close up at the edge from " +
                        Describe(hull.vertices[sorted[k].first]) + " to " +
                        Describe(hull.vertices[sorted[k].second]) +
                        ": the points are nearly degenerate");
    }
  }
  hull.num_edges = static_cast<int>(sorted.size() / 2);

  // Vertex adjacency: the sorted directed edges grouped by their tail.
  hull.neighbour_begin.assign(num_vertices + 1, 0);
  hull.neighbours.reserve(sorted.size());
  for (const auto& [from, to] : sorted) {
    ++hull.neighbour_begin[from + 1];
    hull.neighbours.push_back(to);
  }
  for (int i = 0; i < num_vertices; ++i) {
    hull.neighbour_begin[i + 1] += hull.neighbour_begin[i];
  }
  // Faces of each vertex.
  hull.vertex_face_begin.assign(num_vertices + 1, 0);
  for (const ConvexHull::Face& face : hull.faces) {
    for (int i : face.vertices) ++hull.vertex_face_begin[i + 1];
  }
  for (int i = 0; i < num_vertices; ++i) {
    hull.vertex_face_begin[i + 1] += hull.vertex_face_begin[i];
  }
  hull.vertex_faces.resize(hull.vertex_face_begin[num_vertices]);
  {
    std::vector<int> next(hull.vertex_face_begin.begin(),
                          hull.vertex_face_begin.end() - 1);
    for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
      for (int i : hull.faces[f].vertices) hull.vertex_faces[next[i]++] = f;
    }
  }

  // Bounds, extreme vertices, bounding radius.
  hull.lower = hull.upper = hull.vertices[0];
  for (int i = 0; i < num_vertices; ++i) {
    const Vector3& p = hull.vertices[i];
    for (int k = 0; k < 3; ++k) {
      if (p[k] < hull.lower[k]) {
        hull.lower[k] = p[k];
        hull.extreme_vertices[2 * k] = i;
      }
      if (p[k] > hull.upper[k]) {
        hull.upper[k] = p[k];
        hull.extreme_vertices[2 * k + 1] = i;
      }
    }
    hull.bounding_radius = std::max(hull.bounding_radius, p.norm());
  }

  // Volume by the divergence theorem: fans of tetrahedra from the mean
  // vertex (close to the hull, so the terms do not cancel).
  Vector3 mean = Vector3::Zero();
  for (const Vector3& p : hull.vertices) mean += p;
  mean /= static_cast<double>(num_vertices);
  double six_volume = 0.0;
  for (const ConvexHull::Face& face : hull.faces) {
    const Vector3 a = hull.vertices[face.vertices[0]] - mean;
    for (std::size_t k = 1; k + 1 < face.vertices.size(); ++k) {
      const Vector3 b = hull.vertices[face.vertices[k]] - mean;
      const Vector3 c = hull.vertices[face.vertices[k + 1]] - mean;
      six_volume += a.dot(b.cross(c));
    }
  }
  hull.volume = six_volume / 6.0;
  if (!(hull.volume > 0.0) || !std::isfinite(hull.volume)) {
    Fail(context, "the hull has no positive volume (" +
                      std::to_string(hull.volume) +
                      " m^3): the points are nearly degenerate");
  }
  return hull;
}

int ConvexHull::Support(const Vector3& direction, int start) const {
  const int n = static_cast<int>(vertices.size());
  if (n == 0) return -1;
  const bool climb = n > kSupportBruteForceVertices &&
                     neighbour_begin.size() == static_cast<std::size_t>(n) + 1;
  if (!climb) {
    int best = 0;
    double best_value = direction.dot(vertices[0]);
    for (int i = 1; i < n; ++i) {
      const double value = direction.dot(vertices[i]);
      if (value > best_value) {
        best_value = value;
        best = i;
      }
    }
    return best;
  }
  int current = 0;
  double value = 0.0;
  if (start >= 0 && start < n) {
    current = start;
    value = direction.dot(vertices[start]);
  } else {
    current = extreme_vertices[0];
    value = direction.dot(vertices[current]);
    for (int k = 1; k < 6; ++k) {
      const double candidate = direction.dot(vertices[extreme_vertices[k]]);
      if (candidate > value) {
        value = candidate;
        current = extreme_vertices[k];
      }
    }
  }
  // Steepest ascent: each step strictly increases the value, so the climb
  // ends (at most n steps) at a vertex with no strictly higher neighbour.
  for (;;) {
    int next = -1;
    for (int k = neighbour_begin[current]; k < neighbour_begin[current + 1];
         ++k) {
      const int j = neighbours[k];
      const double candidate = direction.dot(vertices[j]);
      if (candidate > value) {
        value = candidate;
        next = j;
      }
    }
    if (next < 0) return current;
    current = next;
  }
}

namespace internal {

double QhullTotalVolume(const std::vector<Vector3>& points) {
  CheckPoints(points, "");
  double volume = 0.0;
  RunQhull(points, MergeDistance(points), "", &volume);
  return volume;
}

}  // namespace internal
}  // namespace sapcontact
