// Speculative contacts left out of the contact graph
// (SapSolverParameters::exclude_separated_contacts, docs/theory.md §8): the
// solution is the whole problem's (those that would push come back), the
// left-out contacts report J v + b and no impulse, and they join no island
// and cost no factorization.
#include <gtest/gtest.h>

#include <random>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::GroundContactJacobian;
using testing::RandomProblem;

SapSolverParameters TightExclusion(bool exclude) {
  SapSolverParameters params;
  params.rel_tolerance = 1e-12;
  params.exclude_separated_contacts = exclude;
  return params;
}

TEST(SeparatedContacts, SameSolutionAsEveryContactAConstraint) {
  std::mt19937 rng(11);
  int excluded = 0, reincluded = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const SapProblem p = RandomProblem(2 + trial % 15, 2 + 2 * trial, &rng);
    // With and without a guess (the guess changes what is left out).
    const Eigen::VectorXd guess =
        0.5 * StackedVStar(p) +
        Eigen::VectorXd::Constant(p.num_velocities(), 0.01);
    for (const Eigen::VectorXd* g :
         {static_cast<const Eigen::VectorXd*>(nullptr), &guess}) {
      SapSolver all(TightExclusion(false)), graph(TightExclusion(true));
      const SapSolverResults a = all.Solve(p, g), b = graph.Solve(p, g);
      ASSERT_TRUE(a.converged()) << a.message;
      ASSERT_TRUE(b.converged()) << b.message;
      EXPECT_LT((a.v - b.v).norm(), 1e-8 * (1.0 + a.v.norm()))
          << "trial " << trial;
      EXPECT_LT((a.gamma - b.gamma).norm(), 1e-8 * (1.0 + a.gamma.norm()))
          << "trial " << trial;
      // Every contact's velocity is reported, left out or not.
      EXPECT_LT((DenseContactJacobian(p) * b.v - b.v_c).norm(),
                1e-12 * (1.0 + b.v_c.norm()));
      const SapSolverStatistics& s = b.statistics;
      EXPECT_EQ(s.penetrating_contacts + s.speculative_contacts,
                static_cast<int>(p.contacts.size()));
      EXPECT_LE(s.excluded_contacts, s.speculative_contacts);
      EXPECT_EQ(a.statistics.excluded_contacts, 0);
      excluded += s.excluded_contacts;
      reincluded += s.reincluded_contacts;
    }
  }
  // Both happened: contacts left out, and some brought back.
  EXPECT_GT(excluded, 50);
  EXPECT_GT(reincluded, 0);
}

// A 1 kg box (6 DOFs) 5 mm above the ground falling at v_z, one contact
// below its centre; dt = 1e-3 s.
SapProblem FallingBox(double v_z, double phi0) {
  SapProblem p;
  p.time_step = 1e-3;
  Tree t;
  t.A = Eigen::MatrixXd::Identity(6, 6);
  t.v_star = Eigen::VectorXd::Zero(6);
  t.v_star(2) = v_z - 9.81e-3;
  p.trees.push_back(t);
  Contact c;
  c.first = {0, GroundContactJacobian(Vector3(0, 0, -0.1))};
  c.phi0 = phi0;
  c.parameters = {1e5, 0.01, 0.5};
  p.contacts.push_back(c);
  return p;
}

TEST(SeparatedContacts, AGapTheStepDoesNotCloseIsNoConstraint) {
  // 5 mm gap at 1 m/s: the step closes 1 mm of it.
  const SapProblem p = FallingBox(-1.0, 5e-3);
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged());
  EXPECT_EQ(r.statistics.excluded_contacts, 1);
  EXPECT_EQ(r.statistics.islands, 0);
  EXPECT_EQ(r.statistics.factorizations, 0);
  EXPECT_EQ(r.v, p.trees[0].v_star);  // free motion
  EXPECT_EQ(r.gamma, Eigen::Vector3d::Zero());
  EXPECT_DOUBLE_EQ(r.v_c(0), p.trees[0].v_star(2));
}

TEST(SeparatedContacts, AGapTheStepClosesPushes) {
  // 0.5 mm gap at 1 m/s: closed within the step, so the contact pushes,
  // and only from where the gap closes: gamma_n = k (dt + tau_d)
  // (-phi0 - dt v_n) (docs/theory.md §3).
  const SapProblem p = FallingBox(-1.0, 5e-4);
  SapSolver solver(TightExclusion(true));
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged());
  EXPECT_EQ(r.statistics.excluded_contacts, 0);
  EXPECT_EQ(r.statistics.islands, 1);
  const double gamma_n = r.gamma(0), v_n = r.v_c(0);
  EXPECT_GT(gamma_n, 0.0);
  EXPECT_LT(5e-4 + 1e-3 * v_n, 0.0);  // the gap closes
  const ContactParameters& c = p.contacts[0].parameters;
  EXPECT_NEAR(
      gamma_n,
      c.stiffness * (1e-3 + c.dissipation_time_scale) * (-5e-4 - 1e-3 * v_n),
      1e-9 * gamma_n);
}

TEST(SeparatedContacts, ABodyBetweenIdleGapsIsNoIsland) {
  // Two boxes side by side, 2 mm apart at rest, the left one on the
  // ground: the gap between them carries nothing and joins no island.
  SapProblem p;
  p.time_step = 1e-3;
  for (int b = 0; b < 2; ++b) {
    Tree t;
    t.A = Eigen::MatrixXd::Identity(6, 6);
    t.v_star = Eigen::VectorXd::Zero(6);
    p.trees.push_back(t);
  }
  Contact ground;
  ground.first = {0, GroundContactJacobian(Vector3(0, 0, -0.1))};
  ground.phi0 = -1e-5;
  ground.parameters = {1e5, 0.01, 0.5};
  p.contacts.push_back(ground);
  Contact between;  // normal along x, from box 0 to box 1
  Eigen::Matrix<double, 3, 6> rows_b = Eigen::Matrix<double, 3, 6>::Zero();
  rows_b(0, 0) = 1;  // n = x
  rows_b(1, 1) = 1;  // t1 = y
  rows_b(2, 2) = 1;  // t2 = z
  between.first = {1, rows_b};
  between.second = ContactJacobianBlock{0, -rows_b};
  between.phi0 = 2e-3;
  between.parameters = {1e5, 0.01, 0.5};
  p.contacts.push_back(between);
  SapSolver solver;
  const Eigen::VectorXd rest = Eigen::VectorXd::Zero(12);
  const SapSolverResults r = solver.Solve(p, &rest);
  ASSERT_TRUE(r.converged());
  EXPECT_EQ(r.statistics.excluded_contacts, 1);
  EXPECT_EQ(r.statistics.islands, 1);  // box 0 on the ground only
  EXPECT_EQ(r.statistics.largest_island_trees, 1);
  EXPECT_EQ(r.gamma.segment<3>(3), Eigen::Vector3d::Zero());
  EXPECT_EQ(r.v.tail<6>(), p.trees[1].v_star);
}

}  // namespace
}  // namespace sapcontact
