// Derivatives of the SAP contact constraint against central finite
// differences: dgamma/dy, G = -dgamma/dv_c, and gamma = -dl/dv_c.
#include "sapcontact/contact_model/contact_constraint.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "tests/contact_model/projection_oracles.h"

namespace sapcontact {
namespace {

using testing::ClassifyExact;
using testing::RandomSample;

constexpr double kEps = 1e-8;

ContactRegularization MakeRegularization(double mu, double Rn, double Rt,
                                         double v_hat_n) {
  ContactRegularization r;
  r.mu = mu;
  r.R_n = Rn;
  r.R_t = Rt;
  r.v_hat_n = v_hat_n;
  return r;
}

double RelativeError(const Matrix3& a, const Matrix3& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// >= 1000 random samples over the three regions, each at least a relative
// distance of 1e-3 from a region boundary (so that the central differences do
// not straddle a kink); relative error below 1e-6 for each derivative.
TEST(ContactConstraint, DerivativesMatchFiniteDifferences) {
  std::mt19937 rng(7);
  int tested[4] = {0, 0, 0, 0};
  double worst_dgdy = 0, worst_G = 0, worst_grad = 0;
  for (int i = 0; tested[1] + tested[2] + tested[3] < 3000 && i < 100000; ++i) {
    const auto s = RandomSample(&rng);
    const auto info = ClassifyExact(s.y, s.mu, s.R_t / s.R_n);
    if (info.margin < 1e-3) continue;
    const double ynorm = s.y.norm();

    // dgamma/dy by central differences in y.
    const auto p = ProjectOntoFrictionCone(s.y, s.mu, s.R_n, s.R_t, kEps);
    ASSERT_EQ(static_cast<int>(p.region), info.region);
    const double hy = 1e-6 * ynorm;
    Matrix3 D_fd;
    for (int j = 0; j < 3; ++j) {
      Vector3 yp = s.y, ym = s.y;
      yp(j) += hy;
      ym(j) -= hy;
      D_fd.col(j) =
          (ProjectOntoFrictionCone(yp, s.mu, s.R_n, s.R_t, kEps).gamma -
           ProjectOntoFrictionCone(ym, s.mu, s.R_n, s.R_t, kEps).gamma) /
          (2 * hy);
    }

    // G and gamma by central differences in v_c.
    const ContactRegularization reg =
        MakeRegularization(s.mu, s.R_n, s.R_t, 0.3 * ynorm * s.R_n);
    const ContactConstraint c(reg, kEps);
    const Vector3 v_c = reg.v_hat() - reg.R().cwiseProduct(s.y);
    const ContactConstraintState st = c.Evaluate(v_c);
    ASSERT_LT((st.y - s.y).norm(), 1e-12 * ynorm);
    Matrix3 G_fd;
    Vector3 grad_fd;
    for (int j = 0; j < 3; ++j) {
      // Steps of 1e-6 |y| (for gamma) and 1e-5 |y| (for the cost, whose
      // round-off is relative to its largest, normal, part) in y units; both
      // stay inside the 1e-3 margin.
      const double h = 1e-6 * ynorm * reg.R()(j);
      Vector3 vp = v_c, vm = v_c;
      vp(j) += h;
      vm(j) -= h;
      G_fd.col(j) = -(c.Evaluate(vp).gamma - c.Evaluate(vm).gamma) / (2 * h);
      const double hc = 10 * h;
      vp = v_c;
      vm = v_c;
      vp(j) += hc;
      vm(j) -= hc;
      grad_fd(j) = (c.Evaluate(vp).cost - c.Evaluate(vm).cost) / (2 * hc);
    }

    if (p.region == ProjectionRegion::kNoContact) {
      EXPECT_EQ(p.dgamma_dy, Matrix3::Zero());
      EXPECT_EQ(D_fd, Matrix3::Zero());
      EXPECT_EQ(st.G, Matrix3::Zero());
      EXPECT_EQ(st.cost, 0.0);
    } else {
      const double e1 = RelativeError(p.dgamma_dy, D_fd);
      const double e2 = RelativeError(st.G, G_fd);
      const double e3 = (st.gamma + grad_fd).norm() / st.gamma.norm();
      EXPECT_LT(e1, 1e-6) << "sample " << i << " region " << info.region;
      EXPECT_LT(e2, 1e-6) << "sample " << i << " region " << info.region;
      EXPECT_LT(e3, 1e-6) << "sample " << i << " region " << info.region;
      worst_dgdy = std::max(worst_dgdy, e1);
      worst_G = std::max(worst_G, e2);
      worst_grad = std::max(worst_grad, e3);
    }

    // G symmetric positive semidefinite.
    EXPECT_LE((st.G - st.G.transpose()).norm(), 1e-12 * st.G.norm());
    const Eigen::SelfAdjointEigenSolver<Matrix3> eig(0.5 *
                                                     (st.G + st.G.transpose()));
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-12 * st.G.norm());
    ++tested[info.region];
  }
  EXPECT_GE(tested[1], 300);
  EXPECT_GE(tested[2], 300);
  EXPECT_GE(tested[3], 300);
  EXPECT_GE(tested[1] + tested[2] + tested[3], 1000);
  std::printf(
      "tested %d (I) %d (II) %d (III) samples; worst relative errors: "
      "dgamma/dy %.2e, G %.2e, gamma vs -dl/dv_c %.2e\n",
      tested[1], tested[2], tested[3], worst_dgdy, worst_G, worst_grad);
}

// The line search's evaluation along a ray against the full one: same gamma
// and cost bitwise, and the curvature dv_c' G dv_c of the (finite-difference
// checked) G above, in every region, for random directions.
TEST(ContactConstraint, EvaluationAlongARayMatchesTheFullHessian) {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  int tested[4] = {0, 0, 0, 0};
  for (int i = 0; i < 3000; ++i) {
    const auto s = RandomSample(&rng);
    const auto info = ClassifyExact(s.y, s.mu, s.R_t / s.R_n);
    const double ynorm = s.y.norm();
    const ContactRegularization reg =
        MakeRegularization(s.mu, s.R_n, s.R_t, 0.3 * ynorm * s.R_n);
    const ContactConstraint c(reg, kEps);
    const Vector3 v_c = reg.v_hat() - reg.R().cwiseProduct(s.y);
    const Vector3 dv_c(normal(rng), normal(rng), normal(rng));
    const ContactConstraintState full = c.Evaluate(v_c);
    ContactConstraintRayState ray;
    c.EvaluateAlong(v_c, dv_c, &ray);
    EXPECT_EQ(ray.gamma, full.gamma) << "sample " << i;
    EXPECT_EQ(ray.cost, full.cost) << "sample " << i;
    const double expected = dv_c.dot(full.G * dv_c);
    EXPECT_NEAR(ray.curvature, expected,
                1e-12 * full.G.norm() * dv_c.squaredNorm())
        << "sample " << i << " region " << info.region;
    ++tested[info.region];
  }
  EXPECT_GE(tested[1], 300);
  EXPECT_GE(tested[2], 300);
  EXPECT_GE(tested[3], 300);
}

TEST(ContactConstraint, RestingContactCarriesTheWeight) {
  // At rest (v_c = 0) a contact with penetration phi0 < 0 sticks with
  // gamma_n = v_hat_n / R_n = -phi0 / ((dt + tau_d) R_n) (docs/theory.md §9).
  ContactParameters params{1e5, 0.01, 0.5};
  const double dt = 1e-3, w = 0.05, phi0 = -1e-4;
  const ContactRegularization reg =
      ComputeRegularization(params, RegularizationParameters{}, dt, w, phi0);
  const ContactConstraint c(reg, kEps);
  const auto st = c.Evaluate(Vector3::Zero());
  EXPECT_EQ(st.region, ProjectionRegion::kStiction);
  EXPECT_NEAR(st.gamma(kNormal), 1e-4 / (0.011 * reg.R_n), 1e-15);
  // Compliant: R_n = 1/(dt k (dt+tau)) so gamma_n = dt k (-phi0) = k |phi0| dt
  // (spring force times dt).
  EXPECT_NEAR(st.gamma(kNormal), 1e5 * 1e-4 * dt, 1e-15);
  EXPECT_NEAR(Tangential(st.gamma).norm(), 0.0, 1e-300);
  // Separating fast: no impulse, no cost.
  const auto sep = c.Evaluate(Vector3(1.0, 0.0, 0.0));
  EXPECT_EQ(sep.region, ProjectionRegion::kNoContact);
  EXPECT_EQ(sep.gamma, Vector3::Zero());
  // Sliding fast: ||gamma_t|| = mu gamma_n, friction opposes the slip.
  const auto slide = c.Evaluate(Vector3(0.0, 1.0, 0.0));
  EXPECT_EQ(slide.region, ProjectionRegion::kSliding);
  EXPECT_NEAR(Tangential(slide.gamma).norm(), 0.5 * slide.gamma(kNormal),
              1e-14 * slide.gamma.norm());
  EXPECT_LT(slide.gamma(kTangent1), 0.0);
}

}  // namespace
}  // namespace sapcontact
