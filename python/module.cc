// The compiled part of the `sapcontact` Python package (README "Python";
// the package's __init__.py re-exports it). Conventions and units are those
// of the C++ API (contact_model/conventions.h): SI units, contact frame
// (n, t1, t2) with n from body A into body B, per-contact 3-vectors as rows
// of (num_contacts, 3) arrays.
#include <pybind11/pybind11.h>

#include "python/bindings.h"

PYBIND11_MODULE(_sapcontact, m) {
  m.doc() =
      "sapcontact: compliant and near-rigid frictional contact with the "
      "convex SAP formulation (Castro, Permenter and Han, IEEE T-RO 2023).\n"
      "SI units throughout; per-contact vectors are rows (n, t1, t2) of "
      "(num_contacts, 3) arrays, n pointing from body A into body B.";
  m.attr("__version__") = SAPCONTACT_VERSION;
  sapcontact::python::DefineSolverParameters(m);
  sapcontact::python::DefineProblem(m);
  sapcontact::python::DefineSolverStatistics(m);
  sapcontact::python::DefineSapSolver(m);
  sapcontact::python::DefineRigidQp(m);
  sapcontact::python::DefineFclib(m);
  sapcontact::python::DefineSimulation(m);
  sapcontact::python::DefineSweep(m);
  sapcontact::python::WrapDocstrings(m);
}
