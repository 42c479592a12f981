// Narrow phase: contact manifolds between two shapes at given poses.
// Output: ContactPoint (collision/contact_point.h) with phi <= margin,
// normals from the first shape (A) into the second (B), position the
// midpoint between the two surfaces' points, and for the pairs that record
// them the features it is between (collision/README.md, "Features");
// body_a/body_b are left at -1 for the caller to fill. Where faces meet, the
// manifold has several points (collision/README.md has the table of pairs):
//   plane-box      every box vertex with phi <= margin (4 for a resting box)
//   plane-capsule  each segment end point with phi <= margin (2 if lying)
//   plane-sphere   1
//   plane-cylinder on each cap 4 rim points 90 degrees apart (from the
//                  deepest rim direction; from the body x axis when upright
//                  within round-off), those within the margin, at most 4:
//                  standing 4, lying 2 (the ends of the bottom line),
//                  tilted 1 to 3
//   plane-mesh     hull vertices within the margin, found from the deepest
//                  by walking the hull's edges; reduced to at most 4
//   box-box        SAT over 15 axes; face axis: the incident face clipped to
//                  the reference face (4 points face on face, up to 8);
//                  edge axis: 1 point between the two edges
//   box-sphere     1 (face, edge or vertex region)
//   box-capsule    closest segment point; if it lies in a face region, the
//                  segment clipped to that face: its two ends (the segment
//                  end points when the capsule lies on the face)
//   sphere-sphere, sphere-capsule  1
//   capsule-capsule  the closest points, plus each segment end point with
//                  its closest point on the other segment when within the
//                  margin: two points (the ends of the overlap) when parallel
//   box, cylinder, mesh against cylinder, mesh; and box-mesh: GJK/EPA
//                  (collision/gjk_epa.h) for the signed distance and
//                  normal; when a face of A or B (a cylinder's cap, not its
//                  side) is the separating feature, the other's incident
//                  face (cap polygon, side segment) clipped to it, plus the
//                  GJK/EPA point when the clipped points miss it; else 1
//                  point; reduced to at most 4
//                  (collision/narrow_phase_convex.cc)
//   sphere-cylinder  1 (closed form); sphere-mesh 1 (GJK/EPA on the centre)
//   capsule-cylinder, capsule-mesh  GJK/EPA on the segment; lying along a
//                  face of B: the segment clipped to it (2 points), else 1
// Manifolds of more than 4 points (plane-mesh and the GJK/EPA pairs) are
// reduced to 4, depth-weighted and in a body-fixed order so that a resting
// body keeps its points (collision/contact_reduction.h); plane-box and
// box-box keep theirs. Separated pairs get their exact distance as the smallest
// phi (box-box: from the vertex-box and edge-edge pairs; GJK pairs: GJK's
// distance). In penetration phi is minus the penetration depth along the
// contact normal (box-box: the SAT depth; GJK pairs: EPA's, the minimum
// translation distance). Contacts are only meaningful with shallow
// penetration (less than the shape sizes). Every routine is a pure function
// of its arguments (deterministic, no state between calls) and does not
// allocate once its thread's work buffers have grown.
#pragma once

#include <vector>

#include "sapcontact/collision/contact_point.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"

namespace sapcontact {

/// Appends the contacts between shape `a` at pose `pa` and shape `b` at pose
/// `pb` with phi <= margin [m] to `out`. Any order of shape types; plane-plane
/// gives none. Normals point from a into b.
void Collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
             double margin, std::vector<ContactPoint>* out);

// The pair routines, A's type not after B's in the order plane < box <
// sphere < capsule < cylinder < mesh. Same contract as Collide.
void CollidePlaneBox(const Shape& a, const Pose& pa, const Shape& b,
                     const Pose& pb, double margin,
                     std::vector<ContactPoint>* out);
void CollidePlaneSphere(const Shape& a, const Pose& pa, const Shape& b,
                        const Pose& pb, double margin,
                        std::vector<ContactPoint>* out);
void CollidePlaneCapsule(const Shape& a, const Pose& pa, const Shape& b,
                         const Pose& pb, double margin,
                         std::vector<ContactPoint>* out);
void CollideBoxBox(const Shape& a, const Pose& pa, const Shape& b,
                   const Pose& pb, double margin,
                   std::vector<ContactPoint>* out);
void CollideBoxSphere(const Shape& a, const Pose& pa, const Shape& b,
                      const Pose& pb, double margin,
                      std::vector<ContactPoint>* out);
void CollideBoxCapsule(const Shape& a, const Pose& pa, const Shape& b,
                       const Pose& pb, double margin,
                       std::vector<ContactPoint>* out);
void CollideSphereSphere(const Shape& a, const Pose& pa, const Shape& b,
                         const Pose& pb, double margin,
                         std::vector<ContactPoint>* out);
void CollideSphereCapsule(const Shape& a, const Pose& pa, const Shape& b,
                          const Pose& pb, double margin,
                          std::vector<ContactPoint>* out);
void CollideCapsuleCapsule(const Shape& a, const Pose& pa, const Shape& b,
                           const Pose& pb, double margin,
                           std::vector<ContactPoint>* out);
void CollidePlaneCylinder(const Shape& a, const Pose& pa, const Shape& b,
                          const Pose& pb, double margin,
                          std::vector<ContactPoint>* out);
void CollidePlaneMesh(const Shape& a, const Pose& pa, const Shape& b,
                      const Pose& pb, double margin,
                      std::vector<ContactPoint>* out);
void CollideSphereCylinder(const Shape& a, const Pose& pa, const Shape& b,
                           const Pose& pb, double margin,
                           std::vector<ContactPoint>* out);
/// Box, cylinder or mesh A against cylinder or mesh B (and box-cylinder,
/// box-mesh): GJK/EPA, then the face manifold (collision/README.md).
void CollideConvex(const Shape& a, const Pose& pa, const Shape& b,
                   const Pose& pb, double margin,
                   std::vector<ContactPoint>* out);
/// Sphere or capsule A (its core plus the radius) against cylinder or mesh
/// B (sphere-cylinder has its closed form above).
void CollideRoundConvex(const Shape& a, const Pose& pa, const Shape& b,
                        const Pose& pb, double margin,
                        std::vector<ContactPoint>* out);

/// Features (collision/contact_point.h) in world coordinates.
inline ContactFeature PointFeature(const Vector3& x, double radius = 0.0) {
  return {FeatureType::kPoint, x, Vector3::Zero(), radius};
}
inline ContactFeature LineFeature(const Vector3& x, const Vector3& unit,
                                  double radius = 0.0) {
  return {FeatureType::kLine, x, unit, radius};
}
inline ContactFeature FaceFeature(const Vector3& x, const Vector3& outward) {
  return {FeatureType::kFace, x, outward, 0.0};
}
/// The point of segment [p, p + d] at parameter t in [0, 1] as a feature: an
/// end (t exactly 0 or 1) is a point, an interior point the segment's line.
inline ContactFeature SegmentFeature(const Vector3& p, const Vector3& d,
                                     double t, double radius) {
  if (t <= 0.0 || t >= 1.0 || d.squaredNorm() == 0.0) {
    return PointFeature(p + t * d, radius);
  }
  return LineFeature(p + t * d, d.normalized(), radius);
}

/// A contact from the point p_a on A's surface, the unit normal n (A to B)
/// and phi: position p_a + phi/2 n.
inline ContactPoint MakeContact(const Vector3& p_a, const Vector3& n,
                                double phi) {
  ContactPoint c;
  c.position = p_a + 0.5 * phi * n;
  c.normal = n;
  c.phi = phi;
  return c;
}

}  // namespace sapcontact
