// SAP Newton solver: iteration counts, dense vs CHOLMOD, symbolic reuse,
// optimality, inverse dynamics, monotone cost, bad inputs.
#include "sapcontact/solver/sap/sap_solver.h"

#include <gtest/gtest.h>

#include <limits>

#include "tests/common/box_fixtures.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::CostIsMonotone;
using testing::PizzaSaver;
using testing::RandomProblem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SapSolver, ZeroIterationsFromTheSolution) {
  PizzaSaver ps;
  ps.tau = 0.3;
  const SapProblem p = ps.Build();
  SapSolver solver;
  const SapSolverResults first = solver.Solve(p);
  ASSERT_TRUE(first.converged());
  const SapSolverResults again = solver.Solve(p, &first.v);
  ASSERT_TRUE(again.converged());
  EXPECT_EQ(again.statistics.newton_iterations, 0);
  EXPECT_EQ((again.v - first.v).norm(), 0.0);
}

TEST(SapSolver, OneIterationWhenGuessAndSolutionStick) {
  // From rest every contact sticks (region I), and so does the solution:
  // the cost is quadratic there, one Newton step with alpha = 1 is exact.
  PizzaSaver ps;
  ps.tau = 0.2 * ps.contact.friction * ps.m * ps.g * ps.r;
  const SapProblem p = ps.Build();
  const Eigen::VectorXd rest = Eigen::VectorXd::Zero(6);
  for (LineSearchType ls :
       {LineSearchType::kExact, LineSearchType::kBacktracking}) {
    SapSolverParameters params;
    params.line_search = ls;
    SapSolver solver(params);
    const SapSolverResults r = solver.Solve(p, &rest);
    ASSERT_TRUE(r.converged());
    EXPECT_EQ(r.statistics.newton_iterations, 1);
    EXPECT_NEAR(r.statistics.alpha[0], 1.0, 1e-12);
  }
}

TEST(SapSolver, RandomProblemsAreOptimalAndCostDecreases) {
  std::mt19937 rng(3);
  int total_iterations = 0, solves = 0, max_iterations = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const SapProblem p = RandomProblem(1 + trial % 20, 1 + 3 * trial, &rng);
    for (LineSearchType ls :
         {LineSearchType::kExact, LineSearchType::kBacktracking}) {
      SapSolverParameters params;
      params.line_search = ls;
      params.rel_tolerance = 1e-10;
      // The paper's Delassus estimate: random Jacobians have no support
      // structure for docs/theory.md §19's estimate to use (it is tested on
      // stacks, tests/solver/sap/supported_delassus_test.cc).
      params.regularization.supported_delassus_estimate = false;
      // The Newton iteration on the whole problem: every contact a
      // constraint (left-out contacts coming back would start a new pass with
      // more terms in the cost; the passes are tested in
      // separated_contacts_test.cc).
      params.exclude_separated_contacts = false;
      SapSolver solver(params);
      const SapSolverResults r = solver.Solve(p);
      ASSERT_TRUE(r.converged()) << "trial " << trial << ": " << r.message;
      EXPECT_TRUE(CostIsMonotone(r.statistics)) << "trial " << trial;
      // Optimality: A (v - v*) = J' gamma, with gamma = P_F(y(J v)).
      const Eigen::VectorXd momentum =
          DenseA(p) * (r.v - StackedVStar(p)) - r.generalized_impulse;
      EXPECT_LT(momentum.norm(), 1e-8 * r.generalized_impulse.norm() + 1e-14);
      EXPECT_LT((DenseContactJacobian(p) * r.v - r.v_c).norm(),
                1e-12 * (1 + r.v_c.norm()));
      if (ls == LineSearchType::kExact) {
        total_iterations += r.statistics.newton_iterations;
        max_iterations =
            std::max(max_iterations, r.statistics.newton_iterations);
        ++solves;
      }
    }
  }
  std::printf("exact line search: mean %.2f, max %d Newton iterations\n",
              double(total_iterations) / solves, max_iterations);
}

TEST(SapSolver, DenseBlockSparseAndCholmodAgree) {
  std::mt19937 rng(5);
  for (int trees : {1, 2, 5, 20, 60, 200}) {
    const SapProblem p = RandomProblem(trees, 2 * trees, &rng);
    SapSolverParameters params;
    params.rel_tolerance = 1e-12;
    // One symbolic analysis per sparse solve: one pass over a fixed graph
    // (contacts coming back into the graph would change the pattern).
    params.exclude_separated_contacts = false;
    params.linear_solver = LinearSolverType::kDense;
    SapSolver dense(params);
    params.linear_solver = LinearSolverType::kCholmod;
    SapSolver cholmod(params);
    params.linear_solver = LinearSolverType::kBlockSparse;
    SapSolver block(params);
    const SapSolverResults a = dense.Solve(p), b = cholmod.Solve(p),
                           c = block.Solve(p);
    ASSERT_TRUE(a.converged()) << a.message;
    ASSERT_TRUE(b.converged()) << b.message;
    ASSERT_TRUE(c.converged()) << c.message;
    for (const SapSolverResults* r : {&b, &c}) {
      EXPECT_LT((a.v - r->v).norm(), 1e-10 * a.v.norm()) << trees << " trees";
      EXPECT_LT((a.gamma - r->gamma).norm(), 1e-10 * a.gamma.norm());
      EXPECT_EQ(r->statistics.symbolic_analyses, 1);
    }
    EXPECT_EQ(a.statistics.symbolic_analyses, 0);
  }
}

TEST(SapSolver, SymbolicAnalysisOncePerPatchGraph) {
  std::mt19937 rng(9);
  SapProblem p = RandomProblem(30, 60, &rng);
  SapSolverParameters params;
  params.linear_solver = LinearSolverType::kCholmod;
  // A fixed patch graph: every contact a constraint (left-out contacts
  // change the graph with the values).
  params.exclude_separated_contacts = false;
  SapSolver solver(params);
  Eigen::VectorXd v = StackedVStar(p);
  int newton = 0;
  for (int step = 0; step < 5; ++step) {
    // Same patch graph, different values: new v* and penetrations.
    for (Tree& t : p.trees) t.v_star *= 0.9;
    for (Contact& c : p.contacts) c.phi0 *= 1.1;
    const SapSolverResults r = solver.Solve(p, &v);
    ASSERT_TRUE(r.converged());
    EXPECT_EQ(r.statistics.symbolic_analyses, step == 0 ? 1 : 0);
    newton += r.statistics.newton_iterations;
    v = r.v;
  }
  EXPECT_GT(newton, 5);  // many factorizations, one analysis
  EXPECT_EQ(solver.total_symbolic_analyses(), 1);
  // A new patch graph triggers a new analysis.
  p.contacts.pop_back();
  p.contacts.pop_back();
  const SapSolverResults r = solver.Solve(p, &v);
  EXPECT_EQ(r.statistics.symbolic_analyses, 1);
  EXPECT_EQ(solver.total_symbolic_analyses(), 2);
}

TEST(SapSolver, TreesWithoutContactKeepFreeMotion) {
  std::mt19937 rng(1);
  SapProblem p = RandomProblem(5, 0, &rng);
  Contact c;
  c.first =
      ContactJacobianBlock{2, Eigen::MatrixXd::Ones(3, p.trees[2].A.rows())};
  c.phi0 = -0.01;
  p.contacts.push_back(c);
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged());
  const std::vector<int> off = p.TreeOffsets();
  for (int t : {0, 1, 3, 4}) {
    EXPECT_EQ(r.v.segment(off[t], p.trees[t].A.rows()), p.trees[t].v_star);
  }
  EXPECT_NE(r.v.segment(off[2], p.trees[2].A.rows()), p.trees[2].v_star);
  EXPECT_EQ(r.statistics.participating_trees, 1);
}

TEST(SapSolver, InverseDynamicsReproducesForwardImpulses) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 20; ++trial) {
    const SapProblem p = RandomProblem(1 + trial, 3 + 2 * trial, &rng);
    SapSolverParameters params;
    params.rel_tolerance = 1e-12;
    SapSolver solver(params);
    const SapSolverResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged());
    const InverseDynamicsResult inv =
        CalcInverseDynamics(p, params.regularization, r.v);
    EXPECT_LT((inv.gamma - r.gamma).norm(), 1e-9 * r.gamma.norm());
    EXPECT_LT((inv.generalized_impulse - r.generalized_impulse).norm(),
              1e-9 * r.generalized_impulse.norm());
  }
}

TEST(SapSolver, MaxIterationsIsReportedWithTheLastIterate) {
  std::mt19937 rng(4);
  const SapProblem p = RandomProblem(10, 30, &rng);
  SapSolverParameters params;
  params.max_iterations = 1;
  params.rel_tolerance = 1e-14;
  SapSolver solver(params);
  const SapSolverResults r = solver.Solve(p);
  EXPECT_EQ(r.status, SapSolverStatus::kMaxIterations);
  EXPECT_FALSE(r.message.empty());
  EXPECT_TRUE(r.v.allFinite());
  EXPECT_EQ(r.statistics.newton_iterations, 1);
}

TEST(SapSolver, RestingGridWarmStartTakesAtMostOneIteration) {
  for (int n : {3, 8}) {
    const SapProblem p = fixtures::Grid(n);
    SapSolverParameters params;
    params.linear_solver = LinearSolverType::kCholmod;
    SapSolver solver(params);
    const SapSolverResults cold = solver.Solve(p);
    ASSERT_TRUE(cold.converged());
    // Resting boxes: every contact sticks, so the step from v* is exact.
    EXPECT_EQ(cold.statistics.newton_iterations, 1);
    const SapSolverResults warm = solver.Solve(p, &cold.v);
    ASSERT_TRUE(warm.converged());
    EXPECT_LE(warm.statistics.newton_iterations, 1);
    // Vertical momentum balance: the ground's normal impulses change the
    // boxes' momentum from m v*_z to m v_z (m = 1 kg).
    double sum_n = 0, momentum = 0;
    for (size_t k = 0; k < p.contacts.size(); ++k) {
      if (!p.contacts[k].second) sum_n += cold.gamma(3 * k);
    }
    for (int b = 0; b < n * n; ++b) {
      momentum += cold.v(6 * b + 2) - p.trees[b].v_star(2);
    }
    EXPECT_NEAR(sum_n, momentum, 1e-9 * sum_n);
    EXPECT_GT(sum_n, n * n * 9.81 * 1e-3);  // penetration pushes them up
  }
}

TEST(SapSolver, SlidingBoxesConvergeWithMonotoneCost) {
  fixtures::BoxSetup s;
  s.jiggle = 0.05;
  for (const SapProblem& p : {fixtures::Chain(20, s), fixtures::Grid(5, s)}) {
    SapSolver solver;
    const SapSolverResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged()) << r.message;
    EXPECT_TRUE(CostIsMonotone(r.statistics));
    EXPECT_LT(r.statistics.newton_iterations, 100);
  }
}

// Two boxes on the ground, 1 m apart (two islands): box 0 at rest, box 1
// sliding at 1 cm/s; mass m each.
SapProblem TwoBoxes(double mass) {
  fixtures::BoxSetup s;
  s.mass = mass;
  fixtures::BoxWorld w(s);
  w.AddGroundContacts(w.AddBox(Eigen::Vector3d(0, 0, 0.05), Vector3::Zero()));
  w.AddGroundContacts(
      w.AddBox(Eigen::Vector3d(1, 0, 0.05), Eigen::Vector3d(0.01, 0, 0)));
  return w.problem();
}

TEST(SapSolver, ResultsDoNotDependOnThePreviousSolve) {
  // Box 0 starts at its solution, so its island takes no Newton step and its
  // contacts are never evaluated with their Hessian blocks, yet those blocks
  // enter the block Cholesky group's factorization. A solver that solved a
  // problem of heavy boxes before (stiff G on the same contact indices) must
  // give bitwise the fresh solver's answer and condition estimate.
  const SapProblem p = TwoBoxes(1.0);
  SapSolverParameters params;
  params.linear_solver = LinearSolverType::kBlockSparse;
  SapSolver reference(params);
  const SapSolverResults solution = reference.Solve(p);
  ASSERT_TRUE(solution.converged()) << solution.message;
  Eigen::VectorXd guess = solution.v;
  guess.segment<6>(6) = p.trees[1].v_star;
  SapSolver fresh(params), reused(params);
  ASSERT_TRUE(reused.Solve(TwoBoxes(1e6)).converged());
  const SapSolverResults a = fresh.Solve(p, &guess);
  const SapSolverResults b = reused.Solve(p, &guess);
  ASSERT_TRUE(a.converged()) << a.message;
  ASSERT_TRUE(b.converged()) << b.message;
  ASSERT_EQ(a.statistics.islands, 2);
  EXPECT_EQ(a.statistics.island_statistics[0].newton_iterations, 0);
  EXPECT_GT(a.statistics.island_statistics[1].newton_iterations, 0);
  EXPECT_EQ((a.v - b.v).norm(), 0.0);
  EXPECT_EQ(a.statistics.reciprocal_condition,
            b.statistics.reciprocal_condition);
  EXPECT_EQ(a.statistics.newton_iterations, b.statistics.newton_iterations);
}

// Runs f and expects std::invalid_argument mentioning `fragment`.
template <typename F>
void ExpectInvalid(F f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning " << fragment;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << e.what();
  }
}

// SolveFromCandidates: an island starts from a candidate that already meets
// the stopping test (no factorization), else from the lowest-cost of v* and
// the candidates; the answer does not depend on the start.
TEST(SapSolver, CandidateStartsPickTheOptimalOrTheLowestCost) {
  std::mt19937 rng(17);
  const SapProblem p = RandomProblem(1, 6, &rng);
  SapSolverParameters tight;
  tight.rel_tolerance = 1e-10;
  SapSolver solver(tight);
  const SapSolverResults cold = solver.Solve(p);
  ASSERT_TRUE(cold.converged()) << cold.message;
  ASSERT_GT(cold.statistics.newton_iterations, 1);
  const Eigen::VectorXd far =
      cold.v + Eigen::VectorXd::Constant(cold.v.size(), 10.0);
  // The solution as the second candidate: taken, zero iterations.
  const SapSolverResults at_solution =
      solver.SolveFromCandidates(p, {&far, &cold.v});
  ASSERT_TRUE(at_solution.converged());
  EXPECT_EQ(at_solution.statistics.newton_iterations, 0);
  ASSERT_EQ(at_solution.statistics.island_statistics.size(), 1u);
  EXPECT_EQ(at_solution.statistics.island_statistics[0].start_candidate, 1);
  EXPECT_EQ((at_solution.v - cold.v).norm(), 0.0);
  // The impulses are those of the start (the island never entered the
  // Newton loop).
  EXPECT_EQ((at_solution.gamma - cold.gamma).norm(), 0.0);
  // Far away, the candidate costs more than v*: Newton starts at v* and
  // repeats the cold solve exactly.
  const SapSolverResults from_far = solver.SolveFromCandidates(p, {&far});
  ASSERT_TRUE(from_far.converged());
  EXPECT_EQ(from_far.statistics.island_statistics[0].start_candidate, -1);
  EXPECT_EQ(from_far.statistics.newton_iterations,
            cold.statistics.newton_iterations);
  EXPECT_EQ((from_far.v - cold.v).norm(), 0.0);
  // Without the rule the first candidate is taken; same minimizer.
  tight.warm_start_lowest_cost = false;
  solver.set_parameters(tight);
  const SapSolverResults forced = solver.SolveFromCandidates(p, {&far});
  ASSERT_TRUE(forced.converged()) << forced.message;
  EXPECT_EQ(forced.statistics.island_statistics[0].start_candidate, 0);
  EXPECT_LT((forced.v - cold.v).norm(), 1e-7 * (1.0 + cold.v.norm()));
  // A bad candidate is named.
  const Eigen::VectorXd short_guess = Eigen::VectorXd::Zero(1);
  ExpectInvalid(
      [&] {
        solver.SolveFromCandidates(p, {&far, &short_guess});
      },
      "guess 1 has size 1");
}

// Valid but huge inputs whose cost overflows at the first iterate: the
// failure is reported, and the results are v*, no impulses and no NaN
// (found by the solver fuzzer, tests/fuzz/targets/solver_fuzzer.cc).
TEST(SapSolver, OverflowingCostFailsWithFiniteResults) {
  SapProblem p;
  p.time_step = 1e-3;
  Tree tree;
  tree.A = Eigen::MatrixXd::Constant(1, 1, 1e300);
  tree.v_star = Eigen::VectorXd::Constant(1, -1e200);
  p.trees.push_back(tree);
  Contact c;
  c.first.tree = 0;
  c.first.J = Eigen::MatrixXd::Zero(3, 1);
  c.first.J(0, 0) = 1e150;  // w = J A^-1 J' = 1, v_n = J v* = -1e350
  p.contacts.push_back(c);
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  EXPECT_EQ(r.status, SapSolverStatus::kFactorizationFailed);
  EXPECT_NE(r.message.find("non-finite cost"), std::string::npos) << r.message;
  EXPECT_EQ(r.v, p.trees[0].v_star);
  EXPECT_TRUE(r.gamma.isZero(0.0));
  EXPECT_TRUE(r.generalized_impulse.isZero(0.0));
  EXPECT_TRUE(r.v_c.allFinite());
  EXPECT_EQ(r.v_c.size(), 3);
}

TEST(SapSolver, BadInputsRaiseClearErrors) {
  PizzaSaver ps;
  const SapProblem good = ps.Build();
  SapSolver solver;
  auto solve = [&](SapProblem p) { return solver.Solve(p); };
  {
    SapProblem p = good;
    p.time_step = 0;
    ExpectInvalid([&] { solve(p); }, "time_step");
  }
  {
    SapProblem p = good;
    p.trees[0].A(0, 1) = 1.0;  // not symmetric
    ExpectInvalid([&] { solve(p); }, "not symmetric");
  }
  {
    SapProblem p = good;
    p.trees[0].A(2, 2) = -1.0;
    ExpectInvalid([&] { solve(p); }, "not positive definite");
  }
  {
    SapProblem p = good;
    p.trees[0].A(3, 3) = kNaN;
    ExpectInvalid([&] { solve(p); }, "tree 0 ('pizza_saver')");
  }
  {
    SapProblem p = good;
    p.trees[0].v_star.resize(5);
    ExpectInvalid([&] { solve(p); }, "v_star has size 5");
  }
  {
    SapProblem p = good;
    p.trees[0].v_star(1) = kNaN;
    ExpectInvalid([&] { solve(p); }, "v_star");
  }
  {
    SapProblem p = good;
    p.contacts[1].first.tree = 3;
    ExpectInvalid([&] { solve(p); }, "contact 1");
  }
  {
    SapProblem p = good;
    p.contacts[2].first.J.resize(3, 4);
    p.contacts[2].first.J.setOnes();
    ExpectInvalid([&] { solve(p); }, "3 x 4");
  }
  {
    SapProblem p = good;
    p.contacts[0].second = p.contacts[0].first;
    ExpectInvalid([&] { solve(p); }, "both Jacobian blocks");
  }
  {
    SapProblem p = good;
    p.contacts[0].first.J(1, 1) = kNaN;
    ExpectInvalid([&] { solve(p); }, "non-finite");
  }
  {
    SapProblem p = good;
    p.contacts[0].phi0 = kNaN;
    ExpectInvalid([&] { solve(p); }, "phi0");
  }
  {
    SapProblem p = good;
    p.contacts[2].parameters.friction = -1;
    ExpectInvalid([&] { solve(p); }, "contact 2: invalid friction");
  }
  {
    const Eigen::VectorXd guess = Eigen::VectorXd::Constant(6, kNaN);
    ExpectInvalid([&] { solver.Solve(good, &guess); }, "v_guess");
    const Eigen::VectorXd short_guess = Eigen::VectorXd::Zero(2);
    ExpectInvalid([&] { solver.Solve(good, &short_guess); }, "v_guess");
  }
  {
    SapSolverParameters params;
    params.rel_tolerance = kNaN;
    ExpectInvalid([&] { SapSolver s(params); }, "rel_tolerance");
    params = {};
    params.regularization.friction_regularization = 0;
    ExpectInvalid([&] { SapSolver s(params); }, "sigma");
  }
}

}  // namespace
}  // namespace sapcontact
