// Error-controlled time stepping around the convex step (docs/theory.md
// §22, "Error control"; the idea of Kurtz and Castro's CENIC, 2025): each
// step is the same convex problem TimeStepper::Step solves, taken once at
// h and twice at h/2 from the same state; the difference of the two
// results estimates the local error of the half steps, a controller
// accepts (keeping the two half steps) or rejects (taking them back) and
// picks the next h. Every step solves a unique, strictly convex problem,
// so no step can fail to converge for lack of a good guess.
#pragma once

#include <vector>

#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

/// One accepted step of the error-controlled integrator.
struct ErrorControlledStep {
  /// The step's work and findings: the two half steps' StepInfo merged
  /// (contacts, penetration, hover and elastic energy of the second and
  /// first as StepInfo means them for the whole step; iterations, times
  /// and counters of all the solves this step took, rejected ones
  /// included; failed if a half step failed).
  StepInfo info;
  /// The accepted step size h [s] (the two half steps cover it).
  double step_size{0.0};
  /// The weighted error estimate of the accepted step, ErrorNorm(...) of
  /// the full step against the two half steps (<= 1 unless h was already
  /// min_step).
  double error_estimate{0.0};
  /// Attempts rejected before this one was accepted.
  int rejected{0};
  /// Contact solves this step took (3 per attempt).
  int solves{0};
  /// h was min_step and the error estimate still above 1: accepted as
  /// the smallest step allowed.
  bool at_min_step{false};
};

/// The weighted local error of `a` against `b` (the same stepper's states
/// after a full step and after two half steps of size `step` [s] in all)
/// for accuracy A (docs/theory.md §22): the largest over every coordinate
/// of
///   positions [m] and rotation angles [rad]:  |a - b| / A
///   velocities [m/s, rad/s]:                   step |a - b| / A
/// (a velocity error counts by the distance it moves the coordinate
/// within the step; a body's rotation error is the angle between its two
/// orientations; a robot's q and v coordinate by coordinate). A step is
/// accepted when it is <= 1.
double ErrorNorm(const std::vector<BodyState>& a,
                 const std::vector<RobotState>& a_robots,
                 const std::vector<BodyState>& b,
                 const std::vector<RobotState>& b_robots, double accuracy,
                 double step);

class ErrorControlledIntegrator {
 public:
  /// Advances `stepper` (not owned; outlives this) with `settings`'s
  /// accuracy and step limits. The first step tried is min(first_step,
  /// max_step).
  /// @throws std::invalid_argument on settings outside their ranges.
  ErrorControlledIntegrator(TimeStepper* stepper,
                            const IntegratorSettings& settings,
                            double first_step);

  /// Takes one accepted step that ends at t_end or before it (a step that
  /// would leave less than a tenth of itself before t_end is stretched to
  /// land on t_end; one that would pass it is shortened), so that runs land
  /// on their output times. Throws what TimeStepper::Step throws.
  ErrorControlledStep Step(double t_end);

  /// The step size the controller will try next [s].
  double next_step() const { return h_; }

  /// Safety factor and the bounds of one change of h (step-doubling
  /// controller for a first-order method: h_new = h min(kMaxGrowth,
  /// max(kMinShrink, kSafety / sqrt(error)))).
  static constexpr double kSafety = 0.9;
  static constexpr double kMaxGrowth = 2.0;
  static constexpr double kMinShrink = 0.2;

 private:
  TimeStepper* stepper_;
  IntegratorSettings settings_;
  double h_;
  TimeStepper::Snapshot start_;
  std::vector<BodyState> full_bodies_;
  std::vector<RobotState> full_robots_;
  Eigen::VectorXd full_velocities_;
};

}  // namespace sapcontact
