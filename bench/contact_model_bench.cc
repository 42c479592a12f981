// Cost of one contact-constraint evaluation (projection + Hessian block) in
// each region: the per-contact O(1) work of every Newton iteration.
#include <benchmark/benchmark.h>

#include "sapcontact/contact_model/contact_constraint.h"

namespace sapcontact {
namespace {

void BM_ContactConstraintEvaluate(benchmark::State& state) {
  ContactRegularization reg;
  reg.R_n = 1e-3;
  reg.R_t = 1e-5;
  reg.mu = 0.5;
  reg.v_hat_n = 1e-3;
  const ContactConstraint c(reg, 1e-8);
  // region I (stick), II (slide), III (separate)
  const Vector3 v_c[3] = {Vector3(0, 1e-9, 0), Vector3(0, 1.0, 0.3),
                          Vector3(1.0, 0, 0)};
  const Vector3 v = v_c[state.range(0)];
  ContactConstraintState s;
  for (auto _ : state) {
    c.Evaluate(v, true, &s);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ContactConstraintEvaluate)->Arg(0)->Arg(1)->Arg(2);

}  // namespace
}  // namespace sapcontact

BENCHMARK_MAIN();
