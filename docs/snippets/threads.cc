// One TimeStepper per thread: steppers share nothing mutable, so copies of
// a scene run in parallel (here two friction coefficients).
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cstdio>
#include <thread>
#include <vector>

int main() {
  using namespace sapcontact;
  const std::vector<double> friction = {0.2, 0.8};
  std::vector<double> slid(friction.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < friction.size(); ++i) {
    threads.emplace_back([&, i] {
      // Loading and stepping happen in the thread; nothing is shared.
      const Scene scene = LoadSceneFromString(
          R"(
time_step: 1.0e-3
duration: 1.0
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - {name: box, mass: 1.0, position: [0, 0, 0.05], velocity: [1, 0, 0],
     shape: {type: box, size: [0.1, 0.1, 0.1]}}
)",
          "slide.yaml",
          {"materials.default.friction=" + std::to_string(friction[i])});
      TimeStepper stepper(scene);
      for (int k = 0; k < 1000; ++k) stepper.Step();
      slid[i] = stepper.state()[1].pose.position.x();
    });
  }
  for (std::thread& t : threads) t.join();
  std::printf("slid %.3f m (mu 0.2), %.3f m (mu 0.8)\n", slid[0], slid[1]);
  return slid[0] > slid[1] && slid[1] > 0.0 ? 0 : 1;
}
