// Face contacts by polygon clipping (the manifolds of face-on-face contact,
// collision/narrow_phase.h): an incident polygon (a face of one shape)
// is clipped against the side planes of a convex reference polygon (a face
// of the other shape) with Sutherland-Hodgman, and every clipped point
// below the reference plane within the margin becomes a contact. All
// coordinates are world coordinates [m]; polygons are arrays of vertices in
// loop order.
#pragma once

#include <vector>

#include "sapcontact/collision/contact_point.h"

namespace sapcontact {

/// The half-space normal . x <= offset (normal not necessarily unit; the
/// tolerances below are in units of normal . x).
struct ClipPlane {
  Vector3 normal{Vector3::UnitZ()};
  double offset{0.0};
};

/// Sutherland-Hodgman for one plane: writes the part of the polygon
/// in[0 .. n_in) with plane.normal . x <= plane.offset + eps to `out` and
/// returns its vertex count. Vertices within eps of the plane are kept
/// as they are; each edge crossing the plane adds its intersection point.
/// `out` must have room for 2 n_in vertices (n_in + 1 for a convex input)
/// and must not alias `in`.
int ClipPolygon(const Vector3* in, int n_in, const ClipPlane& plane, double eps,
                Vector3* out);

/// Clips the polygon (*polygon)[0 .. n) against `planes` in order and
/// returns the vertex count of the result, which is left in *polygon (grown
/// as needed; `scratch` is a work buffer). Both vectors only grow, so
/// reusing them makes repeated calls allocation-free.
int ClipPolygonToPlanes(std::vector<Vector3>* polygon, int n,
                        const ClipPlane* planes, int num_planes, double eps,
                        std::vector<Vector3>* scratch);

/// Clips the segment from p0 (t = 0) to p1 (t = 1) against `planes` (keeping
/// normal . x <= offset + eps): the kept part is t in [*t0, *t1]; false when
/// nothing is kept.
bool ClipSegment(const Vector3& p0, const Vector3& p1, const ClipPlane* planes,
                 int num_planes, double eps, double* t0, double* t1);

/// The side planes of a convex polygon whose loop is counter-clockwise about
/// the unit `normal`: plane k contains edge (k, k+1) and `normal`, and its
/// unit normal points out of the polygon, so that the polygon (extruded
/// along `normal`) is the intersection of the n half-spaces. Edges shorter
/// than 1e-12 of the polygon's extent give a zero normal and offset 0 (they
/// clip nothing). Writes n planes.
void PolygonSidePlanes(const Vector3* polygon, int n, const Vector3& normal,
                       ClipPlane* planes);

/// Appends a contact for every point x of points[0 .. n) with
/// phi = n_ref . x - plane_offset <= margin (n_ref: the unit outward normal
/// of the reference face, plane_offset: n_ref . x of the face's points; the
/// points lie on the incident surface). Position x - phi/2 n_ref (midway
/// between x and its projection on the reference plane), normal n_ref when
/// the reference face belongs to A (ref_is_a) else -n_ref. A point whose
/// position lies within dedup_distance of a contact appended by this same
/// call is skipped.
void EmitFaceContacts(const Vector3* points, int n, const Vector3& n_ref,
                      double plane_offset, bool ref_is_a, double margin,
                      double dedup_distance, std::vector<ContactPoint>* out);

}  // namespace sapcontact
