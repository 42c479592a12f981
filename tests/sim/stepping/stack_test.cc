// stack (config/scenes/stack.yaml): 10 boxes (0.1 m cubes, 1 kg) stacked on
// the ground. After 5 s the top box has moved less than 1 mm horizontally
// and the stack stands; also when the boxes start slightly misaligned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "sapcontact/contact_model/regime_estimates.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::MaxPointSpeed;
using scene_tests::Simulate;

constexpr int kBoxes = 10;
constexpr double kSize = 0.1;

std::string BoxName(int k) { return "box_0_0_" + std::to_string(k); }

// Checks that the stack stands: every box above the one below (centres
// within 5 mm horizontally, heights kSize apart up to the contact
// compression), upright, at rest, the top box within 1 mm of where it
// started. Returns the top box's horizontal displacement.
double ExpectStackStands(const Scene& scene, const SimulationSummary& s) {
  const int top = scene.FindBody(BoxName(kBoxes - 1));
  const Vector3 top_move =
      s.final_state[top].pose.position - scene.bodies[top].pose.position;
  EXPECT_LT(top_move.head<2>().norm(), 1e-3);
  // The column compresses by sum_j (j m g) / (4 k) (j boxes above the
  // j-th interface): 10 * 11 / 2 * 9.81 / (4 * 5e5) = 2.7e-4 m for the top.
  EXPECT_NEAR(top_move.z(), 0.0, 1e-3);
  for (int k = 0; k < kBoxes; ++k) {
    const int b = scene.FindBody(BoxName(k));
    const BodyState& st = s.final_state[b];
    EXPECT_LT(
        st.pose.orientation.angularDistance(scene.bodies[b].pose.orientation),
        0.02)
        << BoxName(k);
    if (k > 0) {
      const int below = scene.FindBody(BoxName(k - 1));
      const Vector3 d = st.pose.position - s.final_state[below].pose.position;
      EXPECT_LT(d.head<2>().norm(), 5e-3) << BoxName(k);
      EXPECT_NEAR(d.z(), kSize, 1e-4) << BoxName(k);
    }
  }
  EXPECT_LT(MaxPointSpeed(scene, s.final_state, kSize), 1e-6);
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);
  return top_move.head<2>().norm();
}

TEST(Stack, StandsForFiveSeconds) {
  const Scene scene = LoadShippedScene("stack");
  ASSERT_GE(scene.duration, 5.0);
  ASSERT_EQ(scene.bodies.size(), kBoxes + 1u);
  std::vector<ContactPoint> contacts;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        contacts = st.last_contacts();
      });
  const double moved = ExpectStackStands(scene, s);
  // Each interface carries the boxes above it: the bottom one 10 m g on its
  // 4 corners, deflection 10 m g / (4 k) (compliant contact).
  const double k = scene.PairParameters(1, 2).stiffness;
  const double g = scene.gravity.norm();
  double bottom = 0;
  for (const ContactPoint& c : contacts) {
    if (c.body_a == 0) bottom = std::max(bottom, -c.phi);
  }
  const double expected = CompliantRestingPenetration(kBoxes * 1.0, g, 4, k);
  EXPECT_NEAR(bottom, expected, 0.05 * expected);
  std::printf(
      "[stack] top box moved %.3e m horizontally; bottom "
      "penetration %.4e m (10 m g / (4 k) = %.4e m); energy increase "
      "%.2e; mean Newton iterations %.2f\n",
      moved, bottom, expected, s.energy_max_increase_rel,
      s.mean_newton_iterations);
}

// The shipped stack is perfectly aligned (nothing pushes it sideways); with
// each box shifted by up to 2 mm and turned by up to 0.02 rad about z, the
// contact manifolds are no longer symmetric and the stack must still stand.
TEST(Stack, MisalignedStackStands) {
  // SAP's exact stiction holds the misaligned boxes still.
  Scene scene = LoadShippedScene("stack", {"solver.contact_model=sap"});
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < kBoxes; ++k) {
    Body& b = scene.bodies[scene.FindBody(BoxName(k))];
    b.pose.position.x() += 2e-3 * u(rng);
    b.pose.position.y() += 2e-3 * u(rng);
    b.pose.orientation =
        Eigen::Quaterniond(Eigen::AngleAxisd(0.02 * u(rng), Vector3::UnitZ()));
  }
  const SimulationSummary s = Simulate(scene);
  const double moved = ExpectStackStands(scene, s);
  std::printf(
      "[stack misaligned] top box moved %.3e m horizontally; energy "
      "increase %.2e\n",
      moved, s.energy_max_increase_rel);
}

}  // namespace
}  // namespace sapcontact
