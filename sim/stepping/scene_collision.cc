#include "sapcontact/sim/stepping/scene_collision.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/sim/scene/scene_limits.h"

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

std::vector<std::string> SelfCollisionOverlapWarnings(const Scene& scene) {
  std::vector<std::string> warnings;
  for (const RobotSpec& robot : scene.robots) {
    if (!robot.self_collision) continue;
    const RobotDescription& d = robot.description;
    const std::vector<bool> moves = MovingLinks(d.tree);
    std::vector<CollisionGeometry> g;
    for (const RobotGeometry& geometry : d.geometries) {
      g.push_back({geometry.shape, !moves[geometry.link]});
    }
    const LinkCollisionFilter filter = RobotCollisionFilter(robot);
    const int n = static_cast<int>(d.geometries.size());
    std::vector<std::pair<int, int>> excluded;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        if (filter.Excluded(d.geometries[i].link, d.geometries[j].link)) {
          excluded.emplace_back(i, j);
        }
      }
    }
    CollisionDetector detector(std::move(g));
    detector.SetExcludedPairs(std::move(excluded));
    std::vector<Eigen::Isometry3d> X_WL;
    CalcLinkPoses(d.tree, RobotInitialPositions(robot), &X_WL);
    std::vector<Pose> poses;
    AppendGeometryPoses(d, X_WL, &poses);
    CollisionOptions options;
    options.margin = 0.0;
    // The deepest overlap of each pair of links (smaller index first).
    std::map<std::pair<int, int>, double> depth;
    for (const ContactPoint& c : detector.FindContacts(poses, options)) {
      int a = d.geometries[c.body_a].link, b = d.geometries[c.body_b].link;
      if (a > b) std::swap(a, b);
      double& deepest = depth[{a, b}];
      deepest = std::max(deepest, -c.phi);
    }
    std::vector<std::pair<double, std::pair<int, int>>> deep;
    for (const auto& [pair, overlap] : depth) {
      if (overlap > scene_limits::kOverlapWarning) {
        deep.emplace_back(overlap, pair);
      }
    }
    std::stable_sort(
        deep.begin(), deep.end(),
        [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [overlap, pair] : deep) {
      const std::string& a = d.tree.link(pair.first).name;
      const std::string& b = d.tree.link(pair.second).name;
      char depth_text[32];
      std::snprintf(depth_text, sizeof(depth_text), "%.3g", overlap);
      warnings.push_back(
          "robot '" + robot.name + "': links '" + a + "' and '" + b +
          "' overlap by " + depth_text +
          " m at the start and are not filtered: the contact pushes them "
          "apart at the first step; if they overlap by construction add [" +
          a + ", " + b + "] to robots." + robot.name +
          ".collision_filter.pairs (docs/robots.md, Collision filters)");
    }
  }
  return warnings;
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
    const LinkCollisionFilter filter = RobotCollisionFilter(robot);
    const int n = static_cast<int>(d.geometries.size());
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        if (!robot.self_collision ||
            filter.Excluded(d.geometries[i].link, d.geometries[j].link)) {
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
