// Running the engines of the MuJoCo comparison (bench/mujoco_comparison.cc),
// shared by its body and robot rows: one EngineRun per run of one engine;
// stepping and timing sapcontact's library path (StepSapcontact: a
// TimeStepper::Step loop), its simulation path (RunSimulationTimed:
// RunSimulation, what `sapsim run` and Python's Simulation.run do) and
// MuJoCo (StepMujoco) once; loading MJCF text through the MuJoCo version's
// VFS calls (LoadMjcf, MakeMujoco); MuJoCo's solver iteration and warning
// counts; and the alternating measurement of the engines with its repeat
// rule (MeasureAlternating). Wall times in seconds or microseconds as
// named.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/comparison_robots.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

// MuJoCo 3 (mjVERSION_HEADER 300 and up: 3.0.0 was 300, later releases
// 3MMMPPP) loads XML text through mj_addBufferVFS, has no preallocation to
// size, and reports solver iterations per constraint island.
#if mjVERSION_HEADER >= 300
#define SAPCONTACT_MUJOCO3 1
#else
#define SAPCONTACT_MUJOCO3 0
#endif

namespace sapcontact::comparison {

using Clock = std::chrono::steady_clock;

struct EngineRun {
  bool ok{false};
  std::string error;
  int steps{0};
  double us_per_step{0};
  double mean_iterations{0};
  double mean_contacts{0};
  /// sapcontact's library path: mean over steps of contacts x max(Newton
  /// iterations, 1), the contact-iterations of a step (a step without
  /// iterations still builds and checks its contacts once).
  double mean_contact_iterations{0};
  double outcome{0};
  /// sapcontact only: wall time per step [us] by phase (collision; the
  /// solver's model, assembly, factorization, line search and the rest of
  /// the solve), from the solver's always-on statistics.
  double us_collision{0}, us_model{0}, us_assembly{0}, us_factorization{0},
      us_line_search{0}, us_solver_other{0};
  double mean_factorizations{0};
  double mean_line_search_iterations{0};
  /// Counters per step (means): sapcontact's from the solver's statistics
  /// (SapSolverStatistics), MuJoCo's from mjData (islands, nefc, and over
  /// the islands it records, mjNISLAND, the line search's cost
  /// evaluations and Cholesky updates).
  double mean_islands{0}, mean_largest_island{0};
  double mean_penetrating{0}, mean_speculative{0};
  double mean_island_iterations{0};  ///< Newton iterations summed over islands
  double mean_low_rank_updates{0};
  /// sapcontact: Hessian blocks changed (unchanged) since an island's
  /// previous factorization, summed over its later factorizations
  /// (SapSolverStatistics::changed_hessian_blocks).
  double mean_changed_blocks{0}, mean_unchanged_blocks{0};
  double mean_constraint_rows{0};  ///< MuJoCo: nefc
  double seconds{0};               ///< wall time of the stepping [s]
  /// Robot rows: each object's displacement (comparison_robots.h).
  std::vector<ObjectMotion> objects;
  /// Robot rows: the final positions of the robot's 1-DOF joints, in tree
  /// order [rad or m].
  std::vector<double> joint_positions;
};

// Repeats (MeasureAlternating): each engine runs at least kMinRuns times
// unless its runs have taken kLongSeconds in all, and until kMinSeconds of
// stepping (short runs are repeated many times: a 100-step run of one box
// takes half a millisecond, below the machine's noise), at most kMaxRuns
// times; the two engines alternate, and each one's fastest run counts.
constexpr int kMinRuns = 3;
constexpr int kMaxRuns = 2000;
constexpr double kMinSeconds = 1.0;
constexpr double kLongSeconds = 10.0;

// Steps sapcontact r->steps times and fills r's time per step (and by
// phase), mean Newton iterations and contacts.
inline void StepSapcontact(TimeStepper* stepper, EngineRun* r) {
  long long iterations = 0, contacts = 0, contact_iterations = 0,
            factorizations = 0, line_search_iterations = 0, islands = 0,
            largest_island = 0, penetrating = 0, speculative = 0,
            island_iterations = 0, low_rank_updates = 0, changed_blocks = 0,
            unchanged_blocks = 0;
  double collision = 0, model = 0, assembly = 0, factorization = 0,
         line_search = 0, solver_other = 0;
  const auto start = Clock::now();
  for (int n = 0; n < r->steps; ++n) {
    const StepInfo info = stepper->Step();
    iterations += info.newton_iterations;
    contacts += info.contacts;
    contact_iterations += static_cast<long long>(info.contacts) *
                          std::max(info.newton_iterations, 1);
    collision += info.collision_time;
    const SapSolverStatistics& st = stepper->last_sap_results().statistics;
    model += st.time_model;
    assembly += st.time_assembly;
    factorization += st.time_factorization;
    line_search += st.time_line_search;
    solver_other += st.time_other;
    factorizations += st.factorizations;
    line_search_iterations += st.line_search_iterations;
    islands += st.islands;
    largest_island += st.largest_island_velocities;
    penetrating += st.penetrating_contacts;
    speculative += st.speculative_contacts;
    island_iterations += st.island_newton_iterations;
    low_rank_updates += st.low_rank_updates;
    changed_blocks += st.changed_hessian_blocks;
    unchanged_blocks += st.unchanged_hessian_blocks;
  }
  r->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r->us_per_step = 1e6 * r->seconds / r->steps;
  const double per_step = 1e6 / r->steps;
  r->us_collision = collision * per_step;
  r->us_model = model * per_step;
  r->us_assembly = assembly * per_step;
  r->us_factorization = factorization * per_step;
  r->us_line_search = line_search * per_step;
  r->us_solver_other = solver_other * per_step;
  r->mean_factorizations = static_cast<double>(factorizations) / r->steps;
  r->mean_line_search_iterations =
      static_cast<double>(line_search_iterations) / r->steps;
  r->mean_iterations = static_cast<double>(iterations) / r->steps;
  r->mean_contacts = static_cast<double>(contacts) / r->steps;
  r->mean_contact_iterations =
      static_cast<double>(contact_iterations) / r->steps;
  r->mean_islands = static_cast<double>(islands) / r->steps;
  r->mean_largest_island = static_cast<double>(largest_island) / r->steps;
  r->mean_penetrating = static_cast<double>(penetrating) / r->steps;
  r->mean_speculative = static_cast<double>(speculative) / r->steps;
  r->mean_island_iterations = static_cast<double>(island_iterations) / r->steps;
  r->mean_low_rank_updates = static_cast<double>(low_rank_updates) / r->steps;
  r->mean_changed_blocks = static_cast<double>(changed_blocks) / r->steps;
  r->mean_unchanged_blocks = static_cast<double>(unchanged_blocks) / r->steps;
}

// sapcontact's simulation path: RunSimulation(scene) without an output
// directory (TimeStepper construction, energy and summary bookkeeping per
// step, the summary), as `sapsim run` and Python's Simulation.run do.
// Fills r's time per step as `sapsim run`'s summary.json gives it,
// wall_time_s / steps (construction included), the steps, mean Newton
// iterations and contacts, and returns the summary (final states).
inline SimulationSummary RunSimulationTimed(const Scene& scene, EngineRun* r) {
  SimulationSummary summary = RunSimulation(scene, SimulationOptions{});
  r->steps = summary.steps;
  r->seconds = summary.wall_time_s;
  r->us_per_step = 1e6 * summary.wall_time_s / summary.steps;
  r->mean_iterations = summary.mean_newton_iterations;
  r->mean_contacts = summary.mean_contacts;
  return summary;
}

// MuJoCo 2.2 has no XML-from-string loader: the model goes through a VFS
// (files it names that are not in the VFS, e.g. meshes, come from disk).
inline mjModel* LoadMjcf(const std::string& xml, std::string* error) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* name = "comparison.xml";
#if SAPCONTACT_MUJOCO3
  if (mj_addBufferVFS(vfs.get(), name, xml.data(),
                      static_cast<int>(xml.size())) != 0) {
    mj_deleteVFS(vfs.get());
    *error = "mj_addBufferVFS failed";
    return nullptr;
  }
#else
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0) {
    *error = "mj_makeEmptyFileVFS failed";
    return nullptr;
  }
  const int i = mj_findFileVFS(vfs.get(), name);
  std::memcpy(vfs->filedata[i], xml.data(), xml.size());
#endif
  char message[1000] = "";
  mjModel* m = mj_loadXML(name, vfs.get(), message, sizeof(message));
  mj_deleteVFS(vfs.get());
  if (m == nullptr) *error = message;
  return m;
}

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;

// A MuJoCo model compiled from MJCF text (LoadMjcf) and its mjData, for one
// run. False, with *error set, when either cannot be made. (Declare *m
// before *d: the data goes first.)
inline bool MakeMujoco(const std::string& xml, MjModelPtr* m, MjDataPtr* d,
                       std::string* error) {
  m->reset(LoadMjcf(xml, error));
  if (*m == nullptr) {
    if (error->empty()) *error = "could not load the model";
    return false;
  }
  d->reset(mj_makeData(m->get()));
  if (*d == nullptr) {
    m->reset();
    *error = "cannot allocate mjData";
    return false;
  }
  return true;
}

// Newton iterations of the last step: MuJoCo 3 solves each constraint
// island on its own, so this is the most any island took (as sapcontact's
// StepInfo::newton_iterations); MuJoCo 2.2 solves one problem.
inline int SolverIterations(const mjData* d) {
#if defined(mjNISLAND)
  const int n = std::min(d->nisland, mjNISLAND);
  if (n == 0) return d->nefc > 0 ? d->solver_niter[0] : 0;
  int iterations = 0;
  for (int i = 0; i < n; ++i) {
    iterations = std::max(iterations, d->solver_niter[i]);
  }
  return iterations;
#else
  return d->solver_iter;
#endif
}

// MuJoCo's per-step counters, summed over a run (EngineRun's means).
// MuJoCo 3: islands, the largest island's DOFs, constraint rows (nefc),
// Newton iterations summed over the islands, and over the islands whose
// statistics it records (the first mjNISLAND) the line search's cost
// evaluations and the Cholesky updates (rank-1 updates and downdates of the
// factor as constraints change state); one numeric factorization per island
// that iterates (refactorizations after a rank loss are not reported).
// MuJoCo 2.2: one island; the same sums over its one solve.
struct MujocoCounters {
  long long islands{0}, largest{0}, rows{0}, island_iterations{0},
      evaluations{0}, updates{0}, factorizations{0};
  void Add(const mjData* d) {
    rows += d->nefc;
#if defined(mjNISLAND)
    islands += d->nisland;
    int big = 0;
    for (int i = 0; i < d->nisland; ++i) big = std::max(big, d->island_nv[i]);
    largest += big;
    const int n = d->nisland == 0 && d->nefc > 0 ? 1 : d->nisland;
    for (int i = 0; i < n; ++i) {
      const int its = i < mjNISLAND ? d->solver_niter[i] : 0;
      island_iterations += its;
      factorizations += its > 0 ? 1 : 0;
      for (int k = 0; i < mjNISLAND && k < std::min(its, mjNSOLVER); ++k) {
        evaluations += d->solver[i * mjNSOLVER + k].neval;
        updates += d->solver[i * mjNSOLVER + k].nupdate;
      }
    }
#else
    islands += d->nefc > 0 ? 1 : 0;
    island_iterations += d->solver_iter;
    factorizations += d->solver_iter > 0 ? 1 : 0;
    for (int k = 0; k < std::min(d->solver_iter, mjNSOLVER); ++k) {
      evaluations += d->solver[k].neval;
      updates += d->solver[k].nupdate;
    }
#endif
  }
  void Fill(EngineRun* r) const {
    const double steps = r->steps;
    r->mean_islands = islands / steps;
    r->mean_largest_island = largest / steps;
    r->mean_constraint_rows = rows / steps;
    r->mean_island_iterations = island_iterations / steps;
    r->mean_line_search_iterations = evaluations / steps;
    r->mean_low_rank_updates = updates / steps;
    r->mean_factorizations = factorizations / steps;
  }
};

// Warnings MuJoCo raised during a run (a full constraint buffer, bad
// accelerations): a run with any is reported, not measured.
inline int MujocoWarnings(const mjData* d) {
  int warnings = 0;
  for (int w = 0; w < mjNWARNING; ++w) warnings += d->warning[w].number;
  return warnings;
}

// Steps MuJoCo r->steps times and fills r's time per step, mean Newton
// iterations and contacts. `before_step` (if set) is called with the step's
// number n before step n (the robot rows set their controls there); it is
// part of the timing.
inline void StepMujoco(const mjModel* m, mjData* d, EngineRun* r,
                       const std::function<void(int)>& before_step = nullptr) {
  long long iterations = 0, contacts = 0;
  MujocoCounters counters;
  const auto start = Clock::now();
  for (int n = 0; n < r->steps; ++n) {
    if (before_step) before_step(n);
    mj_step(m, d);
    iterations += SolverIterations(d);
    contacts += d->ncon;
    counters.Add(d);
  }
  r->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r->us_per_step = 1e6 * r->seconds / r->steps;
  r->mean_iterations = static_cast<double>(iterations) / r->steps;
  r->mean_contacts = static_cast<double>(contacts) / r->steps;
  counters.Fill(r);
}

// The verdict on a MuJoCo run after its results were read: ok unless the
// state went non-finite or MuJoCo raised warnings (then r->error says
// which).
inline void CheckMujocoRun(const mjModel* m, const mjData* d, EngineRun* r) {
  bool finite = true;
  for (int i = 0; i < m->nq; ++i) finite = finite && std::isfinite(d->qpos[i]);
  const int warnings = MujocoWarnings(d);
  r->ok = finite && warnings == 0;
  if (!finite) {
    r->error = "non-finite state";
  } else if (warnings > 0) {
    r->error = std::to_string(warnings) + " warnings";
  }
}

// The engines alternating (kMinRuns and the other repeat rules above), in
// the order given; each engine's fastest run is returned at its index. An
// empty function is not run (its EngineRun stays !ok with an empty error);
// an engine that fails stops repeating and returns its error.
inline std::vector<EngineRun> MeasureAlternating(
    const std::vector<std::function<EngineRun()>>& engines) {
  struct Tally {
    bool active{true};
    EngineRun best;
    int runs{0};
    double seconds{0};
    bool more() const {
      return active && runs < kMaxRuns &&
             ((runs < kMinRuns && seconds < kLongSeconds) ||
              seconds < kMinSeconds);
    }
    void add(const EngineRun& r) {
      ++runs;
      seconds += r.seconds;
      if (!r.ok) {
        best = r;
        active = false;
      } else if (!best.ok || r.us_per_step < best.us_per_step) {
        best = r;
      }
    }
  };
  std::vector<Tally> tallies(engines.size());
  for (size_t e = 0; e < engines.size(); ++e) {
    tallies[e].active = static_cast<bool>(engines[e]);
  }
  auto any_more = [&] {
    for (const Tally& t : tallies) {
      if (t.more()) return true;
    }
    return false;
  };
  while (any_more()) {
    for (size_t e = 0; e < engines.size(); ++e) {
      if (tallies[e].more()) tallies[e].add(engines[e]());
    }
  }
  std::vector<EngineRun> best;
  for (const Tally& t : tallies) best.push_back(t.best);
  return best;
}

}  // namespace sapcontact::comparison
