#include "sapcontact/geometry/shape_traits.h"

#include <cstring>
#include <stdexcept>

namespace sapcontact {

const std::array<ShapeTraits, kNumShapeTypes>& AllShapeTraits() {
  using K = ShapeParameterKind;
  static const std::array<ShapeTraits, kNumShapeTypes> kTable{{
      {ShapeType::kPlane, "plane", {}, false},
      {ShapeType::kBox,
       "box",
       {{"size", 3, K::kLength, false, true,
         "full edge lengths along the body x, y, z axes"}},
       true},
      {ShapeType::kSphere,
       "sphere",
       {{"radius", 1, K::kLength, false, true, "radius"}},
       true},
      {ShapeType::kCapsule,
       "capsule",
       {{"radius", 1, K::kLength, false, true, "radius"},
        {"length", 1, K::kLength, true, true,
         "distance between the two sphere centres along the body z axis"}},
       true},
      {ShapeType::kCylinder,
       "cylinder",
       {{"radius", 1, K::kLength, false, true, "radius"},
        {"length", 1, K::kLength, false, true,
         "full length between the flat caps along the body z axis"}},
       true},
      {ShapeType::kMesh,
       "mesh",
       {{"file", 1, K::kFile, false, true,
         "mesh file: STL (binary or ASCII), OBJ or Collada (.dae)"},
        {"scale", 3, K::kScale, false, false,
         "scale factors of the file's x, y, z coordinates (default 1)"}},
       true},
  }};
  return kTable;
}

const ShapeTraits& TraitsOf(ShapeType type) {
  return AllShapeTraits()[static_cast<int>(type)];
}

std::optional<ShapeType> ShapeTypeFromName(const std::string& name) {
  for (const ShapeTraits& t : AllShapeTraits()) {
    if (name == t.name) return t.type;
  }
  return std::nullopt;
}

std::string ShapeTypeNames(const std::string& separator) {
  std::string s;
  for (const ShapeTraits& t : AllShapeTraits()) {
    if (!s.empty()) s += separator;
    s += t.name;
  }
  return s;
}

const std::vector<std::string>& AllShapeKeys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys{"type"};
    for (const ShapeTraits& t : AllShapeTraits()) {
      for (const ShapeParameter& p : t.parameters) {
        bool seen = false;
        for (const std::string& k : keys) seen = seen || k == p.key;
        if (!seen) keys.push_back(p.key);
      }
    }
    return keys;
  }();
  return kKeys;
}

namespace {

// Where number i of length parameter `key` lives in a Shape.
const double* Field(const Shape& shape, const char* key, int i) {
  if (std::strcmp(key, "size") == 0) return &shape.size[i];
  if (std::strcmp(key, "radius") == 0) return &shape.radius;
  if (std::strcmp(key, "length") == 0) return &shape.length;
  throw std::logic_error(std::string("shape parameter '") + key +
                         "' has no field");
}

}  // namespace

std::vector<double> ShapeParameterValues(const Shape& shape,
                                         const ShapeParameter& p) {
  std::vector<double> values;
  if (p.kind == ShapeParameterKind::kFile) return values;
  if (p.kind == ShapeParameterKind::kScale) {
    const Vector3 scale =
        shape.mesh != nullptr ? shape.mesh->scale : Vector3::Ones();
    return {scale.x(), scale.y(), scale.z()};
  }
  for (int i = 0; i < p.count; ++i) values.push_back(*Field(shape, p.key, i));
  return values;
}

void SetShapeParameter(Shape* shape, const ShapeParameter& p,
                       const std::vector<double>& values) {
  if (p.kind != ShapeParameterKind::kLength) {
    throw std::invalid_argument(std::string("shape parameter '") + p.key +
                                "' is set by loading the mesh");
  }
  if (static_cast<int>(values.size()) != p.count) {
    throw std::invalid_argument(std::string("shape parameter '") + p.key +
                                "' takes " + std::to_string(p.count) +
                                " numbers");
  }
  for (int i = 0; i < p.count; ++i) {
    *const_cast<double*>(Field(*shape, p.key, i)) = values[i];
  }
}

}  // namespace sapcontact
