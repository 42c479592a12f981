#include "sapcontact/collision/convex_support.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sapcontact {
namespace {

constexpr double kPi = 3.14159265358979323846;

// cos and sin of 2 pi k / kCylinderCapSides.
struct CapAngles {
  std::array<double, kCylinderCapSides> c, s;
  CapAngles() {
    for (int k = 0; k < kCylinderCapSides; ++k) {
      const double t = 2.0 * kPi * k / kCylinderCapSides;
      c[k] = std::cos(t);
      s[k] = std::sin(t);
    }
    // Exact quarter turns (cos(pi/2) is 6e-17 in floating point), so that an
    // upright cylinder's pattern is symmetric to the last bit.
    for (int k = 0; k < kCylinderCapSides; k += kCylinderCapSides / 4) {
      const int q = 4 * k / kCylinderCapSides;
      c[k] = q == 0 ? 1.0 : q == 2 ? -1.0 : 0.0;
      s[k] = q == 1 ? 1.0 : q == 3 ? -1.0 : 0.0;
    }
  }
};
const CapAngles& Angles() {
  static const CapAngles angles;
  return angles;
}

void Reserve(std::vector<Vector3>* v, int n) {
  if (v->size() < static_cast<size_t>(n)) v->resize(n);
}

// Box face with outward normal sign * axis i, counter-clockwise about it.
int BoxFace(const ConvexSupport& s, int i, double sign,
            std::vector<Vector3>* polygon) {
  const int j = (i + 1) % 3, k = (i + 2) % 3;
  const Vector3 fc = s.center + sign * s.half[i] * s.rotation.col(i);
  const Vector3 u = s.half[j] * s.rotation.col(j);
  const Vector3 v = s.half[k] * s.rotation.col(k);
  Reserve(polygon, 4);
  // (+u, +v), (-u, +v), (-u, -v), (+u, -v) turns counter-clockwise about
  // e_j x e_k = e_i; reversed for the face of -e_i.
  (*polygon)[0] = fc + u + v;
  (*polygon)[sign > 0.0 ? 1 : 3] = fc - u + v;
  (*polygon)[2] = fc - u - v;
  (*polygon)[sign > 0.0 ? 3 : 1] = fc + u - v;
  return 4;
}

// Cylinder cap of outward normal sign * axis: vertex k at angle
// sign * 2 pi k / N (counter-clockwise about the outward normal).
int CapPolygon(const ConvexSupport& s, double sign,
               std::vector<Vector3>* polygon) {
  const CapAngles& a = Angles();
  const Vector3 x = s.radius * s.rotation.col(0);
  const Vector3 y = sign * s.radius * s.rotation.col(1);
  const Vector3 c = s.center + sign * s.half_length * s.rotation.col(2);
  Reserve(polygon, kCylinderCapSides);
  for (int k = 0; k < kCylinderCapSides; ++k) {
    (*polygon)[k] = c + a.c[k] * x + a.s[k] * y;
  }
  return kCylinderCapSides;
}

int HullFacePolygon(const ConvexSupport& s, int f,
                    std::vector<Vector3>* polygon) {
  const std::vector<int>& loop = s.hull->faces[f].vertices;
  const int n = static_cast<int>(loop.size());
  Reserve(polygon, n);
  for (int k = 0; k < n; ++k) {
    (*polygon)[k] = s.center + s.rotation * s.hull->vertices[loop[k]];
  }
  return n;
}

// The face at hull vertex v maximizing sign * normal . d (local d).
int HullFaceAt(const ConvexHull& hull, int v, const Vector3& d, double sign) {
  int best = -1;
  double best_value = -std::numeric_limits<double>::infinity();
  // Without the vertex-face table (a hull built by hand): every face.
  const bool table = hull.vertex_face_begin.size() == hull.vertices.size() + 1;
  const int begin = table ? hull.vertex_face_begin[v] : 0;
  const int end = table ? hull.vertex_face_begin[v + 1]
                        : static_cast<int>(hull.faces.size());
  for (int k = begin; k < end; ++k) {
    const int f = table ? hull.vertex_faces[k] : k;
    const double value = sign * hull.faces[f].normal.dot(d);
    if (best < 0 || value > best_value) {
      best = f;
      best_value = value;
    }
  }
  return best;
}

}  // namespace

Vector3 ConvexSupport::LocalSupport(const Vector3& d) const {
  switch (kind) {
    case Kind::kPoint:
      return Vector3::Zero();
    case Kind::kSegment:
      return Vector3(0.0, 0.0, d.z() >= 0.0 ? half_length : -half_length);
    case Kind::kBox:
      return Vector3(d.x() >= 0.0 ? half.x() : -half.x(),
                     d.y() >= 0.0 ? half.y() : -half.y(),
                     d.z() >= 0.0 ? half.z() : -half.z());
    case Kind::kCylinder: {
      const double z = d.z() >= 0.0 ? half_length : -half_length;
      // The radial direction, scaled by its largest component first (no
      // overflow or underflow; cheaper than hypot).
      const double m = std::max(std::abs(d.x()), std::abs(d.y()));
      if (!(m > 0.0)) return Vector3(0.0, 0.0, z);  // along the axis
      const double x = d.x() / m, y = d.y() / m;
      const double scale = radius / std::sqrt(x * x + y * y);
      return Vector3(scale * x, scale * y, z);
    }
    case Kind::kHull: {
      hint = hull->Support(d, hint);
      return hull->vertices[hint];
    }
  }
  return Vector3::Zero();
}

Vector3 ConvexSupport::Support(const Vector3& direction) const {
  if (kind == Kind::kPoint) return center;
  return center + rotation * LocalSupport(rotation.transpose() * direction);
}

Vector3 ConvexSupport::SupportSwept(const Vector3& direction) const {
  const double norm = direction.norm();
  const Vector3 core = Support(direction);
  if (sweep_radius == 0.0 || !(norm > 0.0)) return core;
  return core + (sweep_radius / norm) * direction;
}

ConvexSupport MakeConvexSupport(const Shape& shape, const Pose& pose) {
  ConvexSupport s;
  s.center = pose.position;
  s.rotation = pose.rotation();
  switch (shape.type) {
    case ShapeType::kPlane:
      throw std::invalid_argument("MakeConvexSupport: a plane is unbounded");
    case ShapeType::kSphere:
      s.kind = ConvexSupport::Kind::kPoint;
      s.sweep_radius = shape.radius;
      break;
    case ShapeType::kCapsule:
      s.kind = ConvexSupport::Kind::kSegment;
      s.half_length = 0.5 * shape.length;
      s.sweep_radius = shape.radius;
      s.bounding_radius = s.half_length;
      break;
    case ShapeType::kBox:
      s.kind = ConvexSupport::Kind::kBox;
      s.half = 0.5 * shape.size;
      s.bounding_radius = s.half.norm();
      break;
    case ShapeType::kCylinder:
      s.kind = ConvexSupport::Kind::kCylinder;
      s.radius = shape.radius;
      s.half_length = 0.5 * shape.length;
      s.bounding_radius = std::hypot(s.radius, s.half_length);
      break;
    case ShapeType::kMesh:
      if (shape.mesh == nullptr || shape.mesh->hull.vertices.empty()) {
        throw std::invalid_argument(
            "MakeConvexSupport: a mesh shape without its mesh or hull");
      }
      s.kind = ConvexSupport::Kind::kHull;
      s.hull = &shape.mesh->hull;
      s.bounding_radius = s.hull->bounding_radius;
      break;
  }
  return s;
}

bool BestAlignedFace(const ConvexSupport& s, const Vector3& n, WorldFace* face,
                     std::vector<Vector3>* polygon) {
  switch (s.kind) {
    case ConvexSupport::Kind::kPoint:
    case ConvexSupport::Kind::kSegment:
      return false;
    case ConvexSupport::Kind::kBox: {
      const Vector3 local = s.rotation.transpose() * n;
      int i = 0;
      local.cwiseAbs().maxCoeff(&i);
      const double sign = local[i] >= 0.0 ? 1.0 : -1.0;
      face->normal = sign * s.rotation.col(i);
      face->offset = face->normal.dot(s.center) + s.half[i];
      face->num_vertices = BoxFace(s, i, sign, polygon);
      return true;
    }
    case ConvexSupport::Kind::kCylinder: {
      const double sign = s.rotation.col(2).dot(n) >= 0.0 ? 1.0 : -1.0;
      face->normal = sign * s.rotation.col(2);
      face->offset = face->normal.dot(s.center) + s.half_length;
      face->num_vertices = CapPolygon(s, sign, polygon);
      return true;
    }
    case ConvexSupport::Kind::kHull: {
      const Vector3 local = s.rotation.transpose() * n;
      s.hint = s.hull->Support(local, s.hint);
      const int f = HullFaceAt(*s.hull, s.hint, local, 1.0);
      if (f < 0) return false;
      face->normal = s.rotation * s.hull->faces[f].normal;
      face->offset = s.hull->faces[f].offset + face->normal.dot(s.center);
      face->num_vertices = HullFacePolygon(s, f, polygon);
      return true;
    }
  }
  return false;
}

int IncidentFeature(const ConvexSupport& s, const Vector3& m,
                    std::vector<Vector3>* points) {
  const Vector3 local = s.rotation.transpose() * m;
  switch (s.kind) {
    case ConvexSupport::Kind::kPoint:
      Reserve(points, 1);
      (*points)[0] = s.center;
      return 1;
    case ConvexSupport::Kind::kSegment: {
      const Vector3 axis = s.half_length * s.rotation.col(2);
      Reserve(points, 2);
      (*points)[0] = s.center - axis;
      (*points)[1] = s.center + axis;
      return 2;
    }
    case ConvexSupport::Kind::kBox: {
      int i = 0;
      local.cwiseAbs().maxCoeff(&i);
      return BoxFace(s, i, local[i] > 0.0 ? -1.0 : 1.0, points);
    }
    case ConvexSupport::Kind::kCylinder: {
      if (std::abs(local.z()) >= std::sqrt(0.5)) {
        return CapPolygon(s, local.z() > 0.0 ? -1.0 : 1.0, points);
      }
      // The side line nearest along -m (|local.z| < cos 45 deg: the radial
      // part of m is not zero).
      const double rho = std::hypot(local.x(), local.y());
      const Vector3 u(-s.radius * local.x() / rho, -s.radius * local.y() / rho,
                      0.0);
      const Vector3 base = s.center + s.rotation * u;
      const Vector3 axis = s.half_length * s.rotation.col(2);
      Reserve(points, 2);
      (*points)[0] = base - axis;
      (*points)[1] = base + axis;
      return 2;
    }
    case ConvexSupport::Kind::kHull: {
      s.hint = s.hull->Support(-local, s.hint);
      const int f = HullFaceAt(*s.hull, s.hint, local, -1.0);
      if (f < 0) {
        Reserve(points, 1);
        (*points)[0] = s.center + s.rotation * s.hull->vertices[s.hint];
        return 1;
      }
      return HullFacePolygon(s, f, points);
    }
  }
  return 0;
}

}  // namespace sapcontact
