// No heap allocation per time step once a simulation has settled into its
// sizes ("no allocation inside the Newton loop"; the fixed cost
// per step of small problems). This executable interposes glibc's malloc
// family with counting wrappers (every operator new and every Eigen matrix
// goes through them), so it is its own test program. Under a sanitizer,
// which owns malloc, the sanitizer's allocation hook counts instead.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <string>

#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/sap/sap_solver.h"
#include "tests/sim/stepping/shipped_scene.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SAPCONTACT_SANITIZED_ALLOCATOR 1
#endif
#endif

#ifdef SAPCONTACT_SANITIZED_ALLOCATOR
// A sanitizer build (docs/testing.md) owns malloc: count through its
// allocation hook instead of interposing.
#include <sanitizer/allocator_interface.h>

namespace {
std::atomic<long> allocations{0};
void CountAllocation(const volatile void*, size_t) {
  allocations.fetch_add(1, std::memory_order_relaxed);
}
void IgnoreFree(const volatile void*) {}
[[maybe_unused]] const int hooks_installed =
    __sanitizer_install_malloc_and_free_hooks(CountAllocation, IgnoreFree);
}  // namespace
#else
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* malloc(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
int posix_memalign(void** p, size_t alignment, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  *p = __libc_memalign(alignment, size);
  return *p == nullptr ? 12 /* ENOMEM */ : 0;
}
void* aligned_alloc(size_t alignment, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
}  // extern "C"
#endif

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;

// Allocations made by `steps` steps of a stepper that has already run
// `warm_up` steps.
long AllocationsPerSteps(TimeStepper* stepper, int warm_up, int steps) {
  for (int n = 0; n < warm_up; ++n) stepper->Step();
  const long before = allocations.load();
  for (int n = 0; n < steps; ++n) stepper->Step();
  return allocations.load() - before;
}

TEST(Allocation, TheCounterSeesAllocations) {
  // The interposition works (else the tests below could not fail).
  const long before = allocations.load();
  auto* p = new std::string(100, 'x');
  Eigen::VectorXd v(1000);
  v.setZero();
  const long seen = allocations.load() - before;
  delete p;
  EXPECT_GE(seen, 2);
}

TEST(Allocation, RestingBoxStepsAllocateNothing) {
  // One box on the ground: 4 contacts, one dense island.
  TimeStepper stepper(LoadShippedScene("box_rest"));
  EXPECT_EQ(AllocationsPerSteps(&stepper, 100, 500), 0);
}

TEST(Allocation, StackStepsAllocateNothing) {
  // The stack: a sparse island factored by the block Cholesky, at
  // dt = 1e-2 (Newton iterations every step).
  TimeStepper stepper(LoadShippedScene("stack", {"time_step=0.01"}));
  EXPECT_EQ(AllocationsPerSteps(&stepper, 50, 100), 0);
}

TEST(Allocation, RepeatedSolvesIntoOneResultAllocateNothing) {
  // The embedding API: the same problem solved again into the same results.
  TimeStepper stepper(LoadShippedScene("stack", {"time_step=0.01"}));
  for (int n = 0; n < 20; ++n) stepper.Step();
  const SapProblem problem = stepper.last_problem();
  SapSolver solver;
  SapSolverResults results;
  const Eigen::VectorXd v_star = StackedVStar(problem);
  const std::vector<const Eigen::VectorXd*> start{&v_star};
  // Warm-up: the first solves size the solver's workspaces (the second
  // also its pool of recycled index lists).
  for (int n = 0; n < 3; ++n) {
    solver.SolveFromCandidates(problem, start, &results);
  }
  ASSERT_TRUE(results.converged()) << results.message;
  ASSERT_GT(results.statistics.newton_iterations, 0);
  const long before = allocations.load();
  for (int n = 0; n < 10; ++n) {
    solver.SolveFromCandidates(problem, start, &results);
  }
  EXPECT_EQ(allocations.load() - before, 0);
  EXPECT_TRUE(results.converged());
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

TEST(Allocation, IslandsOfDifferentSizesAllocateNothing) {
  // Two stacks, of two and of three boxes: two dense islands of 12 and 18
  // velocities factored in turn every Newton round (without the rest start,
  // which takes resting stacks at v = 0 without a Newton iteration), and
  // the rest start itself.
  for (const bool at_rest : {false, true}) {
    const Scene scene = LoadSceneFromString(std::string(R"(
time_step: 0.01
duration: 10
materials:
  default: {stiffness: .inf, dissipation_time_scale: 0.03, friction: 0.5}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - {name: a0, shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 10, position: [0, 0, 0.1]}
  - {name: a1, shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 10, position: [0, 0, 0.3]}
  - {name: b0, shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 10, position: [1, 0, 0.1]}
  - {name: b1, shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 10, position: [1, 0, 0.3]}
  - {name: b2, shape: {type: box, size: [0.2, 0.2, 0.2]}, mass: 10, position: [1, 0, 0.5]}
solver: {warm_start_at_rest: )") + (at_rest ? "true" : "false") +
                                                "}\n",
                                            "two_stacks");
    TimeStepper stepper(scene);
    long iterations = 0;
    for (int n = 0; n < 50; ++n) stepper.Step();
    const long before = allocations.load();
    for (int n = 0; n < 100; ++n) {
      iterations += stepper.Step().newton_iterations;
    }
    EXPECT_EQ(allocations.load() - before, 0) << at_rest;
    if (!at_rest) {
      EXPECT_GT(iterations, 0);  // the dense path did run
    }
  }
}

}  // namespace
}  // namespace sapcontact
