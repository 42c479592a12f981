// Second-order cone algebra of the interior-point method: Nesterov-Todd
// scaling identities, Jordan product inverse, step to the boundary.
#include "sapcontact/solver/rigid_qp/second_order_cone.h"

#include <gtest/gtest.h>

#include <random>

namespace sapcontact {
namespace {

Vector3 RandomInterior(int dim, std::mt19937* rng, double margin = 1e-3) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> unif(margin, 3.0);
  if (dim == 1) return Vector3(unif(*rng), 0.0, 0.0);
  Vector3 x(0.0, g(*rng), g(*rng));
  x(0) = x.tail<2>().norm() + unif(*rng);
  return x;
}

TEST(SecondOrderCone, NtScalingIdentities) {
  std::mt19937 rng(1);
  const Matrix3 J = Vector3(1.0, -1.0, -1.0).asDiagonal();
  for (int dim : {1, 3}) {
    for (int i = 0; i < 500; ++i) {
      const Vector3 s = RandomInterior(dim, &rng);
      const Vector3 z = RandomInterior(dim, &rng);
      NtScaling sc;
      ASSERT_TRUE(ComputeNtScaling(s, z, dim, &sc));
      const Eigen::MatrixXd W = sc.W.topLeftCorner(dim, dim);
      const Eigen::MatrixXd Wi = sc.W_inverse.topLeftCorner(dim, dim);
      const double scale = 1.0 + s.norm() + z.norm();
      // W z = W^-1 s = lambda, W W^-1 = I, W symmetric.
      EXPECT_LT((W * z.head(dim) - sc.lambda.head(dim)).norm(), 1e-12 * scale);
      EXPECT_LT((Wi * s.head(dim) - sc.lambda.head(dim)).norm(), 1e-12 * scale);
      EXPECT_LT((W * Wi - Eigen::MatrixXd::Identity(dim, dim)).norm(), 1e-12);
      EXPECT_LT((W - W.transpose()).norm(), 1e-14 * W.norm());
      // lambda interior, s'z = lambda'lambda; W maps the cone onto itself:
      // (W x)'J(W x) = eta^2 x'Jx with eta^2 = sqrt(s'Js / z'Jz).
      EXPECT_GT(ConeMinEigenvalue(sc.lambda, dim), 0.0);
      EXPECT_NEAR(s.dot(z), sc.lambda.dot(sc.lambda), 1e-12 * scale * scale);
      if (dim == 3) {
        const double eta2 = ConeJNorm(s, 3) / ConeJNorm(z, 3);
        const Vector3 x = RandomInterior(3, &rng);
        const Vector3 Wx = sc.W * x;
        EXPECT_NEAR(Wx.dot(J * Wx), eta2 * x.dot(J * x),
                    1e-10 * eta2 * x.squaredNorm());
      }
    }
  }
}

TEST(SecondOrderCone, JordanSolveInvertsTheProduct) {
  std::mt19937 rng(2);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int dim : {1, 3}) {
    for (int i = 0; i < 200; ++i) {
      const Vector3 lambda = RandomInterior(dim, &rng, 0.1);
      Vector3 w(g(rng), g(rng), g(rng));
      if (dim == 1) w.tail<2>().setZero();
      const Vector3 y = JordanSolve(lambda, w, dim);
      EXPECT_LT((JordanProduct(lambda, y, dim) - w).norm(),
                1e-11 * (1 + w.norm()));
    }
  }
  // e is the identity.
  const Vector3 x(2.0, 0.3, -0.4);
  EXPECT_EQ(JordanProduct(ConeIdentity(), x, 3), x);
}

TEST(SecondOrderCone, MaxStepReachesTheBoundary) {
  std::mt19937 rng(4);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int dim : {1, 3}) {
    for (int i = 0; i < 2000; ++i) {
      const Vector3 x = RandomInterior(dim, &rng);
      Vector3 d(3 * g(rng), 3 * g(rng), 3 * g(rng));
      if (dim == 1) d.tail<2>().setZero();
      const double a = ConeMaxStep(x, d, dim);
      ASSERT_GT(a, 0.0);
      if (std::isinf(a)) {
        for (double t : {1.0, 10.0, 1e3, 1e6}) {
          EXPECT_GE(ConeMinEigenvalue(x + t * d, dim), -1e-9 * t * d.norm());
        }
      } else {
        const double scale = x.norm() + a * d.norm();
        EXPECT_NEAR(ConeMinEigenvalue(x + a * d, dim), 0.0, 1e-10 * scale);
        EXPECT_GT(ConeMinEigenvalue(x + 0.999 * a * d, dim), 0.0);
      }
    }
  }
  // Through the apex (double root): x = (1, 0, 0), d = -x.
  EXPECT_NEAR(ConeMaxStep(Vector3(1, 0, 0), Vector3(-3, 0, 0), 3), 1.0 / 3.0,
              1e-15);
  EXPECT_NEAR(ConeMaxStep(Vector3(2, 1, 0), Vector3(-4, -2, 0), 3), 0.5, 1e-15);
}

}  // namespace
}  // namespace sapcontact
