// Named metrics of a simulation run and the analytic estimates (docs/theory.md
// §9, contact_model/regime_estimates.h) beside which parameter studies draw
// them. MetricsAccumulator is pure arithmetic on per-step samples
// (StepSample), so the definitions can be checked on synthetic runs;
// MetricsRecorder (studies/metrics_recorder.h) fills the samples from a
// TimeStepper. Signs and ordering of contact quantities:
// contact_model/conventions.h. SI units.
//
// The measurement window is the last ceil(window_fraction * steps) steps
// (at least one; window_fraction = 0.1 by default) of the run.
//
// Metrics (an undefined value is NaN, written as an empty CSV cell):
//   max_penetration_m [m]       max over all steps of the step's max(-phi0, 0)
//                               over its contacts (phi0: start of step).
//   resting_penetration_m [m]   mean over the window of that per-step max.
//   stiction_slip_speed_mps [m/s]  mean over the window of the mean, over the
//                               step's active contacts (gamma_n > 0), of the
//                               tangential contact speed ||v_c,t|| after the
//                               step: the creep of bodies that should stick
//                               (meaningful when the scene should be at rest
//                               by the window). NaN if no active contact.
//   mean_newton_iterations, max_newton_iterations [-]  over all steps (SAP:
//                               Newton iterations = factorizations; rigid
//                               model: interior-point iterations).
//   us_per_step [us]            mean wall time of collision + contact solve
//                               per step (not the metrics' own work).
//   hessian_condition_estimate [-]  max over the steps that factored the SAP
//                               Hessian of 1 / (reciprocal condition estimate
//                               of the last factorization of the step): the
//                               dense path (Eigen LLT::rcond) estimates
//                               1 / (||H||_1 ||H^-1||_1), the CHOLMOD path
//                               (cholmod_rcond) gives (min diag L / max diag
//                               L)^2, a cruder, usually optimistic estimate.
//                               NaN if no step factored (warm start already
//                               optimal everywhere, or rigid model).
//   energy_drift [J]            E(last step) - E(first step), E = kinetic +
//                               gravitational + elastic energy at the start
//                               of a step (as in SimulationSummary); negative
//                               means dissipated.
//   hover_height_m [m]          "gliding" (docs/theory.md §10): mean over the
//                               sliding steps (some active contact with
//                               ||v_c,t|| > sliding_speed_mps) of the mean
//                               phi0 of those sliding active contacts
//                               (positive: the body is held above the
//                               ground). NaN if no sliding step.
//   rigid_qp_impulse_distance [-]   (expensive: solves the rigid QP of every
//   rigid_qp_velocity_distance [-]  step) mean over the steps with contacts
//                               of ||gamma_SAP - gamma_QP|| / ||gamma_QP|| and
//                               of ||v_SAP - v_QP|| / ||v* - v_QP|| (2-norms;
//                               the velocity change due to contact as the
//                               scale), the rigid QP
//                               (solver/rigid_qp/rigid_qp_solver.h) solved on
//                               the same step problem. Steps where the QP fails
//                               are skipped and counted in
//                               rigid_qp_failed_steps.
//   cold_start_newton_iterations [-]  (expensive: a second SAP solve per
//                               step) mean over the steps with contacts of
//                               the Newton iterations SAP needs on the same
//                               step problem started from v* instead of the
//                               previous velocities (the stepper warm-starts,
//                               which at rest makes most steps 0 iterations).
//   restitution [-]             first impact of the first moving body of the
//                               scene (the probe): the impact starts at the
//                               first step where an active contact touches
//                               it, with normal n (that contact's, into the
//                               probe) and impact speed v_i = -n . v (v at
//                               the start of that step); it ends at the
//                               first later step without an active contact
//                               (separation), with rebound speed v_r = n . v
//                               (v at the end of that step). restitution =
//                               v_r / v_i. NaN if there is no impact
//                               (v_i <= 0) or no separation. Use zero
//                               gravity (or a fast impact) so that gravity
//                               during the contact does not bias it.
//   body.NAME.position [m]      per-body metrics (BodyMetric): the position
//   body.NAME.velocity [m/s]    and the velocity of the centre of mass of
//                               the scene's body NAME (Scene::bodies) after
//                               the last step, world frame. Vector-valued:
//                               three values (sweep.csv columns)
//                               body.NAME.position.x, .y, .z;
//                               body.NAME.position.x (or .y, .z) asks for
//                               one component. NaN before any step.
//   joint.ROBOT.JOINT.position  per-joint metrics (JointMetric) of a robot's
//   joint.ROBOT.JOINT.velocity  revolute or prismatic joint JOINT after the
//   joint.ROBOT.JOINT.effort    last step: q [rad or m], v [rad/s or m/s],
//                               and the actuation effort of the last step
//                               [N m or N] (TimeStepper::ActuationEfforts;
//                               only for an actuated joint). With varied
//                               gains (robots.ROBOT.actuation.JOINT.kp) they
//                               show the PD's steady error and effort.
//                               NaN before any step.
//
// Estimates (always computed; NaN when undefined), for ONE body of mass M
// resting (or sliding) on the n active contacts of the last step, which
// share the load equally; g_n and g_t are the normal and tangential parts of
// gravity for the mean contact normal; w, R_n, R_t, k, tau_d, mu are means
// over those contacts (w, R_n, R_t: the SAP solver's own values of the last
// step; NaN for the rigid model):
//   estimate_resting_penetration_m  (M g_n / n) dt (dt + tau_d) R_n
//   estimate_compliant_penetration_m   M g_n / (n k)   (0 for k = inf)
//   estimate_near_rigid_penetration_m  (M g_n / n) dt (dt + tau_d)
//                                      beta^2 w / (4 pi^2)
//   estimate_crossover_stiffness_N_per_m  k with k dt (dt + tau_d) beta^2 w
//                                      = 4 pi^2
//   estimate_stiction_slip_mps      sap: R_t M g_t dt / n  (each contact
//                                   carries the friction impulse M g_t dt /
//                                   n); similar, lagged: eps r / sqrt(1 -
//                                   r^2), r = g_t / (mu g_n) < 1, eps =
//                                   max(v_s, mu R_t M g_n dt / n): the
//                                   regularized friction mu n0 v / sqrt(v^2
//                                   + eps^2) of every contact holds its
//                                   share (whatever the load distribution,
//                                   as the body translates rigidly)
//   estimate_stiction_slip_bound_mps   sigma mu |g| dt (SAP paper Eq. (31), the
//   point-mass
//                                   bound, with R_t <= sigma / m)
//   estimate_hover_height_m         mean over the sliding steps (as for
//                                   hover_height_m) of the mean over the
//                                   sliding contacts of their steady phi0
//                                   (v_n = 0; docs/theory.md §10, §18):
//                                     sap:     h = (dt + tau_d) mu ||v_t||
//                                              - delta where h <= 0, a
//                                              gap dt / (dt + tau_d) h
//                                              where h > 0 (§3)
//                                     similar: dt mu ||v_t|| - delta / (1 + d
//                                              mu ||v_t||)
//                                     lagged:  -delta
//                                   where delta = M g_n / (n k_eff) is the
//                                   resting penetration of the contact's
//                                   share of the load (n: the step's active
//                                   contacts; k_eff: the solver's effective
//                                   stiffness, delta = 0 without one). Both
//                                   gliding models close the cone with a
//                                   normal velocity: the impulse is the
//                                   resting one at v_n - mu ||v_t||. Lagged
//                                   friction is bounded by the previous
//                                   normal impulse and does not lift.
//   estimate_restitution            1 - (2/3) d v_i (Hunt-Crossley, small d
//                                   v_i; d of the impact contact), for the
//                                   impact of `restitution` with a similar
//                                   or lagged contact; NaN for sap.
//   estimate_restitution_exact      the same impact's restitution e of the
//                                   continuous Hunt-Crossley contact with a
//                                   linear spring, m x'' = -k x (1 + d x'):
//                                   u - ln(1 + u) is conserved along the
//                                   trajectory (u = d x'), so G(-e d v_i) =
//                                   G(d v_i), G(x) = x - ln(1 + x); for
//                                   small d v_i, e = 1 - (2/3) d v_i + O((d
//                                   v_i)^2). Time stepping loses a further
//                                   factor of about exp(-pi omega dt / 2),
//                                   omega = sqrt(k / m).
// and the inputs of the estimates at the last step: impact_speed_mps (v_i
// of `restitution`), impact_dissipation_speed (d v_i [-], similar and lagged
// impacts only), contact_count (n),
// supported_mass_kg (M), contact_stiffness_N_per_m (mean pair k, inf for
// rigid contact), contact_dissipation_time_scale_s, contact_delassus_
// estimate_per_kg (w), contact_R_n, contact_R_t [(m/s)/(N s) = s/kg].
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/conventions.h"

namespace sapcontact {

/// A named value of a run (NaN: undefined).
struct MetricValue {
  std::string name;
  double value{std::numeric_limits<double>::quiet_NaN()};
};

/// Definition of a metric: name, unit, one-line description.
struct MetricDefinition {
  std::string name;
  std::string unit;
  std::string description;
  /// Needs extra work per step (the rigid QP): only computed on request.
  bool expensive{false};
};

/// All metrics, in the order of the header comment.
const std::vector<MetricDefinition>& MetricDefinitions();
/// All estimates (same fields; never expensive).
const std::vector<MetricDefinition>& EstimateDefinitions();
/// The definition of a metric or estimate, or nullptr.
const MetricDefinition* FindMetricDefinition(const std::string& name);
/// Whether `name` is a metric: of MetricDefinitions() (not an estimate) or
/// a body or joint metric (ParseBodyMetric, ParseJointMetric; whether the
/// body or joint exists depends on the scene: CheckMetricNames in
/// studies/metrics_recorder.h).
bool IsMetricName(const std::string& name);
/// "" for a metric name (IsMetricName), else why it is not one: "unknown
/// metric (known: max_penetration_m, ..., body.NAME.position,
/// body.NAME.velocity, joint.ROBOT.JOINT.position, ...; docs/studies.md)",
/// or for a malformed "body...." or "joint...." name the form of a body
/// or joint metric.
std::string MetricNameProblem(const std::string& name);
/// The metrics computed when none are requested: all but the expensive ones.
std::vector<std::string> DefaultMetricNames();

/// A per-body metric, "body.NAME.position" or "body.NAME.velocity" with an
/// optional component ".x", ".y" or ".z" (header comment).
struct BodyMetric {
  enum class Quantity { kPosition, kVelocity };
  std::string body;  ///< NAME
  Quantity quantity{Quantity::kPosition};
  int component{-1};  ///< 0, 1, 2 for .x, .y, .z; -1: all three
};
/// Parses a body metric name; false if `name` is not one (NAME must not be
/// empty).
bool ParseBodyMetric(const std::string& name, BodyMetric* metric);
/// A per-joint metric of a robot, "joint.ROBOT.JOINT.position", ".velocity"
/// or ".effort" (header comment). ROBOT is up to the first '.', JOINT the
/// rest (URDF joint names may hold dots).
struct JointMetric {
  enum class Quantity { kPosition, kVelocity, kEffort };
  std::string robot;
  std::string joint;
  Quantity quantity{Quantity::kPosition};
};
/// Parses a joint metric name; false if `name` is not one (ROBOT and JOINT
/// must not be empty).
bool ParseJointMetric(const std::string& name, JointMetric* metric);

/// The names of the values a metric gives, which are its sweep.csv columns:
/// the name itself for a scalar metric, "<name>.x", "<name>.y", "<name>.z"
/// for a vector one (body.NAME.position, body.NAME.velocity).
std::vector<std::string> MetricColumns(const std::string& name);
/// MetricColumns of every name, in order.
std::vector<std::string> MetricColumns(const std::vector<std::string>& names);
/// The unit of a metric or estimate, or of a column of a metric ("m" for
/// body.NAME.position.x); "" if unknown.
std::string MetricUnit(const std::string& name);

/// One contact of one step.
struct ContactSample {
  double phi0{0.0};                   ///< start of step [m]
  Vector3 normal{Vector3::UnitZ()};   ///< world frame, A to B
  Vector3 impulse{Vector3::Zero()};   ///< gamma (n, t1, t2) [N s]
  Vector3 velocity{Vector3::Zero()};  ///< v_c after the step [m/s]
  ContactParameters parameters;       ///< k, tau_d, mu of the pair
  /// SAP's Delassus estimate w [1/kg] and R_n, R_t; NaN for the rigid model.
  double w{std::numeric_limits<double>::quiet_NaN()};
  double R_n{std::numeric_limits<double>::quiet_NaN()};
  double R_t{std::numeric_limits<double>::quiet_NaN()};
  /// Effective normal stiffness k_eff [N/m] of the step (after the
  /// near-rigid floor); NaN for the rigid model.
  double effective_stiffness{std::numeric_limits<double>::quiet_NaN()};
};

/// The first moving body of the scene in one step (restitution).
struct ProbeSample {
  bool valid{false};  ///< the scene has a moving body
  /// Velocity of its centre of mass at the start and at the end of the step.
  Vector3 velocity0{Vector3::Zero()};
  Vector3 velocity{Vector3::Zero()};
  /// Some active contact (gamma_n > 0) touches it this step.
  bool in_contact{false};
  /// Unit normal of its first active contact, pointing from the other body
  /// into it (world frame), and that contact's parameters.
  Vector3 normal{Vector3::UnitZ()};
  ContactParameters parameters;
};

/// One step.
struct StepSample {
  int newton_iterations{0};
  double max_penetration{0.0};  ///< max(-phi0, 0) over contacts [m]
  double step_time_s{0.0};      ///< collision + contact solve [s]
  /// Total energy at the start of the step [J].
  double energy{0.0};
  /// Reciprocal condition estimate of the step's last Hessian
  /// factorization; 0 when the step factored nothing.
  double reciprocal_condition{0.0};
  /// Total mass of the moving bodies touched by an active contact [kg].
  double supported_mass{0.0};
  std::vector<ContactSample> contacts;
  /// Rigid-QP comparison (NaN when not computed); qp_failed: it was
  /// attempted and the QP did not solve.
  double rigid_qp_impulse_distance{std::numeric_limits<double>::quiet_NaN()};
  double rigid_qp_velocity_distance{std::numeric_limits<double>::quiet_NaN()};
  bool rigid_qp_failed{false};
  /// Iterations of a SAP solve started from v* (-1: not computed).
  int cold_start_iterations{-1};
  ProbeSample probe;
};

/// Run constants the metrics and estimates need.
struct MetricsContext {
  double time_step{1e-3};  ///< dt [s]
  int total_steps{1};      ///< steps the run will take (for the window)
  Vector3 gravity{0.0, 0.0, -9.81};
  double near_rigid_threshold{1.0};      ///< beta
  double friction_regularization{1e-3};  ///< sigma
  /// Fraction of the run at its end over which resting quantities are
  /// averaged, in (0, 1].
  double window_fraction{0.1};
  /// Tangential contact speed above which a contact slides [m/s], > 0.
  double sliding_speed_mps{1e-3};
};

class MetricsAccumulator {
 public:
  /// @throws std::invalid_argument naming the field on a bad context.
  explicit MetricsAccumulator(const MetricsContext& context);

  /// Adds the next step.
  void Add(const StepSample& step);

  int steps() const { return steps_; }
  /// First step of the measurement window.
  int window_start() const { return window_start_; }

  /// Values of the named metrics (order kept). @throws std::invalid_argument
  /// for an unknown name, or a body metric (the accumulator sees no bodies:
  /// MetricsRecorder computes those).
  std::vector<MetricValue> Metrics(const std::vector<std::string>& names) const;
  /// All estimates, EstimateDefinitions() order.
  std::vector<MetricValue> Estimates() const;

 private:
  MetricsContext context_;
  int window_start_{0};
  int steps_{0};
  double max_penetration_{0.0};
  double window_penetration_sum_{0.0};
  double window_slip_sum_{0.0};
  int window_slip_steps_{0};
  double iterations_sum_{0.0};
  int iterations_max_{0};
  double step_time_sum_{0.0};
  double max_condition_{std::numeric_limits<double>::quiet_NaN()};
  double energy_first_{0.0}, energy_last_{0.0};
  double hover_sum_{0.0}, hover_estimate_sum_{0.0};
  int sliding_steps_{0};
  double qp_impulse_sum_{0.0}, qp_velocity_sum_{0.0};
  int qp_steps_{0}, qp_failed_steps_{0};
  double cold_sum_{0.0};
  int cold_steps_{0};
  bool qp_attempted_{false};
  // Restitution: 0 before the first impact, 1 in contact, 2 separated.
  int impact_phase_{0};
  Vector3 impact_normal_{Vector3::UnitZ()};
  double impact_speed_{std::numeric_limits<double>::quiet_NaN()};
  double rebound_speed_{std::numeric_limits<double>::quiet_NaN()};
  ContactParameters impact_parameters_;
  StepSample last_;
};

}  // namespace sapcontact
