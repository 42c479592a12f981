#include "sapcontact/collision/polygon_clipping.h"

#include <algorithm>

namespace sapcontact {

int ClipPolygon(const Vector3* in, int n_in, const ClipPlane& plane, double eps,
                Vector3* out) {
  int n_out = 0;
  for (int k = 0; k < n_in; ++k) {
    const Vector3& p = in[k];
    const Vector3& q = in[(k + 1) % n_in];
    const double dp = plane.normal.dot(p) - plane.offset;
    const double dq = plane.normal.dot(q) - plane.offset;
    if (dp <= eps) out[n_out++] = p;
    if ((dp <= eps) != (dq <= eps)) {
      out[n_out++] = p + (dp / (dp - dq)) * (q - p);
    }
  }
  return n_out;
}

int ClipPolygonToPlanes(std::vector<Vector3>* polygon, int n,
                        const ClipPlane* planes, int num_planes, double eps,
                        std::vector<Vector3>* scratch) {
  for (int k = 0; k < num_planes && n > 0; ++k) {
    // Both buffers grow together (they swap roles), so that repeated calls
    // stop allocating once they have seen their largest polygon.
    const size_t need = std::max(static_cast<size_t>(2 * n), polygon->size());
    if (scratch->size() < need) scratch->resize(need);
    n = ClipPolygon(polygon->data(), n, planes[k], eps, scratch->data());
    std::swap(*polygon, *scratch);
  }
  return n;
}

bool ClipSegment(const Vector3& p0, const Vector3& p1, const ClipPlane* planes,
                 int num_planes, double eps, double* t0, double* t1) {
  double lo = 0.0, hi = 1.0;
  for (int k = 0; k < num_planes; ++k) {
    const double d0 = planes[k].normal.dot(p0) - planes[k].offset;
    const double d1 = planes[k].normal.dot(p1) - planes[k].offset;
    const bool in0 = d0 <= eps, in1 = d1 <= eps;
    if (!in0 && !in1) return false;
    if (in0 == in1) continue;
    // One end out: the crossing of the plane itself (as ClipPolygon), in
    // [0, 1] when the other end is within eps beyond it.
    const double t = std::clamp(d0 / (d0 - d1), 0.0, 1.0);
    if (!in0) lo = std::max(lo, t);
    if (!in1) hi = std::min(hi, t);
  }
  *t0 = lo;
  *t1 = hi;
  return lo <= hi;
}

void PolygonSidePlanes(const Vector3* polygon, int n, const Vector3& normal,
                       ClipPlane* planes) {
  double extent = 0.0;
  for (int k = 1; k < n; ++k) {
    extent = std::max(extent, (polygon[k] - polygon[0]).norm());
  }
  for (int k = 0; k < n; ++k) {
    const Vector3& p = polygon[k];
    const Vector3 edge = polygon[(k + 1) % n] - p;
    Vector3 u = edge.cross(normal);
    const double len = u.norm();
    if (len <= 1e-12 * extent || len == 0.0) {
      planes[k] = {Vector3::Zero(), 0.0};
      continue;
    }
    u /= len;
    planes[k] = {u, u.dot(p)};
  }
}

void EmitFaceContacts(const Vector3* points, int n, const Vector3& n_ref,
                      double plane_offset, bool ref_is_a, double margin,
                      double dedup_distance, std::vector<ContactPoint>* out) {
  const Vector3 normal = ref_is_a ? n_ref : Vector3(-n_ref);
  const size_t first = out->size();
  for (int k = 0; k < n; ++k) {
    const Vector3& x = points[k];
    const double phi = n_ref.dot(x) - plane_offset;
    if (phi > margin) continue;
    bool duplicate = false;
    for (size_t c = first; c < out->size() && !duplicate; ++c) {
      duplicate = ((*out)[c].position - (x - 0.5 * phi * n_ref)).norm() <=
                  dedup_distance;
    }
    if (duplicate) continue;
    // x is on the incident surface; x - phi n_ref on the reference plane.
    ContactPoint cp;
    cp.position = x - 0.5 * phi * n_ref;
    cp.normal = normal;
    cp.phi = phi;
    out->push_back(cp);
  }
}

}  // namespace sapcontact
