// Support mappings of the convex shapes at a pose (the input of GJK/EPA,
// collision/gjk_epa.h) and the faces the manifolds are clipped from
// (collision/narrow_phase_convex.cc). Units: metres; everything in world
// coordinates unless named local.
//
// A support mapping of a convex set S returns, for a direction d, a point
// s(d) of S maximizing d . x (any maximizer on ties). Spheres and capsules
// are handled through their cores (a point, a segment) swept by their
// radius: the narrow phase measures the core and subtracts the radius
// (exact for the distance of separated shapes and for the penetration
// depth, since (core + ball) - A = (core - A) + ball).
#pragma once

#include <vector>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"

namespace sapcontact {

/// A convex shape placed in the world, queried by direction.
struct ConvexSupport {
  enum class Kind {
    kPoint,     // the centre (a sphere's core)
    kSegment,   // body z from -half_length to +half_length (capsule core)
    kBox,       // half extents `half`
    kCylinder,  // `radius`, body z from -half_length to +half_length
    kHull,      // `hull` (a mesh)
  };
  Kind kind{Kind::kPoint};
  /// Body origin [m] and rotation (body -> world).
  Vector3 center{Vector3::Zero()};
  Matrix3 rotation{Matrix3::Identity()};
  Vector3 half{Vector3::Zero()};
  double radius{0.0};
  double half_length{0.0};
  const ConvexHull* hull{nullptr};
  /// The radius the core is swept by (a sphere's or capsule's radius; 0
  /// for the others). Support() is that of the core; SupportSwept() that of
  /// the swept shape.
  double sweep_radius{0.0};
  /// The radius of a ball about `center` containing the core [m]; the size
  /// scale of the tolerances.
  double bounding_radius{0.0};
  /// Hull only: the vertex returned last, the start of the next hill climb
  /// (a hint: any value gives the same support value).
  mutable int hint{-1};

  /// A point of the core maximizing direction . x (d need not be unit; a
  /// zero direction returns a valid point). Never NaN for finite input.
  Vector3 Support(const Vector3& direction) const;
  /// Support point of the swept shape (core + ball of sweep_radius).
  Vector3 SupportSwept(const Vector3& direction) const;
  /// The same in body coordinates (direction and result local).
  Vector3 LocalSupport(const Vector3& local_direction) const;
};

/// The support of a shape (not a plane) at `pose`: a sphere's or capsule's
/// core with sweep_radius = its radius; box, cylinder and mesh themselves.
/// @throws std::invalid_argument for a plane or a mesh without its mesh.
ConvexSupport MakeConvexSupport(const Shape& shape, const Pose& pose);

/// Number of sides of the regular polygon inscribed in a cylinder cap, the
/// cap's polygon as a reference or incident face (vertex k at angle
/// 2 pi k / kCylinderCapSides from the body x axis).
inline constexpr int kCylinderCapSides = 16;

/// A planar face in world coordinates: outward unit `normal`, `offset` =
/// normal . x on the face, and its polygon counter-clockwise about the
/// normal (vertices in a caller's buffer).
struct WorldFace {
  Vector3 normal{Vector3::UnitZ()};
  double offset{0.0};
  int num_vertices{0};
};

/// The face of `s` whose outward normal is best aligned with the unit world
/// direction `n`: a box's face, a cylinder's cap (its curved side is not a
/// face), or among the faces of a hull at its support vertex along n the
/// one of greatest normal . n. Writes its polygon to *polygon (resized as
/// needed, never shrunk). Returns false for points and segments (no faces).
bool BestAlignedFace(const ConvexSupport& s, const Vector3& n, WorldFace* face,
                     std::vector<Vector3>* polygon);

/// The feature of `s` a reference face of outward normal `m` (unit, world,
/// pointing towards s) meets: the face most anti-parallel to m (box; hull:
/// among the faces at the support vertex along -m); a cylinder's cap
/// polygon facing -m when |axis . m| >= cos 45 deg, else its side segment
/// nearest along -m (2 points); a segment core's two ends. Writes its
/// vertices to *points (resized as needed) and returns their count (2 for
/// a segment, >= 3 for a polygon, 1 for a point).
int IncidentFeature(const ConvexSupport& s, const Vector3& m,
                    std::vector<Vector3>* points);

}  // namespace sapcontact
