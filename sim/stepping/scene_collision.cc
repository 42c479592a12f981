#include "sapcontact/sim/stepping/scene_collision.h"

#include <string>
#include <utility>
#include <vector>

namespace sapcontact {

std::vector<bool> MovingLinks(const MultibodyTree& tree) {
  std::vector<bool> moves(tree.num_links(), false);
  for (int l = 0; l < tree.num_links(); ++l) {
    const Joint& j = tree.joint(l);
    moves[l] =
        j.type != JointType::kFixed || (j.parent >= 0 && moves[j.parent]);
  }
  return moves;
}

void AppendGeometryPoses(const RobotDescription& robot,
                         const std::vector<Eigen::Isometry3d>& X_WL,
                         std::vector<Pose>* poses) {
  for (const RobotGeometry& g : robot.geometries) {
    Pose p;
    p.position = X_WL[g.link] * g.pose_in_link.position;
    p.orientation =
        Eigen::Quaterniond(X_WL[g.link].linear()) * g.pose_in_link.orientation;
    poses->push_back(p);
  }
}

std::vector<Pose> ColliderPoses(const Scene& scene,
                                const std::vector<Eigen::VectorXd>& q) {
  std::vector<Pose> poses;
  for (const Body& b : scene.bodies) poses.push_back(b.pose);
  std::vector<Eigen::Isometry3d> X_WL;
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    const RobotDescription& d = scene.robots[r].description;
    CalcLinkPoses(d.tree, q[r], &X_WL);
    AppendGeometryPoses(d, X_WL, &poses);
  }
  return poses;
}

std::vector<std::string> ColliderBodyNames(const Scene& scene) {
  std::vector<std::string> names;
  for (const Body& b : scene.bodies) names.push_back(b.name);
  for (const RobotSpec& robot : scene.robots) {
    const RobotDescription& d = robot.description;
    for (const RobotGeometry& g : d.geometries) {
      names.push_back(robot.name + "/" + d.tree.link(g.link).name);
    }
  }
  return names;
}

std::vector<bool> FixedColliders(const Scene& scene) {
  std::vector<bool> fixed;
  for (const Body& b : scene.bodies) fixed.push_back(b.fixed);
  for (const RobotSpec& robot : scene.robots) {
    const RobotDescription& d = robot.description;
    const std::vector<bool> moves = MovingLinks(d.tree);
    for (const RobotGeometry& g : d.geometries) {
      fixed.push_back(!moves[g.link]);
    }
  }
  return fixed;
}

CollisionDetector MakeCollisionDetector(const Scene& scene) {
  std::vector<CollisionGeometry> g;
  g.reserve(scene.bodies.size());
  for (const Body& b : scene.bodies) g.push_back({b.shape, b.fixed});
  std::vector<std::pair<int, int>> excluded;
  for (const RobotSpec& robot : scene.robots) {
    const RobotDescription& d = robot.description;
    const std::vector<bool> moves = MovingLinks(d.tree);
    const int first = static_cast<int>(g.size());
    for (const RobotGeometry& geometry : d.geometries) {
      g.push_back({geometry.shape, !moves[geometry.link]});
    }
    const int n = static_cast<int>(d.geometries.size());
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const int li = d.geometries[i].link, lj = d.geometries[j].link;
        const bool adjacent = li == lj || d.tree.joint(li).parent == lj ||
                              d.tree.joint(lj).parent == li;
        if (!robot.self_collision || adjacent) {
          excluded.emplace_back(first + i, first + j);
        }
      }
    }
  }
  CollisionDetector detector(std::move(g));
  detector.SetExcludedPairs(std::move(excluded));
  return detector;
}

}  // namespace sapcontact
