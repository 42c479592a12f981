// The line search's strong Wolfe stop (SapSolverParameters::
// line_search_slope_ratio, docs/theory.md §7): it changes the path, never the
// answer. At the default tolerance (where the early stop is active far from
// the solution) the solutions equal those of the search to round-off within
// the stopping test's accuracy, every step still decreases the cost, and the
// searches take fewer evaluations.
#include "sapcontact/solver/sap/line_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::CostIsMonotone;
using testing::RandomProblem;

SapSolverParameters WithSlopeRatio(double ratio) {
  SapSolverParameters params;  // rel_tolerance 1e-6: the early stop applies
  params.line_search_slope_ratio = ratio;
  // The Newton iteration on the whole problem: every contact a
  // constraint (left-out contacts coming back would start a new pass with
  // more terms in the cost; the passes are tested in
  // separated_contacts_test.cc).
  params.exclude_separated_contacts = false;
  return params;
}

TEST(LineSearch, WolfeStopReachesTheSameSolutionWithFewerEvaluations) {
  std::mt19937 rng(5);
  std::vector<SapProblem> problems;
  for (int trial = 0; trial < 30; ++trial) {
    problems.push_back(RandomProblem(1 + trial % 10, 3 + 4 * trial, &rng));
  }
  for (double speed : {0.002, 0.02, 0.2}) {
    fixtures::BoxSetup s;
    s.jiggle = speed;
    problems.push_back(fixtures::Grid(6, s));
    problems.push_back(fixtures::Chain(12, s));
  }
  int evaluations_wolfe = 0, evaluations_exact = 0;
  for (size_t i = 0; i < problems.size(); ++i) {
    const SapProblem& p = problems[i];
    SapSolver wolfe(WithSlopeRatio(0.9)), exact(WithSlopeRatio(0.0));
    const SapSolverResults a = wolfe.Solve(p), b = exact.Solve(p);
    ASSERT_TRUE(a.converged()) << "problem " << i << ": " << a.message;
    ASSERT_TRUE(b.converged()) << "problem " << i << ": " << b.message;
    EXPECT_TRUE(CostIsMonotone(a.statistics)) << "problem " << i;
    // Both meet ||D grad|| <= 1e-6 max(...): the optimum agrees to a few
    // times that (the cost is strongly convex on every island).
    EXPECT_LT((a.v - b.v).norm(), 1e-4 * (1 + b.v.norm())) << "problem " << i;
    EXPECT_LE(a.statistics.final_scaled_residual, 1e-6) << "problem " << i;
    EXPECT_NEAR(a.statistics.final_cost, b.statistics.final_cost,
                1e-8 * (1 + std::abs(b.statistics.final_cost)))
        << "problem " << i;
    evaluations_wolfe += a.statistics.line_search_iterations;
    evaluations_exact += b.statistics.line_search_iterations;
  }
  EXPECT_LT(evaluations_wolfe, evaluations_exact);
  std::printf("line-search evaluations: %d with the Wolfe stop, %d exact\n",
              evaluations_wolfe, evaluations_exact);
}

TEST(LineSearch, ExactWhereRoundOffMatters) {
  SapSolverParameters p;
  // Far from the solution at a moderate tolerance: the Wolfe stop.
  EXPECT_EQ(LineSearchSlopeRatio(p, 1.0, 1e-3), p.line_search_slope_ratio);
  // Below sqrt(rel_tolerance): to round-off.
  EXPECT_EQ(LineSearchSlopeRatio(p, 1e-4, 1e-3), 0.0);
  // The solve's round-off eps / rcond within 100x of rel_tolerance.
  EXPECT_EQ(LineSearchSlopeRatio(p, 1.0, 1e-12), 0.0);
  // Tight tolerances (the stiff limit, FCLib).
  p.rel_tolerance = 1e-8;
  EXPECT_EQ(LineSearchSlopeRatio(p, 1.0, 1.0), 0.0);
}

TEST(LineSearch, SlopeRatioIsValidated) {
  SapSolverParameters params;
  for (double bad : {-0.1, 1.0, std::nan("")}) {
    params.line_search_slope_ratio = bad;
    try {
      Validate(params);
      ADD_FAILURE() << "accepted line_search_slope_ratio = " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("line_search_slope_ratio"),
                std::string::npos)
          << e.what();
    }
  }
  params.line_search_slope_ratio = 0.0;
  EXPECT_NO_THROW(Validate(params));
}

}  // namespace
}  // namespace sapcontact
