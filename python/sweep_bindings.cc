// Python binding of parameter sweeps (studies/): the low-level _sweep that
// runs the points and returns the table as text cells; sapcontact.sweep
// (__init__.py) turns it into numpy columns and a pandas DataFrame.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "python/bindings.h"
#include "sapcontact/studies/metrics.h"
#include "sapcontact/studies/sweep_runner.h"
#include "sapcontact/studies/sweep_table.h"

namespace sapcontact::python {

void DefineSweep(py::module_& m) {
  m.def(
      "_sweep",
      [](const py::object& scene, const std::vector<std::string>& vary,
         const std::vector<std::string>& fixed,
         const std::vector<std::string>& metrics, int jobs,
         const std::string& workers) {
        const std::string path = PathArgument(scene, "scene");
        std::vector<SweepAxis> axes;
        for (const std::string& spec : vary) {
          axes.push_back(ParseSweepAxis(spec));
        }
        SweepOptions options;
        options.fixed_overrides = fixed;
        options.metrics.metrics = metrics;
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
        }
        return py::make_tuple(table.columns, table.rows);
      },
      py::arg("scene"), py::arg("vary"), py::arg("fixed"), py::arg("metrics"),
      py::arg("jobs"), py::arg("workers"),
      "Runs a sweep and returns (columns, rows) of text cells as sweep.csv "
      "has them. Use sapcontact.sweep().");
}

}  // namespace sapcontact::python
