// SAP solve time on synthetic box problems (tests/common/box_fixtures.h):
//   chain of N boxes (path graph) and N x N grid of boxes (2-D graph).
// Counters: Newton iterations per solve, share of the time spent in the
// Hessian factorization, DOFs and contacts. Build in Release:
//   cmake --build build --target sap_solver_bench &&
//   build/bench/sap_solver_bench
#include <benchmark/benchmark.h>

#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/common/box_fixtures.h"

namespace sapcontact {
namespace {

void Report(benchmark::State& state, const SapProblem& p, double iterations,
            double factor_time, double total_time) {
  state.counters["newton_its"] = iterations;
  state.counters["factor_share"] = factor_time / total_time;
  state.counters["dofs"] = p.num_velocities();
  state.counters["contacts"] = static_cast<double>(p.contacts.size());
}

// Cold solve (from v*), CHOLMOD with the symbolic analysis reused across
// repetitions (the same patch graph, as in consecutive time steps).
void Solve(benchmark::State& state, const SapProblem& p, bool warm) {
  SapSolverParameters params;
  params.linear_solver = LinearSolverType::kCholmod;
  SapSolver solver(params);
  SapSolverResults r = solver.Solve(p);  // analysis + warm-start source
  if (!r.converged()) state.SkipWithError(r.message.c_str());
  const Eigen::VectorXd guess = r.v;
  double its = 0, tf = 0, tt = 0;
  for (auto _ : state) {
    r = solver.Solve(p, warm ? &guess : nullptr);
    its += r.statistics.newton_iterations;
    tf += r.statistics.time_factorization;
    tt += r.statistics.time_total;
  }
  const double n = static_cast<double>(state.iterations());
  Report(state, p, its / n, tf, tt);
}

// Resting boxes (contacts off equilibrium, all sticking at the solution):
// one Newton step, so the time measures model + factorization scaling.
void BM_Chain(benchmark::State& state) {
  Solve(state, fixtures::Chain(static_cast<int>(state.range(0))), false);
}
BENCHMARK(BM_Chain)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Unit(
    benchmark::kMillisecond);

void BM_Grid(benchmark::State& state) {
  Solve(state, fixtures::Grid(static_cast<int>(state.range(0))), false);
}
BENCHMARK(BM_Grid)->Arg(10)->Arg(32)->Arg(100)->Unit(benchmark::kMillisecond);

// Warm start from the previous solve of the same resting grid.
void BM_GridWarm(benchmark::State& state) {
  Solve(state, fixtures::Grid(static_cast<int>(state.range(0))), true);
}
BENCHMARK(BM_GridWarm)
    ->Arg(10)
    ->Arg(32)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond);

// Sliding boxes (random horizontal velocities up to 5 cm/s, far above the
// mu g dt that friction removes per step): many stick/slip/separation events.
fixtures::BoxSetup Sliding() {
  fixtures::BoxSetup s;
  s.jiggle = 0.05;
  return s;
}
void BM_ChainSliding(benchmark::State& state) {
  Solve(state, fixtures::Chain(static_cast<int>(state.range(0)), Sliding()),
        false);
}
BENCHMARK(BM_ChainSliding)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

void BM_GridSliding(benchmark::State& state) {
  Solve(state, fixtures::Grid(static_cast<int>(state.range(0)), Sliding()),
        false);
}
BENCHMARK(BM_GridSliding)->Arg(10)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sapcontact

BENCHMARK_MAIN();
