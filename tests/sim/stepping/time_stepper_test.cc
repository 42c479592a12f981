// The time stepper without contact, against closed forms: free fall is
// symplectic Euler (exact positions, energy loss 1/2 m g^2 dt^2 per step),
// torque-free rotation keeps the kinetic energy (the explicit gyroscopic
// step alone would create energy) and nearly the angular momentum; the
// elastic energy of a resting contact; and the normal velocity at the start
// of the step that the stepper hands the contact models.
#include "sapcontact/sim/stepping/time_stepper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

TEST(TimeStepper, FreeFallIsSymplecticEuler) {
  const Scene scene = LoadSceneFromString(
      "time_step: 0.01\nduration: 1\ngravity: [0.5, 0, -9.81]\nbodies:\n"
      "  - name: ball\n    shape: {type: sphere, radius: 0.1}\n    mass: 2\n"
      "    position: [0, 0, 3]\n    velocity: [1, -2, 4]\n",
      "free_fall");
  TimeStepper stepper(scene);
  const double dt = scene.time_step, m = 2.0;
  const Vector3 x0(0, 0, 3), v0(1, -2, 4), g = scene.gravity;
  double energy = stepper.KineticEnergy() + stepper.PotentialEnergy();
  for (int n = 1; n <= 100; ++n) {
    const StepInfo info = stepper.Step();
    ASSERT_EQ(info.contacts, 0);
    const BodyState& s = stepper.state()[0];
    // v_n = v0 + n dt g; x_n = x0 + sum_k dt v_k.
    const Vector3 v = v0 + n * dt * g;
    const Vector3 x = x0 + n * dt * v0 + 0.5 * n * (n + 1) * dt * dt * g;
    EXPECT_LT((s.velocity - v).norm(), 1e-12) << n;
    EXPECT_LT((s.pose.position - x).norm(), 1e-12) << n;
    const double e = stepper.KineticEnergy() + stepper.PotentialEnergy();
    EXPECT_NEAR(e - energy, -0.5 * m * g.squaredNorm() * dt * dt, 1e-10) << n;
    energy = e;
  }
  EXPECT_NEAR(stepper.time(), 1.0, 1e-12);
  EXPECT_EQ(stepper.steps_taken(), 100);
}

// An asymmetric box tumbling about a non-principal axis without gravity.
TEST(TimeStepper, TorqueFreeTumblingKeepsItsEnergy) {
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\ngravity: [0, 0, 0]\nbodies:\n"
      "  - name: box\n    shape: {type: box, size: [0.3, 0.2, 0.1]}\n"
      "    mass: 3\n    rpy: [0.3, -0.2, 0.5]\n"
      "    angular_velocity: [4, 0.5, 3]\n",
      "tumble");
  TimeStepper stepper(scene);
  auto momentum = [&] {
    const BodyState& s = stepper.state()[0];
    const Matrix3 R = s.pose.rotation();
    return Vector3(R * scene.bodies[0].inertia * R.transpose() *
                   s.angular_velocity);
  };
  const double e0 = stepper.KineticEnergy();
  const Vector3 L0 = momentum();
  double max_energy_error = 0, max_momentum_error = 0;
  for (int n = 0; n < 2000; ++n) {
    stepper.Step();
    max_energy_error =
        std::max(max_energy_error, std::abs(stepper.KineticEnergy() / e0 - 1));
    max_momentum_error =
        std::max(max_momentum_error, (momentum() - L0).norm() / L0.norm());
  }
  // The body does tumble: its angular velocity changes direction.
  EXPECT_GT(
      (stepper.state()[0].angular_velocity - scene.bodies[0].angular_velocity)
          .norm(),
      0.5);
  EXPECT_LT(max_energy_error, 1e-12);
  // First-order method: the momentum direction drifts by O(dt) over the
  // run, but stays close.
  EXPECT_LT(max_momentum_error, 0.01);
  std::printf(
      "[tumbling box] energy error %.2e, angular momentum error "
      "%.2e over 2000 steps\n",
      max_energy_error, max_momentum_error);
}

TEST(TimeStepper, SpinAboutAPrincipalAxisIsSteady) {
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\ngravity: [0, 0, 0]\nbodies:\n"
      "  - name: box\n    shape: {type: box, size: [0.3, 0.2, 0.1]}\n"
      "    mass: 3\n    angular_velocity: [0, 0, 7]\n",
      "spin");
  TimeStepper stepper(scene);
  for (int n = 0; n < 1000; ++n) stepper.Step();
  const BodyState& s = stepper.state()[0];
  EXPECT_LT((s.angular_velocity - Vector3(0, 0, 7)).norm(), 1e-12);
  // Rotated by 7 rad about z.
  const Eigen::AngleAxisd aa(s.pose.orientation);
  EXPECT_NEAR(std::remainder(aa.angle() * aa.axis().z() - 7.0, 2 * M_PI), 0.0,
              1e-9);
}

// The elastic energy the stepper reports for box_rest at rest is that of
// four springs of stiffness k compressed by m g / (4 k): (m g)^2 / (8 k).
TEST(TimeStepper, ElasticEnergyOfTheRestingBox) {
  const Scene scene = scene_tests::LoadShippedScene("box_rest");
  TimeStepper stepper(scene);
  StepInfo info;
  for (int n = 0; n < 1000; ++n) info = stepper.Step();
  const double m = scene.bodies[1].mass, g = scene.gravity.norm();
  const double k = scene.PairParameters(0, 1).stiffness;
  const double expected = m * m * g * g / (8 * k);
  EXPECT_NEAR(info.elastic_energy, expected, 0.02 * expected);
}

// At the near-rigid floor (k = inf) the effective stiffness is not k: the
// elastic energy must come from the solver's k_eff. At rest each corner
// carries m g / 4 = k_eff |phi|, so the energy 1/2 k_eff phi^2 summed over
// the four corners is 1/2 m g |phi|, whatever k_eff is; for every contact
// model.
TEST(TimeStepper, ElasticEnergyAtTheNearRigidFloorBalancesTheWeight) {
  for (const char* model : {"sap", "similar", "lagged"}) {
    const Scene scene = scene_tests::LoadShippedScene(
        "box_rest", {"materials.default.stiffness=.inf",
                     std::string("materials.default.model=") + model});
    TimeStepper stepper(scene);
    StepInfo info;
    for (int n = 0; n < 1000; ++n) info = stepper.Step();
    const double m = scene.bodies[1].mass, g = scene.gravity.norm();
    ASSERT_EQ(info.contacts, 4) << model;
    ASSERT_GT(info.max_penetration, 0.0) << model;
    const double expected = 0.5 * m * g * info.max_penetration;
    EXPECT_NEAR(info.elastic_energy, expected, 0.02 * expected) << model;
    const SapSolverResults& r = stepper.last_sap_results();
    if (r.effective_stiffness.size() == 4) {  // once the solver reports it
      // The floor's stiffness: far below k = inf, and it holds the box.
      EXPECT_NEAR(r.effective_stiffness(0) * info.max_penetration, m * g / 4,
                  0.02 * m * g / 4)
          << model;
    }
    std::printf(
        "[near-rigid rest, %s] penetration %.4e m, elastic energy "
        "%.4e J, 1/2 m g |phi| = %.4e J\n",
        model, info.max_penetration, info.elastic_energy, expected);
  }
}

// Contact::normal_velocity0 is the normal component of J v0 + bias at the
// start of the step, + when separating: a sphere falling at 2 m/s onto the
// ground (sliding and spinning, which must not count), two spheres closing
// at 1.5 m/s, and a sphere at rest on a platform rising at 0.3 m/s (the
// prescribed motion enters through the bias velocity).
TEST(TimeStepper, NormalVelocityAtTheStartOfTheStep) {
  const Scene scene = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
gravity: [0, 0, 0]
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - {name: faller, shape: {type: sphere, radius: 0.1}, mass: 1,
     position: [0, 0, 0.1005], velocity: [0.5, 0, -2],
     angular_velocity: [0, 3, 0]}
  - {name: low, shape: {type: sphere, radius: 0.1}, mass: 1,
     position: [5, 0, 1], velocity: [0, 0, 1]}
  - {name: high, shape: {type: sphere, radius: 0.1}, mass: 2,
     position: [5, 0, 1.2005], velocity: [0, 0, -0.5]}
  - {name: platform, fixed: true, shape: {type: box, size: [1, 1, 0.1]},
     position: [10, 0, 1], prescribed: {velocity: [0, 0, 0.3]}}
  - {name: rider, shape: {type: sphere, radius: 0.1}, mass: 1,
     position: [10, 0, 1.1505]}
)",
                                          "vn0.yaml");
  TimeStepper stepper(scene);
  stepper.Step();
  const std::vector<ContactPoint>& contacts = stepper.last_contacts();
  const SapProblem& problem = stepper.last_problem();
  ASSERT_EQ(problem.contacts.size(), contacts.size());
  int found = 0;
  for (size_t k = 0; k < contacts.size(); ++k) {
    const std::string a = stepper.ColliderName(contacts[k].body_a);
    const std::string b = stepper.ColliderName(contacts[k].body_b);
    const double vn0 = problem.contacts[k].normal_velocity0;
    double expected = 0;
    if (a == "faller" || b == "faller") {
      expected = -2.0;
    } else if (a == "low" || b == "low") {
      expected = -1.5;
    } else if (a == "rider" || b == "rider") {
      expected = -0.3;
    } else {
      ADD_FAILURE() << "unexpected contact " << a << "-" << b;
      continue;
    }
    ++found;
    EXPECT_NEAR(vn0, expected, 1e-12) << a << "-" << b;
  }
  EXPECT_EQ(found, 3);
}

// The start-of-step normal velocity is exactly (to the bit) the normal
// component of J v + bias with v the velocities at the start of the step,
// as Eigen's matrix-vector product evaluates it: tilted, spinning boxes on
// the ground and on each other (one- and two-tree contacts).
TEST(TimeStepper, NormalVelocityIsTheProductToTheBit) {
  const Scene scene = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - {name: a, shape: {type: box, size: [0.2, 0.3, 0.1]}, mass: 1,
     position: [0, 0, 0.0505], rpy: [0.01, -0.02, 0.3],
     velocity: [0.1, -0.2, -0.3], angular_velocity: [0.7, -0.4, 0.9]}
  - {name: b, shape: {type: box, size: [0.2, 0.2, 0.1]}, mass: 2,
     position: [0.01, 0.02, 0.151], rpy: [-0.01, 0.015, -0.2],
     velocity: [-0.3, 0.1, -0.5], angular_velocity: [-0.5, 0.6, 0.2]}
)",
                                          "vn0_bits.yaml");
  TimeStepper stepper(scene);
  int checked = 0, two_trees = 0;
  for (int n = 0; n < 5; ++n) {
    // The stacked start velocities: the moving bodies' (v, w) in order.
    Eigen::VectorXd v(12);
    v << stepper.state()[1].velocity, stepper.state()[1].angular_velocity,
        stepper.state()[2].velocity, stepper.state()[2].angular_velocity;
    stepper.Step();
    const SapProblem& problem = stepper.last_problem();
    const std::vector<int> offsets = problem.TreeOffsets();
    for (const Contact& c : problem.contacts) {
      Vector3 v_c = c.bias_velocity;
      v_c.noalias() +=
          c.first.J * v.segment(offsets[c.first.tree], c.first.J.cols());
      if (c.second) {
        ++two_trees;
        v_c.noalias() += c.second->J *
                         v.segment(offsets[c.second->tree], c.second->J.cols());
      }
      EXPECT_EQ(c.normal_velocity0, v_c(kNormal)) << "step " << n + 1;
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
  EXPECT_GT(two_trees, 0);
}

// A box released 1 mm deep in the ground without damping pops out: kinetic
// plus gravitational energy rise by a good part of the 1 J stored in the
// springs (4 * 1/2 k (1 mm)^2 with k = 5e5). The total energy of the summary
// counts that elastic energy and does not rise.
TEST(TimeStepper, TotalEnergyCountsTheElasticEnergy) {
  const Scene scene = scene_tests::LoadShippedScene(
      "box_rest", {"bodies.box.position.2=0.099", "duration=0.1",
                   "materials.default.dissipation_time_scale=0",
                   "solver.contact_model=sap"});
  const double k = scene.PairParameters(0, 1).stiffness;
  const double elastic0 = 4 * 0.5 * k * 1e-6;
  double mechanical0 = 0, max_mechanical = 0;
  const SimulationSummary s =
      scene_tests::Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        const double e = st.KineticEnergy() + st.PotentialEnergy();
        max_mechanical = std::max(max_mechanical, e);
      });
  mechanical0 = scene.bodies[1].mass * 9.81 * 0.099;
  EXPECT_NEAR(s.energy_initial_J, mechanical0 + elastic0, 1e-9);
  EXPECT_GT(max_mechanical - mechanical0, 0.2 * elastic0);
  EXPECT_LE(s.energy_max_increase_rel, 1e-3);
  std::printf(
      "[preloaded box] kinetic + gravitational rose by %.3f J of the "
      "%.3f J stored; total energy increase %.2e\n",
      max_mechanical - mechanical0, elastic0, s.energy_max_increase_rel);
}

}  // namespace
}  // namespace sapcontact
