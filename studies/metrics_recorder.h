// Fills the per-step samples of studies/metrics.h from a running TimeStepper
// (through SimulationOptions::on_step, sim/stepping/simulation.h) and
// accumulates the metrics and estimates of a run. Definitions:
// studies/metrics.h.
#pragma once

#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/studies/metrics.h"

namespace sapcontact {

/// Checks metric names for `scene`: every name is a metric (IsMetricName)
/// and every body metric (body.NAME.position, ...) names a body of the
/// scene. @throws std::invalid_argument "metric 'body.slidr.position': no
/// body 'slidr' in the scene (bodies, nearest first: slider, ground)" (at
/// most 10 listed; a robot's name says that robots are not bodies), or
/// with MetricNameProblem for an unknown metric; every joint metric
/// (joint.ROBOT.JOINT.position, ...) a robot and its revolute or prismatic
/// joint, actuated for .effort (the message lists the nearest names).
void CheckMetricNames(const std::vector<std::string>& names,
                      const Scene& scene);

struct MetricsOptions {
  /// Metrics to compute (names of MetricDefinitions(), body and joint
  /// metrics, studies/metrics.h); empty: the default ones
  /// (DefaultMetricNames()). The expensive rigid_qp_* metrics solve the rigid
  /// QP of every step.
  std::vector<std::string> metrics;
  /// MetricsContext::window_fraction and sliding_speed_mps.
  double window_fraction{0.1};
  double sliding_speed_mps{1e-3};
};

/// Where a joint metric reads its value (MetricsRecorder).
struct MetricJoint {
  int robot{-1};     ///< index in Scene::robots; -1: not a joint metric
  int q{-1}, v{-1};  ///< the joint's entries of RobotState::q and ::v
  int actuator{-1};  ///< index in RobotSpec::actuation, or -1
  JointMetric::Quantity quantity{JointMetric::Quantity::kPosition};
};

class MetricsRecorder {
 public:
  /// @throws std::invalid_argument for an unknown metric name or body
  ///         (CheckMetricNames) or a bad option (naming it).
  MetricsRecorder(const Scene& scene, const MetricsOptions& options);

  /// Call after every step (SimulationOptions::on_step).
  void OnStep(const TimeStepper& stepper, const StepInfo& info);

  /// The requested metrics (in the requested order; a vector metric gives
  /// its MetricColumns, body.box.position gives body.box.position.x, .y,
  /// .z) and all estimates.
  std::vector<MetricValue> Metrics() const;
  std::vector<MetricValue> Estimates() const;
  const std::vector<std::string>& metric_names() const { return names_; }

 private:
  std::vector<std::string> names_;
  bool rigid_qp_{false};
  bool cold_start_{false};
  bool sap_model_{true};
  SapSolver cold_solver_;  // cold_start_newton_iterations
  MetricsAccumulator accumulator_;
  double mechanical_energy_{0.0};  // K + P at the start of the next step
  // Per tree of the last problem: the body it moves (>= 0) or robot r
  // (-r - 1); rebuilt every step (sleeping bodies leave the problem).
  void MapTrees(const TimeStepper& stepper);
  static constexpr int kNoOwner = -1000000000;
  std::vector<int> tree_owner_;
  Eigen::Matrix<double, 6, 1> v_body_;       // a body tree's (v, w)
  std::vector<char> supported_;              // per body, reused
  StepSample sample_;                        // reused
  int probe_{-1};                            // first moving body (restitution)
  Vector3 probe_velocity_{Vector3::Zero()};  // its velocity after the step
  // Body metrics: per requested name (-1: not a body metric) the body's
  // index; the bodies' centre-of-mass position and velocity after the last
  // step (NaN before the first).
  std::vector<int> metric_body_;
  std::vector<Vector3> body_position_, body_velocity_;
  // Joint metrics: per requested name the joint (robot -1: not a joint
  // metric) and its value after the last step (NaN before the first).
  std::vector<MetricJoint> metric_joint_;
  std::vector<double> joint_value_;
};

}  // namespace sapcontact
