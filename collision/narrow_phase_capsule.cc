// Box (A) - capsule (B) and capsule - capsule. A capsule is its segment
// (body z axis, from -length/2 to +length/2) swept by its radius, so each
// contact is a segment point against the other shape, minus the radius.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sapcontact/collision/geometry_queries.h"
#include "sapcontact/collision/narrow_phase.h"

namespace sapcontact {
namespace {

struct Segment {
  Vector3 start;  // s = 0
  Vector3 delta;  // s = 1 at start + delta
  Vector3 At(double s) const { return start + s * delta; }
};

Segment CapsuleSegment(const Shape& c, const Pose& p) {
  const Vector3 axis = p.orientation * Vector3::UnitZ();
  return {p.position - 0.5 * c.length * axis, c.length * axis};
}

// The box's edge through `on_box` (box frame) along the one axis whose
// `sign` is 0, as a world feature.
ContactFeature BoxEdge(const Pose& box, const Vector3& on_box,
                       const Vector3& sign) {
  int axis = 0;
  for (int i = 0; i < 3; ++i) {
    if (sign[i] == 0.0) axis = i;
  }
  return LineFeature(box.ToWorld(on_box),
                     box.orientation * Vector3::Unit(axis));
}

// Contact of segment point x (box frame) with radius r against the box.
// Its features are not recorded: x comes from a search that places it to
// about 1e-8 of the segment's length, too coarse for rates.
void BoxPointContact(const Vector3& half, const Pose& box, const Vector3& x,
                     double r, double margin, std::vector<ContactPoint>* out) {
  const BoxPointResult q = QueryBoxPoint(half, x);
  const double phi = q.distance - r;
  if (phi > margin) return;
  out->push_back(MakeContact(box.ToWorld(q.surface_point),
                             box.orientation * q.normal, phi));
}

// Contact between A's segment point xa and B's segment point xb (the
// features fa and fb of the two cores there).
void PointPair(const ContactFeature& fa, const ContactFeature& fb,
               const Vector3& fallback, double margin,
               std::vector<ContactPoint>* out) {
  const Vector3& xa = fa.point;
  const Vector3& xb = fb.point;
  const double ra = fa.radius, rb = fb.radius;
  const Vector3 delta = xb - xa;
  const double dist = delta.norm();
  const double phi = dist - ra - rb;
  if (phi > margin) return;
  const bool apart = dist > 1e-12 * (1.0 + ra + rb);
  const Vector3 n = apart ? Vector3(delta / dist) : fallback;
  out->push_back(MakeContact(xa + ra * n, n, phi));
  // Two lines crossing at an angle: their common normal. Parallel lines
  // (touching along a stretch) have no single closest pair: not recorded.
  const bool lines =
      fa.type == FeatureType::kLine && fb.type == FeatureType::kLine;
  if (apart && (!lines || fa.direction.cross(fb.direction).norm() > 1e-6)) {
    out->back().feature_a = fa;
    out->back().feature_b = fb;
  }
}

}  // namespace

void CollideBoxCapsule(const Shape& a, const Pose& pa, const Shape& b,
                       const Pose& pb, double margin,
                       std::vector<ContactPoint>* out) {
  const Vector3 half = 0.5 * a.size;
  const Segment world = CapsuleSegment(b, pb);
  // The segment in the box frame.
  const Segment seg{pa.ToBody(world.start),
                    pa.orientation.conjugate() * world.delta};
  // The signed distance to a convex set is convex: golden-section search
  // for the segment point deepest in (or closest to) the box.
  auto f = [&](double s) { return QueryBoxPoint(half, seg.At(s)).distance; };
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double lo = 0.0, hi = 1.0;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < 80 && hi - lo > 1e-13; ++it) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  double s_best = 0.5 * (lo + hi);
  for (double s : {0.0, 1.0}) {  // the ends, where the minimum often is
    if (f(s) <= f(s_best)) s_best = s;
  }
  const Vector3 x_best = seg.At(s_best);
  const BoxPointResult q = QueryBoxPoint(half, x_best);
  const double phi_best = q.distance - b.radius;
  if (phi_best > margin) return;

  // The box feature nearest to x_best: coordinates outside their slab by
  // more than `tol` are constrained (sign * half); the others are free. The
  // search cannot resolve where a flat minimum ends to better than ~1e-8 of
  // the distance (the distance is flat to second order there): tol covers
  // it.
  const double tol = 1e-6 * (half.norm() + b.radius);
  Vector3 sign = Vector3::Zero();  // 0: free axis
  int constrained = 0;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(x_best[i]) > half[i] + tol) {
      sign[i] = x_best[i] > 0.0 ? 1.0 : -1.0;
      ++constrained;
    }
  }
  const bool face = constrained <= 1;
  if (constrained == 0) {  // inside, or on a face within tol
    int i = 0;
    (x_best.cwiseAbs() - half).maxCoeff(&i);
    sign[i] = x_best[i] >= 0.0 ? 1.0 : -1.0;
  }
  // Clip the segment to the slabs of the free axes.
  double s0 = 0.0, s1 = 1.0;
  for (int j = 0; j < 3; ++j) {
    if (sign[j] != 0.0 || std::abs(seg.delta[j]) < 1e-15) continue;
    double ta = (-half[j] - seg.start[j]) / seg.delta[j];
    double tb = (half[j] - seg.start[j]) / seg.delta[j];
    if (ta > tb) std::swap(ta, tb);
    s0 = std::max(s0, ta);
    s1 = std::min(s1, tb);
  }
  if (constrained == 3 || s0 > s1) s0 = s1 = s_best;
  if ((s1 - s0) * seg.delta.norm() < tol) s0 = s1 = 0.5 * (s0 + s1);
  // The ends of the clipped part against that same feature.
  double phi_min = std::numeric_limits<double>::infinity();
  for (double s : {s0, s1}) {
    const Vector3 x = seg.At(s);
    Vector3 on_box = x.cwiseMax(-half).cwiseMin(half);
    Vector3 n = Vector3::Zero();
    double phi = 0.0;
    if (face) {
      int i = 0;
      sign.cwiseAbs().maxCoeff(&i);
      on_box[i] = sign[i] * half[i];
      n[i] = sign[i];
      phi = sign[i] * x[i] - half[i] - b.radius;
    } else {
      bool consistent = true;
      for (int k = 0; k < 3; ++k) {
        if (sign[k] == 0.0) continue;
        on_box[k] = sign[k] * half[k];
        consistent = consistent && sign[k] * x[k] > half[k];
      }
      if (!consistent) continue;  // this end is nearer another feature
      const Vector3 diff = x - on_box;
      n = diff.normalized();
      phi = diff.norm() - b.radius;
    }
    if (phi <= margin) {
      out->push_back(MakeContact(pa.ToWorld(on_box), pa.orientation * n, phi));
      phi_min = std::min(phi_min, phi);
      // Features: a segment end against the face, edge or vertex. An end
      // where the clipping cut the segment is not recorded, nor the
      // searched closest point (placed to about 1e-8 of the length).
      ContactPoint& c = out->back();
      if (s == 0.0 || s == 1.0) {
        c.feature_a = face ? FaceFeature(pa.ToWorld(on_box), c.normal)
                      : constrained == 2 ? BoxEdge(pa, on_box, sign)
                                         : PointFeature(pa.ToWorld(on_box));
        c.feature_b = PointFeature(world.At(s), b.radius);
      }
    }
    if (s1 == s0) break;
  }
  // A segment crossing over an edge or vertex: its closest point itself.
  if (phi_min > phi_best + tol) {
    BoxPointContact(half, pa, x_best, b.radius, margin, out);
  }
}

void CollideCapsuleCapsule(const Shape& a, const Pose& pa, const Shape& b,
                           const Pose& pb, double margin,
                           std::vector<ContactPoint>* out) {
  const Segment sa = CapsuleSegment(a, pa), sb = CapsuleSegment(b, pb);
  const double ra = a.radius, rb = b.radius;
  // Fallback normal for intersecting axes: perpendicular to both, pointing
  // from A's centre towards B's.
  Vector3 fallback = sa.delta.cross(sb.delta);
  if (fallback.norm() < 1e-12) {
    fallback = sa.delta.norm() > 0.0 ? AnyOrthogonal(sa.delta)
                                     : Vector3(Vector3::UnitZ());
  }
  fallback.normalize();
  if (fallback.dot(pb.position - pa.position) < 0.0) fallback = -fallback;

  // Candidates (points of A's and B's segments): the closest pair, and each
  // of the four segment end points with its closest point on the other
  // segment. On parallel capsules the latter are the two ends of the
  // overlap; elsewhere they are farther and fall outside the margin.
  const double tol = 1e-9 * (a.length + b.length + ra + rb);
  Vector3 done_a[5], done_b[5];
  int done = 0;
  // A's segment point at parameter s against B's at t.
  auto emit = [&](double s, double t) {
    const Vector3 xa = sa.At(s), xb = sb.At(t);
    for (int k = 0; k < done; ++k) {
      if ((done_a[k] - xa).norm() <= tol && (done_b[k] - xb).norm() <= tol) {
        return;
      }
    }
    done_a[done] = xa;
    done_b[done++] = xb;
    PointPair(SegmentFeature(sa.start, sa.delta, s, ra),
              SegmentFeature(sb.start, sb.delta, t, rb), fallback, margin, out);
  };
  double s = 0.0, t = 0.0;
  ClosestSegmentParameters(sa.start, sa.delta, sb.start, sb.delta, &s, &t);
  emit(s, t);
  for (double e : {0.0, 1.0}) {
    emit(e, ClosestSegmentParameter(sb.start, sb.delta, sa.At(e)));
    emit(ClosestSegmentParameter(sa.start, sa.delta, sb.At(e)), e);
  }
}

}  // namespace sapcontact
