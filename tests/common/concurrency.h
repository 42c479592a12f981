// Helpers for the concurrency tests of the solvers
// (tests/solver/sap/concurrent_solves_test.cc,
// tests/solver/rigid_qp/concurrent_solves_test.cc): bitwise comparison of
// results and the number of threads of this process.
#pragma once

#include <Eigen/Core>
#include <cstring>
#include <filesystem>
#include <string>

namespace sapcontact::testing {

/// True if a and b have the same size and the same bits (so -0.0 != +0.0
/// and NaN == NaN when the payloads agree): "bitwise identical".
inline bool BitwiseEqual(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         (a.size() == 0 ||
          std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0);
}

/// Index of the first entry whose bits differ, for messages (-1 if none).
inline int FirstBitwiseDifference(const Eigen::VectorXd& a,
                                  const Eigen::VectorXd& b) {
  for (int i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (std::memcmp(&a(i), &b(i), sizeof(double)) != 0) return i;
  }
  return a.size() == b.size() ? -1
                              : static_cast<int>(std::min(a.size(), b.size()));
}

/// Threads of this process now (Linux: entries of /proc/self/task).
inline int ProcessThreadCount() {
  int n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

}  // namespace sapcontact::testing
