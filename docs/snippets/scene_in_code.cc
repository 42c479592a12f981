// A scene built in code instead of YAML: the same fields LoadScene fills.
#include <sapcontact/geometry/shapes.h>
#include <sapcontact/sim/scene/scene.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cstdio>

int main() {
  using namespace sapcontact;
  Scene scene;
  scene.time_step = 1e-3;
  scene.duration = 1.0;
  scene.materials.push_back(Material{});  // "default" comes first

  Body ground;
  ground.name = "ground";
  ground.fixed = true;
  ground.shape = MakePlane();
  scene.bodies.push_back(ground);

  Body ball;
  ball.name = "ball";
  ball.shape = MakeSphere(0.05);
  const MassProperties mp = MassPropertiesFromMass(ball.shape, 0.2);
  ball.mass = mp.mass;
  ball.inertia = mp.inertia;
  ball.pose.position = Vector3(0, 0, 0.3);
  ball.velocity = Vector3(0.5, 0, 0);
  scene.bodies.push_back(ball);

  TimeStepper stepper(scene);  // validates: std::invalid_argument if bad
  for (int i = 0; i < 1000; ++i) stepper.Step();
  const Vector3 x = stepper.state()[1].pose.position;
  std::printf("ball at (%.3f, %.3f, %.3f) m\n", x.x(), x.y(), x.z());
  return x.z() > 0.04 && x.z() < 0.06 && x.x() > 0.1 ? 0 : 1;
}
