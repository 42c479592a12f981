// The Python SapProblem: the C++ SapProblem plus a count of the solves
// using it, so that Python code cannot change a problem while another thread
// solves it (solves run without the GIL).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>

#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver_results.h"

namespace sapcontact::python {

struct PyProblem {
  SapProblem problem;
  std::atomic<int> solves_in_progress{0};

  PyProblem() = default;
  explicit PyProblem(SapProblem p) : problem(std::move(p)) {}
  PyProblem(const PyProblem& other) : problem(other.problem) {}

  /// Raises RuntimeError when a solve is using the problem.
  void CheckNotSolving(const char* what) const;
};

/// Marks a problem as being solved for the lifetime of the guard (taken
/// while holding the GIL, before releasing it).
class SolveGuard {
 public:
  explicit SolveGuard(PyProblem& p) : p_(p) { ++p_.solves_in_progress; }
  ~SolveGuard() { --p_.solves_in_progress; }
  SolveGuard(const SolveGuard&) = delete;
  SolveGuard& operator=(const SolveGuard&) = delete;

 private:
  PyProblem& p_;
};

/// SapSolverResults as the Python SapResults (numpy arrays, copies).
pybind11::object SapResultsToPython(const SapSolverResults& results);

}  // namespace sapcontact::python
