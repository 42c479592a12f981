// Runs a scene to its duration with the TimeStepper and writes the outputs:
//   DIR/trajectory.csv  columns time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz
//                       (moving bodies, every output.every steps, plus the
//                       first and last state; SI units, world frame)
//   DIR/summary.json    the SimulationSummary fields below and `bodies`, the
//                       final {name, position, quaternion_wxyz, velocity,
//                       angular_velocity} of every body.
//   DIR/joints.csv      with robots: time,robot,joint,position,velocity,effort
//   DIR/contacts.csv    with SimulationOptions::write_contacts: one row per
//                       contact of the steps trajectory.csv has rows for
//                       (every output.every steps and the last):
//     time,body_a,body_b,x,y,z,nx,ny,nz,phi,impulse_n,impulse_tx,impulse_ty,
//     impulse_tz,slip_speed
//                       time: end of the step [s]; body_a, body_b: collider
//                       names (TimeStepper::ColliderName: "ground",
//                       "arm/link3/0"); x,y,z: contact point at the start of
//                       the step (world) [m]; nx,ny,nz: unit normal from A
//                       into B (world); phi: signed distance at the start of
//                       the step [m] (< 0: penetration); impulse_n: normal
//                       impulse on B along +n [N*s] (>= 0; A gets the
//                       opposite); impulse_tx,ty,tz: friction impulse on B as
//                       a world vector (orthogonal to n) [N*s]; slip_speed:
//                       |v_t| of B relative to A at the contact point at the
//                       end of the step [m/s]. Both solver models.
//   DIR/links.csv       with SimulationOptions::write_links and robots: one
//                       row per link of every robot, at the times
//                       trajectory.csv has rows for:
//     time,robot,link,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz
//                       the link frame's world pose (origin [m], unit
//                       quaternion) and spatial velocity (its origin's
//                       velocity [m/s], angular velocity [rad/s], world).
//   DIR/steps.csv       with SimulationOptions::write_steps: one row per step:
//     time,contacts,newton_iterations,solver_time_s,collision_time_s,
//     max_penetration_m,kinetic_energy_J,potential_energy_J,elastic_energy_J,
//     failed,islands,largest_island_dofs,penetrating_contacts,
//     speculative_contacts,excluded_contacts,factorizations,low_rank_updates,
//     line_search_evaluations,step_size_s,error_estimate,rejected
//                       time: end of the step [s]; the StepInfo fields of the
//                       step; the energies [J] at the START of the step (the
//                       poses its contacts were found at, as summary.json's
//                       energy_*: their sum is the total energy E_n); failed:
//                       1 when the contact solver did not converge, else 0;
//                       then StepInfo::counters (zero with the rigid QP);
//                       the step's size [s], error estimate and rejected
//                       attempts (ErrorControlledStep; time_step, 0, 0 for
//                       fixed steps). Under integrator.scheme
//                       error_controlled a row is an accepted step and the
//                       output times are those of the fixed-step run,
//                       every output.every time_step (docs/theory.md §22).
// Files are written under temporary names (*.partial) and renamed at the
// end; existing outputs (all of the above) are removed first, and the
// temporary files are removed when an exception ends the run, so a failed or
// interrupted run leaves no output claiming success. No file ever holds a
// non-finite number (the run throws SimulationError instead).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

struct SimulationOptions {
  /// Output directory (created if missing); empty: write nothing.
  std::string output_dir;
  /// Also write DIR/contacts.csv (per-contact positions, normals, impulses,
  /// slip; see above). Ignored without output_dir.
  bool write_contacts{false};
  /// Also write DIR/steps.csv (one row per step: contacts, iterations,
  /// times, penetration, energies; see above). Ignored without output_dir.
  bool write_steps{false};
  /// Also write DIR/links.csv (every robot link's pose and velocity; see
  /// above). Ignored without output_dir or robots.
  bool write_links{false};
  /// Called after every step (e.g. for a progress bar or extra metrics).
  std::function<void(const TimeStepper&, const StepInfo&)> on_step;
};

/// `sapsim run` reports gliding when SimulationSummary::max_hover_m exceeds
/// this [m] (10 um: far above round-off, below any hover worth a look).
inline constexpr double kHoverReportThreshold = 1e-5;

struct SimulationSummary {
  /// Steps taken (error control: accepted steps) and the simulated time
  /// they cover [s].
  int steps{0};
  double duration{0.0};
  /// The scene's warnings (Scene::warnings) and those the time stepper
  /// adds (SelfCollisionOverlapWarnings), as summary.json lists them.
  std::vector<std::string> warnings;
  double time_step{0.0};         ///< [s]
  double wall_time_s{0.0};       ///< whole run [s]
  double solver_time_s{0.0};     ///< contact problem build + solve [s]
  double collision_time_s{0.0};  ///< [s]
  double mean_contacts{0.0};
  int max_contacts{0};
  double mean_newton_iterations{0.0};
  int max_newton_iterations{0};
  /// Means per step of StepInfo::counters (the solver's work; summary.json's
  /// "solver_counters").
  struct SolverCounterMeans {
    double islands{0.0};
    double largest_island_dofs{0.0};
    double penetrating_contacts{0.0};
    double speculative_contacts{0.0};
    double excluded_contacts{0.0};
    double factorizations{0.0};
    double low_rank_updates{0.0};
    double line_search_evaluations{0.0};
  };
  SolverCounterMeans solver_counters;
  /// How the steps were chosen (summary.json's "integrator"; docs/theory.md
  /// §22): the scheme and accuracy; accepted and rejected steps, the
  /// accepted steps taken at min_step with their error above the accuracy,
  /// the smallest, largest and mean accepted step [s], and contact solves
  /// per accepted step (1 for fixed steps; 3 per attempt under error
  /// control).
  struct IntegratorStatistics {
    bool error_controlled{false};
    double accuracy{0.0};
    int accepted_steps{0};
    int rejected_steps{0};
    int steps_at_min_step{0};
    double min_step_s{0.0};
    double max_step_s{0.0};
    double mean_step_s{0.0};
    double solves_per_step{0.0};
  };
  IntegratorStatistics integrator;
  int failed_steps{0};
  std::string first_failure;      ///< message of the first failed step
  double max_penetration_m{0.0};  ///< max over steps of -phi0 [m]
  /// Gliding (StepInfo::max_hover, docs/scenes.md "Gliding"): the largest
  /// gap [m] across which a sliding contact pushed, over the run; the end
  /// time of its step [s]; the two bodies' names (collider names: "box",
  /// "arm/link3/0"), A then B; and the contact point at the start of that
  /// step (world frame) [m]. 0, 0, empty and zero when nothing glided.
  double max_hover_m{0.0};
  double max_hover_time_s{0.0};
  std::vector<std::string> max_hover_bodies;
  Vector3 max_hover_point_m{Vector3::Zero()};
  double kinetic_energy_initial_J{0.0};
  double kinetic_energy_final_J{0.0};
  /// Total energy E = kinetic + gravitational + elastic (sum 1/2 k_eff phi^2
  /// over penetrating contacts) [J] at the first step, its maximum over the
  /// run, and max_n (E_n - E_0) / |E_0| (contact must not create energy;
  /// when |E_0| is so small that the ratio overflows, e.g. E_0 = 0, the
  /// denominator is max(|E_0|, max_n E_n - E_0): then 1 for any gain).
  double energy_initial_J{0.0};
  double energy_max_J{0.0};
  double energy_max_increase_rel{0.0};
  /// Final states, in scene body order.
  std::vector<BodyState> final_state;
  /// Robots' final states and actuation efforts [N m or N] (one per
  /// RobotSpec::actuation entry), in scene robot order.
  std::vector<RobotState> final_robot_state;
  std::vector<Eigen::VectorXd> final_robot_efforts;
};

/// The scene a run under integrator.scheme error_controlled steps: the
/// solver's relative tolerance follows the accuracy, A / 100 clamped to
/// [1e-12, 1e-4] (docs/theory.md §22).
Scene ErrorControlledScene(const Scene& scene);

/// The number of steps of a run: max(1, round(duration / time_step)).
/// @throws std::invalid_argument when it is not finite or more than
/// scene_limits::kMaxSteps (docs/scenes.md "Limits"), checked before the
/// division is converted to an integer.
int StepCount(const Scene& scene);

/// The deepest overlap of two bodies at the scene's initial poses.
struct InitialOverlap {
  /// max(-phi) over the contacts at the initial poses (0 if none) [m].
  double depth{0.0};
  /// The pair: collider indices (scene bodies, then robot geometries:
  /// sim/stepping/scene_collision.h; -1 if no contact), and the names of
  /// their bodies (a body's name, or "<robot>/<link>"; ColliderBodyNames).
  int body_a{-1};
  int body_b{-1};
  std::string name_a, name_b;
  /// Contacts of the first step (with the scene's margin and the bodies'
  /// motion bounds, as the time stepper finds them).
  int contacts{0};
};

/// Collision detection at the initial poses as the first step does it, with
/// the limits of CollisionOptions. A run warns when depth >
/// scene_limits::kOverlapWarning (sapsim run does). @throws CollisionLimitError
/// (too many pairs or contacts: bodies piled at one place; with the rigid model
/// also when the QP would exceed scene_limits::kMaxRigidQpBytes) or
/// std::invalid_argument (a scene outside ValidateScene).
InitialOverlap FindInitialOverlap(const Scene& scene);

/// Simulates `scene` for scene.duration. Solver failures are counted in the
/// summary (the step goes on with the solver's last iterate), not thrown.
/// A step that cannot go on (non-finite state or energy, data the solver
/// rejects, a collision limit) throws SimulationError naming the step and
/// the body or contact; the outputs are then removed (no partial files).
/// Nothing non-finite is ever written: every trajectory row and summary
/// value is checked.
/// @throws std::invalid_argument for a scene outside the limits
/// (ValidateScene, StepCount); std::runtime_error when an output file
/// cannot be written; SimulationError as above.
SimulationSummary RunSimulation(const Scene& scene,
                                const SimulationOptions& options = {});

/// The summary as JSON text (the content of summary.json).
std::string SummaryToJson(const Scene& scene, const SimulationSummary& s);

}  // namespace sapcontact
