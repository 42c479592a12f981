#include "sapcontact/sim/robot/collision_filter.h"

#include <deque>
#include <stdexcept>

namespace sapcontact {

LinkCollisionFilter::LinkCollisionFilter(const MultibodyTree& tree,
                                         int adjacent) {
  if (adjacent < 0) {
    throw std::invalid_argument(
        "collision_filter.adjacent: " + std::to_string(adjacent) +
        " joints (expected >= 0)");
  }
  const int n = tree.num_links();
  // Links are in depth-first order (a parent before its children): a link
  // welded to its parent joins the parent's body.
  body_.resize(n);
  for (int l = 0; l < n; ++l) {
    const Joint& j = tree.joint(l);
    body_[l] =
        j.parent >= 0 && j.type == JointType::kFixed ? body_[j.parent] : l;
  }
  // The bodies' tree: each body's joint to its parent body.
  std::vector<std::vector<int>> neighbours(n);
  for (int l = 0; l < n; ++l) {
    const int parent = tree.joint(l).parent;
    if (parent < 0 || body_[l] == body_[parent]) continue;
    neighbours[body_[l]].push_back(body_[parent]);
    neighbours[body_[parent]].push_back(body_[l]);
  }
  // Bodies within `adjacent` joints: breadth-first from each body.
  std::vector<char> near(static_cast<size_t>(n) * n, 0);
  std::vector<int> depth(n);
  std::deque<int> queue;
  for (int b = 0; b < n; ++b) {
    if (body_[b] != b) continue;
    depth.assign(n, -1);
    depth[b] = 0;
    queue.assign(1, b);
    while (!queue.empty()) {
      const int c = queue.front();
      queue.pop_front();
      near[static_cast<size_t>(b) * n + c] = 1;
      if (depth[c] == adjacent) continue;
      for (int d : neighbours[c]) {
        if (depth[d] < 0) {
          depth[d] = depth[c] + 1;
          queue.push_back(d);
        }
      }
    }
  }
  excluded_.assign(static_cast<size_t>(n) * n, 0);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      excluded_[static_cast<size_t>(a) * n + b] =
          near[static_cast<size_t>(body_[a]) * n + body_[b]];
    }
  }
}

void LinkCollisionFilter::Exclude(int a, int b) {
  const int n = num_links();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    throw std::invalid_argument("LinkCollisionFilter::Exclude: link index " +
                                std::to_string(a < 0 || a >= n ? a : b) +
                                " out of range (" + std::to_string(n) +
                                " links)");
  }
  excluded_[static_cast<size_t>(a) * n + b] = 1;
  excluded_[static_cast<size_t>(b) * n + a] = 1;
}

bool LinkCollisionFilter::Excluded(int a, int b) const {
  const int n = num_links();
  if (a < 0 || a >= n || b < 0 || b >= n) return false;
  return excluded_[static_cast<size_t>(a) * n + b] != 0;
}

}  // namespace sapcontact
