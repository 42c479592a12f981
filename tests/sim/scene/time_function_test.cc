// TimeFunction (sim/scene/time_function.h): values and derivatives of
// constants, piecewise-linear functions and sines against closed forms,
// and the YAML forms read by YamlReader::Function with their errors.
#include "sapcontact/sim/scene/time_function.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_yaml_reader.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace {

using test_constants::kPi;

Eigen::VectorXd V(double x) { return Eigen::VectorXd::Constant(1, x); }
Eigen::VectorXd V3(double x, double y, double z) {
  return Eigen::Vector3d(x, y, z);
}

TEST(TimeFunction, DefaultIsZeroOfItsDimension) {
  const TimeFunction f(3);
  EXPECT_EQ(f.size(), 3);
  EXPECT_TRUE(f.is_constant());
  EXPECT_EQ(f.Value(1.5), Eigen::Vector3d::Zero().eval());
  EXPECT_EQ(f.Derivative(1.5), Eigen::Vector3d::Zero().eval());
  EXPECT_EQ(TimeFunction().size(), 1);
  EXPECT_THROW(TimeFunction(0), std::invalid_argument);
}

TEST(TimeFunction, Constants) {
  const TimeFunction s = TimeFunction::Constant(2.5);
  EXPECT_EQ(s.size(), 1);
  EXPECT_TRUE(s.is_constant());
  for (double t : {-1.0, 0.0, 3.0}) {
    EXPECT_EQ(s.ScalarValue(t), 2.5);
    EXPECT_EQ(s.Derivative(t)[0], 0.0);
  }
  const TimeFunction v = TimeFunction::Constant(V3(1, -2, 2));
  EXPECT_EQ(v.size(), 3);
  EXPECT_EQ(v.Value(7.0), V3(1, -2, 2));
  EXPECT_EQ(v.MaxNorm(), 3.0);
  EXPECT_THROW(TimeFunction::Constant(std::nan("")), std::invalid_argument);
}

TEST(TimeFunction, PiecewiseLinearScalar) {
  // 0 -> 0, 1 -> 2, 3 -> -2.
  const TimeFunction f =
      TimeFunction::PiecewiseLinear({0.0, 1.0, 3.0}, {V(0), V(2), V(-2)});
  EXPECT_FALSE(f.is_constant());
  EXPECT_EQ(f.size(), 1);
  struct {
    double t, value, slope;
  } cases[] = {
      {-5.0, 0.0, 0.0},  // constant before the first knot
      {0.0, 0.0, 2.0},   // a knot: the right segment's slope
      {0.25, 0.5, 2.0},  {1.0, 2.0, -2.0}, {2.0, 0.0, -2.0},
      {2.5, -1.0, -2.0}, {3.0, -2.0, 0.0},  // the last knot: 0
      {10.0, -2.0, 0.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.t);
    EXPECT_NEAR(f.ScalarValue(c.t), c.value, 1e-15);
    EXPECT_NEAR(f.Derivative(c.t)[0], c.slope, 1e-15);
  }
  EXPECT_EQ(f.MaxNorm(), 2.0);
}

TEST(TimeFunction, PiecewiseLinearVector) {
  const TimeFunction f =
      TimeFunction::PiecewiseLinear({1.0, 3.0}, {V3(0, 0, 0), V3(2, -4, 6)});
  EXPECT_EQ(f.size(), 3);
  EXPECT_TRUE(f.Value(2.0).isApprox(V3(1, -2, 3)));
  EXPECT_TRUE(f.Derivative(2.0).isApprox(V3(1, -2, 3)));
  EXPECT_EQ(f.Value(0.0), V3(0, 0, 0));
  EXPECT_EQ(f.Value(4.0), V3(2, -4, 6));
  EXPECT_NEAR(f.MaxNorm(), std::sqrt(56.0), 1e-15);
}

TEST(TimeFunction, PiecewiseLinearOfEqualValuesIsAConstant) {
  EXPECT_TRUE(TimeFunction::PiecewiseLinear({0.0}, {V(3)}).is_constant());
  const TimeFunction f =
      TimeFunction::PiecewiseLinear({0.0, 1.0, 2.0}, {V(3), V(3), V(3)});
  EXPECT_TRUE(f.is_constant());
  EXPECT_EQ(f.ScalarValue(0.5), 3.0);
}

TEST(TimeFunction, PiecewiseLinearRejectsBadInput) {
  EXPECT_THROW(TimeFunction::PiecewiseLinear({}, {}), std::invalid_argument);
  EXPECT_THROW(TimeFunction::PiecewiseLinear({0.0, 1.0}, {V(0)}),
               std::invalid_argument);
  EXPECT_THROW(TimeFunction::PiecewiseLinear({1.0, 0.5}, {V(0), V(1)}),
               std::invalid_argument);
  EXPECT_THROW(TimeFunction::PiecewiseLinear({1.0, 1.0}, {V(0), V(1)}),
               std::invalid_argument);
  EXPECT_THROW(TimeFunction::PiecewiseLinear({0.0, 1.0}, {V(0), V3(1, 1, 1)}),
               std::invalid_argument);
  EXPECT_THROW(
      TimeFunction::PiecewiseLinear(
          {0.0, std::numeric_limits<double>::infinity()}, {V(0), V(1)}),
      std::invalid_argument);
}

TEST(TimeFunction, SineAgainstClosedForm) {
  const double a = 0.3, f = 2.0, p = 0.4, o = -1.0;
  const TimeFunction s = TimeFunction::Sine(V(a), f, p, V(o));
  EXPECT_FALSE(s.is_constant());
  const double w = 2.0 * kPi * f;
  for (double t = -0.5; t <= 2.0; t += 0.137) {
    EXPECT_NEAR(s.ScalarValue(t), o + a * std::sin(w * t + p), 1e-14);
    EXPECT_NEAR(s.Derivative(t)[0], a * w * std::cos(w * t + p), 1e-13);
  }
  EXPECT_NEAR(s.MaxNorm(), 1.3, 1e-15);
  // Vector sines act element-wise.
  const TimeFunction v = TimeFunction::Sine(V3(1, 0, 2), 0.5, 0.0, V3(0, 1, 0));
  const double t = 0.3;
  EXPECT_TRUE(
      v.Value(t).isApprox(V3(std::sin(kPi * t), 1.0, 2.0 * std::sin(kPi * t))));
  EXPECT_TRUE(v.Derivative(t).isApprox(
      V3(kPi * std::cos(kPi * t), 0.0, 2.0 * kPi * std::cos(kPi * t))));
}

TEST(TimeFunction, DegenerateSinesAreConstants) {
  const TimeFunction zero_amplitude =
      TimeFunction::Sine(V(0.0), 3.0, 0.2, V(1.5));
  EXPECT_TRUE(zero_amplitude.is_constant());
  EXPECT_EQ(zero_amplitude.ScalarValue(0.7), 1.5);
  const TimeFunction zero_frequency =
      TimeFunction::Sine(V(2.0), 0.0, kPi / 2.0, V(1.0));
  EXPECT_TRUE(zero_frequency.is_constant());
  EXPECT_NEAR(zero_frequency.ScalarValue(5.0), 3.0, 1e-15);
}

TEST(TimeFunction, SineRejectsBadInput) {
  EXPECT_THROW(TimeFunction::Sine(V(1), -1.0, 0.0, V(0)),
               std::invalid_argument);
  EXPECT_THROW(TimeFunction::Sine(V(1), 1.0, 0.0, V3(0, 0, 0)),
               std::invalid_argument);
  EXPECT_THROW(TimeFunction::Sine(V(1), std::nan(""), 0.0, V(0)),
               std::invalid_argument);
}

TEST(TimeFunction, TimeDerivativeMatchesDerivative) {
  const TimeFunction pl =
      TimeFunction::PiecewiseLinear({0.0, 1.0, 3.0}, {V(0), V(2), V(-2)});
  const TimeFunction sine = TimeFunction::Sine(V(0.3), 2.0, 0.4, V(-1.0));
  for (const TimeFunction* f : {&pl, &sine}) {
    const TimeFunction d = f->TimeDerivative();
    EXPECT_EQ(d.size(), 1);
    for (double t : {-1.0, 0.0, 0.3, 1.0, 1.7, 2.9, 3.0, 4.0}) {
      SCOPED_TRACE(t);
      EXPECT_NEAR(d.ScalarValue(t), f->Derivative(t)[0], 1e-12);
    }
  }
  // The slopes of a piecewise-linear function are piecewise constant.
  const TimeFunction d = pl.TimeDerivative();
  EXPECT_EQ(d.Derivative(0.5)[0], 0.0);
  EXPECT_EQ(d.MaxNorm(), 2.0);
  const TimeFunction c = TimeFunction::Constant(V3(1, 2, 3)).TimeDerivative();
  EXPECT_TRUE(c.is_constant());
  EXPECT_EQ(c.Value(0.0), V3(0, 0, 0));
}

// --- The YAML forms --------------------------------------------------------

TimeFunction Read(const std::string& yaml, int n) {
  const scene_internal::YamlReader reader("f.yaml");
  return reader.Function(YAML::Load(yaml), "f", n);
}

TEST(TimeFunctionYaml, Forms) {
  EXPECT_EQ(Read("2.5", 1).ScalarValue(3.0), 2.5);
  EXPECT_EQ(Read("[1, 2, 3]", 3).Value(0.0), V3(1, 2, 3));
  const TimeFunction pl = Read("{times: [0, 1], values: [0, 4]}", 1);
  EXPECT_DOUBLE_EQ(pl.ScalarValue(0.25), 1.0);
  const TimeFunction pl3 =
      Read("{times: [0, 2], values: [[0, 0, 0], [2, 4, 6]]}", 3);
  EXPECT_TRUE(pl3.Value(1.0).isApprox(V3(1, 2, 3)));
  const TimeFunction s =
      Read("{sine: {amplitude: 2, frequency: 0.5, phase: 0.1, offset: 1}}", 1);
  EXPECT_NEAR(s.ScalarValue(0.4), 1.0 + 2.0 * std::sin(kPi * 0.4 + 0.1), 1e-14);
  const TimeFunction s3 =
      Read("{sine: {amplitude: [0, 0, 1], frequency: 1}}", 3);
  EXPECT_NEAR(s3.Value(0.25)[2], 1.0, 1e-14);
  EXPECT_EQ(s3.Value(0.25)[0], 0.0);
}

struct BadFunction {
  const char* yaml;
  int n;
  const char* field;
  const char* message;  // a part of it
};

void PrintTo(const BadFunction& c, std::ostream* os) { *os << c.yaml; }

class BadFunctionTest : public ::testing::TestWithParam<BadFunction> {};

TEST_P(BadFunctionTest, NamesLineFieldAndProblem) {
  const BadFunction& c = GetParam();
  try {
    // On line 2, so that the line is checked.
    const scene_internal::YamlReader reader("f.yaml");
    const YAML::Node doc = YAML::Load(std::string("x: 1\nf: ") + c.yaml);
    reader.Function(doc["f"], "f", c.n);
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.line(), 2) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    EXPECT_NE(msg.find("f.yaml:2:"), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, BadFunctionTest,
    ::testing::Values(
        BadFunction{"{times: [0, 1, 0.5], values: [0, 1, 2]}", 1, "f.times",
                    "times must increase (0.5 after 1)"},
        BadFunction{"{times: [0, 0], values: [0, 1]}", 1, "f.times",
                    "times must increase (0 after 0)"},
        BadFunction{"{times: [0, 1], values: [0]}", 1, "f.values",
                    "expected a list of 2 values"},
        BadFunction{"{times: [], values: []}", 1, "f.times", "non-empty"},
        BadFunction{"{values: [1]}", 1, "f.times", "missing required"},
        BadFunction{"{times: [0, 1], values: [0, [1, 2]]}", 1, "f.values[1]",
                    "expected a number"},
        BadFunction{"{times: [0, 1], values: [[0, 0, 0], [1, 2]]}", 3,
                    "f.values[1]", "expected a list of 3 numbers"},
        BadFunction{"{times: [0, .nan], values: [0, 1]}", 1, "f.times[1]",
                    "finite"},
        BadFunction{"{sine: {frequency: 1}}", 1, "f.sine.amplitude",
                    "missing required"},
        BadFunction{"{sine: {amplitude: 1, frequency: -1}}", 1,
                    "f.sine.frequency", "must be >= 0"},
        BadFunction{"{sine: {amplitude: 1, frequency: 1e9}}", 1,
                    "f.sine.frequency", "Limits"},
        BadFunction{"{sine: {amplitude: 1, frequency: 1, phse: 0}}", 1,
                    "f.sine.phse", "unknown key"},
        BadFunction{"{sine: {amplitude: 1, frequency: 1}, times: [0]}", 1,
                    "f.sine", "not both"},
        BadFunction{"{slope: 1}", 1, "f.slope",
                    "allowed here: times, values, sine"},
        BadFunction{"2.0", 3, "f", "expected a list of 3 numbers"},
        BadFunction{"[1, 2]", 3, "f", "expected a list of 3 numbers"},
        BadFunction{"fast", 1, "f", "expected a number"}));

}  // namespace
}  // namespace sapcontact
