// soak: long runs outside the default test run. Steps a shipped
// scene for N steps (default 10^4) with the TimeStepper and checks, at
// every step, that the state and the total energy are finite and that the
// energy never rises above its initial value (relative tolerance 1e-3, as
// docs/scenes.md asserts for the shipped scenes), and at the end that the
// resident memory did not grow after the first 1000 steps (by more than
// 16 MiB). Prints the numbers; exit status 0 when every check holds, 1
// otherwise, 2 on bad arguments.
//
//   build/bin/soak pile [STEPS]      config/scenes/pile.yaml
//   build/bin/soak stack20 [STEPS]   config/scenes/stack.yaml with 20 boxes
//
// CTest runs both with the label "soak" only when configured with
// -DSAPCONTACT_SOAK=ON (ctest -L soak); scripts/test does not.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace {

using namespace sapcontact;

// VmRSS or VmHWM of this process [MiB] (Linux /proc), -1 if unknown.
double ProcStatusMiB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) {
      return std::atof(line.c_str() + prefix.size()) / 1024.0;  // kB
    }
  }
  return -1.0;
}

std::string SceneFile(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path relative = fs::path("config") / "scenes" / (name + ".yaml");
  if (const char* root = std::getenv("SAPCONTACT_SOURCE_DIR")) {
    if (fs::exists(fs::path(root) / relative)) {
      return (fs::path(root) / relative).string();
    }
  }
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / relative, ec)) return (dir / relative).string();
    if (dir == dir.root_path()) break;
  }
  const std::string here = __FILE__;
  return (fs::path(here.substr(0, here.rfind("/tests/"))) / relative).string();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: soak pile|stack20 [STEPS]\n");
    return 2;
  }
  const std::string which = argv[1];
  const long steps = argc == 3 ? std::atol(argv[2]) : 10000;
  if (steps < 1 || steps > 10000000 ||
      (which != "pile" && which != "stack20")) {
    std::fprintf(stderr, "usage: soak pile|stack20 [STEPS >= 1]\n");
    return 2;
  }
  std::vector<std::string> overrides;
  std::string file;
  if (which == "pile") {
    file = SceneFile("pile");
  } else {
    file = SceneFile("stack");
    overrides.push_back("bodies.box.grid.count=[1,1,20]");
  }
  Scene scene;
  try {
    scene = LoadScene(file, overrides);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: error: %s\n", e.what());
    return 2;
  }
  const double rss_start = ProcStatusMiB("VmRSS");
  const auto t0 = std::chrono::steady_clock::now();
  TimeStepper stepper(scene);
  double e0 = 0, e_max = -INFINITY, e_last = 0, rss_1000 = -1;
  long failed = 0, max_contacts = 0, iterations = 0;
  bool ok = true;
  try {
    for (long n = 0; n < steps; ++n) {
      const double kinetic = stepper.KineticEnergy();
      const double potential = stepper.PotentialEnergy();
      const StepInfo info = stepper.Step();
      const double e = kinetic + potential + info.elastic_energy;
      if (!std::isfinite(e)) {
        std::printf("step %ld: energy %g is not finite\n", n + 1, e);
        ok = false;
        break;
      }
      if (n == 0) e0 = e;
      e_max = std::max(e_max, e);
      e_last = e;
      failed += info.failed ? 1 : 0;
      max_contacts = std::max<long>(max_contacts, info.contacts);
      iterations += info.newton_iterations;
      if (n + 1 == std::min<long>(1000, steps))
        rss_1000 = ProcStatusMiB("VmRSS");
      if ((n + 1) % 1000 == 0) {
        std::printf(
            "  step %6ld  t = %7.3f s  E = %.6e J  contacts %4d  "
            "RSS %.1f MiB\n",
            n + 1, stepper.time(), e, info.contacts, ProcStatusMiB("VmRSS"));
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::printf("stopped: %s\n", e.what());
    ok = false;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  const double rss_end = ProcStatusMiB("VmRSS");
  const double gain = (e_max - e0) / std::max(std::abs(e0), 1e-300);
  for (const BodyState& s : stepper.state()) {
    if (!s.pose.position.allFinite() || !s.velocity.allFinite() ||
        !s.angular_velocity.allFinite()) {
      ok = false;
    }
  }
  const bool energy_ok = gain <= 1e-3;
  const bool memory_ok = rss_end - rss_1000 <= 16.0;
  std::printf(
      "soak %s: %ld steps of %g s (%zu bodies) in %.1f s wall time; failed "
      "solver steps %ld; max contacts %ld; mean iterations %.2f\n"
      "  energy: initial %.6e J, max %.6e J (rise %.2e relative: %s), final "
      "%.6e J\n"
      "  memory: RSS %.1f MiB at start, %.1f MiB after 1000 steps, %.1f MiB "
      "at the end (%s); peak %.1f MiB\n"
      "  state finite: %s\n",
      which.c_str(), static_cast<long>(stepper.steps_taken()), scene.time_step,
      scene.bodies.size(), wall, failed, max_contacts,
      static_cast<double>(iterations) / std::max(1, stepper.steps_taken()), e0,
      e_max, gain, energy_ok ? "ok" : "ENERGY GAIN", e_last, rss_start,
      rss_1000, rss_end, memory_ok ? "ok" : "GROWTH", ProcStatusMiB("VmHWM"),
      ok ? "yes" : "NO");
  return ok && energy_ok && memory_ok ? 0 : 1;
}
