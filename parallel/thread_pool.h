// A fixed pool of worker threads for data-parallel loops whose items are
// independent (the solver's islands, collision pairs). Results never depend
// on the number of threads: ForEach hands out item indices, each item is
// computed the same way whichever thread takes it, and every reduction over
// items is left to the caller, in item order, after the loop (README
// "Threads"). A pool of one thread runs the loop on the caller, creating no
// threads; the workers of a larger one start at its first loop of more than
// one hand-out (a pool that only ever runs smaller loops creates none).
//
//   ThreadPool pool(2);
//   pool.ForEach(num_islands, [&](int island, int worker) { ... });
//
// `worker` (0 to threads() - 1; 0 is the calling thread) selects per-thread
// scratch. Between loops a worker polls for a few hundred microseconds (a
// solve runs several loops in a row), then sleeps on a condition variable:
// an idle pool costs no CPU. A loop never waits for a worker to wake up:
// workers that arrive after the caller has taken the last item skip it. One
// pool must not run two loops at once: ForEach is called from one thread at a
// time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace sapcontact {

class ThreadPool {
 public:
  /// `threads` >= 1 threads in all: the caller and threads - 1 workers.
  /// @throws std::invalid_argument if threads < 1.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  /// Calls body(item, worker) once for each item in [0, n), items taken in
  /// increasing order by whichever thread is free, `grain` at a time;
  /// returns when all are done. The first exception thrown by a body (in
  /// time) is rethrown here after the loop has stopped handing out items.
  /// `body` is any callable, used by reference: nothing is allocated.
  template <class Body>
  void ForEach(int n, Body&& body, int grain = 1) {
    using B = std::remove_reference_t<Body>;
    Run(n, grain, const_cast<void*>(static_cast<const void*>(&body)),
        [](void* b, int item, int worker) {
          (*static_cast<B*>(b))(item, worker);
        });
  }

 private:
  using Call = void (*)(void* body, int item, int worker);
  void Run(int n, int grain, void* body, Call call);
  void WorkerLoop(int worker);
  // Takes and runs items of the current loop until none is left.
  void Drain(int worker);

  int threads_{1};
  std::vector<std::thread>
      workers_;  // started by the first Run that needs them
  // Sleeping workers wait on wake_ (under mutex_) for a new generation_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<unsigned long long> generation_{0};
  std::atomic<bool> stop_{false};
  // The current loop, written by the caller before it bumps generation_:
  // its body, size and grain, the next item to hand out, and joined_ (the
  // loop's number, whether the caller has finished its share, and how many
  // workers are inside; thread_pool.cc).
  void* body_{nullptr};
  Call call_{nullptr};
  int n_{0}, grain_{1};
  std::atomic<int> next_{0};
  std::atomic<unsigned long long> joined_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace sapcontact
