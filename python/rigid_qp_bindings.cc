// Python RigidQpSolver, RigidQpSolverOptions, RigidQpResults and
// RigidQpStatus: the rigid-contact cone QP solved by an interior-point
// method (docs/theory.md §10), independently of SAP. solve() releases the
// GIL.
#include <pybind11/stl.h>

#include <string>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact::python {
namespace {

const EnumNames<RigidQpLinearSolver> kRigidLinearSolvers = {
    {"auto", RigidQpLinearSolver::kAuto},
    {"dense", RigidQpLinearSolver::kDense},
    {"sparse", RigidQpLinearSolver::kSparse}};

// What RigidQpSolver.solve returns.
struct PyRigidResult {
  RigidQpStatus status{RigidQpStatus::kNumericalError};
  std::string reason;
  py::object impulses, constraint_velocities, velocities, unbounded_direction;
  double objective{0}, primal_residual{0}, dual_residual{0}, relative_gap{0},
      relative_complementarity{0};
  int iterations{0};
  bool used_sparse{false};
};

struct PyRigidSolver {
  RigidQpSolverOptions options;
};

}  // namespace

void DefineRigidQp(py::module_& m) {
  py::enum_<RigidQpStatus>(m, "RigidQpStatus",
                           "Outcome of the rigid-contact QP solver.")
      .value("solved", RigidQpStatus::kSolved)
      .value("solved_reduced_accuracy", RigidQpStatus::kSolvedReducedAccuracy)
      .value("max_iterations", RigidQpStatus::kMaxIterations)
      .value("infeasible", RigidQpStatus::kInfeasible)
      .value("numerical_error", RigidQpStatus::kNumericalError);

  py::class_<RigidQpSolverOptions> o(
      m, "RigidQpSolverOptions",
      "Settings of the interior-point solver of the rigid-contact cone QP "
      "(C++ RigidQpSolverOptions), with the C++ defaults; construct with "
      "keywords.");
  o.def(py::init([](const py::kwargs& kw) {
          return FromKeywords(RigidQpSolverOptions{}, kw,
                              "RigidQpSolverOptions");
        }),
        "RigidQpSolverOptions(**fields).")
      .def_readwrite("max_iterations", &RigidQpSolverOptions::max_iterations)
      .def_readwrite("feasibility_tolerance",
                     &RigidQpSolverOptions::feasibility_tolerance)
      .def_readwrite("gap_tolerance", &RigidQpSolverOptions::gap_tolerance)
      .def_readwrite("max_polish_iterations",
                     &RigidQpSolverOptions::max_polish_iterations)
      .def_readwrite("reduced_tolerance",
                     &RigidQpSolverOptions::reduced_tolerance)
      .def_readwrite("sparse_min_variables",
                     &RigidQpSolverOptions::sparse_min_variables)
      .def_readwrite("sparse_max_density",
                     &RigidQpSolverOptions::sparse_max_density);
  DefEnumProperty(o, "linear_solver", &RigidQpSolverOptions::linear_solver,
                  kRigidLinearSolvers,
                  "'auto' (default), 'dense' or 'sparse' KKT factorization.");

  py::class_<PyRigidResult>(
      m, "RigidQpResults",
      "Results of RigidQpSolver.solve: impulses and constraint_velocities "
      "(nc, 3) (n, t1, t2) [N*s, m/s], velocities (nv,), objective, "
      "iterations, residuals and status (RigidQpStatus; reason explains a "
      "failure).")
      .def_readonly("status", &PyRigidResult::status)
      .def_property_readonly(
          "solved",
          [](const PyRigidResult& r) {
            return r.status == RigidQpStatus::kSolved ||
                   r.status == RigidQpStatus::kSolvedReducedAccuracy;
          },
          "status is solved or solved_reduced_accuracy.")
      .def_readonly("reason", &PyRigidResult::reason)
      .def_readonly("impulses", &PyRigidResult::impulses)
      .def_readonly("constraint_velocities",
                    &PyRigidResult::constraint_velocities)
      .def_readonly("velocities", &PyRigidResult::velocities)
      .def_readonly("unbounded_direction", &PyRigidResult::unbounded_direction)
      .def_readonly("objective", &PyRigidResult::objective)
      .def_readonly("iterations", &PyRigidResult::iterations)
      .def_readonly("primal_residual", &PyRigidResult::primal_residual)
      .def_readonly("dual_residual", &PyRigidResult::dual_residual)
      .def_readonly("relative_gap", &PyRigidResult::relative_gap)
      .def_readonly("relative_complementarity",
                    &PyRigidResult::relative_complementarity)
      .def_readonly("used_sparse", &PyRigidResult::used_sparse);

  py::class_<PyRigidSolver>(
      m, "RigidQpSolver",
      "The rigid-contact limit (docs/theory.md §10): the cone QP "
      "min 1/2 ||v - v*||_A^2 s.t. the contact velocities lie in the dual "
      "friction cone, solved independently of SAP by an interior-point "
      "method. Contact stiffness and dissipation are ignored (rigid), "
      "friction is used. solve() releases the GIL.")
      .def(py::init([](const py::object& options, const py::kwargs& kw) {
             RigidQpSolverOptions o;
             if (!options.is_none()) {
               o = CastArgument<RigidQpSolverOptions>(options, "options",
                                                      "RigidQpSolverOptions");
             }
             if (kw.size() > 0) o = FromKeywords(o, kw, "RigidQpSolverOptions");
             return PyRigidSolver{o};
           }),
           py::arg("options") = py::none(),
           "RigidQpSolver(options=None, **fields).")
      .def(
          "solve",
          [](const PyRigidSolver& s, PyProblem& p) {
            RigidQpResult r;
            {
              SolveGuard guard(p);
              py::gil_scoped_release release;
              r = SolveRigidContactQp(p.problem, s.options);
            }
            PyRigidResult out;
            out.status = r.status;
            out.reason = r.reason;
            out.impulses = ToNumpyRows3(r.impulses);
            out.constraint_velocities = ToNumpyRows3(r.constraint_velocities);
            out.velocities = ToNumpy(r.velocities);
            out.unbounded_direction = ToNumpy(r.unbounded_direction);
            out.objective = r.objective;
            out.iterations = r.iterations;
            out.primal_residual = r.primal_residual;
            out.dual_residual = r.dual_residual;
            out.relative_gap = r.relative_gap;
            out.relative_complementarity = r.relative_complementarity;
            out.used_sparse = r.used_sparse;
            return out;
          },
          py::arg("problem"),
          "Solves the rigid-contact QP of a SapProblem; returns "
          "RigidQpResults. Raises ValueError for an invalid problem.");
}

}  // namespace sapcontact::python
