// pile (config/scenes/pile.yaml): 183 spheres and 100 boxes dropped into a
// bin (the ground plane and four fixed walls, interior |x|, |y| < 0.3 m).
// The full 3 s: it settles (kinetic energy at the end below 1e-3 of the
// potential energy released), nothing tunnels through a wall or the floor
// (checked at every step), no failed steps, no energy created.
//
// This is the slowest test of the suite (3000 steps with up to ~1000
// contacts; see the run times printed and docs/scenes.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::Simulate;

constexpr double kBinHalfWidth = 0.3;  // inner faces of the walls [m]
// Allowed overlap with a wall or the floor: the penetrations of the
// compliant contacts are well below this (summary.max_penetration_m).
constexpr double kTolerance = 1e-3;
constexpr double kSmallestSize = 0.05;  // edge of the boxes [m]

// Smallest distance from the centre of the body to its surface along any
// axis-aligned direction: the inscribed radius of the shape [m].
double InscribedRadius(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kSphere:
      return shape.radius;
    case ShapeType::kCapsule:
      return shape.radius;
    case ShapeType::kBox:
      return 0.5 * shape.size.minCoeff();
    default:
      return 0.0;
  }
}

TEST(Pile, SettlesInsideTheBinWithoutTunnelling) {
  const Scene scene = LoadShippedScene("pile");
  std::vector<int> moving;
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    if (!scene.bodies[b].fixed) moving.push_back(static_cast<int>(b));
  }
  ASSERT_GE(moving.size(), 200u);
  double potential0 = 0;
  for (int b : moving) {
    potential0 -=
        scene.bodies[b].mass * scene.gravity.dot(scene.bodies[b].pose.position);
  }
  // Worst excursion beyond the bin walls and below the floor, over all steps
  // and bodies: how far the body's inscribed sphere reaches past the inner
  // face [m] (negative: inside).
  double worst_wall = -1, worst_floor = -1;
  std::string worst_body;
  int steps = 0;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        ++steps;
        for (int b : moving) {
          const Vector3& x = st.state()[b].pose.position;
          const double r = InscribedRadius(scene.bodies[b].shape);
          const double wall =
              x.head<2>().cwiseAbs().maxCoeff() + r - kBinHalfWidth;
          const double floor = r - x.z();
          if (wall > worst_wall) {
            worst_wall = wall;
            worst_body = scene.bodies[b].name;
          }
          worst_floor = std::max(worst_floor, floor);
        }
      });
  double kinetic = 0, potential = 0;
  for (int b : moving) {
    const Body& body = scene.bodies[b];
    const BodyState& st = s.final_state[b];
    const Matrix3 R = st.pose.rotation();
    kinetic += 0.5 * body.mass * st.velocity.squaredNorm() +
               0.5 * st.angular_velocity.dot(R * body.inertia * R.transpose() *
                                             st.angular_velocity);
    potential -= body.mass * scene.gravity.dot(st.pose.position);
  }
  const double drop = potential0 - potential;
  std::printf(
      "[pile] %d steps, wall time %.1f s (solver %.1f s, collision "
      "%.1f s); contacts mean %.0f max %d; Newton iterations mean "
      "%.2f max %d; failed %d; max penetration %.3e m\n",
      s.steps, s.wall_time_s, s.solver_time_s, s.collision_time_s,
      s.mean_contacts, s.max_contacts, s.mean_newton_iterations,
      s.max_newton_iterations, s.failed_steps, s.max_penetration_m);
  std::printf(
      "[pile] potential energy released %.4f J, final kinetic %.3e J "
      "(ratio %.2e); energy increase %.2e; worst wall excursion %.3e "
      "m (%s), worst floor excursion %.3e m\n",
      drop, kinetic, kinetic / drop, s.energy_max_increase_rel, worst_wall,
      worst_body.c_str(), worst_floor);
  EXPECT_EQ(steps, s.steps);
  EXPECT_GT(drop, 0.0);
  EXPECT_LT(kinetic, 1e-3 * drop);
  EXPECT_NEAR(kinetic, s.kinetic_energy_final_J, 1e-12 + 1e-9 * kinetic);
  EXPECT_LT(worst_wall, kTolerance) << worst_body;
  EXPECT_LT(worst_floor, kTolerance);
  // Impacts of the light boxes (near-rigid regime: they are stopped over a
  // few steps, penetrating about |v| dt) reach a few mm between bodies;
  // nothing comes close to the smallest body size (0.05 m).
  EXPECT_LT(s.max_penetration_m, 0.1 * kSmallestSize);
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);
}

}  // namespace
}  // namespace sapcontact
