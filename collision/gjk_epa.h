// Signed distance between two convex shapes given by their support
// mappings (collision/convex_support.h): GJK for the distance of
// separated shapes, EPA for the penetration depth of overlapping ones.
//
// Both work on the Minkowski difference C = B - A = {b - a}: the shapes are
// separated by |v| where v is the point of C closest to the origin, and
// overlap by the distance from the origin (inside C) to C's boundary. In
// both cases the returned point_b - point_a = distance * normal, with the
// unit normal pointing from A into B (moving B along it increases the
// distance: it is the gradient of the signed distance).
//
// GJK (Gilbert, Johnson, Keerthi 1988; the stopping rule of van den Bergen
// 1999) with a signed-volume sub-algorithm for the closest point of a
// simplex (Montanari, Petrinic, Barbieri 2017): barycentric coordinates
// from signed areas/volumes; a negative coordinate sends the search to the
// faces opposite it only. EPA (van den Bergen 2001): a triangulated
// polytope inside C grown towards C's boundary at its face closest to the
// origin; the faces seen from the new support point are found by a
// depth-first walk from that face (so they form a connected cap) and
// replaced by a fan to the horizon.
//
// Termination (all lengths relative to `scale` = the smaller of the two
// shapes' bounding radii, `roundoff` = 2.2e-16 times the coordinates'
// magnitude):
//  - GJK stops when its upper bound |v| and lower bound v.w/|v| agree to
//    kGjkRelativeTolerance |v| + 64 roundoff (exact on polytopes: the
//    support then repeats a vertex), when a support point repeats, when |v|
//    stops decreasing (round-off), or after kGjkMaxIterations (status
//    kGjkIterationCap: the distance is the best upper bound |v|).
//  - |v| <= kTouchTolerance scale + 64 roundoff counts as contact: the
//    normal of a nearly vanishing v is unreliable, so EPA takes over (its
//    normals come from face planes); EPA also handles touching shapes
//    (distance exactly 0, the origin on C's boundary) and a origin slightly
//    outside C (its face of most negative distance).
//  - EPA stops when the support along the closest face's normal is within
//    kEpaTolerance scale + 1024 roundoff of that face (exact on polytopes;
//    on a cylinder's curved side the faces shrink until their planes are
//    only known to about roundoff times depth / face size, hence the
//    larger multiple), when the support repeats a vertex (round-off),
//    after kEpaMaxIterations or when its buffers are full (status
//    kEpaIterationCap), or when round-off makes the horizon inconsistent
//    (kEpaDegenerate); either way it returns its closest face (a depth
//    that is at most the true one).
// No heap allocation: EPA's polytope lives in a thread_local workspace of
// fixed size. Never NaN for finite input.
#pragma once

#include <limits>

#include "sapcontact/collision/convex_support.h"

namespace sapcontact {

inline constexpr int kGjkMaxIterations = 128;
inline constexpr int kEpaMaxIterations = 128;
inline constexpr double kGjkRelativeTolerance = 1e-12;
inline constexpr double kTouchTolerance = 1e-10;
inline constexpr double kEpaTolerance = 1e-10;

enum class ConvexDistanceStatus {
  /// GJK converged: the shapes are separated by `distance`.
  kSeparated,
  /// GJK proved the distance exceeds the caller's max_distance; `distance`
  /// is a lower bound (> max_distance), the witnesses are not closest.
  kBeyond,
  /// EPA converged: the shapes overlap (or touch): distance <= ~0.
  kPenetrating,
  /// GJK stopped at its iteration cap (distance: an upper bound).
  kGjkIterationCap,
  /// EPA stopped at its iteration cap or with full buffers.
  kEpaIterationCap,
  /// EPA could not proceed (degenerate initial polytope or horizon from
  /// round-off): its best face so far, or, without a polytope, the
  /// separation along the centre line.
  kEpaDegenerate,
};

struct ConvexDistanceResult {
  /// Signed distance of the two cores [m] (negative: penetration depth).
  double distance{0.0};
  /// Unit normal from A into B.
  Vector3 normal{Vector3::UnitZ()};
  /// Witness points on A's and B's cores: point_b - point_a = distance *
  /// normal up to round-off (exactly the closest points when separated).
  Vector3 point_a{Vector3::Zero()};
  Vector3 point_b{Vector3::Zero()};
  ConvexDistanceStatus status{ConvexDistanceStatus::kSeparated};
  int gjk_iterations{0};
  int epa_iterations{0};
};

/// Signed distance between the cores of a and b (ConvexSupport::Support;
/// subtract the sweep radii for spheres and capsules). GJK stops early with
/// kBeyond once the distance is proved larger than max_distance.
ConvexDistanceResult ComputeConvexDistance(
    const ConvexSupport& a, const ConvexSupport& b,
    double max_distance = std::numeric_limits<double>::infinity());

}  // namespace sapcontact
