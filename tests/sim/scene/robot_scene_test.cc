// Robots in scenes (YAML `robots:`): URDF loading with the base pose,
// initial joint states, actuation with the URDF's effort limits, the
// errors (file, line, field, and the robot's joints), and overrides of
// robot keys.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/common/constants.h"
#include "tests/sim/scene/robot_test_util.h"

namespace sapcontact {
namespace {

using testing_util::WriteTempScene;
using testing_util::WriteUrdfFixtures;

using test_constants::kInf;

const char* kArmScene = R"(time_step: 0.001
duration: 1
materials:
  steel: {friction: 0.3}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
robots:
  - name: arm
    urdf: arm.urdf
    base: {position: [1, 2, 0.5], rpy: [0, 0, 0.5]}
    joints:
      shoulder: {position: 0.3, velocity: -0.1}
      slider: {position: 0.15}
    actuation:
      shoulder: {kp: 100.0, kd: 10.0, target: 0.5}
      elbow:
        kp: 20
        target: {times: [0, 1, 2], values: [0, 1, 1]}
        feedforward: 1.5
      slider: {kd: 5, target: {sine: {amplitude: 0.05, frequency: 2, offset: 0.1}}, effort_limit: 30}
    material: steel
    self_collision: true
)";

Scene LoadArm(const std::string& text,
              const std::vector<std::string>& overrides = {},
              const std::string& file = "arm_scene.yaml") {
  WriteUrdfFixtures();
  return LoadScene(WriteTempScene(file, text), overrides);
}

TEST(RobotScene, LoadsTheUrdfWithTheBase) {
  const std::string dir = WriteUrdfFixtures();
  const Scene s = LoadArm(kArmScene);
  ASSERT_EQ(s.robots.size(), 1u);
  EXPECT_EQ(s.FindRobot("arm"), 0);
  EXPECT_EQ(s.FindRobot("ground"), -1);
  const RobotSpec& r = s.robots[0];
  EXPECT_EQ(r.name, "arm");
  EXPECT_EQ(r.urdf, "arm.urdf");
  EXPECT_EQ(r.urdf_path, dir + "arm.urdf");  // relative to the scene's folder
  EXPECT_EQ(r.description.name, "test_arm");
  EXPECT_TRUE(r.fixed_base);
  EXPECT_EQ(r.base_pose.position, Vector3(1, 2, 0.5));
  EXPECT_TRUE(r.base_pose.orientation.isApprox(
      Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Vector3::UnitZ()))));
  // The root link is welded to the world at the base pose.
  const MultibodyTree& tree = r.description.tree;
  EXPECT_EQ(tree.num_links(), 7);
  EXPECT_EQ(tree.joint(0).type, JointType::kFixed);
  EXPECT_TRUE(tree.joint(0).origin.translation().isApprox(Vector3(1, 2, 0.5)));
  EXPECT_TRUE(tree.joint(0).origin.linear().isApprox(
      r.base_pose.orientation.toRotationMatrix()));
  EXPECT_EQ(r.material, "steel");
  EXPECT_EQ(r.material_index, s.FindMaterial("steel"));
  EXPECT_TRUE(r.self_collision);
  EXPECT_TRUE(r.joint_limits);
  EXPECT_FALSE(r.skip_unsupported);
  EXPECT_FALSE(r.cylinders_as_capsules);
  EXPECT_NO_THROW(ValidateScene(s));
}

TEST(RobotScene, InitialStatesByTreeJointIndex) {
  const Scene s = LoadArm(kArmScene);
  const RobotSpec& r = s.robots[0];
  const MultibodyTree& tree = r.description.tree;
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[0].joint, tree.FindJoint("shoulder"));
  EXPECT_EQ(r.joints[0].position, 0.3);
  EXPECT_EQ(r.joints[0].velocity, -0.1);
  EXPECT_EQ(r.joints[1].joint, tree.FindJoint("slider"));
  EXPECT_EQ(r.joints[1].position, 0.15);
  EXPECT_EQ(r.joints[1].velocity, 0.0);
  // The state vectors: unlisted joints 0, the mimic follower from its
  // leader (0.5 q + 0.1).
  const Eigen::VectorXd q = RobotInitialPositions(r);
  const Eigen::VectorXd v = RobotInitialVelocities(r);
  ASSERT_EQ(q.size(), tree.num_positions());
  ASSERT_EQ(v.size(), tree.num_velocities());
  auto qi = [&](const char* joint) {
    return tree.position_start(tree.FindJoint(joint));
  };
  EXPECT_EQ(q[qi("shoulder")], 0.3);
  EXPECT_EQ(q[qi("elbow")], 0.0);
  EXPECT_EQ(q[qi("slider")], 0.15);
  EXPECT_NEAR(q[qi("finger_joint")], 0.25, 1e-15);
  EXPECT_EQ(v[qi("shoulder")], -0.1);
  EXPECT_NEAR(v[qi("finger_joint")], -0.05, 1e-15);
}

TEST(RobotScene, ActuationWithUrdfEffortLimits) {
  const Scene s = LoadArm(kArmScene);
  const RobotSpec& r = s.robots[0];
  const MultibodyTree& tree = r.description.tree;
  ASSERT_EQ(r.actuation.size(), 3u);
  const JointActuation& shoulder = r.actuation[0];
  EXPECT_EQ(shoulder.joint, tree.FindJoint("shoulder"));
  EXPECT_EQ(shoulder.kp, 100.0);
  EXPECT_EQ(shoulder.kd, 10.0);
  EXPECT_EQ(shoulder.target.ScalarValue(0.3), 0.5);
  EXPECT_TRUE(shoulder.target_velocity.is_constant());
  EXPECT_EQ(shoulder.target_velocity.ScalarValue(0.3), 0.0);
  EXPECT_EQ(shoulder.feedforward.ScalarValue(0.3), 0.0);
  EXPECT_EQ(shoulder.effort_limit, 40.0);  // the URDF's
  const JointActuation& elbow = r.actuation[1];
  EXPECT_EQ(elbow.joint, tree.FindJoint("elbow"));
  EXPECT_EQ(elbow.kp, 20.0);
  EXPECT_EQ(elbow.kd, 0.0);
  EXPECT_DOUBLE_EQ(elbow.target.ScalarValue(0.5), 0.5);
  // No target_velocity: the target's derivative.
  EXPECT_DOUBLE_EQ(elbow.target_velocity.ScalarValue(0.5), 1.0);
  EXPECT_DOUBLE_EQ(elbow.target_velocity.ScalarValue(1.5), 0.0);
  EXPECT_EQ(elbow.feedforward.ScalarValue(9.0), 1.5);
  EXPECT_EQ(elbow.effort_limit, kInf);  // the URDF gives none
  const JointActuation& slider = r.actuation[2];
  EXPECT_EQ(slider.kp, 0.0);
  EXPECT_EQ(slider.kd, 5.0);
  EXPECT_EQ(slider.effort_limit, 30.0);
  const double w = 4.0 * 3.14159265358979323846;
  EXPECT_NEAR(slider.target_velocity.ScalarValue(0.1),
              0.05 * w * std::cos(w * 0.1), 1e-13);
}

TEST(RobotScene, FloatingBase) {
  const Scene s = LoadArm(R"(time_step: 0.001
duration: 1
robots:
  - name: arm
    urdf: arm.urdf
    base:
      position: [0, 0, 1]
      quaternion: [0, 0, 0, 2]
      fixed: false
      velocity: [1, 0, 0]
      angular_velocity: [0, 0, 3]
)");
  EXPECT_TRUE(s.bodies.empty());  // a scene of robots needs no bodies
  const RobotSpec& r = s.robots[0];
  EXPECT_FALSE(r.fixed_base);
  EXPECT_EQ(r.description.tree.joint(0).type, JointType::kFloating);
  EXPECT_TRUE(r.base_pose.orientation.isApprox(Eigen::Quaterniond(0, 0, 0, 1)));
  const Eigen::VectorXd q = RobotInitialPositions(r);
  EXPECT_EQ(q.head<3>(), Vector3(0, 0, 1));
  EXPECT_NEAR(std::abs(q[6]), 1.0, 1e-15);  // qz of a half turn about z
  const Eigen::VectorXd v = RobotInitialVelocities(r);
  EXPECT_EQ(v.head<6>(), (Eigen::VectorXd(6) << 1, 0, 0, 0, 0, 3).finished());
  EXPECT_NO_THROW(ValidateScene(s));
}

TEST(RobotScene, AbsoluteUrdfPathAndFromString) {
  const std::string dir = WriteUrdfFixtures();
  const Scene s = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\nrobots:\n  - {name: a, urdf: " + dir +
          "arm.urdf}\n",
      "inline.yaml");
  EXPECT_EQ(s.robots[0].urdf_path, dir + "arm.urdf");
  EXPECT_TRUE(s.robots[0].joints.empty());
  EXPECT_TRUE(s.robots[0].actuation.empty());
}

TEST(RobotScene, UrdfOptionsReachTheLoader) {
  const char* text = R"(time_step: 0.001
duration: 1
robots:
  - {name: post, urdf: post.urdf, %s}
)";
  auto scene = [&](const char* options) {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer), text, options);
    return std::string(buffer);
  };
  const Scene capsules = LoadArm(scene("cylinders_as_capsules: true"));
  ASSERT_EQ(capsules.robots[0].description.geometries.size(), 1u);
  EXPECT_EQ(capsules.robots[0].description.geometries[0].shape.type,
            ShapeType::kCapsule);
  // The loader's approximation reaches the scene's warnings.
  ASSERT_EQ(capsules.warnings.size(), 1u);
  EXPECT_EQ(capsules.warnings[0].rfind("robots.post: ", 0), 0u)
      << capsules.warnings[0];
  EXPECT_NE(capsules.warnings[0].find("loaded as a capsule"),
            std::string::npos);
  const Scene cylinders = LoadArm(scene("skip_unsupported: true"));
  ASSERT_EQ(cylinders.robots[0].description.geometries.size(), 1u);
  EXPECT_EQ(cylinders.robots[0].description.geometries[0].shape.type,
            ShapeType::kCylinder);
  EXPECT_TRUE(cylinders.warnings.empty());
  // package_paths folders must exist (relative to the scene's folder).
  try {
    LoadArm(scene("package_paths: {arm: no_such_folder}"), {},
            "post_scene.yaml");
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.line(), 4) << msg;
    EXPECT_EQ(e.field(), "robots.post.package_paths.arm") << msg;
    EXPECT_NE(msg.find("no_such_folder' is not a folder (relative to the "
                       "scene file's folder)"),
              std::string::npos)
        << msg;
  }
}

TEST(RobotScene, JointLimitsOffAllowsInitialPositionsOutside) {
  const Scene s = LoadArm(R"(time_step: 0.001
duration: 1
robots:
  - name: arm
    urdf: arm.urdf
    joint_limits: false
    joints: {shoulder: {position: 2.0}}
)");
  EXPECT_FALSE(s.robots[0].joint_limits);
  EXPECT_EQ(s.robots[0].joints[0].position, 2.0);
}

// --- Errors ---------------------------------------------------------------

struct BadRobot {
  const char* name;
  const char* yaml;     // one line carries the marker "#<"
  const char* field;    // expected SceneError::field()
  const char* message;  // a part of the message
};

#define ROBOT_HEAD "time_step: 0.001\nduration: 1\nrobots:\n"
#define ARM "  - name: arm\n    urdf: arm.urdf\n"

const BadRobot kBadRobots[] = {
    {"robots_not_a_list", "time_step: 0.001\nduration: 1\nrobots: {a: 1}  #<\n",
     "robots", "expected a list of robots"},
    {"missing_name", ROBOT_HEAD "  - urdf: arm.urdf  #<\n", "robots[0].name",
     "missing required field 'name'"},
    {"missing_urdf", ROBOT_HEAD "  - name: arm  #<\n", "robots.arm.urdf",
     "missing required field 'urdf'"},
    {"bad_name", ROBOT_HEAD "  - name: my arm  #<\n    urdf: arm.urdf\n",
     "robots[0].name", "invalid robot name"},
    {"duplicate_name", ROBOT_HEAD ARM "  - name: arm  #<\n    urdf: arm.urdf\n",
     "robots.arm.name", "duplicate robot name 'arm'"},
    {"name_of_a_body",
     "time_step: 0.001\nduration: 1\nbodies:\n"
     "  - {name: arm, fixed: true, shape: {type: plane}}\n"
     "robots:\n  - name: arm  #<\n    urdf: arm.urdf\n",
     "robots.arm.name", "already the name of a body"},
    {"unknown_key", ROBOT_HEAD ARM "    colour: red  #<\n", "robots.arm.colour",
     "unknown key 'colour'"},
    {"urdf_missing", ROBOT_HEAD "  - name: arm\n    urdf: nope.urdf  #<\n",
     "robots.arm.urdf", "cannot open the URDF file"},
    {"urdf_broken", ROBOT_HEAD "  - name: arm\n    urdf: broken.urdf  #<\n",
     "robots.arm.urdf", "broken.urdf:"},
    {"unknown_base_key", ROBOT_HEAD ARM "    base: {pose: [0, 0, 0]}  #<\n",
     "robots.arm.base.pose", "unknown key 'pose'"},
    {"base_rpy_and_quaternion",
     ROBOT_HEAD ARM
     "    base: {rpy: [0, 0, 0], quaternion: [1, 0, 0, 0]}  #<\n",
     "robots.arm.base.quaternion", "not both"},
    {"base_zero_quaternion",
     ROBOT_HEAD ARM "    base: {quaternion: [0, 0, 0, 0]}  #<\n",
     "robots.arm.base.quaternion", "cannot be normalized"},
    {"base_position_far",
     ROBOT_HEAD ARM "    base: {position: [0, 0, 1e7]}  #<\n",
     "robots.arm.base.position[2]", "Limits"},
    {"fixed_base_moving",
     ROBOT_HEAD ARM "    base:\n      velocity: [0, 1, 0]  #<\n",
     "robots.arm.base.velocity", "a fixed base cannot move"},
    {"fixed_not_bool", ROBOT_HEAD ARM "    base: {fixed: often}  #<\n",
     "robots.arm.base.fixed", "expected true or false"},
    {"unknown_material", ROBOT_HEAD ARM "    material: rubber  #<\n",
     "robots.arm.material", "no material named 'rubber'"},
    {"flag_not_bool", ROBOT_HEAD ARM "    self_collision: 2  #<\n",
     "robots.arm.self_collision", "expected true or false"},
    {"unknown_joint",
     ROBOT_HEAD ARM "    joints:\n      wrist: {position: 0.1}  #<\n",
     "robots.arm.joints.wrist",
     "robot 'arm' has no joint named 'wrist' (its revolute and prismatic "
     "joints: shoulder, elbow, slider, finger_joint)"},
    {"fixed_joint_state",
     ROBOT_HEAD ARM "    joints:\n      tool_mount: {position: 0.1}  #<\n",
     "robots.arm.joints.tool_mount", "is fixed; only revolute and prismatic"},
    {"mimic_follower_state",
     ROBOT_HEAD ARM "    joints:\n      finger_joint: {position: 0.1}  #<\n",
     "robots.arm.joints.finger_joint", "follows joint 'shoulder'"},
    {"joint_state_unknown_key",
     ROBOT_HEAD ARM "    joints:\n      shoulder: {angle: 0.1}  #<\n",
     "robots.arm.joints.shoulder.angle", "unknown key 'angle'"},
    {"position_above_limit",
     ROBOT_HEAD ARM "    joints:\n      shoulder:\n        position: 1.6  #<\n",
     "robots.arm.joints.shoulder.position",
     "position 1.6 rad is outside the URDF limits [-1.5, 1.5] rad of joint "
     "'shoulder'"},
    {"prismatic_below_limit",
     ROBOT_HEAD ARM "    joints:\n      slider: {position: -0.01}  #<\n",
     "robots.arm.joints.slider.position", "[0, 0.2] m"},
    {"position_not_a_number",
     ROBOT_HEAD ARM "    joints:\n      elbow: {position: up}  #<\n",
     "robots.arm.joints.elbow.position", "expected a number"},
    {"velocity_too_fast",
     ROBOT_HEAD ARM "    joints:\n      elbow: {velocity: 1e5}  #<\n",
     "robots.arm.joints.elbow.velocity", "Limits"},
    {"actuation_unknown_joint",
     ROBOT_HEAD ARM "    actuation:\n      knee: {kp: 1}  #<\n",
     "robots.arm.actuation.knee", "has no joint named 'knee'"},
    {"actuation_mimic_follower",
     ROBOT_HEAD ARM "    actuation:\n      finger_joint: {kp: 1}  #<\n",
     "robots.arm.actuation.finger_joint",
     "follows joint 'shoulder' (URDF <mimic>)"},
    {"actuation_fixed_joint",
     ROBOT_HEAD ARM "    actuation:\n      arm_base: {kp: 1}  #<\n",
     "robots.arm.actuation.arm_base", "has no joint named 'arm_base'"},
    {"kp_negative",
     ROBOT_HEAD ARM "    actuation:\n      shoulder: {kp: -1, kd: 1}  #<\n",
     "robots.arm.actuation.shoulder.kp", "must be >= 0"},
    {"no_gains",
     ROBOT_HEAD ARM "    actuation:\n      shoulder: {target: 1}  #<\n",
     "robots.arm.actuation.shoulder", "kp + kd must be > 0"},
    {"zero_gains",
     ROBOT_HEAD ARM "    actuation:\n      shoulder:\n        kp: 0  #<\n"
                    "        kd: 0\n",
     "robots.arm.actuation.shoulder", "kp + kd must be > 0"},
    {"effort_limit_zero",
     ROBOT_HEAD ARM
     "    actuation:\n      shoulder: {kp: 1, effort_limit: 0}  #<\n",
     "robots.arm.actuation.shoulder.effort_limit", "must be > 0"},
    {"actuation_unknown_key",
     ROBOT_HEAD ARM "    actuation:\n      shoulder: {kp: 1, ki: 1}  #<\n",
     "robots.arm.actuation.shoulder.ki", "unknown key 'ki'"},
    {"target_times_decrease",
     ROBOT_HEAD ARM "    actuation:\n      shoulder:\n        kp: 1\n"
                    "        target: {times: [0, 1, 0.5], values: [0, 1, 2]}  "
                    "#<\n",
     "robots.arm.actuation.shoulder.target.times",
     "times must increase (0.5 after 1)"},
    {"target_is_a_vector",
     ROBOT_HEAD ARM "    actuation:\n      shoulder:\n        kp: 1\n"
                    "        feedforward: [1, 2, 3]  #<\n",
     "robots.arm.actuation.shoulder.feedforward",
     "expected a list of 1 numbers"},
};

using testing_util::MarkedLine;

class BadRobotTest : public ::testing::TestWithParam<BadRobot> {};

TEST_P(BadRobotTest, ErrorNamesFileLineFieldAndProblem) {
  const BadRobot& c = GetParam();
  const int line = MarkedLine(c.yaml);
  ASSERT_GT(line, 0) << "test case without a #< marker";
  WriteUrdfFixtures();
  const std::string path =
      WriteTempScene(std::string("bad_robot_") + c.name + ".yaml", c.yaml);
  try {
    LoadScene(path);
    FAIL() << "no SceneError for " << c.name;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find(path + ":" + std::to_string(line) + ":"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.field), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, BadRobotTest,
                         ::testing::ValuesIn(kBadRobots),
                         [](const ::testing::TestParamInfo<BadRobot>& info) {
                           return std::string(info.param.name);
                         });

TEST(RobotScene, BrokenUrdfQuotesTheUrdfsFileAndLine) {
  const std::string dir = WriteUrdfFixtures();
  try {
    LoadArm(ROBOT_HEAD "  - name: arm\n    urdf: broken.urdf\n");
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    // "<scene>:5:11: robots.arm.urdf: cannot load the URDF:
    // <dir>/broken.urdf:<line>: ..."
    EXPECT_NE(msg.find("cannot load the URDF: " + dir + "broken.urdf:"),
              std::string::npos)
        << msg;
  }
}

// --- Overrides -------------------------------------------------------------

TEST(RobotSceneOverrides, RobotKeys) {
  const Scene s =
      LoadArm(kArmScene, {"robots.arm.actuation.shoulder.kp=5",
                          "robots.arm.joints.elbow.position=0.7",
                          "robots.arm.base.position.2=0.25",
                          "robots.arm.joints.shoulder.velocity=2",
                          "robots.arm.actuation.slider.target.sine.frequency=4",
                          "robots.arm.material=default",
                          "robots.arm.self_collision=false"});
  const RobotSpec& r = s.robots[0];
  const MultibodyTree& tree = r.description.tree;
  EXPECT_EQ(r.actuation[0].kp, 5.0);
  EXPECT_EQ(r.actuation[0].kd, 10.0);
  EXPECT_EQ(r.base_pose.position, Vector3(1, 2, 0.25));
  EXPECT_TRUE(tree.joint(0).origin.translation().isApprox(Vector3(1, 2, 0.25)));
  ASSERT_EQ(r.joints.size(), 3u);
  EXPECT_EQ(r.joints[0].velocity, 2.0);
  EXPECT_EQ(r.joints[2].joint, tree.FindJoint("elbow"));  // created
  EXPECT_EQ(r.joints[2].position, 0.7);
  const double w = 8.0 * 3.14159265358979323846;
  EXPECT_NEAR(r.actuation[2].target.ScalarValue(0.01),
              0.1 + 0.05 * std::sin(w * 0.01), 1e-14);
  EXPECT_EQ(r.material_index, 0);
  EXPECT_FALSE(r.self_collision);
}

TEST(RobotSceneOverrides, CreatesSectionsTheFileOmits) {
  const Scene s =
      LoadArm(R"(time_step: 0.001
duration: 1
robots:
  - {name: arm, urdf: arm.urdf}
)",
              {"robots.arm.actuation.shoulder.kp=5",
               "robots.arm.actuation.shoulder.target=0.2",
               "robots.arm.base.fixed=false", "robots.arm.base.velocity.0=0.5",
               "robots.arm.base.rpy.2=1.0"});
  const RobotSpec& r = s.robots[0];
  ASSERT_EQ(r.actuation.size(), 1u);
  EXPECT_EQ(r.actuation[0].kp, 5.0);
  EXPECT_EQ(r.actuation[0].kd, 0.0);  // the default
  EXPECT_EQ(r.actuation[0].target.ScalarValue(0.0), 0.2);
  EXPECT_FALSE(r.fixed_base);
  EXPECT_EQ(r.description.tree.joint(0).type, JointType::kFloating);
  EXPECT_EQ(r.base_velocity, Vector3(0.5, 0, 0));
  EXPECT_TRUE(r.base_pose.orientation.isApprox(
      Eigen::Quaterniond(Eigen::AngleAxisd(1.0, Vector3::UnitZ()))));
}

TEST(RobotSceneOverrides, UrdfAndExclusiveOrientation) {
  const Scene s = LoadArm(
      R"(time_step: 0.001
duration: 1
robots:
  - {name: arm, urdf: arm.urdf, base: {rpy: [0, 0, 1]}}
)",
      {"robots.arm.urdf=post.urdf", "robots.arm.cylinders_as_capsules=true",
       "robots.arm.base.quaternion=[1,0,0,0]"});
  EXPECT_EQ(s.robots[0].description.name, "post");
  EXPECT_TRUE(s.robots[0].base_pose.orientation.isApprox(
      Eigen::Quaterniond::Identity()));
}

struct BadRobotOverride {
  const char* assignment;
  const char* field;
  const char* message;
};

void PrintTo(const BadRobotOverride& c, std::ostream* os) {
  *os << c.assignment;
}

class BadRobotOverrideTest : public ::testing::TestWithParam<BadRobotOverride> {
};

TEST_P(BadRobotOverrideTest, FailsNamingTheOverride) {
  const BadRobotOverride& c = GetParam();
  const std::string path = WriteTempScene("over_arm.yaml", kArmScene);
  WriteUrdfFixtures();
  try {
    LoadScene(path, {c.assignment});
    FAIL() << "no SceneError for " << c.assignment;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.line(), 0) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find(path + ": --set " + c.assignment + ": "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, BadRobotOverrideTest,
    ::testing::Values(
        BadRobotOverride{"robots.hand.base.fixed=false", "robots.hand",
                         "no robot named 'hand'"},
        BadRobotOverride{"robots.arm.joints.wrist.position=1",
                         "robots.arm.joints.wrist",
                         "robot 'arm' has no joint named 'wrist'"},
        BadRobotOverride{"robots.arm.actuation.knee.kp=1",
                         "robots.arm.actuation.knee", "no joint named 'knee'"},
        BadRobotOverride{"robots.arm.actuation.shoulder.ki=1",
                         "robots.arm.actuation.shoulder.ki", "unknown key"},
        BadRobotOverride{"robots.arm.base.colour=1", "robots.arm.base.colour",
                         "unknown key"},
        BadRobotOverride{"robots.arm.colour=1", "robots.arm.colour",
                         "unknown key"},
        BadRobotOverride{"robots.arm=1", "robots.arm",
                         "cannot be replaced whole"},
        BadRobotOverride{"robots.arm.base.position.3=1",
                         "robots.arm.base.position.3", "not an index"},
        BadRobotOverride{"robots.arm.actuation.finger_joint.kd=1",
                         "robots.arm.actuation.finger_joint",
                         "follows joint 'shoulder'"},
        BadRobotOverride{"robots.arm.actuation.elbow.kp=0",
                         "robots.arm.actuation.elbow", "kp + kd must be > 0"},
        BadRobotOverride{"robots.arm.actuation.shoulder.kp=-3",
                         "robots.arm.actuation.shoulder.kp", "must be >= 0"},
        BadRobotOverride{"robots.arm.joints.shoulder.position=3",
                         "robots.arm.joints.shoulder.position",
                         "outside the URDF limits"},
        BadRobotOverride{"robots.arm.urdf=nope.urdf", "robots.arm.urdf",
                         "cannot open the URDF file"},
        BadRobotOverride{"robots.arm.base.velocity.1=1",
                         "robots.arm.base.velocity",
                         "a fixed base cannot move"},
        BadRobotOverride{"robots.arm.actuation.elbow.target.times.1=-1",
                         "robots.arm.actuation.elbow.target.times",
                         "times must increase (-1 after 0)"}));

}  // namespace
}  // namespace sapcontact
