// CollisionDetector::FindContacts on the detector's own threads
// (SetThreads): the same contacts, bitwise and in the same order, as on one, on
// a jumble of 300 boxes, spheres, capsules and cylinders (thousands of
// candidate pairs, every pair type, excluded pairs); and the same
// CollisionLimitError, naming the same pair, when max_contacts is crossed.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/collision/collision.h"
#include "sapcontact/parallel/thread_pool.h"

namespace sapcontact {
namespace {

bool SameBits(const ContactPoint& a, const ContactPoint& b) {
  return a.body_a == b.body_a && a.body_b == b.body_b &&
         std::memcmp(a.position.data(), b.position.data(), 3 * 8) == 0 &&
         std::memcmp(a.normal.data(), b.normal.data(), 3 * 8) == 0 &&
         std::memcmp(&a.phi, &b.phi, 8) == 0;
}

struct Jumble {
  std::vector<CollisionGeometry> bodies;
  std::vector<Pose> poses;
};

// A ground plane and 300 shapes of 0.1-0.2 m in a 1 m cube above it, at
// random orientations: overlapping neighbours everywhere.
Jumble MakeJumble() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Jumble j;
  j.bodies.push_back({MakePlane(), true});
  j.poses.emplace_back();
  for (int i = 0; i < 300; ++i) {
    const double s = 0.1 + 0.1 * u(rng);
    switch (i % 4) {
      case 0:
        j.bodies.push_back({MakeBox(s, 0.8 * s, 0.6 * s), false});
        break;
      case 1:
        j.bodies.push_back({MakeSphere(0.5 * s), false});
        break;
      case 2:
        j.bodies.push_back({MakeCapsule(0.3 * s, s), false});
        break;
      default:
        j.bodies.push_back({MakeCylinder(0.4 * s, s), false});
    }
    Pose p;
    p.position = Vector3(u(rng), u(rng), 0.05 + u(rng));
    p.orientation = Eigen::Quaterniond(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5,
                                       u(rng) - 0.5)
                        .normalized();
    j.poses.push_back(p);
  }
  return j;
}

TEST(ConcurrentNarrowPhase, SameContactsInTheSameOrder) {
  const Jumble j = MakeJumble();
  CollisionDetector serial(j.bodies);
  serial.SetExcludedPairs({{1, 2}, {5, 9}, {0, 3}});
  const std::vector<ContactPoint> reference = serial.FindContacts(j.poses);
  // Enough pairs for the concurrent path (kMinParallelPairs, 512).
  ASSERT_GE(serial.candidate_pairs().size(), 512u);
  ASSERT_GT(reference.size(), 500u);
  EXPECT_EQ(serial.threads(), 1);
  for (int threads : {2, 3}) {
    CollisionDetector concurrent(j.bodies);
    concurrent.SetExcludedPairs({{1, 2}, {5, 9}, {0, 3}});
    concurrent.SetThreads(threads);
    EXPECT_EQ(concurrent.threads(), threads);
    for (int repeat = 0; repeat < 2; ++repeat) {  // buffers reused
      const std::vector<ContactPoint>& found = concurrent.FindContacts(j.poses);
      ASSERT_EQ(found.size(), reference.size()) << threads << " threads";
      for (size_t k = 0; k < found.size(); ++k) {
        ASSERT_TRUE(SameBits(found[k], reference[k]))
            << threads << " threads, contact " << k;
      }
    }
  }
}

TEST(ConcurrentNarrowPhase, SameLimitErrorAtTheSamePair) {
  const Jumble j = MakeJumble();
  for (size_t limit : {size_t{10}, size_t{400}}) {
    CollisionOptions options;
    options.max_contacts = limit;
    CollisionDetector serial(j.bodies);
    std::string expected;
    try {
      serial.FindContacts(j.poses, options);
      FAIL() << "no limit error at " << limit;
    } catch (const CollisionLimitError& e) {
      expected = e.what();
    }
    CollisionDetector concurrent(j.bodies);
    concurrent.SetThreads(2);
    try {
      concurrent.FindContacts(j.poses, options);
      FAIL() << "no limit error at " << limit << " with threads";
    } catch (const CollisionLimitError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

TEST(ConcurrentNarrowPhase, ThreadsAreSetAndMovedWithTheDetector) {
  const Jumble j = MakeJumble();
  CollisionDetector serial(j.bodies);
  const std::vector<ContactPoint> reference = serial.FindContacts(j.poses);
  CollisionDetector first(j.bodies);
  EXPECT_THROW(first.SetThreads(0), std::invalid_argument);
  first.SetThreads(2);
  CollisionDetector moved = std::move(first);  // the pool moves with it
  EXPECT_EQ(moved.threads(), 2);
  const std::vector<ContactPoint>& found = moved.FindContacts(j.poses);
  ASSERT_EQ(found.size(), reference.size());
  for (size_t k = 0; k < found.size(); ++k) {
    ASSERT_TRUE(SameBits(found[k], reference[k])) << "contact " << k;
  }
  moved.SetThreads(1);  // back to the caller's thread alone
  EXPECT_EQ(moved.threads(), 1);
  EXPECT_EQ(moved.FindContacts(j.poses).size(), reference.size());
}

TEST(ConcurrentNarrowPhase, SharedPoolGivesTheSameContacts) {
  const Jumble j = MakeJumble();
  CollisionDetector serial(j.bodies);
  const std::vector<ContactPoint> reference = serial.FindContacts(j.poses);
  ThreadPool pool(2);
  CollisionDetector shared(j.bodies);
  shared.UseThreadPool(&pool);  // the caller's pool, not one of its own
  EXPECT_EQ(shared.threads(), 2);
  for (int repeat = 0; repeat < 2; ++repeat) {
    const std::vector<ContactPoint>& found = shared.FindContacts(j.poses);
    ASSERT_EQ(found.size(), reference.size());
    for (size_t k = 0; k < found.size(); ++k) {
      ASSERT_TRUE(SameBits(found[k], reference[k])) << "contact " << k;
    }
  }
  shared.UseThreadPool(nullptr);  // back to its own threads (one)
  EXPECT_EQ(shared.threads(), 1);
  EXPECT_EQ(shared.FindContacts(j.poses).size(), reference.size());
}

}  // namespace
}  // namespace sapcontact
