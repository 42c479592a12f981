// Helpers for the concurrency tests of the solvers
// (tests/solver/sap/concurrent_solves_test.cc,
// tests/solver/rigid_qp/concurrent_solves_test.cc): bitwise comparison of
// results and the number of threads of this process.
#pragma once

#include <Eigen/Core>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

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

/// What RunSerialAndConcurrent() returns: per sequence t, its results run
/// alone (serial) and run at the same time as the others (concurrent), and
/// the number of threads of the process at the end of the serial runs and
/// when each concurrent sequence finished.
template <typename Results>
struct SerialAndConcurrent {
  std::vector<Results> serial, concurrent;
  int threads_before{0}, threads_after_serial{0};
  std::vector<int> threads_seen;
};

/// Runs sequence(t) for t = 0..n-1 one after the other on this thread, then
/// all at once, each on its own std::thread.
template <typename Results>
SerialAndConcurrent<Results> RunSerialAndConcurrent(
    int n, const std::function<Results(int)>& sequence) {
  SerialAndConcurrent<Results> r;
  // One thread started and joined first: a runtime that adds a thread of
  // its own at the first thread creation (ThreadSanitizer's background
  // thread) has it before the count.
  std::thread([] {}).join();
  r.threads_before = ProcessThreadCount();
  for (int t = 0; t < n; ++t) r.serial.push_back(sequence(t));
  r.threads_after_serial = ProcessThreadCount();
  r.concurrent.resize(n);
  r.threads_seen.assign(n, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < n; ++t) {
    workers.emplace_back([&r, &sequence, t] {
      r.concurrent[t] = sequence(t);
      r.threads_seen[t] = ProcessThreadCount();
    });
  }
  for (std::thread& w : workers) w.join();
  return r;
}

}  // namespace sapcontact::testing
