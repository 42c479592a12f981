// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the parallel component (the thread pool). A pool of three threads computes
// 10^5 items, each once, with worker indices 0 to 2, and the
// sum over the items, reduced in item order after the loop, equals the
// serial one bitwise. Exit status 0 when all holds, 1 otherwise.
#include <sapcontact/parallel/thread_pool.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using sapcontact::ThreadPool;
  const int n = 100000;
  std::vector<double> values(n, 0.0);
  std::vector<std::atomic<int>> calls(n);
  for (auto& c : calls) c = 0;
  std::atomic<bool> bad_worker{false};
  ThreadPool pool(3);
  pool.ForEach(
      n,
      [&](int i, int worker) {
        values[i] = std::sin(0.001 * i) / (1.0 + i);
        calls[i].fetch_add(1);
        if (worker < 0 || worker >= 3) bad_worker = true;
      },
      64);
  double parallel = 0, serial = 0;
  for (int i = 0; i < n; ++i) {
    if (calls[i] != 1) {
      std::printf("item %d ran %d times\n", i, calls[i].load());
      return 1;
    }
    parallel += values[i];
    serial += std::sin(0.001 * i) / (1.0 + i);
  }
  if (pool.threads() != 3 || bad_worker || parallel != serial) {
    std::printf(
        "threads %d (expected 3), a worker index out of [0, 3): %d, sum "
        "%.17g, serial %.17g\n",
        pool.threads(), bad_worker.load() ? 1 : 0, parallel, serial);
    return 1;
  }
  std::printf(
      "parallel: 3 threads, 100000 items each run once, sum %.17g "
      "equal to the serial sum bitwise\n",
      parallel);
  return 0;
}
