// Broad phase: the pairs of bodies whose (inflated) axis-aligned bounding
// boxes overlap, by sort and sweep along the axis of largest spread of the
// box centres. Cost O(n log n + n k) for n boxes where k is the number of
// boxes overlapping a box's interval on the sweep axis (O(n log n) for
// spread-out scenes); the next call starts from the last order, so while
// boxes move little the sort costs O(n). Unbounded boxes (planes) overlap
// everything.
#pragma once

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/shapes.h"

namespace sapcontact {

/// Collision detection found more candidate pairs or contacts than its
/// limit allows (BroadPhase::FindPairs max_pairs, CollisionOptions):
/// thrown before more memory is taken. body_a() and body_b() are the pair
/// at which the limit was reached.
class CollisionLimitError : public std::runtime_error {
 public:
  CollisionLimitError(const std::string& what, int body_a, int body_b)
      : std::runtime_error(what), body_a_(body_a), body_b_(body_b) {}
  int body_a() const { return body_a_; }
  int body_b() const { return body_b_; }

 private:
  int body_a_, body_b_;
};

class BroadPhase {
 public:
  /// The pairs (i, j), i < j, sorted lexicographically, of boxes that
  /// overlap (closed intervals on all three axes), skipping pairs where
  /// both `fixed[i]` and `fixed[j]` are true, and pairs where both
  /// `resting[i]` and `resting[j]` are true (either mask may be empty:
  /// none). The returned reference is valid until the next call; buffers
  /// are reused between calls. Throws CollisionLimitError when there are
  /// more than `max_pairs` pairs (coincident bodies give n^2 / 2).
  const std::vector<std::pair<int, int>>& FindPairs(
      const std::vector<Aabb>& boxes, const std::vector<bool>& fixed = {},
      std::size_t max_pairs = std::numeric_limits<std::size_t>::max(),
      const std::vector<bool>& resting = {});
  /// The result of the last FindPairs call (empty before the first).
  const std::vector<std::pair<int, int>>& pairs() const { return pairs_; }

 private:
  // The boxes by start on the sweep axis (kept between calls: the next
  // call starts from it), the starts, and the axis of the last call.
  std::vector<int> order_;
  std::vector<double> keys_;
  int last_axis_{-1};
  std::vector<int> active_;
  std::vector<std::pair<int, int>> pairs_;
};

}  // namespace sapcontact
