#include "sapcontact/fclib/fclib_step_export.h"

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "sapcontact/solver/rigid_qp/delassus_operator.h"

namespace sapcontact {

FclibLocalProblem MakeFclibStepProblem(const SapProblem& problem,
                                       const Eigen::VectorXd& R,
                                       const Eigen::VectorXd& impulses) {
  const RigidContactProblem qp = MakeRigidContactProblem(problem, true);
  const Eigen::Index n = qp.c.size();
  if (R.size() != 0 && R.size() != n) {
    throw std::invalid_argument("FCLib step export: R has " +
                                std::to_string(R.size()) +
                                " entries, expected " + std::to_string(n));
  }
  if (impulses.size() != 0 && impulses.size() != n) {
    throw std::invalid_argument("FCLib step export: impulses have " +
                                std::to_string(impulses.size()) +
                                " entries, expected " + std::to_string(n));
  }
  FclibLocalProblem out;
  out.W = qp.W_sparse;
  if (R.size() > 0) {
    if (!R.allFinite() || (R.array() < 0).any()) {
      throw std::invalid_argument(
          "FCLib step export: R must be finite and >= 0");
    }
    for (Eigen::Index k = 0; k < n; ++k) out.W.coeffRef(k, k) += R(k);
  }
  out.W.makeCompressed();
  out.q = qp.c;
  out.mu = qp.mu;
  if (impulses.size() > 0) {
    FclibSolution s;
    s.r = impulses;
    s.u = out.W * impulses + out.q;
    out.solution = s;
  }
  return out;
}

Eigen::VectorXd StackRegularization(const Eigen::VectorXd& R_n,
                                    const Eigen::VectorXd& R_t) {
  if (R_n.size() != R_t.size()) {
    throw std::invalid_argument("FCLib step export: R_n and R_t sizes differ");
  }
  Eigen::VectorXd R(3 * R_n.size());
  for (Eigen::Index k = 0; k < R_n.size(); ++k) {
    R.segment<3>(3 * k) << R_n(k), R_t(k), R_t(k);
  }
  return R;
}

FclibStepWriter::FclibStepWriter(std::string path, std::string title)
    : title_(std::move(title)) {
  std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  if (ext == ".hdf5" || ext == ".h5") p.replace_extension();
  stem_ = p.string();
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) {
      throw FclibError(path + ": cannot create directory " +
                       p.parent_path().string() + ": " + ec.message());
    }
  }
}

std::string FclibStepWriter::StepPath(int step) const {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "-step%06d.hdf5", step);
  return stem_ + buffer;
}

std::string FclibStepWriter::Write(int step, double time,
                                   const SapProblem& problem,
                                   const Eigen::VectorXd& R,
                                   const Eigen::VectorXd& impulses,
                                   const std::string& description) {
  if (problem.contacts.empty()) return "";
  FclibLocalProblem local = MakeFclibStepProblem(problem, R, impulses);
  std::ostringstream title, text;
  title << title_ << " step " << step;
  text << "sapcontact time step " << step << " (start time " << time
       << " s, dt " << problem.time_step << " s, " << problem.contacts.size()
       << " contacts). W = J A^-1 J'"
       << (R.size() > 0 ? " + R (the step's SAP regularization diag(R_n, "
                          "R_t, R_t) per contact)"
                        : "")
       << ", q = J v* - v_hat with v_hat_n = -phi0 / (dt + tau_d) (-phi0 / "
          "dt where phi0 > 0); "
          "per-contact order (n, t1, t2)."
       << (impulses.size() > 0
               ? " /solution: the impulses r of the simulation's solver and "
                 "u = W r + q."
               : "");
  if (!description.empty()) text << " " << description;
  local.info.title = title.str();
  local.info.description = text.str();
  local.info.math_info = R.size() > 0
                             ? "W symmetric positive definite (W + R, R > 0)"
                             : "W symmetric positive semidefinite";
  const std::string path = StepPath(step);
  WriteFclibLocal(path, local);
  ++files_written_;
  return path;
}

}  // namespace sapcontact
