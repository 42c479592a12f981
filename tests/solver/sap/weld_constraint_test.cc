// Welds (solver/sap/weld_constraint.h): a free body welded to the world
// under gravity stays at its frame over many steps (the drift is corrected,
// never accumulated), and two free bodies welded together fall as one rigid
// body (the pair's centre of mass at free-fall acceleration, no relative
// motion).
#include "sapcontact/solver/sap/weld_constraint.h"

#include <gtest/gtest.h>

#include "sapcontact/solver/sap/sap_solver.h"

namespace sapcontact {
namespace {

// A free body's 6 x 6 Jacobian of the frame at its centre of mass: the
// generalized velocity is (v, w) in the world frame.
Eigen::MatrixXd BodyFrameJacobian() { return Eigen::MatrixXd::Identity(6, 6); }

// The Jacobian of a frame at offset r (world) from the centre of mass:
// linear velocity v + w x r = v - [r]x w.
Eigen::MatrixXd OffsetFrameJacobian(const Eigen::Vector3d& r) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Identity(6, 6);
  Eigen::Matrix3d S;
  S << 0, -r(2), r(1), r(2), 0, -r(0), -r(1), r(0), 0;
  J.block<3, 3>(0, 3) = -S;
  return J;
}

struct FreeBody {
  double mass{1.0};
  Eigen::Matrix3d inertia{Eigen::Matrix3d::Identity() * 0.01};
  Eigen::Isometry3d pose{Eigen::Isometry3d::Identity()};
  Eigen::Matrix<double, 6, 1> v{Eigen::Matrix<double, 6, 1>::Zero()};
  Tree MakeTree(double dt) const {
    Tree t;
    t.A = Eigen::MatrixXd::Zero(6, 6);
    t.A.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
    const Eigen::Matrix3d R = pose.linear();
    t.A.bottomRightCorner<3, 3>() = R * inertia * R.transpose();
    t.v_star = v;
    t.v_star(2) -= 9.81 * dt;
    return t;
  }
  void Integrate(double dt) {
    pose.translation() += dt * v.head<3>();
    const double angle = v.tail<3>().norm() * dt;
    if (angle > 0) {
      pose.linear() =
          Eigen::AngleAxisd(angle, v.tail<3>().normalized()) * pose.linear();
    }
  }
};

TEST(Weld, BodyWeldedToTheWorldStaysAtItsFrame) {
  const double dt = 1e-3;
  FreeBody body;
  body.pose.translation() = Eigen::Vector3d(0.1, 0.0, 1.0);
  Eigen::Isometry3d anchor = body.pose;  // the weld frame, world-fixed
  // Start 1 mm and 0.01 rad off: the weld pulls the body back.
  body.pose.translation().x() += 1e-3;
  body.pose.linear() =
      Eigen::AngleAxisd(0.01, Eigen::Vector3d::UnitX()).toRotationMatrix();
  SapSolver solver;
  double worst_late = 0.0;
  for (int n = 0; n < 2000; ++n) {
    SapProblem p;
    p.time_step = dt;
    p.trees.push_back(body.MakeTree(dt));
    WeldFrame world, frame;
    world.pose = anchor;
    frame.pose = body.pose;
    frame.tree = 0;
    frame.J = BodyFrameJacobian();
    p.holonomic.push_back(MakeWeldConstraint(world, frame, "anchor"));
    const SapSolverResults r = solver.Solve(p);
    ASSERT_TRUE(r.converged()) << r.message;
    body.v = r.v;
    body.Integrate(dt);
    if (n > 100) {
      worst_late = std::max(
          worst_late, (body.pose.translation() - anchor.translation()).norm());
    }
  }
  // The error halves every step (docs/theory.md §17); under gravity the
  // residual sag is the floor's compliance, m g R dt-ish, far below 1 um.
  EXPECT_LT(worst_late, 1e-6);
  const Eigen::AngleAxisd rotation(body.pose.linear());
  EXPECT_LT(rotation.angle(), 1e-6);
}

TEST(Weld, TwoWeldedBodiesFallAsOne) {
  const double dt = 1e-3;
  FreeBody a, b;
  b.mass = 3.0;
  b.pose.translation() = Eigen::Vector3d(0.2, 0.0, 0.0);
  a.v << 0.0, 0.0, 0.0, 0.0, 0.0, 0.0;
  b.v = a.v;
  SapSolver solver;
  const Eigen::Vector3d offset = b.pose.translation() - a.pose.translation();
  for (int n = 0; n < 500; ++n) {
    SapProblem p;
    p.time_step = dt;
    p.trees.push_back(a.MakeTree(dt));
    p.trees.push_back(b.MakeTree(dt));
    // Frame P on A at B's centre (offset from A's), frame Q at B's centre.
    const Eigen::Vector3d r = b.pose.translation() - a.pose.translation();
    WeldFrame P, Q;
    P.pose = a.pose;
    P.pose.translation() += a.pose.linear() * offset;
    P.tree = 0;
    P.J = OffsetFrameJacobian(r);
    Q.pose = b.pose;
    Q.tree = 1;
    Q.J = BodyFrameJacobian();
    p.holonomic.push_back(MakeWeldConstraint(P, Q));
    const SapSolverResults res = solver.Solve(p);
    ASSERT_TRUE(res.converged());
    a.v = res.v.head<6>();
    b.v = res.v.tail<6>();
    a.Integrate(dt);
    b.Integrate(dt);
  }
  // Free fall of the pair: v_z = -g t, no relative motion, no rotation.
  EXPECT_NEAR(a.v(2), -9.81 * 0.5, 1e-9);
  EXPECT_NEAR(b.v(2), -9.81 * 0.5, 1e-9);
  EXPECT_LT((b.pose.translation() - a.pose.translation() - offset).norm(),
            1e-9);
  EXPECT_LT(a.v.tail<3>().norm(), 1e-9);
}

TEST(Weld, RejectsTwoWorldFrames) {
  EXPECT_THROW(MakeWeldConstraint(WeldFrame{}, WeldFrame{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
