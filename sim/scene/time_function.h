// Functions of time given in scenes: actuation targets, prescribed
// velocities, external forces. YAML forms (docs/scenes.md "Time functions"):
//   2.5                                   a constant
//   [0, 0, 1]                             a constant 3-vector
//   {times: [0, 1, 2], values: [0, 0.1, 0.1]}
//                                         piecewise linear through the
//                                         points, constant before the first
//                                         and after the last time
//   {times: [...], values: [[...], ...]}  the same for 3-vectors
//   {sine: {amplitude: a, frequency: f, phase: p, offset: o}}
//                                         o + a sin(2 pi f t + p) (a, o
//                                         3-vectors for vector functions)
// Times in seconds, increasing; frequency in Hz; phase in rad.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace sapcontact {

/// A function of time with values in R^n (n = 1 or 3 in scenes).
class TimeFunction {
 public:
  /// The zero function of dimension n.
  explicit TimeFunction(int n = 1);
  static TimeFunction Constant(const Eigen::VectorXd& value);
  static TimeFunction Constant(double value);
  /// Piecewise linear: times strictly increasing (at least one), values
  /// one per time, all of the same size.
  /// @throws std::invalid_argument on unordered times or size mismatch.
  static TimeFunction PiecewiseLinear(
      const std::vector<double>& times,
      const std::vector<Eigen::VectorXd>& values);
  /// offset + amplitude sin(2 pi frequency t + phase), element-wise.
  /// @throws std::invalid_argument on a size mismatch, a negative
  /// frequency or non-finite numbers.
  static TimeFunction Sine(const Eigen::VectorXd& amplitude, double frequency,
                           double phase, const Eigen::VectorXd& offset);

  int size() const { return static_cast<int>(offset_.size()); }
  /// The value at time t [s].
  Eigen::VectorXd Value(double t) const;
  double ScalarValue(double t) const { return Value(t)(0); }
  /// The time derivative at t (piecewise linear: the slope of the segment
  /// containing t, the right one at a knot; 0 outside the knots).
  Eigen::VectorXd Derivative(double t) const;
  /// Whether the function is a constant (its derivative is always zero).
  /// Piecewise-linear functions whose values are all equal and sines of
  /// zero amplitude or frequency are built as constants.
  bool is_constant() const { return kind_ == Kind::kConstant; }

  /// The time derivative as a function: zero for a constant, a sine for a
  /// sine, the piecewise-constant slopes (Derivative(t) above) for a
  /// piecewise-linear function. LoadScene makes an actuation's absent
  /// target_velocity this of its target.
  TimeFunction TimeDerivative() const;
  /// An upper bound of |Value(t)| (Euclidean norm) over all t: exact for
  /// constants, piecewise-linear and piecewise-constant functions and
  /// scalar sines; |offset| + |amplitude| for vector sines. For limits.
  double MaxNorm() const;

 private:
  // kPiecewiseConstant (only from TimeDerivative): values_[i] on
  // [times_[i], times_[i+1]), zero before times_[0] and from times_.back().
  enum class Kind { kConstant, kPiecewiseLinear, kPiecewiseConstant, kSine };
  Kind kind_{Kind::kConstant};
  std::vector<double> times_;
  std::vector<Eigen::VectorXd> values_;
  Eigen::VectorXd amplitude_, offset_;
  double frequency_{0.0}, phase_{0.0};
};

}  // namespace sapcontact
