// CalcContactRate: closed-form rates of a contact from its features
// (collision/contact_motion.h, docs/theory.md §21).
#include "sapcontact/collision/contact_motion.h"

#include <cmath>
#include <stdexcept>

namespace sapcontact {
namespace {

// The rates in terms of "first" feature X (velocity field ux) and "second"
// feature Y (uy), with m the unit direction from X to Y; the caller turns
// m into the normal from A to B.
struct Rates {
  double phi;
  Vector3 position, m;
};

// Y's point x (radius r) against X's face (point a, outward normal m):
// phi = m . (x - a) - r, position x - (r + phi / 2) m.
Rates PointFace(const ContactFeature& face, const RigidVelocity& ux,
                const ContactFeature& point, const RigidVelocity& uy,
                double phi) {
  const Vector3& m = face.direction;
  const Vector3& x = point.point;
  const Vector3 dm = ux.angular.cross(m);
  // d/ds [m . (x - a)]: dm . (x - a) + m . (u_y(x) - u_x(a)) reduces to the
  // relative velocity of the two bodies' points at x along m.
  const double dphi = m.dot(uy.At(x) - ux.At(x));
  const Vector3 dp =
      uy.At(x) - 0.5 * dphi * m - (point.radius + 0.5 * phi) * dm;
  return {dphi, dp, dm};
}

// X's point x1 against Y's point x2: m = (x2 - x1) / L, phi = L - radii,
// position (x1 + x2) / 2 + (r1 - r2) / 2 m.
Rates PointPoint(const ContactFeature& f1, const RigidVelocity& ux,
                 const ContactFeature& f2, const RigidVelocity& uy) {
  const Vector3 d = f2.point - f1.point;
  const double length = d.norm();
  const Vector3 m = d / length;
  const Vector3 u1 = ux.At(f1.point), u2 = uy.At(f2.point);
  const Vector3 dd = u2 - u1;
  const double dphi = m.dot(dd);
  const Vector3 dm = (dd - dphi * m) / length;
  const Vector3 dp = 0.5 * (u1 + u2) + 0.5 * (f1.radius - f2.radius) * dm;
  return {dphi, dp, dm};
}

// X's line (a, e) against Y's point x: w = x - a, d = w - (w . e) e (from
// the line's closest point y = a + (w . e) e to x), m = d / |d|.
Rates LinePoint(const ContactFeature& line, const RigidVelocity& ux,
                const ContactFeature& point, const RigidVelocity& uy) {
  const Vector3& a = line.point;
  const Vector3& e = line.direction;
  const Vector3& x = point.point;
  const Vector3 w = x - a;
  const double we = w.dot(e);
  const Vector3 d = w - we * e;
  const double length = d.norm();
  const Vector3 m = d / length;
  const Vector3 dw = uy.At(x) - ux.At(a);
  const Vector3 de = ux.angular.cross(e);
  const double dwe = dw.dot(e) + w.dot(de);
  const Vector3 dd = dw - dwe * e - we * de;
  const double dphi = m.dot(dd);
  const Vector3 dm = (dd - dphi * m) / length;
  const Vector3 dy = ux.At(a) + dwe * e + we * de;
  const Vector3 dp =
      0.5 * (uy.At(x) + dy) + 0.5 * (line.radius - point.radius) * dm;
  return {dphi, dp, dm};
}

// X's line (a, e) against Y's line (b, f), not parallel: m = sigma (e x f) /
// |e x f| (sigma from the contact's normal), phi = m . (b - a) - radii; the
// closest points a + s e, b + t f solve (b + t f - a - s e) . e = 0 and
// . f = 0.
Rates LineLine(const ContactFeature& l1, const RigidVelocity& ux,
               const ContactFeature& l2, const RigidVelocity& uy,
               const Vector3& m_nominal) {
  const Vector3& e = l1.direction;
  const Vector3& f = l2.direction;
  const Vector3 c = e.cross(f);
  const double cn = c.norm();
  const double sigma = c.dot(m_nominal) >= 0.0 ? 1.0 : -1.0;
  const Vector3 m = sigma * c / cn;
  const Vector3 de = ux.angular.cross(e), df = uy.angular.cross(f);
  const Vector3 dc = de.cross(f) + e.cross(df);
  const Vector3 dm = sigma * (dc - m * m.dot(dc)) / cn;
  const Vector3 r = l2.point - l1.point;
  const Vector3 dr = uy.At(l2.point) - ux.At(l1.point);
  const double dphi = dm.dot(r) + m.dot(dr);
  // Closest points: with k = e . f, t = (k (r . e) - r . f) / (1 - k^2),
  // s = r . e + k t.
  const double k = e.dot(f), re = r.dot(e), rf = r.dot(f);
  const double q = 1.0 - k * k;
  const double t = (k * re - rf) / q;
  const double s = re + k * t;
  const double dk = de.dot(f) + e.dot(df);
  const double dre = dr.dot(e) + r.dot(de), drf = dr.dot(f) + r.dot(df);
  const double dt = (dk * re + k * dre - drf + 2.0 * k * dk * t) / q;
  const double ds = dre + dk * t + k * dt;
  const Vector3 dx1 = ux.At(l1.point) + ds * e + s * de;
  const Vector3 dx2 = uy.At(l2.point) + dt * f + t * df;
  const Vector3 dp = 0.5 * (dx1 + dx2) + 0.5 * (l1.radius - l2.radius) * dm;
  return {dphi, dp, dm};
}

// Y's line (b, f) cut by X's side plane (c, s) at x = b + tau f, tau =
// s . (c - b) / (s . f), against X's face (a, m): phi = m . (x - a),
// position x - phi/2 m.
Rates LineCutOnFace(const ContactFeature& face, const ContactFeature& side,
                    const RigidVelocity& ux, const ContactFeature& line,
                    const RigidVelocity& uy) {
  const Vector3& a = face.point;
  const Vector3& m = face.direction;
  const Vector3& c = side.point;
  const Vector3& s = side.direction;
  const Vector3& b = line.point;
  const Vector3& f = line.direction;
  const Vector3 ds = ux.angular.cross(s), df = uy.angular.cross(f);
  const double num = s.dot(c - b), den = s.dot(f);
  const double tau = num / den;
  const double dnum = ds.dot(c - b) + s.dot(ux.At(c) - uy.At(b));
  const double dden = ds.dot(f) + s.dot(df);
  const double dtau = (dnum - tau * dden) / den;
  const Vector3 x = b + tau * f;
  const Vector3 dx = uy.At(b) + dtau * f + tau * df;
  const Vector3 dm = ux.angular.cross(m);
  const double phi = m.dot(x - a);
  const double dphi = dm.dot(x - a) + m.dot(dx - ux.At(a));
  const Vector3 dp = dx - 0.5 * dphi * m - 0.5 * phi * dm;
  return {dphi, dp, dm};
}

// Y's rim point x = o + r d (circle centre o, axis k, d the deepest
// direction towards X's face (a, m) turned by quarter x 90 degrees:
// d_0 = -w / |w|, w = m - (m . k) k, d_1 = k x d_0, d_2 = -d_0, d_3 = -d_1)
// on that face: phi = m . (x - a), position x - phi/2 m.
Rates RimOnFace(const ContactFeature& face, const RigidVelocity& ux,
                const ContactFeature& rim, const RigidVelocity& uy) {
  const Vector3& a = face.point;
  const Vector3& m = face.direction;
  const Vector3& o = rim.point;
  const Vector3& k = rim.direction;
  const Vector3 dm = ux.angular.cross(m), dk = uy.angular.cross(k);
  const Vector3 w = m - m.dot(k) * k;
  const double length = w.norm();
  const Vector3 u = -w / length;
  const Vector3 dw = dm - (dm.dot(k) + m.dot(dk)) * k - m.dot(k) * dk;
  const Vector3 du = -(dw - u * u.dot(dw)) / length;
  Vector3 d = u, dd = du;
  if (rim.quarter % 2 == 1) {
    d = k.cross(u);
    dd = dk.cross(u) + k.cross(du);
  }
  if (rim.quarter >= 2) {
    d = -d;
    dd = -dd;
  }
  const Vector3 x = o + rim.rim * d;
  const Vector3 dx = uy.At(o) + rim.rim * dd;
  const double phi = m.dot(x - a);
  const double dphi = dm.dot(x - a) + m.dot(dx - ux.At(a));
  const Vector3 dp = dx - 0.5 * dphi * m - 0.5 * phi * dm;
  return {dphi, dp, dm};
}

}  // namespace

bool HasContactRate(const ContactPoint& c) {
  const FeatureType a = c.feature_a.type, b = c.feature_b.type;
  if (a == FeatureType::kNone || b == FeatureType::kNone) return false;
  // A rim point on a face, the circle not parallel to it.
  if (a == FeatureType::kRim || b == FeatureType::kRim) {
    const ContactFeature& rim =
        a == FeatureType::kRim ? c.feature_a : c.feature_b;
    const ContactFeature& face =
        a == FeatureType::kRim ? c.feature_b : c.feature_a;
    return face.type == FeatureType::kFace &&
           face.direction.cross(rim.direction).norm() > 1e-9;
  }
  // A line against a face: only where a side plane cuts it at an angle.
  const auto cut = [&](const ContactFeature& line) {
    return c.side.type == FeatureType::kFace &&
           std::abs(c.side.direction.dot(line.direction)) > 1e-9;
  };
  if (a == FeatureType::kFace) {
    return b == FeatureType::kPoint ||
           (b == FeatureType::kLine && cut(c.feature_b));
  }
  if (b == FeatureType::kFace) {
    return a == FeatureType::kPoint ||
           (a == FeatureType::kLine && cut(c.feature_a));
  }
  if (a == FeatureType::kLine && b == FeatureType::kLine) {
    return c.feature_a.direction.cross(c.feature_b.direction).norm() > 1e-9;
  }
  return true;
}

ContactRate CalcContactRate(const ContactPoint& c, const RigidVelocity& a,
                            const RigidVelocity& b) {
  if (!HasContactRate(c)) {
    throw std::invalid_argument(
        "CalcContactRate: the contact's features are not recorded");
  }
  const ContactFeature& fa = c.feature_a;
  const ContactFeature& fb = c.feature_b;
  // Every case is written with X first and m from X to Y; with X = B the
  // normal A -> B is -m.
  Rates r;
  double sign = 1.0;
  using T = FeatureType;
  if (fa.type == T::kFace && fb.type == T::kRim) {
    r = RimOnFace(fa, a, fb, b);
  } else if (fb.type == T::kFace && fa.type == T::kRim) {
    r = RimOnFace(fb, b, fa, a);
    sign = -1.0;
  } else if (fa.type == T::kFace && fb.type == T::kLine) {
    r = LineCutOnFace(fa, c.side, a, fb, b);
  } else if (fb.type == T::kFace && fa.type == T::kLine) {
    r = LineCutOnFace(fb, c.side, b, fa, a);
    sign = -1.0;
  } else if (fa.type == T::kFace) {
    r = PointFace(fa, a, fb, b, c.phi);
  } else if (fb.type == T::kFace) {
    r = PointFace(fb, b, fa, a, c.phi);
    sign = -1.0;
  } else if (fa.type == T::kPoint && fb.type == T::kPoint) {
    r = PointPoint(fa, a, fb, b);
  } else if (fa.type == T::kLine && fb.type == T::kPoint) {
    r = LinePoint(fa, a, fb, b);
  } else if (fa.type == T::kPoint && fb.type == T::kLine) {
    r = LinePoint(fb, b, fa, a);
    sign = -1.0;
  } else {
    r = LineLine(fa, a, fb, b, c.normal);
  }
  return {r.phi, r.position, sign * r.m};
}

}  // namespace sapcontact
