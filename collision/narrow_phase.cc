#include "sapcontact/collision/narrow_phase.h"

#include <utility>

#include "sapcontact/geometry/shape_traits.h"

namespace sapcontact {
namespace {

using PairFn = void (*)(const Shape&, const Pose&, const Shape&, const Pose&,
                        double, std::vector<ContactPoint>*);

// Routine for (type A, type B) with A not after B in ShapeType order;
// nullptr: no contacts.
PairFn Lookup(ShapeType a, ShapeType b) {
  static constexpr int kN = 6;
  static_assert(kN == kNumShapeTypes,
                "the dispatch table has a row and a column per shape type");
  static const PairFn kTable[kN][kN] = {
      // plane, box, sphere, capsule, cylinder, mesh (B)
      {nullptr, CollidePlaneBox, CollidePlaneSphere, CollidePlaneCapsule,
       CollidePlaneCylinder, CollidePlaneMesh},
      {nullptr, CollideBoxBox, CollideBoxSphere, CollideBoxCapsule,
       CollideConvex, CollideConvex},
      {nullptr, nullptr, CollideSphereSphere, CollideSphereCapsule,
       CollideSphereCylinder, CollideRoundConvex},
      {nullptr, nullptr, nullptr, CollideCapsuleCapsule, CollideRoundConvex,
       CollideRoundConvex},
      {nullptr, nullptr, nullptr, nullptr, CollideConvex, CollideConvex},
      {nullptr, nullptr, nullptr, nullptr, nullptr, CollideConvex},
  };
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace

void Collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
             double margin, std::vector<ContactPoint>* out) {
  if (static_cast<int>(a.type) <= static_cast<int>(b.type)) {
    if (PairFn f = Lookup(a.type, b.type)) f(a, pa, b, pb, margin, out);
    return;
  }
  // Swap the roles and flip the normals back to "from a into b".
  const size_t first = out->size();
  if (PairFn f = Lookup(b.type, a.type)) f(b, pb, a, pa, margin, out);
  for (size_t i = first; i < out->size(); ++i) FlipContact(&(*out)[i]);
}

}  // namespace sapcontact
