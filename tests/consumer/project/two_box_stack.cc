// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// sapcontact::solver. Two 0.1 m boxes (1 kg below, 2 kg on top) stacked on
// the ground, four corner contacts per interface, compliant contacts
// (k = 1e5 N/m, tau_d = 0.01 s) starting at their static deflections
// phi0 = -F / k with F the corner's share of the weight above it. Then v = 0
// is the exact solution of the step and every normal impulse equals its
// share of the weight times dt; one solver call must find it.
// Exit status 0 when it does, 1 otherwise.
#include <sapcontact/solver/sap/sap_solver.h>

#include <cmath>
#include <cstdio>

namespace {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using sapcontact::Contact;
using sapcontact::ContactJacobianBlock;

constexpr double kSide = 0.1;       // m
constexpr double kG = 9.81;         // m/s^2
constexpr double kDt = 1e-3;        // s
constexpr double kStiffness = 1e5;  // N/m
constexpr double kTauD = 0.01;      // s

// Jacobian block of the velocity of the point at r (from the centre of mass,
// world frame) of a free body with generalized velocity (v, w), in the
// contact frame (n, t1, t2) = (z, x, y): rows E [I, -[r]x].
MatrixXd PointJacobian(const Vector3d& r) {
  Matrix3d skew;
  skew << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  Eigen::Matrix<double, 3, 6> full;
  full << Matrix3d::Identity(), -skew;
  MatrixXd J(3, 6);
  J.row(0) = full.row(2);  // n = z
  J.row(1) = full.row(0);  // t1 = x
  J.row(2) = full.row(1);  // t2 = y
  return J;
}

sapcontact::Tree Box(double mass) {
  sapcontact::Tree t;
  t.A = MatrixXd::Zero(6, 6);
  t.A.diagonal().head<3>().setConstant(mass);
  t.A.diagonal().tail<3>().setConstant(mass * kSide * kSide / 6.0);
  t.v_star = Eigen::VectorXd::Zero(6);
  t.v_star(2) = -kG * kDt;
  return t;
}

}  // namespace

int main() {
  const double m_low = 1.0, m_top = 2.0;
  sapcontact::SapProblem problem;
  problem.time_step = kDt;
  problem.trees = {Box(m_low), Box(m_top)};
  const double h = kSide / 2;
  const double f_low = (m_low + m_top) * kG / 4, f_top = m_top * kG / 4;
  for (double sx : {-1.0, 1.0}) {
    for (double sy : {-1.0, 1.0}) {
      Contact ground;  // world (A) -> lower box (B)
      ground.first = {0, PointJacobian(Vector3d(sx * h, sy * h, -h))};
      ground.phi0 = -f_low / kStiffness;
      ground.parameters = {kStiffness, kTauD, 0.5};
      problem.contacts.push_back(ground);
    }
  }
  for (double sx : {-1.0, 1.0}) {
    for (double sy : {-1.0, 1.0}) {
      Contact stacked;  // lower box (A) -> upper box (B): v_c = v_B - v_A
      stacked.first = {0, -PointJacobian(Vector3d(sx * h, sy * h, h))};
      stacked.second =
          ContactJacobianBlock{1, PointJacobian(Vector3d(sx * h, sy * h, -h))};
      stacked.phi0 = -f_top / kStiffness;
      stacked.parameters = {kStiffness, kTauD, 0.5};
      problem.contacts.push_back(stacked);
    }
  }

  sapcontact::SapSolver solver;
  const sapcontact::SapSolverResults r = solver.Solve(problem);
  std::printf("status %s, %d Newton iterations\n",
              sapcontact::ToString(r.status), r.statistics.newton_iterations);
  if (!r.converged()) return 1;
  bool ok = true;
  for (int k = 0; k < 8; ++k) {
    const double expected = (k < 4 ? f_low : f_top) * kDt;
    const double gn = r.gamma(3 * k);
    const double gt = r.gamma.segment<2>(3 * k + 1).norm();
    std::printf(
        "contact %d: gamma_n %.12e N*s (weight share * dt %.12e), "
        "|gamma_t| %.1e\n",
        k, gn, expected, gt);
    ok = ok && std::abs(gn - expected) <= 1e-9 * expected && gt <= 1e-12;
  }
  double low = 0, top = 0;
  for (int k = 0; k < 4; ++k) low += r.gamma(3 * k);
  for (int k = 4; k < 8; ++k) top += r.gamma(3 * k);
  std::printf(
      "ground impulse %.12e = (m1 + m2) g dt %.12e; "
      "interface %.12e = m2 g dt %.12e; max |v| %.1e\n",
      low, (m_low + m_top) * kG * kDt, top, m_top * kG * kDt,
      r.v.cwiseAbs().maxCoeff());
  ok = ok && r.v.cwiseAbs().maxCoeff() <= 1e-12;
  return ok ? 0 : 1;
}
