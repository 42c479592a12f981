// The FCLib error measures (fclib/fclib_residuals.h): the cone projection,
// closed-form Coulomb and convex solutions, libfclib's own merit function,
// and the reference residuals of ../shared/fclib.
#include "sapcontact/fclib/fclib_residuals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/fclib/fclib_test_util.h"

extern "C" {
#include <fclib.h>
}

namespace sapcontact {
namespace {

TEST(FclibResiduals, ProjectionOntoFrictionCone) {
  std::mt19937 gen(3);
  std::normal_distribution<double> normal;
  for (double mu : {0.0, 0.3, 1.0, 2.5}) {
    for (int k = 0; k < 200; ++k) {
      const Eigen::Vector3d x(normal(gen), normal(gen), normal(gen));
      const Eigen::Vector3d p = ProjectOntoFrictionCone(x, mu);
      // p in K, x - p in the polar cone (-K*), orthogonal to p (Moreau).
      EXPECT_LE(p.tail<2>().norm(), mu * p(0) + 1e-14);
      const Eigen::Vector3d d = p - x;  // in K* = { mu ||d_t|| <= d_n }
      EXPECT_LE(mu * d.tail<2>().norm(), d(0) + 1e-14);
      EXPECT_NEAR(p.dot(d), 0.0, 1e-14);
      EXPECT_TRUE(ProjectOntoFrictionCone(p, mu).isApprox(p, 1e-14) ||
                  p.norm() < 1e-300);
    }
  }
  // Closed forms: inside, polar, boundary.
  EXPECT_EQ(ProjectOntoFrictionCone(Eigen::Vector3d(1, 0.3, 0.4), 1.0),
            Eigen::Vector3d(1, 0.3, 0.4));
  EXPECT_EQ(ProjectOntoFrictionCone(Eigen::Vector3d(-1, 0.3, 0.4), 1.0),
            Eigen::Vector3d::Zero());
  // (0, 2, 0) with mu = 1 projects to (1, 1, 0).
  EXPECT_TRUE(ProjectOntoFrictionCone(Eigen::Vector3d(0, 2, 0), 1.0)
                  .isApprox(Eigen::Vector3d(1, 1, 0), 1e-15));
}

// One contact, W = I, q = (-1, 3, 0), mu = 0.5. Coulomb: the contact
// slides with u_n = 0: r = (1, -0.5, 0), u = (0, 2.5, 0), objective -1.875.
// Convex relaxation: r = P_K(-q) = P_K(1, -3, 0) = (2, -1, 0), u = (1, 2, 0)
// on the dual cone's boundary (u_n = mu ||u_t||: lifted off, the
// relaxation's gliding), objective -2.5.
TEST(FclibResiduals, ClosedFormSingleContact) {
  Eigen::SparseMatrix<double> W(3, 3);
  W.setIdentity();
  const Eigen::Vector3d q(-1, 3, 0);
  Eigen::VectorXd mu(1);
  mu << 0.5;
  const Eigen::Vector3d coulomb(1, -0.5, 0), convex(2, -1, 0);
  FclibResiduals a = ComputeFclibResiduals(W, q, mu, coulomb);
  EXPECT_NEAR(a.coulomb_residual_abs, 0.0, 1e-15);
  EXPECT_GT(a.convex_residual, 0.1);  // u_n = 0 < mu ||u_t||: not the QP's
  EXPECT_DOUBLE_EQ(a.objective, 0.5 * 1.25 + (-1 - 1.5));
  FclibResiduals b = ComputeFclibResiduals(W, q, mu, convex);
  EXPECT_NEAR(b.convex_residual_abs, 0.0, 1e-15);
  EXPECT_GT(b.coulomb_residual, 0.1);   // u_n = 1 > 0 with r_n > 0
  EXPECT_LT(b.objective, a.objective);  // the relaxation's optimum is lower
  // Relative normalisation: e / max(||q||, ||r||, ||u||).
  const Eigen::Vector3d r0 = Eigen::Vector3d::Zero();
  FclibResiduals c = ComputeFclibResiduals(W, q, mu, r0);
  EXPECT_DOUBLE_EQ(c.convex_residual, c.convex_residual_abs / q.norm());
}

// Our e_C against libfclib's fclib_merit_local(MERIT_1), an independent
// implementation that returns e_C / (1 + sqrt(||q||)), with W asymmetric.
TEST(FclibResiduals, CoulombResidualMatchesLibfclibMerit) {
  const FclibLocalProblem p = fclib_test::RandomLocalProblem(6, 10, 5, 1e-2);
  Eigen::SparseMatrix<double> W = p.W;
  W.makeCompressed();
  std::vector<int> outer(W.outerIndexPtr(), W.outerIndexPtr() + W.cols() + 1);
  std::vector<int> inner(W.innerIndexPtr(), W.innerIndexPtr() + W.nonZeros());
  std::vector<double> x(W.valuePtr(), W.valuePtr() + W.nonZeros());
  fclib_matrix m{};
  m.nzmax = static_cast<int>(x.size());
  m.m = m.n = static_cast<int>(W.rows());
  m.nz = -1;
  m.p = outer.data();
  m.i = inner.data();
  m.x = x.data();
  Eigen::VectorXd q = p.q, mu = p.mu;
  fclib_local local{};
  local.W = &m;
  local.q = q.data();
  local.mu = mu.data();
  local.spacedim = 3;
  std::mt19937 gen(11);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::VectorXd r(18);
    for (int k = 0; k < 18; ++k) r(k) = normal(gen);
    Eigen::VectorXd u = W * r + q;
    fclib_solution s{};
    s.r = r.data();
    s.u = u.data();
    const double merit = fclib_merit_local(&local, MERIT_1, &s);
    const FclibResiduals ours = ComputeFclibResiduals(p.W, p.q, p.mu, r);
    EXPECT_NEAR(ours.coulomb_residual_abs / (1.0 + std::sqrt(q.norm())), merit,
                1e-13 * merit);
  }
}

// The shared references: our e_S of each convex reference and e_C of each
// Coulomb reference reproduce references.csv (4 significant digits there).
TEST(FclibResiduals, ReproduceSharedReferenceResiduals) {
  const std::string dir = fclib_test::SharedFclibDir();
  if (dir.empty()) GTEST_SKIP() << "../shared/fclib not found";
  const auto refs = fclib_test::ReadReferences(dir);
  for (const std::string name :
       {"Rover4396", "Confeti-ex13-4contact-Fc3D-SBM", "OneObject-i1028-138",
        "NESpheres_30_1", "RockPile_tob1"}) {
    const FclibLocalProblem p =
        ReadFclibLocal(dir + "/problems/" + name + ".hdf5");
    const auto& row = refs.at(name);
    const FclibResiduals convex = ComputeFclibResiduals(
        p.W, p.q, p.mu, fclib_test::ReadReferenceImpulses(dir, name, "convex"));
    const FclibResiduals coulomb = ComputeFclibResiduals(
        p.W, p.q, p.mu,
        fclib_test::ReadReferenceImpulses(dir, name, "coulomb"));
    const double es = std::stod(row.at("best_convex_residual"));
    const double ec = std::stod(row.at("best_coulomb_residual"));
    EXPECT_NEAR(convex.convex_residual, es, 1e-3 * es) << name;
    EXPECT_NEAR(coulomb.coulomb_residual, ec, 1e-3 * ec) << name;
    const double obj = std::stod(row.at("convex_objective"));
    EXPECT_NEAR(convex.objective, obj, 1e-12 * std::abs(obj)) << name;
  }
}

}  // namespace
}  // namespace sapcontact
