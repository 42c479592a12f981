// The scene data model: plain structs mirroring the YAML scene schema of
// docs/scenes.md, after grid expansion and validation. SI units;
// defaults are those of the schema. Loaded by LoadScene
// (sim/scene/scene_loader.h).
#pragma once

#include <string>
#include <vector>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/scene/material.h"
#include "sapcontact/sim/scene/robot_spec.h"

namespace sapcontact {

/// YAML solver.model.
enum class SolverModel {
  kSap,    ///< "sap": the SAP convex formulation (default).
  kRigid,  ///< "rigid": the interior-point rigid-contact QP each step.
};
/// YAML solver.line_search.
enum class LineSearchMethod {
  kExact,        ///< "exact" (default).
  kBacktracking  ///< "backtracking".
};
/// YAML solver.linear_solver.
enum class LinearSolverKind {
  kAuto,        ///< "auto" (default).
  kDense,       ///< "dense".
  kCholmod,     ///< "cholmod".
  kBlockSparse  ///< "block_sparse".
};

/// YAML names of the enums ("sap", "exact", "auto", ...).
const char* SolverModelName(SolverModel v);
const char* LineSearchMethodName(LineSearchMethod v);
const char* LinearSolverKindName(LinearSolverKind v);

/// YAML `solver:` (optional section; every field optional).
struct SolverSettings {
  SolverModel model{SolverModel::kSap};
  /// YAML solver.contact_model: the contact model (docs/theory.md §18) of
  /// every material that does not name one, the built-in "default"
  /// included. Default lagged, as Drake's default discrete contact
  /// approximation: sliding contacts do not glide (docs/scenes.md,
  /// "Contact models"); sap is the SAP paper's model.
  ContactModel contact_model{ContactModel::kLagged};
  /// beta [-], >= 0.
  double near_rigid_threshold{1.0};
  /// sigma [-], > 0.
  double friction_regularization{1.0e-3};
  /// Relative and absolute Newton stopping tolerances [-], > 0 and >= 0.
  double rel_tolerance{1.0e-6};
  double abs_tolerance{1.0e-14};
  /// Maximum Newton iterations per step, > 0.
  int max_iterations{100};
  LineSearchMethod line_search{LineSearchMethod::kExact};
  LinearSolverKind linear_solver{LinearSolverKind::kAuto};
  /// Stiction prediction in the Newton iteration (docs/theory.md §16).
  bool stiction_prediction{true};
  /// Speculative contacts that carry no impulse join no island and cost no
  /// Newton work (SapSolverParameters::exclude_separated_contacts; the
  /// solution is the same); false: every contact is a constraint.
  bool exclude_separated_contacts{true};
  /// An island whose warm start carries less momentum than the step adds
  /// tries v = 0 first (SapSolverParameters::warm_start_at_rest; within the
  /// same tolerance); false: only the guesses and v*.
  bool warm_start_at_rest{true};
  /// The supported Delassus estimate for heavy-on-light contacts
  /// (docs/theory.md §19); false: SAP's plain estimate.
  bool supported_delassus_estimate{true};
  /// The exact line search's strong Wolfe slope ratio, 0 to 0.99 (0:
  /// minimize along the ray to round-off; docs/theory.md §7). The default
  /// is SapSolverParameters::line_search_slope_ratio's.
  double line_search_slope_ratio{0.9};
  /// Newton iterations reuse an island's sparse factorization while its
  /// residual ratio stays at or below this, 0 to 0.99
  /// (SapSolverParameters::factor_reuse_rate; 0: factor every iteration).
  double factor_reuse_rate{0.0};
  /// Threads of each step's collision and contact solve, >= 1
  /// (docs/solver.md "Threads"): results are bitwise identical for every
  /// value.
  int threads{1};
  /// Sleeping islands (docs/scenes.md "Sleeping"): an island of free bodies
  /// (bodies joined by contacts) whose every body moved slower than
  /// sleep_speed for sleep_time is frozen at rest and costs nothing until a
  /// moving body's contact, a force or a prescribed motion touches it.
  /// Off by default: on, resting bodies stop exactly (their residual creep
  /// and the contact forces between sleeping bodies are not computed).
  bool sleep{false};
  /// Speed of a body's fastest point |v| + |w| r (r: the shape's bounding
  /// radius) below which it counts as still [m/s], > 0.
  double sleep_speed{1.0e-3};
  /// How long every body of an island must stay still before it sleeps
  /// [s], >= 0.
  double sleep_time{0.2};
};

/// YAML `output:` (optional).
struct OutputSettings {
  /// Write a trajectory row every N steps, N > 0.
  int every{10};
};

/// YAML `collision:` (optional).
struct CollisionSettings {
  /// Speculative margin [m], >= 0: pairs closer than this (phi <= margin) get
  /// contacts. The time stepper adds each body's motion bound on top (see
  /// collision/collision.h).
  double margin{1.0e-3};
};

/// How robots' velocities advance (YAML `integrator.robots`; docs/theory.md
/// §17, docs/robots.md "Robot dynamics").
enum class RobotIntegrator {
  /// (M(q_k) + dt D) v* = M(q_(k-1)) v_k + dt (tau - g(q_k) + k(q_k, v)):
  /// the discrete Euler-Lagrange step; no energy drift when M depends on q.
  kVariational,
  /// (M(q_k) + dt D) v* = M(q_k) v_k + dt (tau - c(q_k, v_k)): MuJoCo's
  /// Euler (damping implicit, springs and Coriolis forces explicit), for
  /// step-by-step agreement with MuJoCo models.
  kEuler,
};

/// How a run chooses its step sizes (YAML `integrator.scheme`; docs/
/// theory.md §22).
enum class IntegrationScheme {
  /// Every step is time_step.
  kFixed,
  /// Step doubling: the step size follows the local error estimate so that
  /// it stays within `accuracy` (sim/stepping/error_controlled_integrator.h).
  kErrorControlled,
};

/// YAML `integrator:` (optional).
struct IntegratorSettings {
  RobotIntegrator robots{RobotIntegrator::kVariational};
  IntegrationScheme scheme{IntegrationScheme::kFixed};
  /// error_controlled: the local error allowed per step, A [-], in
  /// [1e-10, 1]: A m of position, A rad of rotation, A (1 + |v|) of
  /// velocity (ErrorNorm, docs/theory.md §22).
  double accuracy{1.0e-3};
  /// error_controlled: the largest step [s] (0: time_step, which is also
  /// the first step tried) and the smallest [s] (default 1e-6; a step there
  /// is accepted whatever its error).
  double max_step{0.0};
  double min_step{1.0e-6};
};

/// One rigid body (YAML `bodies:` item, after grid expansion).
struct Body {
  /// Unique name; grid copies are named <name>_i_j_k (0-based indices).
  std::string name;
  /// Fixed bodies are part of the world (no degrees of freedom).
  bool fixed{false};
  /// A fixed body with `prescribed:` moves with the given velocities (a
  /// kinematic body), or only its surface moves (surface_velocity).
  bool prescribed{false};
  PrescribedMotion motion;
  Shape shape;
  /// Mass [kg] and inertia about the centre of mass in the body frame
  /// [kg m^2], from the shape and `mass` or `density`. Zero for fixed bodies.
  double mass{0.0};
  Matrix3 inertia{Matrix3::Zero()};
  /// Initial pose (position [m], unit quaternion from rpy or quaternion).
  Pose pose;
  /// Initial velocity of the centre of mass and angular velocity, both in
  /// the world frame [m/s], [rad/s]. Zero for fixed bodies.
  Vector3 velocity{Vector3::Zero()};
  Vector3 angular_velocity{Vector3::Zero()};
  /// Name of the material, and its index in Scene::materials.
  std::string material{"default"};
  int material_index{0};
};

/// Contact parameters that replace CombineMaterials for one pair of
/// materials (YAML `material_pairs:`, docs/scenes.md "Materials and pair
/// parameters"): the way MuJoCo's per-pair rules (larger friction, mixed
/// solref) reach a scene read from an MJCF file.
struct MaterialPair {
  /// Indices in Scene::materials (either order; a == b allowed).
  int material_a{0};
  int material_b{0};
  /// The parameters of every contact between the two materials.
  ContactParameters parameters;
};

struct Scene {
  /// The file the scene was loaded from (for messages).
  std::string source;
  /// Time step dt [s] (required, > 0) and simulated duration [s] (required,
  /// > 0).
  double time_step{1.0e-3};
  double duration{1.0};
  /// Gravity [m/s^2], world frame.
  Vector3 gravity{0.0, 0.0, -9.81};
  SolverSettings solver;
  /// All materials; "default" is always present (built in with the Material
  /// defaults unless the file defines it). Order: "default" first, then the
  /// file's materials in file order.
  std::vector<Material> materials;
  /// Pairs of materials whose contacts take given parameters instead of
  /// CombineMaterials; at most one entry per unordered pair.
  std::vector<MaterialPair> material_pairs;
  /// Bodies in file order, grid copies in place of their template (i, then
  /// j, then k, k fastest).
  std::vector<Body> bodies;
  /// Robots in file order (YAML `robots:`, docs/robots.md).
  std::vector<RobotSpec> robots;
  /// External forces in file order (YAML `external_forces:`).
  std::vector<ExternalForce> external_forces;
  OutputSettings output;
  CollisionSettings collision;
  IntegratorSettings integrator;
  /// What loading did not take as written, one line each, naming the field
  /// (and the URDF file:line for robots): geometry a robot's URDF dropped
  /// or approximated (RobotDescription::warnings), a mesh that collides as
  /// its convex hull. sapsim prints them as "sapsim: warning: ..." and
  /// counts them in summary.json.
  std::vector<std::string> warnings;

  /// Index of the body with this name, or -1.
  int FindBody(const std::string& name) const;
  /// Index of the robot with this name, or -1.
  int FindRobot(const std::string& name) const;
  /// Index of the material with this name, or -1.
  int FindMaterial(const std::string& name) const;
  /// Contact parameters of a pair of materials: their material_pairs entry,
  /// else CombineMaterials of the two.
  ContactParameters MaterialPairParameters(int material_a,
                                           int material_b) const;
  /// Contact parameters of a pair of bodies: MaterialPairParameters of
  /// their materials.
  ContactParameters PairParameters(int body_a, int body_b) const;
};

/// Checks a scene built in code against the limits and ranges of
/// sim/scene/scene_limits.h (docs/scenes.md "Limits"), which LoadScene
/// enforces with file lines: time step, gravity, solver settings, margin,
/// materials, the body count, and every body's name, shape, mass, pose,
/// velocities, material index and prescribed motion (fixed bodies only;
/// functions of size 3; a plane only a surface velocity); every robot's
/// name (unique among robots and bodies), description (a root joint
/// matching fixed_base, the joint limit), base pose and velocities,
/// material index, initial joint states (1-DOF joints in range, positions
/// within the limits when joint_limits), actuation (1-DOF, not a mimic
/// follower, gains >= 0 with kp + kd > 0, effort limit > 0, functions of
/// size 1); every external force's target (exactly one of a free body or
/// a robot link that is not welded to the world), functions of size 3 and
/// point. Not checked here: the step count (see StepCount in
/// sim/stepping/simulation.h). @throws std::invalid_argument naming the
/// field ("bodies.box.velocity: |velocity| = 2e+04 m/s is outside [0,
/// 10000] m/s: ...").
void ValidateScene(const Scene& scene);

/// Resolves an external force's target (ExternalForce::target): a body
/// name, or "<robot>/<link>" naming a link of a robot. Sets force->body, or
/// force->robot and force->link (the others -1), and returns "" ; else
/// returns the problem (unknown name, listing the bodies and robots;
/// ambiguous; a fixed body; a link welded to the world) and leaves the
/// indices -1.
std::string ResolveForceTarget(const Scene& scene, ExternalForce* force);

/// Whether link `link` of `tree` is welded to the world: every joint from
/// it to the root is fixed.
bool LinkWeldedToWorld(const MultibodyTree& tree, int link);

/// "bodies 'a' and 'b'" for the first two bodies, not both fixed, whose
/// materials are both rigid (stiffness .inf), or "" if there are none:
/// with the sap model such a pair needs near_rigid_threshold > 0 (R_n
/// would be 0). LoadScene and ValidateScene reject beta = 0 then. Robots
/// count too: a robot of a rigid material with any rigid body ("robot 'arm'
/// and body 'ground'"), another rigid robot, or itself with
/// self_collision.
std::string RigidPair(const Scene& scene);

}  // namespace sapcontact
