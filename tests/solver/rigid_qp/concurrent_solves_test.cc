// The thread-safety promise of solver/rigid_qp/rigid_qp_solver.h: calls of
// SolveRigidContactQp running at the same time in separate threads give
// results bitwise identical to the same calls run one after the other, and
// start no threads of their own (the CHOLMOD KKT factorization's OpenMP
// regions run on the calling thread).
//
// Problems: grids of boxes (tests/common/box_fixtures.h) with rigid contacts
// (k = inf, tau_d = 0), sliding, 7 x 7 to 10 x 10 boxes (364 to 760
// contacts), on the sparse (CHOLMOD supernodal) KKT path.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/common/concurrency.h"

namespace sapcontact {
namespace {

using testing::BitwiseEqual;
using testing::FirstBitwiseDifference;
using testing::RunSerialAndConcurrent;

constexpr int kThreads = 4;
constexpr int kProblemsPerThread = 2;

SapProblem ThreadProblem(int t, int j) {
  fixtures::BoxSetup s;
  s.contact = {std::numeric_limits<double>::infinity(), 0.0, 0.3 + 0.2 * j};
  s.jiggle = 0.02 + 0.03 * j;
  return fixtures::Grid(7 + t, s);
}

RigidQpSolverOptions SparseOptions() {
  RigidQpSolverOptions o;
  o.linear_solver = RigidQpLinearSolver::kSparse;
  return o;
}

std::vector<RigidQpResult> SolveSequence(
    const std::vector<SapProblem>& problems) {
  std::vector<RigidQpResult> results;
  for (const SapProblem& p : problems) {
    results.push_back(SolveRigidContactQp(p, SparseOptions()));
  }
  return results;
}

TEST(ConcurrentRigidQpSolves, BitwiseEqualToSerialAndNoExtraThreads) {
  std::vector<std::vector<SapProblem>> problems(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int j = 0; j < kProblemsPerThread; ++j) {
      problems[t].push_back(ThreadProblem(t, j));
    }
  }
  const auto runs = RunSerialAndConcurrent<std::vector<RigidQpResult>>(
      kThreads, [&](int t) { return SolveSequence(problems[t]); });
  EXPECT_EQ(runs.threads_after_serial, runs.threads_before);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_LE(runs.threads_seen[t], runs.threads_before + kThreads)
        << "thread " << t;
    for (int j = 0; j < kProblemsPerThread; ++j) {
      const RigidQpResult& b = runs.serial[t][j];
      const RigidQpResult& a = runs.concurrent[t][j];
      const std::string what =
          "thread " + std::to_string(t) + " problem " + std::to_string(j);
      EXPECT_TRUE(b.status == RigidQpStatus::kSolved ||
                  b.status == RigidQpStatus::kSolvedReducedAccuracy)
          << what << ": " << b.reason;
      EXPECT_TRUE(b.used_sparse) << what;
      EXPECT_GE(b.impulses.size(), 3 * 364) << what;
      EXPECT_EQ(a.status, b.status) << what;
      EXPECT_EQ(a.iterations, b.iterations) << what;
      EXPECT_TRUE(BitwiseEqual(a.impulses, b.impulses))
          << what << ": impulses differ first at "
          << FirstBitwiseDifference(a.impulses, b.impulses);
      EXPECT_TRUE(BitwiseEqual(a.velocities, b.velocities))
          << what << ": velocities differ";
      EXPECT_EQ(a.objective, b.objective) << what;
    }
  }
}

}  // namespace
}  // namespace sapcontact
