// ThreadPool (parallel/thread_pool.h): every item runs exactly once
// whatever the thread count and grain, the workers really run items
// (worker indices other than 0 appear when items wait for each other), a
// body's exception reaches the caller and the pool stays usable, bad
// sizes are rejected, and the workers start only with the first loop that
// needs them.
#include "sapcontact/parallel/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/common/concurrency.h"

namespace sapcontact {
namespace {

using testing::ProcessThreadCount;

TEST(ThreadPool, WorkersStartWithTheFirstLoopThatNeedsThem) {
  const int before = ProcessThreadCount();
  ThreadPool pool(3);
  EXPECT_EQ(pool.threads(), 3);
  EXPECT_EQ(ProcessThreadCount(), before);  // constructed: no thread yet
  int sum = 0;
  pool.ForEach(
      4, [&](int i, int) { sum += i; }, 4);  // one hand-out
  EXPECT_EQ(sum, 6);
  EXPECT_EQ(ProcessThreadCount(), before);  // ran on the caller alone
  std::vector<std::atomic<int>> count(100);
  pool.ForEach(100, [&](int i, int) { count[i].fetch_add(1); });
  for (const auto& c : count) EXPECT_EQ(c.load(), 1);
  EXPECT_EQ(ProcessThreadCount(), before + 2);  // the two workers
}

TEST(ThreadPool, EveryItemExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int n : {0, 1, 2, 7, 1000}) {
      for (int grain : {1, 3, 64}) {
        std::vector<std::atomic<int>> count(n);
        std::vector<int> worker_of(n, -1);
        pool.ForEach(
            n,
            [&](int i, int worker) {
              count[i].fetch_add(1);
              worker_of[i] = worker;
            },
            grain);
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(count[i].load(), 1)
              << "threads " << threads << " n " << n << " item " << i;
          ASSERT_GE(worker_of[i], 0);
          ASSERT_LT(worker_of[i], threads);
        }
      }
    }
  }
}

TEST(ThreadPool, WorkersTakeItems) {
  // Item 0 waits until another thread has run an item: with one thread
  // only the caller would exist, so a pool of 2 must hand items to its
  // worker (the wait is bounded so that a broken pool fails, not hangs).
  ThreadPool pool(2);
  std::atomic<bool> other_ran{false};
  std::atomic<int> max_worker{0};
  pool.ForEach(64, [&](int i, int worker) {
    if (worker > 0) {
      other_ran = true;
      max_worker = worker;
    }
    if (i == 0) {
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!other_ran && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
    }
  });
  EXPECT_TRUE(other_ran.load());
  EXPECT_EQ(max_worker.load(), 1);
}

TEST(ThreadPool, ExceptionReachesCallerAndPoolStaysUsable) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.ForEach(100,
                            [](int i, int) {
                              if (i == 37) throw std::runtime_error("item 37");
                            }),
               std::runtime_error);
  std::atomic<int> sum{0};
  pool.ForEach(100, [&](int i, int) { sum += i; });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ThreadPool, RejectsNoThreads) {
  EXPECT_THROW(ThreadPool(0), std::invalid_argument);
  EXPECT_THROW(ThreadPool(-2), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
