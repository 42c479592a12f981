#include "sapcontact/sim/collision/narrow_phase.h"

#include <utility>

namespace sapcontact {
namespace {

using PairFn = void (*)(const Shape&, const Pose&, const Shape&, const Pose&,
                        double, std::vector<ContactPoint>*);

// Routine for (type A, type B) with A not after B; nullptr: no contacts.
PairFn Lookup(ShapeType a, ShapeType b) {
  static const PairFn kTable[4][4] = {
      // plane, box, sphere, capsule (B)
      {nullptr, CollidePlaneBox, CollidePlaneSphere, CollidePlaneCapsule},
      {nullptr, CollideBoxBox, CollideBoxSphere, CollideBoxCapsule},
      {nullptr, nullptr, CollideSphereSphere, CollideSphereCapsule},
      {nullptr, nullptr, nullptr, CollideCapsuleCapsule},
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
  for (size_t i = first; i < out->size(); ++i) (*out)[i].normal *= -1.0;
}

}  // namespace sapcontact
