// Embedding the simulator: a scene from YAML text (the schema of
// docs/scenes.md), stepped by hand with TimeStepper so that your code runs
// between steps. A 10 kg box dropped from 5 cm onto the ground comes to rest
// at the compliant deflection m g / (4 k) per corner. Links sapcontact::sim.
// Build and run (scripts/demo builds it):
//   cmake --build build --target scene_stepping_example
//   build/bin/scene_stepping_example
// Exits 1 if a step fails or the box does not rest at the expected height.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  const char* yaml = R"(
time_step: 1.0e-3
duration: 1.0
gravity: [0, 0, -9.81]
materials:
  default: {stiffness: 1.0e6, dissipation_time_scale: 0.01, friction: 0.5}
bodies:
  - name: ground
    fixed: true
    shape: {type: plane}
  - name: box
    shape: {type: box, size: [0.2, 0.2, 0.2]}
    mass: 10.0
    position: [0, 0, 0.15]
)";
  Scene scene;
  try {
    scene = LoadSceneFromString(yaml, "drop.yaml");
  } catch (const SceneError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  TimeStepper stepper(scene);
  const int box = scene.FindBody("box");
  const int steps =
      static_cast<int>(std::lround(scene.duration / scene.time_step));
  for (int n = 0; n < steps; ++n) {
    const StepInfo info = stepper.Step();
    if (info.failed) {
      std::fprintf(stderr, "step %d failed: %s\n", n, info.failure.c_str());
      return 1;
    }
    if (n % 200 == 0) {
      std::printf("t = %.3f s  z = %.6f m  contacts %d  Newton its %d\n",
                  stepper.time(), stepper.state()[box].pose.position.z(),
                  info.contacts, info.newton_iterations);
    }
  }
  // Both bodies use the default material: k = 1e6 in series with 1e6.
  const double k = 0.5e6, deflection = 10.0 * 9.81 / (4.0 * k);
  const double z = stepper.state()[box].pose.position.z();
  std::printf("rest height %.6e m, expected 0.1 - m g / (4 k) = %.6e m\n", z,
              0.1 - deflection);
  if (!(std::abs(z - (0.1 - deflection)) < 0.02 * deflection)) return 1;
  return 0;
}
