// ContactSpaceSapSolver (solver/sap/contact_space_sap_solver.h,
// docs/theory.md §15) against SapSolver on the same problems (the Newton
// iterates coincide: the contact-space step is the image of the velocity
// step), and against SAP's optimality conditions where W is rank deficient.
#include "sapcontact/solver/sap/contact_space_sap_solver.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using testing::RandomProblem;

// W = J A^-1 J' and v_free = J v* of a SapProblem (dense assembly).
ContactSpaceSapProblem ToContactSpace(const SapProblem& p) {
  std::vector<int> offset(p.trees.size() + 1, 0);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    offset[t + 1] = offset[t] + static_cast<int>(p.trees[t].A.rows());
  }
  const int nv = offset.back(), nc = static_cast<int>(p.contacts.size());
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3 * nc, nv);
  Eigen::MatrixXd Ainv = Eigen::MatrixXd::Zero(nv, nv);
  Eigen::VectorXd v_star(nv);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const int n = static_cast<int>(p.trees[t].A.rows());
    Ainv.block(offset[t], offset[t], n, n) = p.trees[t].A.inverse();
    v_star.segment(offset[t], n) = p.trees[t].v_star;
  }
  ContactSpaceSapProblem out;
  out.time_step = p.time_step;
  out.phi0.resize(nc);
  for (int k = 0; k < nc; ++k) {
    const Contact& c = p.contacts[k];
    J.block(3 * k, offset[c.first.tree], 3, c.first.J.cols()) = c.first.J;
    if (c.second) {
      J.block(3 * k, offset[c.second->tree], 3, c.second->J.cols()) =
          c.second->J;
    }
    out.parameters.push_back(c.parameters);
    out.phi0(k) = c.phi0;
  }
  const Eigen::MatrixXd W = J * Ainv * J.transpose();
  out.W = W.sparseView(0.0, 0.0);  // exact zeros of unlinked contacts out
  out.v_free = J * v_star;
  return out;
}

// gamma - P_F(y(v_free + W gamma)): zero exactly at SAP's optimum.
double FixedPointResidual(const ContactSpaceSapProblem& p,
                          const ContactSpaceSapResults& r,
                          const RegularizationParameters& reg) {
  const Eigen::MatrixXd W(p.W);
  const Eigen::VectorXd v_c = p.v_free + W * r.gamma;
  double worst = 0.0;
  for (int k = 0; k < p.num_contacts(); ++k) {
    const ContactRegularization R = ComputeRegularization(
        p.parameters[k], reg, p.time_step, r.delassus_estimate(k), p.phi0(k));
    const ContactConstraint c(R, reg.soft_norm_tolerance);
    const Vector3 gamma = c.Evaluate(v_c.segment<3>(3 * k), false).gamma;
    worst = std::max(worst, (gamma - r.gamma.segment<3>(3 * k)).norm());
  }
  return worst / std::max(r.gamma.lpNorm<Eigen::Infinity>(), 1e-300);
}

TEST(ContactSpaceSapSolver, FollowsSapSolversIteratesAndSolution) {
  std::mt19937 rng(31);
  int several_islands = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const SapProblem problem = RandomProblem(6, 6, &rng);
    SapSolverParameters params;
    // Islands on both sides: SapSolver's (components of the tree graph)
    // are those of W's block graph here.
    params.linear_solver = LinearSolverType::kDense;
    params.rel_tolerance = 1e-10;
    // The Newton iteration on the whole problem: every contact a
    // constraint (left-out contacts coming back would start a new pass with
    // more terms in the cost; the passes are tested in
    // separated_contacts_test.cc).
    params.exclude_separated_contacts = false;
    // The same iteration: exact Newton steps (the contact-space solver has
    // no stiction prediction, docs/theory.md §16).
    params.stiction_prediction = false;
    // The same regularization: the contact-space problem has only W, not
    // the trees' sides that docs/theory.md §19's estimate needs.
    params.regularization.supported_delassus_estimate = false;
    SapSolver sap(params);
    const SapSolverResults a = sap.Solve(problem);
    ASSERT_TRUE(a.converged()) << a.message;
    several_islands += a.statistics.islands > 1;
    const ContactSpaceSapProblem cs = ToContactSpace(problem);
    for (LinearSolverType type :
         {LinearSolverType::kAuto, LinearSolverType::kCholmod,
          LinearSolverType::kDense}) {
      params.linear_solver = type;
      ContactSpaceSapSolver solver(params);
      const ContactSpaceSapResults b = solver.Solve(cs);
      ASSERT_TRUE(b.converged()) << b.message;
      EXPECT_EQ(b.statistics.islands, a.statistics.islands);
      // The same Newton iterates: the same cost l_k per round (as long
      // as both iterate; the stopping tests differ in their scale).
      const size_t n =
          std::min(a.statistics.cost.size(), b.statistics.cost.size());
      ASSERT_GE(n, 2u) << "trial " << trial;
      for (size_t k = 0; k < n; ++k) {
        EXPECT_NEAR(b.statistics.cost[k], a.statistics.cost[k],
                    1e-9 * std::abs(a.statistics.cost[0]))
            << "trial " << trial << ", iteration " << k << ", "
            << ToString(type);
      }
      EXPECT_LE(std::abs(b.statistics.newton_iterations -
                         a.statistics.newton_iterations),
                1)
          << "trial " << trial;
      const double scale = a.gamma.lpNorm<Eigen::Infinity>();
      EXPECT_LT((b.gamma - a.gamma).lpNorm<Eigen::Infinity>(), 1e-8 * scale)
          << "trial " << trial << ", " << ToString(type);
      EXPECT_LT((b.v_c - a.v_c).lpNorm<Eigen::Infinity>(),
                1e-8 * std::max(1.0, a.v_c.lpNorm<Eigen::Infinity>()));
      EXPECT_EQ(b.delassus_estimate.size(), a.delassus_estimate.size());
      EXPECT_LT((b.R_n - a.R_n).cwiseAbs().maxCoeff(),
                1e-12 * a.R_n.maxCoeff());
    }
  }
  EXPECT_GE(several_islands, 3);  // the islands' own steps are exercised
}

// More contact rows than DOFs: W is singular and v_free is not in its
// range; no (A, J, v*) of the trees' size reproduces it, yet the contact
// space solve meets SAP's optimality condition gamma = P_F(y(v_c)) with
// v_c = v_free + W gamma.
TEST(ContactSpaceSapSolver, RankDeficientDelassusMeetsOptimality) {
  std::mt19937 rng(7);
  std::normal_distribution<double> N(0, 1);
  for (int trial = 0; trial < 10; ++trial) {
    const int nc = 8, rank = 5;
    Eigen::MatrixXd L(3 * nc, rank);
    for (int i = 0; i < L.size(); ++i) L.data()[i] = N(rng);
    ContactSpaceSapProblem p;
    p.time_step = 1e-2;
    const Eigen::MatrixXd W = L * L.transpose();
    p.W = W.sparseView();
    p.v_free = Eigen::VectorXd::NullaryExpr(3 * nc, [&] { return N(rng); });
    p.phi0 = Eigen::VectorXd::Constant(nc, -1e-4);
    for (int k = 0; k < nc; ++k) {
      p.parameters.push_back({1e5, 0.01, 0.2 + 0.1 * k});
    }
    SapSolverParameters params;
    params.rel_tolerance = 1e-10;
    ContactSpaceSapSolver solver(params);
    const ContactSpaceSapResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged()) << r.message;
    ASSERT_GT(r.gamma.norm(), 0.0);
    EXPECT_LT(FixedPointResidual(p, r, params.regularization), 1e-8)
        << "trial " << trial;
    // Warm started at its own x, the solver is already converged and
    // returns the same impulses bitwise.
    const ContactSpaceSapResults again = solver.Solve(p, &r.x);
    EXPECT_EQ(again.statistics.newton_iterations, 0);
    EXPECT_EQ(again.gamma, r.gamma);
    EXPECT_EQ(again.statistics.symbolic_analyses, 0);  // same pattern
  }
}

TEST(ContactSpaceSapSolver, BadInputNamesTheField) {
  ContactSpaceSapProblem p;
  p.time_step = 1e-3;
  Eigen::MatrixXd W = Eigen::MatrixXd::Identity(6, 6);
  p.W = W.sparseView();
  p.v_free = Eigen::VectorXd::Zero(6);
  p.phi0 = Eigen::VectorXd::Zero(2);
  p.parameters.resize(2);
  ContactSpaceSapSolver solver;
  EXPECT_TRUE(solver.Solve(p).converged());
  auto message = [&](const ContactSpaceSapProblem& bad) {
    try {
      solver.Solve(bad);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  ContactSpaceSapProblem bad = p;
  bad.v_free.resize(5);
  EXPECT_NE(message(bad).find("v_free has 5 entries"), std::string::npos)
      << message(bad);
  bad = p;
  bad.phi0(1) = std::nan("");
  EXPECT_NE(message(bad).find("phi0"), std::string::npos) << message(bad);
  bad = p;
  bad.W.coeffRef(4, 4) = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(bad).find("W(4, 4)"), std::string::npos) << message(bad);
  bad = p;
  for (int i = 3; i < 6; ++i) bad.W.coeffRef(i, i) = 0.0;
  EXPECT_NE(message(bad).find("contact 1"), std::string::npos) << message(bad);
  bad = p;
  bad.parameters[0].friction = -1;
  EXPECT_NE(message(bad).find("contact 0"), std::string::npos) << message(bad);
  bad = p;
  bad.time_step = 0;
  EXPECT_NE(message(bad).find("time_step"), std::string::npos) << message(bad);
}

}  // namespace
}  // namespace sapcontact
