#include "sapcontact/sim/collision/broad_phase.h"

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
  order_.resize(n);
  for (int i = 0; i < n; ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    const double la = boxes[a].lower[axis], lb = boxes[b].lower[axis];
    return la < lb || (la == lb && a < b);
  });
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
