// Pairs of convex shapes by GJK/EPA (collision/gjk_epa.h): box,
// cylinder and mesh against box (box-box excepted: SAT, narrow_phase_box.cc),
// cylinder and mesh; sphere and capsule against cylinder and mesh.
//
// Convex-convex: GJK/EPA gives the signed distance s* and the normal n
// (A to B). The candidate reference faces are A's face best aligned with n
// and B's face best aligned with -n (collision/convex_support.h; a
// cylinder's caps are faces, its curved side is not). Each face's own
// separation is the separating-axis value along its normal (the other
// shape's support against the face's plane), at most s*. The better one
// (A's on ties within 1e-9 of the size) is the separating feature when it
// is within kFaceTolerance of the size of s* (as box-box treats
// face-versus-edge ties): then the other shape's incident feature (its face
// most anti-parallel to the reference normal, a cylinder's cap polygon or
// side segment) is clipped to the reference face's side planes and every
// clipped point within the margin below the reference plane is a contact
// with the reference normal (collision/polygon_clipping.h); the GJK/EPA
// witness pair is added when the face manifold misses it (its smallest phi
// above s*). Otherwise (edge-edge, vertex, curved side) the witness pair is
// the one contact. More than 4 points are reduced to 4
// (collision/contact_reduction.h).
//
// Sphere and capsule: GJK/EPA on the core (centre point, segment) minus the
// radius (exact in penetration too: (core + ball) - B = (core - B) + ball).
// A capsule lying along a face of B (the segment's separation along the
// face normal within kFaceTolerance of the size of the core distance) gets
// the segment clipped to that face: its two ends. Sphere-cylinder is a
// closed form.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sapcontact/collision/contact_reduction.h"
#include "sapcontact/collision/convex_support.h"
#include "sapcontact/collision/gjk_epa.h"
#include "sapcontact/collision/narrow_phase.h"
#include "sapcontact/collision/polygon_clipping.h"

namespace sapcontact {
namespace {

// A face is the separating feature when its separation is within this
// fraction of the size scale of the pair's signed distance.
constexpr double kFaceTolerance = 1e-5;
// Depths within this fraction of the size count as equal when the
// reduction picks the deepest point (collision/contact_reduction.h).
constexpr double kDepthTieTolerance = 1e-6;

// Work buffers reused by every call on a thread (no allocation once grown).
struct Scratch {
  std::vector<Vector3> reference;
  std::vector<Vector3> incident;
  std::vector<Vector3> clip;
  std::vector<ClipPlane> sides;
};
Scratch& GetScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The size scale of a pair (tolerances): the smaller shape's size.
double PairSize(const ConvexSupport& a, const ConvexSupport& b) {
  const double sa = a.bounding_radius + a.sweep_radius;
  const double sb = b.bounding_radius + b.sweep_radius;
  return std::min(sa, sb);
}

void SetSidePlanes(const std::vector<Vector3>& polygon, int n,
                   const Vector3& normal, Scratch* s) {
  if (s->sides.size() < static_cast<size_t>(n)) s->sides.resize(n);
  PolygonSidePlanes(polygon.data(), n, normal, s->sides.data());
}

// The contacts of the incident feature of `inc` clipped to the reference
// face (face, s.reference) of the other shape.
void FaceManifold(const WorldFace& face, const ConvexSupport& inc,
                  bool ref_is_a, double margin, double size, Scratch* s,
                  std::vector<ContactPoint>* out) {
  SetSidePlanes(s->reference, face.num_vertices, face.normal, s);
  const double eps = 1e-9 * size;
  const int n_inc = IncidentFeature(inc, face.normal, &s->incident);
  if (n_inc >= 3) {
    const int n = ClipPolygonToPlanes(&s->incident, n_inc, s->sides.data(),
                                      face.num_vertices, eps, &s->clip);
    EmitFaceContacts(s->incident.data(), n, face.normal, face.offset, ref_is_a,
                     margin, 1e-8 * size, out);
    return;
  }
  if (n_inc == 2) {
    const Vector3 p0 = s->incident[0], p1 = s->incident[1];
    double t0 = 0.0, t1 = 0.0;
    if (!ClipSegment(p0, p1, s->sides.data(), face.num_vertices, eps, &t0,
                     &t1)) {
      return;
    }
    Vector3 ends[2] = {p0 + t0 * (p1 - p0), p0 + t1 * (p1 - p0)};
    EmitFaceContacts(ends, 2, face.normal, face.offset, ref_is_a, margin,
                     1e-8 * size, out);
    return;
  }
  EmitFaceContacts(s->incident.data(), n_inc, face.normal, face.offset,
                   ref_is_a, margin, 1e-8 * size, out);
}

double SmallestPhi(const std::vector<ContactPoint>& c, size_t first) {
  double phi = std::numeric_limits<double>::infinity();
  for (size_t k = first; k < c.size(); ++k) phi = std::min(phi, c[k].phi);
  return phi;
}

}  // namespace

void CollideConvex(const Shape& a, const Pose& pa, const Shape& b,
                   const Pose& pb, double margin,
                   std::vector<ContactPoint>* out) {
  const ConvexSupport A = MakeConvexSupport(a, pa);
  const ConvexSupport B = MakeConvexSupport(b, pb);
  const ConvexDistanceResult r = ComputeConvexDistance(A, B, margin);
  if (r.status == ConvexDistanceStatus::kBeyond || r.distance > margin) return;
  const double size = PairSize(A, B);
  Scratch& s = GetScratch();
  const size_t first = out->size();

  // The candidate reference faces and their separations.
  WorldFace face_a, face_b;
  const bool has_a = BestAlignedFace(A, r.normal, &face_a, &s.reference);
  double sep_a = -std::numeric_limits<double>::infinity();
  if (has_a) {
    sep_a = face_a.normal.dot(B.Support(-face_a.normal)) - face_a.offset;
  }
  // B's face goes to s.incident for now (swapped in if it wins).
  const bool has_b = BestAlignedFace(B, -r.normal, &face_b, &s.incident);
  double sep_b = -std::numeric_limits<double>::infinity();
  if (has_b) {
    sep_b = face_b.normal.dot(A.Support(-face_b.normal)) - face_b.offset;
  }
  const bool use_b = has_b && (!has_a || sep_b > sep_a + 1e-9 * size);
  const double sep = use_b ? sep_b : sep_a;
  if ((has_a || has_b) && sep >= r.distance - kFaceTolerance * size) {
    if (use_b) std::swap(s.reference, s.incident);
    FaceManifold(use_b ? face_b : face_a, use_b ? A : B, /*ref_is_a=*/!use_b,
                 margin, size, &s, out);
    // The witness pair when the face manifold misses it (a separated pair's
    // closest points beyond the reference face, a tilted cylinder's rim
    // between the cap polygon's corners).
    if (SmallestPhi(*out, first) > r.distance + 1e-9 * size) {
      out->push_back(MakeContact(r.point_a, r.normal, r.distance));
    }
    ReduceManifold(out, first, margin, kDepthTieTolerance * size);
    return;
  }
  out->push_back(MakeContact(r.point_a, r.normal, r.distance));
}

void CollideRoundConvex(const Shape& a, const Pose& pa, const Shape& b,
                        const Pose& pb, double margin,
                        std::vector<ContactPoint>* out) {
  const ConvexSupport A = MakeConvexSupport(a, pa);
  const ConvexSupport B = MakeConvexSupport(b, pb);
  const double radius = A.sweep_radius;
  const ConvexDistanceResult r = ComputeConvexDistance(A, B, margin + radius);
  if (r.status == ConvexDistanceStatus::kBeyond) return;
  const double phi = r.distance - radius;
  if (phi > margin) return;
  const size_t first = out->size();
  if (A.kind == ConvexSupport::Kind::kSegment) {
    // A face of B facing the capsule that the segment lies along.
    const double size = PairSize(A, B);
    Scratch& s = GetScratch();
    WorldFace face;
    if (BestAlignedFace(B, -r.normal, &face, &s.reference)) {
      const Vector3 axis = A.half_length * A.rotation.col(2);
      const Vector3 e0 = A.center - axis, e1 = A.center + axis;
      const double h0 = face.normal.dot(e0) - face.offset;
      const double h1 = face.normal.dot(e1) - face.offset;
      if (std::min(h0, h1) - radius >= phi - kFaceTolerance * size) {
        SetSidePlanes(s.reference, face.num_vertices, face.normal, &s);
        double t0 = 0.0, t1 = 0.0;
        if (ClipSegment(e0, e1, s.sides.data(), face.num_vertices, 1e-9 * size,
                        &t0, &t1)) {
          const bool one = (t1 - t0) * (e1 - e0).norm() <= 1e-8 * size;
          for (double t : {t0, t1}) {
            const Vector3 x = e0 + t * (e1 - e0);
            const double height = face.normal.dot(x) - face.offset;
            const double phi_x = height - radius;
            if (phi_x <= margin) {
              // From the capsule's surface point x - radius m into B.
              out->push_back(
                  MakeContact(x - radius * face.normal, -face.normal, phi_x));
            }
            if (one) break;
          }
        }
        if (SmallestPhi(*out, first) > phi + 1e-9 * size) {
          out->push_back(
              MakeContact(r.point_a + radius * r.normal, r.normal, phi));
        }
        return;
      }
    }
  }
  out->push_back(MakeContact(r.point_a + radius * r.normal, r.normal, phi));
}

void CollideSphereCylinder(const Shape& a, const Pose& pa, const Shape& b,
                           const Pose& pb, double margin,
                           std::vector<ContactPoint>* out) {
  // The centre in the cylinder frame; in the (radial, axial) half-plane
  // the cylinder is the rectangle [0, R] x [-h, h].
  const Vector3 p = pb.ToBody(pa.position);
  const double R = b.radius, h = 0.5 * b.length;
  const double rho = std::hypot(p.x(), p.y());
  // Radial unit vector (the body x axis on the axis itself).
  const Vector3 radial =
      rho > 0.0 ? Vector3(p.x() / rho, p.y() / rho, 0.0) : Vector3::UnitX();
  const double axial = p.z() >= 0.0 ? 1.0 : -1.0;
  Vector3 surface, outward;  // closest cylinder point, outward normal there
  double distance = 0.0;     // signed, of the centre
  // The cylinder's feature: its side is the axis with radius R, a cap a
  // face; the rim (a circle) is not recorded, nor the side with the centre
  // on the axis (no radial direction).
  const Vector3 axis_world = pb.orientation * Vector3::UnitZ();
  const ContactFeature side = LineFeature(pb.position, axis_world, R);
  const ContactFeature cap = FaceFeature(
      pb.ToWorld(Vector3(p.x(), p.y(), axial * h)), axial * axis_world);
  ContactFeature feature;
  if (rho > R || std::abs(p.z()) > h) {
    surface = Vector3(std::min(rho, R) * radial.x(),
                      std::min(rho, R) * radial.y(), std::clamp(p.z(), -h, h));
    const Vector3 d = p - surface;
    distance = d.norm();
    outward = d / distance;
    if (rho <= R) {
      feature = cap;
    } else if (std::abs(p.z()) <= h) {
      feature = side;
    }
  } else if (R - rho < h - std::abs(p.z())) {  // nearer the side
    surface = Vector3(R * radial.x(), R * radial.y(), p.z());
    outward = radial;
    distance = rho - R;
    if (rho > 1e-9 * R) feature = side;
  } else {  // nearer a cap
    surface = Vector3(p.x(), p.y(), axial * h);
    outward = Vector3(0.0, 0.0, axial);
    distance = std::abs(p.z()) - h;
    feature = cap;
  }
  const double phi = distance - a.radius;
  if (phi > margin) return;
  // From the sphere (A) into the cylinder (B): against the outward normal.
  const Vector3 n = -(pb.orientation * outward);
  out->push_back(MakeContact(pa.position + a.radius * n, n, phi));
  if (feature.type != FeatureType::kNone) {
    out->back().feature_a = PointFeature(pa.position, a.radius);
    out->back().feature_b = feature;
  }
}

}  // namespace sapcontact
