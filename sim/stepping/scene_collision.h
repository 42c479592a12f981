// The collision detector of a scene: one CollisionGeometry per body of
// sim/scene/scene.h, in scene order (body index = scene index).
#pragma once

#include "sapcontact/sim/collision/collision.h"
#include "sapcontact/sim/scene/scene.h"

namespace sapcontact {

/// A CollisionDetector over `scene.bodies` (shape and fixed flag of each).
/// @throws std::invalid_argument as the CollisionDetector constructor.
CollisionDetector MakeCollisionDetector(const Scene& scene);

}  // namespace sapcontact
