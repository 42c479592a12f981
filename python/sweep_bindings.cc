// Python binding of parameter sweeps (studies/): the low-level _sweep that
// runs the points and returns the table as text cells; sapcontact.sweep
// (__init__.py) turns it into numpy columns and a pandas DataFrame; the
// pieces sapcontact.sweep(client=...) maps over Dask (_sweep_points,
// _sweep_point, _sweep_table) and the journal (_SweepJournal). The
// columns are those of sweep.csv, but numbers are exact: metrics and
// estimates as "%.17g" (sweep.csv rounds them to 9 digits; "inf" and "-inf"
// stay, NaN is an empty cell), summary fields as summary.json has them.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/metrics.h"
#include "sapcontact/studies/sweep_journal.h"
#include "sapcontact/studies/sweep_runner.h"
#include "sapcontact/studies/sweep_table.h"

namespace sapcontact::python {
namespace {

std::string ExactNumber(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

// The cells of the metrics and estimates of `rows` replaced by exact ones.
void ExactMetricCells(const std::vector<SweepRow>& rows, SweepTable* table) {
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const auto* list : {&rows[i].metrics, &rows[i].estimates}) {
      for (const MetricValue& m : *list) {
        const int col = table->Column(m.name);
        if (col >= 0) table->rows[i][col] = ExactNumber(m.value);
      }
    }
  }
}

// A sweep's arguments, checked as `sapsim sweep` checks them: unknown
// metrics, and bad keys or values common to every run (those of the first
// point), fail before any run (ValueError).
struct Prepared {
  std::string path;
  std::vector<SweepAxis> axes;
  SweepOptions options;
};

Prepared Prepare(const py::object& scene, const std::vector<std::string>& vary,
                 const std::vector<std::string>& fixed,
                 const std::vector<std::string>& metrics, double window) {
  Prepared p;
  p.path = PathArgument(scene, "scene");
  for (const std::string& spec : vary) p.axes.push_back(ParseSweepAxis(spec));
  for (const std::string& name : metrics) {
    const std::string problem = MetricNameProblem(name);
    if (!problem.empty()) {
      throw py::value_error("metrics: '" + name + "': " + problem);
    }
  }
  std::vector<std::string> first = fixed;
  const std::vector<SweepPoint> points = ExpandSweep(p.axes);
  if (!points.empty()) {
    first.insert(first.end(), points[0].overrides.begin(),
                 points[0].overrides.end());
  }
  try {
    StepCount(LoadScene(p.path, first));
  } catch (const SceneError& e) {
    throw py::value_error(e.what());
  }
  p.options.fixed_overrides = fixed;
  p.options.metrics.metrics = metrics;
  p.options.metrics.window_fraction = window;
  return p;
}

SweepTable Table(const std::vector<SweepAxis>& axes,
                 const std::vector<std::string>& metrics,
                 const std::vector<SweepRow>& rows) {
  SweepTable table = MakeSweepTable(
      axes, metrics.empty() ? DefaultMetricNames() : metrics, rows);
  ExactMetricCells(rows, &table);
  return table;
}

}  // namespace

void DefineSweep(py::module_& m) {
  m.def(
      "_sweep",
      [](const py::object& scene, const std::vector<std::string>& vary,
         const std::vector<std::string>& fixed,
         const std::vector<std::string>& metrics, int jobs,
         const std::string& workers, double window, const std::string& journal,
         bool resume) {
        Prepared p = Prepare(scene, vary, fixed, metrics, window);
        p.options.jobs = jobs;
        p.options.journal = journal;
        p.options.resume = resume;
        if (workers == "processes") {
          p.options.workers = SweepWorkers::kProcesses;
        } else if (workers == "threads") {
          p.options.workers = SweepWorkers::kThreads;
        } else {
          throw py::value_error("workers: '" + workers +
                                "' is not one of 'processes', 'threads'");
        }
        SweepTable table;
        {
          py::gil_scoped_release release;
          // A journal of another sweep: std::invalid_argument, ValueError.
          table = Table(p.axes, metrics, RunSweep(p.path, p.axes, p.options));
        }
        return py::make_tuple(table.columns, table.rows);
      },
      py::arg("scene"), py::arg("vary"), py::arg("fixed"), py::arg("metrics"),
      py::arg("jobs"), py::arg("workers"), py::arg("window"),
      py::arg("journal"), py::arg("resume"),
      "Runs a sweep and returns (columns, rows) of text cells (the columns "
      "of sweep.csv, numbers exact). Use sapcontact.sweep().");
  m.def(
      "_sweep_points",
      [](const py::object& scene, const std::vector<std::string>& vary,
         const std::vector<std::string>& fixed,
         const std::vector<std::string>& metrics, double window) {
        const Prepared p = Prepare(scene, vary, fixed, metrics, window);
        py::list points;
        for (const SweepPoint& point : ExpandSweep(p.axes)) {
          points.append(
              py::make_tuple(point.index, point.values, point.overrides));
        }
        return points;
      },
      py::arg("scene"), py::arg("vary"), py::arg("fixed"), py::arg("metrics"),
      py::arg("window"),
      "Checks a sweep as _sweep does and returns its points as (index, "
      "values, overrides) tuples. Use sapcontact.sweep(client=...).");
  m.def(
      "_sweep_point",
      [](const py::object& scene, const std::vector<std::string>& fixed,
         const std::vector<std::string>& metrics, double window, int index,
         const std::vector<std::string>& values,
         const std::vector<std::string>& overrides) {
        SweepOptions options;
        options.fixed_overrides = fixed;
        options.metrics.metrics = metrics;
        options.metrics.window_fraction = window;
        SweepPoint point;
        point.index = index;
        point.values = values;
        point.overrides = overrides;
        const std::string path = PathArgument(scene, "scene");
        py::gil_scoped_release release;
        return SerializeSweepRow(RunSweepPoint(path, point, options));
      },
      py::arg("scene"), py::arg("fixed"), py::arg("metrics"), py::arg("window"),
      py::arg("index"), py::arg("values"), py::arg("overrides"),
      "Runs one point of a sweep (without the GIL) and returns its row as "
      "text (exact numbers). What each Dask task of sapcontact.sweep runs.");
  m.def(
      "_sweep_table",
      [](const std::vector<std::string>& vary,
         const std::vector<std::string>& metrics,
         const std::vector<std::string>& rows) {
        std::vector<SweepAxis> axes;
        for (const std::string& spec : vary) {
          axes.push_back(ParseSweepAxis(spec));
        }
        std::vector<SweepRow> parsed;
        for (const std::string& r : rows) {
          parsed.push_back(DeserializeSweepRow(r));
        }
        std::sort(parsed.begin(), parsed.end(),
                  [](const SweepRow& a, const SweepRow& b) {
                    return a.index < b.index;
                  });
        const SweepTable table = Table(axes, metrics, parsed);
        return py::make_tuple(table.columns, table.rows);
      },
      py::arg("vary"), py::arg("metrics"), py::arg("rows"),
      "The table (as _sweep returns it) of rows from _sweep_point, sorted "
      "by index.");
  py::class_<SweepJournal>(m, "_SweepJournal",
                           "The journal of a sweep (docs/studies.md, "
                           "\"Resuming\"). Use sapcontact.sweep(journal=).")
      .def(py::init([](const py::object& path, const py::object& scene,
                       const std::vector<std::string>& vary,
                       const std::vector<std::string>& fixed,
                       const std::vector<std::string>& metrics, double window,
                       bool resume) {
             const Prepared p = Prepare(scene, vary, fixed, metrics, window);
             return std::make_unique<SweepJournal>(
                 PathArgument(path, "journal"),
                 MakeSweepIdentity(p.path, p.axes, p.options), resume);
           }),
           py::arg("path"), py::arg("scene"), py::arg("vary"), py::arg("fixed"),
           py::arg("metrics"), py::arg("window"), py::arg("resume"))
      .def(
          "recovered",
          [](const SweepJournal& j) {
            std::vector<std::string> rows;
            for (const SweepRow& r : j.recovered()) {
              rows.push_back(SerializeSweepRow(r));
            }
            return rows;
          },
          "The rows read from the file when it was opened (as text).")
      .def(
          "append",
          [](SweepJournal& j, const std::string& row) {
            j.Append(DeserializeSweepRow(row));
          },
          py::arg("row"), "Appends a row (text from _sweep_point) durably.");
}

}  // namespace sapcontact::python
