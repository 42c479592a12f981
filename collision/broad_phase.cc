#include "sapcontact/collision/broad_phase.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sapcontact {

const std::vector<std::pair<int, int>>& BroadPhase::FindPairs(
    const std::vector<Aabb>& boxes, const std::vector<bool>& fixed,
    std::size_t max_pairs, const std::vector<bool>& resting) {
  const int n = static_cast<int>(boxes.size());
  pairs_.clear();
  // Sweep axis: the largest variance of the finite box centres.
  Vector3 sum = Vector3::Zero(), sum2 = Vector3::Zero();
  int finite = 0;
  for (const Aabb& b : boxes) {
    const Vector3 c = 0.5 * (b.lower + b.upper);
    if (!c.allFinite()) continue;
    sum += c;
    sum2 += c.cwiseAbs2();
    ++finite;
  }
  int axis = 2;
  if (finite > 0) {
    const Vector3 var = sum2 / finite - (sum / finite).cwiseAbs2();
    var.maxCoeff(&axis);
  }
  // Order by the boxes' starts on the axis (ties by index: a total order,
  // so the order is unique whichever way it is reached). Bodies move little
  // between steps: the last call's order is nearly sorted, and an insertion
  // sort from it costs O(n + moves); a new axis or body count, or too many
  // moves, sorts from scratch.
  keys_.resize(n);
  for (int i = 0; i < n; ++i) keys_[i] = boxes[i].lower[axis];
  const auto before = [&](int a, int b) {
    return keys_[a] < keys_[b] || (keys_[a] == keys_[b] && a < b);
  };
  bool sorted = false;
  if (axis == last_axis_ && static_cast<int>(order_.size()) == n) {
    long budget = 8L * n + 64;  // element moves before giving up
    sorted = true;
    for (int i = 1; i < n && sorted; ++i) {
      const int x = order_[i];
      int j = i;
      for (; j > 0 && before(x, order_[j - 1]); --j) {
        order_[j] = order_[j - 1];
        if (--budget < 0) break;
      }
      order_[j] = x;
      sorted = budget >= 0;
    }
  }
  if (!sorted) {
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), before);
  }
  last_axis_ = axis;
  const auto is_fixed = [&](int i) {
    return !fixed.empty() && fixed[static_cast<size_t>(i)];
  };
  const auto is_resting = [&](int i) {
    return !resting.empty() && resting[static_cast<size_t>(i)];
  };
  active_.clear();
  for (int idx : order_) {
    const Aabb& box = boxes[idx];
    const double start = box.lower[axis];
    // Drop boxes that end before this one starts (they end before every
    // later one starts too).
    size_t keep = 0;
    for (size_t k = 0; k < active_.size(); ++k) {
      if (boxes[active_[k]].upper[axis] >= start) active_[keep++] = active_[k];
    }
    active_.resize(keep);
    for (int other : active_) {
      if (is_fixed(idx) && is_fixed(other)) continue;
      if (is_resting(idx) && is_resting(other)) continue;
      if (box.Overlaps(boxes[other])) {
        if (pairs_.size() >= max_pairs) {
          const int a = std::min(idx, other), b = std::max(idx, other);
          pairs_.clear();
          throw CollisionLimitError(
              "more than " + std::to_string(max_pairs) +
                  " candidate pairs of bodies (broad phase), the limit; "
                  "reached at bodies " +
                  std::to_string(a) + " and " + std::to_string(b),
              a, b);
        }
        pairs_.emplace_back(std::min(idx, other), std::max(idx, other));
      }
    }
    active_.push_back(idx);
  }
  std::sort(pairs_.begin(), pairs_.end());
  return pairs_;
}

}  // namespace sapcontact
