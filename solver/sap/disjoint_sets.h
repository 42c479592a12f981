// Disjoint sets (union-find) over the elements 0..n-1: the connected
// components of a graph given edge by edge, as the solvers' islands
// (docs/theory.md §8), the simulator's sleeping islands and the FCLib
// primal forms need them. Path halving in Find; Unite makes the smaller
// root the root of the union, so every set's root is its smallest element
// (components numbered by their first element come out in a fixed order).
#pragma once

#include <algorithm>
#include <vector>

namespace sapcontact {

class DisjointSets {
 public:
  DisjointSets() = default;
  explicit DisjointSets(int n) { Reset(n); }

  /// n singletons (the storage is kept: no allocation once n stops growing).
  void Reset(int n) {
    parent_.resize(n);
    for (int i = 0; i < n; ++i) parent_[i] = i;
  }

  int size() const { return static_cast<int>(parent_.size()); }

  /// The root of x's set: its smallest element.
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];  // path halving
      x = parent_[x];
    }
    return x;
  }

  /// Merges the sets of a and b; returns false if they were one already.
  bool Unite(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }

 private:
  std::vector<int> parent_;
};

}  // namespace sapcontact
