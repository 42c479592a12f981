// CollisionDetector::SetExcludedPairs: the pairs of a robot's own links that
// must not collide (sim/stepping/scene_collision.h) are skipped, in either
// index order, and nothing else is.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "sapcontact/collision/collision.h"

namespace sapcontact {
namespace {

TEST(ExcludedPairs, SkipsExactlyTheExcludedPairs) {
  // Three overlapping spheres on the x axis: pairs (0,1), (0,2), (1,2).
  std::vector<CollisionGeometry> g(3, {MakeSphere(0.1), false});
  CollisionDetector detector(g);
  std::vector<Pose> poses(3);
  poses[1].position.x() = 0.05;
  poses[2].position.x() = 0.1;
  auto pairs = [&]() {
    std::set<std::pair<int, int>> found;
    for (const ContactPoint& c : detector.FindContacts(poses)) {
      found.insert(
          {std::min(c.body_a, c.body_b), std::max(c.body_a, c.body_b)});
    }
    return found;
  };
  EXPECT_EQ(pairs(), (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  detector.SetExcludedPairs({{1, 0}});  // either order
  EXPECT_EQ(pairs(), (std::set<std::pair<int, int>>{{0, 2}, {1, 2}}));
  detector.SetExcludedPairs({{0, 1}, {2, 1}});
  EXPECT_EQ(pairs(), (std::set<std::pair<int, int>>{{0, 2}}));
  detector.SetExcludedPairs({});
  EXPECT_EQ(pairs().size(), 3u);
  EXPECT_THROW(detector.SetExcludedPairs({{0, 3}}), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
