// The limits of scenes and overrides (docs/scenes.md "Limits"): sizes that
// protect the machine (checked before anything is allocated for them) and
// the ranges beyond which a value is physically meaningless or would
// overflow double precision. LoadScene rejects a scene outside them with a
// SceneError naming the file, line and field, and the reason. SI units.
#pragma once

#include <cstddef>

namespace sapcontact::scene_limits {

// --- Sizes ---------------------------------------------------------------
/// A scene file larger than this is not read [bytes] (16 MiB; the largest
/// shipped scene is under 2 KiB: grids describe many bodies in one item).
constexpr std::size_t kMaxFileBytes = 16u << 20;
/// YAML nodes of the document, counting every use of an alias (anchors and
/// aliases `&a`, `*a` may share nodes; nested aliases would otherwise
/// expand exponentially when walked).
constexpr long kMaxYamlNodes = 2000000;
/// Nesting depth of the document (maps and lists).
constexpr int kMaxYamlDepth = 32;
/// Number of --set assignments, the length of one [characters], and the
/// YAML nodes of its value (counting alias uses, as above).
constexpr std::size_t kMaxOverrides = 1000;
constexpr std::size_t kMaxOverrideLength = 4096;
constexpr long kMaxOverrideNodes = 1000;
/// Body and material names in a file [characters]; grid copies add
/// "_i_j_k" (at most 18 more characters: indices below kMaxBodies).
constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxExpandedNameLength = kMaxNameLength + 18;
/// Bodies after grid expansion.
constexpr long kMaxBodies = 100000;
/// Robots (`robots:` items), and joints of one robot (links of its tree,
/// counting the root's joint and fixed joints).
constexpr long kMaxRobots = 1000;
constexpr int kMaxRobotJoints = 1000;
/// `external_forces:` items.
constexpr long kMaxExternalForces = 100000;
/// Points {times, values} of one time function.
constexpr std::size_t kMaxTimeFunctionPoints = 100000;
/// Steps of a run: round(duration / time_step).
constexpr double kMaxSteps = 1e7;

/// Memory the rigid-contact QP of one step may need (solver.model: rigid;
/// EstimateRigidQpBytes in sim/stepping/time_stepper.h) [bytes]: its
/// interior point works in the 3 nc contact variables, densely when W is
/// dense (many contacts on few bodies, e.g. bodies piled at one place), so
/// a few thousand such contacts would take gigabytes and minutes per step.
/// 256 MiB allows a dense QP of about 960 contacts. The sap model's memory
/// grows with the bodies (6 DOFs each) and is bounded by the contact
/// limit.
constexpr double kMaxRigidQpBytes = 256.0 * 1024.0 * 1024.0;

// --- Ranges (beyond them the physics is meaningless) ------------------------
/// time_step [s]: below 1e-7 s no contact time scale of the schema's ranges
/// is resolved any better; above 1 s nothing is.
constexpr double kMinTimeStep = 1e-7;
/// integrator.accuracy (error control, docs/theory.md §22) [-].
constexpr double kMinAccuracy = 1e-10;
constexpr double kMaxAccuracy = 1.0;
constexpr double kMaxTimeStep = 1.0;
/// Any coordinate of a position (also of grid copies) [m]: farther out,
/// double precision leaves less than 1e-10 m for the contact resolution.
constexpr double kMaxPosition = 1e6;
/// |velocity| [m/s] and |angular_velocity| [rad/s]: 10 km/s is beyond any
/// rigid-body contact (and m v^2 then overflows nothing).
constexpr double kMaxSpeed = 1e4;
constexpr double kMaxAngularSpeed = 1e4;
/// |gravity| [m/s^2] (1000 g).
constexpr double kMaxGravity = 1e4;
/// Material stiffness [N/m], or .inf (rigid): above 1e15 N/m every contact
/// is at SAP's near-rigid floor at any time step in range (use .inf);
/// below 1e-3 N/m nothing is held up.
constexpr double kMinStiffness = 1e-3;
constexpr double kMaxStiffness = 1e15;
/// dissipation_time_scale [s] and friction [-] upper bounds.
constexpr double kMaxDissipationTimeScale = 1e3;
constexpr double kMaxFriction = 100.0;
/// hunt_crossley_dissipation d [s/m] upper bound: the restitution of an
/// impact at speed v is about 1 - (2/3) d v, so at 1e4 s/m every impact
/// faster than 0.15 mm/s is fully damped.
constexpr double kMaxHuntCrossleyDissipation = 1e4;
/// stiction_tolerance v_s [m/s]: a sticking contact creeps at about v_s;
/// 1e-8 m/s is 0.3 m a year, slower than any run resolves, and above 10 m/s
/// friction is viscous at every speed a scene reaches.
constexpr double kMinStictionTolerance = 1e-8;
constexpr double kMaxStictionTolerance = 10.0;
/// Mass of a free body [kg], also when computed from density.
constexpr double kMinMass = 1e-6;
constexpr double kMaxMass = 1e9;
/// density [kg/m^3].
constexpr double kMinDensity = 1e-3;
constexpr double kMaxDensity = 1e6;
/// Box edge lengths, radii and capsule lengths [m].
constexpr double kMinSize = 1e-5;
constexpr double kMaxSize = 1e4;
/// rpy angles [rad] (any angle is equivalent to one in [-pi, pi]).
constexpr double kMaxAngle = 1e3;
/// Sine frequency of a time function [Hz]: at the smallest time step a
/// faster oscillation has fewer than 10 steps per period.
constexpr double kMaxFrequency = 1e6;
/// collision.margin [m].
constexpr double kMaxMargin = 1.0;
/// solver.max_iterations (per step).
constexpr int kMaxSolverIterations = 10000;
/// solver.threads.
constexpr int kMaxThreads = 256;
/// solver.sleep_speed [m/s] and solver.sleep_time [s]: beyond them a body
/// in flight or a sliding one would be frozen.
constexpr double kMaxSleepSpeed = 1.0;
constexpr double kMaxSleepTime = 1e3;
/// solver.near_rigid_threshold and solver.friction_regularization [-].
constexpr double kMaxRegularization = 1e3;

// --- Initial state ---------------------------------------------------------
/// A run warns (it does not fail) when two bodies overlap by more than this
/// at the start [m]: the overlap is pushed apart by the contact, which adds
/// elastic energy 1/2 k phi^2 that the scene did not intend.
constexpr double kOverlapWarning = 1e-3;

}  // namespace sapcontact::scene_limits
