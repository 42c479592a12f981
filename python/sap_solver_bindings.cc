// Python SapSolver, its SapResults and SapSolverStatus, and
// calc_inverse_dynamics (SAP paper §III-B). Solves release the GIL; results
// are float64 numpy arrays (copies), per-contact 3-vectors as rows of
// (num_contacts, 3) arrays in the contact frame (n, t1, t2)
// (contact_model/conventions.h).
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact::python {
namespace {

// What a SapSolver.solve returns: the C++ results as numpy arrays.
struct PySapResults {
  SapSolverStatus status{SapSolverStatus::kMaxIterations};
  std::string message;
  py::object v, gamma, v_c, generalized_impulse, constraint_velocities,
      constraint_impulses, w, R_n, R_t, effective_stiffness;
  SapSolverStatistics statistics;
};

PySapResults ToPython(const SapSolverResults& r) {
  PySapResults p;
  p.status = r.status;
  p.message = r.message;
  p.v = ToNumpy(r.v);
  p.gamma = ToNumpyRows3(r.gamma);
  p.v_c = ToNumpyRows3(r.v_c);
  p.generalized_impulse = ToNumpy(r.generalized_impulse);
  p.constraint_velocities = ToNumpy(r.constraint_velocities);
  p.constraint_impulses = ToNumpy(r.constraint_impulses);
  p.w = ToNumpy(r.delassus_estimate);
  p.R_n = ToNumpy(r.R_n);
  p.R_t = ToNumpy(r.R_t);
  p.effective_stiffness = ToNumpy(r.effective_stiffness);
  p.statistics = r.statistics;
  return p;
}

// The Python SapSolver: one C++ solver and a lock, so that a solver shared
// by threads solves one problem at a time (the C++ object must not be used
// by two threads at once; separate solvers run in parallel).
struct PySapSolver {
  explicit PySapSolver(const SapSolverParameters& p) : solver(p) {}
  SapSolver solver;
  std::mutex mutex;
};

struct PyInverseDynamics {
  py::object v_c, gamma, constraint_velocities, constraint_impulses,
      generalized_impulse;
};

// Splits the stacked rows of InverseDynamicsResult (3 per contact, then the
// constraints' rows) into the contact part (rows of 3) and the rest.
PyInverseDynamics SplitInverseDynamics(const InverseDynamicsResult& r,
                                       int num_contacts) {
  const int nc3 = 3 * num_contacts;
  const int rest = static_cast<int>(r.v_c.size()) - nc3;
  PyInverseDynamics p;
  p.v_c = ToNumpyRows3(r.v_c.head(nc3));
  p.gamma = ToNumpyRows3(r.gamma.head(nc3));
  p.constraint_velocities = ToNumpy(Eigen::VectorXd(r.v_c.tail(rest)));
  p.constraint_impulses = ToNumpy(Eigen::VectorXd(r.gamma.tail(rest)));
  p.generalized_impulse = ToNumpy(r.generalized_impulse);
  return p;
}

SapSolverParameters MergedParameters(const py::object& parameters,
                                     const py::kwargs& kwargs) {
  SapSolverParameters p;
  if (!parameters.is_none()) {
    p = CastArgument<SapSolverParameters>(parameters, "parameters",
                                          "SapSolverParameters");
  }
  if (kwargs.size() > 0) p = FromKeywords(p, kwargs, "SapSolverParameters");
  Validate(p);
  return p;
}

}  // namespace

py::object SapResultsToPython(const SapSolverResults& results) {
  return py::cast(ToPython(results));
}

void DefineSapSolver(py::module_& m) {
  py::enum_<SapSolverStatus>(m, "SapSolverStatus", "Outcome of a SAP solve.")
      .value("converged", SapSolverStatus::kConverged)
      .value("max_iterations", SapSolverStatus::kMaxIterations)
      .value("stalled", SapSolverStatus::kStalled)
      .value("ill_conditioned", SapSolverStatus::kIllConditioned)
      .value("factorization_failed", SapSolverStatus::kFactorizationFailed);

  py::class_<PySapResults>(
      m, "SapResults",
      "Results of SapSolver.solve, in the problem's order (float64 numpy "
      "arrays, copies).\n\n"
      "v (nv,): generalized velocities [m/s, rad/s]; gamma (nc, 3): impulses "
      "(n, t1, t2) [N*s]; v_c (nc, 3): contact velocities J v [m/s]; "
      "generalized_impulse (nv,): J' gamma, so that A (v - v*) = J' gamma; "
      "constraint_velocities, constraint_impulses: rows of the limit, "
      "holonomic and actuation constraints in that order; w (nc,): Delassus "
      "estimates [1/kg]; R_n, R_t (nc,): regularization [(m/s)/(N*s)]; "
      "effective_stiffness (nc,): k after the near-rigid floor [N/m]. "
      "status: a SapSolverStatus (non-convergence is reported here, never "
      "raised); message explains a failure.")
      .def_readonly("status", &PySapResults::status)
      .def_property_readonly(
          "converged",
          [](const PySapResults& r) {
            return r.status == SapSolverStatus::kConverged;
          },
          "status == SapSolverStatus.converged.")
      .def_readonly("message", &PySapResults::message)
      .def_readonly("v", &PySapResults::v)
      .def_readonly("gamma", &PySapResults::gamma)
      .def_readonly("v_c", &PySapResults::v_c)
      .def_readonly("generalized_impulse", &PySapResults::generalized_impulse)
      .def_readonly("constraint_velocities",
                    &PySapResults::constraint_velocities)
      .def_readonly("constraint_impulses", &PySapResults::constraint_impulses)
      .def_readonly("w", &PySapResults::w)
      .def_readonly("R_n", &PySapResults::R_n)
      .def_readonly("R_t", &PySapResults::R_t)
      .def_readonly("effective_stiffness", &PySapResults::effective_stiffness)
      .def_readonly("statistics", &PySapResults::statistics)
      .def("__repr__", [](const PySapResults& r) {
        return std::string("<sapcontact.SapResults status=") +
               ToString(r.status) + " newton_iterations=" +
               std::to_string(r.statistics.newton_iterations) + ">";
      });

  py::class_<PySapSolver>(
      m, "SapSolver",
      "The SAP Newton solver (SAP paper §IV, Algorithm 2; docs/theory.md "
      "§7).\n\n"
      "Keep one solver per simulation: the sparse symbolic analysis is "
      "reused while the contact graph does not change. solve() releases the "
      "GIL: separate solvers solve in parallel threads, each result "
      "bitwise equal to the same solves run alone; a solver shared by "
      "threads solves one problem at a time.")
      .def(py::init([](const py::object& parameters, const py::kwargs& kw) {
             return std::make_unique<PySapSolver>(
                 MergedParameters(parameters, kw));
           }),
           py::arg("parameters") = py::none(),
           "SapSolver(parameters=None, **fields): a solver with "
           "SapSolverParameters (default: the C++ defaults), the given "
           "fields replaced. Raises ValueError for a field out of range.")
      .def_property_readonly(
          "parameters",
          [](const PySapSolver& s) { return s.solver.parameters(); },
          "A copy of the solver's SapSolverParameters.")
      .def(
          "solve",
          [](PySapSolver& s, PyProblem& p, const py::object& v_guess) {
            std::optional<Eigen::VectorXd> guess;
            if (!v_guess.is_none()) {
              guess = ToVector(v_guess, "v_guess", p.problem.num_velocities());
            }
            SapSolverResults r;
            {
              SolveGuard guard(p);
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(s.mutex);
              r = s.solver.Solve(p.problem, guess ? &*guess : nullptr);
            }
            return ToPython(r);
          },
          py::arg("problem"), py::arg("v_guess") = py::none(),
          "Solves one time step and returns SapResults. v_guess (nv,): "
          "velocities to start Newton from (e.g. the previous step's); "
          "default v*. Raises ValueError for an invalid problem (naming the "
          "tree or contact and the field); non-convergence is reported in "
          "results.status.")
      .def_property_readonly(
          "total_symbolic_analyses",
          [](const PySapSolver& s) {
            return s.solver.total_symbolic_analyses();
          },
          "Sparse symbolic analyses over this solver's lifetime.");

  py::class_<PyInverseDynamics>(
      m, "InverseDynamics",
      "Result of calc_inverse_dynamics: v_c and gamma (nc, 3) [m/s, N*s], "
      "constraint_velocities and constraint_impulses (rows of the limit, "
      "holonomic and actuation constraints), generalized_impulse (nv,).")
      .def_readonly("v_c", &PyInverseDynamics::v_c)
      .def_readonly("gamma", &PyInverseDynamics::gamma)
      .def_readonly("constraint_velocities",
                    &PyInverseDynamics::constraint_velocities)
      .def_readonly("constraint_impulses",
                    &PyInverseDynamics::constraint_impulses)
      .def_readonly("generalized_impulse",
                    &PyInverseDynamics::generalized_impulse);
  m.def(
      "calc_inverse_dynamics",
      [](PyProblem& p, const py::object& v, const py::object& parameters) {
        const Eigen::VectorXd vv = ToVector(v, "v", p.problem.num_velocities());
        const RegularizationParameters reg =
            parameters.is_none()
                ? RegularizationParameters{}
                : CastArgument<SapSolverParameters>(parameters, "parameters",
                                                    "SapSolverParameters")
                      .regularization;
        InverseDynamicsResult r;
        {
          SolveGuard guard(p);
          py::gil_scoped_release release;
          r = CalcInverseDynamics(p.problem, reg, vv);
        }
        return SplitInverseDynamics(
            r, static_cast<int>(p.problem.contacts.size()));
      },
      py::arg("problem"), py::arg("v"), py::arg("parameters") = py::none(),
      "Inverse dynamics (SAP paper §III-B, Eq. (23)): for velocities v (nv,) "
      "the impulses gamma = P_F(y(J v)) the SAP model gives them, with the "
      "regularization of `parameters` (SapSolverParameters; default the C++ "
      "defaults). Returns InverseDynamics with v_c, gamma (nc, 3), the "
      "constraints' rows and generalized_impulse J' gamma (nv,). At a "
      "solution v of SapSolver, generalized_impulse equals A (v - v*).");
  m.attr("CalcInverseDynamics") = m.attr("calc_inverse_dynamics");
}

}  // namespace sapcontact::python
