// A scene from YAML text, stepped by hand: your code runs between steps.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cstdio>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadSceneFromString(R"(
time_step: 1.0e-3
duration: 0.5
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - {name: box, mass: 1.0, position: [0, 0, 0.2],
     shape: {type: box, size: [0.1, 0.1, 0.1]}}
)",
                                          "drop.yaml");  // name for messages
  TimeStepper stepper(scene);  // copies the scene; owns all step memory
  const int box = stepper.FindBody("box");
  for (int i = 0; i < 500; ++i) {
    const StepInfo info = stepper.Step();  // throws SimulationError
    if (info.failed) std::printf("step %d: %s\n", i + 1, info.failure.c_str());
  }
  const BodyState& s = stepper.state()[box];
  std::printf("t = %.3f s: box at z = %.4f m, %d contacts\n", stepper.time(),
              s.pose.position.z(),
              static_cast<int>(stepper.last_contacts().size()));
  return s.pose.position.z() > 0.04 && s.pose.position.z() < 0.06 ? 0 : 1;
}
