// Bad input to the rigid QP solver and the KKT checker: std::invalid_argument
// whose message names the field.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using test_constants::kInf;

RigidContactProblem Good() {
  Eigen::MatrixXd W = Eigen::MatrixXd::Identity(6, 6);
  W(0, 3) = W(3, 0) = 0.5;
  Eigen::VectorXd c(6);
  c << -1, 0.2, 0, -1, 0, 0.3;
  return MakeDenseRigidContactProblem(W, c, Eigen::Vector2d(0.5, 0.0));
}

// Expects std::invalid_argument from solving p whose message contains all of
// `needles`; checks dense and sparse storage.
void ExpectRejected(const RigidContactProblem& dense,
                    const std::vector<std::string>& needles) {
  for (const bool sparse : {false, true}) {
    RigidContactProblem p = dense;
    if (sparse) {
      p = MakeSparseRigidContactProblem(dense.W.sparseView(0.0, 0.0), dense.c,
                                        dense.mu);
    }
    try {
      SolveRigidContactQp(p);
      ADD_FAILURE() << "no exception (sparse = " << sparse << ")";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      for (const std::string& needle : needles) {
        EXPECT_NE(what.find(needle), std::string::npos)
            << "message '" << what << "' lacks '" << needle << "'";
      }
    }
  }
}

TEST(BadInput, GoodProblemIsAccepted) {
  EXPECT_NO_THROW(Validate(Good()));
  EXPECT_EQ(SolveRigidContactQp(Good()).status, RigidQpStatus::kSolved);
}

TEST(BadInput, NonSymmetricW) {
  RigidContactProblem p = Good();
  p.W(1, 4) = 1e-3;  // W(4, 1) stays 0
  ExpectRejected(p, {"not symmetric", "(4, 1)"});
  // Asymmetry within the relative tolerance 1e-10 is accepted.
  RigidContactProblem q = Good();
  q.W(1, 4) = 1e-13;
  q.W(4, 1) = 0.0;
  EXPECT_NO_THROW(Validate(q));
}

TEST(BadInput, NotPositiveSemidefinite) {
  RigidContactProblem p = Good();
  p.W(0, 3) = p.W(3, 0) = 1.5;  // 2x2 block [[1, 1.5], [1.5, 1]]: eig -0.5
  ExpectRejected(p, {"not positive semidefinite"});
  RigidContactProblem q = Good();
  q.W(2, 2) = -1e-3;
  ExpectRejected(q, {"W", "(2, 2)", "not positive semidefinite"});
  // PSD but singular is fine.
  RigidContactProblem r = Good();
  r.W(0, 3) = r.W(3, 0) = 1.0;
  EXPECT_NO_THROW(Validate(r));
}

TEST(BadInput, SizeMismatches) {
  RigidContactProblem p = Good();
  p.W = Eigen::MatrixXd::Identity(6, 5);
  ExpectRejected(p, {"W", "6 x 5"});
  p = Good();
  p.c = Eigen::VectorXd::Zero(5);
  ExpectRejected(p, {"c has size 5", "expected 3 nc = 6"});
  p = Good();
  p.mu = Eigen::VectorXd::Constant(3, 0.5);
  ExpectRejected(p, {"W", "expected 3 nc x 3 nc = 9 x 9"});
}

TEST(BadInput, NegativeOrNonFiniteFriction) {
  for (const double mu : {-0.1, kNaN, kInf}) {
    RigidContactProblem p = Good();
    p.mu(1) = mu;
    ExpectRejected(p, {"mu(1)"});
  }
}

TEST(BadInput, NonFiniteData) {
  RigidContactProblem p = Good();
  p.c(4) = kNaN;
  ExpectRejected(p, {"c(4)", "not finite"});
  p = Good();
  p.W(2, 5) = p.W(5, 2) = kInf;
  ExpectRejected(p, {"W", "not finite"});
  p = Good();
  p.W(1, 1) = kNaN;
  ExpectRejected(p, {"W", "(1, 1)", "not finite"});
}

TEST(BadInput, KktCheckerSizes) {
  const RigidContactProblem p = Good();
  EXPECT_THROW(CheckRigidContactKkt(p, Eigen::VectorXd::Zero(5)),
               std::invalid_argument);
  Eigen::VectorXd l = Eigen::VectorXd::Zero(6);
  l(2) = kNaN;
  EXPECT_THROW(CheckRigidContactKkt(p, l), std::invalid_argument);
}

TEST(BadInput, SapProblemIsValidated) {
  SapProblem sap;
  Tree t;
  t.A = Eigen::MatrixXd::Identity(3, 3);
  t.v_star = Eigen::VectorXd::Zero(3);
  sap.trees.push_back(t);
  Contact c;
  c.first.tree = 0;
  c.first.J = Eigen::MatrixXd::Identity(3, 3);
  c.parameters.friction = -1.0;
  sap.contacts.push_back(c);
  EXPECT_THROW(SolveRigidContactQp(sap), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
