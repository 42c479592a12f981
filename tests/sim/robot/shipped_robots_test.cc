// The URDFs shipped for the scenes (config/scenes/robots/*.urdf) load, with
// the masses, degrees of freedom, limits and geometry their header comments
// state, and inertias consistent with their collision shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/common/constants.h"
#include "tests/sim/robot/robot_test_util.h"

namespace sapcontact {
namespace {

using testing_util::RobotPath;

using test_constants::kInf;

RobotDescription Load(const std::string& name) {
  return LoadUrdf(RobotPath(name));
}

// World pose of geometry g at q (base at the world origin).
Eigen::Isometry3d GeometryPose(const RobotDescription& robot, int g,
                               const Eigen::VectorXd& q) {
  std::vector<Eigen::Isometry3d> X_WL;
  CalcLinkPoses(robot.tree, q, &X_WL);
  const RobotGeometry& geometry = robot.geometries[g];
  Eigen::Isometry3d X_LG = Eigen::Isometry3d::Identity();
  X_LG.translation() = geometry.pose_in_link.position;
  X_LG.linear() = geometry.pose_in_link.rotation();
  return X_WL[geometry.link] * X_LG;
}

int FindGeometry(const RobotDescription& robot, const std::string& name) {
  for (size_t g = 0; g < robot.geometries.size(); ++g) {
    if (robot.geometries[g].name == name) return static_cast<int>(g);
  }
  ADD_FAILURE() << "no geometry " << name;
  return -1;
}

// Every link with mass and exactly one collision shape is that shape,
// homogeneous: centre of mass at the shape's centre and inertia of the
// shape, rotated into the link frame.
void ExpectInertiasMatchShapes(const RobotDescription& robot,
                               int* links_checked) {
  *links_checked = 0;
  for (int i = 0; i < robot.tree.num_links(); ++i) {
    const LinkInertia& inertia = robot.tree.link(i).inertia;
    std::vector<const RobotGeometry*> shapes;
    for (const RobotGeometry& g : robot.geometries) {
      if (g.link == i) shapes.push_back(&g);
    }
    if (inertia.mass == 0.0 || shapes.size() != 1) continue;
    const RobotGeometry& g = *shapes[0];
    const MassProperties expected =
        MassPropertiesFromMass(g.shape, inertia.mass);
    const Matrix3 R = g.pose_in_link.rotation();
    EXPECT_TRUE(inertia.com.isApprox(g.pose_in_link.position, 1e-12))
        << robot.name << " " << robot.tree.link(i).name;
    EXPECT_TRUE(
        inertia.inertia.isApprox(R * expected.inertia * R.transpose(), 1e-5))
        << robot.name << " " << robot.tree.link(i).name << "\n"
        << inertia.inertia << "\nshape:\n"
        << R * expected.inertia * R.transpose();
    ++*links_checked;
  }
}

TEST(ShippedRobots, Pendulum) {
  const RobotDescription robot = Load("pendulum");
  EXPECT_EQ(robot.name, "pendulum");
  ASSERT_EQ(robot.tree.num_links(), 2);
  EXPECT_EQ(robot.tree.num_positions(), 1);
  EXPECT_DOUBLE_EQ(robot.tree.TotalMass(), 1.0);
  const Joint& pivot = robot.tree.joint(1);
  EXPECT_EQ(pivot.name, "pivot");
  EXPECT_EQ(pivot.type, JointType::kRevolute);
  EXPECT_TRUE(pivot.axis.isApprox(Vector3::UnitY()));
  EXPECT_EQ(pivot.lower, -kInf);
  EXPECT_EQ(pivot.upper, kInf);
  EXPECT_EQ(pivot.damping, 0.0);
  EXPECT_TRUE(robot.tree.link(1).inertia.com.isApprox(Vector3(0, 0, -0.5)));
  ASSERT_EQ(robot.geometries.size(), 1u);
  EXPECT_EQ(robot.geometries[0].shape.type, ShapeType::kSphere);
  EXPECT_DOUBLE_EQ(robot.geometries[0].shape.radius, 0.02);
  int checked = 0;
  ExpectInertiasMatchShapes(robot, &checked);
  EXPECT_EQ(checked, 1);
  // A quarter turn about +y takes the bob from -z to -x.
  Eigen::VectorXd q(1);
  q << M_PI / 2;
  EXPECT_TRUE(GeometryPose(robot, 0, q)
                  .translation()
                  .isApprox(Vector3(-0.5, 0, 0), 1e-12));
}

TEST(ShippedRobots, LimitPendulum) {
  const RobotDescription robot = Load("limit_pendulum");
  ASSERT_EQ(robot.tree.num_positions(), 1);
  const Joint& pivot = robot.tree.joint(1);
  EXPECT_EQ(pivot.type, JointType::kRevolute);
  EXPECT_TRUE(pivot.axis.isApprox(Vector3::UnitY()));
  EXPECT_DOUBLE_EQ(pivot.lower, -0.5);
  EXPECT_DOUBLE_EQ(pivot.upper, 0.5);
  EXPECT_EQ(pivot.effort_limit, kInf);  // effort="0": unset
  EXPECT_EQ(pivot.velocity_limit, kInf);
  EXPECT_DOUBLE_EQ(robot.tree.TotalMass(), 1.0);
}

TEST(ShippedRobots, DoublePendulum) {
  const RobotDescription robot = Load("double_pendulum");
  ASSERT_EQ(robot.tree.num_links(), 3);
  EXPECT_EQ(robot.tree.num_positions(), 2);
  EXPECT_DOUBLE_EQ(robot.tree.TotalMass(), 2.0);
  for (int j : {1, 2}) {
    EXPECT_TRUE(robot.tree.joint(j).axis.isApprox(Vector3::UnitY()));
    EXPECT_EQ(robot.tree.joint(j).upper, kInf);
  }
  int checked = 0;
  ExpectInertiasMatchShapes(robot, &checked);
  EXPECT_EQ(checked, 2);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(2);
  EXPECT_NEAR(GeometryPose(robot, 1, q).translation().z(), -1.0, 1e-12);
  q << M_PI / 2, -M_PI / 2;  // upper rod along -x, lower rod down again
  EXPECT_TRUE(GeometryPose(robot, 1, q)
                  .translation()
                  .isApprox(Vector3(-0.5, 0, -0.5), 1e-12));
}

TEST(ShippedRobots, Arm7) {
  const RobotDescription robot = Load("arm7");
  ASSERT_EQ(robot.tree.num_links(), 8);
  EXPECT_EQ(robot.tree.num_positions(), 7);
  EXPECT_NEAR(robot.tree.TotalMass(), 5.0 + 17.5, 1e-12);
  const double effort[] = {300, 300, 150, 150, 50, 40, 30};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(robot.tree.link(i).name, "link" + std::to_string(i));
  }
  for (int j = 1; j <= 7; ++j) {
    const Joint& joint = robot.tree.joint(j);
    EXPECT_EQ(joint.name, "joint" + std::to_string(j));
    EXPECT_EQ(joint.type, JointType::kRevolute);
    EXPECT_TRUE(
        joint.axis.isApprox(j % 2 == 1 ? Vector3::UnitZ() : Vector3::UnitY()));
    EXPECT_DOUBLE_EQ(joint.effort_limit, effort[j - 1]);
    EXPECT_TRUE(std::isfinite(joint.velocity_limit));
    EXPECT_LT(joint.lower, 0.0);
    EXPECT_DOUBLE_EQ(joint.upper, -joint.lower);
    EXPECT_DOUBLE_EQ(joint.damping, 0.5);
    EXPECT_GE(robot.tree.link(j).inertia.mass, 1.0);
    EXPECT_LE(robot.tree.link(j).inertia.mass, 4.0);
  }
  EXPECT_EQ(robot.geometries.size(), 8u);
  int checked = 0;
  ExpectInertiasMatchShapes(robot, &checked);
  EXPECT_EQ(checked, 8);
  // Straight up at q = 0: shoulder (joint2) at 0.35, tool tip at 1.35.
  std::vector<Eigen::Isometry3d> X_WL;
  CalcLinkPoses(robot.tree, robot.initial_positions, &X_WL);
  EXPECT_NEAR(X_WL[2].translation().z(), 0.35, 1e-12);
  const Eigen::Isometry3d tool =
      GeometryPose(robot, 7, robot.initial_positions);
  EXPECT_NEAR(tool.translation().z() + 0.095 / 2, 1.35, 1e-12);
}

TEST(ShippedRobots, Gripper) {
  const RobotDescription robot = Load("gripper");
  const MultibodyTree& t = robot.tree;
  ASSERT_EQ(t.num_links(), 5);
  EXPECT_EQ(t.num_positions(), 3);
  EXPECT_NEAR(t.TotalMass(), 2.7, 1e-12);
  EXPECT_EQ(t.link(0).name, "frame");
  EXPECT_EQ(t.link(0).inertia.mass, 0.0);
  const Joint& lift = t.joint(t.FindJoint("lift"));
  EXPECT_EQ(lift.type, JointType::kPrismatic);
  EXPECT_TRUE(lift.axis.isApprox(Vector3::UnitZ()));
  EXPECT_DOUBLE_EQ(lift.lower, -0.3);
  EXPECT_DOUBLE_EQ(lift.upper, 0.3);
  EXPECT_DOUBLE_EQ(lift.effort_limit, 500.0);
  EXPECT_EQ(t.joint(t.FindJoint("palm_mount")).type, JointType::kFixed);
  for (const char* name : {"left_finger", "right_finger"}) {
    const Joint& finger = t.joint(t.FindJoint(name));
    EXPECT_EQ(finger.type, JointType::kPrismatic);
    EXPECT_DOUBLE_EQ(finger.lower, 0.0);
    EXPECT_DOUBLE_EQ(finger.upper, 0.05);
    EXPECT_DOUBLE_EQ(finger.effort_limit, 100.0);
  }
  ASSERT_EQ(robot.couplings.size(), 1u);
  EXPECT_EQ(robot.couplings[0].follower, t.FindJoint("right_finger"));
  EXPECT_EQ(robot.couplings[0].leader, t.FindJoint("left_finger"));
  EXPECT_DOUBLE_EQ(robot.couplings[0].multiplier, 1.0);
  EXPECT_DOUBLE_EQ(robot.couplings[0].offset, 0.0);
  int checked = 0;
  ExpectInertiasMatchShapes(robot, &checked);
  EXPECT_EQ(checked, 4);

  // The geometry stated in the file's comment, at lift 0.1 and fingers
  // opened by 0.025 and 0.04.
  Eigen::VectorXd q = robot.initial_positions;
  const double q_lift = 0.1, q_left = 0.025, q_right = 0.04;
  q(t.position_start(t.FindJoint("lift"))) = q_lift;
  q(t.position_start(t.FindJoint("left_finger"))) = q_left;
  q(t.position_start(t.FindJoint("right_finger"))) = q_right;
  const Eigen::Isometry3d left =
      GeometryPose(robot, FindGeometry(robot, "left/pad"), q);
  const Eigen::Isometry3d right =
      GeometryPose(robot, FindGeometry(robot, "right/pad"), q);
  EXPECT_NEAR(left.translation().y() - 0.01, 0.005 + q_left, 1e-12);
  EXPECT_NEAR(right.translation().y() + 0.01, -(0.005 + q_right), 1e-12);
  EXPECT_NEAR(left.translation().z() - 0.04, 0.100 + q_lift, 1e-12);
  EXPECT_NEAR(right.translation().z() - 0.04, 0.100 + q_lift, 1e-12);
  const Eigen::Isometry3d palm =
      GeometryPose(robot, FindGeometry(robot, "palm/body"), q);
  EXPECT_NEAR(palm.translation().z() - 0.015, 0.182 + q_lift, 1e-12);
}

TEST(ShippedRobots, PusherArm) {
  const RobotDescription robot = Load("pusher_arm");
  const MultibodyTree& t = robot.tree;
  ASSERT_EQ(t.num_links(), 4);
  EXPECT_EQ(t.num_positions(), 3);
  EXPECT_NEAR(t.TotalMass(), 5.0 + 2.0 + 2.0 + 1.5, 1e-12);
  const Vector3 axes[] = {Vector3::UnitZ(), Vector3::UnitY(), Vector3::UnitY()};
  for (int j = 1; j <= 3; ++j) {
    EXPECT_TRUE(t.joint(j).axis.isApprox(axes[j - 1]));
    EXPECT_TRUE(std::isfinite(t.joint(j).effort_limit));
  }
  int checked = 0;
  ExpectInertiasMatchShapes(robot, &checked);
  EXPECT_EQ(checked, 3);  // link0..link2; link3 has forearm + pusher
  // link3's inertia: forearm and pusher capsules combined.
  {
    const int l3 = t.FindLink("link3");
    Vector3 com = Vector3::Zero();
    Matrix3 I = Matrix3::Zero();
    const double masses[] = {1.2, 0.3};
    const char* names[] = {"link3/forearm", "link3/pusher"};
    for (int k = 0; k < 2; ++k) {
      com +=
          masses[k] *
          robot.geometries[FindGeometry(robot, names[k])].pose_in_link.position;
    }
    com /= 1.5;
    for (int k = 0; k < 2; ++k) {
      const RobotGeometry& g = robot.geometries[FindGeometry(robot, names[k])];
      const Matrix3 R = g.pose_in_link.rotation();
      const Vector3 d = g.pose_in_link.position - com;
      I += R * MassPropertiesFromMass(g.shape, masses[k]).inertia *
               R.transpose() +
           masses[k] *
               (d.squaredNorm() * Matrix3::Identity() - d * d.transpose());
    }
    EXPECT_TRUE(t.link(l3).inertia.com.isApprox(com, 1e-4));
    EXPECT_TRUE(t.link(l3).inertia.inertia.isApprox(I, 1e-4))
        << t.link(l3).inertia.inertia << "\n"
        << I;
  }
  // Reach 0.8 m at q = 0, pusher tip 0.075 above the base origin.
  const Eigen::Isometry3d pusher = GeometryPose(
      robot, FindGeometry(robot, "link3/pusher"), robot.initial_positions);
  EXPECT_NEAR(pusher.translation().x(), 0.8, 1e-12);
  EXPECT_NEAR(pusher.translation().z() - 0.075 - 0.025, 0.075, 1e-12);
}

TEST(ShippedRobots, AllLoadWithoutWarningsAsFloatingBases) {
  for (const char* name : {"pendulum", "double_pendulum", "limit_pendulum",
                           "arm7", "gripper", "pusher_arm"}) {
    UrdfOptions options;
    options.floating_base = true;
    const RobotDescription fixed = Load(name);
    const RobotDescription floating = LoadUrdf(RobotPath(name), options);
    EXPECT_TRUE(fixed.warnings.empty()) << name;
    EXPECT_EQ(floating.tree.num_positions(), fixed.tree.num_positions() + 7)
        << name;
    EXPECT_EQ(floating.tree.num_velocities(), fixed.tree.num_velocities() + 6)
        << name;
    for (const RobotGeometry& g : fixed.geometries) {
      EXPECT_NO_THROW(Validate(g.shape, g.name));
    }
  }
}

}  // namespace
}  // namespace sapcontact
