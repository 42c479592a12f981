// mass_ratio (config/scenes/mass_ratio.yaml): a 1000 kg box resting on a
// 1 kg box on the ground (mass ratio 1000). Stable, the solver converges
// every step, and each interface deflects as its load predicts
// (RestingPenetration with the contacts' own R_n, docs/theory.md §9).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sapcontact/contact_model/regime_estimates.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::MaxPointSpeed;
using scene_tests::Simulate;

TEST(MassRatio, HeavyBoxStaysOnTheLightBoxAndEveryStepConverges) {
  // The near-rigid floor R_n of the SAP paper's contact model.
  const Scene scene =
      LoadShippedScene("mass_ratio", {"solver.contact_model=sap"});
  const int light = scene.FindBody("light"), heavy = scene.FindBody("heavy");
  const double m_light = scene.bodies[light].mass;
  const double m_heavy = scene.bodies[heavy].mass;
  ASSERT_EQ(m_heavy / m_light, 1000.0);
  const double g = scene.gravity.norm(), dt = scene.time_step;
  int max_iterations = 0;
  double max_tilt = 0, max_offset = 0;
  std::vector<ContactPoint> contacts;
  SapSolverResults last;
  const SimulationSummary s = Simulate(scene, [&](const TimeStepper& st,
                                                  const StepInfo& info) {
    max_iterations = std::max(max_iterations, info.newton_iterations);
    const BodyState& h = st.state()[heavy];
    const BodyState& l = st.state()[light];
    max_tilt = std::max(
        {max_tilt,
         h.pose.orientation.angularDistance(Eigen::Quaterniond::Identity()),
         l.pose.orientation.angularDistance(Eigen::Quaterniond::Identity())});
    max_offset = std::max({max_offset, h.pose.position.head<2>().norm(),
                           l.pose.position.head<2>().norm()});
    contacts = st.last_contacts();
    last = st.last_sap_results();
  });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LT(max_iterations, scene.solver.max_iterations);
  EXPECT_LT(max_tilt, 1e-6);
  EXPECT_LT(max_offset, 1e-6);
  EXPECT_LT(MaxPointSpeed(scene, s.final_state, 0.25), 1e-6);
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);

  // Loads: the ground carries both boxes, the light box the heavy one, each
  // on 4 corners.
  ASSERT_EQ(contacts.size(), 8u);
  ASSERT_EQ(last.R_n.size(), 8);
  double drop = 0;  // expected sinking of the heavy box: both deflections
  for (size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const bool ground = c.body_a == scene.FindBody("ground");
    const double load = ground ? m_light + m_heavy : m_heavy;
    const double tau =
        scene.PairParameters(c.body_a, c.body_b).dissipation_time_scale;
    const double expected =
        RestingPenetration(load, g, 4, dt, tau, last.R_n(i));
    EXPECT_NEAR(-c.phi, expected, 0.05 * expected) << "contact " << i;
    drop += expected / 4;
    if (i == 0 || i == 4) {
      std::printf(
          "[mass_ratio] %s contact: penetration %.5e m, estimate "
          "%.5e m (R_n = %.4e)\n",
          ground ? "ground-light" : "light-heavy", -c.phi, expected,
          last.R_n(i));
    }
  }
  const double z_heavy0 = scene.bodies[heavy].pose.position.z();
  EXPECT_NEAR(z_heavy0 - s.final_state[heavy].pose.position.z(), drop,
              0.05 * drop);
  std::printf(
      "[mass_ratio] max Newton iterations %d, mean %.2f; energy "
      "increase %.2e\n",
      max_iterations, s.mean_newton_iterations, s.energy_max_increase_rel);
}

// A 1 g box under the 1 t box (mass ratio 1e6) on rigid contacts with the
// near-rigid threshold 0.01, under the default (lagged) contact model: its
// first step has no friction stiffness yet (no earlier normal impulse), so
// the island's Hessian spreads the boxes' masses over 12 orders of
// magnitude; the solve is well conditioned once scaled (docs/theory.md §8)
// and every step converges.
TEST(MassRatio, MillionToOneStackOnRigidContactsUnderTheDefaultModel) {
  const Scene scene = LoadShippedScene(
      "mass_ratio",
      {"bodies.light.mass=0.001", "materials.default.stiffness=.inf",
       "solver.near_rigid_threshold=0.01", "duration=0.3"});
  const int light = scene.FindBody("light"), heavy = scene.FindBody("heavy");
  ASSERT_EQ(scene.bodies[heavy].mass / scene.bodies[light].mass, 1e6);
  double max_tilt = 0, max_offset = 0;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        for (int b : {light, heavy}) {
          const BodyState& x = st.state()[b];
          max_tilt = std::max(max_tilt, x.pose.orientation.angularDistance(
                                            Eigen::Quaterniond::Identity()));
          max_offset = std::max(max_offset, x.pose.position.head<2>().norm());
        }
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_LT(max_tilt, 1e-6);
  EXPECT_LT(max_offset, 1e-6);
  // Rigid contacts: both boxes stay where they were put, to within the
  // near-rigid compliance (micrometres), and come to rest.
  for (int b : {light, heavy}) {
    EXPECT_NEAR(s.final_state[b].pose.position.z(),
                scene.bodies[b].pose.position.z(), 1e-5)
        << scene.bodies[b].name;
  }
  EXPECT_LT(MaxPointSpeed(scene, s.final_state, 0.25), 1e-6);
}

}  // namespace
}  // namespace sapcontact
