#include "sapcontact/sim/scene/time_function.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sapcontact {
namespace {

constexpr double kTwoPi = 6.28318530717958647692;

void RequireFinite(const Eigen::VectorXd& v, const char* what) {
  if (!v.allFinite()) {
    throw std::invalid_argument(std::string("TimeFunction: ") + what +
                                " has non-finite entries");
  }
}

}  // namespace

TimeFunction::TimeFunction(int n) {
  if (n < 1) {
    throw std::invalid_argument("TimeFunction: dimension " + std::to_string(n) +
                                " < 1");
  }
  offset_ = Eigen::VectorXd::Zero(n);
}

TimeFunction TimeFunction::Constant(const Eigen::VectorXd& value) {
  if (value.size() < 1) {
    throw std::invalid_argument("TimeFunction::Constant: an empty value");
  }
  RequireFinite(value, "the constant");
  TimeFunction f(static_cast<int>(value.size()));
  f.offset_ = value;
  return f;
}

TimeFunction TimeFunction::Constant(double value) {
  return Constant(Eigen::VectorXd::Constant(1, value));
}

TimeFunction TimeFunction::PiecewiseLinear(
    const std::vector<double>& times,
    const std::vector<Eigen::VectorXd>& values) {
  if (times.empty()) {
    throw std::invalid_argument("TimeFunction::PiecewiseLinear: no times");
  }
  if (values.size() != times.size()) {
    throw std::invalid_argument(
        "TimeFunction::PiecewiseLinear: " + std::to_string(times.size()) +
        " times but " + std::to_string(values.size()) + " values");
  }
  const Eigen::Index n = values[0].size();
  for (size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(times[i])) {
      throw std::invalid_argument("TimeFunction::PiecewiseLinear: time " +
                                  std::to_string(i) + " is not finite");
    }
    if (i > 0 && !(times[i] > times[i - 1])) {
      throw std::invalid_argument(
          "TimeFunction::PiecewiseLinear: times must increase (time " +
          std::to_string(i) + " is not after time " + std::to_string(i - 1) +
          ")");
    }
    if (values[i].size() != n || n < 1) {
      throw std::invalid_argument("TimeFunction::PiecewiseLinear: value " +
                                  std::to_string(i) + " has size " +
                                  std::to_string(values[i].size()) +
                                  ", value 0 " + std::to_string(n));
    }
    RequireFinite(values[i], "a value");
  }
  bool all_equal = true;
  for (const auto& v : values) all_equal = all_equal && v == values[0];
  if (all_equal) return Constant(values[0]);
  TimeFunction f(static_cast<int>(n));
  f.kind_ = Kind::kPiecewiseLinear;
  f.times_ = times;
  f.values_ = values;
  return f;
}

TimeFunction TimeFunction::Sine(const Eigen::VectorXd& amplitude,
                                double frequency, double phase,
                                const Eigen::VectorXd& offset) {
  if (amplitude.size() != offset.size() || amplitude.size() < 1) {
    throw std::invalid_argument("TimeFunction::Sine: amplitude of size " +
                                std::to_string(amplitude.size()) +
                                ", offset of size " +
                                std::to_string(offset.size()));
  }
  RequireFinite(amplitude, "the amplitude");
  RequireFinite(offset, "the offset");
  if (!std::isfinite(frequency) || frequency < 0.0) {
    throw std::invalid_argument(
        "TimeFunction::Sine: the frequency must be finite and >= 0");
  }
  if (!std::isfinite(phase)) {
    throw std::invalid_argument("TimeFunction::Sine: the phase is not finite");
  }
  if (frequency == 0.0 || amplitude.isZero(0.0)) {
    return Constant(offset + amplitude * std::sin(phase));
  }
  TimeFunction f(static_cast<int>(offset.size()));
  f.kind_ = Kind::kSine;
  f.amplitude_ = amplitude;
  f.offset_ = offset;
  f.frequency_ = frequency;
  f.phase_ = phase;
  return f;
}

Eigen::VectorXd TimeFunction::Value(double t) const {
  switch (kind_) {
    case Kind::kConstant:
      return offset_;
    case Kind::kSine:
      return offset_ + amplitude_ * std::sin(kTwoPi * frequency_ * t + phase_);
    case Kind::kPiecewiseLinear: {
      if (!(t > times_.front())) return values_.front();
      if (t >= times_.back()) return values_.back();
      // times_[i] <= t < times_[i + 1].
      const size_t i = std::upper_bound(times_.begin(), times_.end(), t) -
                       times_.begin() - 1;
      const double s = (t - times_[i]) / (times_[i + 1] - times_[i]);
      return (1.0 - s) * values_[i] + s * values_[i + 1];
    }
    case Kind::kPiecewiseConstant: {
      if (t < times_.front() || t >= times_.back()) return offset_;  // zero
      const size_t i = std::upper_bound(times_.begin(), times_.end(), t) -
                       times_.begin() - 1;
      return values_[i];
    }
  }
  return offset_;
}

Eigen::VectorXd TimeFunction::Derivative(double t) const {
  switch (kind_) {
    case Kind::kSine:
      return amplitude_ * (kTwoPi * frequency_) *
             std::cos(kTwoPi * frequency_ * t + phase_);
    case Kind::kPiecewiseLinear: {
      if (t < times_.front() || t >= times_.back()) {
        return Eigen::VectorXd::Zero(size());
      }
      const size_t i = std::upper_bound(times_.begin(), times_.end(), t) -
                       times_.begin() - 1;
      return (values_[i + 1] - values_[i]) / (times_[i + 1] - times_[i]);
    }
    case Kind::kConstant:
    case Kind::kPiecewiseConstant:
      break;
  }
  return Eigen::VectorXd::Zero(size());
}

TimeFunction TimeFunction::TimeDerivative() const {
  switch (kind_) {
    case Kind::kConstant:
    case Kind::kPiecewiseConstant:
      break;
    case Kind::kSine:
      // d/dt a sin(w t + p) = a w sin(w t + p + pi/2).
      return Sine(amplitude_ * (kTwoPi * frequency_), frequency_,
                  phase_ + kTwoPi / 4.0, Eigen::VectorXd::Zero(size()));
    case Kind::kPiecewiseLinear: {
      TimeFunction f(size());
      f.kind_ = Kind::kPiecewiseConstant;
      f.times_ = times_;
      for (size_t i = 0; i + 1 < times_.size(); ++i) {
        f.values_.push_back((values_[i + 1] - values_[i]) /
                            (times_[i + 1] - times_[i]));
      }
      return f;
    }
  }
  return TimeFunction(size());
}

double TimeFunction::MaxNorm() const {
  switch (kind_) {
    case Kind::kConstant:
      return offset_.norm();
    case Kind::kSine:
      if (size() == 1) return std::abs(offset_[0]) + std::abs(amplitude_[0]);
      return offset_.norm() + amplitude_.norm();
    case Kind::kPiecewiseLinear:
    case Kind::kPiecewiseConstant: {
      // The norm is convex: on a segment its maximum is at an end.
      double m = 0.0;
      for (const auto& v : values_) m = std::max(m, v.norm());
      return m;
    }
  }
  return 0.0;
}

}  // namespace sapcontact
