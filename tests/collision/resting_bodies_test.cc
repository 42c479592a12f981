// CollisionDetector::SetResting (sleeping bodies, sim/stepping): a pair of
// two resting bodies (or a resting body and a fixed one marked resting) is
// skipped, every other pair is reported exactly as without the mask; all
// bodies resting reports nothing; a wrong mask size is an error.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sapcontact/collision/collision.h"

namespace sapcontact {
namespace {

Pose At(double x, double z) {
  Pose p;
  p.position = Vector3(x, 0, z);
  return p;
}

// Ground, then three 0.2 m boxes resting on it side by side, touching:
// contacts ground-0, ground-1, ground-2, 0-1, 1-2 (bodies 1, 2, 3).
struct Row {
  std::vector<CollisionGeometry> bodies{{MakePlane(), true},
                                        {MakeBox(0.2, 0.2, 0.2), false},
                                        {MakeBox(0.2, 0.2, 0.2), false},
                                        {MakeBox(0.2, 0.2, 0.2), false}};
  std::vector<Pose> poses{At(0, 0), At(0, 0.1), At(0.2, 0.1), At(0.4, 0.1)};
};

std::set<std::pair<int, int>> Pairs(const std::vector<ContactPoint>& cs) {
  std::set<std::pair<int, int>> pairs;
  for (const ContactPoint& c : cs) pairs.emplace(c.body_a, c.body_b);
  return pairs;
}

TEST(RestingBodies, PairsOfRestingBodiesAreSkipped) {
  Row row;
  CollisionDetector detector(row.bodies);
  const std::vector<ContactPoint> all = detector.FindContacts(row.poses);
  using P = std::set<std::pair<int, int>>;
  EXPECT_EQ(Pairs(all), (P{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}}));
  // Ground and boxes 1, 2 resting; box 3 moves: only its pairs remain,
  // with the same contacts as without the mask.
  detector.SetResting({true, true, true, false});
  const std::vector<ContactPoint> some = detector.FindContacts(row.poses);
  EXPECT_EQ(Pairs(some), (P{{0, 3}, {2, 3}}));
  std::vector<ContactPoint> expected;
  for (const ContactPoint& c : all) {
    if (c.body_a == 3 || c.body_b == 3) expected.push_back(c);
  }
  ASSERT_EQ(some.size(), expected.size());
  for (size_t k = 0; k < some.size(); ++k) {
    EXPECT_EQ(some[k].position, expected[k].position);
    EXPECT_EQ(some[k].phi, expected[k].phi);
  }
  // The ground not resting (e.g. a moving kinematic body): its pairs with
  // the resting boxes come back.
  detector.SetResting({false, true, true, false});
  EXPECT_EQ(Pairs(detector.FindContacts(row.poses)),
            (P{{0, 1}, {0, 2}, {0, 3}, {2, 3}}));
  // Everything resting: nothing, even the pairs that touch.
  detector.SetResting({true, true, true, true});
  EXPECT_TRUE(detector.FindContacts(row.poses).empty());
  EXPECT_TRUE(detector.candidate_pairs().empty());
  // Cleared: all pairs again.
  detector.SetResting({});
  EXPECT_EQ(Pairs(detector.FindContacts(row.poses)), Pairs(all));
  EXPECT_THROW(detector.SetResting({true, false}), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
