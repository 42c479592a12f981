// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the studies component. Run with the repository's config/scenes folder:
//   studies_consumer <repo>/config/scenes
// A sweep of box_rest.yaml (a 10 kg box on the ground) over the material
// stiffness k = 1e6 and 4e6 N/m (both bodies use it: the pair stiffness is
// k / 2), 0.3 s each, on one worker thread. Each run's
// resting_penetration_m must be the static deflection m g / (4 k / 2)
// within 2 %.
// Exit status 0 when both rows are ok and match, 1 otherwise.
#include <sapcontact/studies/sweep_runner.h>
#include <sapcontact/studies/sweep_spec.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  using namespace sapcontact;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CONFIG_SCENES_DIR\n", argv[0]);
    return 2;
  }
  try {
    const SweepAxis axis =
        ParseSweepAxis("materials.default.stiffness=1e6,4e6");
    SweepOptions options;
    options.fixed_overrides = {"duration=0.3"};
    options.metrics.metrics = {"resting_penetration_m"};
    options.jobs = 1;
    options.workers = SweepWorkers::kThreads;
    const std::vector<SweepRow> rows =
        RunSweep(std::string(argv[1]) + "/box_rest.yaml", {axis}, options);
    if (rows.size() != 2) return 1;
    bool ok = true;
    const double stiffness[2] = {1e6, 4e6};
    for (int i = 0; i < 2; ++i) {
      const SweepRow& row = rows[i];
      const double expected = 10.0 * 9.81 / (4.0 * stiffness[i] / 2);
      const double got = row.metrics.empty() ? NAN : row.metrics[0].value;
      std::printf("k = %s: %s, resting_penetration_m %.6e (expected %.6e) %s\n",
                  row.values[0].c_str(), ToString(row.status), got, expected,
                  row.error.c_str());
      ok = ok && row.status == SweepRunStatus::kOk &&
           std::abs(got - expected) < 0.02 * expected;
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
}
