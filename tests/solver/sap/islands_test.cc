// Islands (SapSolverParameters::islands, docs/theory.md §8): the connected
// components of the contact graph are solved as independent Newton problems
// with their own line search and convergence test. The answer equals the
// monolithic solve's (islands = false) within the tolerance, each island
// meets the convergence criterion on its own, and the statistics account
// for every island.
#include <gtest/gtest.h>

#include <algorithm>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

// The trees and contacts of b appended to a (tree indices shifted).
void Append(const SapProblem& b, SapProblem* a) {
  const int offset = static_cast<int>(a->trees.size());
  for (const Tree& t : b.trees) a->trees.push_back(t);
  for (Contact c : b.contacts) {
    c.first.tree += offset;
    if (c.second) c.second->tree += offset;
    a->contacts.push_back(c);
  }
}

// Chains of 1, 3 and 6 sliding boxes and a 4 x 4 grid: four islands, the
// grid (96 DOFs) and the 6-chain (36 DOFs) small enough for dense
// factorization, plus a 9 x 9 grid (486 DOFs) for the CHOLMOD group.
SapProblem ManyIslands(double jiggle) {
  fixtures::BoxSetup s;
  s.jiggle = jiggle;
  SapProblem p = fixtures::Chain(1, s);
  Append(fixtures::Chain(3, s), &p);
  Append(fixtures::Grid(9, s), &p);
  s.jiggle = 2 * jiggle;
  Append(fixtures::Chain(6, s), &p);
  Append(fixtures::Grid(4, s), &p);
  return p;
}

SapSolverParameters TightIslands(bool islands) {
  SapSolverParameters params;
  params.rel_tolerance = 1e-10;
  params.islands = islands;
  return params;
}

TEST(Islands, SameAnswerAsTheMonolithicSolve) {
  const SapProblem p = ManyIslands(0.05);
  SapSolver by_island(TightIslands(true)), monolithic(TightIslands(false));
  const SapSolverResults a = by_island.Solve(p), b = monolithic.Solve(p);
  ASSERT_TRUE(a.converged()) << a.message;
  ASSERT_TRUE(b.converged()) << b.message;
  EXPECT_EQ(a.statistics.islands, 5);
  EXPECT_EQ(b.statistics.islands, 1);
  EXPECT_LT((a.v - b.v).norm(), 1e-8 * b.v.norm());
  EXPECT_LT((a.gamma - b.gamma).norm(), 1e-8 * b.gamma.norm());
  // Both are optimal: A (v - v*) = J' gamma.
  for (const SapSolverResults* r : {&a, &b}) {
    const Eigen::VectorXd momentum =
        DenseA(p) * (r->v - StackedVStar(p)) - r->generalized_impulse;
    EXPECT_LT(momentum.norm(), 1e-8 * r->generalized_impulse.norm());
  }
  std::printf(
      "Newton rounds: islands %d (%d island iterations, %d factorizations), "
      "monolithic %d\n",
      a.statistics.newton_iterations, a.statistics.island_newton_iterations,
      a.statistics.factorizations, b.statistics.newton_iterations);
}

TEST(Islands, EachIslandConvergesOnItsOwnAndIsAccountedFor) {
  const SapProblem p = ManyIslands(0.05);
  SapSolver solver(TightIslands(true));
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged()) << r.message;
  const SapSolverStatistics& s = r.statistics;
  ASSERT_EQ(static_cast<int>(s.island_statistics.size()), 5);
  // In order of their first tree: chain 1, chain 3, grid 9, chain 6, grid 4.
  const int trees[] = {1, 3, 81, 6, 16};
  int sum = 0, most = 0, contacts = 0, velocities = 0, sparse = 0;
  for (int i = 0; i < 5; ++i) {
    const SapIslandStatistics& is = s.island_statistics[i];
    EXPECT_EQ(is.trees, trees[i]) << "island " << i;
    EXPECT_EQ(is.velocities, 6 * trees[i]);
    // kAuto's rule: dense up to dense_size_threshold DOFs or for one tree.
    EXPECT_EQ(is.dense,
              is.velocities <= TightIslands(true).dense_size_threshold ||
                  is.trees == 1)
        << "island " << i;
    EXPECT_LE(is.final_scaled_residual, 1e-10) << "island " << i;
    sum += is.newton_iterations;
    sparse += is.dense ? 0 : 1;
    most = std::max(most, is.newton_iterations);
    contacts += is.contacts;
    velocities += is.velocities;
  }
  EXPECT_EQ(s.island_newton_iterations, sum);
  EXPECT_EQ(s.newton_iterations, most);
  EXPECT_EQ(contacts, static_cast<int>(p.contacts.size()));
  EXPECT_EQ(velocities, s.participating_velocities);
  // Each island is factored once per Newton iteration it takes, not after
  // it has converged; each sparse one (chain 6, grid 9, grid 4) has its own
  // factorization and symbolic analysis.
  EXPECT_EQ(s.factorizations, s.island_newton_iterations);
  EXPECT_EQ(sparse, 3);
  EXPECT_EQ(s.symbolic_analyses, sparse);
}

TEST(Islands, AConvergedIslandStopsIterating) {
  // Resting islands next to sliding ones: warm-started at the solution of
  // the resting part, the resting islands take no Newton step at all.
  fixtures::BoxSetup rest, slide;
  slide.jiggle = 0.05;
  SapProblem p = fixtures::Chain(4, rest);
  const int resting_trees = static_cast<int>(p.trees.size());
  Append(fixtures::Chain(5, slide), &p);
  SapSolver solver(TightIslands(true));
  const SapSolverResults first = solver.Solve(p);
  ASSERT_TRUE(first.converged());
  const SapSolverResults again = solver.Solve(p, &first.v);
  ASSERT_TRUE(again.converged());
  EXPECT_EQ(again.statistics.newton_iterations, 0);
  // From v*, the sliding chain needs more iterations than the resting one.
  ASSERT_EQ(first.statistics.island_statistics.size(), 2u);
  EXPECT_EQ(first.statistics.island_statistics[0].trees, resting_trees);
  EXPECT_LT(first.statistics.island_statistics[0].newton_iterations,
            first.statistics.island_statistics[1].newton_iterations);
}

// An island of one tree is one dense block: with kAuto it is factored
// densely whatever its size (nothing for CHOLMOD to exploit), with the same
// answer as CHOLMOD gives; a large island of many trees still goes to
// CHOLMOD.
TEST(Islands, AOneTreeIslandIsFactoredDenselyAtAnySize) {
  std::mt19937 rng(3);
  std::normal_distribution<double> N(0, 1);
  std::uniform_real_distribution<double> U(0, 1);
  SapProblem p;
  p.time_step = 1e-2;
  Tree robot;
  robot.A = testing::RandomSpd(150, &rng);
  robot.v_star = Eigen::VectorXd::NullaryExpr(150, [&] { return N(rng); });
  p.trees.push_back(robot);
  for (int k = 0; k < 40; ++k) {
    Contact c;
    c.first.tree = 0;
    c.first.J = Eigen::MatrixXd::NullaryExpr(3, 150, [&] { return N(rng); });
    c.phi0 = 0.02 * (U(rng) - 0.6);
    c.parameters = {1e4, 0.05 * U(rng), 1.5 * U(rng)};
    p.contacts.push_back(c);
  }
  fixtures::BoxSetup s;
  s.jiggle = 0.05;
  Append(fixtures::Grid(9, s), &p);

  SapSolverParameters automatic = TightIslands(true),
                      cholmod = TightIslands(true);
  cholmod.linear_solver = LinearSolverType::kCholmod;
  SapSolver a_solver(automatic), c_solver(cholmod);
  const SapSolverResults a = a_solver.Solve(p), c = c_solver.Solve(p);
  ASSERT_TRUE(a.converged()) << a.message;
  ASSERT_TRUE(c.converged()) << c.message;
  ASSERT_EQ(a.statistics.island_statistics.size(), 2u);
  EXPECT_EQ(a.statistics.island_statistics[0].velocities, 150);
  EXPECT_TRUE(a.statistics.island_statistics[0].dense);
  EXPECT_FALSE(a.statistics.island_statistics[1].dense);  // 81 boxes
  EXPECT_FALSE(c.statistics.island_statistics[0].dense);
  EXPECT_LT((a.v - c.v).norm(), 1e-8 * c.v.norm());
  EXPECT_LT((a.gamma - c.gamma).norm(), 1e-8 * c.gamma.norm());
}

}  // namespace
}  // namespace sapcontact
