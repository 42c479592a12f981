// Exporting time-step contact problems (solver/sap/sap_problem.h) as FCLib
// local problems (fclib/fclib_io.h), so that others can load our scenes' steps.
//
// The local problem of a step is its impulse-space problem
//   W = J A^-1 J' (+ R),  q = J v* - v_hat,  v_hat_k = (-phi0_k / (dt +
//   tau_d,k), 0, 0) (-phi0_k / dt where phi0_k > 0: docs/theory.md §3),
//   mu_k,
// assembled per tree (solver/rigid_qp/delassus_operator.h). With R = diag(R_n,
// R_t, R_t) per contact (SAP's regularization of that step, docs/theory.md §3)
// the problem's convex relaxation min 1/2 r'(W + R) r + q'r over the friction
// cones is exactly the problem SAP solved that step (its dual: SAP paper,
// SAP paper §III-A, Eq. (22)), so the rigid QP on the exported file reproduces
// SAP's impulses; without R it is the rigid limit (what the rigid-QP time
// stepper solves). The step's impulses are stored as FCLib's /solution (r, and
// u = W r + q).
//
// libfclib stores exactly one problem per file (fclib_write_local refuses a
// second /fclib_local; there is no multi-problem layout), so a run writes
// one file per step with contacts: PATH = DIR/NAME.hdf5 gives
// DIR/NAME-step000042.hdf5 for step 42 (0-based; steps without contacts
// have no FCLib problem and are skipped).
#pragma once

#include <Eigen/Core>
#include <string>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

/// The local problem of `problem` (validated first). R: empty (rigid limit)
/// or 3 nc regularization entries [(m/s)/(N*s)] added to the diagonal of W.
/// impulses: empty (no solution stored) or 3 nc [N*s].
/// @throws std::invalid_argument from Validate(SapProblem), or on sizes.
FclibLocalProblem MakeFclibStepProblem(const SapProblem& problem,
                                       const Eigen::VectorXd& R,
                                       const Eigen::VectorXd& impulses);

/// R = (R_n, R_t, R_t) per contact from per-contact vectors (as in
/// SapSolverResults).
Eigen::VectorXd StackRegularization(const Eigen::VectorXd& R_n,
                                    const Eigen::VectorXd& R_t);

/// Writes one FCLib file per step.
class FclibStepWriter {
 public:
  /// `path`: DIR/NAME.hdf5 (or DIR/NAME); DIR is created when missing.
  /// `title`: prefix of every problem's title (e.g. the scene name).
  FclibStepWriter(std::string path, std::string title);

  /// DIR/NAME-stepNNNNNN.hdf5 for step NNNNNN.
  std::string StepPath(int step) const;
  /// "DIR/NAME-stepNNNNNN.hdf5" literally (for messages).
  std::string PathPattern() const { return stem_ + "-stepNNNNNN.hdf5"; }

  /// Writes step `step` (start time `time` [s]); `description` is appended
  /// to the generated description. Returns the file written, or "" for a
  /// step without contacts. @throws FclibError / std::invalid_argument.
  std::string Write(int step, double time, const SapProblem& problem,
                    const Eigen::VectorXd& R, const Eigen::VectorXd& impulses,
                    const std::string& description = "");

  int files_written() const { return files_written_; }

 private:
  std::string stem_;
  std::string title_;
  int files_written_{0};
};

}  // namespace sapcontact
