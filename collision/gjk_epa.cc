#include "sapcontact/collision/gjk_epa.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sapcontact {
namespace {

// A point of C = B - A with the points of A and B it comes from.
struct MinkowskiVertex {
  Vector3 c{Vector3::Zero()};
  Vector3 a{Vector3::Zero()};
  Vector3 b{Vector3::Zero()};
};

// The support mapping of C = B - A, the one GJK and EPA both query:
// s_C(d) = s_B(d) - s_A(-d), with the points of A and B it comes from.
MinkowskiVertex MinkowskiSupport(const ConvexSupport& a, const ConvexSupport& b,
                                 const Vector3& d) {
  MinkowskiVertex w;
  w.b = b.Support(d);
  w.a = a.Support(-d);
  w.c = w.b - w.a;
  return w;
}

// The tolerances' scales (gjk_epa.h, "Termination"): `scale` the smaller
// of the two shapes' bounding radii, `roundoff` 2.2e-16 times the
// coordinates' magnitude, `touch` the |v| that counts as contact.
struct Scales {
  double scale{0.0};
  double roundoff{0.0};
  double touch{0.0};
};

Scales ToleranceScales(const ConvexSupport& a, const ConvexSupport& b) {
  const double scale_a = a.bounding_radius + a.sweep_radius;
  const double scale_b = b.bounding_radius + b.sweep_radius;
  Scales s;
  s.scale = std::min(scale_a, scale_b) > 0.0 ? std::min(scale_a, scale_b)
                                             : std::max(scale_a, scale_b);
  s.roundoff = 2.2e-16 * (a.center.norm() + b.center.norm() +
                          a.bounding_radius + b.bounding_radius);
  s.touch = kTouchTolerance * s.scale + 64.0 * s.roundoff;
  return s;
}

// The closest point to the origin of the convex hull of some points: the
// indices (into the caller's array) of the points with positive weight and
// the weights (summing to 1).
struct SubSimplex {
  int n{0};
  int index[4]{0, 0, 0, 0};
  double lambda[4]{0.0, 0.0, 0.0, 0.0};
  Vector3 point{Vector3::Zero()};
  double dist2{std::numeric_limits<double>::infinity()};
};

SubSimplex Vertex1(const Vector3* p, int i) {
  SubSimplex r;
  r.n = 1;
  r.index[0] = i;
  r.lambda[0] = 1.0;
  r.point = p[i];
  r.dist2 = p[i].squaredNorm();
  return r;
}

// Segment (i, j): projection of the origin on the line, clamped.
SubSimplex Closest1D(const Vector3* p, int i, int j) {
  const Vector3 d = p[j] - p[i];
  const double dd = d.squaredNorm();
  const double t = dd > 0.0 ? -p[i].dot(d) / dd : 0.0;
  if (!(t > 0.0)) return Vertex1(p, i);
  if (!(t < 1.0)) return Vertex1(p, j);
  SubSimplex r;
  r.n = 2;
  r.index[0] = i;
  r.index[1] = j;
  r.lambda[0] = 1.0 - t;
  r.lambda[1] = t;
  r.point = p[i] + t * d;
  r.dist2 = r.point.squaredNorm();
  return r;
}

void KeepBest(const SubSimplex& candidate, SubSimplex* best) {
  if (candidate.dist2 < best->dist2) *best = candidate;
}

// Triangle (i, j, k): barycentric coordinates of the origin's projection
// on its plane from the signed areas n . (p_j x p_k) (they sum to
// n . n); the edges opposite non-positive coordinates otherwise.
SubSimplex Closest2D(const Vector3* p, int i, int j, int k) {
  const Vector3 n = (p[j] - p[i]).cross(p[k] - p[i]);
  const double nn = n.squaredNorm();
  const double e2 =
      std::max({(p[j] - p[i]).squaredNorm(), (p[k] - p[i]).squaredNorm(),
                (p[k] - p[j]).squaredNorm()});
  SubSimplex best;
  if (!(nn > 1e-24 * e2 * e2)) {  // (nearly) collinear: its edges
    KeepBest(Closest1D(p, i, j), &best);
    KeepBest(Closest1D(p, j, k), &best);
    KeepBest(Closest1D(p, i, k), &best);
    return best;
  }
  const double ai = n.dot(p[j].cross(p[k]));
  const double aj = n.dot(p[k].cross(p[i]));
  const double ak = n.dot(p[i].cross(p[j]));
  if (ai > 0.0 && aj > 0.0 && ak > 0.0) {
    const double sum = ai + aj + ak;
    best.n = 3;
    best.index[0] = i;
    best.index[1] = j;
    best.index[2] = k;
    best.lambda[0] = ai / sum;
    best.lambda[1] = aj / sum;
    best.lambda[2] = ak / sum;
    best.point = (n.dot(p[i]) / nn) * n;
    best.dist2 = best.point.squaredNorm();
    return best;
  }
  if (!(ai > 0.0)) KeepBest(Closest1D(p, j, k), &best);
  if (!(aj > 0.0)) KeepBest(Closest1D(p, i, k), &best);
  if (!(ak > 0.0)) KeepBest(Closest1D(p, i, j), &best);
  return best;
}

double Volume6(const Vector3& a, const Vector3& b, const Vector3& c,
               const Vector3& d) {
  return (b - a).dot((c - a).cross(d - a));
}

// Tetrahedron (0, 1, 2, 3): the origin's barycentric coordinates from the
// signed volumes with the origin in place of each vertex; inside when they
// all have the sign of the whole; else the faces opposite the others.
SubSimplex Closest3D(const Vector3* p) {
  const Vector3 o = Vector3::Zero();
  const double det = Volume6(p[0], p[1], p[2], p[3]);
  double l2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      l2 = std::max(l2, (p[j] - p[i]).squaredNorm());
    }
  }
  SubSimplex best;
  const int faces[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  if (!(std::abs(det) > 1e-13 * l2 * std::sqrt(l2))) {  // flat
    for (const auto& f : faces) KeepBest(Closest2D(p, f[0], f[1], f[2]), &best);
    return best;
  }
  const double c[4] = {
      Volume6(o, p[1], p[2], p[3]), Volume6(p[0], o, p[2], p[3]),
      Volume6(p[0], p[1], o, p[3]), Volume6(p[0], p[1], p[2], o)};
  bool inside = true;
  for (int i = 0; i < 4; ++i) inside = inside && c[i] * det > 0.0;
  if (inside) {
    const double sum = c[0] + c[1] + c[2] + c[3];
    best.n = 4;
    for (int i = 0; i < 4; ++i) {
      best.index[i] = i;
      best.lambda[i] = c[i] / sum;
    }
    best.point = Vector3::Zero();
    best.dist2 = 0.0;
    return best;
  }
  for (int i = 0; i < 4; ++i) {
    if (!(c[i] * det > 0.0)) {
      KeepBest(Closest2D(p, faces[i][0], faces[i][1], faces[i][2]), &best);
    }
  }
  return best;
}

// The GJK simplex: up to 4 vertices of C.
struct Simplex {
  int n{0};
  MinkowskiVertex v[4];
  double lambda[4]{1.0, 0.0, 0.0, 0.0};
};

// Replaces the simplex by the face of it closest to the origin; returns the
// closest point.
Vector3 ReduceSimplex(Simplex* s, double* dist2) {
  Vector3 p[4];
  for (int i = 0; i < s->n; ++i) p[i] = s->v[i].c;
  SubSimplex r;
  switch (s->n) {
    case 1:
      r = Vertex1(p, 0);
      break;
    case 2:
      r = Closest1D(p, 0, 1);
      break;
    case 3:
      r = Closest2D(p, 0, 1, 2);
      break;
    default:
      r = Closest3D(p);
      break;
  }
  Simplex reduced;
  reduced.n = r.n;
  for (int i = 0; i < r.n; ++i) {
    reduced.v[i] = s->v[r.index[i]];
    reduced.lambda[i] = r.lambda[i];
  }
  *s = reduced;
  *dist2 = r.dist2;
  return r.point;
}

// ---------------------------------------------------------------------------
// EPA

constexpr int kMaxVertices = kEpaMaxIterations + 8;
constexpr int kMaxFaces = 2 * kMaxVertices + 8;

struct EpaFace {
  int v[3]{0, 0, 0};
  // adj[e]: the face across edge e (from v[e] to v[(e + 1) % 3]), and the
  // index of that edge in it.
  int adj[3]{-1, -1, -1};
  int adj_edge[3]{0, 0, 0};
  Vector3 normal{Vector3::UnitZ()};  // outward unit normal
  double dist{0.0};                  // normal . vertices (signed)
  bool alive{false};
};

struct EpaWorkspace {
  std::array<MinkowskiVertex, kMaxVertices> vertices;
  std::array<EpaFace, kMaxFaces> faces;
  std::array<int, kMaxFaces> free_faces;
  std::array<int, kMaxFaces> killed;
  std::array<int, 2 * kMaxFaces + 8> stack_face, stack_edge;
  std::array<int, 2 * kMaxFaces> horizon_face, horizon_edge, new_faces;
  std::array<Vector3, 2 * kMaxFaces> fan_normals;
  std::array<int, kMaxVertices> start_of;  // new face starting at a vertex
  std::array<int, kMaxVertices> next_vertex;
  std::array<uint64_t, kMaxVertices> start_stamp{};
  int num_vertices{0};
  int num_faces{0};  // slots used (alive or free)
  int num_free{0};
  uint64_t stamp{0};
};

class Epa {
 public:
  Epa(const ConvexSupport& a, const ConvexSupport& b, double tolerance,
      double length_eps, EpaWorkspace* ws)
      : a_(a), b_(b), tol_(tolerance), eps_(length_eps), ws_(*ws) {
    ws_.num_vertices = ws_.num_faces = ws_.num_free = 0;
  }

  MinkowskiVertex Support(const Vector3& d) const {
    return MinkowskiSupport(a_, b_, d);
  }

  // Builds a tetrahedron from GJK's final simplex (1 to 4 points near or
  // around the origin) by supports off its affine hull.
  bool Init(const Simplex& simplex) {
    MinkowskiVertex p[4];
    int n = simplex.n;
    for (int i = 0; i < n; ++i) p[i] = simplex.v[i];
    if (n == 1) {
      double best = eps_;
      int found = 0;
      for (int k = 0; k < 6; ++k) {
        Vector3 d = Vector3::Zero();
        d[k / 2] = (k % 2) ? -1.0 : 1.0;
        const MinkowskiVertex w = Support(d);
        const double dist = (w.c - p[0].c).norm();
        if (dist > best) {
          best = dist;
          p[1] = w;
          found = 1;
        }
      }
      if (!found) return false;
      n = 2;
    }
    if (n == 2) {
      const Vector3 e = p[1].c - p[0].c;
      const double len = e.norm();
      if (!(len > eps_)) return false;
      const Vector3 u = e / len;
      const Vector3 d1 = AnyPerpendicular(u);
      const Vector3 d2 = u.cross(d1);
      double best = eps_;
      bool found = false;
      for (const Vector3& d : {d1, Vector3(-d1), d2, Vector3(-d2)}) {
        const MinkowskiVertex w = Support(d);
        const Vector3 off = w.c - p[0].c;
        const double dist = (off - off.dot(u) * u).norm();
        if (dist > best) {
          best = dist;
          p[2] = w;
          found = true;
        }
      }
      if (!found) return false;
      n = 3;
    }
    if (n == 3) {
      Vector3 nt = (p[1].c - p[0].c).cross(p[2].c - p[0].c);
      const double len = nt.norm();
      if (!(len > 0.0)) return false;
      nt /= len;
      const MinkowskiVertex up = Support(nt), down = Support(-nt);
      const double h_up = nt.dot(up.c - p[0].c);
      const double h_down = -nt.dot(down.c - p[0].c);
      // Prefer the apex on the origin's side (the tetrahedron then holds
      // the origin when it is off the triangle's plane).
      const double origin_side = -nt.dot(p[0].c);
      const bool up_ok = h_up > eps_, down_ok = h_down > eps_;
      if (!up_ok && !down_ok) return false;
      bool use_up = up_ok && (!down_ok || h_up >= h_down);
      if (origin_side > 0.0 && up_ok) use_up = true;
      if (origin_side < 0.0 && down_ok) use_up = false;
      p[3] = use_up ? up : down;
      n = 4;
    }
    for (int i = 0; i < 4; ++i) ws_.vertices[i] = p[i];
    ws_.num_vertices = 4;
    const Vector3 centroid = 0.25 * (p[0].c + p[1].c + p[2].c + p[3].c);
    interior_ = centroid;
    const int tri[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (const auto& t : tri) {
      int v0 = t[0], v1 = t[1], v2 = t[2];
      const Vector3 nrm = (p[v1].c - p[v0].c).cross(p[v2].c - p[v0].c);
      if (nrm.dot(centroid - p[v0].c) > 0.0) std::swap(v1, v2);
      const int f = NewFace(v0, v1, v2);
      if (f < 0) return false;
    }
    // Adjacency by matching each directed edge with its reverse.
    for (int f = 0; f < 4; ++f) {
      for (int e = 0; e < 3; ++e) {
        const int u = ws_.faces[f].v[e], w = ws_.faces[f].v[(e + 1) % 3];
        for (int g = 0; g < 4; ++g) {
          if (g == f) continue;
          for (int h = 0; h < 3; ++h) {
            if (ws_.faces[g].v[h] == w && ws_.faces[g].v[(h + 1) % 3] == u) {
              ws_.faces[f].adj[e] = g;
              ws_.faces[f].adj_edge[e] = h;
            }
          }
        }
        if (ws_.faces[f].adj[e] < 0) return false;
      }
    }
    return true;
  }

  // Runs the expansion; returns the status and the closest face in *best.
  // Also tracks the smallest support value h_C(m) = m . w over the face
  // normals m tried: an upper bound of the depth (attained along m), while
  // the closest face's distance is a lower bound.
  ConvexDistanceStatus Run(int* best, int* iterations) {
    *iterations = 0;
    for (;;) {
      const int f = ClosestFace();
      *best = f;
      if (f < 0) return ConvexDistanceStatus::kEpaDegenerate;
      const EpaFace& face = ws_.faces[f];
      const MinkowskiVertex w = Support(face.normal);
      const double upper = face.normal.dot(w.c);
      if (!have_upper_ || upper < upper_) {
        have_upper_ = true;
        upper_ = upper;
        upper_normal_ = face.normal;
        upper_vertex_ = w;
      }
      if (!(upper - face.dist > tol_)) {
        return ConvexDistanceStatus::kPenetrating;
      }
      // A support point the polytope already has: the face's plane is off by
      // round-off (thin faces of a large C); nothing more can be learned.
      for (int i = 0; i < ws_.num_vertices; ++i) {
        if (ws_.vertices[i].c == w.c) return ConvexDistanceStatus::kPenetrating;
      }
      if (*iterations >= kEpaMaxIterations ||
          ws_.num_vertices >= kMaxVertices) {
        return ConvexDistanceStatus::kEpaIterationCap;
      }
      ++*iterations;
      const Expansion e = Expand(f, w);
      if (e == Expansion::kFull) return ConvexDistanceStatus::kEpaIterationCap;
      if (e == Expansion::kDegenerate) {
        // Tiny faces near the closest point whose planes round-off no longer
        // determines: converged as far as the arithmetic allows, unless the
        // step was large (then the polytope itself is suspect).
        precision_limit_ = true;
        return upper - face.dist <= 1024.0 * tol_
                   ? ConvexDistanceStatus::kPenetrating
                   : ConvexDistanceStatus::kEpaDegenerate;
      }
    }
  }

  // The best upper bound of the depth seen (valid after Run).
  bool have_upper() const { return have_upper_; }
  // Whether Run stopped on a failed expansion (round-off) rather than on
  // its tolerance.
  bool precision_limit() const { return precision_limit_; }
  double upper() const { return upper_; }
  const Vector3& upper_normal() const { return upper_normal_; }
  const MinkowskiVertex& upper_vertex() const { return upper_vertex_; }

  const EpaFace& face(int f) const { return ws_.faces[f]; }
  int num_face_slots() const { return ws_.num_faces; }
  double tolerance() const { return tol_; }
  const MinkowskiVertex& vertex(int i) const { return ws_.vertices[i]; }

 private:
  enum class Expansion { kDone, kFull, kDegenerate };

  static Vector3 AnyPerpendicular(const Vector3& u) {
    const Vector3 a = u.cwiseAbs();
    const Vector3 e = (a.x() <= a.y() && a.x() <= a.z()) ? Vector3::UnitX()
                      : (a.y() <= a.z())                 ? Vector3::UnitY()
                                                         : Vector3::UnitZ();
    return u.cross(e).normalized();
  }

  // A face on vertices (v0, v1, v2) counter-clockwise seen from outside;
  // -1 when degenerate (zero area) or out of slots.
  int NewFace(int v0, int v1, int v2) {
    const Vector3& p0 = ws_.vertices[v0].c;
    Vector3 n = (ws_.vertices[v1].c - p0).cross(ws_.vertices[v2].c - p0);
    const double len = n.norm();
    if (!(len > 0.0)) return -1;
    return NewFace(v0, v1, v2, n / len);
  }
  // The same with its unit normal n computed by the caller.
  int NewFace(int v0, int v1, int v2, const Vector3& n) {
    const Vector3& p0 = ws_.vertices[v0].c;
    int f;
    if (ws_.num_free > 0) {
      f = ws_.free_faces[--ws_.num_free];
    } else {
      if (ws_.num_faces >= kMaxFaces) return -1;
      f = ws_.num_faces++;
    }
    EpaFace& face = ws_.faces[f];
    face.v[0] = v0;
    face.v[1] = v1;
    face.v[2] = v2;
    face.adj[0] = face.adj[1] = face.adj[2] = -1;
    face.normal = n;
    face.dist = n.dot(p0);
    face.alive = true;
    return f;
  }

  int ClosestFace() const {
    int best = -1;
    double best_dist = std::numeric_limits<double>::infinity();
    for (int f = 0; f < ws_.num_faces; ++f) {
      const EpaFace& face = ws_.faces[f];
      if (face.alive && face.dist < best_dist) {
        best_dist = face.dist;
        best = f;
      }
    }
    return best;
  }

  bool Visible(int f, const Vector3& w) const {
    const EpaFace& face = ws_.faces[f];
    return face.normal.dot(w - ws_.vertices[face.v[0]].c) > 0.0;
  }

  // Removes the faces seen from w (a connected cap found by a depth-first
  // walk from face f) and closes the hole with a fan of triangles to w. On
  // failure the polytope is left as it was.
  Expansion Expand(int f, const MinkowskiVertex& w) {
    int num_killed = 0, num_horizon = 0, top = 0;
    auto kill = [&](int g) {
      ws_.faces[g].alive = false;
      ws_.killed[num_killed++] = g;
    };
    auto revert = [&]() {
      for (int k = 0; k < num_killed; ++k) {
        ws_.faces[ws_.killed[k]].alive = true;
      }
    };
    kill(f);
    for (int e = 2; e >= 0; --e) {
      ws_.stack_face[top] = ws_.faces[f].adj[e];
      ws_.stack_edge[top++] = ws_.faces[f].adj_edge[e];
    }
    while (top > 0) {
      --top;
      const int g = ws_.stack_face[top];
      const int e = ws_.stack_edge[top];
      if (!ws_.faces[g].alive) continue;
      if (Visible(g, w.c)) {
        kill(g);
        // The other two edges, the next one (e + 1) walked first.
        for (int k = 2; k >= 1; --k) {
          const int edge = (e + k) % 3;
          ws_.stack_face[top] = ws_.faces[g].adj[edge];
          ws_.stack_edge[top++] = ws_.faces[g].adj_edge[edge];
        }
      } else {
        ws_.horizon_face[num_horizon] = g;
        ws_.horizon_edge[num_horizon++] = e;
      }
    }
    // Room for the vertex and the fan (killed slots are reused).
    if (ws_.num_vertices >= kMaxVertices ||
        ws_.num_free + num_killed + (kMaxFaces - ws_.num_faces) < num_horizon) {
      revert();
      return Expansion::kFull;
    }
    // The horizon must be one loop (each vertex starts one edge, and
    // following the edges from any vertex visits all of them), and no fan
    // triangle may be flat.
    const uint64_t stamp = ++ws_.stamp;
    bool ok = num_horizon >= 3;
    for (int k = 0; k < num_horizon && ok; ++k) {
      const EpaFace& g = ws_.faces[ws_.horizon_face[k]];
      const int e = ws_.horizon_edge[k];
      const int start = g.v[(e + 1) % 3], end = g.v[e];  // new face's edge 0
      ok = ws_.start_stamp[start] != stamp;
      ws_.start_stamp[start] = stamp;
      ws_.next_vertex[start] = end;
      // The fan triangle (start, end, w): not flat, its plane no nearer the
      // origin than the face it replaces (the polytope only grows), and
      // the interior point behind it (a flipped triangle from round-off
      // fails these).
      const Vector3& p = ws_.vertices[start].c;
      Vector3 n = (ws_.vertices[end].c - p).cross(w.c - p);
      const double len = n.norm();
      ok = ok && len > 0.0;
      if (ok) {
        n /= len;
        ok = n.dot(p) >= ws_.faces[f].dist - tol_ && n.dot(interior_ - p) < 0.0;
        ws_.fan_normals[k] = n;
      }
    }
    if (ok) {
      const int first =
          ws_.faces[ws_.horizon_face[0]].v[(ws_.horizon_edge[0] + 1) % 3];
      int vtx = first;
      for (int k = 0; k < num_horizon && ok; ++k) {
        ok = ws_.start_stamp[vtx] == stamp && (k == 0 || vtx != first);
        vtx = ws_.next_vertex[vtx];
      }
      ok = ok && vtx == first;
    }
    if (!ok) {
      revert();
      return Expansion::kDegenerate;
    }
    // Commit: the killed faces' slots are free, then the fan.
    const int wi = ws_.num_vertices++;
    ws_.vertices[wi] = w;
    for (int k = 0; k < num_killed; ++k) {
      ws_.free_faces[ws_.num_free++] = ws_.killed[k];
    }
    for (int k = 0; k < num_horizon; ++k) {
      const int g = ws_.horizon_face[k];
      const int e = ws_.horizon_edge[k];
      const int start = ws_.faces[g].v[(e + 1) % 3], end = ws_.faces[g].v[e];
      // Cannot fail: checked above.
      const int nf = NewFace(start, end, wi, ws_.fan_normals[k]);
      ws_.new_faces[k] = nf;
      ws_.start_of[start] = nf;
      ws_.faces[nf].adj[0] = g;
      ws_.faces[nf].adj_edge[0] = e;
      ws_.faces[g].adj[e] = nf;
      ws_.faces[g].adj_edge[e] = 0;
    }
    for (int k = 0; k < num_horizon; ++k) {
      const int nf = ws_.new_faces[k];
      EpaFace& face = ws_.faces[nf];
      // Edge 1 runs end -> w; the new face starting at `end` has edge 2
      // running w -> end.
      const int next = ws_.start_of[face.v[1]];
      face.adj[1] = next;
      face.adj_edge[1] = 2;
      ws_.faces[next].adj[2] = nf;
      ws_.faces[next].adj_edge[2] = 1;
    }
    return Expansion::kDone;
  }

  const ConvexSupport& a_;
  const ConvexSupport& b_;
  const double tol_;
  const double eps_;
  EpaWorkspace& ws_;
  Vector3 interior_{Vector3::Zero()};  // inside the polytope for good
  bool have_upper_{false};
  bool precision_limit_{false};
  double upper_{0.0};
  Vector3 upper_normal_{Vector3::UnitZ()};
  MinkowskiVertex upper_vertex_;
};

// Without a usable polytope: the separation along the centre line (a lower
// bound of the signed distance), with the supports as witnesses.
ConvexDistanceResult CentreLineFallback(const ConvexSupport& a,
                                        const ConvexSupport& b) {
  ConvexDistanceResult r;
  Vector3 d = b.center - a.center;
  const double len = d.norm();
  d = len > 0.0 ? Vector3(d / len) : Vector3(Vector3::UnitZ());
  r.point_a = a.Support(d);
  r.point_b = b.Support(-d);
  r.normal = d;
  r.distance = d.dot(r.point_b - r.point_a);
  r.status = ConvexDistanceStatus::kEpaDegenerate;
  return r;
}

// ---------------------------------------------------------------------------
// GJK, then the three ways a query ends.

// Where the GJK loop stopped.
struct GjkRun {
  // The simplex holding the point v of C closest to the origin found so far
  // (with its barycentric weights), and vv = |v|^2.
  Simplex simplex;
  Vector3 v{Vector3::Zero()};
  double vv{0.0};
  int iterations{0};
  // The origin is within `touch` of C or inside the simplex: EPA's turn.
  bool contact{false};
  // Stopped by kGjkMaxIterations before the bounds met.
  bool capped{true};
  // Proved farther than max_distance by the support `beyond_support`
  // (v . w = beyond_vw).
  bool beyond{false};
  MinkowskiVertex beyond_support;
  double beyond_vw{0.0};
  // The largest lower bound v . w / |v| so far: the separation along
  // best_lower_normal = v / |v|.
  double best_lower{-std::numeric_limits<double>::infinity()};
  Vector3 best_lower_normal{Vector3::UnitZ()};
};

// The GJK loop (gjk_epa.h): from the support along the centre line, adds
// the support along -v to the simplex and reduces it to the face closest
// to the origin until |v| and the lower bound v . w / |v| agree, a support
// repeats, |v| stops decreasing, the origin is reached (contact) or the
// distance is proved beyond max_distance.
GjkRun RunGjk(const ConvexSupport& a, const ConvexSupport& b,
              double max_distance, const Scales& t) {
  GjkRun run;
  Simplex& simplex = run.simplex;
  Vector3 d0 = b.center - a.center;
  if (!(d0.squaredNorm() > 0.0)) d0 = Vector3::UnitX();
  simplex.n = 1;
  simplex.v[0] = MinkowskiSupport(a, b, -d0);
  simplex.lambda[0] = 1.0;
  Vector3& v = run.v;
  double& vv = run.vv;
  v = simplex.v[0].c;
  vv = v.squaredNorm();
  int it = 0;
  for (; it < kGjkMaxIterations; ++it) {
    if (vv <= t.touch * t.touch) {
      run.contact = true;
      run.capped = false;
      break;
    }
    const MinkowskiVertex w = MinkowskiSupport(a, b, -v);
    const double vw = v.dot(w.c);
    // All of C lies in {x : v . x >= v . w}: distance >= v . w / |v|.
    if (vw > 0.0 && vw * vw > max_distance * max_distance * vv) {
      run.beyond = true;
      run.beyond_support = w;
      run.beyond_vw = vw;
      run.iterations = it + 1;
      return run;
    }
    const double mu = std::sqrt(vv);
    if (vw / mu > run.best_lower) {  // the best separation seen, and along what
      run.best_lower = vw / mu;
      run.best_lower_normal = v / mu;
    }
    if (vv - vw <= mu * (kGjkRelativeTolerance * mu + 64.0 * t.roundoff)) {
      run.capped = false;
      break;
    }
    bool repeated = false;
    for (int i = 0; i < simplex.n; ++i) {
      repeated = repeated || (w.c - simplex.v[i].c).squaredNorm() <=
                                 t.roundoff * t.roundoff;
    }
    if (repeated) {
      run.capped = false;
      break;
    }
    Simplex next = simplex;
    next.v[next.n++] = w;
    double next_vv = 0.0;
    const Vector3 next_v = ReduceSimplex(&next, &next_vv);
    if (!(next_vv < vv)) {  // no progress: round-off
      run.capped = false;
      break;
    }
    simplex = next;
    v = next_v;
    vv = next_vv;
    if (simplex.n == 4) {  // the origin is inside the tetrahedron
      run.contact = true;
      run.capped = false;
      ++it;
      break;
    }
  }
  run.iterations = it;
  return run;
}

// GJK proved the distance beyond max_distance: that lower bound, along v.
ConvexDistanceResult BeyondResult(const GjkRun& run) {
  ConvexDistanceResult result;
  result.distance = run.beyond_vw / std::sqrt(run.vv);
  result.normal = run.v / std::sqrt(run.vv);
  result.status = ConvexDistanceStatus::kBeyond;
  result.gjk_iterations = run.iterations;
  result.point_b = run.beyond_support.b;
  result.point_a = run.beyond_support.a;
  return result;
}

// Separated shapes: the distance |v| and the closest points, the simplex's
// weights applied to the points of A and B.
ConvexDistanceResult SeparatedResult(const GjkRun& run, double roundoff) {
  ConvexDistanceResult result;
  result.gjk_iterations = run.iterations;
  const double mu = std::sqrt(run.vv);
  result.status = run.capped ? ConvexDistanceStatus::kGjkIterationCap
                             : ConvexDistanceStatus::kSeparated;
  // Stopped by the cap before the bounds met: the best lower bound, a
  // separation attained along its direction (conservative: at most the
  // distance), with the simplex's witnesses (near the contact). (Stopping
  // on round-off keeps |v|: on a cylinder's curved side |v| converges to
  // the distance faster than v's direction to the normal, so |v| beats
  // the separation along the last direction.)
  const bool use_lower =
      run.capped && run.best_lower > 0.0 &&
      mu - run.best_lower > kGjkRelativeTolerance * mu + 64.0 * roundoff;
  result.point_a = Vector3::Zero();
  result.point_b = Vector3::Zero();
  for (int i = 0; i < run.simplex.n; ++i) {
    result.point_a += run.simplex.lambda[i] * run.simplex.v[i].a;
    result.point_b += run.simplex.lambda[i] * run.simplex.v[i].b;
  }
  result.distance = mu;
  result.normal = run.v / mu;
  if (use_lower) {
    result.distance = run.best_lower;
    result.normal = run.best_lower_normal;
  }
  return result;
}

// EPA's witness points for its closest face `best`: the faces coplanar
// with it (a face of C is often split into several triangles) have the
// same distance; the witnesses come from the one holding the origin's
// projection q (the nearest to q), its barycentric weights applied to the
// points of A and B.
void EpaWitnesses(const Epa& epa, int best, Vector3* point_a,
                  Vector3* point_b) {
  const EpaFace& face = epa.face(best);
  const Vector3 q = face.dist * face.normal;
  int holder = best;
  double holder_dist2 = std::numeric_limits<double>::infinity();
  double lambda[3] = {1.0, 0.0, 0.0};
  for (int f = 0; f < epa.num_face_slots(); ++f) {
    const EpaFace& g = epa.face(f);
    if (!g.alive || g.dist > face.dist + epa.tolerance() ||
        g.normal.dot(face.normal) < 0.0) {
      continue;
    }
    const Vector3 p[3] = {epa.vertex(g.v[0]).c - q, epa.vertex(g.v[1]).c - q,
                          epa.vertex(g.v[2]).c - q};
    const SubSimplex r = Closest2D(p, 0, 1, 2);
    if (r.dist2 < holder_dist2) {
      holder_dist2 = r.dist2;
      holder = f;
      lambda[0] = lambda[1] = lambda[2] = 0.0;
      for (int i = 0; i < r.n; ++i) lambda[r.index[i]] = r.lambda[i];
    }
  }
  const EpaFace& h = epa.face(holder);
  const MinkowskiVertex& p0 = epa.vertex(h.v[0]);
  const MinkowskiVertex& p1 = epa.vertex(h.v[1]);
  const MinkowskiVertex& p2 = epa.vertex(h.v[2]);
  *point_a = lambda[0] * p0.a + lambda[1] * p1.a + lambda[2] * p2.a;
  *point_b = lambda[0] * p0.b + lambda[1] * p1.b + lambda[2] * p2.b;
}

// Overlapping or touching shapes: EPA from GJK's final simplex, the depth
// and normal of its closest face and the witnesses on it; the centre-line
// fallback without a usable polytope.
ConvexDistanceResult PenetrationResult(const ConvexSupport& a,
                                       const ConvexSupport& b,
                                       const GjkRun& gjk, const Scales& t) {
  ConvexDistanceResult result;
  result.gjk_iterations = gjk.iterations;
  thread_local EpaWorkspace workspace;
  Epa epa(a, b, kEpaTolerance * t.scale + 1024.0 * t.roundoff,
          1e-12 * t.scale + 64.0 * t.roundoff, &workspace);
  if (!epa.Init(gjk.simplex)) {
    ConvexDistanceResult fallback = CentreLineFallback(a, b);
    fallback.gjk_iterations = result.gjk_iterations;
    return fallback;
  }
  int best = -1;
  result.status = epa.Run(&best, &result.epa_iterations);
  if (best < 0) {
    ConvexDistanceResult fallback = CentreLineFallback(a, b);
    fallback.gjk_iterations = result.gjk_iterations;
    fallback.epa_iterations = result.epa_iterations;
    return fallback;
  }
  EpaWitnesses(epa, best, &result.point_a, &result.point_b);
  // C's boundary point closest to the origin is dist * normal = b - a:
  // B moves along -normal to separate.
  const EpaFace& face = epa.face(best);
  result.distance = -face.dist;
  result.normal = -face.normal;
  if ((result.status != ConvexDistanceStatus::kPenetrating ||
       epa.precision_limit()) &&
      epa.have_upper()) {
    // Stopped early (deep penetration of curved shapes: a nearly
    // equidistant boundary to refine all around; or round-off): the best
    // direction tried, whose separation is attained by its support points
    // and is at most the true signed distance (conservative). The witnesses
    // stay those of the closest face (near the contact; a support point can
    // be any corner of a face).
    result.distance = -epa.upper();
    result.normal = -epa.upper_normal();
  }
  return result;
}

}  // namespace

ConvexDistanceResult ComputeConvexDistance(const ConvexSupport& a,
                                           const ConvexSupport& b,
                                           double max_distance) {
  const Scales t = ToleranceScales(a, b);
  const GjkRun gjk = RunGjk(a, b, max_distance, t);
  if (gjk.beyond) return BeyondResult(gjk);
  if (!gjk.contact) return SeparatedResult(gjk, t.roundoff);
  return PenetrationResult(a, b, gjk, t);
}

}  // namespace sapcontact
