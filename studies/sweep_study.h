// A study: a sweep with its scene, fixed and varied overrides, metrics and
// plots, read from a YAML study file (config/studies/*.yaml; format in
// docs/studies.md). `sapsim sweep` builds the same structure from its
// command line, and every sweep records it as DIR/sweep.json (JSON, which
// the same loader reads) so that `sapsim sweep-merge` can re-plot merged
// shards.
#pragma once

#include <string>
#include <vector>

#include "sapcontact/studies/sweep_plot.h"
#include "sapcontact/studies/sweep_spec.h"

namespace sapcontact {

struct SweepStudy {
  std::string name;
  std::string description;
  /// Scene file; a relative path in a study file is relative to that file.
  std::string scene;
  /// Overrides applied to every run (before the varied ones).
  std::vector<std::string> set;
  std::vector<SweepAxis> vary;
  /// Metrics (studies/metrics.h); empty: DefaultMetricNames().
  std::vector<std::string> metrics;
  /// Measurement window (MetricsOptions::window_fraction), in (0, 1].
  double window_fraction{0.1};
  /// Sliding threshold of hover_height_m [m/s], > 0.
  double sliding_speed_mps{1e-3};
  /// Plots; empty: DefaultPlots(vary, metrics).
  std::vector<PlotSpec> plots;
};

/// Reads a study file. @throws std::invalid_argument "<file>: <field>:
/// <problem> (<file>:<line>:<column>)" on a missing file (or one that is
/// not a regular file or larger than 16 MiB), bad YAML, more than 1e5
/// YAML nodes counting alias uses, unknown, duplicate or missing keys,
/// wrong types, a bad `vary` entry (ParseSweepAxis's message), an unknown
/// metric.
SweepStudy LoadSweepStudy(const std::string& path);

/// Same from text; relative scene paths are resolved against `base_dir`.
SweepStudy ParseSweepStudy(const std::string& text, const std::string& name,
                           const std::string& base_dir);

/// The sweep record DIR/sweep.json: the study (scene path absolute) plus
/// the number of points of the whole sweep and the shard of this run.
std::string SweepStudyToJson(const SweepStudy& study, int total_points,
                             const SweepShard& shard);

/// Reads total_points and the shard back from a sweep.json text.
/// @throws std::invalid_argument when they are missing.
void ReadSweepRecordCounts(const std::string& json_text, int* total_points,
                           SweepShard* shard);

}  // namespace sapcontact
