// Embedding the SAP solver in your own simulator: one time step of a 1 kg
// free body (6 DOFs, generalized velocity (v, w) in the world frame) resting
// on one ground contact at its centre of mass. Links sapcontact::solver only.
// Build and run (scripts/demo builds it):
//   cmake --build build --target embedding_example
//   build/bin/embedding_example
// Exits 1 if the solver does not converge or the normal impulse is not the
// weight times dt plus the compliant push-out of the initial penetration.
#include <sapcontact/solver/sap/sap_solver.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  SapProblem problem;
  problem.time_step = 1e-3;  // s

  Tree body;  // one tree per free body or articulated robot
  body.A = Eigen::MatrixXd::Identity(6, 6);  // mass matrix [kg, kg m^2]
  body.A.diagonal().tail<3>().setConstant(0.01);
  body.v_star = Eigen::VectorXd::Zero(6);  // free motion: v + dt g
  body.v_star(2) = -9.81 * problem.time_step;
  problem.trees.push_back(body);

  Contact contact;  // rows (n, t1, t2) = (z, x, y): contact_model/conventions.h
  contact.first.tree = 0;
  contact.first.J = Eigen::MatrixXd::Zero(3, 6);
  contact.first.J(0, 2) = contact.first.J(1, 0) = contact.first.J(2, 1) = 1.0;
  contact.phi0 = -1e-5;                   // m, penetrating
  contact.parameters = {1e6, 0.01, 0.5};  // k [N/m], tau_d [s], mu
  problem.contacts.push_back(contact);

  SapSolver solver;  // keep it across steps: reuses the symbolic analysis
  const SapSolverResults r = solver.Solve(problem);
  if (!r.converged()) {
    std::fprintf(stderr, "not converged: %s\n", r.message.c_str());
    return 1;
  }
  std::printf("status %s after %d Newton iterations\n", ToString(r.status),
              r.statistics.newton_iterations);
  std::printf(
      "v_z = %.6e m/s, normal impulse = %.6e N*s (weight * dt = %.6e)\n",
      r.v(2), r.gamma(0), 9.81 * problem.time_step);
  // Momentum balance of the body along z: m (v_z - v*_z) = gamma_n.
  const double balance = 1.0 * (r.v(2) - body.v_star(2)) - r.gamma(0);
  if (!(std::abs(balance) <= 1e-12 && r.gamma(0) > 9.81e-3)) {
    std::fprintf(stderr, "momentum balance %.3e, gamma_n %.6e\n", balance,
                 r.gamma(0));
    return 1;
  }
  return 0;
}
