#include "sapcontact/studies/sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>

#include "sapcontact/parallel/thread_pool.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/sweep_journal.h"
#include "sapcontact/studies/sweep_processes.h"

namespace sapcontact {
namespace {

std::vector<std::pair<std::string, std::string>> ScalarFields(
    const std::string& json_text) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(json_text);
  std::vector<std::pair<std::string, std::string>> fields;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_structured()) continue;
    fields.emplace_back(
        it.key(),
        it.value().is_string()
            ? it.value().get<std::string>()
            : it.value().dump(-1, ' ', false,
                              nlohmann::json::error_handler_t::replace));
  }
  return fields;
}

std::string Exact(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

nlohmann::json ValuesJson(const std::vector<MetricValue>& values) {
  nlohmann::json j = nlohmann::json::array();
  for (const MetricValue& m : values) j.push_back({m.name, Exact(m.value)});
  return j;
}

std::vector<MetricValue> ValuesFromJson(const nlohmann::json& j) {
  std::vector<MetricValue> values;
  for (const auto& item : j) {
    const std::string text = item.at(1).get<std::string>();
    values.push_back(
        {item.at(0).get<std::string>(), std::strtod(text.c_str(), nullptr)});
  }
  return values;
}

}  // namespace

std::string SerializeSweepRow(const SweepRow& r) {
  nlohmann::json j;
  j["index"] = r.index;
  j["values"] = r.values;
  j["status"] = static_cast<int>(r.status);
  j["error"] = r.error;
  j["summary"] = r.summary;
  j["metrics"] = ValuesJson(r.metrics);
  j["estimates"] = ValuesJson(r.estimates);
  // Error messages may quote bytes of a damaged file: invalid UTF-8 is
  // replaced, never thrown.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

SweepRow DeserializeSweepRow(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    SweepRow r;
    r.index = j.at("index").get<int>();
    r.values = j.at("values").get<std::vector<std::string>>();
    const int status = j.at("status").get<int>();
    if (status < 0 || status > 2) throw std::runtime_error("bad status");
    r.status = static_cast<SweepRunStatus>(status);
    r.error = j.at("error").get<std::string>();
    r.summary =
        j.at("summary").get<std::vector<std::pair<std::string, std::string>>>();
    r.metrics = ValuesFromJson(j.at("metrics"));
    r.estimates = ValuesFromJson(j.at("estimates"));
    return r;
  } catch (const std::exception& e) {
    throw std::runtime_error(
        std::string("sweep: malformed row from a worker: ") + e.what());
  }
}

const char* ToString(SweepRunStatus status) {
  switch (status) {
    case SweepRunStatus::kOk:
      return "ok";
    case SweepRunStatus::kFailedSteps:
      return "failed_steps";
    case SweepRunStatus::kError:
      return "error";
  }
  return "error";
}

std::vector<std::string> SummaryFieldNames() {
  std::vector<std::string> names;
  for (const auto& field : ScalarFields(SummaryToJson(Scene{}, {}))) {
    names.push_back(field.first);
  }
  return names;
}

SweepRow RunSweepPoint(const std::string& scene_path, const SweepPoint& point,
                       const SweepOptions& options) {
  SweepRow row;
  row.index = point.index;
  row.values = point.values;
  try {
    std::vector<std::string> overrides = options.fixed_overrides;
    overrides.insert(overrides.end(), point.overrides.begin(),
                     point.overrides.end());
    const Scene scene = LoadScene(scene_path, overrides);
    MetricsRecorder recorder(scene, options.metrics);
    SimulationOptions sim;
    sim.on_step = [&recorder](const TimeStepper& stepper,
                              const StepInfo& info) {
      recorder.OnStep(stepper, info);
    };
    const SimulationSummary summary = RunSimulation(scene, sim);
    row.summary = ScalarFields(SummaryToJson(scene, summary));
    row.metrics = recorder.Metrics();
    row.estimates = recorder.Estimates();
    row.status = summary.failed_steps > 0 ? SweepRunStatus::kFailedSteps
                                          : SweepRunStatus::kOk;
    row.error = summary.first_failure;
  } catch (const std::exception& e) {
    row.status = SweepRunStatus::kError;
    row.error = e.what();
    row.summary.clear();
    row.metrics.clear();
    row.estimates.clear();
  }
  return row;
}

std::vector<SweepRow> RunSweep(const std::string& scene_path,
                               const std::vector<SweepAxis>& axes,
                               const SweepOptions& options) {
  // Validate the metric names before starting: against the definitions,
  // and body and joint metrics against the bodies and robots of the first
  // point's scene (a scene that does not load is left to the rows' errors).
  bool body_metrics = false;
  for (const std::string& name : options.metrics.metrics) {
    const std::string problem = MetricNameProblem(name);
    if (!problem.empty()) {
      throw std::invalid_argument("metric '" + name + "': " + problem);
    }
    BodyMetric body;
    JointMetric joint;
    body_metrics = body_metrics || ParseBodyMetric(name, &body) ||
                   ParseJointMetric(name, &joint);
  }
  std::vector<SweepPoint> points;
  for (SweepPoint& p : ExpandSweep(axes)) {
    if (InShard(p.index, options.shard)) points.push_back(std::move(p));
  }
  if (body_metrics && !points.empty()) {
    std::vector<std::string> overrides = options.fixed_overrides;
    overrides.insert(overrides.end(), points[0].overrides.begin(),
                     points[0].overrides.end());
    Scene scene;
    bool loaded = true;
    try {
      scene = LoadScene(scene_path, overrides);
    } catch (const std::exception&) {
      loaded = false;
    }
    if (loaded) CheckMetricNames(options.metrics.metrics, scene);
  }
  // Rows recovered from the journal are kept; only the other points run.
  std::unique_ptr<SweepJournal> journal;
  std::vector<SweepRow> rows;
  if (!options.journal.empty()) {
    journal = std::make_unique<SweepJournal>(
        options.journal, MakeSweepIdentity(scene_path, axes, options),
        options.resume);
    rows = journal->recovered();
  }
  std::set<int> recovered;
  for (const SweepRow& r : rows) recovered.insert(r.index);
  std::vector<SweepPoint> pending;
  for (SweepPoint& p : points) {
    if (!recovered.count(p.index)) pending.push_back(std::move(p));
  }
  const int total = static_cast<int>(recovered.size() + pending.size());
  const int count = static_cast<int>(pending.size());
  int finished = static_cast<int>(recovered.size());
  if (options.on_row) {
    for (const SweepRow& r : rows) options.on_row(r, true);
  }
  if (finished > 0 && options.progress) options.progress(finished, total);
  rows.resize(total);
  int jobs = options.jobs > 0
                 ? options.jobs
                 : static_cast<int>(std::thread::hardware_concurrency());
  jobs = std::max(1, std::min(jobs, std::max(count, 1)));
  // A finished run: journal, partial table, progress (never concurrently).
  auto finish = [&](SweepRow row) {
    if (journal) journal->Append(row);
    if (options.on_row) options.on_row(row, false);
    rows[finished++] = std::move(row);
    if (options.progress) options.progress(finished, total);
  };
  auto sorted = [&rows]() {
    std::sort(
        rows.begin(), rows.end(),
        [](const SweepRow& a, const SweepRow& b) { return a.index < b.index; });
    return std::move(rows);
  };
  if (options.workers == SweepWorkers::kProcesses) {
    RunInChildProcesses(
        count, jobs,
        [&](int i) {
          return SerializeSweepRow(
              RunSweepPoint(scene_path, pending[i], options));
        },
        [&](int i, const std::string& output, const std::string& failure) {
          SweepRow row;
          if (failure.empty()) {
            row = DeserializeSweepRow(output);
          } else {
            row.index = pending[i].index;
            row.values = pending[i].values;
            row.status = SweepRunStatus::kError;
            row.error = failure;
          }
          finish(std::move(row));
        });
    return sorted();
  }
  // In threads: the points on a pool of `jobs` threads (the caller's
  // included), handed out in order; the rows are finished (journal, on_row,
  // progress) one at a time. The first failure to finish a row stops the
  // hand-out, and rows that finish after it are dropped.
  std::mutex mutex;
  std::exception_ptr failure;
  ThreadPool pool(std::max(jobs, 1));
  pool.ForEach(count, [&](int i, int) {
    SweepRow row = RunSweepPoint(scene_path, pending[i], options);
    std::lock_guard<std::mutex> lock(mutex);
    if (failure) return;
    try {
      finish(std::move(row));
    } catch (...) {
      failure = std::current_exception();
      throw;  // ForEach hands out no more points and rethrows it
    }
  });
  return sorted();
}

}  // namespace sapcontact
