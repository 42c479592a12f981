// Runs a parameter sweep: every point of the Cartesian product of
// the varied scene values (studies/sweep_spec.h) that is in the shard, in
// parallel over worker threads. Each run loads the scene with the fixed
// and the point's overrides (sim/scene/scene_loader.h), simulates it with
// RunSimulation (sim/stepping/simulation.h, no output files) and records the
// metrics and estimates of studies/metrics.h. A run that fails (bad value,
// solver exception, or, with process workers, a crash) becomes a row with
// its error; failed solver steps are counted in the row, not thrown.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/studies/metrics_recorder.h"
#include "sapcontact/studies/sweep_spec.h"

namespace sapcontact {

/// How runs are executed in parallel.
enum class SweepWorkers {
  /// Forked child processes (studies/sweep_processes.h), the default: runs are
  /// isolated (a crash is a row) and libraries that are not thread-safe
  /// are safe. The results come back serialized (exactly: %.17g).
  kProcesses,
  /// Threads of this process: no fork, but a crash ends the sweep. Safe
  /// under the solvers' thread-safety promise (README "Threads"), which
  /// holds with the reference BLAS scripts/setup installs but not with
  /// Debian's libopenblas0-serial.
  kThreads,
};

struct SweepRow;

struct SweepOptions {
  /// Overrides applied to every run before the varied ones.
  std::vector<std::string> fixed_overrides;
  MetricsOptions metrics;
  /// Parallel workers; <= 0: std::thread::hardware_concurrency() (at
  /// least 1).
  int jobs{0};
  SweepWorkers workers{SweepWorkers::kProcesses};
  SweepShard shard;
  /// Called after each finished run with (finished, total in the shard),
  /// never concurrently: from the calling thread (processes) or a worker
  /// thread (threads). With a resumed journal the count starts at the
  /// number of recovered runs (one call before any run).
  std::function<void(int, int)> progress;
  /// Called with every row of the shard, never concurrently: first the
  /// rows recovered from the journal (`recovered` true), then each run as
  /// it finishes, after it is in the journal. What `sapsim sweep` writes
  /// its partial table with.
  std::function<void(const SweepRow& row, bool recovered)> on_row;
  /// Journal file (studies/sweep_journal.h) every finished run is appended
  /// to; empty: none.
  std::string journal;
  /// With `journal`: resume it (run only the points it does not hold; a
  /// missing file starts a new journal). Without: the journal is replaced.
  bool resume{false};
};

enum class SweepRunStatus {
  kOk,           ///< ran, every step converged
  kFailedSteps,  ///< ran, some solver steps failed (summary.failed_steps)
  kError,        ///< did not run to the end (error holds why)
};
/// "ok", "failed_steps", "error".
const char* ToString(SweepRunStatus status);

struct SweepRow {
  int index{0};                     ///< SweepPoint::index
  std::vector<std::string> values;  ///< one per axis
  SweepRunStatus status{SweepRunStatus::kError};
  std::string error;  ///< kError: the message; else first failure
  /// The scalar fields of summary.json (SummaryToJson), name and JSON text
  /// of the value (strings unquoted); empty for kError.
  std::vector<std::pair<std::string, std::string>> summary;
  std::vector<MetricValue> metrics;    ///< requested metrics
  std::vector<MetricValue> estimates;  ///< EstimateDefinitions() order
};

/// Names of the scalar summary.json fields, in file order (the `bodies`
/// array of final states is not a scalar and is left out).
std::vector<std::string> SummaryFieldNames();

/// Runs the points of `axes` in `options.shard`; rows in index order
/// (those recovered from a resumed journal included, exactly as recorded).
/// @throws std::invalid_argument on bad axes or metric names, a body or
///         joint metric whose body or joint is not in the scene of the shard's
///         first point (CheckMetricNames), or a journal of another sweep
///         (SweepJournal), all before any run starts; std::runtime_error when
///         the journal cannot be written (the runs in progress are stopped).
std::vector<SweepRow> RunSweep(const std::string& scene_path,
                               const std::vector<SweepAxis>& axes,
                               const SweepOptions& options);

/// A row as text and back (what process workers send; exact doubles).
std::string SerializeSweepRow(const SweepRow& row);
/// @throws std::runtime_error on malformed text.
SweepRow DeserializeSweepRow(const std::string& text);

/// One run (what each worker does). Never throws for a failed run.
SweepRow RunSweepPoint(const std::string& scene_path, const SweepPoint& point,
                       const SweepOptions& options);

}  // namespace sapcontact
