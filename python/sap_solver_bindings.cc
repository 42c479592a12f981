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
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

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

// The C++ linearization at a Python SapResults (its status and v).
std::unique_ptr<SapSolverDerivatives> Linearize(const PySapSolver& s,
                                                PyProblem& p,
                                                const PySapResults& r) {
  SapSolverResults cpp;
  cpp.status = r.status;
  cpp.v = ToVector(r.v, "results.v", p.problem.num_velocities());
  SolveGuard guard(p);
  py::gil_scoped_release release;
  return std::make_unique<SapSolverDerivatives>(p.problem, cpp,
                                                s.solver.parameters());
}

const char* RegionName(ProjectionRegion region) {
  switch (region) {
    case ProjectionRegion::kStiction:
      return "stiction";
    case ProjectionRegion::kSliding:
      return "sliding";
    case ProjectionRegion::kNoContact:
      break;
  }
  return "no_contact";
}

// A (3 nc) x K matrix as an (nc, 3, K) array.
py::object Rows3(const Eigen::MatrixXd& m) {
  const py::ssize_t nc = m.rows() / 3;
  return ToNumpy(m).attr("reshape")(nc, 3, m.cols());
}

py::dict DerivativesToPython(const SapSolverDerivatives& d) {
  const SapSolutionJacobians J = d.Jacobians();
  py::dict out;
  out["dv_dvstar"] = ToNumpy(J.dv_dvstar);
  out["dv_dphi0"] = ToNumpy(J.dv_dphi0);
  out["dv_dstiffness"] = ToNumpy(J.dv_dstiffness);
  out["dv_ddissipation"] = ToNumpy(J.dv_ddissipation);
  out["dv_dfriction"] = ToNumpy(J.dv_dfriction);
  out["dv_dtime_step"] = ToNumpy(J.dv_dtime_step);
  out["dgamma_dvstar"] = Rows3(J.dgamma_dvstar);
  out["dgamma_dphi0"] = Rows3(J.dgamma_dphi0);
  out["dgamma_dstiffness"] = Rows3(J.dgamma_dstiffness);
  out["dgamma_ddissipation"] = Rows3(J.dgamma_ddissipation);
  out["dgamma_dfriction"] = Rows3(J.dgamma_dfriction);
  out["dgamma_dtime_step"] = ToNumpyRows3(J.dgamma_dtime_step);
  // The rows' parameters (columns: the rows of that kind, problem order).
  const std::pair<const char*, const Eigen::MatrixXd*> rows[][2] = {
      {{"dv_dlimit_g0", &J.dv_dlimit_g0},
       {"dgamma_dlimit_g0", &J.dgamma_dlimit_g0}},
      {{"dv_dholonomic_g0", &J.dv_dholonomic_g0},
       {"dgamma_dholonomic_g0", &J.dgamma_dholonomic_g0}},
      {{"dv_dactuation_target", &J.dv_dactuation_target},
       {"dgamma_dactuation_target", &J.dgamma_dactuation_target}},
      {{"dv_dactuation_target_velocity", &J.dv_dactuation_target_velocity},
       {"dgamma_dactuation_target_velocity",
        &J.dgamma_dactuation_target_velocity}},
      {{"dv_dactuation_feedforward", &J.dv_dactuation_feedforward},
       {"dgamma_dactuation_feedforward", &J.dgamma_dactuation_feedforward}},
      {{"dv_dactuation_kp", &J.dv_dactuation_kp},
       {"dgamma_dactuation_kp", &J.dgamma_dactuation_kp}},
      {{"dv_dactuation_kd", &J.dv_dactuation_kd},
       {"dgamma_dactuation_kd", &J.dgamma_dactuation_kd}},
      {{"dv_dactuation_effort_limit", &J.dv_dactuation_effort_limit},
       {"dgamma_dactuation_effort_limit", &J.dgamma_dactuation_effort_limit}}};
  for (const auto& pair : rows) {
    out[pair[0].first] = ToNumpy(*pair[0].second);
    out[pair[1].first] = Rows3(*pair[1].second);
  }
  AddContactRegions(d.regions(), &out);
  out["scaled_residual"] = d.scaled_residual();
  return out;
}

}  // namespace

void AddContactRegions(const std::vector<SapContactRegion>& regions,
                       py::dict* out) {
  py::list region, near_rigid;
  Eigen::VectorXd distance(regions.size());
  for (size_t k = 0; k < regions.size(); ++k) {
    region.append(RegionName(regions[k].region));
    distance(k) = regions[k].boundary_distance;
    near_rigid.append(regions[k].near_rigid);
  }
  (*out)["region"] = region;
  (*out)["boundary_distance"] = ToNumpy(distance);
  (*out)["near_rigid"] = near_rigid;
}

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
      .def(
          "derivatives",
          [](const PySapSolver& s, PyProblem& p, const PySapResults& r) {
            const std::unique_ptr<SapSolverDerivatives> d = Linearize(s, p, r);
            return DerivativesToPython(*d);
          },
          py::arg("problem"), py::arg("results"),
          "Exact derivatives of a converged solve (implicit function "
          "theorem, docs/theory.md §20; one Hessian factorization at the "
          "solution, then one back-substitution per column). Returns a dict "
          "of float64 arrays: dv_dvstar (nv, nv), dv_dphi0, dv_dstiffness, "
          "dv_ddissipation, dv_dfriction (nv, nc), dv_dtime_step (nv,); "
          "dgamma_dvstar (nc, 3, nv), dgamma_dphi0 ... (nc, 3, nc), "
          "dgamma_dtime_step (nc, 3); for the rows of limits, holonomic "
          "constraints and actuation dv_dlimit_g0, dv_dholonomic_g0, "
          "dv_dactuation_target, _target_velocity, _feedforward, _kp, _kd, "
          "_effort_limit (nv, rows of that kind) and the same for gamma; per "
          "contact 'region' ('stiction', "
          "'sliding' or 'no_contact'), 'boundary_distance' [m/s] (the change "
          "of contact velocity that would change the region: the derivative "
          "is one-sided there) and 'near_rigid' (stiffness derivative 0); "
          "'scaled_residual' of the optimality condition. dissipation is "
          "tau_d [s] for model sap, the Hunt-Crossley d [s/m] otherwise. "
          "Raises ValueError if results did not converge.")
      .def(
          "vjp",
          [](const PySapSolver& s, PyProblem& p, const PySapResults& r,
             const py::object& dL_dv, const py::object& dL_dgamma) {
            const std::unique_ptr<SapSolverDerivatives> d = Linearize(s, p, r);
            SapSolutionVector dL;
            if (!dL_dv.is_none()) {
              dL.v = ToVector(dL_dv, "dL_dv", d->num_velocities());
            }
            if (!dL_dgamma.is_none()) {
              // (nc, 3) or (3 nc,): flattened contact-major.
              const py::object flat =
                  py::module_::import("numpy").attr("ravel")(dL_dgamma);
              dL.gamma = ToVector(flat, "dL_dgamma", 3 * d->num_contacts());
            }
            SapParameterVector g;
            {
              SolveGuard guard(p);
              py::gil_scoped_release release;
              g = d->ApplyTranspose(dL);
            }
            py::dict out;
            out["dL_dvstar"] = ToNumpy(g.v_star);
            out["dL_dphi0"] = ToNumpy(g.phi0);
            out["dL_dstiffness"] = ToNumpy(g.stiffness);
            out["dL_ddissipation"] = ToNumpy(g.dissipation);
            out["dL_dfriction"] = ToNumpy(g.friction);
            out["dL_dnormal_velocity0"] = ToNumpy(g.normal_velocity0);
            out["dL_dtime_step"] = g.time_step;
            out["dL_dlimit_g0"] = ToNumpy(g.limit_g0);
            out["dL_dholonomic_g0"] = ToNumpy(g.holonomic_g0);
            out["dL_dactuation_target"] = ToNumpy(g.actuation_target);
            out["dL_dactuation_target_velocity"] =
                ToNumpy(g.actuation_target_velocity);
            out["dL_dactuation_feedforward"] = ToNumpy(g.actuation_feedforward);
            out["dL_dactuation_kp"] = ToNumpy(g.actuation_kp);
            out["dL_dactuation_kd"] = ToNumpy(g.actuation_kd);
            out["dL_dactuation_effort_limit"] =
                ToNumpy(g.actuation_effort_limit);
            return out;
          },
          py::arg("problem"), py::arg("results"), py::arg("dL_dv") = py::none(),
          py::arg("dL_dgamma") = py::none(),
          "Reverse mode: given the gradients of a scalar loss L with respect "
          "to the solve's v (nv,) and gamma ((nc, 3) or (3 nc,)), either None "
          "for zero, returns dL/dtheta for every parameter at once (one "
          "back-substitution): a dict with dL_dvstar (nv,), dL_dphi0, "
          "dL_dstiffness, dL_ddissipation, dL_dfriction, dL_dnormal_velocity0 "
          "(nc,), "
          "dL_dtime_step (float) and the rows' dL_dlimit_g0, "
          "dL_dholonomic_g0, dL_dactuation_target ... (per row).")
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
