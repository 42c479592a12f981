// The acceptance check of the multibody module: link poses, Jacobians, the
// mass matrix and inverse dynamics agree with an independent implementation,
// Orocos KDL 1.5 (local-frame recursions), to 1e-10 relative on random trees
// of up to 30 joints.
//
// Mapping a tree to KDL. A KDL segment's tip frame is joint.pose(q) *
// f_tip, with the segment's inertia given in its tip frame about the tip
// origin (RigidBodyInertia(m, com, I_com)). Our link frame is X_PL =
// origin * Motion(q): a fixed segment with f_tip = origin (the joint frame)
// followed by a segment whose joint (RotAxis or TransAxis about `axis`
// through the joint frame's origin) moves the link, f_tip identity. (KDL's
// joint "origin" argument is not used: in 1.5.1 a RotAxis joint turns about
// the line through it but a TransAxis one ignores it once in a Segment.)
// Fixed joints are one segment with f_tip = origin.
//
// Floating joints: KDL has none. Each becomes a fixed segment (the origin),
// prismatic TransX, TransY, TransZ and revolute RotX, RotY, RotZ segments
// with zero inertia, the last one's f_tip the rotation of the quaternion and
// the link's inertia. The KDL tree is built for the configuration at hand
// and its three revolute joints are evaluated at angle 0. There their axes
// are the joint frame's x, y, z through the link origin, so the six KDL
// joint rates are exactly our (v_lin, w) in the joint frame: poses,
// Jacobians and the mass matrix match with no conversion. The joint forces
// also match (the massless segments transmit the same wrench: force along
// the prismatic axes, torque about the link origin). Only accelerations
// differ: the Euler-angle chain's angular acceleration at angle 0 is qdd +
// (qd_y qd_z, -qd_x qd_z, qd_x qd_y), so KDL's qdd is shifted by that term.
// This keeps the floating joints (anywhere in the tree, with non-identity
// origins) in the comparison instead of restricting it to fixed bases.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <kdl/chain.hpp>
#include <kdl/chaindynparam.hpp>
#include <kdl/jacobian.hpp>
#include <kdl/jntarray.hpp>
#include <kdl/jntspaceinertiamatrix.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <kdl/treejnttojacsolver.hpp>
#include <random>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/multibody/random_tree.h"

namespace sapcontact {
namespace {

using testing::RandomOptions;
using testing::RandomPositions;
using testing::RandomTree;
using testing::RandomTreeOptions;
using testing::RelativeError;
using testing::Uniform;
using testing::UniformVector;

constexpr double kTolerance = 1e-10;

KDL::Vector KdlVector(const Eigen::Vector3d& p) {
  return KDL::Vector(p.x(), p.y(), p.z());
}

KDL::Rotation KdlRotation(const Eigen::Matrix3d& R) {
  return KDL::Rotation(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2),
                       R(2, 0), R(2, 1), R(2, 2));
}

Eigen::Isometry3d FromKdl(const KDL::Frame& F) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) X.linear()(r, c) = F.M(r, c);
    X.translation()[r] = F.p(r);
  }
  return X;
}

// A KDL tree equivalent to `tree` at the floating joints' rotations in q.
// Link i's tip segment is named "L<i>"; KDL joint k is our velocity k.
struct KdlModel {
  KDL::Tree kdl{"world"};
  std::vector<std::string> segment;
  std::vector<std::string> joint_segment;  // the segment of each velocity

  KdlModel(const MultibodyTree& tree, const Eigen::VectorXd& q) {
    for (int i = 0; i < tree.num_links(); ++i) {
      const Joint& joint = tree.joint(i);
      const LinkInertia& in = tree.link(i).inertia;
      const std::string name = "L" + std::to_string(i);
      const std::string hook =
          joint.parent < 0 ? "world" : segment[joint.parent];
      const KDL::RigidBodyInertia inertia(
          in.mass, KdlVector(in.com),
          KDL::RotationalInertia(in.inertia(0, 0), in.inertia(1, 1),
                                 in.inertia(2, 2), in.inertia(0, 1),
                                 in.inertia(0, 2), in.inertia(1, 2)));
      const Eigen::Matrix3d& R_o = joint.origin.linear();
      const KDL::Vector p_o = KdlVector(joint.origin.translation());
      switch (joint.type) {
        case JointType::kFixed:
          Add(KDL::Segment(name, KDL::Joint(name + "_joint", KDL::Joint::Fixed),
                           KDL::Frame(KdlRotation(R_o), p_o), inertia),
              hook);
          break;
        case JointType::kRevolute:
        case JointType::kPrismatic:
          Add(KDL::Segment(name + "_origin",
                           KDL::Joint(name + "_o", KDL::Joint::Fixed),
                           KDL::Frame(KdlRotation(R_o), p_o)),
              hook);
          Add(KDL::Segment(name,
                           KDL::Joint(name + "_joint", KDL::Vector::Zero(),
                                      KdlVector(joint.axis),
                                      joint.type == JointType::kRevolute
                                          ? KDL::Joint::RotAxis
                                          : KDL::Joint::TransAxis),
                           KDL::Frame::Identity(), inertia),
              name + "_origin");
          joint_segment.push_back(name);
          break;
        case JointType::kFloating: {
          const int s = tree.position_start(i);
          const Eigen::Matrix3d R_FL =
              Eigen::Quaterniond(q[s + 3], q[s + 4], q[s + 5], q[s + 6])
                  .normalized()
                  .toRotationMatrix();
          const KDL::Joint::JointType types[6] = {
              KDL::Joint::TransX, KDL::Joint::TransY, KDL::Joint::TransZ,
              KDL::Joint::RotX,   KDL::Joint::RotY,   KDL::Joint::RotZ};
          Add(KDL::Segment(name + "_origin",
                           KDL::Joint(name + "_o", KDL::Joint::Fixed),
                           KDL::Frame(KdlRotation(R_o), p_o)),
              hook);
          std::string previous = name + "_origin";
          for (int k = 0; k < 6; ++k) {
            const bool last = k == 5;
            const std::string seg =
                last ? name : name + "_" + std::to_string(k);
            Add(KDL::Segment(
                    seg, KDL::Joint(seg + "_joint", types[k]),
                    last ? KDL::Frame(KdlRotation(R_FL)) : KDL::Frame(),
                    last ? inertia : KDL::RigidBodyInertia::Zero()),
                previous);
            joint_segment.push_back(seg);
            previous = seg;
          }
          break;
        }
      }
      segment.push_back(name);
    }
    EXPECT_EQ(static_cast<int>(kdl.getNrOfJoints()), tree.num_velocities());
    EXPECT_EQ(static_cast<int>(joint_segment.size()), tree.num_velocities());
  }

  // Where each of our velocities sits in the joint numbering of `numbered`
  // (this tree or a copy: a KDL::Tree copy re-adds the segments depth
  // first, so its joints are numbered in that order, which is the order
  // TreeFkSolverPos_recursive and TreeJntToJacSolver use, as they keep a
  // copy; TreeIdSolver_RNE keeps a reference, insertion order).
  std::vector<int> JointOrder(const KDL::Tree& numbered) const {
    std::vector<int> order;
    for (const std::string& name : joint_segment) {
      order.push_back(static_cast<int>(
          GetTreeElementQNr(numbered.getSegment(name)->second)));
    }
    return order;
  }

  void Add(const KDL::Segment& s, const std::string& hook) {
    ASSERT_TRUE(kdl.addSegment(s, hook)) << s.getName();
  }
};

// KDL joint positions for q: revolute/prismatic q, floating (x, y, z, 0, 0,
// 0) (the rotation is in the tree).
KDL::JntArray KdlPositions(const MultibodyTree& tree,
                           const Eigen::VectorXd& q) {
  KDL::JntArray q_kdl(tree.num_velocities());
  for (int i = 0; i < tree.num_links(); ++i) {
    const int qs = tree.position_start(i), vs = tree.velocity_start(i);
    switch (tree.joint(i).type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
        q_kdl(vs) = q[qs];
        break;
      case JointType::kFloating:
        for (int k = 0; k < 3; ++k) q_kdl(vs + k) = q[qs + k];
        break;
    }
  }
  return q_kdl;
}

KDL::JntArray KdlJoints(const Eigen::VectorXd& x) {
  KDL::JntArray a(x.size());
  a.data = x;
  return a;
}

// KDL accelerations for our (v, vdot): the Euler-angle correction above.
KDL::JntArray KdlAccelerations(const MultibodyTree& tree,
                               const Eigen::VectorXd& v,
                               const Eigen::VectorXd& vdot) {
  Eigen::VectorXd qdd = vdot;
  for (int i = 0; i < tree.num_links(); ++i) {
    if (tree.joint(i).type != JointType::kFloating) continue;
    const int s = tree.velocity_start(i) + 3;
    const Eigen::Vector3d w = v.segment<3>(s);
    qdd.segment<3>(s) -=
        Eigen::Vector3d(w.y() * w.z(), -w.x() * w.z(), w.x() * w.y());
  }
  return KdlJoints(qdd);
}

std::vector<int> Identity(int n) {
  std::vector<int> order(n);
  for (int k = 0; k < n; ++k) order[k] = k;
  return order;
}

struct Worst {
  double pose = 0, jacobian = 0, mass = 0, chain_mass = 0, inverse = 0;
};

void CompareWithKdl(const MultibodyTree& tree, const Eigen::VectorXd& q,
                    std::mt19937& rng, Worst* worst) {
  const int nv = tree.num_velocities();
  const KdlModel model(tree, q);
  const KDL::JntArray q_kdl = KdlPositions(tree, q);
  EXPECT_EQ(model.JointOrder(model.kdl), Identity(nv));  // insertion order
  // The FK and Jacobian solvers number the joints as a copy of the tree.
  const std::vector<int> order = model.JointOrder(KDL::Tree(model.kdl));
  KDL::JntArray q_copy(nv);
  for (int k = 0; k < nv; ++k) q_copy(order[k]) = q_kdl(k);

  // Poses.
  std::vector<Eigen::Isometry3d> X;
  CalcLinkPoses(tree, q, &X);
  KDL::TreeFkSolverPos_recursive fk(model.kdl);
  for (int l = 0; l < tree.num_links(); ++l) {
    KDL::Frame F;
    ASSERT_GE(fk.JntToCart(q_copy, F, model.segment[l]), 0);
    const double e = RelativeError(X[l].matrix(), FromKdl(F).matrix());
    EXPECT_LT(e, kTolerance) << "link " << l;
    worst->pose = std::max(worst->pose, e);
  }

  // Frame Jacobians at a point of each link (KDL's reference point is the
  // segment's tip origin; moved to the point).
  KDL::TreeJntToJacSolver jac_solver(model.kdl);
  for (int l = 0; l < tree.num_links(); ++l) {
    const Eigen::Vector3d p_W = X[l] * UniformVector(rng, -0.3, 0.3);
    Eigen::MatrixXd J;
    CalcFrameJacobian(tree, q, l, p_W, &J);
    KDL::Jacobian J_kdl(nv);
    ASSERT_GE(jac_solver.JntToJac(q_copy, J_kdl, model.segment[l]), 0);
    J_kdl.changeRefPoint(KdlVector(p_W - X[l].translation()));
    if (nv == 0) continue;
    Eigen::MatrixXd J_ours_order(6, nv);
    for (int k = 0; k < nv; ++k) J_ours_order.col(k) = J_kdl.data.col(order[k]);
    const double e = RelativeError(J, J_ours_order);
    EXPECT_LT(e, kTolerance) << "link " << l;
    worst->jacobian = std::max(worst->jacobian, e);
  }
  if (nv == 0) return;

  // Inverse dynamics under gravity (KDL takes the gravity vector itself).
  const Eigen::Vector3d g = UniformVector(rng, -10.0, 10.0);
  const Eigen::VectorXd v = UniformVector(rng, nv, -2.0, 2.0);
  const Eigen::VectorXd vdot = UniformVector(rng, nv, -2.0, 2.0);
  Eigen::VectorXd tau;
  CalcInverseDynamics(tree, q, v, vdot, g, &tau);
  KDL::TreeIdSolver_RNE id(model.kdl, KdlVector(g));
  KDL::JntArray tau_kdl(nv);
  ASSERT_GE(id.CartToJnt(q_kdl, KdlJoints(v), KdlAccelerations(tree, v, vdot),
                         KDL::WrenchMap(), tau_kdl),
            0);
  const double e_id = RelativeError(tau, tau_kdl.data);
  EXPECT_LT(e_id, kTolerance);
  worst->inverse = std::max(worst->inverse, e_id);

  // Mass matrix: KDL 1.5.1 has no tree mass matrix (ChainDynParam is for
  // chains, below); its columns are KDL's RNE with unit accelerations.
  Eigen::MatrixXd M;
  CalcMassMatrix(tree, q, &M);
  Eigen::MatrixXd M_kdl(nv, nv);
  KDL::TreeIdSolver_RNE id0(model.kdl, KDL::Vector::Zero());
  const KDL::JntArray zero(nv);
  for (int k = 0; k < nv; ++k) {
    KDL::JntArray e_k(nv);
    e_k(k) = 1.0;
    KDL::JntArray column(nv);
    ASSERT_GE(id0.CartToJnt(q_kdl, zero, e_k, KDL::WrenchMap(), column), 0);
    M_kdl.col(k) = column.data;
  }
  const double e_m = RelativeError(M, M_kdl);
  EXPECT_LT(e_m, kTolerance);
  worst->mass = std::max(worst->mass, e_m);
}

TEST(KdlComparison, RandomTreesAgreeTo1e10) {
  std::mt19937 rng(8675309);
  Worst worst;
  int joints = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng, 30, false));
    joints = std::max(joints, tree.num_links());
    for (int config = 0; config < 2; ++config) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " config " +
                   std::to_string(config));
      CompareWithKdl(tree, RandomPositions(tree, rng), rng, &worst);
    }
  }
  EXPECT_EQ(joints, 30);
  std::printf(
      "[ max relative errors vs KDL ] pose %.2e jacobian %.2e mass %.2e "
      "inverse dynamics %.2e\n",
      worst.pose, worst.jacobian, worst.mass, worst.inverse);
  RecordProperty("worst_pose", std::to_string(worst.pose));
  RecordProperty("worst_jacobian", std::to_string(worst.jacobian));
  RecordProperty("worst_mass_matrix", std::to_string(worst.mass));
  RecordProperty("worst_inverse_dynamics", std::to_string(worst.inverse));
}

// The robots of Debian's dart-doc as the URDF loader builds them (fixed
// joints, meshes' inertias, a floating base): the dynamics a controller
// reads (mass matrix, bias and gravity forces: sim/stepping/
// robot_dynamics.h) agree with KDL to 1e-10.
TEST(KdlComparison, DebianRobotsAgreeTo1e10) {
  const char* kRobots[] = {
      "/usr/share/doc/dart/data/urdf/KR5/KR5 sixx R650.urdf",
      "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf",
      "/usr/share/doc/dart/data/urdf/drchubo/drchubo.urdf"};
  std::mt19937 rng(4242);
  Worst worst;
  for (const char* path : kRobots) {
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << path << " missing (Debian package dart-doc)";
    }
    for (const bool floating : {false, true}) {
      UrdfOptions options;
      options.skip_unsupported = true;
      options.floating_base = floating;
      options.package_paths["drchubo"] =
          "/usr/share/doc/dart/data/urdf/drchubo";
      const RobotDescription robot = LoadUrdf(path, options);
      SCOPED_TRACE(std::string(path) + (floating ? " floating" : " fixed"));
      CompareWithKdl(robot.tree, RandomPositions(robot.tree, rng), rng, &worst);
    }
  }
  std::printf(
      "[ Debian robots vs KDL ] pose %.2e jacobian %.2e mass %.2e inverse "
      "dynamics %.2e\n",
      worst.pose, worst.jacobian, worst.mass, worst.inverse);
}

TEST(KdlComparison, ChainsAgreeWithChainDynParamTo1e10) {
  std::mt19937 rng(1234);
  Worst worst;
  for (int trial = 0; trial < 40; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng, 30, true));
    const int nv = tree.num_velocities();
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    CompareWithKdl(tree, q, rng, &worst);
    if (nv == 0) continue;
    const KdlModel model(tree, q);
    KDL::Chain chain;
    ASSERT_TRUE(model.kdl.getChain("world", model.segment.back(), chain));
    ASSERT_EQ(static_cast<int>(chain.getNrOfJoints()), nv);
    const Eigen::Vector3d g = UniformVector(rng, -10.0, 10.0);
    KDL::ChainDynParam dyn(chain, KdlVector(g));
    KDL::JntSpaceInertiaMatrix H(nv);
    ASSERT_GE(dyn.JntToMass(KdlPositions(tree, q), H), 0);
    Eigen::MatrixXd M;
    CalcMassMatrix(tree, q, &M);
    const double e = RelativeError(M, H.data);
    EXPECT_LT(e, kTolerance);
    worst.chain_mass = std::max(worst.chain_mass, e);
    // Gravity: KDL's JntToGravity is the joint torque holding the chain
    // still, our bias forces at v = 0.
    KDL::JntArray g_kdl(nv);
    ASSERT_GE(dyn.JntToGravity(KdlPositions(tree, q), g_kdl), 0);
    Eigen::VectorXd tau_g;
    CalcBiasForces(tree, q, Eigen::VectorXd::Zero(nv), g, &tau_g);
    EXPECT_LT(RelativeError(tau_g, g_kdl.data), kTolerance);
  }
  std::printf(
      "[ max relative errors vs KDL chains ] pose %.2e jacobian %.2e "
      "mass (RNE) %.2e mass (ChainDynParam) %.2e inverse dynamics %.2e\n",
      worst.pose, worst.jacobian, worst.mass, worst.chain_mass, worst.inverse);
  RecordProperty("worst_chain_mass_matrix", std::to_string(worst.chain_mass));
}

}  // namespace
}  // namespace sapcontact
