// Errors: bad names and arguments throw std::invalid_argument at once; a
// step that cannot go on throws SimulationError; a solver that did not
// converge is reported in StepInfo and the run goes on.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cstdio>
#include <stdexcept>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadScene("config/scenes/arm_push.yaml");
  TimeStepper stepper(scene);
  try {
    stepper.ApplyWrench("box_d", Vector3(0, 0, 1), Vector3::Zero());
    return 1;
  } catch (const std::invalid_argument& e) {
    // "TimeStepper::ApplyWrench: no body or robot link named 'box_d'
    //  (nearest: box_a, box_b, box_c, ...)"
    std::printf("%s\n", e.what());
  }
  int failed = 0;
  try {
    for (int i = 0; i < 100; ++i) failed += stepper.Step().failed ? 1 : 0;
  } catch (const SimulationError& e) {
    // e.step() is the failed step; do not step this stepper again.
    std::printf("step %d: %s\n", e.step(), e.what());
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
