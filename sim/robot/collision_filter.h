// Which pairs of a robot's links never collide with each other
// (docs/robots.md, "Collision filters"). One mechanism for every robot
// description: links welded by fixed joints count as one body; bodies
// within `adjacent` joints of each other never collide (1: parent and
// child, as MuJoCo and Drake exclude them); named pairs (a scene's
// collision_filter.pairs, an SRDF's <disable_collisions>) never collide.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"

namespace sapcontact {

class LinkCollisionFilter {
 public:
  /// No link pair filtered (the links of `num_links` all collide).
  LinkCollisionFilter() = default;

  /// Filters every pair of links of `tree` whose welded bodies are within
  /// `adjacent` joints of each other (>= 0; 0: only links welded
  /// together, and a link with itself). @throws std::invalid_argument for
  /// adjacent < 0.
  LinkCollisionFilter(const MultibodyTree& tree, int adjacent);

  /// Filters the pair (a, b) of link indices (either order; a == b allowed).
  /// @throws std::invalid_argument for an index out of range.
  void Exclude(int a, int b);

  /// Whether links a and b never collide with each other.
  bool Excluded(int a, int b) const;

  /// The welded body of each link: links joined by fixed joints share one
  /// index (the index of their topmost link).
  const std::vector<int>& welded_body() const { return body_; }

  int num_links() const { return static_cast<int>(body_.size()); }

 private:
  std::vector<int> body_;
  // num_links x num_links, symmetric.
  std::vector<char> excluded_;
};

}  // namespace sapcontact
