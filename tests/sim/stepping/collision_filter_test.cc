// Collision filters of a robot with self_collision (docs/robots.md,
// "Collision filters"): a link two joints from the base overlaps the base
// by 7 cm at the start. Unfiltered, the pair is warned about (Scene
// warnings, summary.json) and collides; `collision_filter.adjacent: 2`, a
// named pair and an SRDF <disable_collisions> each remove the warning and
// the contacts. Errors name the field, the file and the line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace {

using testing_util::WriteTempScene;

// base (box 0.4 x 0.4 x 0.1) -j1 (revolute z, 0.3 m up)- l1 (no geometry)
// -j2 (revolute y)- l2 (sphere r 0.1 centred 0.22 m below j2: its bottom at
// z = -0.02, 7 cm into the base's top at 0.05).
const char* kUrdf = R"(<?xml version="1.0"?>
<robot name="bent">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.4 0.4 0.1"/></geometry></collision>
  </link>
  <link name="l1">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="l2">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><origin xyz="0 0 -0.22"/><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/><origin xyz="0 0 0.3"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="5"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/>
  </joint>
</robot>
)";

const char* kSrdf = R"(<?xml version="1.0"?>
<robot name="bent">
  <disable_collisions link1="base" link2="l2" reason="Adjacent"/>
</robot>
)";

std::string SceneText(const std::string& robot_keys) {
  return "time_step: 1.0e-3\nduration: 0.01\ngravity: [0, 0, 0]\n"
         "robots:\n"
         "  - name: r\n"
         "    urdf: bent.urdf\n"
         "    self_collision: true\n" +
         robot_keys;
}

Scene Load(const std::string& robot_keys) {
  WriteTempScene("bent.urdf", kUrdf);
  WriteTempScene("bent.srdf", kSrdf);
  return LoadScene(WriteTempScene("bent.yaml", SceneText(robot_keys)));
}

// Contacts of the first step between the base and l2.
int BaseL2Contacts(TimeStepper* stepper) {
  stepper->Step();
  int n = 0;
  for (const ContactPoint& c : stepper->last_contacts()) {
    const std::string a = stepper->ColliderName(c.body_a),
                      b = stepper->ColliderName(c.body_b);
    // Collider names are "<robot>/<link>/<collision>".
    n += (a.rfind("r/base/", 0) == 0 && b.rfind("r/l2/", 0) == 0) ||
         (a.rfind("r/l2/", 0) == 0 && b.rfind("r/base/", 0) == 0);
  }
  return n;
}

TEST(CollisionFilter, UnfilteredOverlapIsWarnedAndCollides) {
  TimeStepper stepper(Load(""));
  const std::vector<std::string>& w = stepper.scene().warnings;
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("robot 'r': links 'base' and 'l2' overlap by 0.07 m at "
                      "the start and are not filtered"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("add [base, l2] to robots.r.collision_filter.pairs"),
            std::string::npos)
      << w[0];
  EXPECT_GT(BaseL2Contacts(&stepper), 0);
  // Also in summary.json's warnings.
  const SimulationSummary s = RunSimulation(Load(""), SimulationOptions{});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], w[0]);
}

TEST(CollisionFilter, AdjacentPairsAndSrdfEachRemoveThePair) {
  for (const char* keys : {"    collision_filter: {adjacent: 2}\n",
                           "    collision_filter: {pairs: [[l2, base]]}\n",
                           "    srdf: bent.srdf\n"}) {
    TimeStepper stepper(Load(keys));
    EXPECT_TRUE(stepper.scene().warnings.empty()) << keys;
    EXPECT_EQ(BaseL2Contacts(&stepper), 0) << keys;
  }
  // Without self_collision no link pair of the robot collides.
  Scene off = Load("");
  off.robots[0].self_collision = false;
  TimeStepper stepper(off);
  EXPECT_TRUE(stepper.scene().warnings.empty());
  EXPECT_EQ(BaseL2Contacts(&stepper), 0);
  // adjacent 1 (the default, written out) keeps the pair.
  TimeStepper one(Load("    collision_filter: {adjacent: 1}\n"));
  EXPECT_EQ(one.scene().warnings.size(), 1u);
}

TEST(CollisionFilter, ErrorsNameTheFieldFileAndLine) {
  struct Case {
    std::string keys, field, message;
    int line;
  };
  const Case cases[] = {
      {"    collision_filter: {pairs: [[base, l3]]}\n",
       "robots.r.collision_filter.pairs[0]",
       "robot 'r' has no link named 'l3' (nearest: l1, l2", 8},
      {"    collision_filter: {adjacent: 1.5}\n",
       "robots.r.collision_filter.adjacent", "whole number", 8},
      {"    collision_filter: {pairs: [[base]]}\n",
       "robots.r.collision_filter.pairs[0]", "expected a pair of link names",
       8},
      {"    collision_filter: {exclude: []}\n",
       "robots.r.collision_filter.exclude", "exclude", 8},
      {"    srdf: missing.srdf\n", "robots.r.srdf", "cannot open the SRDF file",
       8},
  };
  for (const Case& c : cases) {
    try {
      Load(c.keys);
      ADD_FAILURE() << "no SceneError for " << c.keys;
    } catch (const SceneError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.field(), c.field) << msg;
      EXPECT_EQ(e.line(), c.line) << msg;
      EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
      EXPECT_NE(msg.find("bent.yaml:" + std::to_string(c.line)),
                std::string::npos)
          << msg;
    }
  }
  // A link the robot does not have, named in the SRDF: the SRDF's line.
  WriteTempScene("typo.srdf",
                 "<robot name=\"bent\">\n\n  <disable_collisions "
                 "link1=\"bse\" link2=\"l2\"/>\n</robot>\n");
  try {
    Load("    srdf: typo.srdf\n");
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.field(), "robots.r.srdf") << msg;
    EXPECT_NE(msg.find("typo.srdf:3: <disable_collisions>: robot 'r' has no "
                       "link named 'bse' (nearest: base"),
              std::string::npos)
        << msg;
  }
}

}  // namespace
}  // namespace sapcontact
