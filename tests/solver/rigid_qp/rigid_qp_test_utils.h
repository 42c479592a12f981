// Helpers shared by the rigid-QP tests: independent closed forms and a
// solve-and-check routine that asserts the KKT conditions.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <iostream>
#include <string>

#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"
#include "sapcontact/solver/rigid_qp/rigid_contact_problem.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact {
namespace testing_rigid_qp {

// Euclidean projection of y onto {||x_t|| <= mu x_n} (independent closed
// form: inside; polar cone -> 0; else onto the boundary ray).
inline Eigen::Vector3d ProjectOntoCone(const Eigen::Vector3d& y, double mu) {
  const double r = std::hypot(y(1), y(2));
  if (r <= mu * y(0)) return y;
  if (mu * r <= -y(0)) return Eigen::Vector3d::Zero();
  const double ln = (y(0) + mu * r) / (1.0 + mu * mu);
  Eigen::Vector3d x(ln, 0.0, 0.0);
  if (r > 0.0) x.tail<2>() = mu * ln * y.tail<2>() / r;
  return x;
}

// Single contact with W = alpha I: the QP optimum is the projection of the
// unconstrained minimizer -c / alpha onto the cone.
inline Eigen::Vector3d IsotropicOptimum(double alpha, const Eigen::Vector3d& c,
                                        double mu) {
  return ProjectOntoCone(-c / alpha, mu);
}

// Solves, asserts kSolved, residuals below 1e-10 and the KKT checker below
// kkt_tolerance; prints the statistics.
inline RigidQpResult SolveAndCheck(const RigidContactProblem& p,
                                   const std::string& label,
                                   double kkt_tolerance = 1e-9,
                                   const RigidQpSolverOptions& options = {}) {
  const RigidQpResult r = SolveRigidContactQp(p, options);
  EXPECT_EQ(r.status, RigidQpStatus::kSolved) << label << ": " << r.reason;
  EXPECT_LE(r.primal_residual, 1e-10) << label;
  EXPECT_LE(r.dual_residual, 1e-10) << label;
  EXPECT_LE(r.relative_gap, 1e-10) << label;
  const KktReport kkt = CheckRigidContactKkt(p, r.impulses);
  EXPECT_LE(kkt.worst_violation, kkt_tolerance)
      << label << ": worst contact " << kkt.worst_contact;
  std::cout << "[rigid_qp] " << label << ": iterations " << r.iterations
            << ", primal " << r.primal_residual << ", dual " << r.dual_residual
            << ", gap " << r.relative_gap << ", jordan "
            << r.relative_complementarity << ", KKT " << kkt.worst_violation
            << (r.used_sparse ? " (sparse)" : "") << "\n";
  return r;
}

}  // namespace testing_rigid_qp
}  // namespace sapcontact
