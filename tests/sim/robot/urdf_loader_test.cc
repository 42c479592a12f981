// What the URDF loader maps: tree order, base attachment, inertias rotated
// into the link frame, joint types/axes/limits/damping, mimic couplings,
// collision geometry (with the capsule extension and the options), and
// warnings.
#include "sapcontact/sim/robot/urdf_loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/common/constants.h"
#include "tests/sim/robot/robot_test_util.h"

namespace sapcontact {
namespace {

using testing_util::LineOf;
using testing_util::RepoRoot;
using testing_util::WriteTempUrdf;

using test_constants::kInf;
using test_constants::kPi;

using testing_util::RobotUrdf;

// A link with an inertial of mass m, diagonal inertia, at the origin.
std::string MassLink(const std::string& name, double m = 1.0) {
  const std::string v = std::to_string(m);
  return "  <link name=\"" + name + "\">\n    <inertial><mass value=\"" + v +
         "\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
         "iyz=\"0\" izz=\"0.01\"/></inertial>\n  </link>\n";
}

std::string JointXml(const std::string& name, const std::string& type,
                     const std::string& parent, const std::string& child,
                     const std::string& extra = "") {
  return "  <joint name=\"" + name + "\" type=\"" + type +
         "\">\n    <parent link=\"" + parent + "\"/><child link=\"" + child +
         "\"/>\n" + extra + "  </joint>\n";
}

// The warning of a robot whose links have no collision geometry.
std::string NoCollisionWarning(const std::string& source) {
  return source +
         ": robot 'test' has no collision geometry: none of its links can "
         "touch anything";
}

const std::string kLimit =
    "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"2\"/>\n";

TEST(UrdfLoader, LinksInDepthFirstOrderOfTheJointsInTheFile) {
  // Links listed out of order; joints: base->b, base->c, b->d, c->e.
  const std::string xml = RobotUrdf(
      MassLink("e") + MassLink("d") + MassLink("c") + MassLink("base") +
      MassLink("b") + JointXml("jb", "continuous", "base", "b") +
      JointXml("jc", "continuous", "base", "c") +
      JointXml("jd", "continuous", "b", "d") +
      JointXml("je", "continuous", "c", "e"));
  const RobotDescription robot = ParseUrdf(xml, "tree.urdf");
  EXPECT_EQ(robot.name, "test");
  ASSERT_EQ(robot.tree.num_links(), 5);
  const char* links[] = {"base", "b", "d", "c", "e"};
  const char* joints[] = {"base_base", "jb", "jd", "jc", "je"};
  const int parents[] = {-1, 0, 1, 0, 3};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(robot.tree.link(i).name, links[i]);
    EXPECT_EQ(robot.tree.joint(i).name, joints[i]);
    EXPECT_EQ(robot.tree.joint(i).parent, parents[i]);
  }
  EXPECT_EQ(robot.tree.num_positions(), 4);
  EXPECT_EQ(robot.tree.num_velocities(), 4);
  EXPECT_EQ(robot.warnings,
            std::vector<std::string>{NoCollisionWarning("tree.urdf")});
}

TEST(UrdfLoader, RootWeldedAtTheBasePoseByDefault) {
  const std::string xml =
      RobotUrdf(MassLink("root", 2.0) + MassLink("tip") +
                JointXml("j", "prismatic", "root", "tip", kLimit));
  UrdfOptions options;
  options.base_pose.position = Vector3(1.0, -2.0, 0.5);
  options.base_pose.orientation = QuaternionFromRpy(Vector3(0.1, 0.2, 0.3));
  const RobotDescription robot = ParseUrdf(xml, "weld.urdf", options);
  const Joint& base = robot.tree.joint(0);
  EXPECT_EQ(base.name, "root_base");
  EXPECT_EQ(base.type, JointType::kFixed);
  EXPECT_EQ(base.parent, -1);
  EXPECT_TRUE(base.origin.translation().isApprox(Vector3(1.0, -2.0, 0.5)));
  EXPECT_TRUE(base.origin.linear().isApprox(
      options.base_pose.orientation.toRotationMatrix(), 1e-14));
  EXPECT_EQ(robot.tree.num_positions(), 1);
  EXPECT_EQ(robot.initial_positions, Eigen::VectorXd::Zero(1));
  EXPECT_DOUBLE_EQ(robot.tree.TotalMass(), 3.0);
}

TEST(UrdfLoader, FloatingBaseStartsAtTheBasePose) {
  const std::string xml =
      RobotUrdf(MassLink("root") + MassLink("tip") +
                JointXml("j", "revolute", "root", "tip", kLimit));
  UrdfOptions options;
  options.floating_base = true;
  options.base_pose.position = Vector3(0.0, 0.0, 1.5);
  options.base_pose.orientation =
      Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Vector3::UnitZ()));
  const RobotDescription robot = ParseUrdf(xml, "float.urdf", options);
  const Joint& base = robot.tree.joint(0);
  EXPECT_EQ(base.name, "root_base");
  EXPECT_EQ(base.type, JointType::kFloating);
  EXPECT_TRUE(base.origin.isApprox(Eigen::Isometry3d::Identity()));
  ASSERT_EQ(robot.tree.num_positions(), 8);
  EXPECT_EQ(robot.tree.num_velocities(), 7);
  Eigen::VectorXd expected(8);
  expected << 0, 0, 1.5, std::cos(0.25), 0, 0, std::sin(0.25), 0;
  EXPECT_TRUE(robot.initial_positions.isApprox(expected, 1e-14))
      << robot.initial_positions.transpose();
}

TEST(UrdfLoader, InertiaIsRotatedIntoTheLinkFrame) {
  // Principal moments (1, 2, 3) in a frame rotated by +90 deg about x
  // (rpy = (pi/2, 0, 0)): the frame's y axis is the link's z axis and its
  // z axis the link's -y axis, so I_L = diag(1, 3, 2). The second link
  // adds a product of inertia and a yaw of +90 deg (frame x = link y,
  // frame y = link -x): [[2, 0.1, 0], [0.1, 1, 0], [0, 0, 3]] becomes
  // [[1, -0.1, 0], [-0.1, 2, 0], [0, 0, 3]] (checked by hand).
  const std::string xml = RobotUrdf(
      "  <link name=\"a\">\n    <inertial>\n"
      "      <origin xyz=\"0.1 0.2 0.3\" rpy=\"1.5707963267948966 0 0\"/>\n"
      "      <mass value=\"4\"/>\n"
      "      <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" "
      "izz=\"3\"/>\n    </inertial>\n  </link>\n"
      "  <link name=\"b\">\n    <inertial>\n"
      "      <origin xyz=\"0 0 -0.5\" rpy=\"0 0 1.5707963267948966\"/>\n"
      "      <mass value=\"1\"/>\n"
      "      <inertia ixx=\"2\" ixy=\"0.1\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
      "izz=\"3\"/>\n    </inertial>\n  </link>\n" +
      JointXml("j", "continuous", "a", "b"));
  const RobotDescription robot = ParseUrdf(xml, "inertia.urdf");
  const LinkInertia& a = robot.tree.link(0).inertia;
  EXPECT_DOUBLE_EQ(a.mass, 4.0);
  EXPECT_TRUE(a.com.isApprox(Vector3(0.1, 0.2, 0.3)));
  Eigen::Matrix3d expected_a = Eigen::Vector3d(1, 3, 2).asDiagonal();
  EXPECT_TRUE(a.inertia.isApprox(expected_a, 1e-12)) << a.inertia;
  const LinkInertia& b = robot.tree.link(1).inertia;
  Eigen::Matrix3d expected_b;
  expected_b << 1, -0.1, 0, -0.1, 2, 0, 0, 0, 3;
  EXPECT_TRUE(b.inertia.isApprox(expected_b, 1e-12)) << b.inertia;
  EXPECT_TRUE(b.com.isApprox(Vector3(0, 0, -0.5)));
}

TEST(UrdfLoader, InertiaWithGeneralRpyMatchesRIRt) {
  const std::string xml = RobotUrdf(
      "  <link name=\"a\">\n    <inertial>\n"
      "      <origin xyz=\"0 0 0\" rpy=\"0.3 -0.7 1.1\"/>\n"
      "      <mass value=\"1\"/>\n"
      "      <inertia ixx=\"0.5\" ixy=\"0.01\" ixz=\"-0.02\" "
      "iyy=\"0.6\" iyz=\"0.03\" izz=\"0.7\"/>\n"
      "    </inertial>\n  </link>\n");
  const RobotDescription robot = ParseUrdf(xml, "rpy.urdf");
  Eigen::Matrix3d I;
  I << 0.5, 0.01, -0.02, 0.01, 0.6, 0.03, -0.02, 0.03, 0.7;
  const Eigen::Matrix3d R =
      QuaternionFromRpy(Vector3(0.3, -0.7, 1.1)).toRotationMatrix();
  EXPECT_TRUE(robot.tree.link(0).inertia.inertia.isApprox(R * I * R.transpose(),
                                                          1e-12));
}

TEST(UrdfLoader, MissingInertialIsMassless) {
  const RobotDescription robot =
      ParseUrdf(RobotUrdf("  <link name=\"only\"/>\n"), "massless.urdf");
  ASSERT_EQ(robot.tree.num_links(), 1);
  EXPECT_EQ(robot.tree.link(0).inertia.mass, 0.0);
  EXPECT_TRUE(robot.tree.link(0).inertia.inertia.isZero());
  EXPECT_EQ(robot.tree.num_positions(), 0);
  EXPECT_EQ(robot.initial_positions.size(), 0);
}

TEST(UrdfLoader, JointTypesAxesLimitsAndDamping) {
  const std::string xml = RobotUrdf(
      MassLink("l0") + MassLink("l1") + MassLink("l2") + MassLink("l3") +
      MassLink("l4") + MassLink("l5") +
      JointXml(
          "rev", "revolute", "l0", "l1",
          "    <origin xyz=\"0.1 0 0.2\" rpy=\"0 0 1.5707963267948966\"/>\n"
          "    <axis xyz=\"0 3 4\"/>\n"
          "    <limit lower=\"-1.5\" upper=\"2\" effort=\"30\" "
          "velocity=\"4\"/>\n    <dynamics damping=\"0.7\"/>\n") +
      JointXml("cont", "continuous", "l1", "l2",
               "    <limit lower=\"-1\" upper=\"1\" effort=\"0\" "
               "velocity=\"3\"/>\n") +
      JointXml(
          "pri", "prismatic", "l2", "l3",
          "    <axis xyz=\"0 0 -2\"/>\n"
          "    <limit lower=\"0\" upper=\"0.05\" effort=\"100\" "
          "velocity=\"0\"/>\n    <dynamics damping=\"2\" friction=\"0\"/>\n") +
      JointXml("fix", "fixed", "l3", "l4",
               "    <origin xyz=\"0 0 1\"/>\n    <axis xyz=\"0 1 0\"/>\n") +
      JointXml("noaxis", "continuous", "l4", "l5", "    <axis/>\n"));
  const RobotDescription robot = ParseUrdf(xml, "joints.urdf");
  const MultibodyTree& t = robot.tree;
  ASSERT_EQ(t.num_links(), 6);

  const Joint& rev = t.joint(t.FindJoint("rev"));
  EXPECT_EQ(rev.type, JointType::kRevolute);
  EXPECT_TRUE(rev.axis.isApprox(Vector3(0, 0.6, 0.8)));
  EXPECT_DOUBLE_EQ(rev.lower, -1.5);
  EXPECT_DOUBLE_EQ(rev.upper, 2.0);
  EXPECT_DOUBLE_EQ(rev.effort_limit, 30.0);
  EXPECT_DOUBLE_EQ(rev.velocity_limit, 4.0);
  EXPECT_DOUBLE_EQ(rev.damping, 0.7);
  EXPECT_TRUE(rev.origin.translation().isApprox(Vector3(0.1, 0, 0.2)));
  EXPECT_TRUE(rev.origin.linear().isApprox(
      Eigen::AngleAxisd(kPi / 2, Vector3::UnitZ()).toRotationMatrix(), 1e-14));

  const Joint& cont = t.joint(t.FindJoint("cont"));
  EXPECT_EQ(cont.type, JointType::kRevolute);
  EXPECT_TRUE(cont.axis.isApprox(Vector3::UnitX()));  // URDF default
  EXPECT_EQ(cont.lower, -kInf);                       // continuous
  EXPECT_EQ(cont.upper, kInf);
  EXPECT_EQ(cont.effort_limit, kInf);  // 0 means unset
  EXPECT_DOUBLE_EQ(cont.velocity_limit, 3.0);
  EXPECT_EQ(cont.damping, 0.0);

  const Joint& pri = t.joint(t.FindJoint("pri"));
  EXPECT_EQ(pri.type, JointType::kPrismatic);
  EXPECT_TRUE(pri.axis.isApprox(Vector3(0, 0, -1)));
  EXPECT_DOUBLE_EQ(pri.lower, 0.0);
  EXPECT_DOUBLE_EQ(pri.upper, 0.05);
  EXPECT_DOUBLE_EQ(pri.effort_limit, 100.0);
  EXPECT_EQ(pri.velocity_limit, kInf);  // 0 means unset
  EXPECT_DOUBLE_EQ(pri.damping, 2.0);

  const Joint& fix = t.joint(t.FindJoint("fix"));
  EXPECT_EQ(fix.type, JointType::kFixed);
  EXPECT_TRUE(fix.origin.translation().isApprox(Vector3(0, 0, 1)));

  // <axis/> without xyz: the URDF default (1, 0, 0).
  EXPECT_TRUE(t.joint(t.FindJoint("noaxis")).axis.isApprox(Vector3::UnitX()));
  EXPECT_EQ(t.num_positions(), 4);
  // friction="0" is no warning.
  EXPECT_EQ(robot.warnings,
            std::vector<std::string>{NoCollisionWarning("joints.urdf")});
}

TEST(UrdfLoader, FloatingJointInsideTheTree) {
  const std::string xml =
      RobotUrdf(MassLink("a") + MassLink("b") +
                JointXml("free", "floating", "a", "b",
                         "    <origin xyz=\"0 0 2\"/>\n"
                         "    <dynamics damping=\"0.1\"/>\n"));
  const RobotDescription robot = ParseUrdf(xml, "floating.urdf");
  const Joint& free = robot.tree.joint(1);
  EXPECT_EQ(free.type, JointType::kFloating);
  EXPECT_DOUBLE_EQ(free.damping, 0.1);
  EXPECT_EQ(robot.tree.num_positions(), 7);
  EXPECT_EQ(robot.tree.num_velocities(), 6);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(7);
  expected(3) = 1.0;  // identity quaternion
  EXPECT_EQ(robot.initial_positions, expected);
}

TEST(UrdfLoader, JointFrictionIsAFrictionLoss) {
  const std::string xml =
      RobotUrdf(MassLink("a") + MassLink("b") +
                JointXml("j", "continuous", "a", "b",
                         "    <dynamics damping=\"0.2\" friction=\"0.3\"/>\n"));
  const RobotDescription robot = ParseUrdf(xml, "friction.urdf");
  EXPECT_DOUBLE_EQ(robot.tree.joint(1).damping, 0.2);
  EXPECT_DOUBLE_EQ(robot.tree.joint(1).friction_loss, 0.3);
  ASSERT_EQ(robot.warnings.size(), 1u);
  EXPECT_EQ(robot.warnings[0], NoCollisionWarning("friction.urdf"));
  const std::string negative =
      RobotUrdf(MassLink("a") + MassLink("b") +
                JointXml("j", "continuous", "a", "b",
                         "    <dynamics friction=\"-1\"/>\n"));
  try {
    ParseUrdf(negative, "neg.urdf");
    ADD_FAILURE() << "negative friction accepted";
  } catch (const UrdfError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "neg.urdf:" + std::to_string(LineOf(negative, "<dynamics")) + ":"),
        std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("must not be negative"),
              std::string::npos)
        << e.what();
  }
}

TEST(UrdfLoader, MimicBecomesACoupling) {
  // The follower may come before its leader in the file; multiplier and
  // offset default to 1 and 0.
  const std::string xml = RobotUrdf(
      MassLink("palm") + MassLink("left") + MassLink("right") +
      MassLink("thumb") +
      JointXml("right_finger", "prismatic", "palm", "right",
               kLimit + "    <mimic joint=\"left_finger\" multiplier=\"-2\" "
                        "offset=\"0.01\"/>\n") +
      JointXml("left_finger", "prismatic", "palm", "left", kLimit) +
      JointXml("thumb_joint", "revolute", "palm", "thumb",
               kLimit + "    <mimic joint=\"left_finger\"/>\n"));
  const RobotDescription robot = ParseUrdf(xml, "mimic.urdf");
  const MultibodyTree& t = robot.tree;
  ASSERT_EQ(robot.couplings.size(), 2u);
  const JointCoupling& c0 = robot.couplings[0];
  EXPECT_EQ(c0.follower, t.FindJoint("right_finger"));
  EXPECT_EQ(c0.leader, t.FindJoint("left_finger"));
  EXPECT_DOUBLE_EQ(c0.multiplier, -2.0);
  EXPECT_DOUBLE_EQ(c0.offset, 0.01);
  const JointCoupling& c1 = robot.couplings[1];
  EXPECT_EQ(c1.follower, t.FindJoint("thumb_joint"));
  EXPECT_EQ(c1.leader, t.FindJoint("left_finger"));
  EXPECT_DOUBLE_EQ(c1.multiplier, 1.0);
  EXPECT_DOUBLE_EQ(c1.offset, 0.0);
}

TEST(UrdfLoader, CollisionGeometryPosesShapesAndNames) {
  const std::string xml = RobotUrdf(
      "  <link name=\"base\">\n"
      "    <visual><geometry><mesh filename=\"base.dae\"/></geometry>\n"
      "      <material name=\"undefined_elsewhere\"/></visual>\n"
      "    <collision name=\"plate\">\n"
      "      <origin xyz=\"0 0 0.05\" rpy=\"0 0 0.5\"/>\n"
      "      <geometry><box size=\"0.4 0.3 0.1\"/></geometry>\n"
      "    </collision>\n"
      "    <visual><geometry><capsule radius=\"1\" length=\"1\"/></geometry>"
      "</visual>\n"
      "    <collision>\n"
      "      <geometry><sphere radius=\"0.05\"/></geometry>\n"
      "    </collision>\n"
      "  </link>\n"
      "  <link name=\"arm\">\n"
      "    <collision>\n"
      "      <origin xyz=\"0.2 0 0\" rpy=\"0 1.5707963267948966 0\"/>\n"
      "      <geometry><capsule radius=\"0.04\" length=\"0.3\"/></geometry>\n"
      "    </collision>\n"
      "    <collision name=\"tip\">\n"
      "      <origin xyz=\"0.4 0 0\"/>\n"
      "      <geometry><capsule radius=\"0.02\" length=\"0\"/></geometry>\n"
      "    </collision>\n"
      "  </link>\n"
      "  <material name=\"blue\"><color rgba=\"0 0 1 1\"/></material>\n" +
      JointXml("j", "continuous", "base", "arm"));
  const RobotDescription robot = ParseUrdf(xml, "geometry.urdf");
  ASSERT_EQ(robot.geometries.size(), 4u);

  const RobotGeometry& plate = robot.geometries[0];
  EXPECT_EQ(plate.name, "base/plate");
  EXPECT_EQ(plate.link, 0);
  EXPECT_EQ(plate.shape.type, ShapeType::kBox);
  EXPECT_TRUE(plate.shape.size.isApprox(Vector3(0.4, 0.3, 0.1)));
  EXPECT_TRUE(plate.pose_in_link.position.isApprox(Vector3(0, 0, 0.05)));
  EXPECT_TRUE(plate.pose_in_link.orientation.isApprox(
      Eigen::Quaterniond(Eigen::AngleAxisd(0.5, Vector3::UnitZ())), 1e-14));

  const RobotGeometry& ball = robot.geometries[1];
  EXPECT_EQ(ball.name, "base/1");  // unnamed: the index in the link
  EXPECT_EQ(ball.link, 0);
  EXPECT_EQ(ball.shape.type, ShapeType::kSphere);
  EXPECT_DOUBLE_EQ(ball.shape.radius, 0.05);
  EXPECT_TRUE(ball.pose_in_link.position.isZero());
  EXPECT_TRUE(
      ball.pose_in_link.orientation.isApprox(Eigen::Quaterniond::Identity()));

  const RobotGeometry& capsule = robot.geometries[2];
  EXPECT_EQ(capsule.name, "arm/0");
  EXPECT_EQ(capsule.link, 1);
  EXPECT_EQ(capsule.shape.type, ShapeType::kCapsule);
  EXPECT_DOUBLE_EQ(capsule.shape.radius, 0.04);
  EXPECT_DOUBLE_EQ(capsule.shape.length, 0.3);
  EXPECT_TRUE(capsule.pose_in_link.position.isApprox(Vector3(0.2, 0, 0)));
  // The capsule's z axis is the link's x axis.
  EXPECT_TRUE((capsule.pose_in_link.orientation * Vector3::UnitZ())
                  .isApprox(Vector3::UnitX(), 1e-14));

  const RobotGeometry& tip = robot.geometries[3];
  EXPECT_EQ(tip.name, "arm/tip");
  EXPECT_EQ(tip.shape.type, ShapeType::kCapsule);
  EXPECT_DOUBLE_EQ(tip.shape.radius, 0.02);
  EXPECT_DOUBLE_EQ(tip.shape.length, 0.0);
  // The visuals are display only: a mesh that cannot be read and a
  // material defined nowhere are warnings, the capsule is drawn.
  ASSERT_EQ(robot.warnings.size(), 2u);
  EXPECT_NE(robot.warnings[0].find("undefined_elsewhere"), std::string::npos);
  EXPECT_NE(robot.warnings[1].find("base.dae"), std::string::npos);
  ASSERT_EQ(robot.visuals.size(), 1u);
  EXPECT_EQ(robot.visuals[0].type, ShapeType::kCapsule);
}

std::string CylinderRobot() {
  return RobotUrdf(
      "  <link name=\"a\">\n"
      "    <collision name=\"long\">\n"
      "      <origin xyz=\"0 0 0.3\"/>\n"
      "      <geometry><cylinder radius=\"0.1\" length=\"0.5\"/></geometry>\n"
      "    </collision>\n"
      "    <collision name=\"flat\">\n"
      "      <geometry><cylinder radius=\"0.1\" length=\"0.15\"/></geometry>\n"
      "    </collision>\n"
      "    <collision name=\"pad\">\n"
      "      <geometry><box size=\"0.1 0.1 0.1\"/></geometry>\n"
      "    </collision>\n"
      "    <collision>\n"
      "      <geometry><cone radius=\"0.1\" length=\"0.1\"/></geometry>\n"
      "    </collision>\n"
      "  </link>\n");
}

TEST(UrdfLoader, CylindersAsCapsules) {
  UrdfOptions options;
  options.cylinders_as_capsules = true;
  options.skip_unsupported = true;  // the cone
  const RobotDescription robot =
      ParseUrdf(CylinderRobot(), "cyl.urdf", options);
  ASSERT_EQ(robot.geometries.size(), 3u);
  const Shape& along = robot.geometries[0].shape;
  EXPECT_EQ(robot.geometries[0].name, "a/long");
  EXPECT_EQ(along.type, ShapeType::kCapsule);
  EXPECT_DOUBLE_EQ(along.radius, 0.1);
  EXPECT_NEAR(along.length, 0.3, 1e-15);  // 0.5 - 2 * 0.1
  EXPECT_TRUE(
      robot.geometries[0].pose_in_link.position.isApprox(Vector3(0, 0, 0.3)));
  const Shape& flat = robot.geometries[1].shape;
  EXPECT_EQ(flat.type, ShapeType::kCapsule);  // shorter than 2 r: a sphere
  EXPECT_DOUBLE_EQ(flat.radius, 0.1);
  EXPECT_EQ(flat.length, 0.0);
  EXPECT_EQ(robot.geometries[2].name, "a/pad");
  // Two cylinders approximated, the cone skipped.
  EXPECT_EQ(robot.warnings.size(), 3u);
  EXPECT_EQ(robot.collision_counts.loaded, 3);
  EXPECT_EQ(robot.collision_counts.approximated, 2);
  EXPECT_EQ(robot.collision_counts.dropped, 1);
}

TEST(UrdfLoader, SkipUnsupportedDropsGeometryWithWarnings) {
  const std::string xml = CylinderRobot();
  UrdfOptions options;
  options.skip_unsupported = true;
  const RobotDescription robot = ParseUrdf(xml, "skip.urdf", options);
  ASSERT_EQ(robot.geometries.size(), 3u);
  EXPECT_EQ(robot.geometries[0].shape.type, ShapeType::kCylinder);
  EXPECT_EQ(robot.geometries[2].name, "a/pad");  // names keep the URDF index
  ASSERT_EQ(robot.warnings.size(), 1u);
  EXPECT_EQ(robot.warnings[0],
            "skip.urdf:" + std::to_string(LineOf(xml, "<cone")) +
                ": <cone> in link 'a' collision 3 skipped (unknown geometry)");
}

TEST(UrdfLoader, LoadUrdfReadsTheFileAndNamesIt) {
  const std::string xml =
      RobotUrdf(MassLink("a") + MassLink("b") +
                JointXml("j", "continuous", "a", "b",
                         "    <dynamics friction=\"1\"/>\n"));
  const std::string path = WriteTempUrdf("named.urdf", xml);
  const RobotDescription robot = LoadUrdf(path);
  EXPECT_EQ(robot.tree.num_links(), 2);
  ASSERT_EQ(robot.warnings.size(), 1u);
  EXPECT_EQ(robot.warnings[0], NoCollisionWarning(path));
  EXPECT_EQ(robot.tree.joint(1).friction_loss, 1.0);
}

TEST(UrdfLoader, WhitespaceAndXmlDetailsAreTolerated) {
  // Comments, an XML declaration, numbers with surrounding and repeated
  // whitespace (urdfdom alone would reject " 1.0 "), and elements the loader
  // ignores (<transmission>, <gazebo>, <safety_controller>, <calibration>,
  // <limit> on a fixed joint).
  const std::string xml = RobotUrdf(
      "  <!-- a comment -->\n"
      "  <link name=\"a\">\n    <inertial><mass value=\" 1.0 \"/>\n"
      "      <origin xyz=\"  0\t0   0.5 \"/>\n"
      "      <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
      "izz=\"1\"/></inertial>\n  </link>\n" +
      MassLink("b") + MassLink("c") +
      JointXml(
          "j", "revolute", "a", "b",
          "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
          "    <safety_controller soft_lower_limit=\"0\"/>\n"
          "    <calibration rising=\"x\"/>\n") +
      JointXml("f", "fixed", "b", "c", "    <limit/>\n") +
      "  <transmission name=\"t\"><type>x</type></transmission>\n"
      "  <gazebo reference=\"a\"/>\n");
  const RobotDescription robot = ParseUrdf(xml, "details.urdf");
  EXPECT_DOUBLE_EQ(robot.tree.link(0).inertia.mass, 1.0);
  EXPECT_TRUE(robot.tree.link(0).inertia.com.isApprox(Vector3(0, 0, 0.5)));
  EXPECT_EQ(robot.tree.num_links(), 3);
}

TEST(UrdfLoader, DocsExampleLoads) {
  // The example in docs/robots.md, "URDF support".
  std::ifstream in(RepoRoot() + "/docs/robots.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("```xml\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 7);
  ASSERT_NE(end, std::string::npos);
  UrdfOptions options;
  options.base_pose.position = Vector3(0, 0, 1);
  const RobotDescription robot =
      ParseUrdf(doc.substr(begin + 7, end - begin - 7), "robots.md", options);
  ASSERT_EQ(robot.tree.num_links(), 2);
  EXPECT_EQ(robot.tree.joint(0).name, "base_base");
  EXPECT_EQ(robot.tree.joint(1).name, "pivot");
  ASSERT_EQ(robot.geometries.size(), 2u);
  EXPECT_EQ(robot.geometries[0].name, "bob/rod");
  EXPECT_EQ(robot.geometries[0].shape.type, ShapeType::kCapsule);
  EXPECT_EQ(robot.geometries[1].name, "bob/ball");
  EXPECT_EQ(robot.geometries[1].link, 1);
}

TEST(UrdfLoader, ConcurrentParsesAreIndependent) {
  // urdfdom's console output is redirected process-wide while it parses;
  // concurrent loads (some failing inside urdfdom) must not interfere.
  const std::string good = RobotUrdf(MassLink("a") + MassLink("b") +
                                     JointXml("j", "continuous", "a", "b"));
  const std::string bad =
      "<robot name=\"r\" version=\"3.0\">\n  <link name=\"a\"/>\n</robot>\n";
  std::vector<int> ok(8, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 50; ++k) {
        if (i % 2 == 0) {
          ok[i] += ParseUrdf(good, "good.urdf").tree.num_links() == 2;
        } else {
          try {
            ParseUrdf(bad, "bad.urdf");
          } catch (const UrdfError& e) {
            ok[i] += std::string(e.what()).find("only version 1.0") !=
                     std::string::npos;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(ok[i], 50) << i;
}

}  // namespace
}  // namespace sapcontact
