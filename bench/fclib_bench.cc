// Both solvers of fclib/fclib_solver.h on FCLib problems exported from the
// `pile` scene (config/scenes/pile.yaml; what `sapsim run --export-fclib`
// writes: W = J A^-1 J' + R with SAP's regularization R, q = J v* - v_hat).
// Setup simulates the pile and exports steps 120, 160 and 200 (0-based
// 119, 159, 199: the first layers landing, 30 to 170 contacts) into a
// temporary directory, then reads them back; or, with
//   SAPCONTACT_FCLIB_BENCH_FILES="a.hdf5 b.hdf5 ..."
// it benchmarks those files instead. Per problem and solver: wall time per
// solve (setup included: symmetrization, primal form, refinement),
// counters contacts, iterations (interior point or SAP Newton, all
// continuation stages), refinement steps, relative e_S, and the objective
// relative to the rigid one. Build in Release:
//   cmake --build build --target fclib_bench && build/bench/fclib_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_solver.h"
#include "sapcontact/fclib/fclib_step_export.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
namespace {

struct BenchProblem {
  std::string name;
  FclibLocalProblem problem;
  double rigid_objective{0.0};
};

std::string RepoRoot() {
  const std::string f = __FILE__;
  return f.substr(0, f.rfind("/bench/"));
}

// Simulates the pile and exports the given (0-based) steps.
std::vector<std::string> ExportPileSteps(const std::vector<int>& steps) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sapcontact_fclib_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Scene scene = LoadScene(RepoRoot() + "/config/scenes/pile.yaml");
  TimeStepper stepper(scene);
  FclibStepWriter writer((dir / "pile.hdf5").string(), "pile");
  std::vector<std::string> files;
  for (int n = 0; n <= steps.back(); ++n) {
    const double t = stepper.time();
    stepper.Step();
    bool wanted = false;
    for (int s : steps) wanted |= s == n;
    if (!wanted) continue;
    const SapSolverResults& r = stepper.last_sap_results();
    const std::string path = writer.Write(n, t, stepper.last_problem(),
                                          StackRegularization(r.R_n, r.R_t),
                                          stepper.last_impulses());
    if (!path.empty()) files.push_back(path);
  }
  return files;
}

std::vector<BenchProblem>& Problems() {
  static std::vector<BenchProblem> problems;
  return problems;
}

void Solve(benchmark::State& state, const BenchProblem* p,
           FclibSolverKind kind) {
  FclibSolverOptions options;
  options.solver = kind;
  FclibSolveResult r;
  for (auto _ : state) {
    r = SolveFclibLocal(p->problem, options);
    if (!r.success) {
      state.SkipWithError((r.status + ": " + r.message).c_str());
      break;
    }
  }
  state.counters["contacts"] = r.contacts;
  state.counters["iterations"] = r.iterations;
  state.counters["refine_its"] = r.refinement_iterations;
  state.counters["e_S"] = r.residuals.convex_residual;
  state.counters["obj_vs_rigid"] =
      (r.residuals.objective - p->rigid_objective) /
      std::abs(p->rigid_objective);
}

}  // namespace
}  // namespace sapcontact

int main(int argc, char** argv) {
  using namespace sapcontact;
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> files;
  if (const char* env = std::getenv("SAPCONTACT_FCLIB_BENCH_FILES")) {
    std::istringstream in(env);
    for (std::string f; in >> f;) files.push_back(f);
  } else {
    std::fprintf(stderr, "exporting pile steps 120, 160, 200 ...\n");
    files = ExportPileSteps({119, 159, 199});
  }
  for (const std::string& f : files) {
    BenchProblem p;
    p.name = FclibProblemName(f);
    p.problem = ReadFclibLocal(f);
    p.rigid_objective = SolveFclibLocal(p.problem).residuals.objective;
    Problems().push_back(std::move(p));
  }
  for (const BenchProblem& p : Problems()) {
    benchmark::RegisterBenchmark(("rigid/" + p.name).c_str(), Solve, &p,
                                 FclibSolverKind::kRigid)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("sap/" + p.name).c_str(), Solve, &p,
                                 FclibSolverKind::kSap)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
