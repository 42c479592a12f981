#pragma once
// The work the two step-derivative methods share (internal to
// sim/stepping): the step's problem and solve at the state, the difference
// steps, each tree's A factored once. TimeStepper::CalcStepDerivatives
// (step_derivatives.cc) fills it and hands it to the implicit method
// (step_derivatives_implicit.cc) or the finite-difference one
// (step_derivatives_fd.cc); docs/theory.md §21.

#include <Eigen/Cholesky>
#include <vector>

#include "sapcontact/collision/contact_point.h"
#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/solver/sap/sap_problem.h"
#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {

struct StepDerivativeWork {
  explicit StepDerivativeWork(const SapSolverParameters& parameters)
      : params(parameters), solver(parameters) {}

  // Difference steps: configuration [m or rad], velocity [m/s or rad/s],
  // generalized force [N or N m]; central or forward differences of the
  // problem's data.
  double hq{0.0}, hv{0.0}, hu{0.0};
  bool central{false};
  double dt{0.0};  // [s]
  int nv{0};
  int num_targets{0};  // PD targets, StepDerivatives::targets order
  std::vector<int> tree_offsets;
  SapProblem P0;                        // the step's problem at the state
  std::vector<ContactPoint> contacts0;  // and its contacts
  SapSolverParameters params;
  SapSolver solver;
  SapSolverResults r0;  // the step's solve

  // Tree t's A, factored the first time it is asked for.
  const Eigen::LLT<Eigen::MatrixXd>& Llt(int t);
  // The change of v* per unit generalized force on coordinate j: u enters
  // only v*, a force e_j on tree t moves v*_t by dt A_t^-1 e_j.
  Eigen::VectorXd ForceDirection(int j);

 private:
  std::vector<Eigen::LLT<Eigen::MatrixXd>> llt_;
  std::vector<char> factored_;
};

// exp(phi) as a rotation matrix (phi a rotation vector [rad]).
Matrix3 RotationExp(const Vector3& phi);

// Whether the contacts at a state perturbed by h are the nominal ones moved
// a little: the same pairs in the same order, each point and normal within
// 1e3 h (a smooth perturbation moves them by O(h); collision detection
// choosing other points, as faces in exact alignment do when turned, moves
// them by the faces' size).
// `only`: the indices to check (every contact when null).
bool ContactsFollow(const std::vector<ContactPoint>& moved,
                    const std::vector<ContactPoint>& nominal, double h,
                    const std::vector<int>* only = nullptr);

}  // namespace sapcontact
