#include "sapcontact/sim/geometry/shapes.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void Fail(const std::string& context, const std::string& what) {
  std::ostringstream os;
  if (!context.empty()) os << context << ": ";
  os << what;
  throw std::invalid_argument(os.str());
}

}  // namespace

const char* ShapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kPlane:
      return "plane";
    case ShapeType::kBox:
      return "box";
    case ShapeType::kSphere:
      return "sphere";
    case ShapeType::kCapsule:
      return "capsule";
  }
  return "unknown";
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

void Validate(const Shape& shape, const std::string& context) {
  auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  switch (shape.type) {
    case ShapeType::kPlane:
      return;
    case ShapeType::kBox:
      for (int i = 0; i < 3; ++i) {
        if (!positive(shape.size[i])) {
          std::ostringstream os;
          os << "invalid box size[" << i << "] = " << shape.size[i]
             << " (must be finite and > 0 m)";
          Fail(context, os.str());
        }
      }
      return;
    case ShapeType::kCapsule:
      if (!(shape.length >= 0.0) || !std::isfinite(shape.length)) {
        std::ostringstream os;
        os << "invalid capsule length = " << shape.length
           << " (must be finite and >= 0 m)";
        Fail(context, os.str());
      }
      [[fallthrough]];
    case ShapeType::kSphere:
      if (!positive(shape.radius)) {
        std::ostringstream os;
        os << "invalid " << ShapeTypeName(shape.type)
           << " radius = " << shape.radius << " (must be finite and > 0 m)";
        Fail(context, os.str());
      }
      return;
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
  }
  half.array() += inflation;
  box.lower = pose.position - half;
  box.upper = pose.position + half;
  return box;
}

}  // namespace sapcontact
