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
//      next velocities, warm-started from the current ones or their
//      linear extrapolation 2 v_n - v_(n-1) (docs/theory.md §7);
//   4. positions are integrated with the new velocities (symplectic Euler;
//      quaternions renormalized).
// Fixed bodies are the world; prescribed bodies move with their given
// velocities (contacts with them see those, through Contact::bias_velocity).
// Robots (docs/robots.md) are one tree each, after the free bodies' trees:
// A = M(q) + dt D and v* from the variational (discrete Euler-Lagrange)
// step of docs/theory.md §17 (momentum carried between steps; gravity,
// Coriolis and centrifugal forces); their joint limits, URDF mimic
// couplings and PD actuation enter the SAP problem as constraints
// (docs/theory.md §17); positions advance by IntegratePositions. Contact
// signs and ordering: contact_model/conventions.h; scenes: sim/scene/scene.h.
#pragma once

#include <Eigen/Cholesky>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/collision/collision.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/step_derivatives.h"
#include "sapcontact/solver/sap/disjoint_sets.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

struct StepDerivativeWork;  // step_derivative_work.h

/// State of one body: pose, and velocities in the world frame.
struct BodyState {
  Pose pose;
  Vector3 velocity{Vector3::Zero()};          ///< of the centre of mass [m/s]
  Vector3 angular_velocity{Vector3::Zero()};  ///< [rad/s]
};

/// State of one robot: generalized positions and velocities of its tree
/// (multibody/multibody_tree.h).
struct RobotState {
  Eigen::VectorXd q;
  Eigen::VectorXd v;
};

/// Slip speed above which a pushing contact counts as sliding for
/// StepInfo::max_hover [m/s].
inline constexpr double kHoverSlipSpeed = 1e-3;

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
  /// Gliding, the convex relaxation's artifact (docs/theory.md §10, §18):
  /// the largest signed distance at the end of the step phi0 + dt v_n [m]
  /// over the contacts that push (gamma_n > 0) while sliding (slip speed
  /// |v_t| > kHoverSlipSpeed at the end of the step): a gap across which a
  /// sliding contact pushes the bodies apart. 0 if there is none (a sliding
  /// contact in penetration does not hover). Both solver models.
  /// hover_contact: that contact's index in last_contacts(), or -1.
  double max_hover{0.0};
  int hover_contact{-1};
  double collision_time{0.0};  ///< [s]
  double solver_time{0.0};     ///< [s] (problem build + solve)
  /// Elastic energy sum 1/2 k_eff phi0^2 over penetrating contacts at the
  /// start of the step, with k_eff the solver's effective normal stiffness
  /// of the contact (SapSolverResults::effective_stiffness: = k in the
  /// compliant regime, the near-rigid floor's stiffness beyond it) [J]. SAP
  /// model only.
  double elastic_energy{0.0};
  /// Bodies asleep at the end of the step (solver.sleep; 0 without it).
  int sleeping_bodies{0};
  /// The solver's work (SAP model; SapSolverStatistics, docs/theory.md §8):
  /// the contact graph's islands and the largest one's velocities; the
  /// contacts by kind, penetrating (phi0 < 0) and speculative (phi0 >= 0),
  /// and the speculative ones left out of the graph (no impulse); numeric
  /// factorizations, low-rank updates of a kept factorization and
  /// line-search evaluations, summed over the islands.
  struct SolverCounters {
    int islands{0};
    int largest_island_velocities{0};
    int penetrating_contacts{0};
    int speculative_contacts{0};
    int excluded_contacts{0};
    int factorizations{0};
    int low_rank_updates{0};
    int line_search_evaluations{0};
  };
  SolverCounters counters;
};

/// A step that cannot go on: collision detection or the contact solver
/// rejected the step's data, a collision limit was exceeded
/// (CollisionLimitError, docs/scenes.md "Limits"), or the new state is not
/// finite. what() names the step and the body or contact:
///   "step 12 (t = 0.011 s to 0.012 s): contact 3 between bodies 'ground'
///    and 'box': invalid Delassus estimate w = inf"
///   "step 40 (t = 0.039 s to 0.04 s): body 'box': velocity is not finite
///    after the contact solve (status: ...)"
class SimulationError : public std::runtime_error {
 public:
  SimulationError(int step, const std::string& what)
      : std::runtime_error(what), step_(step) {}
  /// The step that failed (1-based).
  int step() const { return step_; }
  /// Whether a collision limit was exceeded (CollisionLimitError) rather
  /// than the numbers going bad.
  bool limit_exceeded() const { return limit_exceeded_; }
  void set_limit_exceeded(bool v) { limit_exceeded_ = v; }

 private:
  int step_;
  bool limit_exceeded_{false};
};

/// A spatial velocity in the world frame: the linear velocity of a point
/// (a link frame's origin) and the angular velocity.
struct SpatialVelocity {
  Vector3 linear{Vector3::Zero()};   ///< [m/s]
  Vector3 angular{Vector3::Zero()};  ///< [rad/s]
};

/// A force and a torque (world frame unless said otherwise).
struct Wrench {
  Vector3 force{Vector3::Zero()};   ///< [N]
  Vector3 torque{Vector3::Zero()};  ///< [N m]
};

/// The frame in which TimeStepper::ApplyWrench's force and torque are
/// expressed: the world's axes, or the target body's (link's) axes, which
/// turn with it.
enum class WrenchFrame { kWorld, kBody };

/// One contact of the last step (TimeStepper::Contacts), with the signs and
/// frames of contacts.csv (docs/output.md, contact_model/conventions.h).
struct ContactReport {
  /// The two bodies: a body name, or "<robot>/<link>" for a robot link's
  /// geometry. When one of the two is part of the world (fixed), it is A.
  std::string body_a, body_b;
  /// Their collider indices (TimeStepper::ColliderName: the geometry's
  /// name, "arm/link3/0" for a link geometry).
  int collider_a{-1}, collider_b{-1};
  /// World point [m] (midway between the surfaces), unit normal from A into
  /// B, at the start of the step.
  Vector3 point{Vector3::Zero()};
  Vector3 normal{Vector3::UnitZ()};
  /// The step's contact impulse on B, world frame [N s] (A receives its
  /// negative); impulse / dt is the mean contact force over the step.
  Vector3 impulse{Vector3::Zero()};
  double phi{0.0};         ///< signed distance at the start of the step [m]
  double slip_speed{0.0};  ///< |tangential contact velocity| at its end [m/s]
};

/// The controller API (docs/embedding.md): besides Step(), a controller
/// reads joint, link and contact data and sets targets, torques and
/// wrenches by name. Names resolve with FindBody, FindRobot, FindJoint and
/// FindLink, which throw std::invalid_argument listing the nearest
/// candidates (NearestNames, sim/scene/nearest_names.h). Everything set
/// here is held for every following step until replaced or cleared.
class TimeStepper {
 public:
  /// @throws std::invalid_argument on a scene outside the limits of
  /// ValidateScene (sim/scene/scene.h) or settings the solver rejects.
  explicit TimeStepper(const Scene& scene);

  const Scene& scene() const { return scene_; }
  double time() const { return step_.time; }
  int steps_taken() const { return step_.steps; }
  const std::vector<BodyState>& state() const { return step_.state; }
  /// Robots' states, in scene order.
  const std::vector<RobotState>& robot_states() const {
    return step_.robot_state;
  }
  /// Replaces robot r's state. @throws std::invalid_argument on a wrong
  /// robot index or vector sizes.
  void SetRobotState(int r, const RobotState& state);
  /// World poses of robot r's links at the current state.
  std::vector<Eigen::Isometry3d> LinkPoses(int r) const;
  /// Number of collision objects (bodies, then robot link geometries), and
  /// the name of one: "box" or "arm/link3/0".
  int num_colliders() const {
    return static_cast<int>(layout_.collider_name.size());
  }
  const std::string& ColliderName(int i) const {
    return layout_.collider_name[i];
  }
  /// Robot r's actuation efforts of the last step [N m or N] (one per
  /// RobotSpec::actuation entry, dt times nothing: the impulse / dt).
  const Eigen::VectorXd& ActuationEfforts(int r) const {
    return last_.robot_efforts[r];
  }
  /// Replaces the state (e.g. to restart from a saved one); one entry per
  /// scene body, fixed bodies unchanged. The values are not checked here:
  /// the next Step() throws SimulationError if they cannot be stepped.
  /// @throws std::invalid_argument on a wrong size.
  void SetState(const std::vector<BodyState>& state);

  /// A force [N] and torque [N m] (world frame, the force through the
  /// centre of mass) on free body `body` (index into scene().bodies), held
  /// during every following step until replaced; it enters v* like the
  /// scene's external forces. For callers that drive a simulation step by
  /// step (a Python controller). @throws std::invalid_argument on a body
  /// that does not move (fixed or out of range) or non-finite values.
  void SetAppliedWrench(int body, const Vector3& force, const Vector3& torque);
  /// Generalized forces [N m or N per DOF] on robot r's coordinates (its
  /// tree's velocity order), added to the step's generalized forces during
  /// every following step until replaced. @throws std::invalid_argument on
  /// a wrong robot index or size, or non-finite values.
  void SetAppliedGeneralizedForces(int r, const Eigen::VectorXd& tau);
  /// Removes every applied wrench, generalized force and joint torque
  /// (SetAppliedWrench, ApplyWrench, SetAppliedGeneralizedForces,
  /// SetJointTorque); actuation targets stay (ClearActuationTargets).
  void ClearAppliedForces();

  // ---- Controller API (names; docs/embedding.md) ----

  /// Index of the body named `name` in scene().bodies (fixed bodies
  /// included). @throws std::invalid_argument "no body named 'blok' (nearest:
  /// block, ...)".
  int FindBody(const std::string& name) const;
  /// Index of the robot named `name` in scene().robots. @throws
  /// std::invalid_argument listing the nearest robot names.
  int FindRobot(const std::string& name) const;
  /// Robot r's joints that have one degree of freedom (revolute, prismatic)
  /// in tree order: the order of JointPositions, JointVelocities and
  /// JointEfforts. Fixed joints and a floating base are not listed (a
  /// floating base's state is in robot_states()[r], its first 7 q and 6 v).
  /// @throws std::invalid_argument on a wrong robot index.
  std::vector<std::string> JointNames(int r) const;
  /// Position of joint `joint` in JointNames(r). @throws
  /// std::invalid_argument listing the nearest joint names.
  int FindJoint(int r, const std::string& joint) const;
  /// Per joint of JointNames(r): position [rad or m], velocity [rad/s or
  /// m/s] at the current state.
  Eigen::VectorXd JointPositions(int r) const;
  Eigen::VectorXd JointVelocities(int r) const;
  /// Per joint of JointNames(r): the effort [N m or N] the joint received
  /// during the last step: its PD actuation effort (ActuationEfforts) plus
  /// the generalized force applied to it by SetJointTorque,
  /// SetAppliedGeneralizedForces and its motors (SetControls); 0 for a
  /// joint without any. Wrenches
  /// on links (ApplyWrench) and contacts are not included.
  Eigen::VectorXd JointEfforts(int r) const;

  /// Robot r's links in tree order (every link, fixed ones included).
  std::vector<std::string> LinkNames(int r) const;
  /// Index of link `link` in LinkNames(r) (its tree index). @throws
  /// std::invalid_argument listing the nearest link names.
  int FindLink(int r, const std::string& link) const;
  /// World pose X_WL of the link frame at the current state.
  Eigen::Isometry3d LinkPose(int r, const std::string& link) const;
  /// The link frame's spatial velocity at the current state: linear
  /// velocity of its origin and angular velocity, world frame.
  SpatialVelocity LinkVelocity(int r, const std::string& link) const;
  /// 6 x nv Jacobian (nv: robot r's velocities, robot_states()[r].v order)
  /// of the point `point_in_link` [m, link frame] fixed on the link: rows
  /// 0-2 map v to the point's world linear velocity, rows 3-5 to the link's
  /// world angular velocity. J' (f, tau) is the generalized force of a
  /// wrench (world frame, torque about that point) applied there.
  Eigen::MatrixXd LinkJacobian(
      int r, const std::string& link,
      const Vector3& point_in_link = Vector3::Zero()) const;

  /// Replaces the state of body `body` (index in scene().bodies: pose of
  /// the centre of mass, world-frame velocities). @throws
  /// std::invalid_argument on a wrong index, a fixed or prescribed body, or
  /// non-finite values (the orientation is normalized).
  void SetBodyState(int body, const BodyState& state);

  /// Overrides the PD targets of robot r's actuated joint `joint` (YAML
  /// robots[i].actuation.<joint>) from the next step on, until
  /// ClearActuationTargets(r): position [rad or m], velocity [rad/s or
  /// m/s], feed-forward effort [N m or N]; the gains and effort limit stay
  /// the scene's. @throws std::invalid_argument on a wrong robot, a joint
  /// that does not exist or has no actuation (the message lists the
  /// actuated joints), or non-finite values.
  void SetActuationTarget(int r, const std::string& joint, double position,
                          double velocity = 0.0, double feedforward = 0.0);
  /// Robot r's actuated joints go back to the scene's target functions.
  void ClearActuationTargets(int r);
  /// Implicit PD gains for robot r's 1-DOF joint `joint` (JointNames) from
  /// the next step on, stable for any gains (docs/robots.md, "Actuation at
  /// run time"): kp [N m/rad or N/m], kd [N m s/rad or N s/m], finite,
  /// >= 0, kp + kd > 0. A joint without actuation gains one
  /// (scene().robots[r].actuation grows): it holds its current position
  /// (velocity target 0, no feed-forward) until SetActuationTarget(s), its
  /// effort limit the URDF's. @throws std::invalid_argument on a wrong
  /// robot or joint (the nearest names), a mimic follower (actuate its
  /// leader), or bad gains.
  void SetActuationGains(int r, const std::string& joint, double kp, double kd);
  /// The same for every joint of JointNames(r) at once: kp and kd with one
  /// entry per joint (mimic followers' entries ignored); every entry is
  /// checked before any is set.
  void SetActuationGains(int r, const Eigen::VectorXd& kp,
                         const Eigen::VectorXd& kd);
  /// Position targets q [rad or m] and velocity targets v [rad/s or m/s]
  /// (nullptr: 0) for every joint of JointNames(r) at once (mimic
  /// followers' entries ignored), as SetActuationTarget per joint (the
  /// feed-forward of an earlier override stays, else 0). Every other joint
  /// must be actuated. @throws std::invalid_argument on a wrong size,
  /// non-finite values, or a joint without actuation.
  void SetActuationTargets(int r, const Eigen::VectorXd& q,
                           const Eigen::VectorXd* v = nullptr);
  /// A generalized force tau [N m or N] on robot r's 1-DOF joint `joint`
  /// (JointNames), added to the step's forces from the next step on until
  /// replaced or ClearAppliedForces(); independent of (added to)
  /// SetAppliedGeneralizedForces. @throws std::invalid_argument on a wrong
  /// robot or joint name, or a non-finite tau.
  void SetJointTorque(int r, const std::string& joint, double tau);
  /// SetJointTorque for each entry; checks every name before setting any.
  void SetJointTorques(int r, const std::map<std::string, double>& torques);

  /// The controls of robot r's actuators (RobotDescription::actuators, an
  /// MJCF file's motors and servos, in their order), held from the next
  /// step on until replaced. A motor k adds gear_k * f_k to its joint's
  /// generalized force, f_k = u_k clamped to its control range, then to its
  /// force range; a position (velocity) servo sets its joint's implicit PD
  /// target to u_k / gear_k, u_k clamped to its control range (a joint's
  /// SetActuationTarget overrides it). Zero at the start.
  /// @throws std::invalid_argument on a bad robot index, a size other than
  /// the robot's actuator count, or a non-finite entry.
  void SetControls(int r, const Eigen::VectorXd& u);
  /// The controls last set (zeros at the start).
  const Eigen::VectorXd& Controls(int r) const;
  /// The names of robot r's actuators, in control order.
  std::vector<std::string> ActuatorNames(int r) const;

  /// A wrench on `target`, a body name or "<robot>/<link>", held for every
  /// following step until replaced (the same target again) or
  /// ClearAppliedForces(). `point` [m] is in the target's frame: from the
  /// centre of mass in the body's axes, or in the link frame; `frame` says
  /// in which axes force [N] and torque [N m] are given (kBody: they turn
  /// with the target). The torque is about `point`; the body receives the
  /// force at the point, i.e. the torque plus r x f about its centre of
  /// mass. A link receives the generalized force J' (f, tau) with J the
  /// LinkJacobian at the point. Replaces SetAppliedWrench of that body.
  /// @throws std::invalid_argument on an unknown name (nearest candidates
  /// listed), a body that does not move (fixed or prescribed), a link of a
  /// robot without degrees of freedom, or non-finite values.
  void ApplyWrench(const std::string& target, const Vector3& force,
                   const Vector3& torque,
                   const Vector3& point = Vector3::Zero(),
                   WrenchFrame frame = WrenchFrame::kWorld);

  /// The contacts of the last step with their impulses (empty before the
  /// first step), in last_contacts() order.
  std::vector<ContactReport> Contacts() const;
  /// The total contact force [N] (impulses / dt) on a body or on a robot
  /// link "<robot>/<link>" (all of its geometries) over the last step, and
  /// its torque [N m] about the body's centre of mass (a link: its frame
  /// origin) at the start of the step, world frame. Zero without contacts.
  /// @throws std::invalid_argument on an unknown name.
  Wrench ContactWrench(const std::string& body_or_link) const;

  // ---- Sleeping islands (solver.sleep; docs/scenes.md "Sleeping") ----

  /// Whether free body `body` (index in scene().bodies) is asleep: frozen
  /// at rest, out of collision detection and the contact problem. False
  /// for fixed bodies and without solver.sleep.
  bool IsAsleep(int body) const;
  /// Number of sleeping bodies.
  int num_sleeping() const { return sleep_.num_sleeping; }
  /// Wakes the island of body `body` (every body that fell asleep with it)
  /// for the next step; nothing if it is awake. Forces applied with
  /// SetAppliedWrench / ApplyWrench and new states (SetBodyState,
  /// SetState) wake their bodies by themselves. @throws
  /// std::invalid_argument on an index out of range.
  void WakeUp(int body);
  /// The tree of body `body` in last_problem() (the free bodies that were
  /// awake in the last step, in scene order, then the robots), or -1 (a
  /// fixed or sleeping body).
  int ProblemTree(int body) const;

  /// Advances one time step. Solver non-convergence is reported in
  /// StepInfo (the step goes on); anything that makes going on meaningless
  /// throws SimulationError (the state is then not advanced further).
  StepInfo Step();

  /// Sets the size of the steps from now on [s] (the scene's time_step
  /// until then; an error-controlled integrator varies it, docs/theory.md
  /// §22). @throws std::invalid_argument unless finite and within the
  /// time_step limits of docs/scenes.md.
  void SetTimeStep(double dt);

  /// Everything Step() reads and writes and keeps for the next step: the
  /// states, the last step's results, the warm start, the sleeping islands
  /// and the limit watch (not the controller inputs, which stay as set).
  /// Restore(Save()) takes steps back bitwise: an integrator tries a step
  /// and takes it back (sim/stepping/error_controlled_integrator.h).
  struct Snapshot;
  void Save(Snapshot* snapshot) const;
  void Restore(const Snapshot& snapshot);

  /// The generalized velocities the last step ended with, stacked in the
  /// order of last_problem()'s trees.
  const Eigen::VectorXd& last_velocities() const { return last_.v_next; }
  /// One more warm-start candidate for the next step's contact solve only
  /// (SAP model; velocities stacked as last_velocities(); ignored when the
  /// size differs): the solve starts from the lowest-cost candidate
  /// (docs/theory.md §7). An error-controlled integrator passes its full
  /// step's velocities to its half steps.
  void SetWarmStartHint(const Eigen::VectorXd& v);

  /// The derivatives of the next Step() from the current state with
  /// respect to the state and applied generalized forces
  /// (sim/stepping/step_derivatives.h, docs/theory.md §21). Changes nothing
  /// (state, last_problem(), Contacts() stay as they were). SAP model only.
  /// @throws std::invalid_argument with the rigid-QP model or sleeping
  ///         bodies; SimulationError if the step cannot be taken. The
  ///         contacts move in closed form from their features; where a
  ///         differenced contact's set changes within a coordinate's
  ///         central difference (the step is not differentiable there) the
  ///         column is one-sided or holds the contacts
  ///         (StepDerivatives::differenced_contacts, one_sided,
  ///         held_contacts).
  StepDerivatives CalcStepDerivatives(
      const StepDerivativeOptions& options = {});

  /// "body 'box'" style labels for messages (index into scene().bodies, or
  /// a collider index >= the body count: "link 'arm/link3'").
  std::string BodyLabel(int body) const;

  /// Kinetic energy sum 1/2 m |v|^2 + 1/2 w' I_world w, plus the robots'
  /// 1/2 v' M v [J].
  double KineticEnergy() const;
  /// Gravitational potential energy -sum m g . x (zero at the world
  /// origin), robots' links included [J].
  double PotentialEnergy() const;

  /// The contact problem and its impulses of the last step (for export and
  /// analysis).
  const SapProblem& last_problem() const { return last_.problem; }
  const std::vector<ContactPoint>& last_contacts() const {
    return last_.contacts;
  }
  const Eigen::VectorXd& last_impulses() const { return last_.impulses; }
  /// The SAP results of the last step (SAP model only; per-contact w, R_n,
  /// R_t, statistics).
  const SapSolverResults& last_sap_results() const { return last_.sap_results; }

 private:
  void BuildProblem();
  [[noreturn]] void Fail(const std::string& what) const;
  // "contact 3 between bodies 'a' and 'b'" for a contact of this step.
  std::string ContactLabel(int k) const;
  // Rewrites a solver message that starts with "contact K" or "tree T" to
  // name the bodies.
  std::string NameBodies(const std::string& message) const;

  // The phases of Step(), in order (the shape of MuJoCo's mj_step:
  // mj_fwdPosition, mj_collision, mj_fwdConstraint, then integration).
  // Prescribed bodies' velocities over the step, collider poses and motion
  // bounds at the start of the step (robot link geometries:
  // UpdateRobotColliderPoses, robot_stepping.cc).
  void UpdateColliderPoses();
  void UpdateRobotColliderPoses();
  // Collision detection into last_.contacts; contacts and max penetration.
  void Collide(StepInfo* info);
  // BuildProblem, then SAP or the rigid QP into last_.v_next and
  // last_.impulses.
  void SolveContacts(StepInfo* info);
  void SolveSap(StepInfo* info);
  void SolveRigidQp(StepInfo* info);
  // Throws SimulationError naming the first body whose new velocity is not
  // finite.
  void CheckVelocities(const StepInfo& info) const;
  // StepInfo::max_hover and hover_contact from last_.v_next and last_.impulses.
  void MeasureGliding(StepInfo* info) const;
  // Symplectic Euler with last_.v_next: robots (their efforts too), then
  // prescribed and free bodies.
  void IntegrateRobots(const StepInfo& info);
  // After a robot's velocities are updated: its joints' velocities against
  // the URDF velocity limits and the explicit torques against the effort
  // limits (a warning in scene().warnings the first time each is passed).
  void CheckJointLimits(int r);
  // " (robot 'x' diverged: joint 'j' has been past its URDF velocity limit
  // of L rad/s since step N, now at V rad/s)", or "" when no joint of
  // robot r is past its limit.
  std::string DivergenceNote(int r) const;
  void IntegrateBodies();

  // Sleeping islands (sleeping.cc). Before collision: wake islands that a
  // force touches, remap the problem's trees when the sleeping set changed
  // and tell the collision detector which bodies rest. After a collision
  // that reports a contact with a sleeping body: wake its island and
  // collide again (true if anything woke). After the step: put still
  // islands to sleep.
  void PrepareSleep();
  bool WakeTouchedIslands();
  void UpdateSleep(StepInfo* info);
  void WakeIsland(int body);
  void WakeAll();
  void RemapTrees();
  void UpdateResting();

  // Step derivatives (step_derivatives.cc): the state a step reads and
  // writes (step_ and last_, whole), saved and restored around the
  // perturbed problems; the step's problem at the current (perturbed)
  // state; the saved state with coordinate i of x moved by e (i < nv:
  // configuration tangent, else velocity).
  struct SavedStep;
  SavedStep SaveStep() const;
  // with_problem false: step_ only (last_ keeps the problem being built).
  void RestoreStep(const SavedStep& saved, bool with_problem = true);
  const SapProblem& ProblemAtCurrentState();
  void Perturb(const SavedStep& saved, int nv, int i, double e);
  // The two methods, from the nominal problem and solve in w: the implicit
  // one (step_derivatives_implicit.cc) and central differences of whole
  // steps (step_derivatives_fd.cc; at_start: the state with the nominal
  // problem built). They fill A, B, B_targets and the solve's regions.
  void ImplicitStepDerivatives(StepDerivativeWork* w, const SavedStep& saved,
                               StepDerivatives* result);
  void DifferencedStepDerivatives(StepDerivativeWork* w, const SavedStep& saved,
                                  const SavedStep& at_start,
                                  StepDerivatives* result);
  // w's solver on p from guess; Fail unless it converges.
  SapSolverResults SolveConverged(StepDerivativeWork* w, const SapProblem& p,
                                  const Eigen::VectorXd* guess) const;
  // d v* / d v_i for velocity coordinate i (0 .. nv - 1) at the current
  // state by central differences of the free motion alone (with the
  // robots' carried momentum moving with v through M_prev, the mass
  // matrices it was carried with): the velocities move nothing else of
  // the problem but the contacts' v_n0.
  // A_llt: the factorization of the robot tree's A (unused for a body).
  Eigen::VectorXd FreeVelocityRate(int i, double h,
                                   const std::vector<Eigen::MatrixXd>& M_prev,
                                   const Eigen::LLT<Eigen::MatrixXd>& A_llt);

  // Robots (robot_stepping.cc).
  void CheckRobot(int r, const char* who) const;
  // Robot r's actuation entry of joint (tree index) j, -1 if none; whether
  // j follows another joint (URDF <mimic>).
  int ActuationIndex(int r, int j) const;
  bool IsMimicFollower(int r, int j) const;
  // The body or link of an ApplyWrench / ContactWrench name: *body >= 0 for
  // a body, else *robot and *link.
  void ResolveTarget(const std::string& name, const char* who, int* body,
                     int* robot, int* link) const;
  void SetUpRobots();
  void AddRobotProblem(int r);
  // k(q, v) = Mdot(q, v) v - c_C(q, v) of robot r at its configuration and
  // the velocities v: the velocity-dependent generalized forces of the
  // variational step (docs/theory.md §17; CalcMassRateForces).
  Eigen::VectorXd RobotVelocityForces(int r, const Eigen::VectorXd& v);
  // Adds robot r's motor forces at its current controls (gear * u, u
  // clamped to the control and force ranges) to tau (nv).
  void AddMotorForces(int r, Eigen::VectorXd* tau) const;
  // The tree and 3 x n Jacobian block of collider `c` at world point p,
  // rows in the contact frame, times sign; false if it is part of the world.
  bool ColliderJacobian(int c, const Matrix3& rows, const Vector3& p,
                        double sign, int* tree, Eigen::MatrixXd* J);
  // World velocity of collider c's material point at p when it is part of
  // the world (prescribed motion, surface velocity; zero if fixed).
  Vector3 WorldPointVelocity(int c, const Vector3& p, const Vector3& n) const;
  int MaterialOfCollider(int c) const;

  Scene scene_;
  CollisionDetector collision_;
  SapSolver sap_;

  // The problem's trees and their owners, the colliders beyond the bodies
  // and the material pairs: set up from the scene (SetUpRobots) and, for
  // the trees, remapped when the sleeping set changes (RemapTrees).
  struct Layout {
    // Per robot its tree (-1 without DOFs); per tree beyond the bodies'
    // its robot.
    std::vector<int> tree_of_robot, robot_of_tree;
    // Per body its tree (-1 for fixed or sleeping bodies); per body tree
    // its body.
    std::vector<int> tree_of_body, body_of_tree;
    // Offset of each tree's velocities in the stacked vector.
    std::vector<int> tree_offsets;
    std::vector<int> free_bodies;  // the non-fixed bodies, scene order
    // Per robot: the tree joints of JointNames, and its index in
    // last_.problem.actuation (-1 if none).
    std::vector<std::vector<int>> joints_of_robot;
    std::vector<int> actuation_of_robot;
    // Per collider beyond the bodies: its robot, link and geometry; per
    // collider its name.
    std::vector<int> collider_robot, collider_link, collider_geometry;
    std::vector<std::string> collider_name;
    // Contact parameters of every material pair (Scene::PairParameters),
    // combined once: pair_parameters[m_a * materials + m_b].
    std::vector<ContactParameters> pair_parameters;
  };
  Layout layout_;

  // The state a step advances: everything the step's problem is built
  // from. SaveStep/RestoreStep copy it whole.
  struct StepState {
    std::vector<BodyState> state;         // per body
    std::vector<RobotState> robot_state;  // per robot
    // Per robot: link poses at its configuration, and at the start of the
    // last step (ContactWrench).
    std::vector<std::vector<Eigen::Isometry3d>> link_poses, step_link_poses;
    // Per robot: M(q_k) of the step, the momentum p_k = M(q_(k-1)) v_k and
    // the velocities of the previous step (docs/theory.md §17).
    std::vector<Eigen::MatrixXd> robot_M;
    std::vector<Eigen::VectorXd> robot_momentum, robot_previous_v;
    // The velocities at the start of the step, stacked by tree.
    Eigen::VectorXd guess;
    double time{0.0};  // [s]
    int steps{0};
  };
  StepState step_;

  // What the last step found and solved: its collider poses and motion
  // bounds at the start of the step, contacts, problem, impulses, new
  // velocities and solver results, and the robots' actuation efforts.
  // Read by the accessors and the contact reports; saved and restored
  // whole with StepState.
  struct StepResults {
    std::vector<Pose> poses;  // per collider
    std::vector<double> motion_bounds;
    std::vector<ContactPoint> contacts;
    SapProblem problem;
    Eigen::VectorXd impulses, v_next;
    SapSolverResults sap_results;
    std::vector<Eigen::VectorXd> robot_efforts;  // per robot actuation row
  };
  StepResults last_;

  // Everything a step reads and writes that it keeps between steps
  // (SaveStep, RestoreStep).
  struct SavedStep {
    StepState step;
    StepResults last;
  };

  // Warm start (docs/theory.md §7): the velocities at the start of the
  // previous step, and the linear extrapolation 2 v_n - v_(n-1); SAP starts
  // each island from the lowest-cost of the extrapolation, v_n and v*.
  // With varying steps (SetTimeStep) the extrapolation is v_n + (dt_n /
  // dt_(n-1)) (v_n - v_(n-1)); SetWarmStartHint adds one candidate for the
  // next solve only.
  struct WarmStart {
    Eigen::VectorXd previous_guess, extrapolated_guess, hint;
    bool have_previous_guess{false};
    bool have_hint{false};
    double previous_dt{0.0};
    std::vector<const Eigen::VectorXd*> candidates;
  };
  WarmStart warm_start_;

  // Controller inputs. SetAppliedWrench / SetAppliedGeneralizedForces: per
  // body (zero when none), per robot (empty when none); ApplyWrench adds,
  // per body, the point (body frame) and the frame. Per robot: joint
  // torques (nv, zero when none); link wrenches (ApplyWrench); actuation
  // target overrides (one per RobotSpec::actuation entry).
  struct LinkWrench {
    int link{-1};
    Vector3 force{Vector3::Zero()}, torque{Vector3::Zero()};
    Vector3 point{Vector3::Zero()};
    WrenchFrame frame{WrenchFrame::kWorld};
  };
  struct ActuationOverride {
    bool active{false};
    double position{0.0}, velocity{0.0}, feedforward{0.0};
  };
  struct ControllerInputs {
    std::vector<Vector3> applied_force, applied_torque, applied_point;
    std::vector<WrenchFrame> applied_frame;
    std::vector<Eigen::VectorXd> applied_tau;
    std::vector<Eigen::VectorXd> joint_torque;
    /// Per robot, per RobotDescription::actuators entry (SetControls).
    std::vector<Eigen::VectorXd> controls;
    std::vector<std::vector<LinkWrench>> link_wrenches;
    std::vector<std::vector<ActuationOverride>> actuation_override;
  };
  ControllerInputs inputs_;

  // Per robot and joint (layout_.joints_of_robot order): the step since
  // which the joint has been past its URDF velocity limit (-1: within it),
  // and whether its velocity limit and its effort limit (by explicit
  // torques) were warned about (once each; docs/robots.md, "Limits").
  struct LimitWatch {
    std::vector<std::vector<int>> over_velocity_since;
    std::vector<std::vector<char>> velocity_warned, effort_warned;
  };
  LimitWatch limits_;

  // Sleeping islands, per body: how long it has been still [s], and -1
  // while awake or the island it fell asleep with (the index of one of its
  // bodies); per collider: resting (for CollisionDetector::SetResting).
  // trees_stale: the problem's trees do not match the sleeping set yet
  // (remapped at the start of the next step, so that last_problem() and
  // the results stay consistent in between).
  struct Sleep {
    std::vector<double> still_time;
    std::vector<int> sleep_island;
    std::vector<bool> resting;
    std::vector<double> bounding_radius;  // per body [m]
    DisjointSets island_sets;             // this step's islands of bodies
    std::vector<double> island_still;     // per island root: min still time
    int num_sleeping{0};
    bool trees_stale{false};
  };
  Sleep sleep_;

  // Scratch of the robots' step (reused).
  struct Scratch {
    Eigen::MatrixXd frame_J;
    std::vector<Eigen::Matrix<double, 6, 1>> link_velocities;
    Eigen::VectorXd bias, tau, spring, column, motor, coriolis;
  };
  Scratch scratch_;

 public:
  struct Snapshot {
   private:
    friend class TimeStepper;
    StepState step;
    StepResults last;
    WarmStart warm_start;
    Sleep sleep;
    LimitWatch limits;
    // The trees' layout changes only when islands fall asleep or wake.
    Layout layout;
    double time_step{0.0};
  };
};

/// A rough upper estimate of the memory the rigid-contact QP needs for
/// these contacts [bytes]: with n = 3 nc variables and nnz(W) <= 9 sum over
/// bodies of (contacts touching the body)^2, four dense n x n matrices
/// when W is dense or nearly so (more than 5% nonzeros: the sparse
/// factor then fills in too; or n < 300), else ten times nnz(W) doubles
/// (a sparse factor with fill).
double EstimateRigidQpBytes(const std::vector<ContactPoint>& contacts,
                            int num_bodies, const std::vector<bool>& fixed);

/// A free body's pose after a step of symplectic Euler with its new
/// velocities v [m/s] and w [rad/s] (world frame): position + dt v,
/// orientation turned by exp(dt w) about world axes, renormalized.
Pose AdvancePose(const Pose& pose, const Vector3& v, const Vector3& w,
                 double dt);

/// SAP solver settings from a scene's `solver:` section.
SapSolverParameters MakeSapParameters(const SolverSettings& settings);

}  // namespace sapcontact
