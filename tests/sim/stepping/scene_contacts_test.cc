// The shipped scenes start as intended: resting bodies touch (phi = 0 at the
// expected corners), nothing starts in penetration.
#include <gtest/gtest.h>

#include <map>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace {

using testing_util::ScenePath;

std::vector<Pose> Poses(const Scene& s) {
  std::vector<Pose> p;
  for (const Body& b : s.bodies) p.push_back(b.pose);
  return p;
}

// Number of contacts per (body_a, body_b) pair.
std::map<std::pair<int, int>, int> CountPairs(
    const std::vector<ContactPoint>& c) {
  std::map<std::pair<int, int>, int> m;
  for (const auto& k : c) ++m[{k.body_a, k.body_b}];
  return m;
}

TEST(SceneContacts, RestingScenesTouchAtTheCorners) {
  for (const char* name : {"box_rest", "box_slide", "incline"}) {
    SCOPED_TRACE(name);
    const Scene s = LoadScene(ScenePath(name));
    CollisionDetector d = MakeCollisionDetector(s);
    const auto& c = d.FindContacts(Poses(s), {s.collision.margin});
    ASSERT_EQ(c.size(), 4u);
    for (const auto& k : c) {
      EXPECT_EQ(k.body_a, 0);  // the fixed ground is A
      EXPECT_EQ(k.body_b, 1);
      EXPECT_NEAR(k.phi, 0.0, 1e-15);
      EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
      EXPECT_NEAR(std::abs(k.position.x()), 0.1, 1e-15);
      EXPECT_NEAR(std::abs(k.position.y()), 0.1, 1e-15);
    }
  }
}

TEST(SceneContacts, StackHasFourContactsPerInterface) {
  const Scene s = LoadScene(ScenePath("stack"));
  CollisionDetector d = MakeCollisionDetector(s);
  const auto& c = d.FindContacts(Poses(s), {s.collision.margin});
  const auto pairs = CountPairs(c);
  ASSERT_EQ(pairs.size(), 10u);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(pairs.at({k, k + 1}), 4);
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, 0.0, 1e-12);
    EXPECT_TRUE(k.normal.isApprox(Vector3::UnitZ()));
  }
}

TEST(SceneContacts, MassRatioHeavyBoxRestsOnTheLightBoxCorners) {
  const Scene s = LoadScene(ScenePath("mass_ratio"));
  CollisionDetector d = MakeCollisionDetector(s);
  const auto& c = d.FindContacts(Poses(s), {s.collision.margin});
  const int light = s.FindBody("light"), heavy = s.FindBody("heavy");
  const auto pairs = CountPairs(c);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs.at({0, light}), 4);
  EXPECT_EQ(pairs.at({light, heavy}), 4);
  for (const auto& k : c) {
    EXPECT_NEAR(k.phi, 0.0, 1e-12);
    // The smaller (light) box's top corners carry the heavy box.
    EXPECT_NEAR(std::abs(k.position.x()), 0.1, 1e-12);
  }
}

TEST(SceneContacts, PileStartsSeparatedInsideAClosedBin) {
  const Scene s = LoadScene(ScenePath("pile"));
  CollisionDetector d = MakeCollisionDetector(s);
  std::vector<Pose> poses = Poses(s);
  EXPECT_TRUE(d.FindContacts(poses, {s.collision.margin}).empty());
  // Every dropped body placed against the inner side of each wall (or into
  // a corner) touches that wall; placed on the floor, only the floor.
  const int first_free = 5;
  for (int i = first_free; i < static_cast<int>(poses.size()); i += 7) {
    const struct {
      Vector3 at;
      std::vector<int> walls;  // indices of wall_xp, wall_xn, wall_yp, wall_yn
    } places[] = {{{0.3, 0.1, 0.2}, {1}},      {{-0.3, -0.1, 0.2}, {2}},
                  {{0.1, 0.3, 0.2}, {3}},      {{-0.1, -0.3, 0.2}, {4}},
                  {{0.29, 0.29, 0.2}, {1, 3}}, {{0, 0, 0}, {0}}};
    for (const auto& place : places) {
      std::vector<Pose> moved = poses;
      moved[i].position = place.at;
      std::vector<int> touched;
      for (const auto& k : d.FindContacts(moved, {s.collision.margin})) {
        if (k.body_b != i) continue;
        EXPECT_LT(k.body_a, first_free);  // nothing else is near
        if (touched.empty() || touched.back() != k.body_a) {
          touched.push_back(k.body_a);
        }
      }
      EXPECT_EQ(touched, place.walls)
          << s.bodies[i].name << " at " << place.at.transpose();
    }
  }
}

}  // namespace
}  // namespace sapcontact
