// Sweep specifications (studies/sweep_spec.h): lists, linear and log ranges,
// linked keys, the Cartesian product and its order, sharding, and clear
// errors on bad syntax.
#include "sapcontact/studies/sweep_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace sapcontact {
namespace {

using Strings = std::vector<std::string>;

// The message of the std::invalid_argument `f` throws ("" if none).
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SweepAxisTest, ListKeepsValuesVerbatim) {
  const SweepAxis a = ParseSweepAxis("solver.near_rigid_threshold=0.1, 0.3,1");
  EXPECT_EQ(a.keys, Strings{"solver.near_rigid_threshold"});
  EXPECT_EQ(a.values, (Strings{"0.1", "0.3", "1"}));
  EXPECT_FALSE(a.log_spacing);
  const SweepAxis b = ParseSweepAxis("materials.default.stiffness=1e6,.inf");
  EXPECT_EQ(b.values, (Strings{"1e6", ".inf"}));
}

TEST(SweepAxisTest, CommasInsideBracketsDoNotSplit) {
  const SweepAxis a = ParseSweepAxis("gravity=[0,0,-9.81],[0, 0, -1.62]");
  EXPECT_EQ(a.values, (Strings{"[0,0,-9.81]", "[0, 0, -1.62]"}));
}

TEST(SweepAxisTest, LinearRangeIncludesEndsAndIsEvenlySpaced) {
  const SweepAxis a = ParseSweepAxis("duration=0.5:2:4");
  ASSERT_EQ(a.values, (Strings{"0.5", "1", "1.5", "2"}));
  const SweepAxis b = ParseSweepAxis("bodies.box.position.0=-1:1:5");
  EXPECT_EQ(b.values, (Strings{"-1", "-0.5", "0", "0.5", "1"}));
}

TEST(SweepAxisTest, LogRangeIsGeometric) {
  const SweepAxis a = ParseSweepAxis("time_step=1e-4:1e-1:4:log");
  EXPECT_TRUE(a.log_spacing);
  EXPECT_EQ(a.values, (Strings{"0.0001", "0.001", "0.01", "0.1"}));
  // Half decades: consecutive ratios are all sqrt(10).
  const SweepAxis b = ParseSweepAxis("k=1e2:1e12:21:log");
  ASSERT_EQ(b.values.size(), 21u);
  for (size_t i = 1; i < b.values.size(); ++i) {
    EXPECT_NEAR(std::stod(b.values[i]) / std::stod(b.values[i - 1]),
                std::sqrt(10.0), 1e-8);
  }
  EXPECT_EQ(b.values.front(), "100");
  EXPECT_EQ(b.values.back(), "1e+12");
}

TEST(SweepAxisTest, SingleValueRangeNeedsEqualEnds) {
  EXPECT_EQ(ParseSweepAxis("x=2:2:1").values, Strings{"2"});
  EXPECT_NE(ErrorOf([] { ParseSweepAxis("x=1:2:1"); }).find("COUNT 1"),
            std::string::npos);
}

TEST(SweepAxisTest, LinkedKeysShareValues) {
  const SweepAxis a = ParseSweepAxis(
      "solver.near_rigid_threshold,solver.friction_regularization=1:1e-2:3:"
      "log");
  EXPECT_EQ(a.keys, (Strings{"solver.near_rigid_threshold",
                             "solver.friction_regularization"}));
  EXPECT_EQ(a.values, (Strings{"1", "0.1", "0.01"}));
}

TEST(SweepAxisTest, BadSyntaxIsAClearError) {
  struct Case {
    std::string spec, expected;
  };
  const std::vector<Case> cases = {
      {"time_step", "expected KEY=VALUES"},
      {"=1,2", "empty key"},
      {"time_step=", "no values"},
      {"time_step=1,,2", "empty value"},
      {"time_step=1:2", "START:STOP:COUNT"},
      {"time_step=1:2:3:4:5", "START:STOP:COUNT"},
      {"time_step=1:2:3:lin", "must be 'log'"},
      {"time_step=a:2:3", "START 'a' is not a finite number"},
      {"time_step=1:nan:3", "STOP 'nan' is not a finite number"},
      {"time_step=1:2:2.5", "COUNT '2.5' is not an integer"},
      {"time_step=1:2:0", "COUNT '0' is not an integer >= 1"},
      {"time_step=0:1:3:log", "START > 0 and STOP > 0"},
      {"gravity=[0,0,1", "unbalanced brackets"},
      {"a,a=1", "repeated"},
      {"a b=1", "contains a space"},
  };
  for (const Case& c : cases) {
    const std::string error = ErrorOf([&] { ParseSweepAxis(c.spec); });
    EXPECT_NE(error.find("--vary '" + c.spec + "'"), std::string::npos)
        << c.spec << ": " << error;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << c.spec << ": " << error;
  }
}

TEST(SweepExpandTest, CartesianProductFirstAxisSlowest) {
  const std::vector<SweepAxis> axes = {ParseSweepAxis("a=1,2"),
                                       ParseSweepAxis("b,c=x,y,z")};
  const std::vector<SweepPoint> points = ExpandSweep(axes);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].values, (Strings{"1", "x"}));
  EXPECT_EQ(points[1].values, (Strings{"1", "y"}));
  EXPECT_EQ(points[3].values, (Strings{"2", "x"}));
  EXPECT_EQ(points[5].overrides, (Strings{"a=2", "b=z", "c=z"}));
  std::set<Strings> distinct;
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, static_cast<int>(i));
    distinct.insert(points[i].values);
  }
  EXPECT_EQ(distinct.size(), 6u);
}

TEST(SweepExpandTest, NoAxesIsOnePointAndRepeatedKeysAreErrors) {
  const std::vector<SweepPoint> one = ExpandSweep({});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].overrides.empty());
  const std::string error = ErrorOf([] {
    ExpandSweep({ParseSweepAxis("a=1,2"), ParseSweepAxis("b,a=3")});
  });
  EXPECT_NE(error.find("'a' is also varied"), std::string::npos) << error;
}

TEST(SweepShardTest, ParseAndPartition) {
  const SweepShard s = ParseShard("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(ToString(s), "2/5");
  for (const char* bad : {"5/5", "-1/3", "1", "a/3", "1/0", "1/3x", ""}) {
    const std::string error = ErrorOf([&] { ParseShard(bad); });
    EXPECT_NE(error.find("--shard '" + std::string(bad) + "'"),
              std::string::npos)
        << bad << ": " << error;
  }
  // Every index in exactly one of the N shards.
  for (int n = 1; n <= 4; ++n) {
    for (int i = 0; i < 23; ++i) {
      int owners = 0;
      for (int k = 0; k < n; ++k) owners += InShard(i, SweepShard{k, n});
      EXPECT_EQ(owners, 1);
    }
  }
}

}  // namespace
}  // namespace sapcontact
