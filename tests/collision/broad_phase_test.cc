// The broad phase returns exactly the pairs of a brute-force O(n^2) AABB
// check; the detector returns exactly the contacts of brute-force narrow
// phases over all pairs, with the documented body order.
#include "sapcontact/collision/broad_phase.h"

#include <gtest/gtest.h>

#include <random>

#include "sapcontact/collision/collision.h"
#include "tests/collision/collision_test_util.h"

namespace sapcontact {
namespace {

using testing_util::RandomRotation;

std::vector<std::pair<int, int>> BruteForcePairs(
    const std::vector<Aabb>& boxes, const std::vector<bool>& fixed) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    for (int j = i + 1; j < static_cast<int>(boxes.size()); ++j) {
      if (!fixed.empty() && fixed[i] && fixed[j]) continue;
      if (boxes[i].Overlaps(boxes[j])) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

TEST(BroadPhase, MatchesBruteForceOnRandomBoxes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  BroadPhase bp;
  int total_pairs = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + static_cast<int>(200 * u(rng));
    // Anisotropic clouds so that different sweep axes get chosen; some
    // boxes share coordinates exactly (touching intervals count).
    const Vector3 extent(1 + 4 * u(rng), 1 + 4 * u(rng), 1 + 4 * u(rng));
    std::vector<Aabb> boxes(n);
    std::vector<bool> fixed(n);
    for (int i = 0; i < n; ++i) {
      const Vector3 c = Vector3(u(rng), u(rng), u(rng)).cwiseProduct(extent);
      const Vector3 h = 0.05 + 0.3 * Vector3(u(rng), u(rng), u(rng)).array();
      boxes[i].lower = c - h;
      boxes[i].upper = c + h;
      if (i > 0 && u(rng) < 0.1) boxes[i].lower.x() = boxes[i - 1].upper.x();
      fixed[i] = u(rng) < 0.2;
    }
    if (trial % 5 == 0) {  // an unbounded (plane) box
      const double inf = std::numeric_limits<double>::infinity();
      boxes[0].lower.setConstant(-inf);
      boxes[0].upper.setConstant(inf);
    }
    const auto expected = BruteForcePairs(boxes, fixed);
    EXPECT_EQ(bp.FindPairs(boxes, fixed), expected) << "trial " << trial;
    EXPECT_EQ(bp.FindPairs(boxes), BruteForcePairs(boxes, {}));
    total_pairs += static_cast<int>(expected.size());
  }
  EXPECT_GT(total_pairs, 1000);  // the test exercised overlaps
}

// Calls after the first start from the last order: boxes that drift a
// little each call, then jump (many moves: a sort from scratch), then
// change count, still give exactly the brute-force pairs; the resting mask
// drops exactly the pairs of two resting boxes.
TEST(BroadPhase, MatchesBruteForceWhileBoxesMove) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  BroadPhase bp;
  int n = 300;
  std::vector<Vector3> centres(n);
  for (Vector3& c : centres) c = Vector3(3 * u(rng), 2 * u(rng), u(rng));
  for (int frame = 0; frame < 60; ++frame) {
    const double step = frame % 20 == 10 ? 1.0 : 0.01;  // drift or jump
    if (frame == 40) {
      n = 250;
      centres.resize(n);
    }
    std::vector<Aabb> boxes(n);
    std::vector<bool> resting(n);
    for (int i = 0; i < n; ++i) {
      centres[i] += step * Vector3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
      boxes[i].lower = centres[i] - Vector3::Constant(0.06);
      boxes[i].upper = centres[i] + Vector3::Constant(0.06);
      resting[i] = u(rng) < 0.5;
    }
    auto expected = BruteForcePairs(boxes, {});
    ASSERT_EQ(bp.FindPairs(boxes), expected) << "frame " << frame;
    std::vector<std::pair<int, int>> awake;
    for (const auto& [i, j] : expected) {
      if (!(resting[i] && resting[j])) awake.emplace_back(i, j);
    }
    ASSERT_EQ(bp.FindPairs(boxes, {}, 1u << 30, resting), awake) << frame;
  }
}

TEST(CollisionDetector, MatchesAllPairsNarrowPhaseAndOrdersBodies) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // A ground plane, fixed walls, and a random cloud of bodies.
  std::vector<CollisionGeometry> bodies{{MakePlane(), true},
                                        {MakeBox(2, 0.1, 0.5), true},
                                        {MakeBox(0.1, 2, 0.5), true}};
  std::vector<Pose> poses(3);
  poses[1].position = Vector3(1, 0, 0.2);
  poses[2].position = Vector3(0, 1, 0.2);
  for (int i = 0; i < 150; ++i) {
    const double pick = u(rng);
    const Shape s =
        pick < 0.33   ? MakeSphere(0.03 + 0.05 * u(rng))
        : pick < 0.66 ? MakeBox(0.05 + 0.1 * u(rng), 0.05 + 0.1 * u(rng),
                                0.05 + 0.1 * u(rng))
                      : MakeCapsule(0.02 + 0.03 * u(rng), 0.05 + 0.1 * u(rng));
    bodies.push_back({s, u(rng) < 0.05});
    Pose p;
    p.position = Vector3(2 * u(rng), 2 * u(rng), 0.6 * u(rng));
    p.orientation = RandomRotation(rng);
    poses.push_back(p);
  }
  CollisionDetector detector(bodies);
  CollisionOptions options;
  options.margin = 0.01;
  std::vector<double> bounds(bodies.size());
  for (size_t i = 0; i < bounds.size(); ++i) {
    bounds[i] = bodies[i].fixed ? 0.0 : 0.01 * u(rng);
  }
  const auto& contacts = detector.FindContacts(poses, options, bounds);

  std::vector<ContactPoint> expected;
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
    for (int j = i + 1; j < static_cast<int>(bodies.size()); ++j) {
      if (bodies[i].fixed && bodies[j].fixed) continue;
      const int a = bodies[j].fixed ? j : i, b = a == i ? j : i;
      const size_t first = expected.size();
      Collide(bodies[a].shape, poses[a], bodies[b].shape, poses[b],
              options.margin + bounds[i] + bounds[j], &expected);
      for (size_t k = first; k < expected.size(); ++k) {
        expected[k].body_a = a;
        expected[k].body_b = b;
      }
    }
  }
  ASSERT_EQ(contacts.size(), expected.size());
  ASSERT_GT(contacts.size(), 50u);
  for (size_t k = 0; k < contacts.size(); ++k) {
    EXPECT_EQ(contacts[k].body_a, expected[k].body_a);
    EXPECT_EQ(contacts[k].body_b, expected[k].body_b);
    EXPECT_EQ(contacts[k].phi, expected[k].phi);
    EXPECT_EQ(contacts[k].normal, expected[k].normal);
    const auto& ca = bodies[contacts[k].body_a];
    const auto& cb = bodies[contacts[k].body_b];
    EXPECT_FALSE(ca.fixed && cb.fixed);
    if (!ca.fixed) {
      EXPECT_FALSE(cb.fixed);  // a fixed body is always A
      EXPECT_LT(contacts[k].body_a, contacts[k].body_b);
    }
  }
  // The broad phase pruned: far fewer candidates than all pairs.
  const size_t n = bodies.size();
  EXPECT_LT(detector.candidate_pairs().size(), n * (n - 1) / 2 / 4);
}

TEST(CollisionDetector, RejectsBadInput) {
  EXPECT_THROW(CollisionDetector({{MakePlane(), false}}),
               std::invalid_argument);
  EXPECT_THROW(CollisionDetector({{MakeSphere(-1), false}}),
               std::invalid_argument);
  CollisionDetector d({{MakeSphere(1), false}, {MakeSphere(1), false}});
  EXPECT_THROW(d.FindContacts({Pose()}), std::invalid_argument);
  std::vector<Pose> poses(2);
  poses[1].position.x() = NAN;
  EXPECT_THROW(d.FindContacts(poses), std::invalid_argument);
  poses[1].position.x() = 1;
  CollisionOptions bad;
  bad.margin = -1;
  EXPECT_THROW(d.FindContacts(poses, bad), std::invalid_argument);
  EXPECT_THROW(d.FindContacts(poses, {}, {0.0}), std::invalid_argument);
}

TEST(CollisionDetector, MotionBoundsWidenTheMargin) {
  // Two spheres 5 cm apart: no contact with the 1 mm margin, a speculative
  // contact once the motion bound of one of them covers the gap.
  CollisionDetector d({{MakeSphere(0.1), false}, {MakeSphere(0.1), false}});
  std::vector<Pose> poses(2);
  poses[1].position = Vector3(0.25, 0, 0);
  EXPECT_TRUE(d.FindContacts(poses).empty());
  const double bound =
      MotionBound(MakeSphere(0.1), Vector3(60, 0, 0), Vector3(0, 0, 0), 1e-3);
  EXPECT_DOUBLE_EQ(bound, 0.06);
  const auto& c = d.FindContacts(poses, {}, {bound, 0.0});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NEAR(c[0].phi, 0.05, 1e-15);
  EXPECT_EQ(c[0].body_a, 0);
  EXPECT_TRUE(c[0].normal.isApprox(Vector3::UnitX()));
  // Rotation counts with the bounding radius: a 0.2 m cube spinning at
  // 10 rad/s moves its corners at most 10 * sqrt(3) * 0.1 m/s.
  EXPECT_NEAR(MotionBound(MakeBox(0.2, 0.2, 0.2), Vector3::Zero(),
                          Vector3(0, 0, 10), 1e-3),
              1e-3 * 10 * std::sqrt(3.0) * 0.1, 1e-15);
}

TEST(ContactFrame, RowsAreARightHandedOrthonormalFrame) {
  std::mt19937 rng(3);
  for (int i = 0; i < 100; ++i) {
    const Vector3 n = RandomRotation(rng) * Vector3::UnitZ();
    const Matrix3 r = ContactFrameRows(n);
    EXPECT_TRUE((r * r.transpose()).isApprox(Matrix3::Identity(), 1e-14));
    EXPECT_TRUE(r.row(kNormal).transpose().isApprox(n, 1e-15));
    // t1 x t2 = n (conventions.h).
    const Vector3 t1 = r.row(kTangent1), t2 = r.row(kTangent2);
    EXPECT_TRUE(t1.cross(t2).isApprox(n, 1e-14));
    EXPECT_EQ(ContactFrameRows(n), r);  // deterministic
  }
  for (const Vector3& n :
       {Vector3(Vector3::UnitX()), Vector3(-Vector3::UnitY()),
        Vector3(Vector3::UnitZ())}) {
    const Matrix3 r = ContactFrameRows(n);
    EXPECT_TRUE((r * r.transpose()).isApprox(Matrix3::Identity(), 1e-15));
    EXPECT_NEAR(r.determinant(), 1.0, 1e-15);
  }
}

}  // namespace
}  // namespace sapcontact
