#include "sapcontact/solver/linear_algebra/openmp_thread_scope.h"

#if defined(SAPCONTACT_OPENMP_RUNTIME)
#include <omp.h>
#endif

namespace sapcontact {

#if defined(SAPCONTACT_OPENMP_RUNTIME)
SingleThreadOpenMpScope::SingleThreadOpenMpScope()
    : saved_max_active_levels_(omp_get_max_active_levels()),
      saved_max_threads_(omp_get_max_threads()) {
  omp_set_max_active_levels(0);
  omp_set_num_threads(1);
}

SingleThreadOpenMpScope::~SingleThreadOpenMpScope() {
  omp_set_num_threads(saved_max_threads_);
  omp_set_max_active_levels(saved_max_active_levels_);
}
#else
SingleThreadOpenMpScope::SingleThreadOpenMpScope() = default;
SingleThreadOpenMpScope::~SingleThreadOpenMpScope() = default;
#endif

}  // namespace sapcontact
