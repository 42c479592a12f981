// Python SapSolverParameters: the SAP Newton solver's settings (C++
// SapSolverParameters), the regularization's fields flattened into it, enums
// as text.
#include <pybind11/stl.h>

#include <string>
#include <type_traits>

#include "python/bindings.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact::python {
namespace {

const EnumNames<LineSearchType> kLineSearches = {
    {"exact", LineSearchType::kExact},
    {"backtracking", LineSearchType::kBacktracking}};
const EnumNames<LinearSolverType> kLinearSolvers = {
    {"auto", LinearSolverType::kAuto},
    {"dense", LinearSolverType::kDense},
    {"block_sparse", LinearSolverType::kBlockSparse},
    {"cholmod", LinearSolverType::kCholmod}};
const EnumNames<CholmodFactorKind> kCholmodKinds = {
    {"auto", CholmodFactorKind::kAuto},
    {"supernodal", CholmodFactorKind::kSupernodal},
    {"simplicial", CholmodFactorKind::kSimplicial}};
}  // namespace

void DefineSolverParameters(py::module_& m) {
  py::class_<SapSolverParameters> c(
      m, "SapSolverParameters",
      "Settings of the SAP Newton solver (C++ SapSolverParameters), with the "
      "C++ defaults.\n\n"
      "Construct with keywords, e.g. SapSolverParameters(rel_tolerance=1e-8, "
      "near_rigid_threshold=1.0); unknown names raise TypeError and values "
      "out of range raise ValueError (naming the field) when a solver is "
      "made. The regularization settings (near_rigid_threshold, "
      "friction_regularization, soft_norm_tolerance, "
      "constraint_near_rigid_threshold, supported_delassus_estimate) are "
      "attributes here too (docs/theory.md §5, §19).");
  c.def(py::init([](const py::kwargs& kwargs) {
          SapSolverParameters p = FromKeywords(SapSolverParameters{}, kwargs,
                                               "SapSolverParameters");
          Validate(p);
          return p;
        }),
        "SapSolverParameters(**fields): the defaults, with the given fields "
        "replaced.");
  // The regularization's fields, flattened into the parameters (as the
  // keyword arguments of SapSolverParameters(**fields)).
  auto regularization = [&c](const char* name,
                             auto RegularizationParameters::*field,
                             const char* doc) {
    c.def_property(
        name,
        [field](const SapSolverParameters& p) {
          return p.regularization.*field;
        },
        [field](SapSolverParameters& p,
                std::remove_reference_t<decltype(p.regularization.*field)> v) {
          p.regularization.*field = v;
        },
        doc);
  };
  regularization(
      "near_rigid_threshold", &RegularizationParameters::near_rigid_threshold,
      "beta [-], >= 0 (default 1): R_n never drops below beta^2/(4 pi^2) w_k "
      "(SAP paper §V-B); 0 disables the near-rigid floor.");
  regularization("friction_regularization",
                 &RegularizationParameters::friction_regularization,
                 "sigma [-], > 0 (default 1e-3): R_t = sigma w_k.");
  regularization(
      "soft_norm_tolerance", &RegularizationParameters::soft_norm_tolerance,
      "epsilon_s [N*s], >= 0 (default 1e-8): soft norm of the tangential "
      "impulse (docs/theory.md §4).");
  regularization(
      "constraint_near_rigid_threshold",
      &RegularizationParameters::constraint_near_rigid_threshold,
      "beta_c [-], >= 0 (default 0.1): near-rigid floor of joint limits, "
      "holonomic and actuation rows (docs/theory.md §17).");
  regularization(
      "supported_delassus_estimate",
      &RegularizationParameters::supported_delassus_estimate,
      "Heavy-on-light Delassus estimate (docs/theory.md §19; default True).");
  c.def_readwrite("abs_tolerance", &SapSolverParameters::abs_tolerance,
                  "Absolute convergence tolerance [sqrt(kg) m/s] (1e-14).");
  c.def_readwrite("rel_tolerance", &SapSolverParameters::rel_tolerance,
                  "Relative convergence tolerance [-] (1e-6): ||D grad|| <= "
                  "abs + rel max(||D A v||, ||D J' gamma||).");
  c.def_readwrite("cost_stall_tolerance",
                  &SapSolverParameters::cost_stall_tolerance,
                  "Relative cost decrease below which Newton stops (1e-14).");
  c.def_readwrite("stall_residual_tolerance",
                  &SapSolverParameters::stall_residual_tolerance,
                  "A stalled solve counts as converged below this relative "
                  "residual (1e-3), else status 'stalled'.");
  c.def_readwrite("max_iterations", &SapSolverParameters::max_iterations,
                  "Newton iterations before status 'max_iterations' (100).");
  DefEnumProperty(c, "line_search", &SapSolverParameters::line_search,
                  kLineSearches,
                  "'exact' (default; rtsafe on dl/dalpha, SAP paper §IV-B) or "
                  "'backtracking' (Armijo).");
  c.def_readwrite("max_step", &SapSolverParameters::max_step,
                  "Exact line search interval [0, max_step] (1.5).");
  c.def_readwrite("max_line_search_iterations",
                  &SapSolverParameters::max_line_search_iterations,
                  "Line-search iteration limit (100).");
  c.def_readwrite("line_search_slope_ratio",
                  &SapSolverParameters::line_search_slope_ratio,
                  "Strong-Wolfe slope ratio of the exact search (0.9; 0 "
                  "minimizes along the ray to round-off).");
  c.def_readwrite("factor_reuse_rate", &SapSolverParameters::factor_reuse_rate,
                  "Newton iterations solve with the island's last sparse "
                  "factorization while its residual ratio is at "
                  "most this (0.0: factor every iteration; docs/theory.md "
                  "§8).");
  c.def_readwrite("armijo_c", &SapSolverParameters::armijo_c,
                  "Armijo constant (1e-4).");
  c.def_readwrite("backtracking_rho", &SapSolverParameters::backtracking_rho,
                  "Backtracking reduction factor (0.8).");
  DefEnumProperty(
      c, "linear_solver", &SapSolverParameters::linear_solver, kLinearSolvers,
      "Newton system solver: 'auto' (default: dense LLT for small islands, "
      "block Cholesky on the tree graph otherwise), 'dense', "
      "'block_sparse' or 'cholmod' (docs/theory.md §8).");
  c.def_readwrite("dense_size_threshold",
                  &SapSolverParameters::dense_size_threshold,
                  "'auto': islands of at most this many DOFs are factored "
                  "densely (30).");
  DefEnumProperty(
      c, "cholmod_factor", &SapSolverParameters::cholmod_factor, kCholmodKinds,
      "CHOLMOD method with linear_solver='cholmod': 'auto', 'supernodal' or "
      "'simplicial'.");
  c.def_readwrite("islands", &SapSolverParameters::islands,
                  "Solve each connected component as its own Newton problem "
                  "(True).");
  c.def_readwrite("warm_start_lowest_cost",
                  &SapSolverParameters::warm_start_lowest_cost,
                  "Start each island from the guess or v* of lowest cost "
                  "(True).");
  c.def_readwrite("warm_start_at_rest",
                  &SapSolverParameters::warm_start_at_rest,
                  "With warm_start_lowest_cost: an island whose first guess "
                  "carries less momentum than the step adds tries v = 0 first "
                  "(docs/theory.md §7; True).");
  c.def_readwrite("stiction_prediction",
                  &SapSolverParameters::stiction_prediction,
                  "Model contacts whose slip Newton reverses as sticking for "
                  "one iteration (docs/theory.md §16; True).");
  c.def_readwrite("exclude_separated_contacts",
                  &SapSolverParameters::exclude_separated_contacts,
                  "Leave speculative contacts that carry no impulse out of "
                  "the contact graph; those that would push at the solution "
                  "come back (the same solution; docs/theory.md §8; True).");
  c.def_readwrite("stiction_prediction_min_step",
                  &SapSolverParameters::stiction_prediction_min_step,
                  "Smallest accepted step of a predicted direction (0.05).");
  c.def_readwrite("threads", &SapSolverParameters::threads,
                  "Threads of one solve, >= 1: islands are solved "
                  "concurrently, results bitwise identical for every value "
                  "(1).");
  c.def_readwrite("min_reciprocal_condition",
                  &SapSolverParameters::min_reciprocal_condition,
                  "Status 'ill_conditioned' below this reciprocal condition "
                  "estimate of the Hessian (1e-12; 0 disables).");
  c.def("__repr__", [](const SapSolverParameters& p) {
    return "<sapcontact.SapSolverParameters rel_tolerance=" +
           std::string(py::repr(py::float_(p.rel_tolerance))) +
           " max_iterations=" + std::to_string(p.max_iterations) +
           " linear_solver='" + EnumToText(kLinearSolvers, p.linear_solver) +
           "' near_rigid_threshold=" +
           std::string(
               py::repr(py::float_(p.regularization.near_rigid_threshold))) +
           ">";
  });
}

}  // namespace sapcontact::python
