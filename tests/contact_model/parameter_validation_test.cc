// Bad parameters raise std::invalid_argument naming the field and its value.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "sapcontact/contact_model/contact_parameters.h"
#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Runs f and expects std::invalid_argument whose message contains every
// fragment.
void ExpectError(const std::function<void()>& f,
                 std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const std::string& frag : fragments) {
      EXPECT_NE(msg.find(frag), std::string::npos)
          << "message \"" << msg << "\" lacks \"" << frag << "\"";
    }
  }
}

ContactRegularization Compute(ContactParameters p,
                              RegularizationParameters reg = {},
                              double dt = 1e-3, double w = 0.1,
                              double phi0 = 0.0) {
  return ComputeRegularization(p, reg, dt, w, phi0);
}

TEST(ParameterValidation, ContactParameters) {
  ExpectError([] { Compute({0.0, 0.01, 0.5}); }, {"stiffness", "0"});
  ExpectError([] { Compute({-5.0, 0.01, 0.5}); }, {"stiffness", "-5"});
  ExpectError([] { Compute({kNaN, 0.01, 0.5}); }, {"stiffness", "nan"});
  ExpectError(
      [] {
        Compute({1e6, -0.1, 0.5});
      },
      {"dissipation_time_scale", "-0.1"});
  ExpectError(
      [] {
        Compute({1e6, kNaN, 0.5});
      },
      {"dissipation_time_scale", "nan"});
  ExpectError([] { Compute({1e6, 0.01, -0.2}); }, {"friction", "-0.2"});
  ExpectError([] { Compute({1e6, 0.01, kNaN}); }, {"friction", "nan"});
}

TEST(ParameterValidation, RegularizationParameters) {
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {-1.0, 1e-3, 1e-8});
      },
      {"beta", "-1"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {kNaN, 1e-3, 1e-8});
      },
      {"beta", "nan"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {1.0, 0.0, 1e-8});
      },
      {"sigma", "0"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {1.0, -1e-3, 1e-8});
      },
      {"sigma", "-0.001"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {1.0, kNaN, 1e-8});
      },
      {"sigma", "nan"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {1.0, 1e-3, -1.0});
      },
      {"epsilon_s", "-1"});
}

TEST(ParameterValidation, StepAndGeometry) {
  ExpectError([] { Compute({1e6, 0.01, 0.5}, {}, 0.0); }, {"dt", "0"});
  ExpectError([] { Compute({1e6, 0.01, 0.5}, {}, -1e-3); }, {"dt", "-0.001"});
  ExpectError([] { Compute({1e6, 0.01, 0.5}, {}, kNaN); }, {"dt", "nan"});
  ExpectError([] { Compute({1e6, 0.01, 0.5}, {}, 1e-3, 0.0); }, {"w", "0"});
  ExpectError([] { Compute({1e6, 0.01, 0.5}, {}, 1e-3, kNaN); }, {"w", "nan"});
  ExpectError(
      [] {
        Compute({1e6, 0.01, 0.5}, {}, 1e-3, 0.1, kNaN);
      },
      {"phi0", "nan"});
}

TEST(ParameterValidation, ValidValuesPass) {
  EXPECT_NO_THROW(Compute({std::numeric_limits<double>::infinity(), 0.0, 0.0}));
  EXPECT_NO_THROW(Compute({1.0, 0.0, 100.0}, {0.0, 1e-9, 0.0}));
}

}  // namespace
}  // namespace sapcontact
