// box_rest (config/scenes/box_rest.yaml): a 10 kg, 0.2 m box on the ground.
// Resting penetration against the closed forms of
// contact_model/regime_estimates.h (docs/theory.md §9), settling, energy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sapcontact/contact_model/regime_estimates.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::MaxPointSpeed;
using scene_tests::Simulate;

constexpr double kHalfDiagonal = 0.17320508075688773;  // sqrt(3) * 0.1 m

struct RestResult {
  SimulationSummary summary;
  std::vector<ContactPoint> contacts;  // at the start of the last step
  SapSolverResults sap;                // of the last step (SAP model)
};

RestResult RunBoxRest(const std::vector<std::string>& overrides) {
  const Scene scene = LoadShippedScene("box_rest", overrides);
  RestResult r;
  // Keep the last step's contacts and solver results.
  r.summary = Simulate(scene, [&](const TimeStepper& s, const StepInfo&) {
    r.contacts = s.last_contacts();
    r.sap = s.last_sap_results();
  });
  return r;
}

TEST(BoxRest, CompliantPenetrationIsTheSpringDeflection) {
  const Scene scene = LoadShippedScene("box_rest");
  const int box = scene.FindBody("box");
  const double m = scene.bodies[box].mass, g = scene.gravity.norm();
  const double k =
      scene.PairParameters(scene.FindBody("ground"), box).stiffness;
  ASSERT_DOUBLE_EQ(k, 5.0e5);  // 1e6 in series with 1e6
  const RestResult r = RunBoxRest({});
  const double expected = CompliantRestingPenetration(m, g, 4, k);  // 4.9e-5
  ASSERT_EQ(r.contacts.size(), 4u);
  for (const ContactPoint& c : r.contacts) {
    EXPECT_NEAR(-c.phi, expected, 0.05 * expected);
  }
  // The box sits level: its centre is down by the same deflection.
  const BodyState& final = r.summary.final_state[box];
  EXPECT_NEAR(0.1 - final.pose.position.z(), expected, 0.05 * expected);
  EXPECT_LT(MaxPointSpeed(scene, r.summary.final_state, kHalfDiagonal), 1e-6);
  EXPECT_EQ(r.summary.failed_steps, 0) << r.summary.first_failure;
  EXPECT_LE(r.summary.energy_max_increase_rel, 1e-3);
  std::printf("[box_rest k = 5e5] penetration %.6e m, m g / (4 k) = %.6e m\n",
              -r.contacts[0].phi, expected);
}

TEST(BoxRest, AMaterialPairReplacesTheCombinationOfItsMaterials) {
  // The box's own material against the ground's, with the pair given
  // stiffness and friction: the box rests at the pair's m g / (4 k), not at
  // that of its materials in series, and the fields the pair leaves out
  // keep the combination of the two.
  const std::string yaml = R"(time_step: 1.0e-3
duration: 2.0
materials:
  ground: {stiffness: 1.0e6, dissipation_time_scale: 0.01, friction: 0.5}
  box: {stiffness: 1.0e6, dissipation_time_scale: 0.01, friction: 0.5}
material_pairs:
  - {materials: [box, ground], stiffness: 2.0e5, friction: 0.9}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}, material: ground}
  - name: box
    shape: {type: box, size: [0.2, 0.2, 0.2]}
    mass: 10.0
    position: [0, 0, 0.1]
    material: box
)";
  const Scene scene = LoadSceneFromString(yaml, "pair.yaml");
  const int box = scene.FindBody("box");
  const ContactParameters p = scene.PairParameters(0, box);
  EXPECT_EQ(p.stiffness, 2.0e5);
  EXPECT_EQ(p.friction, 0.9);
  EXPECT_EQ(p.dissipation_time_scale, 0.02);  // 0.01 + 0.01, combined
  EXPECT_EQ(scene.PairParameters(box, 0).stiffness, 2.0e5);
  // Two boxes would still combine their materials: 1e6 in series with 1e6.
  EXPECT_EQ(scene
                .MaterialPairParameters(scene.bodies[box].material_index,
                                        scene.bodies[box].material_index)
                .stiffness,
            5.0e5);
  std::vector<ContactPoint> contacts;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        contacts = st.last_contacts();
      });
  EXPECT_EQ(s.failed_steps, 0);
  const double expected =
      CompliantRestingPenetration(10.0, scene.gravity.norm(), 4, 2.0e5);
  ASSERT_EQ(contacts.size(), 4u);
  for (const ContactPoint& c : contacts) {
    EXPECT_NEAR(-c.phi, expected, 0.05 * expected);
  }
}

TEST(BoxRest, RigidPenetrationIsTheNearRigidEstimate) {
  // The near-rigid floor of the SAP paper's contact model.
  const RestResult r = RunBoxRest(
      {"materials.default.stiffness=.inf", "solver.contact_model=sap"});
  const Scene scene = LoadShippedScene("box_rest");
  const int box = scene.FindBody("box");
  const double m = scene.bodies[box].mass, g = scene.gravity.norm();
  const double dt = scene.time_step;
  const double beta = scene.solver.near_rigid_threshold;
  const double tau = scene.PairParameters(0, box).dissipation_time_scale;
  ASSERT_EQ(r.contacts.size(), 4u);
  ASSERT_EQ(r.sap.R_n.size(), 4);
  for (int i = 0; i < 4; ++i) {
    // k = inf: R_n is the near-rigid floor beta^2 w / (4 pi^2) of the
    // contact's own Delassus estimate.
    const double w = r.sap.delassus_estimate(i);
    EXPECT_NEAR(r.sap.R_n(i), beta * beta * w / (4 * M_PI * M_PI),
                1e-12 * r.sap.R_n(i));
    const double expected = RestingPenetration(m, g, 4, dt, tau, r.sap.R_n(i));
    EXPECT_NEAR(-r.contacts[i].phi, expected, 0.05 * expected);
    EXPECT_NEAR(-r.contacts[i].phi,
                NearRigidRestingPenetration(m, g, 4, dt, tau, beta, w),
                0.05 * expected);
    if (i == 0) {
      std::printf(
          "[box_rest k = inf] penetration %.6e m, estimate %.6e m "
          "(w = %.4e 1/kg, R_n = %.4e)\n",
          -r.contacts[i].phi, expected, w, r.sap.R_n(i));
    }
  }
  // Much stiffer than the compliant contact.
  EXPECT_LT(-r.contacts[0].phi,
            0.2 * CompliantRestingPenetration(m, g, 4, 5.0e5));
  EXPECT_LT(MaxPointSpeed(scene, r.summary.final_state, kHalfDiagonal), 1e-6);
  EXPECT_EQ(r.summary.failed_steps, 0) << r.summary.first_failure;
  EXPECT_LE(r.summary.energy_max_increase_rel, 1e-3);
}

TEST(BoxRest, RigidQpModelRestsWithoutPenetration) {
  const RestResult r = RunBoxRest({"solver.model=rigid"});
  const Scene scene = LoadShippedScene("box_rest");
  ASSERT_EQ(r.contacts.size(), 4u);
  // The rigid QP targets phi_next = 0 (v_hat_n = -phi0 / (dt + tau_d)).
  for (const ContactPoint& c : r.contacts) EXPECT_NEAR(c.phi, 0.0, 1e-9);
  EXPECT_LT(MaxPointSpeed(scene, r.summary.final_state, kHalfDiagonal), 1e-6);
  EXPECT_EQ(r.summary.failed_steps, 0) << r.summary.first_failure;
  EXPECT_LE(r.summary.energy_max_increase_rel, 1e-3);
}

// The rigid box at rest under every contact model, with and without the
// rest start (SapSolverParameters::warm_start_at_rest, docs/theory.md §7).
// Under lagged, reusing a velocity at the tolerance's level makes the stiff
// contact alternate between a solve and an accepted warm start (0.49 Newton
// iterations per step); starting the resting island from v = 0 ends the
// cycle after the first solve. Both meet the same tolerance: the resting
// heights agree far inside the solver's accuracy.
TEST(WarmStartAtRest, RestingRigidBoxCostsNoNewtonIterationOnceSettled) {
  for (const char* model : {"sap", "similar", "lagged"}) {
    double z[2] = {0.0, 0.0};
    double iterations_per_step[2] = {0.0, 0.0};
    for (const bool at_rest : {false, true}) {
      const Scene scene = LoadShippedScene(
          "box_rest", {"materials.default.stiffness=.inf", "duration=1",
                       std::string("materials.default.model=") + model,
                       std::string("solver.warm_start_at_rest=") +
                           (at_rest ? "true" : "false")});
      TimeStepper stepper(scene);
      int iterations = 0, rest_starts = 0, failed = 0;
      const int settle = 200, steps = 1000;
      for (int n = 0; n < steps; ++n) {
        const StepInfo info = stepper.Step();
        failed += info.failed;
        if (n < settle) continue;
        iterations += info.newton_iterations;
        for (const SapIslandStatistics& is :
             stepper.last_sap_results().statistics.island_statistics) {
          rest_starts +=
              is.start_candidate == SapIslandStatistics::kStartAtRest;
        }
      }
      EXPECT_EQ(failed, 0) << model;
      iterations_per_step[at_rest] =
          static_cast<double>(iterations) / (steps - settle);
      z[at_rest] = stepper.state()[scene.FindBody("box")].pose.position.z();
      if (at_rest) {
        EXPECT_GT(rest_starts, (steps - settle) / 2) << model;
      } else {
        EXPECT_EQ(rest_starts, 0) << model;
      }
    }
    std::printf(
        "[rigid rest, %s] Newton iterations per step after 0.2 s: %.3f "
        "from the warm starts, %.3f with the rest start; heights differ by "
        "%.2e m\n",
        model, iterations_per_step[0], iterations_per_step[1], z[1] - z[0]);
    EXPECT_LE(iterations_per_step[1], 0.05) << model;
    EXPECT_NEAR(z[1], z[0], 1e-9) << model;
    if (std::string(model) == "lagged") {
      // The scenario is the one the rest start exists for.
      EXPECT_GT(iterations_per_step[0], 0.3);
    }
  }
}

}  // namespace
}  // namespace sapcontact
