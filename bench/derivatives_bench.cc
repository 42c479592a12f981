// Cost of the solve's derivatives (solver/sap/sap_solver_derivatives.h,
// docs/theory.md §20) on the step problems of running simulations, against
// the solve itself and against finite differences of whole solves:
//   pile   the comparison's "spheres 512" (bench/comparison_scenes.h) at
//          dt = 1e-3 after 0.25 s: spheres landing in a walled bin,
//   wam    config/scenes/wam_tray.yaml after 0.2 s: the 7-DOF Barrett WAM
//          (Debian's dart-doc) holding a mesh prism on its forearm (skipped
//          with a message when /usr/share/doc/dart/data is missing),
//   stack  config/scenes/stack.yaml (10 boxes) after 0.5 s, settled.
// Per scene:
//   Solve/<s>/cold    SapSolver::Solve from v*,
//   Solve/<s>/warm    SolveFromCandidates from the previous step's v and its
//                     extrapolation 2 v_n - v_(n-1), as TimeStepper does,
//   Linearize/<s>     SapSolverDerivatives construction (model, G at the
//                     solution, one Hessian factorization),
//   Jvp/<s>, Vjp/<s>  one Apply / ApplyTranspose (every parameter perturbed;
//                     dL/dv and dL/dgamma dense),
//   Jacobians/<s>     Jacobians() (nv + 4 nc + 1 back-substitutions),
//   Fd/<s>/...        central differences of the same Jacobians: two solves
//                     per column, warm-started from the solution, with one
//                     solver object (its sparse analysis reused). Only the
//                     columns that need a solve are counted (the stiffness
//                     columns of rigid contacts are zero); a sample of
//                     kFdSample of them, evenly spread, is timed and the time
//                     extrapolated linearly to all (the label says so;
//                     counter fd_ms). Two tolerances: the scene's (rel 1e-6,
//                     what a simulation runs: most perturbed solves stop at
//                     their start, so the differences are wrong) and tight
//                     (rel 1e-13, abs 1e-16: resolves steps of 1e-7, as in
//                     tests/common/solve_derivative_checks.h); fd_err is the
//                     sample's relative difference from Jacobians() (dv
//                     columns).
// The derivatives of a whole step (TimeStepper::CalcStepDerivatives,
// sim/stepping/step_derivatives.h, docs/theory.md §21) at the state the
// scene's steps reach, A = dx+/dx (2 nv x 2 nv) and B = dx+/du (2 nv x nv):
//   Step/<s>          one TimeStepper::Step() (the mean of the next
//                     kStepWindow steps, the scene replayed for each
//                     repetition): the scale,
//   StepDerivatives/<s>/implicit
//                     kImplicit: the problem's construction (collision,
//                     free motion; no solve) at 2 x 2 nv perturbed states,
//                     one linearization of the solve, back-substitutions,
//   StepDerivatives/<s>/fd
//                     kFiniteDifferences: 2 x 3 nv whole steps (solves at
//                     rel_tolerance 1e-12); on the pile timed once (label
//                     "once"). Counters A_diff, B_diff: its relative
//                     (Frobenius) difference from the implicit A and B.
// Both with StepDerivativeOptions' defaults (steps, rel_tolerance 1e-12);
// the step's solve runs at the scene's tolerance.
// The solver parameters are the scene's (MakeSapParameters, as TimeStepper
// uses them: SapSolverParameters{} but for the pile's near-rigid threshold
// 0.63); the linearization uses the same. Summary/<s> reports the ratios
// (to the warm solve; FD to the derivatives) from the fastest run of each,
// and the tables of docs/benchmarks.md ("Derivatives") are printed at the
// end.
// Build and run in Release:
//   make -C build derivatives_bench -j2 &&
//   build/bin/derivatives_bench --benchmark_repetitions=5
// Scene files are found through SAPCONTACT_SOURCE_DIR or this file's path.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/comparison_scenes.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/step_derivatives.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact {
namespace {

// The process's CPU time [s]: what the table reports, less sensitive than
// wall time to the other jobs of a shared machine (the solves run on one
// thread: SapSolverParameters::threads = 1).
struct Clock {
  static double now() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * t.tv_nsec;
  }
};

double Seconds(double a, double b) { return b - a; }

std::string SourceDir() {
  if (const char* root = std::getenv("SAPCONTACT_SOURCE_DIR")) return root;
  const std::string here = __FILE__;
  const auto cut = here.rfind("/bench/");
  return cut == std::string::npos ? "." : here.substr(0, cut);
}

// One step problem of a running simulation and what the benchmarks need.
struct Case {
  std::string name;
  std::string skipped;  // why it is not run; empty: it is
  SapProblem problem;
  SapSolverParameters parameters;
  // The velocities at the start of the step and of the step before (the
  // simulator's warm-start candidates).
  Eigen::VectorXd v_n, v_previous;
  SapSolverResults results;  // cold solve of `problem`
  int nv{0}, nc{0};
  // The simulation after the scene's steps (CalcStepDerivatives leaves it
  // unchanged), what made it (Step/<s> replays it), and the implicit step
  // derivatives (the FD rows' counters A_diff, B_diff compare with them).
  Scene scene;
  int steps{0};
  std::unique_ptr<TimeStepper> stepper;
  std::unique_ptr<StepDerivatives> implicit;
};

// `scene` after `steps` steps.
std::unique_ptr<TimeStepper> Run(const Scene& scene, int steps) {
  auto stepper = std::make_unique<TimeStepper>(scene);
  for (int i = 0; i < steps; ++i) stepper->Step();
  return stepper;
}

// Steps `scene` `steps` times and keeps the last problem.
std::unique_ptr<Case> Simulate(const std::string& name, const Scene& scene,
                               int steps) {
  auto c = std::make_unique<Case>();
  c->name = name;
  c->parameters = MakeSapParameters(scene.solver);
  c->scene = scene;
  c->steps = steps;
  c->stepper = std::make_unique<TimeStepper>(scene);
  TimeStepper& stepper = *c->stepper;
  Eigen::VectorXd v1, v2;  // solutions of the steps before the last
  for (int i = 0; i < steps; ++i) {
    v2 = v1;
    v1 = stepper.last_sap_results().v;
    stepper.Step();
  }
  c->problem = stepper.last_problem();
  c->nv = c->problem.num_velocities();
  c->nc = static_cast<int>(c->problem.contacts.size());
  c->v_n = v1;
  c->v_previous = v2;
  if (c->v_n.size() != c->nv || c->v_previous.size() != c->nv) {
    c->skipped = "the problem's trees changed in the last steps";
    return c;
  }
  SapSolver solver(c->parameters);
  c->results = solver.Solve(c->problem);
  if (!c->results.converged()) {
    c->skipped = "the solve did not converge: " + c->results.message;
  }
  return c;
}

std::unique_ptr<Case> MakeCase(const std::string& name) {
  const std::string scenes = SourceDir() + "/config/scenes/";
  if (name == "pile") {
    // The comparison's scene; 250 steps of 1 ms.
    const comparison::ComparisonScene s = comparison::Spheres(512, 0.3);
    const Scene scene =
        LoadSceneFromString(comparison::ToSapsimYaml(s, 1e-3), s.name);
    return Simulate(name, scene, 250);
  }
  if (name == "wam") {
    if (!std::filesystem::exists("/usr/share/doc/dart/data/urdf/wam")) {
      auto c = std::make_unique<Case>();
      c->name = name;
      c->skipped =
          "Debian's dart-doc is not installed (/usr/share/doc/dart/data)";
      return c;
    }
    return Simulate(name, LoadScene(scenes + "wam_tray.yaml"), 200);
  }
  return Simulate(name, LoadScene(scenes + "stack.yaml"), 500);
}

// Built once, on first use (the pile's 250 steps take a few seconds).
Case& GetCase(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Case>> cases;
  auto& c = cases[name];
  if (!c) {
    try {
      c = MakeCase(name);
    } catch (const std::exception& e) {
      c = std::make_unique<Case>();
      c->name = name;
      c->skipped = std::string("scene setup failed: ") + e.what();
    }
    if (!c->skipped.empty()) {
      std::fprintf(stderr, "derivatives_bench: %s skipped: %s\n", name.c_str(),
                   c->skipped.c_str());
    }
  }
  return *c;
}

// Fastest repetition of each measurement [s], per scene and quantity.
std::map<std::string, std::map<std::string, double>>& Fastest() {
  static std::map<std::string, std::map<std::string, double>> t;
  return t;
}
void Record(const std::string& scene, const std::string& what, double s) {
  auto& t = Fastest()[scene];
  const auto it = t.find(what);
  if (it == t.end() || s < it->second) t[what] = s;
}

bool Ready(benchmark::State& state, const Case& c) {
  if (c.skipped.empty()) return true;
  Fastest()[c.name];  // the table says why
  state.SkipWithError(c.skipped.c_str());
  for (auto _ : state) {
  }
  return false;
}

void Sizes(benchmark::State& state, const Case& c) {
  state.counters["nv"] = c.nv;
  state.counters["nc"] = c.nc;
}

void BM_Solve(benchmark::State& state, const std::string& scene, bool warm) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  SapSolver solver(c.parameters);
  SapSolverResults r = solver.Solve(c.problem);  // the sparse analysis
  const Eigen::VectorXd extrapolated = 2.0 * c.v_n - c.v_previous;
  const std::vector<const Eigen::VectorXd*> candidates{&extrapolated, &c.v_n};
  double its = 0;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    if (warm) {
      solver.SolveFromCandidates(c.problem, candidates, &r);
    } else {
      r = solver.Solve(c.problem);
    }
    its += r.statistics.newton_iterations;
  }
  const double n = static_cast<double>(state.iterations());
  Record(scene, warm ? "solve_warm" : "solve", Seconds(t0, Clock::now()) / n);
  Sizes(state, c);
  state.counters["newton_its"] = its / n;
}

void BM_Linearize(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    SapSolverDerivatives d(c.problem, c.results, c.parameters);
    benchmark::DoNotOptimize(d.scaled_residual());
  }
  Record(scene, "linearize",
         Seconds(t0, Clock::now()) / static_cast<double>(state.iterations()));
  Sizes(state, c);
}

// Random dense perturbation of every parameter (forward mode).
SapParameterVector RandomParameters(const Case& c, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random = [&](int n) {
    Eigen::VectorXd x(n);
    for (int i = 0; i < n; ++i) x(i) = u(*rng);
    return x;
  };
  SapParameterVector d;
  d.v_star = random(c.nv);
  d.phi0 = 1e-3 * random(c.nc);
  d.stiffness = random(c.nc);
  d.dissipation = 1e-3 * random(c.nc);
  d.friction = 0.1 * random(c.nc);
  d.time_step = 1e-4;
  return d;
}

void BM_Jvp(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  const SapSolverDerivatives d(c.problem, c.results, c.parameters);
  std::mt19937 rng(1);
  const SapParameterVector p = RandomParameters(c, &rng);
  const auto t0 = Clock::now();
  for (auto _ : state) {
    SapSolutionVector s = d.Apply(p);
    benchmark::DoNotOptimize(s.v.data());
  }
  Record(scene, "jvp",
         Seconds(t0, Clock::now()) / static_cast<double>(state.iterations()));
  Sizes(state, c);
}

void BM_Vjp(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  const SapSolverDerivatives d(c.problem, c.results, c.parameters);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  SapSolutionVector dL;
  dL.v = Eigen::VectorXd::NullaryExpr(c.nv, [&] { return u(rng); });
  dL.gamma = Eigen::VectorXd::NullaryExpr(3 * c.nc, [&] { return u(rng); });
  const auto t0 = Clock::now();
  for (auto _ : state) {
    SapParameterVector g = d.ApplyTranspose(dL);
    benchmark::DoNotOptimize(g.v_star.data());
  }
  Record(scene, "vjp",
         Seconds(t0, Clock::now()) / static_cast<double>(state.iterations()));
  Sizes(state, c);
}

void BM_Jacobians(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  const SapSolverDerivatives d(c.problem, c.results, c.parameters);
  const auto t0 = Clock::now();
  for (auto _ : state) {
    SapSolutionJacobians J = d.Jacobians();
    benchmark::DoNotOptimize(J.dv_dvstar.data());
  }
  Record(scene, "jacobians",
         Seconds(t0, Clock::now()) / static_cast<double>(state.iterations()));
  Sizes(state, c);
  state.counters["columns"] = c.nv + 4 * c.nc + 1;
}

// One column of the finite differences: the parameter, its step and the
// matching columns of Jacobians().
struct Column {
  std::function<double&(SapProblem*)> parameter;
  double h{0.0};
  std::function<Eigen::VectorXd(const SapSolutionJacobians&)> dv;
};

// The columns that need solves (rigid contacts' stiffness columns are 0),
// with the steps of tests/common/solve_derivative_checks.h.
std::vector<Column> Columns(const Case& c) {
  std::vector<Column> columns;
  std::vector<std::pair<int, int>> dof;  // (tree, offset) of each velocity
  for (size_t t = 0; t < c.problem.trees.size(); ++t) {
    for (int i = 0; i < c.problem.trees[t].v_star.size(); ++i) {
      dof.emplace_back(static_cast<int>(t), i);
    }
  }
  for (int j = 0; j < c.nv; ++j) {
    const auto [t, i] = dof[j];
    columns.push_back({[t = t, i = i](SapProblem* p) -> double& {
                         return p->trees[t].v_star(i);
                       },
                       1e-7,
                       [j](const SapSolutionJacobians& J) -> Eigen::VectorXd {
                         return J.dv_dvstar.col(j);
                       }});
  }
  for (int k = 0; k < c.nc; ++k) {
    const ContactParameters& cp = c.problem.contacts[k].parameters;
    columns.push_back(
        {[k](SapProblem* p) -> double& { return p->contacts[k].phi0; }, 1e-9,
         [k](const SapSolutionJacobians& J) -> Eigen::VectorXd {
           return J.dv_dphi0.col(k);
         }});
    if (std::isfinite(cp.stiffness)) {
      columns.push_back({[k](SapProblem* p) -> double& {
                           return p->contacts[k].parameters.stiffness;
                         },
                         1e-6 * cp.stiffness,
                         [k](const SapSolutionJacobians& J) -> Eigen::VectorXd {
                           return J.dv_dstiffness.col(k);
                         }});
    }
    const bool sap = cp.model == ContactModel::kSap;
    const double diss =
        sap ? cp.dissipation_time_scale : cp.hunt_crossley_dissipation;
    columns.push_back({[k, sap](SapProblem* p) -> double& {
                         ContactParameters& q = p->contacts[k].parameters;
                         return sap ? q.dissipation_time_scale
                                    : q.hunt_crossley_dissipation;
                       },
                       1e-6 * std::max(diss, 1e-3),
                       [k](const SapSolutionJacobians& J) -> Eigen::VectorXd {
                         return J.dv_ddissipation.col(k);
                       }});
    columns.push_back({[k](SapProblem* p) -> double& {
                         return p->contacts[k].parameters.friction;
                       },
                       1e-7,
                       [k](const SapSolutionJacobians& J) -> Eigen::VectorXd {
                         return J.dv_dfriction.col(k);
                       }});
  }
  columns.push_back({[](SapProblem* p) -> double& { return p->time_step; },
                     1e-6 * c.problem.time_step,
                     [](const SapSolutionJacobians& J) -> Eigen::VectorXd {
                       return J.dv_dtime_step;
                     }});
  return columns;
}

constexpr int kFdSample = 48;

// Indices of at most kFdSample columns, evenly spread over all of them.
std::vector<int> Sample(int n) {
  std::vector<int> s;
  const int m = std::min(n, kFdSample);
  for (int i = 0; i < m; ++i) {
    s.push_back(static_cast<int>((static_cast<long long>(i) * n) / m));
  }
  return s;
}

void BM_Fd(benchmark::State& state, const std::string& scene, bool tight) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  SapSolverParameters p = c.parameters;
  if (tight) {
    p.rel_tolerance = 1e-13;
    p.abs_tolerance = 1e-16;
  }
  SapSolver solver(p);
  const SapSolverResults base = solver.Solve(c.problem);  // the analysis
  const std::vector<Column> columns = Columns(c);
  const std::vector<int> sample = Sample(static_cast<int>(columns.size()));
  SapProblem work = c.problem;
  SapSolverResults plus, minus;
  double its = 0;
  // Relative difference from Jacobians() over the sample (last iteration).
  const SapSolverDerivatives d(c.problem, c.results, c.parameters);
  const SapSolutionJacobians J = d.Jacobians();
  double err = 0, scale = 0;
  const std::vector<const Eigen::VectorXd*> guess{&base.v};
  const auto t0 = Clock::now();
  for (auto _ : state) {
    err = scale = 0;
    for (int j : sample) {
      const Column& col = columns[j];
      double& x = col.parameter(&work);
      const double x0 = x;
      x = x0 + col.h;
      solver.SolveFromCandidates(work, guess, &plus);
      x = x0 - col.h;
      solver.SolveFromCandidates(work, guess, &minus);
      x = x0;
      its += plus.statistics.newton_iterations +
             minus.statistics.newton_iterations;
      const Eigen::VectorXd fd = (plus.v - minus.v) / (2 * col.h);
      const Eigen::VectorXd an = col.dv(J);
      err += (fd - an).squaredNorm();
      scale += an.squaredNorm();
    }
  }
  const double n = static_cast<double>(state.iterations());
  const double per_column = Seconds(t0, Clock::now()) / n / sample.size();
  Record(scene, tight ? "fd_tight" : "fd", per_column * columns.size());
  Sizes(state, c);
  state.counters["columns"] = static_cast<double>(columns.size());
  state.counters["sampled"] = static_cast<double>(sample.size());
  state.counters["fd_ms"] = 1e3 * per_column * columns.size();
  state.counters["newton_its"] = its / n / (2.0 * sample.size());
  state.counters["fd_err"] = std::sqrt(err / std::max(scale, 1e-300));
}

// Step/<s> times the simulation's next kStepWindow steps from the case's
// state (a fresh replay of the scene's steps for each repetition, not
// timed): the scale of the step derivatives.
constexpr int kStepWindow = 20;

void BM_Step(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  double seconds = 0;
  int steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::unique_ptr<TimeStepper> stepper = Run(c.scene, c.steps);
    state.ResumeTiming();
    const auto t0 = Clock::now();
    for (int i = 0; i < kStepWindow; ++i) stepper->Step();
    seconds += Seconds(t0, Clock::now());
    steps += kStepWindow;
  }
  Record(scene, "step", seconds / steps);
  Sizes(state, c);
  state.counters["step_us"] = 1e6 * seconds / steps;
}

// ||X - Y||_F / ||Y||_F.
double RelativeDifference(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
  return (X - Y).norm() / std::max(Y.norm(), 1e-300);
}

// TimeStepper::CalcStepDerivatives at the case's state (it leaves the
// stepper unchanged), with the options' defaults but the method.
void BM_StepDerivatives(benchmark::State& state, const std::string& scene,
                        StepDerivativeMethod method) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  const bool implicit = method == StepDerivativeMethod::kImplicit;
  StepDerivativeOptions options;
  options.method = method;
  StepDerivatives d;
  const auto t0 = Clock::now();
  try {
    for (auto _ : state) {
      d = c.stepper->CalcStepDerivatives(options);
      benchmark::DoNotOptimize(d.A.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const double seconds =
      Seconds(t0, Clock::now()) / static_cast<double>(state.iterations());
  Record(scene, implicit ? "step_implicit" : "step_fd", seconds);
  Record(scene, "step_contacts", static_cast<double>(d.contact_regions.size()));
  Sizes(state, c);
  state.counters["contacts"] = static_cast<double>(d.contact_regions.size());
  state.counters["one_sided"] = static_cast<double>(d.one_sided.size());
  state.counters["held"] = static_cast<double>(d.held_contacts.size());
  state.counters["differenced"] =
      static_cast<double>(d.differenced_contacts.size());
  state.counters["ms"] = 1e3 * seconds;
  if (implicit) {
    c.implicit = std::make_unique<StepDerivatives>(std::move(d));
  } else if (c.implicit) {
    // Whole-step FD against the implicit derivatives (relative Frobenius).
    state.counters["A_diff"] = RelativeDifference(d.A, c.implicit->A);
    state.counters["B_diff"] = RelativeDifference(d.B, c.implicit->B);
  }
}

// Ratios from the fastest repetition of each measurement of the scene.
void BM_Summary(benchmark::State& state, const std::string& scene) {
  Case& c = GetCase(scene);
  if (!Ready(state, c)) return;
  for (auto _ : state) {
  }
  auto& t = Fastest()[scene];
  Sizes(state, c);
  const double solve = t["solve_warm"];
  if (solve > 0) {
    state.counters["linearize/solve"] = t["linearize"] / solve;
    state.counters["jvp/solve"] = t["jvp"] / solve;
    state.counters["vjp/solve"] = t["vjp"] / solve;
    state.counters["jacobians/solve"] = t["jacobians"] / solve;
  }
  if (t["jacobians"] > 0) {
    state.counters["fd/jacobians"] = t["fd"] / t["jacobians"];
    state.counters["fd_tight/jacobians"] = t["fd_tight"] / t["jacobians"];
    state.counters["fd_tight/(lin+jac)"] =
        t["fd_tight"] / (t["linearize"] + t["jacobians"]);
  }
  if (t["step"] > 0) {
    state.counters["step_implicit/step"] = t["step_implicit"] / t["step"];
  }
  if (t["step_implicit"] > 0) {
    state.counters["step_fd/step_implicit"] = t["step_fd"] / t["step_implicit"];
  }
}

const std::vector<std::string>& Scenes() {
  static const std::vector<std::string> s{"pile", "wam", "stack"};
  return s;
}

void Register() {
  const std::string fd_label =
      "sampled_" + std::to_string(kFdSample) + "_columns_extrapolated";
  for (const std::string& s : Scenes()) {
    benchmark::RegisterBenchmark(("Solve/" + s + "/cold").c_str(), BM_Solve, s,
                                 false)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Solve/" + s + "/warm").c_str(), BM_Solve, s,
                                 true)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Linearize/" + s).c_str(), BM_Linearize, s)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Jvp/" + s).c_str(), BM_Jvp, s)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Vjp/" + s).c_str(), BM_Vjp, s)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Jacobians/" + s).c_str(), BM_Jacobians, s)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("Fd/" + s + "/rel1e-6/" + fd_label).c_str(),
                                 BM_Fd, s, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("Fd/" + s + "/rel1e-13/" + fd_label).c_str(),
                                 BM_Fd, s, true)
        ->Unit(benchmark::kMillisecond);
    // Each Step/<s> iteration replays the scene (seconds on the pile): one
    // per repetition. The pile's step derivatives take seconds (implicit)
    // and minutes (whole-step FD: 2 x 3 nv steps, timed once).
    benchmark::RegisterBenchmark(("Step/" + s).c_str(), BM_Step, s)
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(1);
    auto* implicit = benchmark::RegisterBenchmark(
                         ("StepDerivatives/" + s + "/implicit").c_str(),
                         BM_StepDerivatives, s, StepDerivativeMethod::kImplicit)
                         ->Unit(benchmark::kMillisecond);
    if (s == "pile") {
      implicit->Iterations(1);
      benchmark::RegisterBenchmark(
          ("StepDerivatives/" + s + "/fd/once").c_str(), BM_StepDerivatives, s,
          StepDerivativeMethod::kFiniteDifferences)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1)
          ->Repetitions(1);
    } else {
      benchmark::RegisterBenchmark(("StepDerivatives/" + s + "/fd").c_str(),
                                   BM_StepDerivatives, s,
                                   StepDerivativeMethod::kFiniteDifferences)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("Summary/" + s).c_str(), BM_Summary, s)
        ->Iterations(1);
  }
}

// Three significant digits, without an exponent.
std::string Fixed(double x) {
  char b[32];
  const int decimals = x >= 100 ? 0 : x >= 10 ? 1 : x >= 1 ? 2 : 3;
  std::snprintf(b, sizeof(b), "%.*f", decimals, x);
  return b;
}

// The table of docs/benchmarks.md ("Derivatives"), fastest repetitions:
// FD is the tight-tolerance one (the scene's tolerance gives wrong
// differences: see fd_err); speed-up = FD / (linearize + all Jacobians).
void PrintTable() {
  bool any = false;
  for (const std::string& s : Scenes()) {
    any = any || (Fastest().count(s) && (!GetCase(s).skipped.empty() ||
                                         Fastest()[s]["solve_warm"] > 0));
  }
  if (!any) return;
  std::printf(
      "\n| scene | nv | nc | solve cold us | solve warm us | linearize us | "
      "JVP us | VJP us | all Jacobians ms | FD ms | speed-up |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& s : Scenes()) {
    if (!Fastest().count(s)) continue;  // not run (a filter)
    Case& c = GetCase(s);
    if (c.skipped.empty() && !(Fastest()[s]["solve_warm"] > 0)) continue;
    if (!c.skipped.empty()) {
      std::printf("| %s | skipped: %s |\n", s.c_str(), c.skipped.c_str());
      continue;
    }
    auto& t = Fastest()[s];
    const double derivatives = t["linearize"] + t["jacobians"];
    std::printf(
        "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.c_str(),
        c.nv, c.nc, Fixed(1e6 * t["solve"]).c_str(),
        Fixed(1e6 * t["solve_warm"]).c_str(),
        Fixed(1e6 * t["linearize"]).c_str(), Fixed(1e6 * t["jvp"]).c_str(),
        Fixed(1e6 * t["vjp"]).c_str(), Fixed(1e3 * t["jacobians"]).c_str(),
        Fixed(1e3 * t["fd_tight"]).c_str(),
        Fixed(derivatives > 0 ? t["fd_tight"] / derivatives : 0.0).c_str());
  }
}

// The second table of docs/benchmarks.md ("Derivatives"): the step
// derivatives against one step, fastest repetitions.
void PrintStepTable() {
  bool header = false;
  for (const std::string& s : Scenes()) {
    if (!Fastest().count(s)) continue;
    Case& c = GetCase(s);
    auto& t = Fastest()[s];
    if (c.skipped.empty() && !(t["step_implicit"] > 0)) continue;
    if (!header) {
      std::printf(
          "\n| scene | nv | contacts | step us | A/B implicit ms | A/B "
          "whole-step FD ms | implicit / step | FD / implicit |\n"
          "|---|---|---|---|---|---|---|---|\n");
      header = true;
    }
    if (!c.skipped.empty()) {
      std::printf("| %s | skipped: %s |\n", s.c_str(), c.skipped.c_str());
      continue;
    }
    const double step = t["step"], implicit = t["step_implicit"];
    std::printf("| %s | %d | %d | %s | %s | %s | %s | %s |\n", s.c_str(), c.nv,
                static_cast<int>(t["step_contacts"]), Fixed(1e6 * step).c_str(),
                Fixed(1e3 * implicit).c_str(),
                Fixed(1e3 * t["step_fd"]).c_str(),
                Fixed(step > 0 ? implicit / step : 0.0).c_str(),
                Fixed(implicit > 0 ? t["step_fd"] / implicit : 0.0).c_str());
  }
}

}  // namespace
}  // namespace sapcontact

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  sapcontact::Register();
  benchmark::RunSpecifiedBenchmarks();
  sapcontact::PrintTable();
  sapcontact::PrintStepTable();
  benchmark::Shutdown();
  return 0;
}
