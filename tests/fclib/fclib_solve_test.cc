// Solving FCLib problems (fclib/fclib_solver.h): small problems written
// with libfclib and read back, solved by the rigid QP (KKT conditions) and
// by SAP in contact space (solver/sap/contact_space_sap_solver.h) and
// through the primal forms (fclib/local_problem_primal_form.h,
// fclib/global_problem_primal_form.h), which must reproduce the rigid QP as
// beta = sigma -> 0.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>

#include "sapcontact/fclib/fclib_solver.h"
#include "sapcontact/fclib/global_problem_primal_form.h"
#include "sapcontact/fclib/natural_map_refinement.h"
#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"
#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "tests/fclib/fclib_test_util.h"

namespace sapcontact {
namespace {

using fclib_test::RandomLocalProblem;
using fclib_test::TempPath;

// Writes and reads back (the solvers only ever see what libfclib stored).
FclibLocalProblem ThroughFile(const FclibLocalProblem& p,
                              const std::string& name) {
  const std::string path = TempPath(name);
  WriteFclibLocal(path, p);
  return ReadFclibLocal(path);
}

RigidContactProblem SymmetricQp(const FclibLocalProblem& p) {
  return MakeSparseRigidContactProblem(SymmetricPart(p.W), p.q, p.mu);
}

// Full rank, singular (rank < 3 nc) and slightly asymmetric W.
TEST(FclibSolve, RigidQpSatisfiesKktOnProblemsReadBack) {
  struct Case {
    int nc, rank;
    double asymmetry;
  };
  int k = 0;
  for (Case c : {Case{4, 12, 0}, Case{8, 10, 0}, Case{6, 18, 1e-4},
                 Case{12, 20, 1e-3}}) {
    const FclibLocalProblem p =
        ThroughFile(RandomLocalProblem(c.nc, c.rank, 100 + k),
                    "kkt" + std::to_string(k) + ".hdf5");
    ++k;
    const FclibSolveResult r = SolveFclibLocal(p);
    ASSERT_TRUE(r.success) << r.status << ": " << r.message;
    const KktReport kkt = CheckRigidContactKkt(SymmetricQp(p), r.r);
    EXPECT_TRUE(kkt.Passes(1e-8)) << "worst " << kkt.worst_violation;
    EXPECT_LE(r.residuals.convex_residual, 1e-10);
  }
}

// The refinement alone: from a perturbed solution back to the optimum.
TEST(FclibSolve, NaturalMapRefinementConvergesFromNearbyPoint) {
  const FclibLocalProblem p = RandomLocalProblem(10, 30, 7);
  const FclibSolveResult r = SolveFclibLocal(p);
  ASSERT_TRUE(r.success);
  Eigen::VectorXd r0 = r.r;
  for (int i = 0; i < r0.size(); ++i) r0(i) *= 1.0 + 1e-6 * std::sin(i);
  const Eigen::SparseMatrix<double> S = SymmetricPart(p.W);
  const NaturalMapRefinementResult ref =
      RefineContactQpSolution(S, p.q, p.mu, r0);
  EXPECT_GT(ref.initial_residual, 1e-9);
  EXPECT_LE(ref.final_residual, 1e-13);
  EXPECT_LE(ref.iterations, 6);
  EXPECT_TRUE(CheckRigidContactKkt(SymmetricQp(p), ref.r).Passes(1e-10));
  // Projection Jacobian against central differences (boundary region).
  const Eigen::Vector3d x(0.3, 1.2, -0.7);
  const Eigen::Matrix3d J = FrictionConeProjectionJacobian(x, 0.6);
  for (int c = 0; c < 3; ++c) {
    const Eigen::Vector3d h = 1e-6 * Eigen::Vector3d::Unit(c);
    const Eigen::Vector3d fd = (ProjectOntoFrictionCone(x + h, 0.6) -
                                ProjectOntoFrictionCone(x - h, 0.6)) /
                               2e-6;
    EXPECT_LT((J.col(c) - fd).norm(), 1e-8);
  }
}

// The primal form reproduces W and q: J A^-1 J' = Wsym, J v* - v_hat = q
// (checked through the SAP problem's own rigid QP: delassus_operator.h).
TEST(FclibSolve, LocalPrimalFormReproducesWAndQ) {
  // q outside range(W) + span(normals) forces an offset DOF; an indefinite
  // Wsym (one eigenvalue -1e-9 relative) forces the eigendecomposition.
  FclibLocalProblem singular = RandomLocalProblem(5, 4, 21);
  singular.q = RandomLocalProblem(5, 15, 24).q;  // outside the range
  FclibLocalProblem indefinite = RandomLocalProblem(4, 8, 22);
  Eigen::MatrixXd Wi(indefinite.W);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Wi);
  const Eigen::VectorXd null = es.eigenvectors().col(0);
  Wi -= 1e-9 * es.eigenvalues()(11) * null * null.transpose();
  indefinite.W = Wi.sparseView();
  FclibLocalProblem asymmetric = RandomLocalProblem(6, 18, 23, 1e-3);
  int k = 0;
  for (const FclibLocalProblem* p : {&singular, &indefinite, &asymmetric}) {
    const LocalPrimalForm form = MakeLocalPrimalForm(p->W, p->q, p->mu);
    const RigidContactProblem qp = MakeRigidContactProblem(form.problem, false);
    const Eigen::MatrixXd S =
        Eigen::MatrixXd(SymmetricPart(p->W)) / form.w_scale;
    const double w_error = (qp.W - S).norm() / S.norm();
    const double q_error = (qp.c * form.q_scale - p->q).norm() / p->q.norm();
    EXPECT_LT(w_error, k == 1 ? 1e-8 : 1e-9) << "case " << k;
    EXPECT_LT(q_error, 1e-12) << "case " << k;
    if (k == 0) {
      EXPECT_EQ(form.rank, 4);
      EXPECT_EQ(form.offset_dofs, 1);
    }
    if (k == 1) {
      EXPECT_EQ(form.eigendecompositions, 1);
      EXPECT_LT(form.min_dropped_pivot, 0.0);
    }
    ++k;
  }
}

// SAP in the stiff limit (k = inf, tau_d = 0, beta = sigma = s) converges
// to the rigid QP: objective and u = Wsym r + q errors decrease with s, at
// least linearly (the regularization error is O(sigma)).
TEST(FclibSolve, SapReproducesRigidQpAsRegularizationVanishes) {
  const FclibLocalProblem p =
      ThroughFile(RandomLocalProblem(8, 16, 31, 1e-4), "stiff.hdf5");
  const FclibSolveResult rigid = SolveFclibLocal(p);
  ASSERT_TRUE(rigid.success);
  const double f_star = rigid.residuals.objective;
  double previous_f = 0, previous_u = 0;
  for (double s : {1e-2, 1e-3, 1e-4}) {
    FclibSolverOptions o;
    o.solver = FclibSolverKind::kSap;
    o.sap.regularization.near_rigid_threshold = s;
    o.sap.regularization.friction_regularization = s;
    o.sap.rel_tolerance = 1e-10;
    const FclibSolveResult sap = SolveFclibLocal(p, o);
    ASSERT_TRUE(sap.success) << sap.status << ": " << sap.message;
    const double f_error =
        (sap.residuals.objective - f_star) / std::abs(f_star);
    const double u_error =
        (sap.residuals.u_sym - rigid.residuals.u_sym).norm() /
        rigid.residuals.u_sym.norm();
    std::printf("s = %.0e: objective error %.2e, u error %.2e, %d its\n", s,
                f_error, u_error, sap.iterations);
    EXPECT_GE(f_error, -1e-12);  // the rigid optimum is the minimum
    EXPECT_LT(f_error, 10 * s);
    if (previous_f > 0) {
      EXPECT_LT(f_error, 0.2 * previous_f);
      EXPECT_LT(u_error, 0.2 * previous_u);
    }
    previous_f = f_error;
    previous_u = u_error;
  }
  // The default stiff-limit setting (beta 1e-3, sigma 1e-6): 1e-6.
  FclibSolverOptions o;
  o.solver = FclibSolverKind::kSap;
  const FclibSolveResult sap = SolveFclibLocal(p, o);
  ASSERT_TRUE(sap.success);
  EXPECT_LT((sap.residuals.objective - f_star) / std::abs(f_star), 1e-6);
}

// A global problem: two free 6-DOF bodies (one coupled to the other by a
// contact, one against the world) with a tangential w. Rigid (condensed)
// and SAP (A = M, J = H') agree; condensation matches the dense formula.
TEST(FclibSolve, GlobalProblemBothSolversAgree) {
  FclibGlobalProblem g;
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(12, 12);
  M.diagonal() << 2, 2, 2, 0.1, 0.2, 0.15, 1, 1, 1, 0.05, 0.05, 0.08;
  M(3, 4) = M(4, 3) = 0.01;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(12, 9);
  std::mt19937 gen(5);
  std::normal_distribution<double> normal;
  for (int c = 0; c < 9; ++c) {
    for (int d = 0; d < 12; ++d) {
      const bool body_a = d < 6;
      // Contacts 0, 1 on body a, contact 2 between both bodies.
      if (c < 6 ? body_a : true) H(d, c) = normal(gen);
    }
  }
  g.M = M.sparseView();
  g.H = H.sparseView();
  // Momenta pushing every contact shut along its normal.
  g.f = -0.5 * H *
        (Eigen::VectorXd::Unit(9, 0) + Eigen::VectorXd::Unit(9, 3) +
         Eigen::VectorXd::Unit(9, 6));
  g.w = Eigen::VectorXd::Zero(9);
  g.w(0) = -0.01;
  g.w(4) = 0.02;  // tangential: needs an offset DOF
  g.mu = Eigen::Vector3d(0.5, 0.3, 0.8);
  const FclibLocalProblem local = CondenseGlobalProblem(g);
  const Eigen::MatrixXd W = H.transpose() * M.inverse() * H;
  EXPECT_LT((Eigen::MatrixXd(local.W) - W).norm(), 1e-12 * W.norm());
  const Eigen::VectorXd q = H.transpose() * M.inverse() * g.f + g.w;
  EXPECT_LT((local.q - q).norm(), 1e-12 * q.norm());
  const GlobalPrimalForm form = MakeGlobalPrimalForm(g);
  EXPECT_EQ(form.offset_dofs, 1);
  const FclibSolveResult rigid = SolveFclibGlobal(g);
  ASSERT_TRUE(rigid.success) << rigid.message;
  EXPECT_LE(rigid.residuals.convex_residual, 1e-10);
  FclibSolverOptions o;
  o.solver = FclibSolverKind::kSap;
  const FclibSolveResult sap = SolveFclibGlobal(g, o);
  ASSERT_TRUE(sap.success) << sap.status << ": " << sap.message;
  EXPECT_LT(std::abs(sap.residuals.objective - rigid.residuals.objective),
            1e-6 * std::abs(rigid.residuals.objective));
  // SAP's velocities satisfy M v = H r + f.
  ASSERT_EQ(sap.v.size(), 12);
  EXPECT_GT((H * sap.r).norm(), 0.1 * g.f.norm());  // contacts active
  EXPECT_LT((M * sap.v - H * sap.r - g.f).norm(), 1e-6 * g.f.norm());
}

// Rejected data is reported, not thrown: a contact with a zero block.
// SAP on local problems in contact space (docs/theory.md §15) and on the
// primal form solve the same problem: the same objective and impulses (up to
// the stiff limit's round-off, amplified by 1/R). Where W is singular with q
// outside its range the primal form needs an offset DOF that perturbs W;
// contact space does not, and is closer to the rigid optimum. An indefinite
// Wsym falls back to the primal form: bitwise the same result.
TEST(FclibSolve, ContactSpaceAndPrimalFormAgree) {
  FclibLocalProblem singular = RandomLocalProblem(6, 5, 51);
  singular.q = RandomLocalProblem(6, 18, 52).q;  // outside the range
  FclibLocalProblem indefinite = RandomLocalProblem(4, 8, 53);
  Eigen::MatrixXd Wi(indefinite.W);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Wi);
  Wi -= 1e-9 * es.eigenvalues()(11) * es.eigenvectors().col(0) *
        es.eigenvectors().col(0).transpose();
  indefinite.W = Wi.sparseView();
  const FclibLocalProblem cases[] = {RandomLocalProblem(7, 21, 54),
                                     RandomLocalProblem(8, 10, 55, 1e-3),
                                     singular, indefinite};
  for (int k = 0; k < 4; ++k) {
    FclibSolverOptions o;
    o.solver = FclibSolverKind::kSap;
    o.sap.regularization.near_rigid_threshold = 1e-2;
    o.sap.regularization.friction_regularization = 1e-4;
    o.sap.rel_tolerance = 1e-10;
    // The two forms of one problem under the same iteration: exact Newton
    // steps (the contact-space solver has no stiction prediction,
    // docs/theory.md §16).
    o.sap.stiction_prediction = false;
    const FclibSolveResult contact_space = SolveFclibLocal(cases[k], o);
    o.sap_contact_space = false;
    const FclibSolveResult primal = SolveFclibLocal(cases[k], o);
    ASSERT_TRUE(contact_space.success) << k << ": " << contact_space.message;
    ASSERT_TRUE(primal.success) << k << ": " << primal.message;
    const double dr = (contact_space.r - primal.r).norm() / primal.r.norm();
    std::printf("case %d: %d / %d iterations, |dr|/|r| %.1e\n", k,
                contact_space.iterations, primal.iterations, dr);
    if (k == 3) {
      EXPECT_EQ(contact_space.r, primal.r);  // the same (primal) path
    } else if (k == 2) {
      // The primal form perturbs W by its offset DOF; contact space solves
      // the data as given: its impulses have the lower cost of the
      // regularized QP (SAP's dual, docs/theory.md §11) on the data,
      // F(r) = 1/2 r'(Wsym + R')r + q'r, R'_k = diag(beta^2/(4 pi^2),
      // sigma, sigma) ||Wsym_kk||_F / 3 (R in the data's units).
      const Eigen::MatrixXd S(SymmetricPart(cases[k].W));
      Eigen::VectorXd R(S.rows());
      const double beta = o.sap.regularization.near_rigid_threshold;
      const double sigma = o.sap.regularization.friction_regularization;
      for (int c = 0; c < cases[k].num_contacts(); ++c) {
        const double w = S.block<3, 3>(3 * c, 3 * c).norm() / 3;
        R.segment<3>(3 * c) << beta * beta / (4 * M_PI * M_PI) * w, sigma * w,
            sigma * w;
      }
      auto F = [&](const Eigen::VectorXd& r) {
        return 0.5 * r.dot(S * r + R.cwiseProduct(r)) + cases[k].q.dot(r);
      };
      std::printf("  F: contact space %.15e, primal %.15e\n",
                  F(contact_space.r), F(primal.r));
      EXPECT_LE(F(contact_space.r), F(primal.r));
    } else {
      // Against the rigid QP's optimum f* (errors >= 0, O(sigma, beta^2)).
      const FclibSolveResult rigid = SolveFclibLocal(cases[k]);
      ASSERT_TRUE(rigid.success);
      const double f_star = rigid.residuals.objective;
      const double e_cs =
          (contact_space.residuals.objective - f_star) / std::abs(f_star);
      const double e_primal =
          (primal.residuals.objective - f_star) / std::abs(f_star);
      EXPECT_GE(e_cs, -1e-12) << "case " << k;
      EXPECT_LT(e_cs, 1e-3) << "case " << k;
      EXPECT_NEAR(e_cs, e_primal, 1e-9) << "case " << k;
      EXPECT_LT(dr, 1e-6) << "case " << k;
    }
  }
}

TEST(FclibSolve, ZeroDelassusBlockIsAnError) {
  FclibLocalProblem p = RandomLocalProblem(3, 9, 41);
  Eigen::MatrixXd W(p.W);
  W.row(3).setZero();
  W.row(4).setZero();
  W.row(5).setZero();
  W.col(3).setZero();
  W.col(4).setZero();
  W.col(5).setZero();
  p.W = W.sparseView();
  FclibSolverOptions o;
  o.solver = FclibSolverKind::kSap;
  const FclibSolveResult r = SolveFclibLocal(p, o);
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.status, "error");
  EXPECT_NE(r.message.find("contact 1"), std::string::npos) << r.message;
}

// The rigid QP of a contact with a zero Delassus block and an approaching
// free velocity is unbounded below (dual infeasible): reported as such, and
// the impulses that come back are finite or none (the fclib fuzzer found a
// problem whose infeasible solve returned non-finite ones:
// tests/fuzz/regressions/fclib/infeasible_rigid_qp_returned_nan_impulses).
TEST(FclibSolve, UnboundedRigidQpIsReportedWithFiniteOrNoImpulses) {
  FclibLocalProblem p = RandomLocalProblem(3, 9, 41);
  Eigen::MatrixXd W(p.W);
  W.middleRows(3, 3).setZero();
  W.middleCols(3, 3).setZero();
  p.W = W.sparseView();
  p.q(3) = -1.0;  // contact 1 approaches
  const FclibSolveResult r = SolveFclibLocal(p, FclibSolverOptions{});
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.status, "infeasible") << r.message;
  EXPECT_NE(r.message.find("dual infeasible"), std::string::npos) << r.message;
  EXPECT_TRUE(r.r.size() == 0 || (r.r.size() == 9 && r.r.allFinite()));
}

}  // namespace
}  // namespace sapcontact
