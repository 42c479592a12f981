// SapSolverParameters::threads: a solve on 2 or 3 threads returns results
// bitwise identical to 1 thread (velocities, impulses, the per-round cost,
// step and residual history, iteration counts), on problems whose islands
// take every path: single free boxes sliding (dense 6 x 6 islands), short
// chains (dense multi-tree islands), long chains (the sparse group, with
// the block Cholesky and with CHOLMOD), with stiction prediction on and off
// and with the backtracking line search; and over a sequence of warm-started
// solves with one solver, as a simulation runs them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/common/concurrency.h"

namespace sapcontact {
namespace {

using testing::BitwiseEqual;

// Islands of every kind: 100 lone sliding boxes, 6 chains of 3 boxes and 3
// chains of 8 boxes (48 DOFs: above dense_size_threshold), side by side:
// 142 trees and over 256 contacts, enough for every loop to go to the pool
// (kMinParallelContacts, kMinParallelTrees).
SapProblem MixedIslands(double jiggle) {
  fixtures::BoxSetup s;
  s.jiggle = jiggle;
  fixtures::BoxWorld w(s);
  int n = 0;
  for (int i = 0; i < 100; ++i, ++n) {
    const int b =
        w.AddBox(Eigen::Vector3d(i, 0, 0.05), fixtures::Jiggle(n, jiggle));
    w.AddGroundContacts(b);
  }
  for (int c = 0; c < 9; ++c) {
    const int length = c < 6 ? 3 : 8;
    for (int i = 0; i < length; ++i, ++n) {
      const int b = w.AddBox(Eigen::Vector3d(i * s.size, 2.0 + c, 0.05),
                             fixtures::Jiggle(n, jiggle));
      w.AddGroundContacts(b);
      if (i > 0) w.AddFaceContacts(b - 1, b, 0);
    }
  }
  return w.problem();
}

void ExpectIdentical(const SapSolverResults& a, const SapSolverResults& b,
                     const std::string& what) {
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_TRUE(BitwiseEqual(a.v, b.v)) << what;
  EXPECT_TRUE(BitwiseEqual(a.gamma, b.gamma)) << what;
  EXPECT_TRUE(BitwiseEqual(a.generalized_impulse, b.generalized_impulse))
      << what;
  const SapSolverStatistics &s = a.statistics, &t = b.statistics;
  EXPECT_EQ(s.newton_iterations, t.newton_iterations) << what;
  EXPECT_EQ(s.island_newton_iterations, t.island_newton_iterations) << what;
  EXPECT_EQ(s.line_search_iterations, t.line_search_iterations) << what;
  EXPECT_EQ(s.factorizations, t.factorizations) << what;
  EXPECT_EQ(s.predicted_contacts, t.predicted_contacts) << what;
  EXPECT_EQ(s.cost, t.cost) << what;
  EXPECT_EQ(s.alpha, t.alpha) << what;
  EXPECT_EQ(s.scaled_residual, t.scaled_residual) << what;
  EXPECT_EQ(s.final_cost, t.final_cost) << what;
  ASSERT_EQ(s.island_statistics.size(), t.island_statistics.size()) << what;
  for (size_t i = 0; i < s.island_statistics.size(); ++i) {
    EXPECT_EQ(s.island_statistics[i].newton_iterations,
              t.island_statistics[i].newton_iterations)
        << what << " island " << i;
  }
}

struct Variant {
  const char* name;
  LinearSolverType linear_solver;
  bool stiction_prediction;
  LineSearchType line_search;
};

TEST(SapSolverThreads, BitwiseIdenticalToOneThread) {
  const SapProblem problem = MixedIslands(0.3);
  // Large enough for the contact, tree and island loops to use the pool.
  ASSERT_GE(problem.contacts.size(), 256u);
  ASSERT_GE(problem.trees.size(), 128u);
  for (const Variant& variant :
       {Variant{"auto", LinearSolverType::kAuto, true, LineSearchType::kExact},
        Variant{"auto, no prediction", LinearSolverType::kAuto, false,
                LineSearchType::kExact},
        Variant{"auto, backtracking", LinearSolverType::kAuto, true,
                LineSearchType::kBacktracking},
        Variant{"dense", LinearSolverType::kDense, true,
                LineSearchType::kExact},
        Variant{"cholmod", LinearSolverType::kCholmod, true,
                LineSearchType::kExact}}) {
    SapSolverParameters p;
    p.linear_solver = variant.linear_solver;
    p.stiction_prediction = variant.stiction_prediction;
    p.line_search = variant.line_search;
    SapSolver one(p);
    const SapSolverResults reference = one.Solve(problem);
    ASSERT_TRUE(reference.converged()) << variant.name;
    // The problem makes every island iterate.
    ASSERT_GT(reference.statistics.islands, 40);
    ASSERT_GE(reference.statistics.newton_iterations, 2) << variant.name;
    for (int threads : {2, 3}) {
      p.threads = threads;
      SapSolver many(p);
      ExpectIdentical(reference, many.Solve(problem),
                      std::string(variant.name) + ", " +
                          std::to_string(threads) + " threads");
    }
  }
}

TEST(SapSolverThreads, WarmStartedSequenceIdentical) {
  // Ten solves of drifting problems with one solver each, each warm-started
  // from the previous velocities (islands then start converged or not).
  SapSolverParameters p;
  SapSolver one(p);
  p.threads = 2;
  SapSolver two(p);
  Eigen::VectorXd v_one, v_two;
  for (int step = 0; step < 10; ++step) {
    const SapProblem problem = MixedIslands(0.02 * step);
    const SapSolverResults a =
        step == 0 ? one.Solve(problem) : one.Solve(problem, &v_one);
    const SapSolverResults b =
        step == 0 ? two.Solve(problem) : two.Solve(problem, &v_two);
    ExpectIdentical(a, b, "step " + std::to_string(step));
    v_one = a.v;
    v_two = b.v;
  }
}

TEST(SapSolverThreads, RejectsBadCount) {
  SapSolverParameters p;
  p.threads = 0;
  EXPECT_THROW(SapSolver{p}, std::invalid_argument);
  p.threads = 1025;
  EXPECT_THROW(SapSolver{p}, std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
