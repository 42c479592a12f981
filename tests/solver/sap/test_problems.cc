// Out of line: the fixtures instantiate Eigen's QR and LU once here
// instead of in every test file that includes test_problems.h.
#include "tests/solver/sap/test_problems.h"

#include <cmath>

namespace sapcontact::testing {

SapProblem PizzaSaver::Build() const {
  SapProblem p;
  p.time_step = dt;
  Tree tree;
  tree.A = Eigen::MatrixXd::Zero(6, 6);
  tree.A.diagonal() << m, m, m, I_xy, I_xy, I_z;
  tree.v_star = Eigen::VectorXd::Zero(6);
  tree.v_star(2) = -g * dt;
  tree.v_star(5) = tau * dt / I_z;
  tree.name = "pizza_saver";
  p.trees.push_back(tree);
  for (int k = 0; k < 3; ++k) {
    Contact c;
    c.first.tree = 0;
    c.first.J = GroundContactJacobian(ContactPoint(k));
    c.parameters = contact;
    // Equilibrium penetration for gamma_n = m g dt / 3 at rest:
    // phi0 = -gamma_n (dt + tau_d) R_n with this contact's R_n.
    const Matrix3 W = c.first.J * tree.A.inverse() * c.first.J.transpose();
    const double Rn = ComputeRegularization(contact, reg, dt,
                                            DelassusDiagonalEstimate(W), 0.0)
                          .R_n;
    c.phi0 = -(m * g * dt / 3) * (dt + contact.dissipation_time_scale) * Rn;
    p.contacts.push_back(c);
  }
  return p;
}

Eigen::MatrixXd RandomSpd(int n, std::mt19937* rng, double spread) {
  std::normal_distribution<double> N(0, 1);
  std::uniform_real_distribution<double> U(0, 1);
  Eigen::MatrixXd B(n, n);
  for (int i = 0; i < n * n; ++i) B.data()[i] = N(*rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(B);
  const Eigen::MatrixXd Q = qr.householderQ();
  Eigen::VectorXd d(n);
  for (int i = 0; i < n; ++i) d(i) = std::pow(10.0, spread * U(*rng) - 1.0);
  Eigen::MatrixXd A = Q * d.asDiagonal() * Q.transpose();
  return 0.5 * (A + A.transpose());
}

SapProblem RandomProblem(int num_trees, int num_contacts, std::mt19937* rng,
                         double stiffness) {
  std::uniform_int_distribution<int> size_dist(1, 8);
  std::uniform_real_distribution<double> U(0, 1);
  std::normal_distribution<double> N(0, 1);
  SapProblem p;
  p.time_step = 1e-2;
  for (int t = 0; t < num_trees; ++t) {
    Tree tree;
    const int n = size_dist(*rng);
    tree.A = RandomSpd(n, rng);
    tree.v_star = Eigen::VectorXd::NullaryExpr(n, [&] { return N(*rng); });
    p.trees.push_back(tree);
  }
  std::uniform_int_distribution<int> tree_dist(0, num_trees - 1);
  for (int k = 0; k < num_contacts; ++k) {
    Contact c;
    c.first.tree = tree_dist(*rng);
    c.first.J = Eigen::MatrixXd::NullaryExpr(3, p.trees[c.first.tree].A.rows(),
                                             [&] { return N(*rng); });
    if (num_trees > 1 && U(*rng) < 0.6) {
      int other = tree_dist(*rng);
      while (other == c.first.tree) other = tree_dist(*rng);
      ContactJacobianBlock b;
      b.tree = other;
      b.J = Eigen::MatrixXd::NullaryExpr(3, p.trees[other].A.rows(),
                                         [&] { return N(*rng); });
      c.second = b;
    }
    c.phi0 = 0.02 * (U(*rng) - 0.6);
    c.parameters = {stiffness * std::pow(10.0, 2 * U(*rng) - 1), 0.05 * U(*rng),
                    1.5 * U(*rng)};
    p.contacts.push_back(c);
  }
  return p;
}

}  // namespace sapcontact::testing
