// Forward kinematics, Jacobians and IntegratePositions on random trees:
// Jacobians against central differences of the poses along
// IntegratePositions, link velocities against J v.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <random>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
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

constexpr int kKinematicTrees = 40;

// The poses of every link at q + h e_k (along IntegratePositions).
std::vector<Eigen::Isometry3d> PosesAlong(const MultibodyTree& tree,
                                          const Eigen::VectorXd& q, int k,
                                          double h) {
  Eigen::VectorXd e = Eigen::VectorXd::Zero(tree.num_velocities());
  e[k] = 1.0;
  Eigen::VectorXd q_h;
  IntegratePositions(tree, q, e, h, &q_h);
  std::vector<Eigen::Isometry3d> X;
  CalcLinkPoses(tree, q_h, &X);
  return X;
}

TEST(Kinematics, JacobiansMatchFiniteDifferencesOfPoses) {
  std::mt19937 rng(20240611);
  const double h = 1e-6;
  double worst_point = 0.0, worst_angular = 0.0;
  for (int trial = 0; trial < kKinematicTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng));
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const int nv = tree.num_velocities();
    std::vector<Eigen::Isometry3d> X;
    CalcLinkPoses(tree, q, &X);
    ASSERT_EQ(static_cast<int>(X.size()), tree.num_links());
    // Points fixed on each link, given in the link frame.
    std::vector<Eigen::Vector3d> p_L(tree.num_links());
    for (auto& p : p_L) p = UniformVector(rng, -0.3, 0.3);
    // Finite-difference Jacobians, column by column.
    std::vector<Eigen::MatrixXd> Jp_fd(tree.num_links(),
                                       Eigen::MatrixXd::Zero(3, nv));
    std::vector<Eigen::MatrixXd> Jw_fd = Jp_fd;
    for (int k = 0; k < nv; ++k) {
      const auto X_plus = PosesAlong(tree, q, k, h);
      const auto X_minus = PosesAlong(tree, q, k, -h);
      for (int l = 0; l < tree.num_links(); ++l) {
        Jp_fd[l].col(k) = (X_plus[l] * p_L[l] - X_minus[l] * p_L[l]) / (2 * h);
        const Eigen::AngleAxisd dR(X_plus[l].linear() *
                                   X_minus[l].linear().transpose());
        Jw_fd[l].col(k) = dR.angle() * dR.axis() / (2 * h);
      }
    }
    for (int l = 0; l < tree.num_links(); ++l) {
      const Eigen::Vector3d p_W = X[l] * p_L[l];
      Eigen::MatrixXd Jp, Jp_from_poses, Jf, Jf_from_poses;
      CalcPointJacobian(tree, q, l, p_W, &Jp);
      CalcPointJacobian(tree, X, l, p_W, &Jp_from_poses);
      CalcFrameJacobian(tree, q, l, p_W, &Jf);
      CalcFrameJacobian(tree, X, l, p_W, &Jf_from_poses);
      ASSERT_EQ(Jp.rows(), 3);
      ASSERT_EQ(Jp.cols(), nv);
      ASSERT_EQ(Jf.rows(), 6);
      EXPECT_EQ(Jp, Jp_from_poses);
      EXPECT_EQ(Jf, Jf_from_poses);
      EXPECT_EQ(Jf.topRows(3), Jp);
      if (nv == 0) continue;
      const double scale = std::max(1.0, Jp.cwiseAbs().maxCoeff());
      const double e_point = (Jp - Jp_fd[l]).cwiseAbs().maxCoeff() / scale;
      const double e_angular =
          (Jf.bottomRows(3) - Jw_fd[l]).cwiseAbs().maxCoeff();
      EXPECT_LT(e_point, 1e-7) << "trial " << trial << " link " << l;
      EXPECT_LT(e_angular, 1e-7) << "trial " << trial << " link " << l;
      worst_point = std::max(worst_point, e_point);
      worst_angular = std::max(worst_angular, e_angular);
    }
  }
  RecordProperty("worst_point_jacobian_error", std::to_string(worst_point));
  RecordProperty("worst_angular_jacobian_error", std::to_string(worst_angular));
}

TEST(Kinematics, LinkVelocitiesEqualFrameJacobianTimesV) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < kKinematicTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng));
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::VectorXd v =
        UniformVector(rng, tree.num_velocities(), -1.0, 1.0);
    std::vector<Eigen::Isometry3d> X;
    std::vector<Eigen::Matrix<double, 6, 1>> V;
    CalcLinkPoses(tree, q, &X);
    CalcLinkVelocities(tree, q, v, &V);
    ASSERT_EQ(static_cast<int>(V.size()), tree.num_links());
    for (int l = 0; l < tree.num_links(); ++l) {
      Eigen::MatrixXd J;
      CalcFrameJacobian(tree, q, l, X[l].translation(), &J);
      const Eigen::VectorXd Jv = J * v;
      EXPECT_LT(RelativeError(V[l], Jv), 1e-13)
          << "trial " << trial << " link " << l;
    }
  }
}

TEST(Kinematics, ChainOfRevolutesHasTheClosedFormPose) {
  // Planar two-link arm about z: tip at (cos a + cos(a+b), sin a + sin(a+b)).
  MultibodyTree tree;
  Joint j0;
  j0.name = "shoulder";
  j0.type = JointType::kRevolute;
  tree.AddLink({"upper", {}}, j0);
  Joint j1 = j0;
  j1.name = "elbow";
  j1.parent = 0;
  j1.origin.translation() = Eigen::Vector3d(1, 0, 0);
  tree.AddLink({"lower", {}}, j1);
  Joint j2;
  j2.name = "tip";
  j2.parent = 1;
  j2.origin.translation() = Eigen::Vector3d(1, 0, 0);
  tree.AddLink({"hand", {}}, j2);
  Eigen::VectorXd q(2);
  q << 0.3, 0.9;
  std::vector<Eigen::Isometry3d> X;
  CalcLinkPoses(tree, q, &X);
  EXPECT_NEAR(X[2].translation().x(), std::cos(0.3) + std::cos(1.2), 1e-15);
  EXPECT_NEAR(X[2].translation().y(), std::sin(0.3) + std::sin(1.2), 1e-15);
  EXPECT_NEAR(Eigen::AngleAxisd(X[2].linear()).angle(), 1.2, 1e-15);
}

TEST(Kinematics, IntegratePositionsRotatesTheQuaternionInTheParentFrame) {
  std::mt19937 rng(3);
  MultibodyTree tree;
  Joint base;
  base.name = "base";
  base.type = JointType::kFloating;
  tree.AddLink({"body", testing::RandomInertia(rng)}, base);
  Joint slide;
  slide.name = "slide";
  slide.type = JointType::kPrismatic;
  slide.parent = 0;
  slide.axis = Eigen::Vector3d::UnitX();
  tree.AddLink({"slider", testing::RandomInertia(rng)}, slide);
  Eigen::VectorXd q(8);
  q << 1, 2, 3, 2.0, 0.4, -0.2, 0.6, 0.25;  // quaternion of norm ~2.1
  Eigen::VectorXd v(7);
  v << 0.5, -1, 2, 3, -4, 1.5, -2;
  const double dt = 0.01;
  Eigen::VectorXd q_next;
  IntegratePositions(tree, q, v, dt, &q_next);
  const Eigen::Quaterniond quat =
      Eigen::Quaterniond(q[3], q[4], q[5], q[6]).normalized();
  const Eigen::Vector3d w = v.segment<3>(3);
  const Eigen::Quaterniond expected =
      Eigen::Quaterniond(Eigen::AngleAxisd(dt * w.norm(), w.normalized())) *
      quat;
  EXPECT_LT((q_next.head<3>() - (q.head<3>() + dt * v.head<3>())).norm(),
            1e-15);
  const Eigen::Vector4d got = q_next.segment<4>(3);
  EXPECT_NEAR(got.norm(), 1.0, 1e-15);
  EXPECT_LT((got - Eigen::Vector4d(expected.w(), expected.x(), expected.y(),
                                   expected.z()))
                .norm(),
            1e-15);
  EXPECT_DOUBLE_EQ(q_next[7], q[7] + dt * v[6]);
  // In place, and tiny rotations (the series branch).
  Eigen::VectorXd q_in_place = q;
  IntegratePositions(tree, q_in_place, v, dt, &q_in_place);
  EXPECT_EQ(q_in_place, q_next);
  IntegratePositions(tree, q, v, 1e-9, &q_next);
  const Eigen::Quaterniond small =
      Eigen::Quaterniond(Eigen::AngleAxisd(1e-9 * w.norm(), w.normalized())) *
      quat;
  EXPECT_LT((q_next.segment<4>(3) -
             Eigen::Vector4d(small.w(), small.x(), small.y(), small.z()))
                .norm(),
            1e-15);
}

TEST(Kinematics, FloatingJointWithOriginUsesTheJointFrame) {
  // A floating joint whose origin is rotated: v is in the joint frame, so
  // the link origin moves with R_origin v_lin.
  MultibodyTree tree;
  Joint j;
  j.name = "free";
  j.type = JointType::kFloating;
  j.origin.linear() =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  j.origin.translation() = Eigen::Vector3d(0.1, 0.2, 0.3);
  LinkInertia in;
  in.mass = 1.0;
  in.inertia = Eigen::Matrix3d::Identity();
  tree.AddLink({"body", in}, j);
  Eigen::VectorXd q = tree.ZeroPositions();
  Eigen::VectorXd v(6);
  v << 1, 0, 0, 0, 0, 1;
  std::vector<Eigen::Matrix<double, 6, 1>> V;
  CalcLinkVelocities(tree, q, v, &V);
  EXPECT_LT((V[0].head<3>() - j.origin.linear().col(0)).norm(), 1e-15);
  EXPECT_LT((V[0].tail<3>() - j.origin.linear().col(2)).norm(), 1e-15);
}

TEST(Kinematics, WrongSizesAndIndicesThrowWithTheirCounts) {
  std::mt19937 rng(11);
  RandomTreeOptions options;
  options.num_joints = 4;
  options.floating_root = true;
  const MultibodyTree tree = RandomTree(rng, options);
  const Eigen::VectorXd q = tree.ZeroPositions();
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(tree.num_velocities());
  const Eigen::VectorXd short_q = q.head(q.size() - 2);
  const Eigen::VectorXd short_v = v.head(v.size() - 1);
  std::vector<Eigen::Isometry3d> X;
  std::vector<Eigen::Matrix<double, 6, 1>> V;
  Eigen::MatrixXd J, M;
  Eigen::VectorXd tau;
  const auto expect_message = [](const auto& call, const std::string& text) {
    try {
      call();
      ADD_FAILURE() << "no exception, expected: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
          << e.what();
    }
  };
  const std::string q_msg = "q has " + std::to_string(short_q.size()) +
                            " entries, the tree has " +
                            std::to_string(q.size()) + " positions";
  const std::string v_msg = "v has " + std::to_string(short_v.size()) +
                            " entries, the tree has " +
                            std::to_string(v.size()) + " velocities";
  expect_message([&] { CalcLinkPoses(tree, short_q, &X); }, q_msg);
  expect_message([&] { CalcLinkVelocities(tree, q, short_v, &V); }, v_msg);
  expect_message([&] { CalcMassMatrix(tree, short_q, &M); }, q_msg);
  expect_message(
      [&] {
        CalcInverseDynamics(tree, q, v, short_v, {0, 0, 0}, &tau);
      },
      "vdot has " + std::to_string(short_v.size()) + " entries");
  expect_message(
      [&] {
        CalcBiasForces(tree, q, short_v, {0, 0, 0}, &tau);
      },
      v_msg);
  expect_message([&] { CalcKineticEnergy(tree, short_q, v); }, q_msg);
  expect_message([&] { CalcPotentialEnergy(tree, short_q, {0, 0, 0}); }, q_msg);
  expect_message([&] { CalcMomentum(tree, q, short_v); }, v_msg);
  expect_message([&] { IntegratePositions(tree, q, short_v, 0.1, &tau); },
                 v_msg);
  expect_message(
      [&] {
        CalcPointJacobian(tree, q, 4, {0, 0, 0}, &J);
      },
      "link index 4 is out of range");
  expect_message(
      [&] {
        CalcFrameJacobian(tree, q, -1, {0, 0, 0}, &J);
      },
      "link index -1 is out of range");
  CalcLinkPoses(tree, q, &X);
  X.pop_back();
  expect_message(
      [&] {
        CalcPointJacobian(tree, X, 0, {0, 0, 0}, &J);
      },
      "X_WL has 3 entries, the tree has 4 links");
  Eigen::VectorXd zero_quat = q;
  zero_quat.segment<4>(3).setZero();
  expect_message([&] { CalcLinkPoses(tree, zero_quat, &X); },
                 "joint 'joint0': quaternion is zero");
}

}  // namespace
}  // namespace sapcontact
