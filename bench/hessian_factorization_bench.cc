// Factor + Solve time of the SAP Newton Hessian factorizations (SAP paper
// §IV-D) on tree/patch graphs of 6-DOF free bodies: a chain of N bodies and an
// N x N grid (4-neighbour patches). Values have the structure A + J' G J (SPD
// mass-like diagonal blocks, one 3-row patch per edge).
//
//   *_FactorSolve: steady state of a Newton iteration (pattern already
//     analysed: numeric factorization + one solve).
//   Cholmod*_AnalyzeFactorSolve: a new pattern every time (cholmod_analyze +
//     factorization + solve), the cost when contact patches change.
//
// Counters: n = rows, nnz_L = entries of the factor.
#include <benchmark/benchmark.h>

#include <random>
#include <utility>
#include <vector>

#include "sapcontact/solver/linear_algebra/cholmod_hessian_factorization.h"
#include "sapcontact/solver/linear_algebra/dense_hessian_factorization.h"

namespace sapcontact {
namespace {

constexpr int kBlockSize = 6;

std::vector<std::pair<int, int>> ChainEdges(int num_blocks) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < num_blocks; ++i) edges.emplace_back(i, i - 1);
  return edges;
}

std::vector<std::pair<int, int>> GridEdges(int side) {
  std::vector<std::pair<int, int>> edges;
  for (int r = 0; r < side; ++r) {
    for (int c = 0; c < side; ++c) {
      const int id = r * side + c;
      if (c + 1 < side) edges.emplace_back(id + 1, id);
      if (r + 1 < side) edges.emplace_back(id + side, id);
    }
  }
  return edges;
}

BlockSparseSymmetricMatrix MakeHessian(int num_blocks,
                                       std::vector<std::pair<int, int>> edges) {
  BlockSparseSymmetricMatrix H(BlockSparsityPattern(
      std::vector<int>(num_blocks, kBlockSize), std::move(edges)));
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto random_matrix = [&](int rows, int cols) {
    return Eigen::MatrixXd::NullaryExpr(rows, cols,
                                        [&]() { return uniform(rng); })
        .eval();
  };
  for (int i = 0; i < num_blocks; ++i) {
    const Eigen::MatrixXd R = random_matrix(kBlockSize, kBlockSize);
    H.diagonal_block(i) =
        R * R.transpose() + Eigen::MatrixXd::Identity(kBlockSize, kBlockSize);
  }
  const Eigen::Vector3d g(100.0, 1.0, 1.0);
  for (int k = 0; k < H.pattern().num_off_diagonal_blocks(); ++k) {
    const auto [i, j] = H.pattern().off_diagonal_blocks()[k];
    const Eigen::MatrixXd Ji = random_matrix(3, kBlockSize);
    const Eigen::MatrixXd Jj = random_matrix(3, kBlockSize);
    H.diagonal_block(i) += Ji.transpose() * g.asDiagonal() * Ji;
    H.diagonal_block(j) += Jj.transpose() * g.asDiagonal() * Jj;
    H.off_diagonal_block(k) = Ji.transpose() * g.asDiagonal() * Jj;
  }
  return H;
}

BlockSparseSymmetricMatrix MakeCase(bool grid, int N) {
  return grid ? MakeHessian(N * N, GridEdges(N))
              : MakeHessian(N, ChainEdges(N));
}

template <typename Factorization>
void FactorSolve(benchmark::State& state, bool grid) {
  const BlockSparseSymmetricMatrix H =
      MakeCase(grid, static_cast<int>(state.range(0)));
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(H.size());
  Eigen::VectorXd x(H.size());
  Factorization factorization;
  if (!factorization.Factor(H)) state.SkipWithError("not SPD");
  for (auto _ : state) {
    if (!factorization.Factor(H)) state.SkipWithError("not SPD");
    x = b;
    factorization.SolveInPlace(&x);
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["n"] = H.size();
  state.counters["nnz_L"] =
      static_cast<double>(factorization.statistics().factor_nonzeros);
}

void CholmodAnalyzeFactorSolve(benchmark::State& state, bool grid) {
  const BlockSparseSymmetricMatrix H =
      MakeCase(grid, static_cast<int>(state.range(0)));
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(H.size());
  Eigen::VectorXd x(H.size());
  for (auto _ : state) {
    CholmodHessianFactorization factorization;
    if (!factorization.Factor(H)) state.SkipWithError("not SPD");
    x = b;
    factorization.SolveInPlace(&x);
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["n"] = H.size();
}

void BM_DenseChain_FactorSolve(benchmark::State& state) {
  FactorSolve<DenseHessianFactorization>(state, false);
}
void BM_CholmodChain_FactorSolve(benchmark::State& state) {
  FactorSolve<CholmodHessianFactorization>(state, false);
}
void BM_CholmodChain_AnalyzeFactorSolve(benchmark::State& state) {
  CholmodAnalyzeFactorSolve(state, false);
}
void BM_DenseGrid_FactorSolve(benchmark::State& state) {
  FactorSolve<DenseHessianFactorization>(state, true);
}
void BM_CholmodGrid_FactorSolve(benchmark::State& state) {
  FactorSolve<CholmodHessianFactorization>(state, true);
}
void BM_CholmodGrid_AnalyzeFactorSolve(benchmark::State& state) {
  CholmodAnalyzeFactorSolve(state, true);
}

// Chain of N bodies (n = 6 N).
BENCHMARK(BM_DenseChain_FactorSolve)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CholmodChain_FactorSolve)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CholmodChain_AnalyzeFactorSolve)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
// N x N grid (n = 6 N^2).
BENCHMARK(BM_DenseGrid_FactorSolve)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CholmodGrid_FactorSolve)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CholmodGrid_AnalyzeFactorSolve)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sapcontact

BENCHMARK_MAIN();
