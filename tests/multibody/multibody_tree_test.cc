// Building a MultibodyTree: indices, sizes, names, ZeroPositions,
// DampingVector, and AddLink's validation (each error names the link or
// joint and the field).
#include "sapcontact/multibody/multibody_tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace sapcontact {
namespace {

Link GoodLink(const std::string& name) {
  Link link;
  link.name = name;
  link.inertia.mass = 1.0;
  link.inertia.com = Eigen::Vector3d(0.1, 0, 0);
  link.inertia.inertia = Eigen::Vector3d(0.1, 0.2, 0.25).asDiagonal();
  return link;
}

Joint GoodJoint(const std::string& name, JointType type, int parent) {
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.parent = parent;
  joint.axis = Eigen::Vector3d(0, 0.6, 0.8);
  return joint;
}

TEST(MultibodyTree, IndicesSizesAndNames) {
  MultibodyTree tree;
  EXPECT_EQ(tree.AddLink(GoodLink("base"),
                         GoodJoint("float", JointType::kFloating, -1)),
            0);
  EXPECT_EQ(
      tree.AddLink(GoodLink("a"), GoodJoint("ja", JointType::kRevolute, 0)), 1);
  EXPECT_EQ(tree.AddLink(GoodLink("b"), GoodJoint("jb", JointType::kFixed, 1)),
            2);
  Joint jc = GoodJoint("jc", JointType::kPrismatic, 0);
  jc.damping = 3.0;
  EXPECT_EQ(tree.AddLink(GoodLink("c"), jc), 3);
  EXPECT_EQ(tree.num_links(), 4);
  EXPECT_EQ(tree.num_positions(), 9);
  EXPECT_EQ(tree.num_velocities(), 8);
  EXPECT_EQ(tree.position_start(3), 8);
  EXPECT_EQ(tree.velocity_start(3), 7);
  EXPECT_EQ(tree.num_positions(0), 7);
  EXPECT_EQ(tree.num_velocities(0), 6);
  EXPECT_EQ(tree.num_positions(2), 0);
  EXPECT_EQ(tree.FindLink("c"), 3);
  EXPECT_EQ(tree.FindJoint("ja"), 1);
  EXPECT_EQ(tree.FindLink("nope"), -1);
  EXPECT_DOUBLE_EQ(tree.TotalMass(), 4.0);
  Eigen::VectorXd q0(9);
  q0 << 0, 0, 0, 1, 0, 0, 0, 0, 0;
  EXPECT_EQ(tree.ZeroPositions(), q0);
  Eigen::VectorXd d(8);
  d << 0, 0, 0, 0, 0, 0, 0, 3;
  EXPECT_EQ(tree.DampingVector(), d);
  EXPECT_STREQ(JointTypeName(JointType::kFixed), "fixed");
  EXPECT_STREQ(JointTypeName(JointType::kRevolute), "revolute");
  EXPECT_STREQ(JointTypeName(JointType::kPrismatic), "prismatic");
  EXPECT_STREQ(JointTypeName(JointType::kFloating), "floating");
}

// AddLink(link, joint) on a tree with one link "base" must throw an
// std::invalid_argument whose message contains every piece of `expected`.
void ExpectRejected(const Link& link, const Joint& joint,
                    const std::vector<std::string>& expected) {
  MultibodyTree tree;
  tree.AddLink(GoodLink("base"), GoodJoint("root", JointType::kFixed, -1));
  try {
    tree.AddLink(link, joint);
    ADD_FAILURE() << "accepted; expected " << expected.front();
  } catch (const std::invalid_argument& e) {
    for (const std::string& piece : expected) {
      EXPECT_NE(std::string(e.what()).find(piece), std::string::npos)
          << "message '" << e.what() << "' lacks '" << piece << "'";
    }
  }
  EXPECT_EQ(tree.num_links(), 1) << "a rejected link was added";
}

TEST(MultibodyTree, AddLinkRejectsBadLinksNamingLinkAndField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Joint joint = GoodJoint("j", JointType::kRevolute, 0);
  Link link = GoodLink("hand");
  link.inertia.mass = -1.0;
  ExpectRejected(link, joint, {"link 'hand'", "mass", "negative"});
  link = GoodLink("hand");
  link.inertia.mass = nan;
  ExpectRejected(link, joint, {"link 'hand'", "mass", "not finite"});
  link = GoodLink("hand");
  link.inertia.com.y() = std::numeric_limits<double>::infinity();
  ExpectRejected(link, joint, {"link 'hand'", "com"});
  link = GoodLink("hand");
  link.inertia.inertia(0, 1) = 0.05;  // not symmetric
  ExpectRejected(link, joint,
                 {"link 'hand': inertia is not symmetric positive "
                  "semidefinite"});
  link = GoodLink("hand");
  link.inertia.inertia(2, 2) = -0.01;  // symmetric, indefinite
  ExpectRejected(link, joint, {"link 'hand'", "inertia"});
  link = GoodLink("hand");
  link.inertia.inertia(0, 0) = nan;
  ExpectRejected(link, joint, {"link 'hand'", "inertia"});
  ExpectRejected(GoodLink("base"), joint, {"link 'base'", "duplicate"});
}

TEST(MultibodyTree, AddLinkRejectsBadJointsNamingJointAndField) {
  const Link link = GoodLink("hand");
  const double inf = std::numeric_limits<double>::infinity();
  Joint joint = GoodJoint("wrist", JointType::kRevolute, 1);
  ExpectRejected(link, joint, {"joint 'wrist'", "parent 1"});
  joint.parent = -2;
  ExpectRejected(link, joint, {"joint 'wrist'", "parent -2"});
  joint = GoodJoint("root", JointType::kRevolute, 0);
  ExpectRejected(link, joint, {"joint 'root'", "duplicate"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.origin.translation().x() = inf;
  ExpectRejected(link, joint, {"joint 'wrist'", "origin"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.origin.linear() *= 1.01;
  ExpectRejected(link, joint, {"joint 'wrist'", "origin"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.axis = Eigen::Vector3d(0, 0, 1 + 1e-6);
  ExpectRejected(link, joint, {"joint 'wrist'", "axis", "unit"});
  joint.type = JointType::kPrismatic;
  ExpectRejected(link, joint, {"joint 'wrist'", "axis", "unit"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.lower = 1.0;
  joint.upper = -1.0;
  ExpectRejected(link, joint, {"joint 'wrist'", "lower", "upper"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.damping = -0.1;
  ExpectRejected(link, joint, {"joint 'wrist'", "damping"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.velocity_limit = 0.0;
  ExpectRejected(link, joint, {"joint 'wrist'", "velocity_limit"});
  joint = GoodJoint("wrist", JointType::kRevolute, 0);
  joint.effort_limit = -5.0;
  ExpectRejected(link, joint, {"joint 'wrist'", "effort_limit"});
}

TEST(MultibodyTree, AcceptsEdgeCases) {
  MultibodyTree tree;
  // A massless link, an axis unit within 1e-9, a fixed joint's ignored
  // axis, equal limits, a PSD (singular) inertia, a zero-inertia point mass.
  Link point = GoodLink("point");
  point.inertia.inertia.setZero();
  tree.AddLink(point, GoodJoint("r", JointType::kFixed, -1));
  Link massless;
  massless.name = "massless";
  Joint j = GoodJoint("j", JointType::kRevolute, 0);
  j.axis = Eigen::Vector3d(0, 0, 1 + 1e-10);
  j.lower = j.upper = 0.5;
  tree.AddLink(massless, j);
  Link rod = GoodLink("rod");
  rod.inertia.inertia = Eigen::Vector3d(0, 1, 1).asDiagonal();
  Joint fixed = GoodJoint("f", JointType::kFixed, 1);
  fixed.axis = Eigen::Vector3d(7, 7, 7);
  tree.AddLink(rod, fixed);
  EXPECT_EQ(tree.num_links(), 3);
  EXPECT_DOUBLE_EQ(tree.joint(1).axis.norm(), 1.0);
}

}  // namespace
}  // namespace sapcontact
