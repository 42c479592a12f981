// Helpers of the robot scene tests: a small URDF fixture written next to
// the temporary scene files (tests/sim/scene/scene_test_util.h).
#pragma once

#include <string>

#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace testing_util {

/// A 7-link arm: base -shoulder (revolute, [-1.5, 1.5] rad, effort 40)-
/// upper -elbow (continuous, no effort limit)- lower -slider (prismatic,
/// [0, 0.2] m, effort 100)- carriage -tool_mount (fixed)- tool
/// -finger_joint (revolute, mimic of shoulder: 0.5 q + 0.1)- finger; and
/// base -plate_mount (fixed)- plate. Collision: a box on base, a
/// sphere on upper.
inline const char* kArmUrdf = R"(<?xml version="1.0"?>
<robot name="test_arm">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <link name="lower">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="carriage">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="tool">
    <inertial><mass value="0.1"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="finger">
    <inertial><mass value="0.1"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="plate">
    <inertial><mass value="0.1"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="40" velocity="3"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="slider" type="prismatic">
    <parent link="lower"/><child link="carriage"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.2" effort="100" velocity="1"/>
  </joint>
  <joint name="tool_mount" type="fixed">
    <parent link="carriage"/><child link="tool"/>
  </joint>
  <joint name="finger_joint" type="revolute">
    <parent link="tool"/><child link="finger"/>
    <axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="1"/>
    <mimic joint="shoulder" multiplier="0.5" offset="0.1"/>
  </joint>
  <joint name="plate_mount" type="fixed">
    <parent link="base"/><child link="plate"/>
  </joint>
</robot>
)";

/// One link with a cylinder collision (a capsule with
/// cylinders_as_capsules).
inline const char* kCylinderUrdf = R"(<?xml version="1.0"?>
<robot name="post">
  <link name="post">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><cylinder radius="0.1" length="0.5"/></geometry></collision>
  </link>
</robot>
)";

/// A URDF with an XML error on line 3.
inline const char* kBrokenUrdf =
    "<?xml version=\"1.0\"?>\n<robot name=\"x\">\n"
    "  <link name=\"a\">\n</robot>\n";

/// Writes the fixtures (arm.urdf, post.urdf, broken.urdf) into the
/// temporary scene folder; returns the folder (with a trailing '/').
inline std::string WriteUrdfFixtures() {
  WriteTempScene("arm.urdf", kArmUrdf);
  WriteTempScene("post.urdf", kCylinderUrdf);
  const std::string p = WriteTempScene("broken.urdf", kBrokenUrdf);
  return p.substr(0, p.rfind('/') + 1);
}

}  // namespace testing_util
}  // namespace sapcontact
