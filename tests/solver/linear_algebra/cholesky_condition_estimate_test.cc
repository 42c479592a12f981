// CholeskyReciprocalCondition: the same estimate as Eigen's LLT::rcond() (the
// one SapSolver's dense islands reported before it factored in place), and
// an upper bound on the true reciprocal 1-norm condition number within the
// estimator's usual factor.
#include "sapcontact/solver/linear_algebra/cholesky_condition_estimate.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <random>
#include <vector>

namespace sapcontact {
namespace {

Eigen::MatrixXd RandomSpd(int n, double spread, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd Q =
      Eigen::MatrixXd::NullaryExpr(n, n, [&]() { return u(*rng); });
  Q = Eigen::HouseholderQR<Eigen::MatrixXd>(Q).householderQ();
  Eigen::VectorXd d(n);
  for (int i = 0; i < n; ++i) {  // eigenvalues from 1 to spread
    d[i] = std::pow(spread, n > 1 ? static_cast<double>(i) / (n - 1) : 0.0);
  }
  return Q * d.asDiagonal() * Q.transpose();
}

TEST(CholeskyReciprocalCondition, MatchesEigensEstimateAndBoundsTheTruth) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 6, 13, 30}) {
    for (double spread : {1.0, 1e3, 1e9}) {
      const Eigen::MatrixXd A = RandomSpd(n, spread, &rng);
      const Eigen::LLT<Eigen::MatrixXd> eigen_llt(A);
      ASSERT_EQ(eigen_llt.info(), Eigen::Success);
      Eigen::MatrixXd factor = A;
      const double l1 = SymmetricL1Norm(factor);
      EXPECT_NEAR(l1, A.cwiseAbs().colwise().sum().maxCoeff(), 1e-12 * l1);
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(factor);  // in place
      ASSERT_EQ(llt.info(), Eigen::Success);
      std::vector<double> work(3 * n);
      const double rcond = CholeskyReciprocalCondition(factor, l1, work.data());
      EXPECT_NEAR(rcond, eigen_llt.rcond(), 1e-10 * eigen_llt.rcond())
          << "n = " << n << ", spread " << spread;
      const double truth =
          1.0 / (l1 * A.inverse().cwiseAbs().colwise().sum().maxCoeff());
      // (The reference inverse itself is accurate to ~ eps cond(A).)
      EXPECT_GE(rcond, truth * (1 - 1e-5)) << "n = " << n;
      EXPECT_LE(rcond, 10.0 * n * truth) << "n = " << n;
    }
  }
}

TEST(CholeskyReciprocalCondition, EmptyMatrixIsZero) {
  Eigen::MatrixXd empty(0, 0);
  EXPECT_EQ(CholeskyReciprocalCondition(empty, 0.0, nullptr), 0.0);
}

}  // namespace
}  // namespace sapcontact
