// The collision detector of a scene: one CollisionGeometry per body of
// sim/scene/scene.h, in scene order (collider index = body index), then one
// per collision geometry of each robot (robots in scene order, geometries in
// RobotDescription order). A robot geometry is fixed when its link does not
// move (all joints from the world to it fixed).
#pragma once

#include <string>
#include <vector>

#include "sapcontact/collision/collision.h"
#include "sapcontact/sim/scene/scene.h"

namespace sapcontact {

/// Whether each link of `tree` moves (some joint on its path from the world
/// is not fixed).
std::vector<bool> MovingLinks(const MultibodyTree& tree);

/// Appends the world poses of the collision geometries of `robot` (in
/// RobotDescription order) given its links' world poses X_WL.
void AppendGeometryPoses(const RobotDescription& robot,
                         const std::vector<Eigen::Isometry3d>& X_WL,
                         std::vector<Pose>* poses);

/// World poses of every collider (bodies, then robot geometries) with the
/// bodies at their initial poses and robot r at positions q[r].
std::vector<Pose> ColliderPoses(const Scene& scene,
                                const std::vector<Eigen::VectorXd>& q);

/// The body each collider belongs to, by name: a scene body's name, or
/// "<robot>/<link>" for a robot geometry (the names of ContactReport).
std::vector<std::string> ColliderBodyNames(const Scene& scene);

/// Whether each collider is part of the world: a fixed body, or a robot
/// geometry on a link that does not move (MovingLinks).
std::vector<bool> FixedColliders(const Scene& scene);

/// A CollisionDetector over the scene's bodies and robot geometries, with
/// the pairs that must not collide excluded: all pairs within a robot, or,
/// with self_collision, those its collision filter excludes
/// (RobotCollisionFilter: links welded together or within
/// collision_adjacent joints, and the named pairs).
/// @throws std::invalid_argument as the CollisionDetector constructor.
CollisionDetector MakeCollisionDetector(const Scene& scene);

/// One warning per pair of links of a robot with self_collision that
/// overlap by more than scene_limits::kOverlapWarning at the initial
/// positions and that the collision filter lets collide, deepest first:
/// "robot 'atlas': links 'l_uleg' and 'l_lleg' overlap by 0.078 m at the
/// start and are not filtered: the contact pushes them apart at the first
/// step; if they overlap by construction add [l_uleg, l_lleg] to
/// robots.atlas.collision_filter.pairs (docs/robots.md, Collision
/// filters)". Empty when no robot has self_collision.
std::vector<std::string> SelfCollisionOverlapWarnings(const Scene& scene);

}  // namespace sapcontact
