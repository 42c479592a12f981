// Python binding of parameter sweeps (studies/): the low-level _sweep that
// runs the points and returns the table as text cells; sapcontact.sweep
// (__init__.py) turns it into numpy columns and a pandas DataFrame. The
// columns are those of sweep.csv, but numbers are exact: metrics and
// estimates as "%.17g" (sweep.csv rounds them to 9 digits; "inf" and "-inf"
// stay, NaN is an empty cell), summary fields as summary.json has them.
#include <pybind11/stl.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/studies/metrics.h"
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

}  // namespace

void DefineSweep(py::module_& m) {
  m.def(
      "_sweep",
      [](const py::object& scene, const std::vector<std::string>& vary,
         const std::vector<std::string>& fixed,
         const std::vector<std::string>& metrics, int jobs,
         const std::string& workers, double window) {
        const std::string path = PathArgument(scene, "scene");
        std::vector<SweepAxis> axes;
        for (const std::string& spec : vary) {
          axes.push_back(ParseSweepAxis(spec));
        }
        // As sapsim sweep: unknown metrics, and bad keys or values common
        // to every run (those of the first point), fail before any run.
        for (const std::string& name : metrics) {
          const std::string problem = MetricNameProblem(name);
          if (!problem.empty()) {
            throw py::value_error("metrics: '" + name + "': " + problem);
          }
        }
        std::vector<std::string> first = fixed;
        const std::vector<SweepPoint> points = ExpandSweep(axes);
        if (!points.empty()) {
          first.insert(first.end(), points[0].overrides.begin(),
                       points[0].overrides.end());
        }
        try {
          StepCount(LoadScene(path, first));
        } catch (const SceneError& e) {
          throw py::value_error(e.what());
        }
        SweepOptions options;
        options.fixed_overrides = fixed;
        options.metrics.metrics = metrics;
        options.metrics.window_fraction = window;
        options.jobs = jobs;
        if (workers == "processes") {
          options.workers = SweepWorkers::kProcesses;
        } else if (workers == "threads") {
          options.workers = SweepWorkers::kThreads;
        } else {
          throw py::value_error("workers: '" + workers +
                                "' is not one of 'processes', 'threads'");
        }
        SweepTable table;
        {
          py::gil_scoped_release release;
          const std::vector<SweepRow> rows = RunSweep(path, axes, options);
          table = MakeSweepTable(
              axes, metrics.empty() ? DefaultMetricNames() : metrics, rows);
          ExactMetricCells(rows, &table);
        }
        return py::make_tuple(table.columns, table.rows);
      },
      py::arg("scene"), py::arg("vary"), py::arg("fixed"), py::arg("metrics"),
      py::arg("jobs"), py::arg("workers"), py::arg("window"),
      "Runs a sweep and returns (columns, rows) of text cells (the columns "
      "of sweep.csv, numbers exact). Use sapcontact.sweep().");
}

}  // namespace sapcontact::python
