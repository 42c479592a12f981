#include "sapcontact/geometry/shapes.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sapcontact/geometry/shape_traits.h"

namespace sapcontact {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void Fail(const std::string& context, const std::string& what) {
  std::ostringstream os;
  if (!context.empty()) os << context << ": ";
  os << what;
  throw std::invalid_argument(os.str());
}

// Meshes have a volume only when closed.
void RequireClosed(const Shape& shape) {
  if (shape.mesh == nullptr) {
    throw std::invalid_argument("a mesh shape without its mesh");
  }
  if (!shape.mesh->closed) {
    throw std::invalid_argument(
        "mesh '" + shape.mesh->file + "' is not closed (" +
        shape.mesh->not_closed_reason + "): it has no volume");
  }
}

}  // namespace

const char* ShapeTypeName(ShapeType type) {
  const int i = static_cast<int>(type);
  return i >= 0 && i < kNumShapeTypes ? TraitsOf(type).name : "unknown";
}

Shape MakePlane() {
  Shape s;
  s.type = ShapeType::kPlane;
  return s;
}

Shape MakeBox(double x, double y, double z) {
  Shape s;
  s.type = ShapeType::kBox;
  s.size = Vector3(x, y, z);
  return s;
}

Shape MakeSphere(double radius) {
  Shape s;
  s.type = ShapeType::kSphere;
  s.radius = radius;
  return s;
}

Shape MakeCapsule(double radius, double length) {
  Shape s;
  s.type = ShapeType::kCapsule;
  s.radius = radius;
  s.length = length;
  return s;
}

Shape MakeCylinder(double radius, double length) {
  Shape s;
  s.type = ShapeType::kCylinder;
  s.radius = radius;
  s.length = length;
  return s;
}

Shape MakeMesh(std::shared_ptr<const MeshShape> mesh) {
  Shape s;
  s.type = ShapeType::kMesh;
  s.mesh = std::move(mesh);
  return s;
}

void Validate(const Shape& shape, const std::string& context) {
  const int type = static_cast<int>(shape.type);
  if (type < 0 || type >= kNumShapeTypes) {
    Fail(context, "invalid shape type " + std::to_string(type));
  }
  const ShapeTraits& traits = TraitsOf(shape.type);
  if (shape.type == ShapeType::kMesh && shape.mesh == nullptr) {
    Fail(context, "a mesh shape without its mesh (use MakeMesh)");
  }
  for (const ShapeParameter& p : traits.parameters) {
    if (p.kind == ShapeParameterKind::kFile) continue;
    const std::vector<double> values = ShapeParameterValues(shape, p);
    for (int i = 0; i < p.count; ++i) {
      const double v = values[i];
      const bool scale = p.kind == ShapeParameterKind::kScale;
      if (std::isfinite(v) &&
          (scale ? v != 0.0 : v > 0.0 || (p.zero_allowed && v == 0.0))) {
        continue;
      }
      std::ostringstream os;
      os << "invalid " << traits.name << " " << p.key;
      if (p.count > 1) os << "[" << i << "]";
      os << " = " << v << " (must be finite and "
         << (scale            ? "non-zero)"
             : p.zero_allowed ? ">= 0 m)"
                              : "> 0 m)");
      Fail(context, os.str());
    }
  }
}

double Volume(const Shape& shape) {
  const double r = shape.radius;
  switch (shape.type) {
    case ShapeType::kPlane:
      break;
    case ShapeType::kBox:
      return shape.size.prod();
    case ShapeType::kSphere:
      return 4.0 / 3.0 * kPi * r * r * r;
    case ShapeType::kCapsule:
      return kPi * r * r * shape.length + 4.0 / 3.0 * kPi * r * r * r;
    case ShapeType::kCylinder:
      return kPi * r * r * shape.length;
    case ShapeType::kMesh:
      RequireClosed(shape);
      return shape.mesh->volume;
  }
  throw std::invalid_argument("a plane has no finite volume");
}

MassProperties MassPropertiesFromDensity(const Shape& shape, double density) {
  if (!(density > 0.0) || !std::isfinite(density)) {
    std::ostringstream os;
    os << "invalid density = " << density << " (must be finite and > 0 kg/m^3)";
    throw std::invalid_argument(os.str());
  }
  Validate(shape);
  MassProperties mp;
  mp.mass = density * Volume(shape);
  const double m = mp.mass;
  const double r = shape.radius;
  switch (shape.type) {
    case ShapeType::kPlane:
      break;  // Volume() threw already.
    case ShapeType::kBox: {
      const Vector3 s2 = shape.size.cwiseAbs2();
      mp.inertia.diagonal() =
          m / 12.0 * Vector3(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y());
      break;
    }
    case ShapeType::kSphere:
      mp.inertia.diagonal().setConstant(0.4 * m * r * r);
      break;
    case ShapeType::kCapsule: {
      const double L = shape.length;
      const double m_cyl = density * kPi * r * r * L;
      const double m_hemi = density * 2.0 / 3.0 * kPi * r * r * r;
      const double axial = 0.5 * m_cyl * r * r + 2.0 * 0.4 * m_hemi * r * r;
      const double transverse =
          m_cyl * (L * L / 12.0 + r * r / 4.0) +
          2.0 * m_hemi * (0.4 * r * r + L * L / 4.0 + 3.0 * L * r / 8.0);
      mp.inertia.diagonal() = Vector3(transverse, transverse, axial);
      break;
    }
    case ShapeType::kCylinder: {
      const double L = shape.length;
      const double transverse = m * (3.0 * r * r + L * L) / 12.0;
      mp.inertia.diagonal() = Vector3(transverse, transverse, 0.5 * m * r * r);
      break;
    }
    case ShapeType::kMesh:
      mp.inertia = density * shape.mesh->unit_inertia;
      break;
  }
  return mp;
}

MassProperties MassPropertiesFromMass(const Shape& shape, double mass) {
  if (!(mass > 0.0) || !std::isfinite(mass)) {
    std::ostringstream os;
    os << "invalid mass = " << mass << " (must be finite and > 0 kg)";
    throw std::invalid_argument(os.str());
  }
  Validate(shape);
  MassProperties mp = MassPropertiesFromDensity(shape, mass / Volume(shape));
  mp.mass = mass;  // exact, not density * volume
  return mp;
}

double BoundingRadius(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kPlane:
      return std::numeric_limits<double>::infinity();
    case ShapeType::kBox:
      return 0.5 * shape.size.norm();
    case ShapeType::kSphere:
      return shape.radius;
    case ShapeType::kCapsule:
      return shape.radius + 0.5 * shape.length;
    case ShapeType::kCylinder:
      return std::hypot(shape.radius, 0.5 * shape.length);
    case ShapeType::kMesh:
      return shape.mesh->hull.bounding_radius;
  }
  return std::numeric_limits<double>::infinity();
}

Aabb ComputeAabb(const Shape& shape, const Pose& pose, double inflation) {
  Aabb box;
  Vector3 half = Vector3::Zero();
  switch (shape.type) {
    case ShapeType::kPlane: {
      const double inf = std::numeric_limits<double>::infinity();
      box.lower.setConstant(-inf);
      box.upper.setConstant(inf);
      return box;
    }
    case ShapeType::kBox:
      half = pose.rotation().cwiseAbs() * (0.5 * shape.size);
      break;
    case ShapeType::kSphere:
      half.setConstant(shape.radius);
      break;
    case ShapeType::kCapsule: {
      const Vector3 axis = pose.rotation().col(2);
      half = 0.5 * shape.length * axis.cwiseAbs() +
             Vector3::Constant(shape.radius);
      break;
    }
    case ShapeType::kCylinder: {
      // The caps' discs reach r sqrt(1 - a_i^2) along world axis i.
      const Vector3 a = pose.rotation().col(2);
      for (int i = 0; i < 3; ++i) {
        half[i] = 0.5 * shape.length * std::abs(a[i]) +
                  shape.radius * std::sqrt(std::max(0.0, 1.0 - a[i] * a[i]));
      }
      break;
    }
    case ShapeType::kMesh: {
      // The hull's own bounds, rotated (the box about them, not the tight
      // box of the rotated vertices: O(1) per pose).
      const ConvexHull& hull = shape.mesh->hull;
      const Matrix3 r = pose.rotation();
      const Vector3 centre = pose.ToWorld(0.5 * (hull.lower + hull.upper));
      half = r.cwiseAbs() * (0.5 * (hull.upper - hull.lower));
      half.array() += inflation;
      box.lower = centre - half;
      box.upper = centre + half;
      return box;
    }
  }
  half.array() += inflation;
  box.lower = pose.position - half;
  box.upper = pose.position + half;
  return box;
}

}  // namespace sapcontact
