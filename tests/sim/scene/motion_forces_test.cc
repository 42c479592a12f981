// Prescribed motion of fixed bodies (bodies[i].prescribed), external
// forces (external_forces:), their errors and overrides, and
// ValidateScene of robots, prescribed bodies and external forces built in
// code.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/scene/robot_test_util.h"

namespace sapcontact {
namespace {

using testing_util::WriteTempScene;
using testing_util::WriteUrdfFixtures;

const char* kScene = R"(time_step: 0.001
duration: 1
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - name: belt_floor
    fixed: true
    shape: {type: plane}
    prescribed: {surface_velocity: [0.5, 0, 0]}
  - name: belt
    fixed: true
    shape: {type: box, size: [2, 0.5, 0.1]}
    prescribed:
      surface_velocity: {times: [0, 1], values: [[0, 0, 0], [1, 0, 0]]}
  - name: paddle
    fixed: true
    shape: {type: box, size: [0.1, 0.1, 0.1]}
    prescribed:
      velocity: {sine: {amplitude: [0, 0, 0.2], frequency: 1}}
      angular_velocity: [0, 0, 1]
  - {name: box, shape: {type: box, size: [0.1, 0.1, 0.1]}, mass: 1}
robots:
  - {name: arm, urdf: arm.urdf}
external_forces:
  - {body: box, force: [0, 0, 5]}
  - body: arm/upper
    force: {times: [0, 1], values: [[0, 0, 0], [0, 0, 10]]}
    torque: [0, 1, 0]
    point: [0, 0, 0.1]
  - {body: box, torque: {sine: {amplitude: [1, 0, 0], frequency: 2}}}
)";

Scene Load(const std::string& text,
           const std::vector<std::string>& overrides = {}) {
  WriteUrdfFixtures();
  return LoadScene(WriteTempScene("motion.yaml", text), overrides);
}

TEST(Prescribed, ParsedOnFixedBodies) {
  const Scene s = Load(kScene);
  const Body& ground = s.bodies[s.FindBody("ground")];
  EXPECT_FALSE(ground.prescribed);
  const Body& floor = s.bodies[s.FindBody("belt_floor")];
  EXPECT_TRUE(floor.prescribed);
  EXPECT_TRUE(floor.fixed);
  EXPECT_EQ(floor.motion.surface_velocity.Value(3.0), Vector3(0.5, 0, 0));
  EXPECT_EQ(floor.motion.velocity.Value(3.0), Vector3::Zero());
  const Body& belt = s.bodies[s.FindBody("belt")];
  EXPECT_TRUE(belt.prescribed);
  EXPECT_TRUE(
      belt.motion.surface_velocity.Value(0.5).isApprox(Vector3(0.5, 0, 0)));
  const Body& paddle = s.bodies[s.FindBody("paddle")];
  EXPECT_TRUE(paddle.prescribed);
  EXPECT_NEAR(paddle.motion.velocity.Value(0.25)[2], 0.2, 1e-15);
  EXPECT_EQ(paddle.motion.angular_velocity.Value(0.0), Vector3(0, 0, 1));
  EXPECT_EQ(paddle.mass, 0.0);
  EXPECT_EQ(paddle.velocity, Vector3::Zero());
  EXPECT_NO_THROW(ValidateScene(s));
}

TEST(Prescribed, GridCopiesShareTheMotion) {
  const Scene s = Load(R"(time_step: 0.001
duration: 1
bodies:
  - name: roller
    fixed: true
    shape: {type: sphere, radius: 0.05}
    prescribed: {angular_velocity: [0, 2, 0]}
    grid: {count: [3, 1, 1], spacing: [0.2, 0, 0]}
)");
  ASSERT_EQ(s.bodies.size(), 3u);
  for (const Body& b : s.bodies) {
    EXPECT_TRUE(b.prescribed);
    EXPECT_EQ(b.motion.angular_velocity.Value(0.0), Vector3(0, 2, 0));
  }
}

TEST(ExternalForces, ResolvedToBodiesAndRobotLinks) {
  const Scene s = Load(kScene);
  ASSERT_EQ(s.external_forces.size(), 3u);
  const ExternalForce& a = s.external_forces[0];
  EXPECT_EQ(a.target, "box");
  EXPECT_EQ(a.body, s.FindBody("box"));
  EXPECT_EQ(a.robot, -1);
  EXPECT_EQ(a.link, -1);
  EXPECT_EQ(a.force.Value(0.0), Vector3(0, 0, 5));
  EXPECT_EQ(a.torque.Value(0.0), Vector3::Zero());
  EXPECT_EQ(a.point, Vector3::Zero());
  const ExternalForce& b = s.external_forces[1];
  EXPECT_EQ(b.target, "arm/upper");
  EXPECT_EQ(b.body, -1);
  EXPECT_EQ(b.robot, 0);
  EXPECT_EQ(b.link, s.robots[0].description.tree.FindLink("upper"));
  EXPECT_TRUE(b.force.Value(0.5).isApprox(Vector3(0, 0, 5)));
  EXPECT_EQ(b.torque.Value(0.5), Vector3(0, 1, 0));
  EXPECT_EQ(b.point, Vector3(0, 0, 0.1));
  const ExternalForce& c = s.external_forces[2];
  EXPECT_NEAR(c.torque.Value(0.125)[0], 1.0, 1e-15);
  EXPECT_EQ(c.force.Value(0.125), Vector3::Zero());
}

TEST(ExternalForces, AmbiguousTarget) {
  // A body may be named like a robot link ('/' is allowed in body names).
  std::string text = kScene;
  text.insert(text.find("robots:"),
              "  - {name: arm/upper, shape: {type: sphere, radius: 0.1}, "
              "mass: 1}\n");
  try {
    Load(text + "  - {body: arm/upper, force: [1, 0, 0]}\n");
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.field(), "external_forces[1].body") << e.what();
    EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos)
        << e.what();
  }
}

// --- Errors ----------------------------------------------------------------

struct BadCase {
  const char* name;
  const char* yaml;     // one line carries the marker "#<"
  const char* field;    // expected SceneError::field()
  const char* message;  // a part of the message
};

#define HEAD "time_step: 0.001\nduration: 1\nbodies:\n"
#define BOX "  - {name: box, shape: {type: box, size: [1, 1, 1]}, mass: 1}\n"
#define WALL \
  "  - {name: wall, fixed: true, shape: {type: box, size: [1, 1, 1]}}\n"

const BadCase kBad[] = {
    {"prescribed_free_body",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    prescribed: {velocity: [1, 0, 0]}  #<\n",
     "bodies.b.prescribed", "needs fixed: true"},
    {"prescribed_empty",
     HEAD "  - name: b\n    fixed: true\n    shape: {type: sphere, radius: 1}\n"
          "    prescribed: {}  #<\n",
     "bodies.b.prescribed", "give at least one of"},
    {"prescribed_unknown_key",
     HEAD "  - name: b\n    fixed: true\n    shape: {type: sphere, radius: 1}\n"
          "    prescribed: {speed: [1, 0, 0]}  #<\n",
     "bodies.b.prescribed.speed", "unknown key 'speed'"},
    {"prescribed_plane_velocity",
     HEAD "  - name: floor\n    fixed: true\n    shape: {type: plane}\n"
          "    prescribed:\n      velocity: [0, 0, 1]  #<\n",
     "bodies.floor.prescribed.velocity", "can only have a surface_velocity"},
    {"prescribed_times_decrease",
     HEAD "  - name: belt\n    fixed: true\n    shape: {type: plane}\n"
          "    prescribed:\n      surface_velocity:\n"
          "        times: [0, 1, 0.5]  #<\n"
          "        values: [[0, 0, 0], [1, 0, 0], [1, 0, 0]]\n",
     "bodies.belt.prescribed.surface_velocity.times",
     "times must increase (0.5 after 1)"},
    {"prescribed_scalar",
     HEAD "  - name: b\n    fixed: true\n    shape: {type: sphere, radius: 1}\n"
          "    prescribed: {velocity: 2}  #<\n",
     "bodies.b.prescribed.velocity", "expected a list of 3 numbers"},
    {"prescribed_too_fast",
     HEAD "  - name: b\n    fixed: true\n    shape: {type: sphere, radius: 1}\n"
          "    prescribed: {velocity: {sine: {amplitude: [2e4, 0, 0], "
          "frequency: 1}}}  #<\n",
     "bodies.b.prescribed.velocity", "max |velocity| = 20000 m/s"},
    {"fixed_body_velocity_hint",
     HEAD "  - name: b\n    fixed: true\n    shape: {type: sphere, radius: 1}\n"
          "    velocity: [1, 0, 0]  #<\n",
     "bodies.b.velocity", "prescribed:"},
    {"forces_not_a_list", HEAD BOX "external_forces: {body: box}  #<\n",
     "external_forces", "expected a list of forces"},
    {"force_missing_body",
     HEAD BOX "external_forces:\n  - force: [1, 0, 0]  #<\n",
     "external_forces[0].body", "missing required field 'body'"},
    {"force_unknown_body",
     HEAD BOX WALL
     "external_forces:\n  - {body: crate, force: [1, 0, 0]}  #<\n",
     "external_forces[0].body",
     "no body or robot link named 'crate' (free bodies: box; robot links, "
     "as <robot>/<link>: none)"},
    {"force_on_fixed_body",
     HEAD BOX WALL "external_forces:\n  - {body: box, force: [1, 0, 0]}\n"
                   "  - {body: wall, force: [1, 0, 0]}  #<\n",
     "external_forces[1].body", "body 'wall' is fixed"},
    {"force_without_force",
     HEAD BOX "external_forces:\n  - {body: box, point: [0, 0, 1]}  #<\n",
     "external_forces[0].force", "give force or torque"},
    {"force_unknown_key",
     HEAD BOX "external_forces:\n  - {body: box, moment: [1, 0, 0]}  #<\n",
     "external_forces[0].moment", "unknown key 'moment'"},
    {"force_bad_point",
     HEAD BOX
     "external_forces:\n  - {body: box, force: [1, 0, 0], point: [0, 0]}  #<\n",
     "external_forces[0].point", "expected a list of 3 numbers"},
    {"force_bad_function",
     HEAD BOX "external_forces:\n  - body: box\n"
              "    torque: {times: [0, 1], values: [1, 2]}  #<\n",
     "external_forces[0].torque.values[0]", "expected a list of 3 numbers"},
    {"force_unknown_link",
     HEAD BOX "robots:\n  - {name: arm, urdf: arm.urdf}\n"
              "external_forces:\n  - {body: arm/hand, force: [1, 0, 0]}  #<\n",
     "external_forces[0].body",
     "robot 'arm' has no link named 'hand' (free bodies: box; robot links, "
     "as <robot>/<link>: arm/upper, arm/lower"},
    {"force_on_welded_link",
     HEAD BOX "robots:\n  - {name: arm, urdf: arm.urdf}\n"
              "external_forces:\n  - {body: arm/plate, force: [1, 0, 0]}  #<\n",
     "external_forces[0].body",
     "link 'plate' of robot 'arm' is welded to the world"},
};

using testing_util::MarkedLine;

class BadMotionTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadMotionTest, ErrorNamesFileLineFieldAndProblem) {
  const BadCase& c = GetParam();
  const int line = MarkedLine(c.yaml);
  ASSERT_GT(line, 0) << "test case without a #< marker";
  WriteUrdfFixtures();
  const std::string path =
      WriteTempScene(std::string("bad_motion_") + c.name + ".yaml", c.yaml);
  try {
    LoadScene(path);
    FAIL() << "no SceneError for " << c.name;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.line(), line) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find(path + ":" + std::to_string(line) + ":"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, BadMotionTest, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

// --- Overrides -------------------------------------------------------------

TEST(MotionOverrides, PrescribedAndExternalForces) {
  const Scene s = Load(
      kScene,
      {"bodies.belt_floor.prescribed.surface_velocity.0=2",
       "bodies.ground.prescribed.surface_velocity=[0,1,0]",
       "bodies.paddle.prescribed.velocity.sine.frequency=2",
       "bodies.belt.prescribed.surface_velocity.values.1.0=3",
       "external_forces.0.force=[0,0,7]", "external_forces.0.point.2=0.05",
       "external_forces.1.torque.1=2", "external_forces.2.body=arm/lower"});
  EXPECT_EQ(s.bodies[s.FindBody("belt_floor")].motion.surface_velocity.Value(0),
            Vector3(2, 0, 0));
  const Body& ground = s.bodies[s.FindBody("ground")];
  EXPECT_TRUE(ground.prescribed);  // created by the override
  EXPECT_EQ(ground.motion.surface_velocity.Value(0), Vector3(0, 1, 0));
  EXPECT_NEAR(s.bodies[s.FindBody("paddle")].motion.velocity.Value(0.125)[2],
              0.2, 1e-15);
  EXPECT_TRUE(
      s.bodies[s.FindBody("belt")].motion.surface_velocity.Value(1.0).isApprox(
          Vector3(3, 0, 0)));
  EXPECT_EQ(s.external_forces[0].force.Value(0), Vector3(0, 0, 7));
  EXPECT_EQ(s.external_forces[0].point, Vector3(0, 0, 0.05));
  EXPECT_EQ(s.external_forces[1].torque.Value(0), Vector3(0, 2, 0));
  EXPECT_EQ(s.external_forces[2].link,
            s.robots[0].description.tree.FindLink("lower"));
}

TEST(MotionOverrides, Errors) {
  struct {
    const char* assignment;
    const char* field;
    const char* message;
  } cases[] = {
      {"external_forces.3.force=[0,0,1]", "external_forces.3",
       "not an index of external_forces"},
      {"external_forces.x.force=[0,0,1]", "external_forces.x", "not an index"},
      {"external_forces.0.colour=1", "external_forces.0.colour", "unknown key"},
      {"external_forces.0=1", "external_forces.0", "cannot be replaced whole"},
      {"external_forces.0.body=ground", "external_forces[0].body",
       "body 'ground' is fixed"},
      {"bodies.box.prescribed.velocity=[1,0,0]", "bodies.box.prescribed",
       "needs fixed: true"},
      {"bodies.paddle.prescribed.speed=1", "bodies.paddle.prescribed.speed",
       "unknown key"},
      {"bodies.paddle.prescribed.velocity.sine.phse=1",
       "bodies.paddle.prescribed.velocity.sine.phse", "unknown key"},
      {"bodies.belt_floor.prescribed.velocity=[0,0,1]",
       "bodies.belt_floor.prescribed.velocity", "surface_velocity"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.assignment);
    try {
      Load(kScene, {c.assignment});
      FAIL() << "no SceneError";
    } catch (const SceneError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.line(), 0) << msg;
      EXPECT_EQ(e.field(), c.field) << msg;
      EXPECT_NE(msg.find(std::string("--set ") + c.assignment),
                std::string::npos)
          << msg;
      EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    }
  }
  // A scene without external forces.
  try {
    Load("time_step: 0.001\nduration: 1\nbodies:\n" BOX,
         {"external_forces.0.force=[0,0,1]"});
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("no external forces"),
              std::string::npos)
        << e.what();
  }
}

// --- ValidateScene of scenes built in code ----------------------------------

// The loaded kScene, then changed by `edit`; ValidateScene must throw with
// `field` and `message` in the message.
template <typename Edit>
void ExpectInvalid(Edit edit, const std::string& field,
                   const std::string& message) {
  Scene s = Load(kScene);
  edit(&s);
  try {
    ValidateScene(s);
    FAIL() << "no exception for " << field;
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(field, 0), 0u) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << msg;
  }
}

TEST(ValidateSceneRobots, LoadedScenesAreValid) {
  Scene s = Load(kScene);
  EXPECT_NO_THROW(ValidateScene(s));
}

TEST(ValidateSceneRobots, Robots) {
  ExpectInvalid([](Scene* s) { s->robots.push_back(s->robots[0]); },
                "robots.arm.name", "duplicate robot name");
  ExpectInvalid([](Scene* s) { s->robots[0].name = "box"; }, "robots.box.name",
                "also the name of a body");
  ExpectInvalid([](Scene* s) { s->robots[0].name = ""; }, "robots[0].name",
                "characters");
  ExpectInvalid([](Scene* s) { s->robots[0].description = {}; },
                "robots.arm.urdf", "no links");
  ExpectInvalid([](Scene* s) { s->robots[0].fixed_base = false; },
                "robots.arm.base.fixed", "root joint is fixed");
  ExpectInvalid([](Scene* s) { s->robots[0].material_index = 7; },
                "robots.arm.material", "index 7");
  ExpectInvalid(
      [](Scene* s) { s->robots[0].base_pose.orientation.coeffs() *= 2.0; },
      "robots.arm.base.quaternion", "not a unit quaternion");
  ExpectInvalid([](Scene* s) { s->robots[0].base_velocity.x() = 1.0; },
                "robots.arm.base.velocity", "a fixed base cannot move");
  auto joint = [](const Scene& s, const char* name) {
    return s.robots[0].description.tree.FindJoint(name);
  };
  ExpectInvalid(
      [](Scene* s) {
        s->robots[0].joints.push_back({99, 0, 0});
      },
      "robots.arm.joints[99]", "not a revolute or prismatic");
  ExpectInvalid(
      [&](Scene* s) {
        s->robots[0].joints.push_back({joint(*s, "tool_mount"), 0, 0});
      },
      "robots.arm.joints[", "not a revolute or prismatic");
  ExpectInvalid(
      [&](Scene* s) {
        s->robots[0].joints.push_back({joint(*s, "shoulder"), 2.0, 0});
      },
      "robots.arm.joints.shoulder.position", "outside [-1.5, 1.5] rad");
  ExpectInvalid(
      [&](Scene* s) {
        s->robots[0].joints.push_back({joint(*s, "finger_joint"), 0, 0});
      },
      "robots.arm.joints.finger_joint", "mimic follower");
  JointActuation a;
  ExpectInvalid(
      [&](Scene* s) {
        a.joint = joint(*s, "shoulder");
        s->robots[0].actuation.push_back(a);
      },
      "robots.arm.actuation.shoulder", "kp + kd must be > 0");
  a.kp = -1;
  ExpectInvalid([&](Scene* s) { s->robots[0].actuation.push_back(a); },
                "robots.arm.actuation.shoulder.kp", "must be >= 0");
  a.kp = 1;
  a.effort_limit = 0;
  ExpectInvalid([&](Scene* s) { s->robots[0].actuation.push_back(a); },
                "robots.arm.actuation.shoulder.effort_limit", "must be > 0");
  a.effort_limit = 1;
  a.target = TimeFunction(3);
  ExpectInvalid([&](Scene* s) { s->robots[0].actuation.push_back(a); },
                "robots.arm.actuation.shoulder.target", "size 3, expected 1");
  a.target = TimeFunction(1);
  ExpectInvalid(
      [&](Scene* s) {
        a.joint = joint(*s, "finger_joint");
        s->robots[0].actuation.push_back(a);
      },
      "robots.arm.actuation.finger_joint", "cannot be actuated");
  // A valid one passes.
  Scene s = Load(kScene);
  a.joint = joint(s, "elbow");
  s.robots[0].actuation.push_back(a);
  EXPECT_NO_THROW(ValidateScene(s));
}

TEST(ValidateSceneRobots, PrescribedAndForces) {
  auto body = [](Scene* s, const char* name) -> Body& {
    return s->bodies[s->FindBody(name)];
  };
  ExpectInvalid([&](Scene* s) { body(s, "box").prescribed = true; },
                "bodies.box.prescribed", "needs a fixed body");
  ExpectInvalid(
      [&](Scene* s) { body(s, "paddle").motion.velocity = TimeFunction(1); },
      "bodies.paddle.prescribed.velocity", "size 1, expected 3");
  ExpectInvalid(
      [&](Scene* s) {
        body(s, "belt_floor").motion.velocity =
            TimeFunction::Constant(Eigen::Vector3d(0, 0, 1));
      },
      "bodies.belt_floor.prescribed", "surface_velocity");
  ExpectInvalid(
      [&](Scene* s) {
        body(s, "belt").motion.surface_velocity =
            TimeFunction::Constant(Eigen::Vector3d(2e4, 0, 0));
      },
      "bodies.belt.prescribed.surface_velocity", "outside");
  ExpectInvalid([](Scene* s) { s->external_forces[0].robot = 0; },
                "external_forces[0].body", "exactly one");
  ExpectInvalid([](Scene* s) { s->external_forces[0].body = 0; },
                "external_forces[0].body", "is fixed");
  ExpectInvalid([](Scene* s) { s->external_forces[0].body = 99; },
                "external_forces[0].body", "out of range");
  ExpectInvalid([](Scene* s) { s->external_forces[1].link = 0; },
                "external_forces[1].body", "welded to the world");
  ExpectInvalid([](Scene* s) { s->external_forces[1].link = 70; },
                "external_forces[1].body", "out of range");
  ExpectInvalid([](Scene* s) { s->external_forces[1].force = TimeFunction(); },
                "external_forces[1].force", "size 1, expected 3");
  ExpectInvalid([](Scene* s) { s->external_forces[1].point.x() = 1e7; },
                "external_forces[1].point[0]", "outside");
}

TEST(ValidateSceneRobots, ResolveForceTarget) {
  const Scene s = Load(kScene);
  ExternalForce f;
  f.target = "arm/lower";
  EXPECT_EQ(ResolveForceTarget(s, &f), "");
  EXPECT_EQ(f.robot, 0);
  EXPECT_EQ(f.link, s.robots[0].description.tree.FindLink("lower"));
  EXPECT_EQ(f.body, -1);
  f.target = "arm/base";
  EXPECT_NE(ResolveForceTarget(s, &f).find("welded"), std::string::npos);
  EXPECT_EQ(f.robot, -1);
  f.target = "box";
  EXPECT_EQ(ResolveForceTarget(s, &f), "");
  EXPECT_EQ(f.body, s.FindBody("box"));
}

TEST(ValidateSceneRobots, RigidRobotsNeedRegularization) {
  const std::string text = std::string(kScene) +
                           "materials:\n  default: {stiffness: .inf}\n"
                           "solver: {near_rigid_threshold: 0}\n";
  // kScene's only free body 'box' is rigid too: drop it to see the robot.
  std::string no_box = text;
  no_box.erase(no_box.find("  - {name: box,"),
               std::string("  - {name: box, shape: {type: box, size: [0.1, "
                           "0.1, 0.1]}, mass: 1}\n")
                   .size());
  no_box.erase(no_box.find("external_forces:"),
               no_box.find("materials:") - no_box.find("external_forces:"));
  try {
    Load(no_box);
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.field(), "solver.near_rigid_threshold") << e.what();
    EXPECT_NE(std::string(e.what()).find("robot 'arm' and body 'ground'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
