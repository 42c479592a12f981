#include "sapcontact/sim/stepping/scene_collision.h"

#include <utility>
#include <vector>

namespace sapcontact {

CollisionDetector MakeCollisionDetector(const Scene& scene) {
  std::vector<CollisionGeometry> g;
  g.reserve(scene.bodies.size());
  for (const Body& b : scene.bodies) g.push_back({b.shape, b.fixed});
  return CollisionDetector(std::move(g));
}

}  // namespace sapcontact
