// Test helpers: block patterns of tree/patch graphs (chain, star, 2-D grid,
// random graph) and random SPD matrices with the structure of the SAP Hessian
// A + J' G J (SAP paper §IV-D): SPD diagonal blocks A_t plus, for every edge
// (patch), J_p' G_p J_p with a random 3 x (n_i + n_j) Jacobian and G_p = diag(g
// > 0).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"

namespace sapcontact {
namespace test {

inline std::vector<int> RandomBlockSizes(int num_blocks, int max_size,
                                         std::mt19937* rng) {
  std::uniform_int_distribution<int> size(1, max_size);
  std::vector<int> sizes(num_blocks);
  for (int& s : sizes) s = size(*rng);
  return sizes;
}

/// Edges (i, i-1).
inline std::vector<std::pair<int, int>> ChainEdges(int num_blocks) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < num_blocks; ++i) edges.emplace_back(i, i - 1);
  return edges;
}

/// Block 0 is the hub: edges (i, 0).
inline std::vector<std::pair<int, int>> StarEdges(int num_blocks) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < num_blocks; ++i) edges.emplace_back(i, 0);
  return edges;
}

/// rows x cols grid, node r * cols + c, 4-neighbour edges.
inline std::vector<std::pair<int, int>> GridEdges(int rows, int cols) {
  std::vector<std::pair<int, int>> edges;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int id = r * cols + c;
      if (c + 1 < cols) edges.emplace_back(id + 1, id);
      if (r + 1 < rows) edges.emplace_back(id + cols, id);
    }
  }
  return edges;
}

/// num_edges distinct random pairs (fewer if the graph is complete), listed
/// in random order.
inline std::vector<std::pair<int, int>> RandomEdges(int num_blocks,
                                                    int num_edges,
                                                    std::mt19937* rng) {
  const long long max_edges =
      static_cast<long long>(num_blocks) * (num_blocks - 1) / 2;
  num_edges = static_cast<int>(std::min<long long>(num_edges, max_edges));
  std::uniform_int_distribution<int> node(0, std::max(0, num_blocks - 1));
  std::set<std::pair<int, int>> chosen;
  std::vector<std::pair<int, int>> edges;
  while (static_cast<int>(edges.size()) < num_edges) {
    const int a = node(*rng), b = node(*rng);
    if (a == b) continue;
    const std::pair<int, int> e{std::max(a, b), std::min(a, b)};
    if (chosen.insert(e).second) edges.push_back(e);
  }
  return edges;
}

/// Fills H with A + J' G J: A_t = R R' / n_t + diagonal_shift I (R uniform in
/// [-1, 1]), one 3-row patch per off-diagonal block with g log-uniform in
/// [0.1, 1000] (condition numbers up to about 1e5).
inline void FillRandomSpd(BlockSparseSymmetricMatrix* H, std::mt19937* rng,
                          double diagonal_shift = 0.5) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_real_distribution<double> log10_stiffness(-1.0, 3.0);
  auto random_matrix = [&](int rows, int cols) {
    Eigen::MatrixXd M(rows, cols);
    for (int c = 0; c < cols; ++c) {
      for (int r = 0; r < rows; ++r) M(r, c) = uniform(*rng);
    }
    return M;
  };
  const BlockSparsityPattern& p = H->pattern();
  for (int i = 0; i < p.num_blocks(); ++i) {
    const int n = p.block_size(i);
    const Eigen::MatrixXd R = random_matrix(n, n);
    H->diagonal_block(i) = R * R.transpose() / n +
                           diagonal_shift * Eigen::MatrixXd::Identity(n, n);
  }
  for (int k = 0; k < p.num_off_diagonal_blocks(); ++k) {
    const auto [i, j] = p.off_diagonal_blocks()[k];
    const Eigen::MatrixXd Ji = random_matrix(3, p.block_size(i));
    const Eigen::MatrixXd Jj = random_matrix(3, p.block_size(j));
    Eigen::Vector3d g;
    for (int a = 0; a < 3; ++a) g(a) = std::pow(10.0, log10_stiffness(*rng));
    const auto G = g.asDiagonal();
    H->diagonal_block(i) += Ji.transpose() * G * Ji;
    H->diagonal_block(j) += Jj.transpose() * G * Jj;
    H->off_diagonal_block(k) = Ji.transpose() * G * Jj;
  }
}

inline Eigen::VectorXd RandomVector(int n, std::mt19937* rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = uniform(*rng);
  return v;
}

}  // namespace test
}  // namespace sapcontact
