// Time stepping of rigid bodies with SAP (or rigid-QP) contact, as in the SAP
// paper: each step
//   1. collision detection at the current poses gives the contacts and their
//      signed distances phi0 (start of step);
//   2. free motion v* = v + dt A^-1 (m g, -w x I w) (gravity and the
//      gyroscopic term, explicit; the angular part is then rescaled to the
//      rotational kinetic energy it started with, since the explicit
//      gyroscopic step alone would add energy to a freely tumbling body
//      every step);
//   3. the contact problem (one 6-DOF tree per moving body, world-frame
//      generalized velocity (v, w) of its centre of mass) is solved for the
//      next velocities, warm-started from the current ones;
//   4. positions are integrated with the new velocities (symplectic Euler;
//      quaternions renormalized).
// Fixed bodies are the world. Contact signs and ordering:
// contact_model/conventions.h; scenes: sim/scene/scene.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sapcontact/sim/collision/collision.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

/// State of one body: pose, and velocities in the world frame.
struct BodyState {
  Pose pose;
  Vector3 velocity{Vector3::Zero()};          ///< of the centre of mass [m/s]
  Vector3 angular_velocity{Vector3::Zero()};  ///< [rad/s]
};

/// What one step did.
struct StepInfo {
  int contacts{0};
  int newton_iterations{0};  ///< SAP Newton or interior-point iterations
  /// The contact solver did not converge: SAP status other than
  /// kConverged; rigid QP status other than kSolved or
  /// kSolvedReducedAccuracy. The step still goes on, with SAP's last iterate
  /// or the QP's best iterate at its iteration limit; after a QP numerical
  /// error or infeasibility report the velocities are left unchanged.
  bool failed{false};
  std::string failure;          ///< its message when failed
  double max_penetration{0.0};  ///< max(-phi0, 0) over the contacts [m]
  double collision_time{0.0};   ///< [s]
  double solver_time{0.0};      ///< [s] (problem build + solve)
  /// Elastic energy sum 1/2 k_eff phi0^2 over penetrating contacts at the
  /// start of the step, with k_eff = 1 / (dt (dt + tau_d) R_n) the effective
  /// stiffness (= k in the compliant regime) [J]. SAP model only.
  double elastic_energy{0.0};
};

class TimeStepper {
 public:
  /// @throws std::invalid_argument on settings the solver rejects.
  explicit TimeStepper(const Scene& scene);

  const Scene& scene() const { return scene_; }
  double time() const { return time_; }
  int steps_taken() const { return steps_; }
  const std::vector<BodyState>& state() const { return state_; }

  /// Advances one time step.
  StepInfo Step();

  /// Kinetic energy sum 1/2 m |v|^2 + 1/2 w' I_world w [J].
  double KineticEnergy() const;
  /// Gravitational potential energy -sum m g . x (zero at the world
  /// origin) [J].
  double PotentialEnergy() const;

  /// The contact problem and its impulses of the last step (for export and
  /// analysis).
  const SapProblem& last_problem() const { return problem_; }
  const std::vector<ContactPoint>& last_contacts() const { return contacts_; }
  const Eigen::VectorXd& last_impulses() const { return impulses_; }
  /// The SAP results of the last step (SAP model only; per-contact w, R_n,
  /// R_t, statistics).
  const SapSolverResults& last_sap_results() const { return sap_results_; }

 private:
  void BuildProblem();

  Scene scene_;
  std::vector<BodyState> state_;
  std::vector<int> tree_of_body_;  // -1 for fixed bodies
  // Contact parameters of every material pair (Scene::PairParameters),
  // combined once: pair_parameters_[m_a * materials + m_b].
  std::vector<ContactParameters> pair_parameters_;
  std::vector<int> body_of_tree_;
  CollisionDetector collision_;
  SapSolver sap_;
  double time_{0.0};
  int steps_{0};
  // Per step (reused).
  std::vector<Pose> poses_;
  std::vector<double> motion_bounds_;
  std::vector<ContactPoint> contacts_;
  SapProblem problem_;
  Eigen::VectorXd guess_, impulses_;
  SapSolverResults sap_results_;
};

/// SAP solver settings from a scene's `solver:` section.
SapSolverParameters MakeSapParameters(const SolverSettings& settings);

}  // namespace sapcontact
