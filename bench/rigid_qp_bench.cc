// The rigid-contact QP interior-point solver
// (solver/rigid_qp/rigid_qp_solver.h) against SAP (solver/sap/sap_solver.h) on
// the same problems: chains of boxes (tests/common/box_fixtures.h) with rigid
// contacts (k = inf, tau_d = 0, mu = 0.5) of about 10, 100 and 1000 contacts
// (2, 13 and 125 boxes: 12, 100 and 996 contacts), resting or sliding (random
// horizontal velocities up to 5 cm/s). SAP runs with its defaults (near-rigid
// beta = 1, sigma = 1e-3), the rigid QP to its defaults (gap and residuals
// 1e-10, with polishing; with four contacts per face W is rank-deficient and
// larger chains end in kSolvedReducedAccuracy, counter "reduced"); both start
// cold. The rigid QP time includes the Delassus assembly W = J A^-1 J' and its
// CHOLMOD symbolic analysis (done per solve); SAP reuses its symbolic analysis
// across repetitions. Build in Release:
//   cmake --build build --target rigid_qp_bench && build/bench/rigid_qp_bench
#include <benchmark/benchmark.h>

#include <limits>

#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"

namespace sapcontact {
namespace {

// state.range(0): boxes; state.range(1): 1 = sliding, 0 = resting.
SapProblem Problem(const benchmark::State& state) {
  fixtures::BoxSetup s;
  s.contact =
      ContactParameters{std::numeric_limits<double>::infinity(), 0.0, 0.5};
  s.jiggle = state.range(1) ? 0.05 : 0.0;
  return fixtures::Chain(static_cast<int>(state.range(0)), s);
}

void Counters(benchmark::State& state, const SapProblem& p, double its) {
  state.counters["contacts"] = static_cast<double>(p.contacts.size());
  state.counters["iterations"] = its;
}

void BM_RigidQp(benchmark::State& state, RigidQpLinearSolver linear_solver) {
  const SapProblem p = Problem(state);
  RigidQpSolverOptions options;
  options.linear_solver = linear_solver;
  double its = 0;
  RigidQpResult r;
  for (auto _ : state) {
    r = SolveRigidContactQp(p, options);
    if (r.status != RigidQpStatus::kSolved &&
        r.status != RigidQpStatus::kSolvedReducedAccuracy) {
      state.SkipWithError(r.reason.c_str());
      break;
    }
    its += r.iterations;
  }
  Counters(state, p, its / std::max<double>(1.0, state.iterations()));
  // 1 when the redundant contacts (four per face) limited the accuracy to
  // kSolvedReducedAccuracy; the reached dual residual.
  state.counters["reduced"] =
      r.status == RigidQpStatus::kSolvedReducedAccuracy ? 1.0 : 0.0;
  state.counters["dual_res"] = r.dual_residual;
}

void BM_RigidQpAuto(benchmark::State& state) {
  BM_RigidQp(state, RigidQpLinearSolver::kAuto);
}
void BM_RigidQpDense(benchmark::State& state) {
  BM_RigidQp(state, RigidQpLinearSolver::kDense);
}
void BM_RigidQpSparse(benchmark::State& state) {
  BM_RigidQp(state, RigidQpLinearSolver::kSparse);
}

void BM_Sap(benchmark::State& state) {
  const SapProblem p = Problem(state);
  SapSolver solver;
  double its = 0;
  for (auto _ : state) {
    const SapSolverResults r = solver.Solve(p);
    if (!r.converged()) {
      state.SkipWithError(r.message.c_str());
      break;
    }
    its += r.statistics.newton_iterations;
  }
  Counters(state, p, its / std::max<double>(1.0, state.iterations()));
}

// The Delassus operator alone (sparse storage), part of BM_RigidQp*.
void BM_DelassusAssembly(benchmark::State& state) {
  const SapProblem p = Problem(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(MakeRigidContactProblem(p, true));
  }
  Counters(state, p, 0);
}

void Sizes(benchmark::internal::Benchmark* b, int max_boxes) {
  for (int sliding : {0, 1}) {
    for (int boxes : {2, 13, 125}) {
      if (boxes <= max_boxes) b->Args({boxes, sliding});
    }
  }
  b->ArgNames({"boxes", "sliding"})->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_RigidQpAuto)->Apply([](auto* b) { Sizes(b, 125); });
BENCHMARK(BM_RigidQpSparse)->Apply([](auto* b) { Sizes(b, 125); });
BENCHMARK(BM_RigidQpDense)->Apply([](auto* b) { Sizes(b, 13); });
BENCHMARK(BM_Sap)->Apply([](auto* b) { Sizes(b, 125); });
BENCHMARK(BM_DelassusAssembly)->Apply([](auto* b) { Sizes(b, 125); });

}  // namespace
}  // namespace sapcontact

BENCHMARK_MAIN();
