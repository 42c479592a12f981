// Gradient and Hessian of the SAP cost l(v) against finite differences on
// random multi-tree problems with contacts in all three regions.
#include <gtest/gtest.h>

#include "sapcontact/solver/sap/sap_model.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

struct CostEval {
  double cost;
  Eigen::VectorXd grad;
  double grad_scale;  // ||A (v - v*)|| + ||J' gamma||
  Eigen::MatrixXd H;
  std::vector<ProjectionRegion> regions;
};

// l(v) = 1/2 (v - v*)' A (v - v*) + sum_k l_k(J_k v); grad = A (v - v*) -
// J' gamma; H = A + J' G J, all through SapModel.
CostEval Evaluate(const SapModel& model, const Eigen::VectorXd& v,
                  bool with_hessian) {
  CostEval e;
  Eigen::VectorXd r = v - model.v_star(), Ar, vc, gamma, jtg;
  model.MultiplyA(r, &Ar);
  model.MultiplyJ(v, &vc);
  SapModel::ConstraintHessians G;
  e.cost = 0.5 * r.dot(Ar) + model.EvaluateConstraints(vc, &gamma, &G);
  model.MultiplyJTranspose(gamma, &jtg);
  e.grad = Ar - jtg;
  e.grad_scale = Ar.norm() + jtg.norm();
  if (with_hessian) {
    BlockSparseSymmetricMatrix H(model.pattern());
    model.AssembleHessian(G, &H);
    e.H = H.ToDense();
  }
  for (int k = 0; k < model.num_contacts(); ++k) {
    e.regions.push_back(
        model.contacts()[k].constraint.Evaluate(vc.segment<3>(3 * k)).region);
  }
  return e;
}

// Central differences of l and its gradient at v. False when a perturbation
// crosses a region boundary (the cost is only C1 there): then skip v.
bool FiniteDifferences(const SapModel& model, const Eigen::VectorXd& v,
                       const CostEval& e, Eigen::VectorXd* g_fd,
                       Eigen::MatrixXd* H_fd) {
  const int n = model.num_velocities();
  const double h = 1e-7;
  g_fd->resize(n);
  H_fd->resize(n, n);
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd vp = v, vm = v;
    vp(i) += h;
    vm(i) -= h;
    const CostEval ep = Evaluate(model, vp, false);
    const CostEval em = Evaluate(model, vm, false);
    if (ep.regions != e.regions || em.regions != e.regions) return false;
    (*g_fd)(i) = (ep.cost - em.cost) / (2 * h);
    H_fd->col(i) = (ep.grad - em.grad) / (2 * h);
  }
  return true;
}

// Expects the analytic gradient and Hessian at e to match the differences,
// relative to the size of the gradient's terms (at the solution the gradient
// itself vanishes; at v* with no impulse both vanish: absolute there), and H
// to be symmetric positive definite. Tracks the worst errors.
void ExpectDerivatives(const CostEval& e, const Eigen::VectorXd& g_fd,
                       const Eigen::MatrixXd& H_fd, double hessian_tolerance,
                       int trial, double* worst_grad, double* worst_hess) {
  const double eg = (g_fd - e.grad).norm() / std::max(e.grad_scale, 1e-12);
  const double eh = (H_fd - e.H).norm() / e.H.norm();
  EXPECT_LT(eg, 1e-6) << "trial " << trial;
  EXPECT_LT(eh, hessian_tolerance) << "trial " << trial;
  *worst_grad = std::max(*worst_grad, eg);
  *worst_hess = std::max(*worst_hess, eh);
  EXPECT_LT((e.H - e.H.transpose()).norm(), 1e-12 * e.H.norm());
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(e.H).info(), Eigen::Success);
}

TEST(SapModel, GradientAndHessianMatchFiniteDifferences) {
  std::mt19937 rng(11);
  int region_count[4] = {0, 0, 0, 0};
  int problems_checked = 0;
  double worst_grad = 0, worst_hess = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int trees = 1 + trial % 8;
    const SapProblem p = testing::RandomProblem(trees, 2 + trial % 10, &rng);
    Validate(p);
    const SapModel model(p, RegularizationParameters{});
    // At v* most contacts slide or separate; at the solution many stick.
    SapSolver solver;
    const SapSolverResults sol = solver.Solve(p);
    ASSERT_TRUE(sol.converged());
    Eigen::VectorXd v_solution;
    model.Gather(sol.v, &v_solution);
    for (const Eigen::VectorXd& v : {model.v_star(), v_solution}) {
      const CostEval e = Evaluate(model, v, true);
      Eigen::VectorXd g_fd;
      Eigen::MatrixXd H_fd;
      if (!FiniteDifferences(model, v, e, &g_fd, &H_fd)) continue;
      ++problems_checked;
      for (ProjectionRegion r : e.regions) ++region_count[static_cast<int>(r)];
      ExpectDerivatives(e, g_fd, H_fd, 1e-6, trial, &worst_grad, &worst_hess);
    }
  }
  EXPECT_GE(problems_checked, 40);
  EXPECT_GT(region_count[1], 10);
  EXPECT_GT(region_count[2], 10);
  EXPECT_GT(region_count[3], 10);
  std::printf(
      "%d problems; contacts in regions I/II/III: %d/%d/%d; worst relative "
      "error: gradient %.2e, Hessian %.2e\n",
      problems_checked, region_count[1], region_count[2], region_count[3],
      worst_grad, worst_hess);
}

// The same with every contact in one of the three models (docs/theory.md
// §18), mixed within each problem: the Newton solver is unchanged, so the
// model's gradient and Hessian must still be l's, and the solution must
// satisfy the optimality condition A (v - v*) = J' gamma.
TEST(SapModel, MixedContactModelsGradientAndHessianMatchFiniteDifferences) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> U(0, 1);
  int model_count[3] = {0, 0, 0};
  int problems_checked = 0;
  double worst_grad = 0, worst_hess = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SapProblem p = testing::RandomProblem(1 + trial % 8, 2 + trial % 10, &rng);
    for (Contact& c : p.contacts) {
      c.parameters.model = static_cast<ContactModel>(
          trial % 3 == 0 ? (c.phi0 > 0 ? 1 : 2) : int(3 * U(rng)));
      c.parameters.hunt_crossley_dissipation = 5.0 * U(rng);
      c.parameters.stiction_tolerance = 1e-3 * (0.1 + U(rng));
      c.normal_velocity0 = U(rng) - 0.5;
      ++model_count[static_cast<int>(c.parameters.model)];
    }
    Validate(p);
    const SapModel model(p, RegularizationParameters{});
    SapSolverParameters params;
    params.rel_tolerance = 1e-10;
    SapSolver solver(params);
    const SapSolverResults sol = solver.Solve(p);
    ASSERT_TRUE(sol.converged()) << trial << ": " << sol.message;
    // Optimality: A (v - v*) = J' gamma.
    const Eigen::VectorXd residual =
        DenseA(p) * (sol.v - StackedVStar(p)) - sol.generalized_impulse;
    EXPECT_LT(residual.norm(), 1e-8 * sol.generalized_impulse.norm() + 1e-14)
        << trial;
    Eigen::VectorXd v_solution;
    model.Gather(sol.v, &v_solution);
    for (const Eigen::VectorXd& v : {model.v_star(), v_solution}) {
      const CostEval e = Evaluate(model, v, true);
      Eigen::VectorXd g_fd;
      Eigen::MatrixXd H_fd;
      if (!FiniteDifferences(model, v, e, &g_fd, &H_fd)) continue;
      ++problems_checked;
      ExpectDerivatives(e, g_fd, H_fd, 1e-5, trial, &worst_grad, &worst_hess);
    }
  }
  EXPECT_GE(problems_checked, 40);
  EXPECT_GT(model_count[0], 20);
  EXPECT_GT(model_count[1], 20);
  EXPECT_GT(model_count[2], 20);
  std::printf(
      "%d problems; contacts sap/similar/lagged: %d/%d/%d; worst relative "
      "error: gradient %.2e, Hessian %.2e\n",
      problems_checked, model_count[0], model_count[1], model_count[2],
      worst_grad, worst_hess);
}

TEST(SapModel, OnlyTouchedTreesParticipateAndPatchesGroupPairs) {
  SapProblem p;
  p.time_step = 1e-3;
  for (int t = 0; t < 4; ++t) {
    Tree tree;
    tree.A = Eigen::MatrixXd::Identity(2, 2) * (t + 1);
    tree.v_star = Eigen::VectorXd::Constant(2, t);
    p.trees.push_back(tree);
  }
  auto contact = [&](int a, int b) {
    Contact c;
    c.first.tree = a;
    c.first.J = Eigen::MatrixXd::Ones(3, 2);
    if (b >= 0)
      c.second = ContactJacobianBlock{b, -Eigen::MatrixXd::Ones(3, 2)};
    return c;
  };
  // Trees 1 and 3 in contact twice (one patch), tree 3 with the world; tree
  // 0 and 2 free.
  p.contacts = {contact(1, 3), contact(3, -1), contact(3, 1)};
  const SapModel model(p, RegularizationParameters{});
  EXPECT_EQ(model.num_trees(), 2);
  EXPECT_EQ(model.original_tree(0), 1);
  EXPECT_EQ(model.original_tree(1), 3);
  EXPECT_EQ(model.participating_index(0), -1);
  EXPECT_EQ(model.patches().size(), 2u);
  EXPECT_EQ(model.pattern().off_diagonal_blocks().size(), 1u);
  // Delassus estimate of contact 0: J_1 A_1^-1 J_1' + J_3 A_3^-1 J_3' =
  // ones(3,3) * (2/2 + 2/4) -> ||.||_F / 3 = 1.5.
  EXPECT_NEAR(model.contacts()[0].w, 1.5, 1e-14);
}

// Trees of kWideTreeVelocities or more velocities get their diagonal block
// from one product over their contacts' stacked rows (separated contacts,
// G = 0, left out); the Hessian must still be A + J' G J exactly as the
// dense formula gives it, for wide and narrow trees and their coupling.
TEST(SapModel, WideTreeHessianIsAPlusJtGJ) {
  std::mt19937 rng(5);
  std::normal_distribution<double> N(0, 1);
  const std::vector<int> sizes = {40, 6, 33, 3, 64};
  SapProblem p;
  p.time_step = 1e-2;
  for (int n : sizes) {
    Tree tree;
    tree.A = testing::RandomSpd(n, &rng);
    tree.v_star = Eigen::VectorXd::NullaryExpr(n, [&] { return N(rng); });
    p.trees.push_back(tree);
  }
  std::uniform_int_distribution<int> tree_dist(0, 4);
  std::uniform_real_distribution<double> U(0, 1);
  for (int k = 0; k < 60; ++k) {
    Contact c;
    c.first.tree = tree_dist(rng);
    c.first.J = Eigen::MatrixXd::NullaryExpr(3, sizes[c.first.tree],
                                             [&] { return N(rng); });
    if (k % 2 == 0) {
      int other = tree_dist(rng);
      while (other == c.first.tree) other = tree_dist(rng);
      c.second = ContactJacobianBlock{
          other, Eigen::MatrixXd::NullaryExpr(3, sizes[other],
                                              [&] { return N(rng); })};
    }
    c.phi0 = 0.02 * (U(rng) - 0.6);
    c.parameters = {1e4, 0.05 * U(rng), 1.5 * U(rng)};
    p.contacts.push_back(c);
  }
  const SapModel model(p, RegularizationParameters{});
  const Eigen::MatrixXd J = DenseContactJacobian(p), A = DenseA(p);
  int separated = 0, wide = 0;
  for (int p_index = 0; p_index < model.num_trees(); ++p_index) {
    wide += model.size(p_index) >= SapModel::kWideTreeVelocities;
  }
  EXPECT_EQ(wide, 3);
  for (int trial = 0; trial < 4; ++trial) {
    const Eigen::VectorXd v =
        model.v_star() +
        (0.5 * trial) * Eigen::VectorXd::NullaryExpr(model.num_velocities(),
                                                     [&] { return N(rng); });
    Eigen::VectorXd vc, gamma;
    SapModel::ConstraintHessians G;
    model.MultiplyJ(v, &vc);
    model.EvaluateConstraints(vc, &gamma, &G);
    Eigen::MatrixXd JtGJ = Eigen::MatrixXd::Zero(J.cols(), J.cols());
    for (int k = 0; k < model.num_contacts(); ++k) {
      separated += (G.contacts[k].array() == 0.0).all();
      JtGJ += J.middleRows<3>(3 * k).transpose() * G.contacts[k] *
              J.middleRows<3>(3 * k);
    }
    BlockSparseSymmetricMatrix H(model.pattern());
    model.AssembleHessian(G, &H);
    const Eigen::MatrixXd expected = A + JtGJ;  // every tree participates
    const Eigen::MatrixXd got = H.ToDense();
    EXPECT_LT((got - expected).norm(), 1e-12 * expected.norm())
        << "trial " << trial;
  }
  EXPECT_GT(separated, 0);
}

}  // namespace
}  // namespace sapcontact
