// Physical and random fixtures for the SAP solver tests (the heavy bodies
// are in test_problems.cc).
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
  /// The problem of one step from rest.
  SapProblem Build() const;
};

/// Random SPD matrix of size n with condition number below ~10^spread.
Eigen::MatrixXd RandomSpd(int n, std::mt19937* rng, double spread = 2.0);

/// A random multi-tree problem: num_trees trees of 1 to 8 DOFs (some
/// without contacts), contacts against the world and between random pairs
/// (so that patches hold several contacts), with v* and phi0 spread so that
/// contacts fall in all three regions (stick, slip, separation).
SapProblem RandomProblem(int num_trees, int num_contacts, std::mt19937* rng,
                         double stiffness = 1e4);

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
