// Robots in the shipped scenes (config/scenes/*.yaml with `robots:`), stepped
// by the TimeStepper: SAP trees with A = M + dt D, joint limits, mimic
// couplers and implicit PD actuation as SAP constraints (docs/robots.md).
//   pendulum         energy without damping; small-angle period
//                    2 pi sqrt(I_pivot / (m g l))
//   double_pendulum  energy of a large-angle release (bounded, no drift);
//                    the two small-angle normal-mode periods
//   arm_hold         PD steady-state error e = tau_g(q) / kp, at rest
//   joint_limit      the limit stops the joint (violation), PD holds it there
//   gripper          pick, lift 10 cm, hold: creep of the box in the grasp
//   arm_push         a sweeping arm pushes three boxes
// The measured numbers are printed; the tolerances are explained at each
// assertion.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/scene/material.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;
using scene_tests::Simulate;

// "%.17g" for --set values.
std::string Num(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

// Times of the upward zero crossings of a sampled signal (linear
// interpolation between samples).
std::vector<double> UpwardZeroCrossings(const std::vector<double>& t,
                                        const std::vector<double>& x,
                                        double offset = 0.0) {
  std::vector<double> crossings;
  for (size_t i = 1; i < x.size(); ++i) {
    const double a = x[i - 1] - offset, b = x[i] - offset;
    if (a < 0 && b >= 0) {
      crossings.push_back(t[i - 1] + (t[i] - t[i - 1]) * (-a) / (b - a));
    }
  }
  return crossings;
}

// Mean period from the zero crossings (first to last); 0 if fewer than two.
double MeanPeriod(const std::vector<double>& crossings) {
  if (crossings.size() < 2) return 0.0;
  return (crossings.back() - crossings.front()) /
         static_cast<double>(crossings.size() - 1);
}

// Index of the actuation entry of joint `name` of robot r, or -1.
int ActuationIndex(const RobotSpec& robot, const std::string& name) {
  const int j = robot.description.tree.FindJoint(name);
  for (size_t k = 0; k < robot.actuation.size(); ++k) {
    if (robot.actuation[k].joint == j) return static_cast<int>(k);
  }
  return -1;
}

double Mean(const std::vector<double>& x, size_t begin, size_t end) {
  double s = 0.0;
  for (size_t i = begin; i < end; ++i) s += x[i];
  return s / static_cast<double>(end - begin);
}

// ---------------------------------------------------------------- pendulum

TEST(RobotSteppingPendulum, EnergyConservedAndSmallAnglePeriod) {
  const Scene scene = LoadShippedScene("pendulum");
  ASSERT_EQ(scene.robots.size(), 1u);
  const MultibodyTree& tree = scene.robots[0].description.tree;
  const int bob = tree.FindLink("bob");
  ASSERT_GE(bob, 0);
  const LinkInertia& in = tree.link(bob).inertia;
  const double m = in.mass, l = -in.com.z(), g = -scene.gravity.z();
  // Moment of inertia about the pivot (y axis): m l^2 + the sphere's own.
  const double I = m * l * l + in.inertia(1, 1);
  const double expected = 2 * M_PI * std::sqrt(I / (m * g * l));
  const double theta0 = scene.robots[0].joints.at(0).position;
  // Energy of the oscillation (above the rest state): the scale of the
  // relative drift (the total E includes m g z of the pivot height).
  const double e_osc = m * g * l * (1 - std::cos(theta0));

  std::vector<double> t, q, e;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        t.push_back(st.time());
        q.push_back(st.robot_states()[0].q(0));
        e.push_back(st.KineticEnergy() + st.PotentialEnergy());
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  const double e0 = s.energy_initial_J;
  const double period = MeanPeriod(UpwardZeroCrossings(t, q));
  // Bounded oscillation |E - E0| and drift: mean over the last period minus
  // mean over the first.
  double max_dev = 0.0;
  for (double x : e) max_dev = std::max(max_dev, std::abs(x - e0));
  const size_t per = static_cast<size_t>(expected / scene.time_step);
  const double drift = Mean(e, e.size() - per, e.size()) - Mean(e, 0, per);
  std::printf(
      "[pendulum] period %.6f s, expected %.6f s (%+.3f %%; amplitude "
      "%.2f rad adds theta0^2/16 = %.3f %%); energy: |E - E0| <= %.3e of "
      "E_osc = %.4e J, drift over %.0f s %.3e of E_osc\n",
      period, expected, 100 * (period / expected - 1), theta0,
      100 * theta0 * theta0 / 16, max_dev / e_osc, e_osc, scene.duration,
      drift / e_osc);
  EXPECT_NEAR(period / expected, 1.0, 5e-3);
  // Symplectic Euler: the energy oscillates by about omega dt / 2 = 2.2e-3
  // of E_osc about a constant (measured 2.2e-3), no drift (measured ~1e-6).
  EXPECT_LT(max_dev / e_osc, 5e-3);
  EXPECT_LT(std::abs(drift) / e_osc, 1e-4);
}

// --------------------------------------------------------- double pendulum

// Linearized double pendulum in absolute angles phi = (phi1, phi2)
// (phi1 = shoulder, phi2 = shoulder + elbow): M phi'' + K phi = 0 with
// M = [[(m1 + m2) l1^2 + I1, m2 l1 l2], [m2 l1 l2, m2 l2^2 + I2]],
// K = diag((m1 + m2) g l1, m2 g l2), I the bobs' own inertias.
struct DoublePendulumModes {
  Eigen::Vector2d omega2;  // slow, fast
  Eigen::Matrix2d shapes;  // columns: (phi1, phi2) of each mode
};

DoublePendulumModes Modes(double m1, double m2, double l1, double l2, double I1,
                          double I2, double g) {
  Eigen::Matrix2d M, K;
  M << (m1 + m2) * l1 * l1 + I1, m2 * l1 * l2, m2 * l1 * l2, m2 * l2 * l2 + I2;
  K << (m1 + m2) * g * l1, 0, 0, m2 * g * l2;
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> es(K, M);
  return {es.eigenvalues(), es.eigenvectors()};
}

// The energy error of the large-angle (chaotic) release, |E - E0| over the
// scene's 10 s relative to E0 - E_rest, at dt and at dt / 2.
double DoublePendulumEnergyError(double dt, double* drift) {
  const Scene scene =
      LoadShippedScene("double_pendulum", {"time_step=" + Num(dt)});
  const MultibodyTree& tree = scene.robots[0].description.tree;
  const double e_rest =
      CalcPotentialEnergy(tree, tree.ZeroPositions(), scene.gravity);
  std::vector<double> e;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        e.push_back(st.KineticEnergy() + st.PotentialEnergy());
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  const double e0 = s.energy_initial_J;
  const double scale = e0 - e_rest;  // energy above the rest state
  EXPECT_GT(scale, 10.0);
  double max_dev = 0.0;
  for (double x : e) max_dev = std::max(max_dev, std::abs(x - e0));
  const size_t window = static_cast<size_t>(2.0 / dt);
  *drift = (Mean(e, e.size() - window, e.size()) - Mean(e, 0, window)) / scale;
  return max_dev / scale;
}

TEST(RobotSteppingDoublePendulum, LargeAngleEnergyConservedWithoutDrift) {
  // The robots' step is a variational integrator (docs/theory.md §17: the
  // discrete Euler-Lagrange step with the momentum M(q_(n-1)) v_n carried
  // between steps): its energy error oscillates, bounded and first order in
  // dt, and does not drift. (The earlier update M(q_n) v_(n+1) = M(q_n) v_n -
  // dt c(q_n, v_n) lost 35 % of E - E_rest in 50 s on this release.)
  double drift_1 = 0.0, drift_2 = 0.0;
  const double dt = 1e-3;
  const double error_1 = DoublePendulumEnergyError(dt, &drift_1);
  const double error_2 = DoublePendulumEnergyError(dt / 2, &drift_2);
  std::printf(
      "[double_pendulum] large-angle release, 10 s: max |E - E0| / (E0 - "
      "E_rest) = %.3e at dt = 1 ms, %.3e at 0.5 ms (ratio %.2f); mean over "
      "the last 2 s - first 2 s: %.3e, %.3e\n",
      error_1, error_2, error_1 / error_2, drift_1, drift_2);
  // Bounded oscillation, first order in dt.
  EXPECT_LT(error_1, 4e-2);
  EXPECT_GT(error_1 / error_2, 1.6);
  EXPECT_LT(error_1 / error_2, 2.5);
  // No drift: the mean energy of the last 2 s equals that of the first 2 s
  // to a small fraction of the oscillation.
  EXPECT_LT(std::abs(drift_1), 2e-3);
  EXPECT_LT(std::abs(drift_2), 2e-3);
}

TEST(RobotSteppingDoublePendulum, NormalModePeriods) {
  const Scene base = LoadShippedScene("double_pendulum");
  const MultibodyTree& tree = base.robots[0].description.tree;
  const LinkInertia& a = tree.link(tree.FindLink("upper")).inertia;
  const LinkInertia& b = tree.link(tree.FindLink("lower")).inertia;
  const double g = -base.gravity.z();
  const double l1 = -a.com.z(), l2 = -b.com.z();
  ASSERT_NEAR(l1, 0.5, 1e-12);
  ASSERT_NEAR(l2, 0.5, 1e-12);
  ASSERT_NEAR(-tree.joint(tree.FindJoint("elbow")).origin.translation().z(), l1,
              1e-12);
  const DoublePendulumModes exact =
      Modes(a.mass, b.mass, l1, l2, a.inertia(1, 1), b.inertia(1, 1), g);
  // Closed form for equal point masses and lengths.
  const double l = l1;
  const double point[2] = {g / l * (2 - std::sqrt(2.0)),
                           g / l * (2 + std::sqrt(2.0))};
  const char* const names[2] = {"slow", "fast"};
  const double durations[2] = {4.0, 2.5};
  for (int mode = 0; mode < 2; ++mode) {
    // Start in the exact mode shape, shoulder amplitude 0.02 rad (the
    // amplitude shifts the period by about theta^2 / 16 = 2.5e-5).
    const Eigen::Vector2d phi =
        0.02 * exact.shapes.col(mode) / exact.shapes(0, mode);
    const Scene scene = LoadShippedScene(
        "double_pendulum",
        {"duration=" + Num(durations[mode]),
         "robots.double_pendulum.joints.shoulder.position=" + Num(phi(0)),
         "robots.double_pendulum.joints.elbow.position=" +
             Num(phi(1) - phi(0))});
    std::vector<double> t, q1, q2;
    const SimulationSummary s =
        Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
          t.push_back(st.time());
          q1.push_back(st.robot_states()[0].q(0));
          q2.push_back(st.robot_states()[0].q(1));
        });
    EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
    const double period1 = MeanPeriod(UpwardZeroCrossings(t, q1));
    const double period2 = MeanPeriod(UpwardZeroCrossings(t, q2));
    const double t_exact = 2 * M_PI / std::sqrt(exact.omega2(mode));
    const double t_point = 2 * M_PI / std::sqrt(point[mode]);
    std::printf(
        "[double_pendulum] %s mode (elbow/shoulder = %+.6f): period %.6f s "
        "(shoulder), %.6f s (elbow); point masses %.6f s (%+.3f %%), with "
        "the bobs' inertia %.6f s (%+.3f %%)\n",
        names[mode], (phi(1) - phi(0)) / phi(0), period1, period2, t_point,
        100 * (period1 / t_point - 1), t_exact, 100 * (period1 / t_exact - 1));
    // A pure mode: both joints oscillate at the same period.
    EXPECT_NEAR(period2 / period1, 1.0, 1e-3);
    // A 0.5 % target; the bobs' inertia (1.6e-4 vs m l^2 = 0.25 kg m^2)
    // shifts the period by < 0.04 %, and symplectic Euler by
    // (omega dt)^2 / 24 < 3e-6.
    EXPECT_NEAR(period1 / t_point, 1.0, 5e-3);
    EXPECT_NEAR(period1 / t_exact, 1.0, 5e-3);
  }
}

// ---------------------------------------------------------------- arm_hold

TEST(RobotSteppingArmHold, SteadyStateErrorIsGravityOverGain) {
  const Scene scene = LoadShippedScene("arm_hold");
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  ASSERT_EQ(robot.actuation.size(), 7u);
  double max_speed_last = 0.0;
  const int steps = static_cast<int>(scene.duration / scene.time_step + 0.5);
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        if (st.steps_taken() > steps - 100) {
          max_speed_last = std::max(
              max_speed_last, st.robot_states()[0].v.cwiseAbs().maxCoeff());
        }
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  const Eigen::VectorXd& q = s.final_robot_state[0].q;
  const Eigen::VectorXd& v = s.final_robot_state[0].v;
  // Holding torque at rest: the bias forces at v = 0, -tau_g(q).
  Eigen::VectorXd hold;
  CalcBiasForces(tree, q, Eigen::VectorXd::Zero(v.size()), scene.gravity,
                 &hold);
  std::printf("[arm_hold] max |v| over the last 0.1 s: %.2e rad/s\n",
              max_speed_last);
  std::printf(
      "[arm_hold] joint   kp      e = target - q   tau_g/kp        "
      "rel.diff   effort     tau_g\n");
  double max_rel = 0.0;
  for (size_t k = 0; k < robot.actuation.size(); ++k) {
    const JointActuation& act = robot.actuation[k];
    const int iq = tree.position_start(act.joint);
    const int iv = tree.velocity_start(act.joint);
    const double e = act.target.ScalarValue(scene.duration) - q(iq);
    const double expected = hold(iv) / act.kp;
    const double rel = std::abs(e - expected) / std::abs(expected);
    if (std::abs(expected) > 1e-9) max_rel = std::max(max_rel, rel);
    std::printf(
        "[arm_hold] %-7s %6.0f  %+.6e    %+.6e   %.1e    %+8.4f   %+8.4f\n",
        tree.joint(act.joint).name.c_str(), act.kp, e, expected, rel,
        s.final_robot_efforts[0](k), hold(iv));
    const std::string& name = tree.joint(act.joint).name;
    if (name == "joint1" || name == "joint7") {
      // No gravity torque in any pose: joint1's axis is vertical (base on
      // the ground) and link7 is symmetric about joint7's axis with
      // nothing beyond it. Error measured 1.4e-11 and 2.5e-9 rad.
      EXPECT_LT(std::abs(hold(iv)), 1e-9) << name;
      EXPECT_LT(std::abs(e), 1e-7) << name;
      continue;
    }
    // Gravity loads joints 2 to 6 (the pose is chosen so; errors of 1 to
    // 12 mrad).
    EXPECT_GT(std::abs(expected), 5e-4) << name;
    // At rest the PD law is exact: kp e = tau_g (measured to 2.4e-7
    // relative, joint5; the residual motion, < 1e-6 rad/s, is the rest).
    EXPECT_NEAR(e, expected, 1e-5 * std::abs(expected)) << name;
    EXPECT_NEAR(s.final_robot_efforts[0](k), hold(iv),
                1e-5 * std::abs(hold(iv)))
        << name;
  }
  std::printf("[arm_hold] max relative difference (joints 2-6) %.2e\n",
              max_rel);
  EXPECT_LT(max_speed_last, 1e-4);
}

// ------------------------------------------------------------- joint_limit

struct LimitRun {
  double max_violation{0.0};  // max over steps of q - upper (or lower - q)
  double impact_speed{0.0};   // max |v| over the run
  double q_final{0.0}, v_final{0.0}, effort_final{0.0};
  int failed{0};
};

LimitRun RunLimit(const std::vector<std::string>& overrides, bool upper) {
  const Scene scene = LoadShippedScene("joint_limit", overrides);
  const Joint& joint = scene.robots[0].description.tree.joint(
      scene.robots[0].description.tree.FindJoint("pivot"));
  LimitRun run;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        const double q = st.robot_states()[0].q(0);
        run.max_violation = std::max(run.max_violation,
                                     upper ? q - joint.upper : joint.lower - q);
        run.impact_speed =
            std::max(run.impact_speed, std::abs(st.robot_states()[0].v(0)));
      });
  run.q_final = s.final_robot_state[0].q(0);
  run.v_final = s.final_robot_state[0].v(0);
  run.effort_final = s.final_robot_efforts[0](0);
  run.failed = s.failed_steps;
  return run;
}

TEST(RobotSteppingJointLimit, LimitStopsTheJointAndPdHoldsItThere) {
  const Scene scene = LoadShippedScene("joint_limit");
  const JointActuation& act = scene.robots[0].actuation.at(0);
  const double target = act.target.ScalarValue(scene.duration);
  for (int side = 0; side < 2; ++side) {
    const bool upper = side == 0;
    const std::vector<std::string> overrides =
        upper ? std::vector<std::string>{}
              : std::vector<std::string>{
                    "robots.limit_pendulum.joints.pivot.velocity=-5",
                    "robots.limit_pendulum.actuation.pivot.target=" +
                        Num(-target)};
    const LimitRun run = RunLimit(overrides, upper);
    const double limit = upper ? 0.5 : -0.5;
    const double pd = act.kp * ((upper ? target : -target) - limit);
    std::printf(
        "[joint_limit] %s limit: hit at up to %.3f rad/s, max violation "
        "%.3e rad; final q %.7f rad, v %.1e rad/s, effort %.5f N m (PD at "
        "the limit %.5f)\n",
        upper ? "upper" : "lower", run.impact_speed, run.max_violation,
        run.q_final, run.v_final, run.effort_final, pd);
    EXPECT_EQ(run.failed, 0);
    // The impact at 6 rad/s (5 rad/s initially, the PD accelerates it) is
    // stopped by the limit constraint; measured violation 9.4e-9 rad (the
    // target is < 1e-3).
    EXPECT_GT(run.impact_speed, 4.0);
    EXPECT_LT(run.max_violation, 1e-5);
    // At rest at the limit.
    EXPECT_NEAR(run.q_final, limit, 1e-3);
    EXPECT_LT(std::abs(run.v_final), 1e-4);
    // The effort is the PD law at the limit (the limit carries the rest).
    EXPECT_NEAR(run.effort_final, pd, 1e-2 * std::abs(pd));
  }
}

// ----------------------------------------------------------------- gripper

// The shipped scene: close 0.3-0.7 s, lift 1-2 s, hold 2.5-7.5 s.
struct GripperRun {
  double box_z0{0.0}, box_z_hold{0.0};
  double slip_start{0.0}, slip_end{0.0};  // box z - fingertip z
  double creep_rate{0.0};                 // least squares over the hold [m/s]
  double max_slip_dev{0.0};  // max |slip - slip at the hold's start|
  double effort{0.0};        // left_finger effort, mean over the hold [N]
  double normal_left{0.0}, normal_right{0.0};  // contact forces [N]
  // SAP's regularized stiction slip R_t |gamma_t| of the finger contacts
  // (mean over the contacts and the hold) [m/s].
  double regularization_slip{0.0};
  double mean_newton{0.0};
  int max_newton{0};
  int failed{0};
  double wall{0.0};
};

GripperRun RunGripper(const std::vector<std::string>& overrides) {
  const double hold_start = 2.5;
  const Scene scene = LoadShippedScene("gripper", overrides);
  const int box = scene.FindBody("box");
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  const int left = tree.FindLink("left");
  const int finger_act = ActuationIndex(robot, "left_finger");
  GripperRun run;
  run.box_z0 = scene.bodies[box].pose.position.z();
  std::vector<double> t, slip;
  double effort_sum = 0.0, reg_slip_sum = 0.0;
  int n_hold = 0;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        if (st.time() < hold_start - 1e-9) return;
        // Fingertip: the lower face of the left finger (its box centre
        // 0.04 m above).
        const double tip = st.LinkPoses(0)[left].translation().z() - 0.04;
        const double z = st.state()[box].pose.position.z();
        t.push_back(st.time());
        slip.push_back(z - tip);
        effort_sum += st.ActuationEfforts(0)(finger_act);
        ++n_hold;
        // Normal forces of the last step on the box from each finger.
        double fl = 0.0, fr = 0.0;
        const auto& contacts = st.last_contacts();
        const Eigen::VectorXd& gamma = st.last_impulses();
        for (size_t k = 0; k < contacts.size(); ++k) {
          const ContactPoint& c = contacts[k];
          const int other = c.body_a == box   ? c.body_b
                            : c.body_b == box ? c.body_a
                                              : -1;
          if (other < 0) continue;
          const std::string& name = st.ColliderName(other);
          const double fn = gamma(3 * k) / scene.time_step;
          if (name == "gripper/left/pad") fl += fn;
          if (name == "gripper/right/pad") fr += fn;
        }
        const SapSolverResults& sap = st.last_sap_results();
        double slip_sum = 0.0;
        int slip_n = 0;
        for (size_t k = 0; k < contacts.size(); ++k) {
          const ContactPoint& c = contacts[k];
          if (c.body_a != box && c.body_b != box) continue;
          const std::string& other =
              st.ColliderName(c.body_a == box ? c.body_b : c.body_a);
          if (other.rfind("gripper/", 0) != 0) continue;
          slip_sum += sap.R_t(k) * gamma.segment<2>(3 * k + 1).norm();
          ++slip_n;
        }
        if (slip_n > 0) reg_slip_sum += slip_sum / slip_n;
        run.normal_left = fl;
        run.normal_right = fr;
        run.box_z_hold = z;
      });
  run.failed = s.failed_steps;
  run.mean_newton = s.mean_newton_iterations;
  run.max_newton = s.max_newton_iterations;
  run.wall = s.wall_time_s;
  run.effort = effort_sum / n_hold;
  run.regularization_slip = reg_slip_sum / n_hold;
  run.slip_start = slip.front();
  run.slip_end = slip.back();
  for (double x : slip) {
    run.max_slip_dev = std::max(run.max_slip_dev, std::abs(x - slip.front()));
  }
  // Least-squares slope of the slip over the hold.
  const double tm = Mean(t, 0, t.size()), sm = Mean(slip, 0, slip.size());
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < t.size(); ++i) {
    num += (t[i] - tm) * (slip[i] - sm);
    den += (t[i] - tm) * (t[i] - tm);
  }
  run.creep_rate = num / den;
  return run;
}

TEST(RobotSteppingGripper, LiftsAndHoldsTheBoxWithoutCreep) {
  const Scene scene = LoadShippedScene("gripper");
  const int box = scene.FindBody("box");
  const double m = scene.bodies[box].mass;
  const double g = -scene.gravity.z();
  const double mu =
      CombineMaterials(scene.materials[scene.robots[0].material_index],
                       scene.materials[scene.bodies[box].material_index])
          .friction;
  // The whole scene (7500 steps, about 0.35 s): the 5 s hold. Creep is
  // the least-squares rate of box z - fingertip z over the hold.
  const GripperRun run = RunGripper({});
  const double grasp = std::abs(run.effort) / 2;  // per finger, mimic
  const double margin = mu * 2 * grasp / (m * g);
  std::printf(
      "[gripper] box z %.5f -> %.5f m (lift %.5f m); slip box - fingertip "
      "%.7f -> %.7f m over the hold: creep %.3f um/s (least squares), max "
      "|slip change| %.3f um; SAP stiction slip R_t |gamma_t| %.3f um/s\n",
      run.box_z0, run.box_z_hold, run.box_z_hold - run.box_z0, run.slip_start,
      run.slip_end, run.creep_rate * 1e6, run.max_slip_dev * 1e6,
      run.regularization_slip * 1e6);
  std::printf(
      "[gripper] finger effort %.4f N -> grasp %.4f N per finger (contact "
      "normal forces: left %.4f N, right %.4f N); mu = %.2f; Coulomb margin "
      "mu 2 F / (m g) = %.3f; Newton iterations mean %.3f max %d; wall %.2f "
      "s\n",
      run.effort, grasp, run.normal_left, run.normal_right, mu, margin,
      run.mean_newton, run.max_newton, run.wall);
  EXPECT_EQ(run.failed, 0);
  // Lifted 10 cm (the lift's PD error with the box is m g / kp = 0.15 mm,
  // the box hangs a little lower in the grasp than it started).
  EXPECT_NEAR(run.box_z_hold - run.box_z0, 0.1, 3e-3);
  // The bound: creep at most 1 um/s.
  EXPECT_LE(std::abs(run.creep_rate), 1e-6);
  // The grasp force is the effort limit, shared by the fingers.
  EXPECT_NEAR(run.normal_left, grasp, 0.05 * grasp);
  EXPECT_NEAR(run.normal_right, grasp, 0.05 * grasp);
  EXPECT_GT(margin, 1.0);
  // The creep is SAP's regularized stiction (R_t = sigma w): the box
  // slides at R_t |gamma_t| (measured 0.292 um/s both ways) ...
  EXPECT_NEAR(run.creep_rate, -run.regularization_slip,
              0.05 * run.regularization_slip);
  // ... and scales with sigma: the default 1e-3 creeps ten times faster
  // (measured 2.92 um/s, beyond the 1 um/s target, hence the scene's
  // 1e-4), still below the point-mass bound sigma g dt = 9.8 um/s (the
  // box's weight is spread over 8 contacts).
  const GripperRun coarse =
      RunGripper({"solver.friction_regularization=1.0e-3"});
  std::printf(
      "[gripper] sigma = 1e-3: creep %.3f um/s, R_t |gamma_t| %.3f um/s; "
      "lift %.5f m\n",
      coarse.creep_rate * 1e6, coarse.regularization_slip * 1e6,
      coarse.box_z_hold - coarse.box_z0);
  EXPECT_EQ(coarse.failed, 0);
  EXPECT_NEAR(coarse.creep_rate / run.creep_rate, 10.0, 1.0);
  EXPECT_LT(std::abs(coarse.creep_rate), 1e-3 * g * scene.time_step);
}

// ---------------------------------------------------------------- arm_push

TEST(RobotSteppingArmPush, SweepPushesTheBoxesAlongTheArc) {
  const Scene scene = LoadShippedScene("arm_push");
  bool finite = true;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        for (const BodyState& b : st.state()) {
          finite =
              finite && b.pose.position.allFinite() && b.velocity.allFinite();
        }
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  EXPECT_TRUE(finite);
  for (const char* name : {"box_a", "box_b", "box_c"}) {
    const int b = scene.FindBody(name);
    const Vector3 p0 = scene.bodies[b].pose.position;
    const Vector3 p1 = s.final_state[b].pose.position;
    // The sweep is counterclockwise (+yaw): the tangent of the arc at the
    // box's starting angle.
    const double angle = std::atan2(p0.y(), p0.x());
    const Vector3 tangent(-std::sin(angle), std::cos(angle), 0);
    const double along = (p1 - p0).dot(tangent);
    std::printf(
        "[arm_push] %s moved (%+.4f, %+.4f, %+.4f) m, %.4f m along the "
        "sweep; final speed %.2e m/s\n",
        name, (p1 - p0).x(), (p1 - p0).y(), (p1 - p0).z(), along,
        s.final_state[b].velocity.norm());
    EXPECT_GT(along, 0.1) << name;
    EXPECT_LT((p1 - p0).norm(), 1.5) << name;
    // Still on the ground (not launched, not sunk), and at rest at the end.
    EXPECT_GT(p1.z(), 0.0) << name;
    EXPECT_LT(p1.z(), 0.12) << name;
    EXPECT_LT(s.final_state[b].velocity.norm(), 0.05) << name;
  }
  std::printf(
      "[arm_push] Newton iterations mean %.2f max %d; max penetration %.2e "
      "m\n",
      s.mean_newton_iterations, s.max_newton_iterations, s.max_penetration_m);
  EXPECT_LT(s.max_penetration_m, 5e-3);
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

// ------------------------------------------- armature and a joint spring

// The pendulum without gravity, its hinge given armature a and a spring k
// about q_ref: a harmonic oscillator about q_ref of period
// 2 pi sqrt((I_pivot + a) / k) (MJCF armature, stiffness, springref).
TEST(RobotSteppingSpring, ArmatureAndSpringSetThePeriod) {
  Scene scene = LoadShippedScene("pendulum");
  scene.gravity.setZero();
  RobotDescription& d = scene.robots[0].description;
  const int bob = d.tree.FindLink("bob");
  const LinkInertia& in = d.tree.link(bob).inertia;
  const double I = in.mass * in.com.squaredNorm() + in.inertia(1, 1);
  const double a = 0.5 * I, k = 40.0 * I, q_ref = -0.1;
  MultibodyTree tree;
  for (int i = 0; i < d.tree.num_links(); ++i) {
    Joint j = d.tree.joint(i);
    if (i == bob) {
      j.armature = a;
      j.stiffness = k;
      j.spring_reference = q_ref;
    }
    tree.AddLink(d.tree.link(i), j);
  }
  d.tree = tree;
  const double expected = 2 * M_PI * std::sqrt((I + a) / k);
  std::vector<double> t, q, e;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        t.push_back(st.time());
        q.push_back(st.robot_states()[0].q(
            st.scene().robots[0].description.tree.position_start(bob)));
        e.push_back(st.KineticEnergy() + st.PotentialEnergy());
      });
  EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
  const double period = MeanPeriod(UpwardZeroCrossings(t, q, q_ref));
  double e_max = 0.0, e_min = 1e300;
  for (double x : e) {
    e_max = std::max(e_max, x);
    e_min = std::min(e_min, x);
  }
  std::printf("[spring] period %.6f s, expected %.6f s; energy band %.3e\n",
              period, expected, (e_max - e_min) / e.front());
  // Symplectic stepping of a linear oscillator: the period is exact to
  // O((omega dt)^2) (omega dt = 0.0052 here; measured 2e-6).
  EXPECT_NEAR(period / expected, 1.0, 1e-4);
  // The armature's kinetic energy and the spring's potential energy are in
  // the totals: their sum oscillates by about omega dt (measured 5.2e-3).
  EXPECT_LT((e_max - e_min) / e.front(), 1e-2);
}

}  // namespace
}  // namespace sapcontact
