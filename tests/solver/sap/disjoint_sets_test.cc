// DisjointSets against the components a breadth-first search finds on
// random graphs, and the smallest-element root rule.
#include "sapcontact/solver/sap/disjoint_sets.h"

#include <gtest/gtest.h>

#include <queue>
#include <random>
#include <utility>
#include <vector>

namespace sapcontact {
namespace {

// Component label of each vertex: the smallest vertex of its component.
std::vector<int> ComponentsByBfs(
    int n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> adjacent(n);
  for (const auto& [a, b] : edges) {
    adjacent[a].push_back(b);
    adjacent[b].push_back(a);
  }
  std::vector<int> label(n, -1);
  for (int s = 0; s < n; ++s) {
    if (label[s] >= 0) continue;
    std::queue<int> q;
    q.push(s);
    label[s] = s;
    while (!q.empty()) {
      const int v = q.front();
      q.pop();
      for (int w : adjacent[v]) {
        if (label[w] < 0) {
          label[w] = s;
          q.push(w);
        }
      }
    }
  }
  return label;
}

TEST(DisjointSets, FindsTheComponentsABreadthFirstSearchFinds) {
  std::mt19937 rng(7);
  DisjointSets sets;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    const int m = static_cast<int>(rng() % (2 * n));
    std::vector<std::pair<int, int>> edges;
    for (int e = 0; e < m; ++e) {
      edges.emplace_back(static_cast<int>(rng() % n),
                         static_cast<int>(rng() % n));
    }
    sets.Reset(n);  // storage reused across trials
    int merges = 0;
    for (const auto& [a, b] : edges) merges += sets.Unite(a, b) ? 1 : 0;
    const std::vector<int> expected = ComponentsByBfs(n, edges);
    int components = 0;
    for (int v = 0; v < n; ++v) {
      EXPECT_EQ(sets.Find(v), expected[v]) << "trial " << trial;
      components += expected[v] == v ? 1 : 0;
    }
    // Each successful Unite joins two components.
    EXPECT_EQ(merges, n - components);
  }
}

TEST(DisjointSets, RootIsTheSmallestElementWhateverTheOrderOfUnions) {
  DisjointSets sets(5);
  EXPECT_TRUE(sets.Unite(4, 3));
  EXPECT_TRUE(sets.Unite(3, 2));
  EXPECT_FALSE(sets.Unite(4, 2));
  EXPECT_EQ(sets.Find(4), 2);
  EXPECT_TRUE(sets.Unite(4, 0));
  for (int v : {0, 2, 3, 4}) EXPECT_EQ(sets.Find(v), 0);
  EXPECT_EQ(sets.Find(1), 1);
  EXPECT_EQ(sets.size(), 5);
}

}  // namespace
}  // namespace sapcontact
