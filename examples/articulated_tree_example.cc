// Embedding the solver with an articulated robot, without the simulator: a
// two-link planar arm (revolute joints about y, built with the multibody
// module) whose tip rests on the ground plane z = 0, its shoulder held by
// implicit PD actuation and its elbow stopped by a joint limit. Each step
// builds the SapProblem by hand: the tree's A = M(q) and v* = v + dt M^-1
// (-c(q, v)), the tip's contact Jacobian from CalcPointJacobian in the
// contact frame (n, t1, t2) = (z, x, y), the PD row and the limit row
// (docs/theory.md §17). Links sapcontact::solver and sapcontact::multibody.
//   cmake --build build --target articulated_tree_example
//   build/bin/articulated_tree_example
// Exits 1 unless the arm comes to rest with the tip on the ground and the
// joint torques balance the gravity load: J' f_contact + u_pd + u_limit =
// c(q, 0) (the bias forces at rest, minus the gravity torques).
#include <sapcontact/multibody/multibody_tree.h>
#include <sapcontact/solver/sap/sap_solver.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  // Shoulder 0.5 m above the ground; two 0.4 m links of 1 kg (point-like).
  MultibodyTree arm;
  Link upper{"upper", {1.0, {0.4, 0, 0}, 1e-4 * Eigen::Matrix3d::Identity()}};
  Joint shoulder;
  shoulder.name = "shoulder";
  shoulder.type = JointType::kRevolute;
  shoulder.axis = Eigen::Vector3d::UnitY();
  shoulder.origin.translation() = Eigen::Vector3d(0, 0, 0.5);
  arm.AddLink(upper, shoulder);
  Link fore{"fore", {1.0, {0.4, 0, 0}, 1e-4 * Eigen::Matrix3d::Identity()}};
  Joint elbow = shoulder;
  elbow.name = "elbow";
  elbow.parent = 0;
  elbow.origin.translation() = Eigen::Vector3d(0.4, 0, 0);
  elbow.lower = -0.2;  // rad
  elbow.upper = 2.5;
  arm.AddLink(fore, elbow);

  const double dt = 1e-3, g = 9.81;
  const Eigen::Vector3d gravity(0, 0, -g);
  // Positive rotation about y turns +x towards -z: the arm points down-out.
  Eigen::VectorXd q(2), v = Eigen::VectorXd::Zero(2);
  q << 0.6, 0.3;
  const double kp = 50.0, kd = 5.0, q_target = 0.7;  // shoulder PD

  SapSolver solver;  // kept across steps
  SapProblem problem;
  problem.time_step = dt;
  problem.trees.resize(1);
  Eigen::MatrixXd M, J_point;
  Eigen::VectorXd c;
  std::vector<Eigen::Isometry3d> X_WL;
  SapSolverResults r;
  for (int step = 0; step < 3000; ++step) {
    CalcMassMatrix(arm, q, &M);
    CalcBiasForces(arm, q, v, gravity, &c);
    Tree& tree = problem.trees[0];
    tree.A = M;
    tree.v_star = v - dt * M.llt().solve(c);

    // The tip (the end of the forearm) against the ground.
    CalcLinkPoses(arm, q, &X_WL);
    const Eigen::Vector3d tip = X_WL[1] * Eigen::Vector3d(0.4, 0, 0);
    problem.contacts.clear();
    if (tip.z() < 0.01) {  // a speculative margin of 1 cm
      CalcPointJacobian(arm, X_WL, 1, tip, &J_point);
      Contact contact;
      contact.first.tree = 0;
      contact.first.J.resize(3, 2);
      contact.first.J.row(0) = J_point.row(2);  // n = z
      contact.first.J.row(1) = J_point.row(0);  // t1 = x
      contact.first.J.row(2) = J_point.row(1);  // t2 = y
      contact.phi0 = tip.z();
      contact.parameters = {1e5, 0.01, 0.8};  // k [N/m], tau_d [s], mu
      problem.contacts.push_back(contact);
    }
    // The elbow's lower limit: g = q_elbow - lower >= 0.
    problem.limits.clear();
    LimitConstraint limit;
    limit.first.tree = 0;
    limit.first.J = Eigen::RowVector2d(0, 1);
    limit.g0 = Eigen::VectorXd::Constant(1, q(1) - elbow.lower);
    problem.limits.push_back(limit);
    // Shoulder PD (effort limit 40 N m).
    problem.actuation.clear();
    ActuationConstraint pd;
    pd.first.tree = 0;
    pd.first.J = Eigen::RowVector2d(1, 0);
    pd.position = Eigen::VectorXd::Constant(1, q(0));
    pd.target = Eigen::VectorXd::Constant(1, q_target);
    pd.target_velocity = pd.feedforward = Eigen::VectorXd::Zero(1);
    pd.kp = Eigen::VectorXd::Constant(1, kp);
    pd.kd = Eigen::VectorXd::Constant(1, kd);
    pd.effort_limit = Eigen::VectorXd::Constant(1, 40.0);
    problem.actuation.push_back(pd);

    solver.SolveFromCandidates(problem, {&v}, &r);
    if (!r.converged()) {
      std::fprintf(stderr, "step %d: %s\n", step, r.message.c_str());
      return 1;
    }
    v = r.v;
    Eigen::VectorXd q_next;
    IntegratePositions(arm, q, v, dt, &q_next);
    q = q_next;
  }
  // Statics: the generalized impulse of contact, limit and PD over dt
  // balances the gravity load c(q, 0).
  CalcBiasForces(arm, q, Eigen::VectorXd::Zero(2), gravity, &c);
  const Eigen::VectorXd applied = r.generalized_impulse / dt;
  CalcLinkPoses(arm, q, &X_WL);
  const double tip_z = (X_WL[1] * Eigen::Vector3d(0.4, 0, 0)).z();
  std::printf("q = (%.6f, %.6f) rad, v = (%.2e, %.2e) rad/s, tip z = %.3e m\n",
              q(0), q(1), v(0), v(1), tip_z);
  std::printf("contacts %zu, normal force %.4f N, PD torque %.4f N m\n",
              problem.contacts.size(),
              problem.contacts.empty() ? 0.0 : r.gamma(0) / dt,
              r.constraint_impulses(r.constraint_impulses.size() - 1) / dt);
  std::printf("torque balance: |J'f + u - c(q,0)| = %.3e N m (|c| = %.3f)\n",
              (applied - c).norm(), c.norm());
  const bool ok = v.norm() < 1e-4 && std::abs(tip_z) < 1e-3 &&
                  !problem.contacts.empty() &&
                  (applied - c).norm() < 1e-3 * c.norm();
  return ok ? 0 : 1;
}
