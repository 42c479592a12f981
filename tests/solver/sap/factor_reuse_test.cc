// A stale factorization of the sparse group
// (SapSolverParameters::factor_reuse_rate, docs/theory.md §8): Newton
// iterations that solve with an earlier factorization still converge to the
// problem's minimizer (the stopping test is unchanged), and they skip
// factorizations.
#include <gtest/gtest.h>

#include <random>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::RandomProblem;

SapSolverParameters Group(double reuse_rate) {
  SapSolverParameters params;
  params.rel_tolerance = 1e-12;
  // Every island in the sparse group: one factorization per round unless
  // reused.
  params.linear_solver = LinearSolverType::kBlockSparse;
  params.exclude_separated_contacts = false;
  params.factor_reuse_rate = reuse_rate;
  return params;
}

TEST(FactorReuse, SameMinimizerWithFewerFactorizations) {
  std::mt19937 rng(5);
  int fresh_factorizations = 0, fresh_iterations = 0;
  int reuse_factorizations = 0, reuse_iterations = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const SapProblem p = RandomProblem(2 + trial % 12, 4 + 3 * trial, &rng);
    SapSolver fresh(Group(0.0)), reuse(Group(0.5));
    const SapSolverResults a = fresh.Solve(p), b = reuse.Solve(p);
    ASSERT_TRUE(a.converged()) << a.message;
    ASSERT_TRUE(b.converged()) << b.message;
    // Both meet the stopping test; exact Newton's last step lands far
    // below it (quadratic convergence), the stale iteration just below it
    // (linear), so they agree to the tolerance times the conditioning.
    EXPECT_LE(b.statistics.final_scaled_residual, 1e-12) << "trial " << trial;
    EXPECT_LT((a.v - b.v).norm(), 1e-6 * (1.0 + a.v.norm()))
        << "trial " << trial;
    EXPECT_LT((a.gamma - b.gamma).norm(), 1e-4 * (1.0 + a.gamma.norm()))
        << "trial " << trial;
    // Without reuse, the group is factored at every round.
    EXPECT_EQ(a.statistics.factorizations, a.statistics.newton_iterations);
    EXPECT_LE(b.statistics.factorizations, b.statistics.newton_iterations);
    EXPECT_TRUE(testing::CostIsMonotone(b.statistics)) << "trial " << trial;
    fresh_factorizations += a.statistics.factorizations;
    fresh_iterations += a.statistics.newton_iterations;
    reuse_factorizations += b.statistics.factorizations;
    reuse_iterations += b.statistics.newton_iterations;
  }
  // Reuse happened: fewer factorizations than Newton iterations, and fewer
  // than the exact Newton iteration needed.
  EXPECT_LT(reuse_factorizations, reuse_iterations);
  EXPECT_LT(reuse_factorizations, fresh_factorizations);
  // A stale direction converges linearly: more iterations, not fewer.
  EXPECT_GE(reuse_iterations, fresh_iterations);
}

TEST(FactorReuse, RejectsRatesOutsideTheUnitInterval) {
  for (double rate : {-0.1, 1.0, 2.0}) {
    SapSolverParameters params;
    params.factor_reuse_rate = rate;
    EXPECT_THROW(SapSolver solver(params), std::invalid_argument) << rate;
  }
}

}  // namespace
}  // namespace sapcontact
