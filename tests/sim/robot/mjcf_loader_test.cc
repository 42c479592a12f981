// The MJCF front end on small inline models: default classes and
// childclass, <include>, orientations, a body with several joints,
// refs, static bodies, warnings, and errors that name file, line and
// element. (The Gym models against MuJoCo itself: mjcf_mujoco_test.cc.)
#include "sapcontact/sim/robot/mjcf_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "sapcontact/multibody/multibody_tree.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using Eigen::Vector3d;

std::string MjcfTempDir() {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_mjcf_unit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

std::string WriteMjcf(const std::string& name, const std::string& text) {
  const std::string path = MjcfTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string MjcfErrorOf(const std::string& xml) {
  try {
    ParseMjcf(xml, "model.xml");
  } catch (const MjcfError& e) {
    return e.what();
  }
  return "(no error)";
}

bool AnyLineContains(const std::vector<std::string>& lines,
                     const std::string& s) {
  for (const std::string& l : lines) {
    if (l.find(s) != std::string::npos) return true;
  }
  return false;
}

TEST(MjcfLoader, DefaultClassesAndChildclass) {
  const MjcfModel m = ParseMjcf(R"(<mujoco model="classes">
  <compiler angle="radian"/>
  <default>
    <geom type="capsule" size="0.1 0.5" density="100"/>
    <joint damping="2"/>
    <default class="heavy">
      <geom density="1000"/>
      <default class="heavier"><joint damping="7"/></default>
    </default>
  </default>
  <worldbody>
    <body name="a" childclass="heavier">
      <joint name="ja" type="hinge" axis="0 1 0"/>
      <geom name="g"/>
      <body name="b" pos="0 0 -1">
        <joint name="jb" class="main"/>
        <geom name="h" class="main"/>
      </body>
    </body>
  </worldbody>
</mujoco>)",
                                "classes.xml");
  ASSERT_EQ(m.robots.size(), 1u);
  const MultibodyTree& t = m.robots[0].tree;
  // heavier inherits heavy's density and sets its own damping; class
  // "main" on an element overrides the childclass.
  EXPECT_EQ(t.joint(t.FindJoint("ja")).damping, 7.0);
  EXPECT_EQ(t.joint(t.FindJoint("jb")).damping, 2.0);
  const double volume = M_PI * 0.01 * 1.0 + 4.0 / 3.0 * M_PI * 0.001;
  EXPECT_NEAR(t.link(t.FindLink("a")).inertia.mass, 1000 * volume, 1e-12);
  EXPECT_NEAR(t.link(t.FindLink("b")).inertia.mass, 100 * volume, 1e-12);
  EXPECT_EQ(m.name, "classes");
}

TEST(MjcfLoader, SeveralJointsChainMasslessLinksAndRefs) {
  const MjcfModel m = ParseMjcf(R"(<mujoco>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="x" axis="1 0 0" pos="0 0 0.5" ref="30"/>
      <joint name="y" axis="0 1 0" pos="0 0 0.5"/>
      <joint name="s" type="slide" axis="0 0 1" ref="0.2" range="-1 1"/>
      <geom type="sphere" size="0.1" pos="0 0 -0.5"/>
    </body>
  </worldbody>
</mujoco>)",
                                "chain.xml");
  const RobotDescription& r = m.robots.at(0);
  EXPECT_EQ(r.name, "arm");
  // Link 0 is welded to the world; the hinges and the slide hang from it.
  ASSERT_EQ(r.tree.num_links(), 4);
  EXPECT_EQ(r.tree.link(0).name, "world");
  EXPECT_EQ(r.tree.joint(0).type, JointType::kFixed);
  EXPECT_EQ(r.tree.joint(0).name, "arm_base");
  EXPECT_EQ(r.tree.link(1).name, "arm/x");
  EXPECT_EQ(r.tree.link(2).name, "arm/y");
  EXPECT_EQ(r.tree.link(3).name, "arm");
  EXPECT_EQ(r.tree.link(1).inertia.mass, 0.0);
  EXPECT_GT(r.tree.link(3).inertia.mass, 0.0);
  // Initial positions are the refs (degrees converted), and the body sits
  // where the file puts it at those positions.
  ASSERT_EQ(r.initial_positions.size(), 3);
  EXPECT_NEAR(r.initial_positions[0], M_PI / 6, 1e-15);
  EXPECT_EQ(r.initial_positions[2], 0.2);
  std::vector<Eigen::Isometry3d> X;
  CalcLinkPoses(r.tree, r.initial_positions, &X);
  const MjcfBody& b = m.bodies.at(0);
  EXPECT_EQ(b.link, 3);
  EXPECT_EQ(b.parent, -1);
  const Vector3d body_origin = X[3] * b.body_in_link.position;
  EXPECT_LT((body_origin - Vector3d(0, 0, 1)).norm(), 1e-12);
  EXPECT_LT(
      (X[2].linear() * b.body_in_link.rotation() - Eigen::Matrix3d::Identity())
          .norm(),
      1e-12);
  // Rotating x by 90 degrees from the ref swings the body about the anchor
  // (0, 0, 1.5): its origin goes to (0, 0.5, 1.5).
  Eigen::VectorXd q = r.initial_positions;
  q[0] += M_PI / 2;
  CalcLinkPoses(r.tree, q, &X);
  EXPECT_LT((X[3] * b.body_in_link.position - Vector3d(0, 0.5, 1.5)).norm(),
            1e-12);
  // The slide's range in metres, a hinge without range unlimited.
  EXPECT_EQ(r.tree.joint(3).lower, -1.0);
  EXPECT_TRUE(std::isinf(r.tree.joint(1).upper));
}

TEST(MjcfLoader, SelfCollisionFollowsContypeAndConaffinity) {
  // Ant-like: legs with conaffinity 0 never touch each other; the same
  // legs with conaffinity 1 do, except parent and child.
  const auto model = [](int conaffinity) {
    return "<mujoco><worldbody><body name='torso'><freejoint/>"
           "<geom size='0.2'/>"
           "<body name='a' pos='1 0 0'><joint/><geom size='0.1' "
           "conaffinity='" +
           std::to_string(conaffinity) +
           "'/></body>"
           "<body name='b' pos='-1 0 0'><joint/><geom size='0.1' "
           "friction='0.4' conaffinity='" +
           std::to_string(conaffinity) +
           "'/></body></body></worldbody>"
           "</mujoco>";
  };
  const MjcfModel apart = ParseMjcf(model(0), "ant.xml");
  const MjcfModel touching = ParseMjcf(model(1), "ant.xml");
  EXPECT_FALSE(apart.robot_self_collision.at(0));
  EXPECT_TRUE(touching.robot_self_collision.at(0));
  // Parents: a and b hang from the torso.
  ASSERT_EQ(apart.bodies.size(), 3u);
  EXPECT_EQ(apart.bodies[1].parent, 0);
  EXPECT_EQ(apart.bodies[2].parent, 0);
  // Each collision geometry's friction, in the robot's geometry order.
  std::vector<double> mu;
  for (const ContactSurface& s : apart.geometry_surfaces.at(0)) {
    mu.push_back(s.friction);
  }
  EXPECT_EQ(mu, (std::vector<double>{1.0, 1.0, 0.4}));
}

TEST(MjcfLoader, EulerSequencesAndStaticBodies) {
  const MjcfModel m = ParseMjcf(R"(<mujoco>
  <compiler eulerseq="zyx"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.7"/>
    <body name="shelf" pos="1 0 0" euler="90 0 0">
      <geom name="board" type="box" size="0.5 0.2 0.01" pos="0 0 0.3"/>
    </body>
  </worldbody>
</mujoco>)",
                                "static.xml");
  EXPECT_TRUE(m.robots.empty());
  ASSERT_EQ(m.world_geometries.size(), 2u);
  EXPECT_EQ(m.world_geometries[0].name, "world/floor");
  EXPECT_EQ(m.world_geometries[0].surface.friction, 0.7);
  EXPECT_EQ(m.world_geometries[0].shape.type, ShapeType::kPlane);
  // euler 90 about z (first of zyx, moving axes): the board's local z is
  // still world z, its centre at (1, 0, 0.3).
  const WorldGeometry& board = m.world_geometries[1];
  EXPECT_LT((board.pose.position - Vector3d(1, 0, 0.3)).norm(), 1e-12);
  EXPECT_LT(
      (board.pose.rotation() * Vector3d::UnitX() - Vector3d::UnitY()).norm(),
      1e-12);
  EXPECT_LT((board.shape.size - Vector3d(1.0, 0.4, 0.02)).norm(), 1e-15);
}

TEST(MjcfLoader, IncludeAndFreeJoint) {
  WriteMjcf("parts.xml", R"(<mujoco>
  <body name="ball" pos="0 0 2" quat="0 1 0 0">
    <freejoint/>
    <geom type="sphere" size="0.1" mass="2"/>
  </body>
</mujoco>)");
  const MjcfModel m = LoadMjcf(WriteMjcf("main.xml", R"(<mujoco>
  <option timestep="0.005" gravity="0 0 -1.62"/>
  <worldbody><include file="parts.xml"/></worldbody>
</mujoco>)"));
  EXPECT_EQ(m.time_step, 0.005);
  EXPECT_EQ(m.gravity.z(), -1.62);
  const RobotDescription& r = m.robots.at(0);
  EXPECT_EQ(r.tree.joint(0).type, JointType::kFloating);
  EXPECT_EQ(r.tree.link(0).inertia.mass, 2.0);
  Eigen::VectorXd q0(7);
  q0 << 0, 0, 2, 0, 1, 0, 0;
  EXPECT_EQ(r.initial_positions, q0);
}

TEST(MjcfLoader, WarningsForWhatIsNotModelled) {
  const MjcfModel m = ParseMjcf(R"(<mujoco>
  <option integrator="RK4"/>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="b">
      <joint name="j1" armature="0.1" frictionloss="1"/>
      <joint name="j2" armature="0.1" stiffness="3" springref="90"/>
      <joint name="j3" type="ball" stiffness="1" frictionloss="1"/>
      <geom type="ellipsoid" size="0.1 0.2 0.3"/>
      <site name="s"/>
    </body>
  </worldbody>
  <actuator><motor joint="j1"/><position joint="j2" kp="10"/>
    <general joint="j1" dyntype="filter" gainprm="2"/>
    <general joint="j2" gainprm="2" gear="3" forcerange="-1 4"/>
    <position joint="j2" kp="3" forcerange="-1 2"/>
    <cylinder joint="j1"/></actuator>
</mujoco>)",
                                "warn.xml");
  const RobotDescription& r = m.robots.at(0);
  // Friction loss: applied to the hinge j1, warned on the ball j3 (as its
  // three hinges).
  EXPECT_TRUE(AnyLineContains(
      r.warnings,
      "frictionloss (of a free or ball joint) of 3 joints ignored"));
  EXPECT_EQ(r.tree.joint(r.tree.FindJoint("j1")).friction_loss, 1.0);
  EXPECT_TRUE(AnyLineContains(
      r.warnings, "stiffness (of a free or ball joint) of 3 joints ignored"));
  EXPECT_TRUE(AnyLineContains(r.warnings, "warn.xml:9: <geom>: an ellipsoid"));
  // Armature and a hinge's spring are modelled (springref in degrees).
  const Joint& j2 = r.tree.joint(r.tree.FindJoint("j2"));
  EXPECT_EQ(j2.armature, 0.1);
  EXPECT_EQ(j2.stiffness, 3.0);
  EXPECT_NEAR(j2.spring_reference, M_PI / 2, 1e-15);
  EXPECT_EQ(r.collision_counts.approximated, 1);
  EXPECT_TRUE(AnyLineContains(m.warnings, "integrator 'RK4'"));
  // A motor on j1 is read (defaults: gear 1, no ranges), a position servo
  // on j2 (kp 10, kv 0), a <general> motor of gain 2 (gear 2 x 3, its force
  // range in units of u); activation dynamics, an asymmetric servo force
  // range and other actuator kinds are warned.
  ASSERT_EQ(r.actuators.size(), 4u);
  EXPECT_EQ(r.actuators[0].kind, ActuatorKind::kMotor);
  EXPECT_EQ(r.actuators[0].joint, r.tree.FindJoint("j1"));
  EXPECT_EQ(r.actuators[0].gear, 1.0);
  EXPECT_TRUE(std::isinf(r.actuators[0].ctrl_upper));
  EXPECT_EQ(r.actuators[1].kind, ActuatorKind::kPosition);
  EXPECT_EQ(r.actuators[1].kp, 10.0);
  EXPECT_EQ(r.actuators[1].kv, 0.0);
  EXPECT_EQ(r.actuators[2].kind, ActuatorKind::kMotor);
  EXPECT_EQ(r.actuators[2].gear, 6.0);
  EXPECT_EQ(r.actuators[2].force_lower, -0.5);
  EXPECT_EQ(r.actuators[2].force_upper, 2.0);
  EXPECT_TRUE(AnyLineContains(m.warnings,
                              "warn.xml:14: <general>: a "
                              "<general> actuator that is not"));
  EXPECT_TRUE(AnyLineContains(m.warnings,
                              "warn.xml:16: <position>: the "
                              "servo's forcerange is not "
                              "symmetric"));
  EXPECT_TRUE(
      AnyLineContains(m.warnings,
                      "warn.xml:17: <cylinder>: <cylinder> actuators are not "
                      "applied (motor, position, velocity and general are)"));
  EXPECT_TRUE(AnyLineContains(m.warnings, "ignored 1 <light>, 1 <site>"));
  // The ellipsoid's mass properties are its own: m = rho 4/3 pi abc.
  EXPECT_NEAR(r.tree.link(r.tree.FindLink("b")).inertia.mass,
              1000 * 4.0 / 3.0 * M_PI * 0.006, 1e-12);
}

TEST(MjcfLoader, ContactAttributesBecomeSurfacesAndTheRestIsWarnedOnce) {
  // Three geoms inherit margin, solimp and condim 6 from one default
  // <geom> (line 3): each warning names that line once. The world's plane
  // keeps the defaults; a frictionless geom (condim 1) carries
  // frictional = false; solref becomes a spring-damper per unit mass.
  const MjcfModel m = ParseMjcf(R"(<mujoco>
  <option timestep="0.005"/>
  <default><geom margin="0.01" solimp="0.9 0.95 0.001" condim="6"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 1" condim="3" margin="0"
          solimp="0.9 0.95 0.001"/>
    <body name="b">
      <joint/>
      <geom size="0.1" solref="0.05 0.5" solmix="2"/>
      <geom size="0.1" pos="0 0 1" condim="1" solref="-100 -3"/>
      <geom size="0.1" pos="0 0 2" priority="1"/>
    </body>
  </worldbody>
</mujoco>)",
                                "surf.xml");
  std::vector<std::string> all = m.warnings;
  for (const std::string& w : m.robots.at(0).warnings) all.push_back(w);
  const auto count = [&](const std::string& s) {
    int n = 0;
    for (const std::string& w : all) n += w.find(s) != std::string::npos;
    return n;
  };
  EXPECT_EQ(count("surf.xml:3: <geom>: margin=0.01 is not modelled"), 1);
  EXPECT_EQ(count("surf.xml:3: <geom>: solimp is not modelled"), 1);
  EXPECT_EQ(count("surf.xml:5: <geom name='floor'>: solimp is not modelled"),
            1);
  EXPECT_EQ(count("surf.xml:3: <geom>: condim=6: torsional and rolling"), 1);
  EXPECT_EQ(count("surf.xml:11: <geom>: priority is not modelled"), 1);
  EXPECT_EQ(count("margin"), 1);  // the floor's own margin="0" is silent
  ASSERT_EQ(m.world_geometries.size(), 1u);
  const ContactSurface& floor = m.world_geometries[0].surface;
  EXPECT_TRUE(floor.frictional);
  EXPECT_EQ(floor.stiffness_per_mass, 1.0 / (0.02 * 0.02));
  EXPECT_EQ(floor.damping_per_mass, 2.0 / 0.02);
  const std::vector<ContactSurface>& g = m.geometry_surfaces.at(0);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_NEAR(g[0].stiffness_per_mass, 1.0 / (0.025 * 0.025), 1e-9);
  EXPECT_EQ(g[0].damping_per_mass, 2.0 / 0.05);
  EXPECT_EQ(g[0].mix, 2.0);
  EXPECT_TRUE(g[0].frictional);  // condim 6
  EXPECT_FALSE(g[1].frictional);
  EXPECT_EQ(g[1].stiffness_per_mass, 100.0);
  EXPECT_EQ(g[1].damping_per_mass, 3.0);
}

TEST(MjcfLoader, ErrorsNameFileLineAndElement) {
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><joint/>\n<geom "
                        "size='1' condim='2'/></body></worldbody></mujoco>"),
            "model.xml:2: <geom>: condim must be 1, 3, 4 or 6");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><joint/>\n<geom "
                        "size='1' solref='0.02 -1'/></body></worldbody>"
                        "</mujoco>"),
            "model.xml:2: <geom>: solref must be two positive numbers "
            "(timeconst, dampratio) or a negative and a non-positive one "
            "(-stiffness, -damping)");
  EXPECT_EQ(MjcfErrorOf("<robot/>"),
            "model.xml:1: the root element is <robot>, not <mujoco>: not an "
            "MJCF file");
  EXPECT_EQ(MjcfErrorOf("<mujoco>\n<worldbody>\n<body name='b' pos='0.2/2 0 0'>"
                        "<joint/><geom size='1'/></body></worldbody></mujoco>"),
            "model.xml:3: <body name='b'>: pos=\"0.2/2 0 0\" is not 3 finite "
            "numbers");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody>\n<body><joint/>\n<geom "
                        "class='nope'/></body></worldbody></mujoco>"),
            "model.xml:3: <geom>: unknown default class 'nope'");
  EXPECT_EQ(
      MjcfErrorOf("<mujoco><worldbody><body><joint/>\n<geom "
                  "type='capsule' size='0.1'/></body></worldbody></mujoco>"),
      "model.xml:2: <geom>: a capsule needs a half-length (size's "
      "second entry) or fromto");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><geom size='1'/>\n<joint "
                        "name='j' type='spiral'/></body></worldbody></mujoco>"),
            "model.xml:2: <joint name='j'>: unknown joint type 'spiral'");
  EXPECT_EQ(
      MjcfErrorOf("<mujoco><worldbody><body name='a'><geom size='1'/><body>"
                  "<geom size='1'/>\n<freejoint/></body></body></worldbody>"
                  "</mujoco>"),
      "model.xml:2: <freejoint>: a free joint must be the only joint "
      "of a top-level body");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><include file='missing.xml'/>"
                        "</worldbody></mujoco>"),
            "model.xml:1: <include>: cannot read the included file '" +
                (fs::current_path() / "missing.xml").string() +
                "': no such file");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><joint name='j'/><geom "
                        "size='1'/></body></worldbody>\n<actuator><motor "
                        "joint='k'/></actuator></mujoco>"),
            "model.xml:2: <motor>: no hinge or slide joint named 'k' in a "
            "moving body");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><joint name='j'/><geom "
                        "size='1'/></body></worldbody>\n<actuator><motor "
                        "joint='j' ctrlrange='1 -1'/></actuator></mujoco>"),
            "model.xml:2: <motor>: ctrlrange needs lower < upper when "
            "ctrllimited");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody>\n<include "
                        "file='/dev/zero'/></worldbody></mujoco>"),
            "model.xml:2: <include>: cannot read the included file "
            "'/dev/zero': not a regular file");
  EXPECT_EQ(MjcfErrorOf("<mujoco><worldbody><body><joint/>\n<geom "
                        "size='1e-110'/></body></worldbody></mujoco>"),
            "model.xml:2: <geom>: the sphere's volume is not a positive "
            "finite number (its size is out of range)");
  EXPECT_EQ(MjcfErrorOf("<mujoco>\n<compiler settotalmass='1e308'/>"
                        "<worldbody><body><joint/><geom size='1' "
                        "mass='1e-300'/></body></worldbody></mujoco>"),
            "model.xml:2: <compiler>: settotalmass scales the masses by a "
            "factor that is not finite");
  EXPECT_EQ(MjcfErrorOf("<mujoco>\n<worldbody>\n<body"),
            "model.xml:3: malformed XML: Failed to read Element name");
}

TEST(MjcfLoader, MeshGeomsCollideAsHullsWithAWarningAndAreDrawn) {
  // The KR5's bicep of Debian's dart-doc (binary STL, not convex), through
  // meshdir, scaled; it carries the body's mass by an <inertial>.
  const MjcfModel m = ParseMjcf(R"(<mujoco>
  <compiler meshdir="/usr/share/doc/dart/data/urdf/KR5/meshes"/>
  <asset><mesh file="bicep.STL" scale="2 2 2"/></asset>
  <worldbody>
    <body name="arm"><joint/>
      <inertial mass="1" diaginertia="0.1 0.1 0.1"/>
      <geom type="mesh" mesh="bicep" rgba="1 0 0 1"/>
    </body>
  </worldbody>
</mujoco>)",
                                "mesh.xml");
  const RobotDescription& r = m.robots.at(0);
  ASSERT_EQ(r.geometries.size(), 1u);
  EXPECT_EQ(r.geometries[0].shape.type, ShapeType::kMesh);
  EXPECT_EQ(r.geometries[0].shape.mesh->scale, Vector3d(2, 2, 2));
  EXPECT_EQ(r.collision_counts.approximated, 1);
  EXPECT_TRUE(AnyLineContains(r.warnings, "mesh.xml:7: <geom>: mesh "));
  EXPECT_TRUE(AnyLineContains(r.warnings, "it collides as its convex hull"));
  // Drawn as the file's triangles, scaled.
  ASSERT_EQ(r.visuals.size(), 1u);
  ASSERT_NE(r.visuals[0].mesh, nullptr);
  EXPECT_GT(r.visuals[0].mesh->triangles.size(), 0u);
  EXPECT_EQ(r.visuals[0].rgba, Eigen::Vector4d(1, 0, 0, 1));
}

TEST(MjcfLoader, GymWalkerWithAnExpressionIsAClearError) {
  // dart-doc's walker2d writes pos="0.2/2 0 0.1", which MuJoCo refuses too.
  const std::string src =
      "/usr/share/doc/dart/data/mjcf/openai/walker2d.xml.gz";
  const std::string out = MjcfTempDir() + "/walker2d.xml";
  ASSERT_EQ(std::system(("gzip -dc '" + src + "' > '" + out + "'").c_str()), 0);
  try {
    LoadMjcf(out);
    FAIL() << "loaded";
  } catch (const MjcfError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "walker2d.xml:23: <body name='foot'>: pos=\"0.2/2 0 0.1\""),
              std::string::npos)
        << e.what();
  }
}

TEST(MjcfLoader, InvertedPendulumLoads) {
  // MuJoCo 2.2.2 refuses its ctrlrange without ctrllimited; MuJoCo 3 and
  // we read it (actuators are warned, not applied).
  const MjcfModel m =
      LoadMjcf("/usr/share/doc/dart/data/mjcf/openai/inverted_pendulum.xml");
  ASSERT_EQ(m.robots.size(), 1u);
  EXPECT_EQ(m.robots[0].tree.num_velocities(), 2);
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

// <equality><joint>: a linear polycoef couples two hinges of one robot as
// URDF's mimic does, about the joints' refs (MuJoCo's qpos0):
// y - y0 = c0 + c1 (x - x0). Nonlinear ones are warned, loops refused.
TEST(MjcfLoader, LinearJointEqualitiesBecomeCouplings) {
  const std::string xml = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="a"><joint name="x" axis="0 1 0" ref="0.2"/>
      <geom type="sphere" size="0.1" pos="1 0 0"/>
      <body name="b" pos="1 0 0"><joint name="y" axis="0 1 0" ref="0.5"/>
        <geom type="sphere" size="0.1" pos="1 0 0"/>
        <body name="c" pos="1 0 0"><joint name="z" axis="0 1 0"/>
          <geom type="sphere" size="0.1" pos="1 0 0"/></body></body></body>
  </worldbody>
  <equality>
    <joint joint1="y" joint2="x" polycoef="0.1 2"/>
    <joint joint1="z" joint2="x" polycoef="0 1 0.3"/>
    <weld body1="a" body2="c"/>
  </equality>
</mujoco>)";
  const MjcfModel m = ParseMjcf(xml, "eq.xml");
  const RobotDescription& r = m.robots.at(0);
  ASSERT_EQ(r.couplings.size(), 1u);
  const JointCoupling& c = r.couplings[0];
  EXPECT_EQ(c.follower, r.tree.FindJoint("y"));
  EXPECT_EQ(c.leader, r.tree.FindJoint("x"));
  EXPECT_EQ(c.multiplier, 2.0);
  // y = 2 x + 0.5 + 0.1 - 2 * 0.2: at the refs y - 0.5 = 0.1.
  EXPECT_NEAR(c.offset, 0.2, 1e-15);
  EXPECT_TRUE(AnyLineContains(m.warnings,
                              "eq.xml:13: <joint>: a joint "
                              "equality without joint2 or with "
                              "a nonlinear polycoef"));
  // A weld within one robot would close a loop: warned.
  EXPECT_TRUE(AnyLineContains(m.warnings,
                              "eq.xml:14: <weld>: a weld between two moving "
                              "bodies (or two static ones) is not applied"));
  const std::string loop =
      "<mujoco><worldbody><body><joint name='p'/><geom size='1'/>"
      "<body><joint name='q'/><geom size='1'/></body></body></worldbody>\n"
      "<equality><joint joint1='p' joint2='q'/>\n<joint joint1='q' "
      "joint2='p'/></equality></mujoco>";
  EXPECT_NE(MjcfErrorOf(loop).find("model.xml:3: <joint>: the joint "
                                   "equalities form a loop through 'q'"),
            std::string::npos)
      << MjcfErrorOf(loop);
}

}  // namespace
}  // namespace sapcontact
