// Checks SapSolverDerivatives (solver/sap/sap_solver_derivatives.h) against
// central finite differences of whole solves: every column of every
// Jacobian, at 1e-6 relative (docs/theory.md §20). Used by the solver's
// tests and by the simulator's on the problems of real scenes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "sapcontact/solver/sap/sap_solver.h"
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact::derivative_checks {

inline SapSolverParameters Tight() {
  SapSolverParameters p;
  p.rel_tolerance = 1e-13;
  p.abs_tolerance = 1e-16;
  return p;
}

struct Solution {
  Eigen::VectorXd v, gamma;
  // For a central difference: the smallest derivative it resolves. The
  // solves are accurate to about 1e-13 relative, so a difference with step h
  // carries errors of about 1e-13 |x| / h; derivatives are compared at 1e-6
  // relative to the larger of their size and 1e-7 |x| / h.
  double resolution_v{0.0}, resolution_gamma{0.0};
};

inline Solution SolveExactly(const SapProblem& problem,
                             const Eigen::VectorXd* guess) {
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(problem, guess);
  EXPECT_EQ(r.status, SapSolverStatus::kConverged) << r.message;
  return {r.v, r.gamma};
}

// Central difference of (v, gamma) along a change of the problem:
// perturb(problem, t) applies t times the unit change.
inline Solution CentralDifference(
    const SapProblem& problem, const Eigen::VectorXd& v0, double h,
    const std::function<void(SapProblem*, double)>& perturb) {
  SapProblem plus = problem, minus = problem;
  perturb(&plus, h);
  perturb(&minus, -h);
  const Solution a = SolveExactly(plus, &v0), b = SolveExactly(minus, &v0);
  return {(a.v - b.v) / (2 * h), (a.gamma - b.gamma) / (2 * h),
          1e-7 * (a.v.norm() + 1e-3) / h, 1e-7 * (a.gamma.norm() + 1e-9) / h};
}

// ||fd - an|| <= 1e-6 max(||an||, resolution, floor).
inline void ExpectClose(const Eigen::VectorXd& an, const Eigen::VectorXd& fd,
                        double resolution, double floor,
                        const std::string& what) {
  const double scale = std::max({an.norm(), resolution, floor});
  EXPECT_LE((an - fd).norm(), 1e-6 * scale)
      << what << "\nanalytic: " << an.transpose()
      << "\nfinite differences: " << fd.transpose();
}

// Checks every column of every Jacobian of `problem` against central
// differences (step_scale multiplies every finite-difference step).
inline void CheckAllJacobians(const SapProblem& problem,
                              const std::string& name,
                              double step_scale = 1.0) {
  SCOPED_TRACE(name);
  SapSolver solver(Tight());
  const SapSolverResults r = solver.Solve(problem);
  ASSERT_EQ(r.status, SapSolverStatus::kConverged) << r.message;
  const SapSolverDerivatives d(problem, r, Tight());
  EXPECT_LT(d.scaled_residual(), 1e-10);
  const SapSolutionJacobians J = d.Jacobians();
  const int nv = problem.num_velocities();
  const int nc = static_cast<int>(problem.contacts.size());
  // Steps small against every contact's distance to a region boundary.
  double nearest = std::numeric_limits<double>::infinity();
  for (const SapContactRegion& c : d.regions()) {
    nearest = std::min(nearest, c.boundary_distance);
  }
  ASSERT_GT(nearest, 5e-7 * step_scale)
      << "a contact sits at a region boundary";

  for (int j = 0; j < nv; ++j) {
    const Solution fd = CentralDifference(
        problem, r.v, 1e-7 * step_scale, [&](SapProblem* p, double t) {
          int tree = 0, offset = j;
          while (offset >= p->trees[tree].v_star.size()) {
            offset -= p->trees[tree].v_star.size();
            ++tree;
          }
          p->trees[tree].v_star(offset) += t;
        });
    ExpectClose(J.dv_dvstar.col(j), fd.v, fd.resolution_v, 1e-3,
                "dv/dv* col " + std::to_string(j));
    ExpectClose(J.dgamma_dvstar.col(j), fd.gamma, fd.resolution_gamma, 1e-6,
                "dgamma/dv* col " + std::to_string(j));
  }
  for (int k = 0; k < nc; ++k) {
    const ContactParameters& c = problem.contacts[k].parameters;
    const std::string ks = " of contact " + std::to_string(k);
    Solution fd = CentralDifference(
        problem, r.v, 1e-9 * step_scale,
        [&](SapProblem* p, double t) { p->contacts[k].phi0 += t; });
    ExpectClose(J.dv_dphi0.col(k), fd.v, fd.resolution_v, 1e-3,
                "dv/dphi0" + ks);
    ExpectClose(J.dgamma_dphi0.col(k), fd.gamma, fd.resolution_gamma, 1e-6,
                "dgamma/dphi0" + ks);
    if (std::isfinite(c.stiffness)) {
      const double h = 1e-6 * step_scale * c.stiffness;
      fd = CentralDifference(problem, r.v, h, [&](SapProblem* p, double t) {
        p->contacts[k].parameters.stiffness += t;
      });
      ExpectClose(J.dv_dstiffness.col(k), fd.v, fd.resolution_v,
                  1e-3 / c.stiffness, "dv/dk" + ks);
      ExpectClose(J.dgamma_dstiffness.col(k), fd.gamma, fd.resolution_gamma,
                  1e-6 / c.stiffness, "dgamma/dk" + ks);
    } else {
      EXPECT_EQ(J.dv_dstiffness.col(k).norm(), 0.0);
    }
    const bool sap = c.model == ContactModel::kSap;
    const double diss =
        sap ? c.dissipation_time_scale : c.hunt_crossley_dissipation;
    const double hd = 1e-6 * step_scale * std::max(diss, 1e-3);
    fd = CentralDifference(problem, r.v, hd, [&](SapProblem* p, double t) {
      if (sap) {
        p->contacts[k].parameters.dissipation_time_scale += t;
      } else {
        p->contacts[k].parameters.hunt_crossley_dissipation += t;
      }
    });
    ExpectClose(J.dv_ddissipation.col(k), fd.v, fd.resolution_v,
                1e-3 / std::max(diss, 1e-3), "dv/ddissipation" + ks);
    ExpectClose(J.dgamma_ddissipation.col(k), fd.gamma, fd.resolution_gamma,
                1e-6 / std::max(diss, 1e-3), "dgamma/ddissipation" + ks);
    fd = CentralDifference(problem, r.v, 1e-7 * step_scale,
                           [&](SapProblem* p, double t) {
                             p->contacts[k].parameters.friction += t;
                           });
    ExpectClose(J.dv_dfriction.col(k), fd.v, fd.resolution_v, 1e-3,
                "dv/dmu" + ks);
    ExpectClose(J.dgamma_dfriction.col(k), fd.gamma, fd.resolution_gamma, 1e-6,
                "dgamma/dmu" + ks);
  }
  // The rows' parameters: each row of each kind, perturbed in place.
  auto check_rows = [&](const char* what, int count, const Eigen::MatrixXd& dv,
                        const Eigen::MatrixXd& dgamma, double h,
                        const std::function<double*(SapProblem*, int)>& at) {
    ASSERT_EQ(dv.cols(), count) << what;
    for (int j = 0; j < count; ++j) {
      const double value = *at(const_cast<SapProblem*>(&problem), j);
      if (!std::isfinite(value)) continue;
      // Steps relative to the parameter's size (gains of 1e-2 to 1e4).
      const Solution fd = CentralDifference(
          problem, r.v, h * step_scale * std::max(1.0, std::abs(value)),
          [&](SapProblem* p, double t) { *at(p, j) += t; });
      const std::string js = std::string(what) + " row " + std::to_string(j);
      // Floors: 1e-2 m/s and 1e-5 N s per relative change of the parameter.
      const double size = std::max(1.0, std::abs(value));
      ExpectClose(dv.col(j), fd.v, fd.resolution_v, 1e-2 / size, "dv/d" + js);
      ExpectClose(dgamma.col(j), fd.gamma, fd.resolution_gamma, 1e-5 / size,
                  "dgamma/d" + js);
    }
  };
  // Row j of a kind: its constraint and the row within it.
  auto row_of = [](auto& constraints, int j, auto rows_of) {
    for (auto& c : constraints) {
      if (j < rows_of(c)) return std::make_pair(&c, j);
      j -= rows_of(c);
    }
    return std::make_pair(static_cast<decltype(&constraints[0])>(nullptr), 0);
  };
  auto g0_rows = [](const auto& c) { return static_cast<int>(c.g0.size()); };
  auto act_rows = [](const ActuationConstraint& c) {
    return static_cast<int>(c.position.size());
  };
  int n_limit = 0, n_hol = 0, n_act = 0;
  for (const auto& c : problem.limits) n_limit += g0_rows(c);
  for (const auto& c : problem.holonomic) n_hol += g0_rows(c);
  for (const auto& c : problem.actuation) n_act += act_rows(c);
  check_rows("limit g0", n_limit, J.dv_dlimit_g0, J.dgamma_dlimit_g0, 1e-9,
             [&](SapProblem* p, int j) {
               auto [c, i] = row_of(p->limits, j, g0_rows);
               return &c->g0(i);
             });
  check_rows("holonomic g0", n_hol, J.dv_dholonomic_g0, J.dgamma_dholonomic_g0,
             1e-9, [&](SapProblem* p, int j) {
               auto [c, i] = row_of(p->holonomic, j, g0_rows);
               return &c->g0(i);
             });
  auto actuation =
      [&](const char* what, Eigen::VectorXd ActuationConstraint::*field,
          const Eigen::MatrixXd& dv, const Eigen::MatrixXd& dg, double h) {
        check_rows(what, n_act, dv, dg, h, [&, field](SapProblem* p, int j) {
          auto [c, i] = row_of(p->actuation, j, act_rows);
          return &((*c).*field)(i);
        });
      };
  actuation("actuation target", &ActuationConstraint::target,
            J.dv_dactuation_target, J.dgamma_dactuation_target, 1e-7);
  actuation("actuation target velocity", &ActuationConstraint::target_velocity,
            J.dv_dactuation_target_velocity,
            J.dgamma_dactuation_target_velocity, 1e-7);
  actuation("actuation feedforward", &ActuationConstraint::feedforward,
            J.dv_dactuation_feedforward, J.dgamma_dactuation_feedforward, 1e-7);
  actuation("actuation kp", &ActuationConstraint::kp, J.dv_dactuation_kp,
            J.dgamma_dactuation_kp, 1e-6);
  actuation("actuation kd", &ActuationConstraint::kd, J.dv_dactuation_kd,
            J.dgamma_dactuation_kd, 1e-6);
  actuation("actuation effort limit", &ActuationConstraint::effort_limit,
            J.dv_dactuation_effort_limit, J.dgamma_dactuation_effort_limit,
            1e-8);

  const double hdt = 1e-6 * step_scale * problem.time_step;
  const Solution fd = CentralDifference(
      problem, r.v, hdt, [&](SapProblem* p, double t) { p->time_step += t; });
  ExpectClose(J.dv_dtime_step, fd.v, fd.resolution_v, 1e-3 / problem.time_step,
              "dv/ddt");
  ExpectClose(J.dgamma_dtime_step, fd.gamma, fd.resolution_gamma,
              1e-6 / problem.time_step, "dgamma/ddt");
}

}  // namespace sapcontact::derivative_checks
