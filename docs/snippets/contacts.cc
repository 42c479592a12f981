// The last step's contacts and the contact wrench on a body or link.
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  const Scene scene = LoadScene("config/scenes/arm_push.yaml");
  TimeStepper stepper(scene);
  for (int i = 0; i < 300; ++i) stepper.Step();

  for (const ContactReport& c : stepper.Contacts()) {
    // Normal from A into B; impulse on B [N s], world frame.
    std::printf("%s -> %s: phi %.2e m, impulse (%.4f, %.4f, %.4f) N s\n",
                c.body_a.c_str(), c.body_b.c_str(), c.phi, c.impulse.x(),
                c.impulse.y(), c.impulse.z());
  }
  // Mean contact force over the step [N] and its torque about the COM.
  const Wrench w = stepper.ContactWrench("box_b");
  std::printf("box_b: force (%.3f, %.3f, %.3f) N\n", w.force.x(), w.force.y(),
              w.force.z());
  const double weight = 0.5 * 9.81;  // box_b rests on the ground
  return std::abs(w.force.z() - weight) < 1e-3 * weight ? 0 : 1;
}
