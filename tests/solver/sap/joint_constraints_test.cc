// Limits, holonomic constraints and PD actuation in the SAP problem
// (docs/theory.md §17): the model's gradient and Hessian against finite
// differences with rows in every region, and solutions against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sapcontact/solver/sap/sap_model.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/constants.h"
#include "tests/solver/sap/test_problems.h"

namespace sapcontact {
namespace {

using test_constants::kInf;

struct Eval {
  double cost{0};
  Eigen::VectorXd grad;
  double grad_scale{0};  // ||A (v - v*)|| + ||J' gamma||
  Eigen::MatrixXd H;
  std::vector<int> regions;  // contacts' projection regions, rows' regions
};

Eval Evaluate(const SapModel& model, const Eigen::VectorXd& v) {
  Eval e;
  Eigen::VectorXd r = v - model.v_star(), Ar, vc, gamma, jtg;
  model.MultiplyA(r, &Ar);
  model.MultiplyJ(v, &vc);
  SapModel::ConstraintHessians G;
  e.cost = 0.5 * r.dot(Ar) + model.EvaluateConstraints(vc, &gamma, &G);
  model.MultiplyJTranspose(gamma, &jtg);
  e.grad = Ar - jtg;
  e.grad_scale = Ar.norm() + jtg.norm();
  BlockSparseSymmetricMatrix H(model.pattern());
  model.AssembleHessian(G, &H);
  e.H = H.ToDense();
  for (int k = 0; k < model.num_contacts(); ++k) {
    e.regions.push_back(static_cast<int>(
        model.contacts()[k].constraint.Evaluate(vc.segment<3>(3 * k)).region));
  }
  for (size_t i = 0; i < model.rows().size(); ++i) {
    const ConstraintRow& row = model.rows()[i];
    const double y = (row.v_hat - vc(model.row_offset() + i)) / row.R;
    e.regions.push_back(y < row.lower ? 10 : (y > row.upper ? 12 : 11));
  }
  return e;
}

// Adds random limits, holonomic constraints (some between two trees, some
// bounded) and PD rows to a random contact problem.
void AddRandomConstraints(SapProblem* p, std::mt19937* rng) {
  std::uniform_real_distribution<double> U(-1, 1);
  std::normal_distribution<double> N(0, 1);
  const int nt = static_cast<int>(p->trees.size());
  auto block = [&](int t, int m) {
    ConstraintJacobianBlock b;
    b.tree = t;
    b.J = Eigen::MatrixXd::NullaryExpr(m, p->trees[t].A.rows(),
                                       [&] { return N(*rng); });
    return b;
  };
  for (int t = 0; t < nt; ++t) {
    LimitConstraint lim;
    lim.first = block(t, 2);
    lim.g0 = Eigen::Vector2d(0.01 * U(*rng), 0.01 * U(*rng));
    if (t % 2) lim.stiffness = 1e5;
    p->limits.push_back(lim);
    ActuationConstraint act;
    act.first = block(t, 1);
    act.position = Eigen::VectorXd::Constant(1, U(*rng));
    act.target = Eigen::VectorXd::Constant(1, U(*rng));
    act.target_velocity = Eigen::VectorXd::Constant(1, U(*rng));
    act.feedforward = Eigen::VectorXd::Constant(1, U(*rng));
    act.kp = Eigen::VectorXd::Constant(1, 50.0);
    act.kd = Eigen::VectorXd::Constant(1, 2.0);
    act.effort_limit = Eigen::VectorXd::Constant(1, t % 3 == 0 ? 0.5 : kInf);
    p->actuation.push_back(act);
  }
  for (int t = 0; t + 1 < nt; t += 2) {
    HolonomicConstraint h;
    h.first = block(t, 3);
    h.second = block(t + 1, 3);
    h.g0 = Eigen::Vector3d(0.001 * U(*rng), 0.0, 0.002 * U(*rng));
    if (t % 4 == 0) {
      h.impulse_lower = Eigen::Vector3d::Constant(-0.01);
      h.impulse_upper = Eigen::Vector3d::Constant(0.02);
    } else {
      h.stiffness = 1e4;
      h.relaxation_time = 0.01;
    }
    p->holonomic.push_back(h);
  }
}

TEST(JointConstraints, GradientAndHessianMatchFiniteDifferences) {
  std::mt19937 rng(21);
  int checked = 0;
  std::vector<int> row_regions(3, 0);
  for (int trial = 0; trial < 30; ++trial) {
    SapProblem p = testing::RandomProblem(1 + trial % 6, 1 + trial % 5, &rng);
    AddRandomConstraints(&p, &rng);
    Validate(p);
    const SapModel model(p, RegularizationParameters{});
    SapSolver solver;
    const SapSolverResults sol = solver.Solve(p);
    ASSERT_TRUE(sol.converged()) << sol.message;
    Eigen::VectorXd v_sol;
    model.Gather(sol.v, &v_sol);
    std::normal_distribution<double> N(0, 1);
    const Eigen::VectorXd v_rand =
        model.v_star() + Eigen::VectorXd::NullaryExpr(model.num_velocities(),
                                                      [&] { return N(rng); });
    for (const Eigen::VectorXd& v : {model.v_star(), v_sol, v_rand}) {
      const Eval e = Evaluate(model, v);
      const int n = model.num_velocities();
      const double h = 1e-7;
      Eigen::VectorXd g_fd(n);
      Eigen::MatrixXd H_fd(n, n);
      bool smooth = true;
      for (int i = 0; i < n && smooth; ++i) {
        Eigen::VectorXd vp = v, vm = v;
        vp(i) += h;
        vm(i) -= h;
        const Eval ep = Evaluate(model, vp), em = Evaluate(model, vm);
        smooth = ep.regions == e.regions && em.regions == e.regions;
        g_fd(i) = (ep.cost - em.cost) / (2 * h);
        H_fd.col(i) = (ep.grad - em.grad) / (2 * h);
      }
      if (!smooth) continue;
      ++checked;
      for (size_t i = model.num_contacts(); i < e.regions.size(); ++i) {
        ++row_regions[e.regions[i] - 10];
      }
      // Relative to the size of the gradient's terms (at the solution the
      // gradient itself vanishes), plus the differences' round-off, about
      // eps |l| / h = 2e-9 |l| per entry.
      EXPECT_LT((g_fd - e.grad).norm(),
                1e-6 * e.grad_scale + 1e-8 * std::sqrt(n) * std::abs(e.cost))
          << trial;
      EXPECT_LT((H_fd - e.H).norm() / e.H.norm(), 1e-6) << trial;
      EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(e.H).info(), Eigen::Success);
    }
    // At the solution: A (v - v*) = J' gamma, the generalized impulse.
    const Eigen::VectorXd lhs = DenseA(p) * (sol.v - StackedVStar(p));
    EXPECT_LT((lhs - sol.generalized_impulse).norm(),
              1e-5 * (1 + sol.generalized_impulse.norm()));
  }
  EXPECT_GE(checked, 40);
  EXPECT_GT(row_regions[0], 5);   // below the lower bound (limits separated)
  EXPECT_GT(row_regions[1], 20);  // inside the bounds
  EXPECT_GT(row_regions[2], 5);   // above the upper bound (saturated)
}

// A one-DOF tree (inertia I) with only PD actuation: the implicit PD law in
// closed form, unsaturated and saturated.
TEST(JointConstraints, PdActuationMatchesTheImplicitClosedForm) {
  const double I = 0.7, dt = 1e-3, v0 = 0.2, q0 = 0.1, qd = 0.4, kp = 300,
               kd = 20;
  for (double e : {kInf, 5.0}) {
    SapProblem p;
    p.time_step = dt;
    Tree t;
    t.A = Eigen::MatrixXd::Constant(1, 1, I);
    t.v_star = Eigen::VectorXd::Constant(1, v0);
    p.trees.push_back(t);
    ActuationConstraint a;
    a.first.tree = 0;
    a.first.J = Eigen::MatrixXd::Ones(1, 1);
    a.position = Eigen::VectorXd::Constant(1, q0);
    a.target = Eigen::VectorXd::Constant(1, qd);
    a.target_velocity = Eigen::VectorXd::Zero(1);
    a.feedforward = Eigen::VectorXd::Zero(1);
    a.kp = Eigen::VectorXd::Constant(1, kp);
    a.kd = Eigen::VectorXd::Constant(1, kd);
    a.effort_limit = Eigen::VectorXd::Constant(1, e);
    p.actuation.push_back(a);
    SapSolver solver;
    const SapSolverResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged()) << r.message;
    // I (v - v0) = dt u, u = kp (qd - q0 - dt v) - kd v, clamped.
    double v = (I * v0 + dt * kp * (qd - q0)) / (I + dt * (dt * kp + kd));
    const double u = kp * (qd - q0 - dt * v) - kd * v;
    if (std::abs(u) > e) v = v0 + dt * std::copysign(e, u) / I;
    EXPECT_NEAR(r.v(0), v, 1e-9 * std::abs(v)) << "effort limit " << e;
    EXPECT_NEAR(r.constraint_impulses(0), I * (r.v(0) - v0), 1e-12);
    if (std::isfinite(e)) {
      EXPECT_NEAR(r.constraint_impulses(0), dt * e, 1e-12);
    }
  }
}

// A joint moving towards its limit stops at it: with a rigid limit, the
// velocity closes the gap within the step (v = -g0 / (dt + tau) up to the
// floor's compliance), and a joint moving away is free.
TEST(JointConstraints, RigidLimitStopsTheJointAtTheLimit) {
  const double I = 2.0, dt = 1e-3, g0 = 1e-4;
  for (double v_star : {-3.0, 0.5}) {
    SapProblem p;
    p.time_step = dt;
    Tree t;
    t.A = Eigen::MatrixXd::Constant(1, 1, I);
    t.v_star = Eigen::VectorXd::Constant(1, v_star);
    p.trees.push_back(t);
    LimitConstraint lim;
    lim.first.tree = 0;
    lim.first.J = Eigen::MatrixXd::Ones(1, 1);  // g = q - q_lower
    lim.g0 = Eigen::VectorXd::Constant(1, g0);
    p.limits.push_back(lim);
    SapSolver solver;
    const SapSolverResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged());
    if (v_star > 0) {
      EXPECT_DOUBLE_EQ(r.v(0), v_star);
      EXPECT_EQ(r.constraint_impulses(0), 0.0);
      continue;
    }
    // gamma = (v_hat - v) / R and I (v - v*) = gamma: v = (I v* + v_hat /
    // R) / (I + 1 / R), with R the floor (beta_c = 0.1, w = 1/I).
    const double R = 0.01 / (4 * M_PI * M_PI) / I;
    const double v_hat = -g0 / (2 * dt);
    const double v = (I * v_star + v_hat / R) / (I + 1 / R);
    EXPECT_NEAR(r.v(0), v, 1e-12);
    // The gap after the step is about g0 / 2 of what it was: nearly closed,
    // never crossed by more than the compliance.
    const double g1 = g0 + dt * r.v(0);
    EXPECT_GT(g1, 0.0);
    EXPECT_LT(g1, g0);
  }
}

// A coupler q_1 - rho q_2 = 0 between two one-DOF trees: the velocities end
// up coupled (rigid: up to the floor's compliance) and momentum-like
// balance holds: impulses act equally and oppositely along (1, -rho).
TEST(JointConstraints, CouplerBetweenTwoTreesEnforcesTheRatio) {
  const double dt = 1e-3, rho = 2.0;
  SapProblem p;
  p.time_step = dt;
  for (double I : {1.0, 3.0}) {
    Tree t;
    t.A = Eigen::MatrixXd::Constant(1, 1, I);
    t.v_star = Eigen::VectorXd::Constant(1, I == 1.0 ? 1.0 : -0.5);
    p.trees.push_back(t);
  }
  HolonomicConstraint h;
  h.first.tree = 0;
  h.first.J = Eigen::MatrixXd::Ones(1, 1);
  h.second = ConstraintJacobianBlock{1, Eigen::MatrixXd::Constant(1, 1, -rho)};
  h.g0 = Eigen::VectorXd::Zero(1);
  p.holonomic.push_back(h);
  SapSolver solver;
  const SapSolverResults r = solver.Solve(p);
  ASSERT_TRUE(r.converged());
  // The floor R = beta^2 w / (4 pi^2) with w = 1 + rho^2 / 3 leaves
  // v_1 - rho v_2 = -R gamma.
  const double gamma = r.constraint_impulses(0);
  const double w = 1.0 + rho * rho / 3.0;
  const double R = 0.01 * w / (4 * M_PI * M_PI);
  EXPECT_NEAR(r.v(0) - rho * r.v(1), -R * gamma, 1e-12);
  EXPECT_LT(std::abs(r.v(0) - rho * r.v(1)), 1e-2 * std::abs(r.v(0)));
  EXPECT_NEAR(1.0 * (r.v(0) - 1.0), gamma, 1e-12);
  EXPECT_NEAR(3.0 * (r.v(1) + 0.5), -rho * gamma, 1e-12);
}

TEST(JointConstraints, ValidationNamesTheConstraintAndField) {
  SapProblem p;
  Tree t;
  t.A = Eigen::MatrixXd::Identity(2, 2);
  t.v_star = Eigen::VectorXd::Zero(2);
  p.trees.push_back(t);
  ActuationConstraint a;
  a.name = "shoulder";
  a.first.tree = 0;
  a.first.J = Eigen::MatrixXd::Ones(1, 2);
  a.position = a.target = a.target_velocity = a.feedforward =
      Eigen::VectorXd::Zero(1);
  a.kp = Eigen::VectorXd::Constant(1, -1.0);
  a.kd = Eigen::VectorXd::Zero(1);
  a.effort_limit = Eigen::VectorXd::Constant(1, kInf);
  p.actuation.push_back(a);
  try {
    Validate(p);
    FAIL() << "negative kp accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("actuation 0 ('shoulder')"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("kp"), std::string::npos);
  }
  p.actuation.clear();
  LimitConstraint lim;
  lim.first.tree = 0;
  lim.first.J = Eigen::MatrixXd::Ones(2, 2);
  lim.g0 = Eigen::VectorXd::Zero(1);  // 1 entry, 2 rows
  p.limits.push_back(lim);
  EXPECT_THROW(Validate(p), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
