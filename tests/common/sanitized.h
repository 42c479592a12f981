// How many random cases a randomized test draws. Under AddressSanitizer and
// UndefinedBehaviorSanitizer (tests/CMakeLists.txt defines
// SAPCONTACT_SANITIZED in those builds) a property test looks for memory
// errors and undefined behaviour along the code paths its cases reach, and
// a quarter of the cases reaches them too at a quarter of the time (the
// instrumented brute-force references run 4 to 30 times slower: mesh_mesh
// of NarrowPhaseProperty took 76 s instead of 2.6 s); the Release build
// draws every case and checks the statistics of all of them.
#pragma once

namespace sapcontact {
namespace test_sanitized {

#ifdef SAPCONTACT_SANITIZED
inline constexpr int kCaseDivisor = 4;
#else
inline constexpr int kCaseDivisor = 1;
#endif

/// n in a Release build, n / 4 in a sanitizer build.
constexpr int Cases(int n) { return n / kCaseDivisor; }

}  // namespace test_sanitized
}  // namespace sapcontact
