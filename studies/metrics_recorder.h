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

struct MetricsOptions {
  /// Metrics to compute (names of MetricDefinitions()); empty: the default
  /// ones (DefaultMetricNames()). The expensive rigid_qp_* metrics solve
  /// the rigid QP of every step.
  std::vector<std::string> metrics;
  /// MetricsContext::window_fraction and sliding_speed_mps.
  double window_fraction{0.1};
  double sliding_speed_mps{1e-3};
};

class MetricsRecorder {
 public:
  /// @throws std::invalid_argument for an unknown metric name or a bad
  ///         option (naming it).
  MetricsRecorder(const Scene& scene, const MetricsOptions& options);

  /// Call after every step (SimulationOptions::on_step).
  void OnStep(const TimeStepper& stepper, const StepInfo& info);

  /// The requested metrics (in the requested order) and all estimates.
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
  std::vector<int> body_of_tree_;  // filled at the first step
  std::vector<char> supported_;    // per body, reused
  StepSample sample_;              // reused
  int probe_{-1};                  // first moving body (restitution)
  Vector3 probe_velocity_{Vector3::Zero()};  // its velocity after the step
};

}  // namespace sapcontact
