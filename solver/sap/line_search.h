// The line search along a Newton direction of a SAP problem (SAP paper
// §IV-B, §IV-C; docs/theory.md §7), shared by SapSolver (velocity space) and
// ContactSpaceSapSolver (contact space, docs/theory.md §15).
//
// Along the ray with parameter alpha the cost is
//   l(alpha) = l0 + alpha a1 + alpha^2 a2 / 2 + sum_k l_k(v_c,k + alpha dv_c,k)
// (the quadratic term in closed form, the constraints evaluated), so
//   dl/dalpha = a1 + alpha a2 - sum_k dv_c,k' gamma_k(alpha),
//   d2l/dalpha2 = a2 + sum_k dv_c,k' G_k dv_c,k.
#pragma once

#include <cmath>
#include <limits>

#include "sapcontact/contact_model/constraint_row.h"
#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/solver/sap/rtsafe.h"
#include "sapcontact/solver/sap/sap_solver_parameters.h"

namespace sapcontact {

/// Sums over the contacts at one alpha: cost [J], dv_c' gamma [J per unit
/// alpha] and dv_c' G dv_c [J per unit alpha^2].
struct RaySums {
  double cost{0.0};
  double dvc_gamma{0.0};
  double curvature{0.0};
};

/// Adds one contact at v_c + alpha dv_c to *sums.
inline void AddAlongRay(const ContactConstraint& constraint, const Vector3& v_c,
                        const Vector3& dv_c, double alpha, RaySums* sums) {
  ContactConstraintRayState s;
  const Vector3 v = v_c + alpha * dv_c;
  constraint.EvaluateAlong(v, dv_c, &s);
  sums->cost += s.cost;
  sums->dvc_gamma += dv_c.dot(s.gamma);
  sums->curvature += s.curvature;
}

/// Adds one limit, holonomic or actuation row at v + alpha dv to *sums.
inline void AddRowAlongRay(const ConstraintRow& row, double v, double dv,
                           double alpha, RaySums* sums) {
  const ConstraintRowState s = row.Evaluate(v + alpha * dv);
  sums->cost += s.cost;
  sums->dvc_gamma += dv * s.gamma;
  sums->curvature += s.G * dv * dv;
}

/// The quadratic part of l along the ray and the scale of dl/dalpha's
/// round-off.
struct RayQuadratic {
  double l0{0.0}, a1{0.0}, a2{0.0};
  /// sum_k |dv_c,k' gamma_k| at alpha = 0.
  double dvc_gamma0{0.0};
};

/// The slope ratio of the exact search's Wolfe test at an iterate whose
/// scaled residual (relative, the stopping test's) is `relative_residual`,
/// with a Newton direction from a factorization of reciprocal condition
/// estimate `rcond`: p.line_search_slope_ratio far from the solution; 0
/// (minimize to round-off) once the residual is below sqrt(rel_tolerance),
/// where Newton converges quadratically and the last steps' accuracy is the
/// answer's, and whenever round-off matters to the answer: rel_tolerance
/// at most 1e-8 (the stiff limit, FCLib), or the solve's round-off
/// eps / rcond within a factor 100 of rel_tolerance. There the search along
/// the direction makes up for the direction's round-off (docs/theory.md
/// §7).
inline double LineSearchSlopeRatio(const SapSolverParameters& p,
                                   double relative_residual, double rcond) {
  const double eps = std::numeric_limits<double>::epsilon();
  const bool near_round_off =
      p.rel_tolerance <= 1e-8 || eps > 1e-2 * p.rel_tolerance * rcond;
  return near_round_off || relative_residual <= std::sqrt(p.rel_tolerance)
             ? 0.0
             : p.line_search_slope_ratio;
}

/// Minimizes l along the ray: exact (the root of dl/dalpha by rtsafe in
/// [0, max_step], max_step when l still decreases there; it stops at the
/// first point where dl/dalpha is zero to round-off or where the strong
/// Wolfe conditions |dl/dalpha| <= slope_ratio |dl/dalpha(0)| and
/// l <= l(0) + armijo_c alpha dl/dalpha(0) hold) or backtracking (Armijo
/// from alpha = 1), as p.line_search says. `constraints(alpha)`
/// returns the RaySums of all the ray's contacts. cost0 and dcost0 are l and
/// dl/dalpha at alpha = 0. Adds the evaluations made to *iterations and
/// returns alpha.
template <typename Constraints>
double SearchAlongRay(const SapSolverParameters& p, const RayQuadratic& q,
                      double cost0, double dcost0, double slope_ratio,
                      const Constraints& constraints, int* iterations) {
  double last_cost = 0.0;  // l at the last evaluation
  auto eval = [&](double alpha, double* cost, double* d1, double* d2) {
    const RaySums s = constraints(alpha);
    last_cost = q.l0 + alpha * q.a1 + 0.5 * alpha * alpha * q.a2 + s.cost;
    if (cost) *cost = last_cost;
    if (d1) *d1 = q.a1 + alpha * q.a2 - s.dvc_gamma;
    if (d2) *d2 = q.a2 + s.curvature;
  };

  if (p.line_search == LineSearchType::kBacktracking) {
    double alpha = 1.0, cost = 0.0;
    for (int it = 0; it < p.max_line_search_iterations; ++it) {
      eval(alpha, &cost, nullptr, nullptr);
      ++*iterations;
      if (cost <= cost0 + p.armijo_c * alpha * dcost0) break;
      alpha *= p.backtracking_rho;
    }
    return alpha;
  }

  // Exact: l is convex along the ray, so dl/dalpha is nondecreasing; its
  // root is the minimizer. dl/dalpha is zero to machine precision once it is
  // below the round-off of its terms.
  const double alpha_max = p.max_step;
  const double eps = std::numeric_limits<double>::epsilon();
  const double f_tolerance =
      16 * eps * (std::abs(q.a1) + alpha_max * std::abs(q.a2) + q.dvc_gamma0);
  // The full step first: near the solution it is the minimizer to round-off
  // (one evaluation); else it brackets the root in [0, 1] or, while l still
  // decreases at 1, [1, max_step] (max_step itself when l decreases there).
  // Accept alpha (just evaluated, dl/dalpha = f there): f zero to
  // round-off, or the strong Wolfe conditions.
  const double slope_tolerance = slope_ratio * std::abs(dcost0);
  auto done = [&](double alpha, double f) {
    return std::abs(f) <= f_tolerance ||
           (std::abs(f) <= slope_tolerance &&
            last_cost <= cost0 + p.armijo_c * alpha * dcost0);
  };
  double f1 = 0.0, df1 = 0.0;
  eval(1.0, nullptr, &f1, &df1);
  ++*iterations;
  if (done(1.0, f1)) return 1.0;
  double lo = 0.0, hi = 1.0;
  if (f1 < 0.0) {
    if (!(alpha_max > 1.0)) return 1.0;
    double f_max = 0.0;
    eval(alpha_max, nullptr, &f_max, nullptr);
    ++*iterations;
    if (f_max <= 0.0) return alpha_max;
    lo = 1.0;
    hi = alpha_max;
  }
  // Rtsafe from Newton's step off alpha = 1 (the middle of the bracket if
  // that leaves it).
  const double guess = df1 > 0.0 ? 1.0 - f1 / df1 : 0.5 * (lo + hi);
  const RtsafeResult root = Rtsafe(
      [&](double alpha, double* f, double* df) { eval(alpha, nullptr, f, df); },
      lo, hi, guess, 4 * eps, done, p.max_line_search_iterations);
  *iterations += root.iterations;
  return root.x;
}

}  // namespace sapcontact
