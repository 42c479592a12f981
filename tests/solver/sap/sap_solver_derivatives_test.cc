// SapSolverDerivatives against central finite differences of whole solves
// (docs/theory.md §20): every Jacobian column, for boxes sticking, sliding
// and separating on the ground, a chain of boxes (two-tree contacts), the
// three contact models, near-rigid contact, and a box held by a joint
// limit, a weld-like holonomic row and PD actuation; reverse mode against
// forward mode.
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/common/solve_derivative_checks.h"

namespace sapcontact {
namespace {

using derivative_checks::CheckAllJacobians;
using derivative_checks::Tight;
using fixtures::BoxSetup;
using fixtures::BoxWorld;

// One box on its four ground contacts with horizontal velocity vx in v*.
SapProblem Box(double vx, double phi0, const ContactParameters& contact,
               double dt = 1e-3) {
  BoxSetup s;
  s.dt = dt;
  s.contact = contact;
  BoxWorld w(s);
  w.AddBox(Eigen::Vector3d(0, 0, 0.05), Eigen::Vector3d(vx, 0.3 * vx, 0));
  w.AddGroundContacts(0);
  SapProblem p = w.problem();
  for (Contact& c : p.contacts) c.phi0 = phi0;
  // Unequal corners: a slight tilt, so no two contacts are alike.
  for (int k = 0; k < 4; ++k) p.contacts[k].phi0 += 1e-6 * k;
  return p;
}

ContactParameters Compliant(ContactModel model = ContactModel::kSap) {
  ContactParameters c;
  c.stiffness = 1e5;
  c.dissipation_time_scale = 0.01;
  c.friction = 0.4;
  c.model = model;
  c.hunt_crossley_dissipation = 2.0;
  c.stiction_tolerance = 1e-3;
  return c;
}

TEST(SapSolverDerivatives, BoxSticking) {
  CheckAllJacobians(Box(0.002, -1e-4, Compliant()), "sticking");
}

TEST(SapSolverDerivatives, BoxSliding) {
  CheckAllJacobians(Box(1.0, -1e-4, Compliant()), "sliding");
}

TEST(SapSolverDerivatives, BoxSeparating) {
  // A 1 cm gap does not close within the step: no impulse, v = v*.
  const SapProblem p = Box(0.5, 1e-2, Compliant());
  CheckAllJacobians(p, "separating");
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(p);
  const SapSolverDerivatives d(p, r, Tight());
  const SapSolutionJacobians J = d.Jacobians();
  EXPECT_TRUE(J.dv_dvstar.isIdentity(1e-12));
  EXPECT_EQ(J.dv_dphi0.norm(), 0.0);
  EXPECT_EQ(J.dgamma_dfriction.norm(), 0.0);
  for (const SapContactRegion& c : d.regions()) {
    EXPECT_EQ(c.region, ProjectionRegion::kNoContact);
  }
}

TEST(SapSolverDerivatives, RegionsMatchTheSolve) {
  for (double vx : {0.002, 1.0}) {
    const SapProblem p = Box(vx, -1e-4, Compliant());
    SapSolver solver(Tight());
    const SapSolverResults r = solver.Solve(p);
    const SapSolverDerivatives d(p, r, Tight());
    for (const SapContactRegion& c : d.regions()) {
      EXPECT_EQ(c.region, vx < 0.01 ? ProjectionRegion::kStiction
                                    : ProjectionRegion::kSliding);
      EXPECT_GT(c.boundary_distance, 0.0);
    }
  }
}

TEST(SapSolverDerivatives, NearRigidBox) {
  ContactParameters c = Compliant();
  c.stiffness = std::numeric_limits<double>::infinity();
  CheckAllJacobians(Box(0.002, -1e-5, c), "near-rigid sticking");
  CheckAllJacobians(Box(1.0, -1e-5, c), "near-rigid sliding", 100.0);
}

TEST(SapSolverDerivatives, HuntCrossleyModels) {
  for (ContactModel model : {ContactModel::kSimilar, ContactModel::kLagged}) {
    const std::string name = ToString(model);
    CheckAllJacobians(Box(0.0005, -1e-4, Compliant(model)), name + " sticking");
    CheckAllJacobians(Box(1.0, -1e-4, Compliant(model)), name + " sliding");
  }
}

TEST(SapSolverDerivatives, ChainOfBoxes) {
  // Three boxes side by side: face contacts between two trees; jiggled
  // velocities make some contacts slide and some stick.
  BoxSetup s;
  s.contact = Compliant();
  s.jiggle = 0.05;
  SapProblem p = fixtures::Chain(3, s);
  for (int k = 0; k < static_cast<int>(p.contacts.size()); ++k) {
    p.contacts[k].phi0 -= 1e-6 * (k % 5);
  }
  CheckAllJacobians(p, "chain");
}

// A box sliding on the ground, held by a joint limit on its x rotation, a
// compliant holonomic row on its y velocity and PD actuation of its z
// rotation.
SapProblem BoxWithRows() {
  SapProblem p = Box(0.3, -1e-4, Compliant());
  // A joint limit on the box's x rotation, a compliant holonomic row on its
  // y velocity and PD actuation of its z rotation.
  auto row = [](int i) {
    ConstraintJacobianBlock b;
    b.tree = 0;
    b.J = Eigen::MatrixXd::Zero(1, 6);
    b.J(0, i) = 1.0;
    return b;
  };
  p.trees[0].v_star(3) = -0.2;
  LimitConstraint lim;
  lim.first = row(3);
  lim.g0 = Eigen::VectorXd::Constant(1, 1e-4);
  lim.stiffness = 1e4;
  lim.dissipation_time_scale = 0.005;
  p.limits.push_back(lim);
  HolonomicConstraint hol;
  hol.first = row(1);
  hol.g0 = Eigen::VectorXd::Constant(1, 2e-4);
  hol.stiffness = 2e4;
  hol.relaxation_time = 0.002;
  p.holonomic.push_back(hol);
  ActuationConstraint act;
  act.first = row(5);
  act.position = Eigen::VectorXd::Constant(1, 0.1);
  act.target = Eigen::VectorXd::Constant(1, 0.3);
  act.target_velocity = Eigen::VectorXd::Constant(1, 0.5);
  act.feedforward = Eigen::VectorXd::Constant(1, 0.01);
  act.kp = Eigen::VectorXd::Constant(1, 5.0);
  act.kd = Eigen::VectorXd::Constant(1, 0.05);
  act.effort_limit = Eigen::VectorXd::Constant(1, 1e3);
  p.actuation.push_back(act);
  return p;
}

TEST(SapSolverDerivatives, LimitHolonomicAndActuationRows) {
  SapProblem p = BoxWithRows();
  CheckAllJacobians(p, "rows");
  // Every row parameter acts here (within its bounds the PD row's impulse
  // moves with its target, gains and feed-forward, not with its limit).
  auto jacobians = [](const SapProblem& q) {
    SapSolver solver(Tight());
    return SapSolverDerivatives(q, solver.Solve(q), Tight()).Jacobians();
  };
  SapSolutionJacobians J = jacobians(p);
  for (const Eigen::MatrixXd* m :
       {&J.dv_dlimit_g0, &J.dv_dholonomic_g0, &J.dv_dactuation_target,
        &J.dv_dactuation_target_velocity, &J.dv_dactuation_feedforward,
        &J.dv_dactuation_kp, &J.dv_dactuation_kd}) {
    EXPECT_GT(m->norm(), 0.0);
  }
  EXPECT_EQ(J.dv_dactuation_effort_limit.norm(), 0.0);
  // The same with rows at their near-rigid floors (rigid limit and weld)
  // and the actuation at its effort limit, where the limit acts and the
  // gains do not.
  p.limits[0].stiffness = std::numeric_limits<double>::infinity();
  p.holonomic[0].stiffness = std::numeric_limits<double>::infinity();
  p.actuation[0].effort_limit(0) = 1e-3;
  CheckAllJacobians(p, "rigid rows, saturated actuation", 10.0);
  J = jacobians(p);
  EXPECT_GT(J.dv_dactuation_effort_limit.norm(), 0.0);
  EXPECT_EQ(J.dv_dactuation_kp.norm(), 0.0);
}

// A problem that moves along a line P(e) = P0 + e dP in every datum (A,
// v*, Jacobian blocks, phi0, bias velocities, v_n0, the rows' g0 and
// positions): ApplyAlong against central differences of whole solves.
SapProblem Moved(const SapProblem& p0, double e, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  SapProblem p = p0;
  for (Tree& t : p.trees) {
    Eigen::MatrixXd S(t.A.rows(), t.A.cols());
    for (int i = 0; i < S.size(); ++i) S(i) = u(rng);
    t.A += e * 0.05 * (S + S.transpose()) * t.A.diagonal().minCoeff();
    for (int i = 0; i < t.v_star.size(); ++i) t.v_star(i) += e * u(rng);
  }
  for (Contact& c : p.contacts) {
    for (int i = 0; i < c.first.J.size(); ++i) c.first.J(i) += e * 0.1 * u(rng);
    if (c.second) {
      for (int i = 0; i < c.second->J.size(); ++i) {
        c.second->J(i) += e * 0.1 * u(rng);
      }
    }
    c.phi0 += e * 1e-3 * u(rng);
    for (int i = 0; i < 3; ++i) c.bias_velocity(i) += e * 0.1 * u(rng);
    c.normal_velocity0 += e * 0.1 * u(rng);
  }
  for (LimitConstraint& c : p.limits) c.g0(0) += e * 1e-3 * u(rng);
  for (HolonomicConstraint& c : p.holonomic) c.g0(0) += e * 1e-3 * u(rng);
  for (ActuationConstraint& c : p.actuation) c.position(0) += e * u(rng);
  return p;
}

void CheckApplyAlong(const SapProblem& p0, const std::string& name) {
  SCOPED_TRACE(name);
  for (unsigned seed : {1u, 2u, 3u}) {
    SapSolver solver(Tight());
    const SapSolverResults r = solver.Solve(p0);
    ASSERT_EQ(r.status, SapSolverStatus::kConverged);
    const SapSolverDerivatives d(p0, r, Tight());
    const double h = 1e-7;
    const SapProblem plus = Moved(p0, h, seed), minus = Moved(p0, -h, seed);
    const SapSolutionVector an = d.ApplyAlong(plus, minus, h);
    const derivative_checks::Solution fd = derivative_checks::CentralDifference(
        p0, r.v, h, [&](SapProblem* p, double t) { *p = Moved(p0, t, seed); });
    derivative_checks::ExpectClose(an.v, fd.v, fd.resolution_v, 1e-3,
                                   "dv along seed " + std::to_string(seed));
    derivative_checks::ExpectClose(an.gamma, fd.gamma, fd.resolution_gamma,
                                   1e-6,
                                   "dgamma along seed " + std::to_string(seed));
    EXPECT_GT(an.v.norm(), 1e-3);
  }
}

TEST(SapSolverDerivatives, AlongACurveOfProblems) {
  BoxSetup s;
  s.contact = Compliant();
  s.jiggle = 0.05;
  CheckApplyAlong(fixtures::Chain(3, s), "chain, sap");
  s.contact = Compliant(ContactModel::kLagged);
  CheckApplyAlong(fixtures::Chain(3, s), "chain, lagged");
  s.contact = Compliant(ContactModel::kSimilar);
  CheckApplyAlong(fixtures::Chain(3, s), "chain, similar");
  s.contact.stiffness = std::numeric_limits<double>::infinity();
  s.contact.model = ContactModel::kSap;
  CheckApplyAlong(fixtures::Chain(3, s), "chain, near-rigid");
}

TEST(SapSolverDerivatives, AlongACurveWithRows) {
  CheckApplyAlong(BoxWithRows(), "box with a limit, a holonomic row and PD");
}

TEST(SapSolverDerivatives, AlongRejectsAnotherStructure) {
  const SapProblem p = Box(0.3, -1e-4, Compliant());
  const SapSolverDerivatives d(p, Eigen::VectorXd::Zero(6));
  SapProblem fewer = p;
  fewer.contacts.pop_back();
  EXPECT_THROW(d.ApplyAlong(fewer, p, 1e-6), std::invalid_argument);
  EXPECT_THROW(d.ApplyAlong(p, p, 0.0), std::invalid_argument);
}

// <y, J x> = <J' y, x> for the derivatives' forward and reverse modes.
void CheckAdjoint(const SapSolverDerivatives& d, const SapParameterVector& x,
                  const SapSolutionVector& y) {
  const SapSolutionVector Jx = d.Apply(x);
  const SapParameterVector Jty = d.ApplyTranspose(y);
  const double lhs = y.v.dot(Jx.v) + y.gamma.dot(Jx.gamma);
  auto dot = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return a.size() == 0 || b.size() == 0 ? 0.0 : a.dot(b);
  };
  const double rhs =
      dot(Jty.v_star, x.v_star) + dot(Jty.phi0, x.phi0) +
      dot(Jty.stiffness, x.stiffness) + dot(Jty.dissipation, x.dissipation) +
      dot(Jty.friction, x.friction) +
      dot(Jty.normal_velocity0, x.normal_velocity0) +
      Jty.time_step * x.time_step + dot(Jty.limit_g0, x.limit_g0) +
      dot(Jty.holonomic_g0, x.holonomic_g0) +
      dot(Jty.actuation_target, x.actuation_target) +
      dot(Jty.actuation_target_velocity, x.actuation_target_velocity) +
      dot(Jty.actuation_feedforward, x.actuation_feedforward) +
      dot(Jty.actuation_kp, x.actuation_kp) +
      dot(Jty.actuation_kd, x.actuation_kd) +
      dot(Jty.actuation_effort_limit, x.actuation_effort_limit);
  EXPECT_NEAR(lhs, rhs, 1e-10 * std::abs(lhs));
  EXPECT_GT(std::abs(lhs), 0.0);
}

TEST(SapSolverDerivatives, ReverseModeIsTheTransposeOfForwardMode) {
  BoxSetup s;
  s.contact = Compliant();
  s.jiggle = 0.05;
  const SapProblem p = fixtures::Chain(3, s);
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(p);
  const SapSolverDerivatives d(p, r, Tight());
  const int nv = p.num_velocities();
  const int nc = static_cast<int>(p.contacts.size());
  SapParameterVector x;
  x.v_star = Eigen::VectorXd::Random(nv);
  x.phi0 = Eigen::VectorXd::Random(nc) * 1e-3;
  x.stiffness = Eigen::VectorXd::Random(nc) * 1e3;
  x.dissipation = Eigen::VectorXd::Random(nc) * 1e-3;
  x.friction = Eigen::VectorXd::Random(nc);
  x.time_step = 1e-4;
  SapSolutionVector y;
  y.v = Eigen::VectorXd::Random(nv);
  y.gamma = Eigen::VectorXd::Random(3 * nc);
  CheckAdjoint(d, x, y);
}

TEST(SapSolverDerivatives, ReverseModeWithRows) {
  const SapProblem p = BoxWithRows();
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(p);
  const SapSolverDerivatives d(p, r, Tight());
  SapParameterVector x;
  x.v_star = Eigen::VectorXd::Random(6);
  x.phi0 = Eigen::VectorXd::Random(4) * 1e-3;
  x.time_step = 1e-4;
  x.limit_g0 = Eigen::VectorXd::Random(1) * 1e-3;
  x.holonomic_g0 = Eigen::VectorXd::Random(1) * 1e-3;
  x.actuation_target = Eigen::VectorXd::Random(1);
  x.actuation_target_velocity = Eigen::VectorXd::Random(1);
  x.actuation_feedforward = Eigen::VectorXd::Random(1);
  x.actuation_kp = Eigen::VectorXd::Random(1);
  x.actuation_kd = Eigen::VectorXd::Random(1) * 1e-2;
  x.actuation_effort_limit = Eigen::VectorXd::Random(1);
  SapSolutionVector y;
  y.v = Eigen::VectorXd::Random(6);
  y.gamma = Eigen::VectorXd::Random(12);
  CheckAdjoint(d, x, y);
  SapParameterVector wrong;
  wrong.actuation_kp = Eigen::VectorXd::Zero(2);
  EXPECT_THROW(d.Apply(wrong), std::invalid_argument);
}

// The lagged model's friction bound reads v_n0: Apply's normal_velocity0
// against ApplyAlong's differences of problems that differ in it (and in
// v*, as a velocity perturbation moves both), and reverse mode against
// forward mode with it.
TEST(SapSolverDerivatives, NormalVelocityOfTheLaggedModel) {
  BoxSetup s;
  s.contact = Compliant(ContactModel::kLagged);
  s.jiggle = 0.05;
  SapProblem p = fixtures::Chain(3, s);
  for (Contact& c : p.contacts) c.normal_velocity0 = -0.3;
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(p);
  ASSERT_EQ(r.status, SapSolverStatus::kConverged);
  const SapSolverDerivatives d(p, r, Tight());
  const int nv = p.num_velocities();
  const int nc = static_cast<int>(p.contacts.size());
  SapParameterVector x;
  x.v_star = Eigen::VectorXd::Random(nv);
  x.normal_velocity0 = Eigen::VectorXd::Random(nc);
  const double h = 1e-7;
  SapProblem plus = p, minus = p;
  int o = 0;
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const int n = static_cast<int>(p.trees[t].v_star.size());
    plus.trees[t].v_star += h * x.v_star.segment(o, n);
    minus.trees[t].v_star -= h * x.v_star.segment(o, n);
    o += n;
  }
  for (int k = 0; k < nc; ++k) {
    plus.contacts[k].normal_velocity0 += h * x.normal_velocity0(k);
    minus.contacts[k].normal_velocity0 -= h * x.normal_velocity0(k);
  }
  const SapSolutionVector along = d.ApplyAlong(plus, minus, h);
  const SapSolutionVector applied = d.Apply(x);
  EXPECT_LT((applied.v - along.v).norm(), 1e-7 * along.v.norm());
  EXPECT_LT((applied.gamma - along.gamma).norm(), 1e-7 * along.gamma.norm());
  // v_n0 alone moves the solution (the bound is active on some contact).
  SapParameterVector only_vn0;
  only_vn0.normal_velocity0 = x.normal_velocity0;
  EXPECT_GT(d.Apply(only_vn0).gamma.norm(), 1e-6 * applied.gamma.norm());
  SapSolutionVector y;
  y.v = Eigen::VectorXd::Random(nv);
  y.gamma = Eigen::VectorXd::Random(3 * nc);
  CheckAdjoint(d, x, y);
}

TEST(SapSolverDerivatives, RejectsBadInput) {
  const SapProblem p = Box(0.3, -1e-4, Compliant());
  SapSolverResults r;
  r.status = SapSolverStatus::kMaxIterations;
  r.v = Eigen::VectorXd::Zero(6);
  EXPECT_THROW(SapSolverDerivatives(p, r), std::invalid_argument);
  EXPECT_THROW(SapSolverDerivatives(p, Eigen::VectorXd::Zero(5)),
               std::invalid_argument);
  const SapSolverDerivatives d(p, Eigen::VectorXd::Zero(6));
  SapParameterVector x;
  x.phi0 = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(d.Apply(x), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
