// One scalar row of a bounded linear constraint: the form shared by joint
// limits, holonomic constraints (welds, couplers) and implicit PD actuation
// (docs/theory.md §17). With the row's constraint velocity v = J_i v [m/s or
// rad/s], its regularization R > 0 and stabilization velocity v_hat:
//   y(v)     = (v_hat - v) / R                      [N*s or N m s]
//   gamma(v) = clamp(y, lower, upper) = -dl/dv       (the row's impulse)
//   l(v)     = R y^2 / 2                 for lower <= y <= upper
//            = R b y - R b^2 / 2         outside, b the violated bound
//   G(v)     = d^2 l / dv^2 = 1 / R inside the bounds, 0 outside.
// l is convex and C^1 (gamma is a non-increasing function of v), so the row
// enters the SAP Newton solver like a contact. lower <= 0 <= upper is not
// required; lower <= upper is.
#pragma once

#include <algorithm>
#include <limits>

namespace sapcontact {

/// What one row reports at one v.
struct ConstraintRowState {
  double gamma{0.0};  ///< impulse [N*s or N m s]
  double G{0.0};      ///< d^2 l / dv^2
  double cost{0.0};   ///< l [J]
};

struct ConstraintRow {
  /// Regularization R > 0 [(m/s)/(N*s)] and its inverse.
  double R{1.0};
  double inverse_R{1.0};
  /// Stabilization velocity [m/s or rad/s].
  double v_hat{0.0};
  /// Impulse bounds [N*s or N m s], lower <= upper (may be infinite).
  double lower{-std::numeric_limits<double>::infinity()};
  double upper{std::numeric_limits<double>::infinity()};
  /// True when R was set by the near-rigid floor.
  bool near_rigid{false};

  /// Impulse, Hessian and cost at v.
  ConstraintRowState Evaluate(double v) const {
    const double y = (v_hat - v) * inverse_R;
    ConstraintRowState s;
    if (y > upper) {
      s.gamma = upper;
      s.cost = R * upper * (y - 0.5 * upper);
    } else if (y < lower) {
      s.gamma = lower;
      s.cost = R * lower * (y - 0.5 * lower);
    } else {
      s.gamma = y;
      s.G = inverse_R;
      s.cost = 0.5 * R * y * y;
    }
    return s;
  }
};

}  // namespace sapcontact
