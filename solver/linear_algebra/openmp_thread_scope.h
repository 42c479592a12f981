// Keeps the OpenMP regions that CHOLMOD opens inside cholmod_factorize on the
// calling thread. Debian's CHOLMOD (SuiteSparse 5.x) requests a team of
// CHOLMOD_OMP_NUM_THREADS = 4 threads for some loops of its supernodal
// numeric factorization with a num_threads clause, which OMP_NUM_THREADS
// and omp_set_num_threads do not override, and it has no cholmod_common
// setting for it. Every calling thread would get its own pool of 3 more
// threads: an embedder running one solver per core would oversubscribe the
// machine (and the loops are short: the teams make factorization slower).
//
// While a scope is alive, the calling thread's max-active-levels is 0 and
// its nthreads is 1, so its parallel regions run on it alone; the previous
// values are restored at the end of the scope. Both settings are
// per-thread in OpenMP 5.0 (GCC >= 11's libgomp), so other threads, the
// embedder's own OpenMP settings and its parallel regions outside the scope
// are untouched. CHOLMOD's loops are scatter/zero/assemble loops without
// reductions: results do not depend on the number of threads (bitwise).
// Without an OpenMP runtime at build time the scope does nothing.
#pragma once

namespace sapcontact {

class SingleThreadOpenMpScope {
 public:
  SingleThreadOpenMpScope();
  ~SingleThreadOpenMpScope();
  SingleThreadOpenMpScope(const SingleThreadOpenMpScope&) = delete;
  SingleThreadOpenMpScope& operator=(const SingleThreadOpenMpScope&) = delete;

 private:
  int saved_max_active_levels_{0};
  int saved_max_threads_{0};
};

}  // namespace sapcontact
