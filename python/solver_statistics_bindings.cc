// Python SapSolverStatistics and SapIslandStatistics: per-solve iteration
// counts, costs, residuals and wall times (C++ SapSolverStatistics), plain
// Python values.
#include <pybind11/stl.h>

#include "python/bindings.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact::python {

void DefineSolverStatistics(py::module_& m) {
  py::class_<SapIslandStatistics>(
      m, "SapIslandStatistics",
      "One island of a solve (a connected component of the participating "
      "trees, solved as its own Newton problem; docs/theory.md §8).")
      .def_readonly("trees", &SapIslandStatistics::trees)
      .def_readonly("velocities", &SapIslandStatistics::velocities)
      .def_readonly("contacts", &SapIslandStatistics::contacts)
      .def_readonly("newton_iterations",
                    &SapIslandStatistics::newton_iterations)
      .def_readonly("line_search_iterations",
                    &SapIslandStatistics::line_search_iterations)
      .def_readonly("predicted_iterations",
                    &SapIslandStatistics::predicted_iterations)
      .def_readonly("rejected_predictions",
                    &SapIslandStatistics::rejected_predictions)
      .def_readonly("dense", &SapIslandStatistics::dense)
      .def_readonly("start_candidate", &SapIslandStatistics::start_candidate)
      .def_readonly("final_scaled_residual",
                    &SapIslandStatistics::final_scaled_residual)
      .def_readonly("final_cost", &SapIslandStatistics::final_cost, "[J]");
  py::class_<SapSolverStatistics>(
      m, "SapSolverStatistics",
      "Per-solve statistics (C++ SapSolverStatistics): iteration counts, "
      "per-Newton-round cost [J], step size alpha, scaled residual and "
      "line-search iterations, factorization data and wall times per phase "
      "[s]. Plain Python values; as_dict() gives them all.")
      .def_readonly("newton_iterations",
                    &SapSolverStatistics::newton_iterations)
      .def_readonly("island_newton_iterations",
                    &SapSolverStatistics::island_newton_iterations)
      .def_readonly("factorizations", &SapSolverStatistics::factorizations)
      .def_readonly("islands", &SapSolverStatistics::islands)
      .def_readonly("largest_island_trees",
                    &SapSolverStatistics::largest_island_trees)
      .def_readonly("largest_island_velocities",
                    &SapSolverStatistics::largest_island_velocities)
      .def_readonly("penetrating_contacts",
                    &SapSolverStatistics::penetrating_contacts)
      .def_readonly("speculative_contacts",
                    &SapSolverStatistics::speculative_contacts)
      .def_readonly("excluded_contacts",
                    &SapSolverStatistics::excluded_contacts)
      .def_readonly("reincluded_contacts",
                    &SapSolverStatistics::reincluded_contacts)
      .def_readonly("low_rank_updates", &SapSolverStatistics::low_rank_updates)
      .def_readonly("island_statistics",
                    &SapSolverStatistics::island_statistics)
      .def_readonly("predicted_iterations",
                    &SapSolverStatistics::predicted_iterations)
      .def_readonly("predicted_contacts",
                    &SapSolverStatistics::predicted_contacts)
      .def_readonly("rejected_predictions",
                    &SapSolverStatistics::rejected_predictions)
      .def_readonly("line_search_iterations",
                    &SapSolverStatistics::line_search_iterations)
      .def_readonly("cost", &SapSolverStatistics::cost,
                    "Cost l(v_k) before each Newton round [J].")
      .def_readonly("alpha", &SapSolverStatistics::alpha)
      .def_readonly("scaled_residual", &SapSolverStatistics::scaled_residual)
      .def_readonly("line_search_iterations_per_newton",
                    &SapSolverStatistics::line_search_iterations_per_newton)
      .def_readonly("final_scaled_residual",
                    &SapSolverStatistics::final_scaled_residual)
      .def_readonly("final_cost", &SapSolverStatistics::final_cost, "[J]")
      .def_readonly("reciprocal_condition",
                    &SapSolverStatistics::reciprocal_condition)
      .def_readonly("symbolic_analyses",
                    &SapSolverStatistics::symbolic_analyses)
      .def_readonly("participating_trees",
                    &SapSolverStatistics::participating_trees)
      .def_readonly("participating_velocities",
                    &SapSolverStatistics::participating_velocities)
      .def_readonly("patches", &SapSolverStatistics::patches)
      .def_readonly("time_model", &SapSolverStatistics::time_model, "[s]")
      .def_readonly("time_assembly", &SapSolverStatistics::time_assembly, "[s]")
      .def_readonly("time_factorization",
                    &SapSolverStatistics::time_factorization, "[s]")
      .def_readonly("time_line_search", &SapSolverStatistics::time_line_search,
                    "[s]")
      .def_readonly("time_other", &SapSolverStatistics::time_other, "[s]")
      .def_readonly("time_total", &SapSolverStatistics::time_total, "[s]")
      .def(
          "as_dict",
          [](py::object self) {
            py::dict d;
            for (const char* name : {"newton_iterations",
                                     "island_newton_iterations",
                                     "factorizations",
                                     "islands",
                                     "largest_island_trees",
                                     "largest_island_velocities",
                                     "penetrating_contacts",
                                     "speculative_contacts",
                                     "excluded_contacts",
                                     "reincluded_contacts",
                                     "low_rank_updates",
                                     "predicted_iterations",
                                     "predicted_contacts",
                                     "rejected_predictions",
                                     "line_search_iterations",
                                     "cost",
                                     "alpha",
                                     "scaled_residual",
                                     "line_search_iterations_per_newton",
                                     "final_scaled_residual",
                                     "final_cost",
                                     "reciprocal_condition",
                                     "symbolic_analyses",
                                     "participating_trees",
                                     "participating_velocities",
                                     "patches",
                                     "time_model",
                                     "time_assembly",
                                     "time_factorization",
                                     "time_line_search",
                                     "time_other",
                                     "time_total"}) {
              d[name] = self.attr(name);
            }
            return d;
          },
          "The statistics as a dict of plain Python values (islands left "
          "out).");
}

}  // namespace sapcontact::python
