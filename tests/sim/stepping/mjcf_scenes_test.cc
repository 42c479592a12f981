// MuJoCo's Gym models (Debian's dart-doc) run as whole scenes (LoadScene of
// the .xml: its time step, gravity and floor) and as robots of a YAML
// scene, and what they must do:
//   humanoid      falls and comes to rest lying on the floor
//   half_cheetah  comes to rest standing on its legs, torso upright
//   ant           comes to rest on its legs; its ankles start outside
//                 their range, and the compliant limit (solreflimit 0.02 s)
//                 brings them in without an impulsive kick
//   a hinge started outside its range leaves the limit at the critically
//   damped spring-damper's peak speed, delta / (tau e).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using scene_tests::Simulate;

// A Gym model from dart-doc, gunzipped into a temporary folder if needed.
std::string GymModel(const std::string& name) {
  const std::string dir = "/usr/share/doc/dart/data/mjcf/openai/";
  if (fs::exists(dir + name + ".xml")) return dir + name + ".xml";
  const fs::path tmp = fs::temp_directory_path() /
                       ("sapcontact_gym_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const std::string out = (tmp / (name + ".xml")).string();
  const std::string cmd =
      "gzip -dc '" + dir + name + ".xml.gz' > '" + out + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return out;
}

struct Rest {
  Eigen::VectorXd q;
  double kinetic_energy{0.0};
  double max_kinetic_energy{0.0};
  int failed_steps{0};
};

Rest RunToRest(const Scene& scene) {
  Rest rest;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        rest.max_kinetic_energy =
            std::max(rest.max_kinetic_energy, st.KineticEnergy());
        rest.q = st.robot_states()[0].q;
        rest.kinetic_energy = st.KineticEnergy();
      });
  rest.failed_steps = s.failed_steps;
  return rest;
}

TEST(MjcfScenes, HumanoidFallsAndLiesOnTheFloor) {
  const Scene scene = LoadScene(GymModel("humanoid"), {"duration=4"});
  EXPECT_EQ(scene.time_step, 0.003);  // the file's <option timestep>
  ASSERT_EQ(scene.robots.size(), 1u);
  EXPECT_FALSE(scene.robots[0].fixed_base);
  EXPECT_TRUE(scene.robots[0].self_collision);  // contype = conaffinity = 1
  ASSERT_EQ(scene.bodies.size(), 1u);           // the floor
  const Rest rest = RunToRest(scene);
  EXPECT_EQ(rest.failed_steps, 0);
  // The torso (0.07 m capsule) lies on the floor: its height is a body
  // radius or two, not the 1.4 m it starts at, and everything is still.
  std::printf("[humanoid] torso z %.3f m, kinetic energy %.2e J\n", rest.q[2],
              rest.kinetic_energy);
  EXPECT_LT(rest.q[2], 0.25);
  EXPECT_GT(rest.q[2], 0.0);
  EXPECT_LT(rest.kinetic_energy, 1e-3);
}

TEST(MjcfScenes, HalfCheetahRestsOnItsLegs) {
  const Scene scene = LoadScene(GymModel("half_cheetah"), {"duration=4"});
  // rootx, rootz, rooty (slide, slide, hinge) hang from a welded link.
  EXPECT_TRUE(scene.robots.at(0).fixed_base);
  const MultibodyTree& tree = scene.robots[0].description.tree;
  const int rootz = tree.position_start(tree.FindJoint("rootz"));
  const int rooty = tree.position_start(tree.FindJoint("rooty"));
  const Rest rest = RunToRest(scene);
  EXPECT_EQ(rest.failed_steps, 0);
  std::printf(
      "[half_cheetah] torso at z %.3f m (rootz %.3f), pitch %.3f "
      "rad, kinetic energy %.2e J\n",
      0.7 + rest.q[rootz], rest.q[rootz], rest.q[rooty], rest.kinetic_energy);
  // Standing: the torso stays well above the floor (legs about 0.5 m),
  // nearly level; at rest.
  EXPECT_GT(0.7 + rest.q[rootz], 0.4);
  EXPECT_LT(std::abs(rest.q[rooty]), 0.3);
  EXPECT_LT(rest.kinetic_energy, 1e-3);
}

TEST(MjcfScenes, AntRestsOnItsLegsAndItsAnklesComeInGently) {
  const Scene scene = LoadScene(GymModel("ant"), {"duration=2"});
  const MultibodyTree& tree = scene.robots.at(0).description.tree;
  const Joint& ankle = tree.joint(tree.FindJoint("ankle_1"));
  EXPECT_NEAR(ankle.lower, 30 * M_PI / 180, 1e-15);
  EXPECT_EQ(ankle.limit_time_constant, 0.02);  // MuJoCo's solreflimit
  const Rest rest = RunToRest(scene);
  EXPECT_EQ(rest.failed_steps, 0);
  // Four ankles of effective inertia I ~ 1 (armature) start 0.52 rad out
  // of range: a critically damped return peaks at 0.52 / (0.02 e) = 9.6
  // rad/s, 4 x I v^2 / 2 ~ 190 J; a near-rigid limit would throw them at
  // 0.52 / dt = 260 rad/s (about 1e5 J).
  std::printf(
      "[ant] torso z %.3f m, peak kinetic energy %.1f J, final "
      "%.2e J\n",
      rest.q[2], rest.max_kinetic_energy, rest.kinetic_energy);
  EXPECT_LT(rest.max_kinetic_energy, 400.0);
  EXPECT_GT(rest.q[2], 0.4);
  EXPECT_LT(rest.q[2], 0.8);
  EXPECT_LT(rest.kinetic_energy, 1e-3);
  for (int leg = 1; leg <= 4; ++leg) {
    const int k = tree.FindJoint("ankle_" + std::to_string(leg));
    const Joint& j = tree.joint(k);
    const double q = rest.q[tree.position_start(k)];
    EXPECT_GT(q, j.lower - 0.02) << j.name;
    EXPECT_LT(q, j.upper + 0.02) << j.name;
  }
}

TEST(MjcfScenes, AHingeLeavesItsCompliantLimitAtTheCriticallyDampedPeak) {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_limit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "hinge.xml").string();
  // A 1 kg point-like ball on a massless 1 m rod about y, no gravity,
  // starting 0.5 rad below its range [0.5, 1.5] rad.
  std::ofstream(path) << R"(<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.0005" gravity="0 0 0"/>
  <worldbody>
    <body name="arm">
      <joint name="hinge" axis="0 1 0" range="0.5 1.5" solreflimit="0.05 1"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/>
    </body>
  </worldbody>
</mujoco>)";
  const Scene scene = LoadScene(path, {"duration=0.4"});
  double v_exit = 0.0;
  Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
    const double q = st.robot_states()[0].q[0];
    if (q < 0.5 && v_exit == 0.0) return;
    if (v_exit == 0.0) v_exit = st.robot_states()[0].v[0];
  });
  // x(t) = -delta (1 + w t) e^(-w t): the push k (-g - 2 tau g') ends at
  // the speed's peak, delta w / e, and the joint coasts on at that speed.
  const double expected = 0.5 / (0.05 * std::exp(1.0));
  std::printf("[limit] exit speed %.4f rad/s, expected %.4f rad/s\n", v_exit,
              expected);
  EXPECT_NEAR(v_exit / expected, 1.0, 0.03);
}

TEST(MjcfScenes, MotorsTurnTheirJointsByGearTimesTheClampedControl) {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_motor_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "motor.xml").string();
  // Two 1 kg balls on 1 m rods about y (I = 1 kg m^2 each, plus a tiny
  // sphere's own 4e-7), no gravity: a motor with gear 2 and control range
  // [-1, 1], one with gear 3 and force range [-0.5, 0.5].
  std::ofstream(path) << R"(<mujoco>
  <option timestep="0.001" gravity="0 0 0"/>
  <default><motor ctrlrange="-1 1"/></default>
  <worldbody>
    <body name="a"><joint name="ja" axis="0 1 0"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/></body>
    <body name="b" pos="0 5 0"><joint name="jb" axis="0 1 0"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/></body>
  </worldbody>
  <actuator>
    <motor name="ma" joint="ja" gear="2"/>
    <motor name="mb" joint="jb" gear="3" ctrllimited="false"
           forcerange="-0.5 0.5"/>
  </actuator>
</mujoco>)";
  const Scene scene = LoadScene(path, {"duration=0.1"});
  TimeStepper stepper(scene);
  EXPECT_EQ(stepper.ActuatorNames(0), std::vector<std::string>{"ma"});
  EXPECT_EQ(stepper.ActuatorNames(1), std::vector<std::string>{"mb"});
  EXPECT_THROW(stepper.SetControls(0, Eigen::VectorXd::Zero(2)),
               std::invalid_argument);
  EXPECT_THROW(stepper.SetControls(0, Eigen::VectorXd::Constant(1, NAN)),
               std::invalid_argument);
  stepper.SetControls(0, Eigen::VectorXd::Constant(1, 5.0));  // -> 1
  stepper.SetControls(1, Eigen::VectorXd::Constant(1, 5.0));  // -> 0.5
  EXPECT_EQ(stepper.Controls(0)[0], 5.0);
  const int n = 100;
  for (int k = 0; k < n; ++k) stepper.Step();
  const double I = 1.0 + 0.4 * 1e-6;
  // Constant torque on a constant inertia: v = n dt tau / I exactly.
  EXPECT_NEAR(stepper.robot_states()[0].v[0], n * 1e-3 * 2.0 * 1.0 / I, 1e-12);
  EXPECT_NEAR(stepper.robot_states()[1].v[0], n * 1e-3 * 3.0 * 0.5 / I, 1e-12);
  // The motors' torques are the joints' efforts (joints.csv, robot_state).
  EXPECT_EQ(stepper.JointEfforts(0)[0], 2.0);
  EXPECT_EQ(stepper.JointEfforts(1)[0], 1.5);
}

// <position> and <velocity> servos (and <general> actuators that are
// servos) drive their joints through the implicit PD: a velocity servo of
// gain kv and gear g on inertia I takes v_(n+1) = (I v_n + dt kd u/g) /
// (I + dt kd), kd = kv g^2, and a position servo settles at u / g.
TEST(MjcfScenes, ServosDriveTheirJointsThroughTheImplicitPd) {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_servo_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "servo.xml").string();
  std::ofstream(path) << R"(<mujoco>
  <option timestep="0.001" gravity="0 0 0"/>
  <worldbody>
    <body name="a"><joint name="ja" axis="0 1 0"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/></body>
    <body name="b" pos="0 5 0"><joint name="jb" axis="0 1 0"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/></body>
    <body name="c" pos="0 10 0"><joint name="jc" axis="0 1 0"/>
      <geom type="sphere" size="0.001" mass="1" pos="1 0 0"/></body>
  </worldbody>
  <actuator>
    <velocity name="va" joint="ja" kv="20" gear="2"/>
    <position name="pb" joint="jb" kp="50" kv="5" gear="2"
              ctrlrange="-1 0.6"/>
    <general name="gc" joint="jc" gainprm="30" biastype="affine"
             biasprm="0 -30 -10"/>
  </actuator>
</mujoco>)";
  const Scene scene = LoadScene(path, {"duration=1"});
  ASSERT_EQ(scene.robots[2].description.actuators.size(), 1u);
  const RobotActuator& gc = scene.robots[2].description.actuators[0];
  EXPECT_EQ(gc.kind, ActuatorKind::kPosition);
  EXPECT_EQ(gc.kp, 30.0);
  EXPECT_EQ(gc.kv, 10.0);
  ASSERT_EQ(scene.robots[0].actuation.size(), 1u);
  EXPECT_EQ(scene.robots[0].actuation[0].kd, 20.0 * 4);
  EXPECT_EQ(scene.robots[1].actuation[0].kp, 50.0 * 4);
  TimeStepper stepper(scene);
  stepper.SetControls(0, Eigen::VectorXd::Constant(1, 3.0));  // v -> 1.5
  stepper.SetControls(1, Eigen::VectorXd::Constant(1, 2.0));  // 0.6 -> 0.3
  stepper.SetControls(2, Eigen::VectorXd::Constant(1, -0.2));
  const double I = 1.0 + 0.4 * 1e-6, dt = 1e-3, kd = 80.0;
  double v = 0.0;
  for (int k = 0; k < 20; ++k) {
    stepper.Step();
    v = (I * v + dt * kd * 1.5) / (I + dt * kd);
  }
  EXPECT_NEAR(stepper.robot_states()[0].v[0], v, 1e-9);
  // Damped (damping ratios 0.7 and 0.9) for 3 s: at rest on their targets,
  // to the solver's tolerance.
  for (int k = 0; k < 3000; ++k) stepper.Step();
  EXPECT_NEAR(stepper.robot_states()[0].v[0], 1.5, 1e-4);
  EXPECT_NEAR(stepper.robot_states()[1].q[0], 0.3, 1e-4);
  EXPECT_NEAR(stepper.robot_states()[2].q[0], -0.2, 1e-4);
  // SetActuationTarget overrides the servo's control.
  stepper.SetActuationTarget(1, "jb", -0.1);
  for (int k = 0; k < 3000; ++k) stepper.Step();
  EXPECT_NEAR(stepper.robot_states()[1].q[0], -0.1, 1e-4);
}

// The Fetch pick-and-place model of Gym's robotics set (its includes
// gunzipped beside it): a mocap body and a weld (warned), position servos
// on the fingers, contact excludes. It runs, and the fingers open to their
// control.
TEST(MjcfScenes, FetchPickAndPlaceRunsAndItsFingersFollowTheirServos) {
  const std::string src = "/usr/share/doc/dart/data/mjcf/openai/robotics";
  if (!fs::exists(src)) GTEST_SKIP() << src;
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_fetch_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd =
      "cp -r '" + src + "/.' '" + dir.string() + "' && chmod -R u+w '" +
      dir.string() + "' && gzip -df '" + dir.string() +
      "/fetch/robot.xml.gz' '" + dir.string() + "/fetch/shared.xml.gz'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const Scene scene =
      LoadScene((dir / "fetch/pick_and_place.xml").string(), {"duration=0.5"});
  // The weld of the gripper to the (static) mocap body is applied, its
  // solref warned.
  bool weld_warned = false;
  for (const std::string& w : scene.warnings) {
    weld_warned |=
        w.find("shared.xml:39: <weld>: solref and solimp") != std::string::npos;
  }
  EXPECT_TRUE(weld_warned);
  int fetch = -1;
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    if (scene.robots[r].description.actuators.size() == 2) fetch = r;
  }
  ASSERT_GE(fetch, 0);
  TimeStepper stepper(scene);
  const RobotSpec& robot = scene.robots[fetch];
  EXPECT_EQ(robot.description.actuators[0].kind, ActuatorKind::kPosition);
  // <contact><exclude>: the two fingers never collide with each other.
  const int l = robot.description.tree.FindLink("robot0:l_gripper_finger_link");
  const int r = robot.description.tree.FindLink("robot0:r_gripper_finger_link");
  bool excluded = false;
  for (const auto& [a, b] : robot.collision_filter_pairs) {
    excluded |= (a == r && b == l) || (a == l && b == r);
  }
  EXPECT_TRUE(excluded);
  ASSERT_EQ(robot.description.welds.size(), 1u);
  const Eigen::Isometry3d X_WG0 =
      stepper.LinkPose(fetch, "robot0:gripper_link");
  stepper.SetControls(fetch, Eigen::Vector2d(0.03, 0.03));
  int failed = 0;
  for (int k = 0; k < 250; ++k) failed += stepper.Step().failed;
  EXPECT_EQ(failed, 0);
  // The weld holds the gripper where it started (relpose by default: the
  // pose at qpos0) while gravity pulls the unactuated arm: within 1 mm and
  // 1 mrad after 0.5 s (the arm would fall without it).
  const Eigen::Isometry3d X_WG = stepper.LinkPose(fetch, "robot0:gripper_link");
  std::printf(
      "[fetch] gripper moved %.3e m, turned %.3e rad\n",
      (X_WG.translation() - X_WG0.translation()).norm(),
      Eigen::AngleAxisd(X_WG.linear() * X_WG0.linear().transpose()).angle());
  EXPECT_LT((X_WG.translation() - X_WG0.translation()).norm(), 1e-3);
  EXPECT_LT(
      Eigen::AngleAxisd(X_WG.linear() * X_WG0.linear().transpose()).angle(),
      1e-3);
  const MultibodyTree& tree = robot.description.tree;
  for (const char* finger :
       {"robot0:l_gripper_finger_joint", "robot0:r_gripper_finger_joint"}) {
    const int j = tree.FindJoint(finger);
    ASSERT_GE(j, 0) << finger;
    EXPECT_NEAR(stepper.robot_states()[fetch].q[tree.position_start(j)], 0.03,
                1e-3)
        << finger;
  }
  // The other Fetch tasks run; the two include fragments are refused
  // naming their lines.
  for (const char* task : {"push", "reach", "slide"}) {
    SCOPED_TRACE(task);
    const Scene s =
        LoadScene((dir / "fetch" / (std::string(task) + ".xml")).string(),
                  {"duration=0.3"});
    const SimulationSummary summary = Simulate(s);
    EXPECT_EQ(summary.failed_steps, 0) << summary.first_failure;
  }
  const auto refusal = [&](const char* file) {
    try {
      LoadScene((dir / "fetch" / file).string());
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  EXPECT_NE(refusal("robot.xml")
                .find("robot.xml:2: <body "
                      "name='robot0:mocap'>: <body> is not a "
                      "section of <mujoco>"),
            std::string::npos)
      << refusal("robot.xml");
  EXPECT_NE(refusal("shared.xml")
                .find("shared.xml:43: <exclude>: no body "
                      "named 'robot0:r_gripper_finger_link'"),
            std::string::npos)
      << refusal("shared.xml");
}

TEST(MjcfScenes, RobotsOfAYamlSceneAndTheirErrors) {
  const std::string reacher = GymModel("reacher");
  const std::string hopper = GymModel("hopper");
  const auto load = [](const std::string& yaml) {
    return LoadSceneFromString("time_step: 0.002\nduration: 0.1\n" + yaml,
                               "scene.yaml");
  };
  // The hopper placed 2 m along x by its base; the file's frictions.
  const Scene s = load("robots:\n  - name: hop\n    mjcf: " + hopper +
                       "\n    base: {position: [2, 0, 0]}\n");
  const RobotSpec& r = s.robots.at(0);
  EXPECT_EQ(r.mjcf_body, "torso");
  EXPECT_TRUE(r.fixed_base);
  EXPECT_EQ(r.description.tree.joint(0).origin.translation().x(), 2.0);
  // As in MuJoCo: torso and leg may touch (contype = conaffinity = 1), a
  // body and its parent never (torso-thigh, thigh-leg, leg-foot).
  EXPECT_TRUE(r.self_collision);
  EXPECT_EQ(r.collision_filter_pairs.size(), 3u);
  const auto error = [&](const std::string& yaml) {
    try {
      load(yaml);
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error("robots:\n  - name: r\n    mjcf: " + reacher + "\n")
                .find("the MJCF file has 2 robots (body0, target): choose "
                      "one with mjcf_body"),
            std::string::npos);
  EXPECT_NE(error("robots:\n  - name: r\n    mjcf: " + reacher +
                  "\n    mjcf_body: body1\n")
                .find("no moving top-level body 'body1' (its robots: body0"),
            std::string::npos);
  EXPECT_NE(error("robots:\n  - name: r\n    mjcf: " + hopper +
                  "\n    base: {fixed: false}\n")
                .find("robots.r.base.fixed: the MJCF robot's root is welded "
                      "to the world: base.fixed must be true"),
            std::string::npos);
  EXPECT_NE(error("robots:\n  - name: r\n    mjcf: " + hopper +
                  "\n    urdf: x.urdf\n")
                .find("robots.r.mjcf: a robot is loaded from one file: 'urdf' "
                      "or 'mjcf', not both"),
            std::string::npos);
  EXPECT_NE(error("robots:\n  - name: r\n    mjcf: " + hopper +
                  "\n    geometry_materials: {torso/torso_gem: default}\n")
                .find("has no collision geometry 'torso/torso_gem' (nearest: "
                      "torso/torso_geom"),
            std::string::npos);
  // A broken MJCF file names its own line.
  const std::string bad = GymModel("walker2d");
  EXPECT_NE(error("robots:\n  - name: w\n    mjcf: " + bad + "\n")
                .find("walker2d.xml:23: <body name='foot'>: pos=\"0.2/2 0 "
                      "0.1\" is not 3 finite numbers"),
            std::string::npos);
  try {
    LoadScene(bad);
    ADD_FAILURE() << "loaded";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("walker2d.xml:23:"), std::string::npos)
        << e.what();
  }
}

TEST(MjcfScenes, EveryGymModelRunsOrIsRefusedNamingItsLine) {
  // dart-doc's data/mjcf/openai, each for 0.3 s (the Fetch robot under
  // robotics/ is not among them).
  for (const char* name :
       {"ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup",
        "inverted_double_pendulum", "inverted_pendulum", "point", "pusher",
        "reacher", "striker", "swimmer", "thrower", "walker2d"}) {
    SCOPED_TRACE(name);
    Scene scene;
    try {
      scene = LoadScene(GymModel(name), {"duration=0.3"});
    } catch (const SceneError& e) {
      // walker2d writes pos="0.2/2 0 0.1", which MuJoCo refuses too.
      EXPECT_EQ(std::string(name), "walker2d") << e.what();
      EXPECT_NE(std::string(e.what()).find("walker2d.xml:23: <body "
                                           "name='foot'>"),
                std::string::npos);
      continue;
    }
    const SimulationSummary s = Simulate(scene);
    EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
    EXPECT_GT(s.steps, 0);
  }
}

TEST(MjcfScenes, StaticGeomsMujocoWouldNotLetTouchAreLeftOut) {
  // The cartpole's rail and floor (contype 0, conaffinity 1) can touch none
  // of its geoms (contype 0 too): the cart slides through the rail.
  const Scene s = LoadScene(GymModel("inverted_double_pendulum"));
  EXPECT_TRUE(s.bodies.empty());
  TimeStepper stepper(s);
  stepper.SetControls(0, Eigen::VectorXd::Constant(1, 1.0));
  for (int k = 0; k < 10; ++k) stepper.Step();
  EXPECT_EQ(stepper.last_contacts().size(), 0u);
  // 500 N on the cart (gear 500): it moves 1 dt^2 n (n + 1) / 2 a along x.
  EXPECT_GT(stepper.robot_states()[0].q[0], 0.01);
}

// A file in the per-process temporary folder.
std::string WriteModel(const std::string& name, const std::string& xml) {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_rows_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << xml;
  return path;
}

TEST(MjcfScenes, ConnectWeldAndTendonRangesHoldTheirRobots) {
  // Three horizontal pendulums under gravity (hinges about y, rods 0.5 m
  // along x): the first's tip is connected to a static body, the second is
  // welded to the world frame it starts in, the third is a chain of two
  // hinges whose fixed tendon q2 - q1 stays within +-0.05 rad. A free
  // pendulum would swing down by 1.5 rad in 0.5 s, a free elbow fold.
  const std::string file = WriteModel("rows.xml", R"(<mujoco model="rows">
  <option timestep="0.002"/>
  <worldbody>
    <body name="anchor" pos="0.5 0 1"/>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
    </body>
    <body name="b" pos="0 1 1">
      <joint name="jb" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
    </body>
    <body name="c1" pos="0 2 1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
      <body name="c2" pos="0.5 0 0">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
      </body>
    </body>
  </worldbody>
  <equality>
    <connect body1="anchor" body2="a" anchor="0 0 0"/>
    <weld body1="b"/>
  </equality>
  <tendon>
    <fixed name="elbow" range="-0.05 0.05">
      <joint joint="j2" coef="1"/><joint joint="j1" coef="-1"/>
    </fixed>
  </tendon>
</mujoco>
)");
  const Scene s = LoadScene(file, {"duration=0.5"});
  ASSERT_EQ(s.robots.size(), 3u);
  EXPECT_EQ(s.robots[0].description.welds.size(), 1u);
  EXPECT_FALSE(s.robots[0].description.welds[0].orientation);
  EXPECT_TRUE(s.robots[1].description.welds[0].orientation);
  ASSERT_EQ(s.robots[2].description.tendon_limits.size(), 1u);
  double max_a = 0, max_b = 0, max_elbow = 0, max_fold = 0;
  const SimulationSummary sum =
      Simulate(s, [&](const TimeStepper& st, const StepInfo&) {
        max_a = std::max(max_a, std::abs(st.robot_states()[0].q[0]));
        max_b = std::max(max_b, std::abs(st.robot_states()[1].q[0]));
        const Eigen::VectorXd& q = st.robot_states()[2].q;
        max_elbow = std::max(max_elbow, std::abs(q[1] - q[0]));
        max_fold = std::max(max_fold, std::abs(q[0]));
      });
  EXPECT_EQ(sum.failed_steps, 0) << sum.first_failure;
  std::printf(
      "[rows] connect %.2e rad, weld %.2e rad, tendon %.4f rad "
      "(chain swung %.2f rad)\n",
      max_a, max_b, max_elbow, max_fold);
  EXPECT_LT(max_a, 1e-3);
  EXPECT_LT(max_b, 1e-3);
  EXPECT_LT(max_elbow, 0.05 + 2e-3);
  EXPECT_GT(max_fold, 0.5);  // the chain itself falls
}

TEST(MjcfScenes, FrictionLossHoldsAJointOrLetsItSlideAgainstIt) {
  // Two horizontal 0.5 m pendulums of 1 kg (hinges about y): gravity's
  // torque m g l = 4.905 N m. frictionloss 6 holds the first; 2 lets the
  // second start as (I) q'' = 4.905 - 2, I = m l^2 + 2/5 m r^2.
  const std::string file = WriteModel("friction.xml", R"(<mujoco>
  <option timestep="0.0005"/>
  <worldbody>
    <body name="held" pos="0 0 1">
      <joint type="hinge" axis="0 1 0" frictionloss="6"/>
      <geom type="sphere" pos="0.5 0 0" size="0.01" mass="1"/>
    </body>
    <body name="slides" pos="0 1 1">
      <joint type="hinge" axis="0 1 0" frictionloss="2"/>
      <geom type="sphere" pos="0.5 0 0" size="0.01" mass="1"/>
    </body>
  </worldbody>
</mujoco>
)");
  const Scene s = LoadScene(file, {"duration=0.1"});
  const SimulationSummary sum = Simulate(s);
  EXPECT_EQ(sum.failed_steps, 0) << sum.first_failure;
  const double I = 0.25 + 0.4 * 1e-4, t = 0.1;
  const double expected = 0.5 * (9.81 * 0.5 - 2.0) / I * t * t;
  const double held = sum.final_robot_state.at(0).q[0];
  const double slid = sum.final_robot_state.at(1).q[0];
  std::printf(
      "[frictionloss] held %.2e rad, slid %.6f rad (closed form "
      "%.6f)\n",
      held, slid, expected);
  EXPECT_LT(std::abs(held), 1e-6);
  EXPECT_NEAR(std::abs(slid), expected, 0.01 * expected);
}

TEST(MjcfScenes, PairsTakeMujocosLargerFrictionAndCondim) {
  // The hopper: foot friction 2, its other geoms 0.9 (the default class,
  // condim 1, solref (0.02, 1)), its floor 1 (condim 3). MuJoCo's pair
  // takes the larger friction and the larger condim: foot-floor 2,
  // leg-floor 1, two of its own condim-1 geoms frictionless.
  const Scene s = LoadScene(GymModel("hopper"));
  const RobotSpec& r = s.robots.at(0);
  ASSERT_EQ(s.bodies.size(), 1u);
  EXPECT_EQ(s.bodies[0].name, "floor");
  const int floor = s.bodies[0].material_index;
  const auto material = [&](const std::string& geometry) {
    for (size_t g = 0; g < r.description.geometries.size(); ++g) {
      if (r.description.geometries[g].name != geometry) continue;
      const int m =
          r.geometry_material_index.empty() ? -1 : r.geometry_material_index[g];
      return m < 0 ? r.material_index : m;
    }
    ADD_FAILURE() << "no geometry " << geometry;
    return 0;
  };
  const int foot = material("foot/foot_geom");
  const int thigh = material("thigh/thigh_geom");
  EXPECT_EQ(s.MaterialPairParameters(foot, floor).friction, 2.0);
  EXPECT_EQ(s.MaterialPairParameters(thigh, floor).friction, 1.0);
  EXPECT_EQ(s.MaterialPairParameters(foot, thigh).friction, 0.0);
  EXPECT_EQ(s.MaterialPairParameters(thigh, thigh).friction, 0.0);
  // solref (0.02, 1) on the hopper's mass: k = M / 0.02^2, tau_d = 0.04 s.
  const double M = r.description.tree.TotalMass();
  const ContactParameters p = s.MaterialPairParameters(thigh, floor);
  EXPECT_NEAR(p.stiffness, M / (0.02 * 0.02), 1e-9 * p.stiffness);
  EXPECT_NEAR(p.dissipation_time_scale, 0.04, 1e-15);
  EXPECT_EQ(p.model, ContactModel::kSap);
}

// A file of two free spheres on a plane, each with its own solref.
std::string TwoSpheresOnAPlane(const std::string& solref_a,
                               const std::string& solref_b) {
  return WriteModel("spheres.xml", R"(<mujoco model="spheres">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" solmix="0"/>
    <body name="a" pos="0 0 0.1">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="2" solref=")" +
                                       solref_a + R"("/>
    </body>
    <body name="b" pos="1 0 0.1">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="5" solref=")" +
                                       solref_b + R"("/>
    </body>
  </worldbody>
</mujoco>
)");
}

TEST(MjcfScenes, SolrefIsASpringDamperPerUnitMass) {
  // solref (tc, dampratio): k = m / (tc dampratio)^2 and tau_d = 2 tc
  // dampratio^2, so a sphere of any mass rests g (tc dampratio)^2 deep;
  // the direct form (-k, -b) gives k / m and b / m themselves. The floor's
  // solmix 0 leaves each pair the sphere's law.
  const std::string file = TwoSpheresOnAPlane("0.03 0.8", "-2000 -100");
  const Scene s = LoadScene(file, {"duration=3"});
  ASSERT_EQ(s.robots.size(), 2u);
  const double g = 9.81;
  const double deep_a = g * std::pow(0.03 * 0.8, 2), deep_b = g / 2000.0;
  for (int r = 0; r < 2; ++r) {
    const ContactParameters p = s.MaterialPairParameters(
        s.robots[r].material_index, s.bodies.at(0).material_index);
    const double m = r == 0 ? 2.0 : 5.0;
    EXPECT_NEAR(p.stiffness, r == 0 ? m / std::pow(0.03 * 0.8, 2) : m * 2000.0,
                1e-9 * p.stiffness);
    EXPECT_NEAR(p.dissipation_time_scale,
                r == 0 ? 2 * 0.03 * 0.8 * 0.8 : 100.0 / 2000.0, 1e-15);
  }
  Eigen::VectorXd za(1), zb(1);
  int failed = 0;
  const SimulationSummary sum =
      Simulate(s, [&](const TimeStepper& st, const StepInfo&) {
        za[0] = st.robot_states()[0].q[2];
        zb[0] = st.robot_states()[1].q[2];
      });
  failed = sum.failed_steps;
  EXPECT_EQ(failed, 0);
  std::printf(
      "[solref] sphere a %.6f m deep (g (tc z)^2 = %.6f), b %.6f "
      "(g / k = %.6f)\n",
      0.1 - za[0], deep_a, 0.1 - zb[0], deep_b);
  EXPECT_NEAR(0.1 - za[0], deep_a, 0.01 * deep_a);
  EXPECT_NEAR(0.1 - zb[0], deep_b, 0.01 * deep_b);
}

TEST(MjcfScenes, ATimeConstantUnderTwoStepsIsRaisedToTwoSteps) {
  // MuJoCo's refsafe: timeconst = max(timeconst, 2 timestep).
  const Scene s = LoadScene(TwoSpheresOnAPlane("0.001 1", "0.02 1"));
  const ContactParameters p = s.MaterialPairParameters(
      s.robots.at(0).material_index, s.bodies.at(0).material_index);
  EXPECT_NEAR(p.stiffness, 2.0 / (0.004 * 0.004), 1e-9 * p.stiffness);
  // Two robots meet with their reduced mass and the mean of their laws
  // (solmix 1 each).
  const ContactParameters ab = s.MaterialPairParameters(
      s.robots.at(0).material_index, s.robots.at(1).material_index);
  const double k = 0.5 / (0.004 * 0.004) + 0.5 / (0.02 * 0.02);
  EXPECT_NEAR(ab.stiffness, 2.0 * 5.0 / 7.0 * k, 1e-9 * ab.stiffness);
}

}  // namespace
}  // namespace sapcontact
