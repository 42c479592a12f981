#include "sapcontact/parallel/thread_pool.h"

#include <chrono>
#include <stdexcept>
#include <string>

namespace sapcontact {
namespace {

// How long an idle worker keeps polling for the next loop before it sleeps
// on the condition variable: a solve runs its loops tens to hundreds of
// microseconds apart, and waking a sleeping thread costs about as much.
constexpr std::chrono::microseconds kSpinTime{300};

// ThreadPool::joined_: the loop's number in the high 32 bits, kClosed when
// the caller has finished its share, the count of workers inside the loop
// in the low bits.
constexpr unsigned long long kClosed = 1ull << 31;
constexpr unsigned long long kCountMask = kClosed - 1;

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) {
    throw std::invalid_argument(
        "ThreadPool: threads = " + std::to_string(threads) + " (must be >= 1)");
  }
  threads_ = threads;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Drain(int worker) {
  for (;;) {
    const int begin = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (begin >= n_) return;
    const int end = begin + grain_ < n_ ? begin + grain_ : n_;
    try {
      for (int i = begin; i < end; ++i) call_(body_, i, worker);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(n_, std::memory_order_relaxed);  // hand out no more
      return;
    }
  }
}

void ThreadPool::WorkerLoop(int worker) {
  unsigned long long seen = 0;
  for (;;) {
    // Wait for a loop newer than `seen`: poll for kSpinTime, then sleep.
    const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
    for (int spin = 0; generation_.load(std::memory_order_acquire) == seen &&
                       !stop_.load(std::memory_order_relaxed);
         ++spin) {
      if ((spin & 63) == 0 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(
            lock, [&]() { return stop_.load() || generation_.load() != seen; });
        break;
      }
      std::this_thread::yield();
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    // Join loop `seen` unless the caller has already finished it (then its
    // items are all taken: nothing to do until the next one).
    unsigned long long state = joined_.load(std::memory_order_acquire);
    bool joined = false;
    while ((state >> 32) == (seen & 0xffffffffull) && !(state & kClosed)) {
      if (joined_.compare_exchange_weak(state, state + 1,
                                        std::memory_order_acq_rel)) {
        joined = true;
        break;
      }
    }
    if (!joined) continue;
    Drain(worker);
    joined_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::Run(int n, int grain, void* body, Call call) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (threads_ == 1 || n <= grain) {
    for (int i = 0; i < n; ++i) call(body, i, 0);
    return;
  }
  if (workers_.empty()) {  // the first loop that needs them
    workers_.reserve(threads_ - 1);
    for (int w = 1; w < threads_; ++w) {
      workers_.emplace_back([this, w]() { WorkerLoop(w); });
    }
  }
  // Publish the loop (its fields before its number), then wake the
  // sleeping workers.
  body_ = body;
  call_ = call;
  n_ = n;
  grain_ = grain;
  error_ = nullptr;
  next_.store(0, std::memory_order_relaxed);
  const unsigned long long loop = generation_.load() + 1;
  joined_.store((loop & 0xffffffffull) << 32, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.store(loop, std::memory_order_release);
  }
  wake_.notify_all();
  Drain(0);
  // Close the loop to late workers and wait for those inside it (they are
  // running its last items).
  joined_.fetch_or(kClosed, std::memory_order_acq_rel);
  while ((joined_.load(std::memory_order_acquire) & kCountMask) != 0) {
    std::this_thread::yield();
  }
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(error_mutex_);
    error = error_;
    error_ = nullptr;
  }
  body_ = nullptr;
  call_ = nullptr;
  if (error) std::rethrow_exception(error);
}

}  // namespace sapcontact
