// Physical and random fixtures for the SAP solver tests.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "sapcontact/contact_model/regularization.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact::testing {

/// Skew matrix [p]x with [p]x q = p x q.
inline Matrix3 Skew(const Vector3& p) {
  Matrix3 S;
  S << 0, -p(2), p(1), p(2), 0, -p(0), -p(1), p(0), 0;
  return S;
}

/// Jacobian (3 x 6) of a ground contact at body-relative point p (world
/// frame) for a free body with generalized velocity (v, w) (world frame):
/// velocity of the point v + w x p = v - [p]x w; rows (n, t1, t2) =
/// (z, x, y) so that t1 x t2 = n.
inline Eigen::MatrixXd GroundContactJacobian(const Vector3& p) {
  Eigen::Matrix<double, 3, 6> point;
  point << Matrix3::Identity(), -Skew(p);
  Matrix3 frame_rows;  // rows: n, t1, t2 in world coordinates
  frame_rows << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  return frame_rows * point;
}

/// The "pizza saver": an equilateral triangle of mass m (a flat body, inertia
/// diag(I_xy, I_xy, I_z)) resting on three point contacts at radius r from
/// its centre of mass, in the contact plane, under gravity g and a torque tau
/// about the vertical axis. Starts at rest; phi0 is set so that the contacts
/// are at their equilibrium penetration (gamma_n = m g dt / 3 with v_n = 0).
struct PizzaSaver {
  double m = 1.5, r = 0.2, g = 9.81, dt = 1e-3, tau = 0.0;
  double I_xy = 0.01, I_z = 0.03;
  ContactParameters contact{1e5, 0.01, 0.5};
  RegularizationParameters reg;

  Vector3 ContactPoint(int k) const {
    const double th = 2 * M_PI * k / 3;
    return Vector3(r * std::cos(th), r * std::sin(th), 0.0);
  }
  SapProblem Build() const {
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
};

/// Random SPD matrix of size n with condition number below ~10^spread.
inline Eigen::MatrixXd RandomSpd(int n, std::mt19937* rng,
                                 double spread = 2.0) {
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

/// A random multi-tree problem: num_trees trees of 1 to 8 DOFs (some
/// without contacts), contacts against the world and between random pairs
/// (so that patches hold several contacts), with v* and phi0 spread so that
/// contacts fall in all three regions (stick, slip, separation).
inline SapProblem RandomProblem(int num_trees, int num_contacts,
                                std::mt19937* rng, double stiffness = 1e4) {
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

/// The cost recorded per Newton iteration never increases beyond round-off.
inline bool CostIsMonotone(const SapSolverStatistics& s, double slop = 1e-12) {
  std::vector<double> c = s.cost;
  c.push_back(s.final_cost);
  for (size_t i = 1; i < c.size(); ++i) {
    if (c[i] > c[i - 1] + slop * std::abs(c[i - 1]) + 1e-300) return false;
  }
  return true;
}

}  // namespace sapcontact::testing
