// RunSimulation: a whole run to scene.duration, with a per-step callback
// and (with output_dir) the run files of docs/output.md.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/simulation.h>

#include <cstdio>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadScene("config/scenes/arm_push.yaml",
                                {"duration=0.2"});  // --set style overrides
  SimulationOptions options;  // output_dir empty: writes nothing
  int steps = 0;
  options.on_step = [&](const TimeStepper&, const StepInfo&) { ++steps; };
  const SimulationSummary summary = RunSimulation(scene, options);
  std::printf("%d steps, %.2f Newton iterations per step, %d failed\n",
              summary.steps, summary.mean_newton_iterations,
              summary.failed_steps);
  return steps == summary.steps && summary.failed_steps == 0 ? 0 : 1;
}
