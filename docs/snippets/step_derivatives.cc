// Derivatives of the next step: A = dx+/dx and B = dx+/du (tangent space).
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  // A 10 kg box sliding on the ground at 1 m/s (mu = 0.5).
  const Scene scene = LoadScene("config/scenes/box_slide.yaml");
  TimeStepper stepper(scene);
  for (int i = 0; i < 50; ++i) stepper.Step();

  const StepDerivatives d = stepper.CalcStepDerivatives();
  const int nv = static_cast<int>(d.coordinates.size());  // 6: one box
  // x = (dq, v), u = generalized forces; "box/x" is coordinate 0.
  const double dvx_dux = d.B(nv + 0, 0);  // d v_x+ / d F_x [s/kg]
  const double dvx_dvx = d.A(nv + 0, nv + 0);
  std::printf("%s: dv+/dF = %.6e s/kg, dv+/dv = %.6f\n",
              d.coordinates[0].c_str(), dvx_dux, dvx_dvx);
  // Sliding: friction is mu m g whatever the push, so a force F adds
  // F dt / m to the velocity, and the velocity carries over unchanged.
  const double dt = scene.time_step, m = 10.0;
  return std::abs(dvx_dux - dt / m) < 1e-6 * dt / m &&
                 std::abs(dvx_dvx - 1.0) < 1e-6
             ? 0
             : 1;
}
