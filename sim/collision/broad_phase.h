// Broad phase: the pairs of bodies whose (inflated) axis-aligned bounding
// boxes overlap, by sort and sweep along the axis of largest spread of the
// box centres. Cost O(n log n + n k) for n boxes where k is the number of
// boxes overlapping a box's interval on the sweep axis (O(n log n) for
// spread-out scenes). Unbounded boxes (planes) overlap everything.
#pragma once

#include <utility>
#include <vector>

#include "sapcontact/sim/geometry/shapes.h"

namespace sapcontact {

class BroadPhase {
 public:
  /// The pairs (i, j), i < j, sorted lexicographically, of boxes that
  /// overlap (closed intervals on all three axes), skipping pairs where
  /// both `fixed[i]` and `fixed[j]` are true (fixed may be empty: none
  /// fixed). The returned reference is valid until the next call; buffers
  /// are reused between calls.
  const std::vector<std::pair<int, int>>& FindPairs(
      const std::vector<Aabb>& boxes, const std::vector<bool>& fixed = {});
  /// The result of the last FindPairs call (empty before the first).
  const std::vector<std::pair<int, int>>& pairs() const { return pairs_; }

 private:
  std::vector<int> order_;
  std::vector<int> active_;
  std::vector<std::pair<int, int>> pairs_;
};

}  // namespace sapcontact
