// The one table of shape types: each type's name (as scene files, URDF
// messages and replay files spell it) and its parameters (keys, how many
// numbers, which values are allowed). The scene loader, the shape
// validator, the replay files and the narrow-phase dispatch all read it, so
// a new shape type is one row here plus its geometry. Units: metres.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sapcontact/geometry/shapes.h"

namespace sapcontact {

/// Number of ShapeType values; sizes every per-type table (the narrow
/// phase's dispatch table checks it with a static_assert).
inline constexpr int kNumShapeTypes = 6;

enum class ShapeParameterKind {
  /// Lengths [m]: finite and > 0 (>= 0 where zero_allowed).
  kLength,
  /// Scale factors per axis [-]: finite and non-zero; optional (default 1).
  kScale,
  /// A file path (text, not numbers): the mesh file.
  kFile,
};

/// One parameter of a shape: `count` values (1, or 3 for a vector) under
/// `key`.
struct ShapeParameter {
  const char* key;
  int count;
  ShapeParameterKind kind;
  /// Whether 0 is allowed (kLength only: a capsule of length 0 is a sphere).
  bool zero_allowed;
  /// Whether the parameter must be given (false: kScale, default 1).
  bool required;
  /// What it is, for messages and docs: "full edge lengths along x, y, z".
  const char* meaning;
};

struct ShapeTraits {
  ShapeType type;
  /// "plane", "box", ...
  const char* name;
  /// The parameters in file order (a shape without any has none).
  std::vector<ShapeParameter> parameters;
  /// Whether a body of this shape has a finite extent and volume (false:
  /// the plane, which only fixed bodies may be).
  bool bounded;
};

/// The table, in ShapeType order.
const std::array<ShapeTraits, kNumShapeTypes>& AllShapeTraits();
/// The row of `type`.
const ShapeTraits& TraitsOf(ShapeType type);
/// The type spelled `name`, if any.
std::optional<ShapeType> ShapeTypeFromName(const std::string& name);
/// The type names in table order joined by `separator`: "plane | box |
/// sphere | capsule" with " | ".
std::string ShapeTypeNames(const std::string& separator);
/// Every key a shape's map may hold: "type", then each parameter key of
/// every type once, in table order.
const std::vector<std::string>& AllShapeKeys();

/// The numbers of parameter `p` of `shape` (p.count of them; none for a
/// kFile parameter, whose text is MeshShape::file; a mesh's scale is its
/// MeshShape::scale).
std::vector<double> ShapeParameterValues(const Shape& shape,
                                         const ShapeParameter& p);
/// Sets parameter `p` of `shape` from p.count numbers (kLength parameters
/// only: a mesh's file and scale are set by loading it, LoadMeshShape).
void SetShapeParameter(Shape* shape, const ShapeParameter& p,
                       const std::vector<double>& values);

}  // namespace sapcontact
