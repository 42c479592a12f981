// Constants the tests share (file-local copies would collide when the test
// files of a folder are compiled together, tests/CMakeLists.txt).
#pragma once

#include <limits>

namespace sapcontact {
namespace test_constants {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kPi = 3.14159265358979323846;

}  // namespace test_constants
}  // namespace sapcontact
