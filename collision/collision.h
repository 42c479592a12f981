// Collision detection for a set of rigid bodies: broad phase
// (collision/broad_phase.h) + narrow phase manifolds
// (collision/narrow_phase.h). Output conventions (phi, normal A->B, contact
// position): collision/contact_point.h and contact_model/conventions.h.
// Design note: docs/scenes.md.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "sapcontact/collision/broad_phase.h"
#include "sapcontact/collision/contact_point.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"

namespace sapcontact {

class ThreadPool;

/// A body as collision detection sees it.
struct CollisionGeometry {
  Shape shape;
  /// Fixed bodies never collide with each other.
  bool fixed{false};
};

struct CollisionOptions {
  /// Speculative margin [m], >= 0: contacts are reported for phi <= margin
  /// (+ the two bodies' motion bounds), so that a contact exists one step
  /// before the surfaces touch and fast approach does not tunnel or
  /// penetrate deeply. Default 1 mm (covers ~1 m/s of relative approach at
  /// dt = 1e-3 without motion bounds).
  double margin{1.0e-3};
  /// Limits that protect the machine (docs/scenes.md "Limits"): more
  /// broad-phase candidate pairs or more contacts than these throw
  /// CollisionLimitError before the memory is taken (bodies piled at one
  /// place give n^2 / 2 pairs and up to 8 contacts per box pair).
  std::size_t max_pairs{2000000};
  std::size_t max_contacts{100000};
};

/// Upper bound on the distance any point of a body of `shape` can travel in
/// `dt` with velocity v [m/s] and angular velocity w [rad/s]:
/// dt (|v| + |w| BoundingRadius(shape)) [m].
double MotionBound(const Shape& shape, const Vector3& v, const Vector3& w,
                   double dt);

class CollisionDetector {
 public:
  /// Throws std::invalid_argument (naming the body index and field) for an
  /// invalid shape or a plane on a non-fixed body.
  explicit CollisionDetector(std::vector<CollisionGeometry> bodies);
  ~CollisionDetector();
  CollisionDetector(CollisionDetector&&) noexcept;
  CollisionDetector& operator=(CollisionDetector&&) noexcept;

  /// The threads FindContacts runs the pairs' narrow phases on, >= 1 (1,
  /// the default: the caller's thread alone, no thread is created). With
  /// threads > 1 the detector owns a pool of that many threads
  /// (parallel/thread_pool.h; its workers sleep between calls): the
  /// contacts are the same, bitwise, in the same order, for any number.
  /// @throws std::invalid_argument if threads < 1.
  void SetThreads(int threads);
  /// Runs FindContacts on `pool` instead (not owned; nullptr: the threads of
  /// SetThreads again): a caller that already keeps a pool, such as the
  /// time stepper with its solver's, shares it, so that one pool's workers,
  /// not two pools' competing ones, serve both. The pool must outlive its
  /// use and run no other loop during FindContacts. Contacts unchanged.
  void UseThreadPool(ThreadPool* pool) { shared_pool_ = pool; }
  /// Threads of the pool FindContacts runs on (1 without one).
  int threads() const;

  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  const std::vector<CollisionGeometry>& bodies() const { return bodies_; }
  /// Pairs of bodies that never collide (e.g. the links of one robot, or
  /// its adjacent links), in any order; replaces the previous list.
  /// @throws std::invalid_argument on an index out of range.
  void SetExcludedPairs(std::vector<std::pair<int, int>> pairs);

  /// Bodies that stay where they are until further notice (sleeping
  /// bodies, sim/stepping/time_stepper.h; a fixed body; a kinematic body at
  /// rest), one flag per body, or empty (none; the default): a pair of two
  /// resting bodies is skipped like a pair of fixed bodies, so their
  /// contacts are not reported. Which body of a pair is A is unchanged.
  /// Kept for every following FindContacts call until replaced.
  /// @throws std::invalid_argument on a wrong size.
  void SetResting(const std::vector<bool>& resting);

  /// All contacts with phi <= margin_ab where margin_ab = options.margin +
  /// motion_bounds[a] + motion_bounds[b] (motion_bounds optional: empty
  /// means zeros; else one value >= 0 per body, e.g. MotionBound()).
  /// Contacts of one pair are contiguous; pairs are ordered by (body_a,
  /// body_b) as found by the broad phase (sorted by the smaller, then the
  /// larger index). When exactly one body of a pair is fixed it is body_a;
  /// otherwise body_a < body_b. Throws std::invalid_argument if poses has
  /// the wrong size or a non-finite entry (naming the body index),
  /// CollisionLimitError beyond options.max_pairs or max_contacts. The
  /// reference is valid until the next call (buffers are reused). With
  /// SetThreads(n > 1) the pairs' narrow phases run on the detector's n
  /// threads: the contacts are the same, bitwise, in the same order.
  const std::vector<ContactPoint>& FindContacts(
      const std::vector<Pose>& poses, const CollisionOptions& options = {},
      const std::vector<double>& motion_bounds = {});

  /// The broad-phase candidate pairs of the last FindContacts call.
  const std::vector<std::pair<int, int>>& candidate_pairs() const {
    return broad_phase_.pairs();
  }

 private:
  std::vector<CollisionGeometry> bodies_;
  std::vector<bool> fixed_;
  // SetResting; quiet_: every body resting (no pair to test).
  std::vector<bool> resting_;
  bool quiet_{false};
  std::vector<Aabb> aabbs_;
  std::vector<ContactPoint> contacts_;
  // Concurrent narrow phase (SetThreads): the pool, null for one thread,
  // and the contacts of each block of pairs, merged in pair order.
  std::unique_ptr<ThreadPool> pool_;
  ThreadPool* shared_pool_{nullptr};  // UseThreadPool
  // One cache line per block's vector: threads filling neighbouring blocks
  // do not share the line their vectors' end pointers live in.
  struct alignas(64) BlockContacts {
    std::vector<ContactPoint> contacts;
  };
  std::vector<BlockContacts> block_contacts_;
  std::vector<size_t> block_offsets_;  // each block's first in contacts_
  BroadPhase broad_phase_;
  // Sorted (smaller, larger) index pairs.
  std::vector<std::pair<int, int>> excluded_;
};

}  // namespace sapcontact
