// The thread-safety promise of solver/sap/sap_solver.h: separate SapSolver
// objects used from separate threads at the same time give results bitwise
// identical to the same solves run one after the other, with whatever BLAS
// scripts/setup installs, and the solves start no threads of their own
// (CHOLMOD's OpenMP regions run on the calling thread: no oversubscription
// when an embedder runs one solver per core).
//
// Problems: grids of sliding boxes (tests/common/box_fixtures.h) of 864 to 1734
// DOFs, forced onto CHOLMOD's supernodal factorization (BLAS dgemm, dsyrk,
// dpotrf, dtrsm on every supernode), several Newton iterations each; each
// thread solves a different sequence with one SapSolver (reusing its
// symbolic analysis across problems of the same pattern, as in a
// simulation).
#include <gtest/gtest.h>

#include <vector>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"
#include "tests/common/concurrency.h"

namespace sapcontact {
namespace {

using testing::BitwiseEqual;
using testing::FirstBitwiseDifference;
using testing::RunSerialAndConcurrent;

constexpr int kThreads = 4;
constexpr int kProblemsPerThread = 3;

// Problem j of thread t: a grid of 12 + t boxes per side, sliding at up to
// 5 + 2 j cm/s, friction 0.3 + 0.1 j: different sizes (so different
// supernodal structures) per thread, different contact modes per problem.
SapProblem ThreadProblem(int t, int j) {
  fixtures::BoxSetup s;
  s.jiggle = 0.05 + 0.02 * j;
  s.contact.friction = 0.3 + 0.1 * j;
  return fixtures::Grid(12 + t, s);
}

SapSolverParameters CholmodParameters() {
  SapSolverParameters p;
  p.linear_solver = LinearSolverType::kCholmod;
  p.cholmod_factor = CholmodFactorKind::kSupernodal;  // BLAS on supernodes
  return p;
}

// One thread's sequence of solves with one solver object.
std::vector<SapSolverResults> SolveSequence(
    const std::vector<SapProblem>& problems) {
  SapSolver solver(CholmodParameters());
  std::vector<SapSolverResults> results;
  for (const SapProblem& p : problems) results.push_back(solver.Solve(p));
  return results;
}

void ExpectIdentical(const SapSolverResults& a, const SapSolverResults& b,
                     const std::string& what) {
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.statistics.newton_iterations, b.statistics.newton_iterations)
      << what;
  EXPECT_TRUE(BitwiseEqual(a.v, b.v))
      << what << ": v differs first at " << FirstBitwiseDifference(a.v, b.v);
  EXPECT_TRUE(BitwiseEqual(a.gamma, b.gamma))
      << what << ": gamma differs first at "
      << FirstBitwiseDifference(a.gamma, b.gamma);
  EXPECT_TRUE(BitwiseEqual(a.v_c, b.v_c)) << what << ": v_c differs";
  EXPECT_TRUE(BitwiseEqual(a.R_n, b.R_n)) << what << ": R_n differs";
  EXPECT_EQ(a.statistics.final_cost, b.statistics.final_cost) << what;
}

TEST(ConcurrentSapSolves, BitwiseEqualToSerialAndNoExtraThreads) {
  std::vector<std::vector<SapProblem>> problems(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int j = 0; j < kProblemsPerThread; ++j) {
      problems[t].push_back(ThreadProblem(t, j));
    }
  }
  // Twice, so that the threads also overlap at different points of their
  // sequences.
  for (int round = 0; round < 2; ++round) {
    const auto runs = RunSerialAndConcurrent<std::vector<SapSolverResults>>(
        kThreads, [&](int t) { return SolveSequence(problems[t]); });
    // The serial solves created no thread (no OpenMP team, no BLAS pool);
    // while a worker finishes, at most the main thread and the kThreads
    // workers exist.
    EXPECT_EQ(runs.threads_after_serial, runs.threads_before);
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_LE(runs.threads_seen[t], runs.threads_before + kThreads)
          << "thread " << t;
      for (int j = 0; j < kProblemsPerThread; ++j) {
        const SapSolverResults& r = runs.serial[t][j];
        ASSERT_TRUE(r.converged())
            << "thread " << t << " problem " << j << ": " << r.message;
        // Large enough for the supernodal path to matter, and real Newton
        // work (several factorizations per solve).
        EXPECT_GE(r.statistics.participating_velocities, 864);
        EXPECT_GE(r.statistics.newton_iterations, 3);
        ExpectIdentical(runs.concurrent[t][j], r,
                        "round " + std::to_string(round) + " thread " +
                            std::to_string(t) + " problem " +
                            std::to_string(j));
      }
    }
  }
}

}  // namespace
}  // namespace sapcontact
