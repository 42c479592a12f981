// Stiction prediction (SapSolverParameters::stiction_prediction,
// docs/theory.md §16): sliding contacts whose slip the Newton step reverses
// are modeled as sticking in the next Newton system. It changes the path,
// never the answer: the solutions equal exact Newton's within the
// tolerance, the cost still decreases monotonically, and where sliding
// contacts must stop it takes fewer iterations.
#include <gtest/gtest.h>

#include <algorithm>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::CostIsMonotone;
using testing::RandomProblem;

SapSolverParameters TightPrediction(bool predict) {
  SapSolverParameters params;
  params.rel_tolerance = 1e-10;
  params.stiction_prediction = predict;
  // The Newton iteration on the whole problem: every contact a
  // constraint (left-out contacts coming back would start a new pass with
  // more terms in the cost; the passes are tested in
  // separated_contacts_test.cc).
  params.exclude_separated_contacts = false;
  return params;
}

// Optimality: A (v - v*) = J' gamma (relative to the impulses).
double MomentumResidual(const SapProblem& p, const SapSolverResults& r) {
  return (DenseA(p) * (r.v - StackedVStar(p)) - r.generalized_impulse).norm() /
         std::max(r.generalized_impulse.norm(), 1e-300);
}

// A grid of n x n unit boxes on the ground, pressed against their neighbours,
// each sliding at up to `speed` in a random horizontal direction.
SapProblem SlidingGrid(int n, double speed) {
  fixtures::BoxSetup s;
  s.jiggle = speed;
  return fixtures::Grid(n, s);
}

TEST(StictionPrediction, BoxesThatMustStopStopInFewerIterations) {
  // Friction can stop a box within one step when |v0| < mu g dt = 4.9 mm/s;
  // at up to 2 mm/s (neighbours drag each other through their faces' friction)
  // every box rests at the solution and every contact sticks. From v*
  // (sliding) the exact Newton step overshoots through v_t = 0 at the
  // sliding contacts, and the exact line search stops at one of them.
  const SapProblem p = SlidingGrid(8, 0.002);
  SapSolver predicted(TightPrediction(true)), exact(TightPrediction(false));
  const SapSolverResults a = predicted.Solve(p), b = exact.Solve(p);
  ASSERT_TRUE(a.converged()) << a.message;
  ASSERT_TRUE(b.converged()) << b.message;
  // Same answer, and the boxes stopped: every horizontal velocity is within
  // the regularization's slip (sigma w mu gamma_n ~ 1e-5 m/s), from up to
  // 2 mm/s. (Vertically they rise at ~1 mm/s: the 10 um penetration is
  // removed over dt + tau_d.)
  EXPECT_LT((a.v - b.v).norm(), 1e-8 * (1 + b.v.norm()));
  EXPECT_LT((a.gamma - b.gamma).norm(), 1e-8 * b.gamma.norm());
  double horizontal = 0.0, initial = 0.0;
  for (size_t t = 0; t < p.trees.size(); ++t) {
    horizontal = std::max(horizontal, a.v.segment<2>(6 * t).norm());
    initial = std::max(initial, p.trees[t].v_star.head<2>().norm());
  }
  EXPECT_GT(initial, 0.0015);
  EXPECT_LT(horizontal, 1e-4);
  EXPECT_LT(MomentumResidual(p, a), 1e-8);
  EXPECT_TRUE(CostIsMonotone(a.statistics));
  EXPECT_GT(a.statistics.predicted_iterations, 0);
  EXPECT_GT(a.statistics.predicted_contacts, 0);
  EXPECT_LE(3 * a.statistics.newton_iterations,
            2 * b.statistics.newton_iterations)
      << "predicted " << a.statistics.newton_iterations << ", exact "
      << b.statistics.newton_iterations;
  EXPECT_EQ(b.statistics.predicted_iterations, 0);
  std::printf(
      "64 sliding boxes that stop: %d Newton iterations with stiction "
      "prediction (%d predicted, %d contacts modeled as sticking, %d "
      "rejected), %d without\n",
      a.statistics.newton_iterations, a.statistics.predicted_iterations,
      a.statistics.predicted_contacts, a.statistics.rejected_predictions,
      b.statistics.newton_iterations);
}

TEST(StictionPrediction, SameSolutionsAsExactNewton) {
  // Random problems (all three regions, several islands) and boxes that keep
  // sliding (|v0| > mu g dt) or partly stop: prediction on and off reach the
  // same optimum; prediction never breaks the monotone cost.
  std::mt19937 rng(11);
  std::vector<SapProblem> problems;
  for (int trial = 0; trial < 40; ++trial) {
    problems.push_back(RandomProblem(1 + trial % 12, 2 + 4 * trial, &rng));
  }
  for (double speed : {0.002, 0.006, 0.02, 0.2}) {
    problems.push_back(SlidingGrid(6, speed));
    fixtures::BoxSetup s;
    s.jiggle = speed;
    problems.push_back(fixtures::Chain(12, s));
  }
  // The boxes again with Hunt-Crossley contacts, whose stiction model is
  // their friction band's linearization (docs/theory.md §18).
  const size_t num_sap = problems.size();
  for (size_t i = 40; i < num_sap; ++i) {
    for (ContactModel model : {ContactModel::kSimilar, ContactModel::kLagged}) {
      SapProblem q = problems[i];
      for (Contact& c : q.contacts) {
        c.parameters.model = model;
        c.parameters.hunt_crossley_dissipation = 10.0;
      }
      problems.push_back(q);
    }
  }
  int with = 0, without = 0, predicted = 0, rejected = 0;
  for (size_t i = 0; i < problems.size(); ++i) {
    const SapProblem& p = problems[i];
    SapSolver on(TightPrediction(true)), off(TightPrediction(false));
    const SapSolverResults a = on.Solve(p), b = off.Solve(p);
    ASSERT_TRUE(a.converged()) << "problem " << i << ": " << a.message;
    ASSERT_TRUE(b.converged()) << "problem " << i << ": " << b.message;
    EXPECT_TRUE(CostIsMonotone(a.statistics)) << "problem " << i;
    EXPECT_LT((a.v - b.v).norm(), 1e-7 * (1 + b.v.norm())) << "problem " << i;
    EXPECT_LT((a.gamma - b.gamma).norm(), 1e-7 * (1e-12 + b.gamma.norm()))
        << "problem " << i;
    EXPECT_LT(MomentumResidual(p, a), 1e-8) << "problem " << i;
    // The statistics add up over the islands.
    int island_predicted = 0, island_rejected = 0;
    for (const SapIslandStatistics& is : a.statistics.island_statistics) {
      EXPECT_LE(is.predicted_iterations, is.newton_iterations);
      EXPECT_LE(is.rejected_predictions, is.predicted_iterations);
      island_predicted += is.predicted_iterations;
      island_rejected += is.rejected_predictions;
    }
    EXPECT_EQ(island_predicted, a.statistics.predicted_iterations);
    EXPECT_EQ(island_rejected, a.statistics.rejected_predictions);
    with += a.statistics.island_newton_iterations;
    without += b.statistics.island_newton_iterations;
    predicted += a.statistics.predicted_iterations;
    rejected += a.statistics.rejected_predictions;
  }
  EXPECT_GT(predicted, 0);
  std::printf(
      "%zu problems: %d island Newton iterations with stiction prediction "
      "(%d predicted, %d rejected), %d without\n",
      problems.size(), with, predicted, rejected, without);
}

TEST(StictionPrediction, MinStepIsValidated) {
  SapSolverParameters params;
  params.stiction_prediction_min_step = -0.1;
  EXPECT_THROW(Validate(params), std::invalid_argument);
  params.stiction_prediction_min_step = 2.0;  // > max_step 1.5
  EXPECT_THROW(Validate(params), std::invalid_argument);
  try {
    params.stiction_prediction_min_step = -1;
    Validate(params);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stiction_prediction_min_step"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace sapcontact
