// Collision/inertia shapes of rigid bodies and their mass properties.
// Every shape is expressed in its body frame, centred at the body origin
// (which is the centre of mass). Units: metres, kilograms. The table of
// shape names and parameters: geometry/shape_traits.h.
#pragma once

#include <memory>
#include <string>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/pose.h"

namespace sapcontact {

enum class ShapeType {
  /// The plane z = 0 of the body frame, outward normal +z; the body occupies
  /// the half-space z <= 0. Fixed bodies only (infinite mass and extent).
  kPlane,
  /// Axis-aligned box in the body frame with full edge lengths `size`.
  kBox,
  /// Sphere of `radius`.
  kSphere,
  /// Capsule: the set of points within `radius` of the segment from
  /// (0, 0, -length/2) to (0, 0, +length/2) along the body z axis. `length` is
  /// the distance between the two sphere centres (total extent along z is
  /// length + 2 radius). length = 0 is a sphere.
  kCapsule,
  /// Cylinder with flat caps: the points within `radius` of the body z axis
  /// with |z| <= length/2 (`length` is the full length, as URDF's
  /// <cylinder>).
  kCylinder,
  /// A triangle mesh (`mesh`), which collides as its convex hull
  /// (MeshShape::hull), as in Drake and MuJoCo.
  kMesh,
};

/// The YAML name of a shape type: "plane", "box", "sphere", "capsule",
/// "cylinder", "mesh".
const char* ShapeTypeName(ShapeType type);

/// A shape; only the fields of its type are meaningful.
struct Shape {
  ShapeType type{ShapeType::kSphere};
  /// Box full edge lengths along the body x, y, z axes [m] (box only).
  Vector3 size{Vector3::Zero()};
  /// Sphere, capsule and cylinder radius [m].
  double radius{0.0};
  /// Capsule: segment length between the sphere centres [m]; cylinder: full
  /// length between the caps [m].
  double length{0.0};
  /// The mesh of a kMesh shape (shared, read-only); null for other types.
  std::shared_ptr<const MeshShape> mesh;
};

Shape MakePlane();
/// Box with full edge lengths (x, y, z) [m].
Shape MakeBox(double x, double y, double z);
Shape MakeSphere(double radius);
/// Capsule of `radius` around a segment of `length` along the body z axis.
Shape MakeCapsule(double radius, double length);
/// Cylinder of `radius` and full `length` along the body z axis.
Shape MakeCylinder(double radius, double length);
/// Mesh shape (LoadMeshShape, geometry/mesh_shape.h).
Shape MakeMesh(std::shared_ptr<const MeshShape> mesh);

/// Throws std::invalid_argument naming `context` and the field if a size is
/// not finite and > 0 (box size, radius, cylinder length) or a capsule
/// length is not finite and >= 0, or a mesh shape has no mesh.
void Validate(const Shape& shape, const std::string& context = "");

/// Volume [m^3]. Throws std::invalid_argument for a plane (infinite) or a
/// mesh that is not closed (MeshShape::closed).
double Volume(const Shape& shape);

/// Mass [kg] and rotational inertia about the centre of mass in the body
/// frame [kg m^2] of a homogeneous body.
struct MassProperties {
  double mass{0.0};
  Matrix3 inertia{Matrix3::Zero()};
};

/// Mass properties of a homogeneous body of the given density [kg/m^3].
/// Closed forms: box m/12 diag(y^2+z^2, x^2+z^2, x^2+y^2); sphere 2/5 m r^2;
/// capsule = cylinder + two hemispheres (hemisphere inertia about the centre
/// of the capsule: m_h (2/5 r^2 + L^2/4 + 3 L r / 8)); cylinder m/12
/// diag(3 r^2 + L^2, 3 r^2 + L^2, 6 r^2); a closed mesh: its volume and
/// inertia by the divergence theorem (MeshShape), about its centroid (the
/// body origin once the mesh is centred).
/// Throws std::invalid_argument for a plane, a mesh that is not closed, or
/// a non-finite/<= 0 density.
MassProperties MassPropertiesFromDensity(const Shape& shape, double density);

/// Same, for a body of the given total mass [kg] (density = mass / volume).
MassProperties MassPropertiesFromMass(const Shape& shape, double mass);

/// Radius of the smallest sphere about the body origin containing the shape
/// [m]; +infinity for a plane. Used to bound the motion of surface points.
double BoundingRadius(const Shape& shape);

/// World-frame axis-aligned bounding box.
struct Aabb {
  Vector3 lower{Vector3::Zero()};
  Vector3 upper{Vector3::Zero()};
  bool Overlaps(const Aabb& other) const {
    return (lower.array() <= other.upper.array()).all() &&
           (other.lower.array() <= upper.array()).all();
  }
};

/// Tight AABB of the shape at `pose`, grown by `inflation` [m] on every side.
/// A plane gets the unbounded box (-inf, +inf)^3.
Aabb ComputeAabb(const Shape& shape, const Pose& pose, double inflation = 0.0);

}  // namespace sapcontact
