// The parts of the _sapcontact extension module, one function per area,
// called by module.cc in this order (later parts use earlier types).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact::python {

namespace py = pybind11;

/// SapSolverParameters (solver_parameters_bindings.cc).
void DefineSolverParameters(py::module_& m);
/// SapProblem (problem_bindings.cc).
void DefineProblem(py::module_& m);
/// SapSolverStatistics, SapIslandStatistics
/// (solver_statistics_bindings.cc).
void DefineSolverStatistics(py::module_& m);
/// SapSolver, SapResults, SapSolverStatus, InverseDynamics,
/// calc_inverse_dynamics (sap_solver_bindings.cc).
void DefineSapSolver(py::module_& m);
/// RigidQpSolver, RigidQpSolverOptions, RigidQpResults, RigidQpStatus
/// (rigid_qp_bindings.cc).
void DefineRigidQp(py::module_& m);
/// read_fclib, solve_fclib (fclib_bindings.cc).
void DefineFclib(py::module_& m);
/// SimulationError, run_scene and RunResult (run_scene_bindings.cc),
/// Simulation (simulation_bindings.cc, simulation_control_bindings.cc).
void DefineSimulation(py::module_& m);
/// sweep (sweep_bindings.cc).
void DefineSweep(py::module_& m);

/// Adds the derivatives' per-contact regions to `out`: "region" (a list of
/// 'stiction', 'sliding', 'no_contact'), "boundary_distance" (numpy, m/s)
/// and "near_rigid" (a list of bool) (sap_solver_bindings.cc).
void AddContactRegions(const std::vector<SapContactRegion>& regions,
                       py::dict* out);

/// Rewraps every docstring of the module at 72 columns for help() and
/// names the classes sapcontact.X (docstrings.cc); called last.
void WrapDocstrings(py::module_& m);

/// A file path argument (str or os.PathLike) as text; TypeError naming
/// `name` otherwise (scene_arguments.cc).
std::string PathArgument(py::handle value, const std::string& name);

/// Scene overrides as "key=value" texts from a dict {key: value} (numbers
/// exact, bools true/false, sequences as YAML flow lists) or a list of
/// "key=value" strings; None gives none.
std::vector<std::string> OverrideList(const py::object& overrides);

/// `value` as a T (a bound class), or a TypeError naming the argument and
/// the class it must be.
template <class T>
T CastArgument(py::handle value, const char* name, const char* type_name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(
        std::string(name) + ": expected " + type_name + ", got " +
        py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  }
}

/// A settings struct from keyword arguments: `defaults` converted to its
/// Python class, each keyword set as an attribute (a TypeError for a name
/// the class does not have, `what` naming the class).
template <class T>
T FromKeywords(const T& defaults, const py::dict& kwargs, const char* what) {
  py::object object = py::cast(defaults);
  for (const auto& item : kwargs) {
    const std::string key = py::str(item.first);
    if (key.empty() || key[0] == '_' || !py::hasattr(object, key.c_str())) {
      throw py::type_error(std::string(what) + ": unknown parameter '" + key +
                           "'");
    }
    try {
      py::setattr(object, key.c_str(), item.second);
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;
      const py::object current = object.attr(key.c_str());
      throw py::type_error(
          std::string(what) + ": " + key + ": expected " +
          py::str(py::type::of(current).attr("__name__")).cast<std::string>() +
          ", got " +
          py::str(py::type::of(item.second).attr("__name__"))
              .cast<std::string>() +
          " (" + py::repr(item.second).cast<std::string>() + ")");
    }
  }
  return object.cast<T>();
}

/// An enum stored as text in Python: the names and values of its members.
template <class E>
using EnumNames = std::vector<std::pair<const char*, E>>;

template <class E>
E EnumFromText(const EnumNames<E>& names, const std::string& text,
               const char* field) {
  std::string choices;
  for (const auto& [name, value] : names) {
    if (text == name) return value;
    choices += (choices.empty() ? "" : ", ") + std::string("'") + name + "'";
  }
  throw py::value_error(std::string(field) + ": '" + text + "' is not one of " +
                        choices);
}

template <class E>
const char* EnumToText(const EnumNames<E>& names, E value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

/// Defines property `name` of `c`: the enum member `field`, read and
/// written as its text in `names` (a namespace-scope table); other text is
/// a ValueError naming the property.
template <class C, class E>
void DefEnumProperty(py::class_<C>& c, const char* name, E C::*field,
                     const EnumNames<E>& names, const char* doc) {
  c.def_property(
      name, [field, &names](const C& p) { return EnumToText(names, p.*field); },
      [field, &names, name](C& p, const std::string& v) {
        p.*field = EnumFromText(names, v, name);
      },
      doc);
}

}  // namespace sapcontact::python
