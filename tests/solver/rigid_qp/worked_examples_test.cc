// Worked examples of two formulation documents for the rigid-contact QP
// (docs/theory.md §12, §14): seven "QP examples" of a projected-Newton
// formulation and three "SOCP examples" of an epigraph (SOCP) formulation,
// each solved by the interior-point rigid QP solver and asserted against the
// true optimum of the QP the document states (closed form where one exists),
// verified by the KKT checker to 1e-9. Both write min 1/2 l'Al - b'l:
// W = A, c = -b. The QP examples include a regularization 1e-10 in the
// diagonal of A; we solve that stated QP, so exact values carry the factor
// 0.1 / (0.1 + 1e-10) relative to the document's round numbers.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "tests/solver/rigid_qp/rigid_qp_test_utils.h"

namespace sapcontact {
namespace {

using testing_rigid_qp::IsotropicOptimum;
using testing_rigid_qp::SolveAndCheck;

constexpr double kRegQp = 1e-10;  // the QP examples' regularization
constexpr double kAlphaQp = 0.1 + kRegQp;

RigidContactProblem SingleContact(double alpha, const Eigen::Vector3d& b,
                                  double mu) {
  return MakeDenseRigidContactProblem(alpha * Eigen::MatrixXd::Identity(3, 3),
                                      -b, Eigen::VectorXd::Constant(1, mu));
}

void ExpectNearRelative(const Eigen::VectorXd& actual,
                        const Eigen::VectorXd& expected, double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  const double scale = std::max(1.0, expected.lpNorm<Eigen::Infinity>());
  for (int i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual(i), expected(i), tol * scale) << "entry " << i;
  }
}

// QP example 1: frictionless (mu = 0), b = (1.5, 0, 0). The document
// gives l_n = 15 (= 1.5 / 0.1; with its 1e-10 regularization, 1.5 / (0.1 +
// 1e-10)); correct. The second case adds a tangential velocity: with mu = 0
// the cone is the half-line, so l_t must stay exactly 0.
TEST(WorkedExamples, QpExample1Frictionless) {
  const RigidContactProblem p =
      SingleContact(kAlphaQp, Eigen::Vector3d(1.5, 0.0, 0.0), 0.0);
  const RigidQpResult r = SolveAndCheck(p, "QP Ex1");
  ExpectNearRelative(r.impulses, Eigen::Vector3d(1.5 / kAlphaQp, 0, 0), 1e-9);
  EXPECT_NEAR(r.impulses(0), 15.0, 2e-8);  // the document's number

  const RigidContactProblem q =
      SingleContact(kAlphaQp, Eigen::Vector3d(1.5, -0.2, 0.3), 0.0);
  const RigidQpResult s = SolveAndCheck(q, "QP Ex1 with tangential b");
  EXPECT_EQ(s.impulses(1), 0.0);
  EXPECT_EQ(s.impulses(2), 0.0);
  EXPECT_NEAR(s.impulses(0), 1.5 / kAlphaQp, 1e-9 * 15.0);
  // The tangential velocity is unconstrained: u_t = c_t.
  EXPECT_NEAR(s.constraint_velocities(1), 0.2, 1e-12);
}

// QP example 2: sticking, l = A^-1 b = (15, -2, 0) inside the cone.
// The document is right.
TEST(WorkedExamples, QpExample2Sticking) {
  const Eigen::Vector3d b(1.5, -0.2, 0.0);
  const RigidContactProblem p = SingleContact(kAlphaQp, b, 0.5);
  const RigidQpResult r = SolveAndCheck(p, "QP Ex2");
  ExpectNearRelative(r.impulses, b / kAlphaQp, 1e-9);
  ExpectNearRelative(r.impulses, IsotropicOptimum(kAlphaQp, -b, 0.5), 1e-9);
  EXPECT_NEAR(r.constraint_velocities.norm(), 0.0, 1e-10);  // sticks
}

// QP example 3: sliding, the projection of (15, -30, -40) onto the
// cone mu = 0.3: l_n = 30 / 1.09 = 27.5229..., l_t = -0.3 l_n (0.6, 0.8).
// The document is right (for A = alpha I the projection is the optimum).
TEST(WorkedExamples, QpExample3Sliding) {
  const Eigen::Vector3d b(1.5, -3.0, -4.0);
  const RigidContactProblem p = SingleContact(kAlphaQp, b, 0.3);
  const RigidQpResult r = SolveAndCheck(p, "QP Ex3");
  const double ln = 30.0 / 1.09 * 0.1 / kAlphaQp;
  ExpectNearRelative(
      r.impulses, Eigen::Vector3d(ln, -0.6 * 0.3 * ln, -0.8 * 0.3 * ln), 1e-9);
  EXPECT_NEAR(r.impulses.tail<2>().norm(), 0.3 * r.impulses(0), 1e-9 * ln);
  // Friction opposes the post-step slip velocity (maximum dissipation).
  const Eigen::Vector2d ut = r.constraint_velocities.tail<2>();
  EXPECT_GT(ut.norm(), 1.0);
  EXPECT_NEAR(ut.normalized().dot(r.impulses.tail<2>().normalized()), -1.0,
              1e-9);
}

// QP example 4: two identical contacts (A = 0.1 [[I, I], [I, I]]),
// mu = (0.8, 0.2), b = (1.5, -1, 0) twice. The document claims contact 0
// sticks, contact 1 slides on its cone and the total normal impulse is ~15.
// Only the sum L = l_0 + l_1 is physical: L = A_11^-1 b_0 = (15, -10, 0)
// lies inside the cone mu = 0.8 (= F_0 + F_1), so u = 0 for BOTH contacts:
// physically both stick, nothing slides. Without regularization every split
// with l_0 in F_0, l_1 in F_1 is optimal. With the document's 1e-10
// regularization the split is unique (the least-norm one, which puts l_1 on
// its cone: the document's "sliding" is that artifact, with a slip velocity
// u_1 ~ 1e-9 m/s), but it is decided by energy differences of ~1e-9 J
// against an objective of ~16 J, below any solver tolerance: we assert the
// sum, u = 0 and the KKT conditions, not a split.
TEST(WorkedExamples, QpExample4DuplicateContacts) {
  Eigen::MatrixXd A(6, 6);
  A << Eigen::MatrixXd::Identity(3, 3), Eigen::MatrixXd::Identity(3, 3),
      Eigen::MatrixXd::Identity(3, 3), Eigen::MatrixXd::Identity(3, 3);
  A *= 0.1;
  Eigen::VectorXd b(6);
  b << 1.5, -1.0, 0.0, 1.5, -1.0, 0.0;
  const Eigen::Vector2d mu(0.8, 0.2);
  for (const double reg : {0.0, kRegQp}) {
    const std::string label =
        reg == 0.0 ? "QP Ex4 singular" : "QP Ex4 regularized";
    const Eigen::MatrixXd W = A + reg * Eigen::MatrixXd::Identity(6, 6);
    const RigidContactProblem p = MakeDenseRigidContactProblem(W, -b, mu);
    const RigidQpResult r = SolveAndCheck(p, label);
    const Eigen::Vector3d sum = r.impulses.head<3>() + r.impulses.tail<3>();
    ExpectNearRelative(sum, Eigen::Vector3d(15.0, -10.0, 0.0), 1e-8);
    EXPECT_NEAR(r.constraint_velocities.norm(), 0.0, 1e-8);
    EXPECT_GT(r.impulses(0), 0.0);
    EXPECT_GT(r.impulses(3), 0.0);
  }
}

// QP example 5: the projection of (15, -50, 0) onto mu = 0.5 is
// (32, -16, 0); right. (The example is about warm starting a projected
// Newton method; an interior-point method has no warm start, so only the
// solution is asserted.)
TEST(WorkedExamples, QpExample5) {
  const Eigen::Vector3d b(1.5, -5.0, 0.0);
  const RigidQpResult r =
      SolveAndCheck(SingleContact(kAlphaQp, b, 0.5), "QP Ex5");
  ExpectNearRelative(r.impulses,
                     Eigen::Vector3d(32.0, -16.0, 0.0) * 0.1 / kAlphaQp, 1e-9);
}

// QP example 6: grazing contact, the projection of (0.01, -50, 0):
// (20.008, -10.004, 0); right.
TEST(WorkedExamples, QpExample6Grazing) {
  const Eigen::Vector3d b(0.001, -5.0, 0.0);
  const RigidQpResult r =
      SolveAndCheck(SingleContact(kAlphaQp, b, 0.5), "QP Ex6");
  ExpectNearRelative(
      r.impulses, Eigen::Vector3d(20.008, -10.004, 0.0) * 0.1 / kAlphaQp, 1e-9);
}

// QP example 7: stick (2.013, 0.671, 0), then slide: the projection
// of (2.013, 2.013, 0) onto mu = 0.5 is (2.4156, 1.2078, 0). The QP numbers
// are right. (Its narrative, "at the friction angle the block is at the
// boundary", does not apply: the velocity is straight down, into the slope,
// and the ratio 1/3 < mu is a stick.)
TEST(WorkedExamples, QpExample7InclinedPlane) {
  const Eigen::Vector3d b_stick(0.2013, 0.0671, 0.0);
  const RigidQpResult stick =
      SolveAndCheck(SingleContact(kAlphaQp, b_stick, 0.5), "QP Ex7 stick");
  ExpectNearRelative(stick.impulses, b_stick / kAlphaQp, 1e-9);
  const Eigen::Vector3d b_slide(0.2013, 0.2013, 0.0);
  const RigidQpResult slide =
      SolveAndCheck(SingleContact(kAlphaQp, b_slide, 0.5), "QP Ex7 slide");
  ExpectNearRelative(slide.impulses,
                     Eigen::Vector3d(2.4156, 1.2078, 0.0) * 0.1 / kAlphaQp,
                     1e-9);
  EXPECT_GT(slide.impulses(0), stick.impulses(0));
}

// SOCP example 1: A = 0.1 I, b = (0.157, -10, 0), mu = 0.5. The
// document expects (1.57, -0.785, 0): that is what exact Coulomb friction
// gives (the block keeps sliding at ~10 m/s with u_n = 0). The QP it states
// has a different optimum: the projection of A^-1 b = (1.57, -100, 0) onto
// the cone, (41.256, -20.628, 0), with post-step normal velocity
// u_n = mu ||u_t|| > 0: the "gliding" of the convex (Anitescu) relaxation
// at large slip velocity.
TEST(WorkedExamples, SocpExample1GlidingNotCoulomb) {
  const Eigen::Vector3d b(0.157, -10.0, 0.0);
  const RigidQpResult r = SolveAndCheck(SingleContact(0.1, b, 0.5), "SOCP Ex1");
  ExpectNearRelative(r.impulses, Eigen::Vector3d(41.256, -20.628, 0.0), 1e-9);
  EXPECT_GT(std::abs(r.impulses(0) - 1.57), 39.0);  // not the Coulomb answer
  const Eigen::Vector3d u = r.constraint_velocities;
  EXPECT_NEAR(u(0), 0.5 * u.tail<2>().norm(), 1e-9);  // the normal shift
  EXPECT_GT(u(0), 3.0);                               // lift-off velocity
}

// SOCP example 2: stick, (0.4905, -0.2, 0); right.
TEST(WorkedExamples, SocpExample2Stick) {
  const Eigen::Vector3d b(0.0981, -0.04, 0.0);
  const RigidQpResult r = SolveAndCheck(SingleContact(0.2, b, 1.0), "SOCP Ex2");
  ExpectNearRelative(r.impulses, Eigen::Vector3d(0.4905, -0.2, 0.0), 1e-9);
  EXPECT_LT(r.impulses.tail<2>().norm(), r.impulses(0));
}

// SOCP example 3: "near-singular" A (0.1 diagonal, 0.0999 coupling of
// the two contacts), b = (1, 0, 0, 1, 0, 0), mu = 0.5. The document claims
// condition number 1e10 and a failing Cholesky factorization. In fact the
// eigenvalues are 0.1999 and 0.0001 (condition ~2e3): A is positive
// definite, LLT succeeds, no regularization is needed, and by symmetry the
// optimum is l_i = (1 / 0.1999, 0, 0) (inside the cones). The document's
// GTest template uses yet another matrix (coupling 0.099999 on the normals
// only, condition ~2e5), also PD: l_n,i = 1 / 0.199999.
TEST(WorkedExamples, SocpExample3NotSingular) {
  Eigen::MatrixXd A(6, 6);
  A << 0.1 * Eigen::MatrixXd::Identity(3, 3),
      0.0999 * Eigen::MatrixXd::Identity(3, 3),
      0.0999 * Eigen::MatrixXd::Identity(3, 3),
      0.1 * Eigen::MatrixXd::Identity(3, 3);
  Eigen::VectorXd b(6);
  b << 1.0, 0.0, 0.0, 1.0, 0.0, 0.0;
  const Eigen::Vector2d mu(0.5, 0.5);
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(A).info(), Eigen::Success);
  const Eigen::VectorXd eig =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues();
  EXPECT_NEAR(eig.minCoeff(), 1e-4, 1e-12);
  EXPECT_NEAR(eig.maxCoeff(), 0.1999, 1e-12);
  const RigidQpResult r =
      SolveAndCheck(MakeDenseRigidContactProblem(A, -b, mu), "SOCP Ex3");
  Eigen::VectorXd expected(6);
  expected << 1.0 / 0.1999, 0, 0, 1.0 / 0.1999, 0, 0;
  ExpectNearRelative(r.impulses, expected, 1e-9);

  Eigen::MatrixXd A2 = 0.1 * Eigen::MatrixXd::Identity(6, 6);
  A2(0, 3) = A2(3, 0) = 0.099999;
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(A2).info(), Eigen::Success);
  const RigidQpResult r2 = SolveAndCheck(
      MakeDenseRigidContactProblem(A2, -b, mu), "SOCP Ex3 template matrix");
  expected << 1.0 / 0.199999, 0, 0, 1.0 / 0.199999, 0, 0;
  ExpectNearRelative(r2.impulses, expected, 1e-8);
}

}  // namespace
}  // namespace sapcontact
