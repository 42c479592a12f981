// Safeguarded Newton-Raphson / bisection root finder for a function that is
// increasing across a bracket (the "rtsafe" strategy of SAP paper §IV-B,
// Numerical Recipes Sec. 9.4). Used by the exact line search on dl/dalpha.
#pragma once

#include <cmath>

namespace sapcontact {

struct RtsafeResult {
  double x{0.0};          ///< The root estimate.
  int iterations{0};      ///< Function evaluations made.
  bool converged{false};  ///< Bracket or step below tolerance, or f = 0.
};

/// Finds a root of f in [lo, hi] given f(lo) < 0 < f(hi). `eval(x, &f, &df)`
/// returns f and f' at x. Newton steps from `guess` are taken while they stay
/// inside the bracket and shrink |f| fast enough; otherwise the bracket is
/// bisected. Stops when the step or the bracket is below `x_tolerance`, when
/// `done(x, f)` accepts the point just evaluated (e.g. |f| is zero to within
/// its round-off), or after max_iterations evaluations.
template <typename Eval, typename Done>
RtsafeResult Rtsafe(const Eval& eval, double lo, double hi, double guess,
                    double x_tolerance, const Done& done, int max_iterations) {
  RtsafeResult r;
  double x = (guess > lo && guess < hi) ? guess : 0.5 * (lo + hi);
  double step_before_last = hi - lo;
  double last_step = step_before_last;
  double f, df;
  eval(x, &f, &df);
  r.iterations = 1;
  while (true) {
    if (done(x, f)) {
      r.converged = true;
      break;
    }
    // Shrink the bracket around the root.
    if (f < 0.0) {
      lo = x;
    } else {
      hi = x;
    }
    // Newton from x lands at x - f/df; it is rejected when it leaves (lo, hi)
    // or when it is not at least halving the step of two iterations ago.
    const double newton = x - f / df;
    const bool newton_inside = df > 0.0 && newton > lo && newton < hi;
    const bool newton_fast =
        std::abs(2.0 * f) <= std::abs(step_before_last * df);
    step_before_last = last_step;
    if (newton_inside && newton_fast) {
      last_step = x - newton;
      x = newton;
    } else {
      last_step = 0.5 * (hi - lo);
      x = lo + last_step;
    }
    if (std::abs(last_step) <= x_tolerance || hi - lo <= x_tolerance) {
      r.converged = true;
      break;
    }
    if (r.iterations >= max_iterations) break;
    eval(x, &f, &df);
    ++r.iterations;
  }
  r.x = x;
  return r;
}

}  // namespace sapcontact
