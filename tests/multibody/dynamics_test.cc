// Mass matrix, inverse dynamics, bias forces, energy and momentum on random
// trees, each against a quantity computed another way: kinetic energy from
// link velocities, the Lagrangian form of the Coriolis terms from finite
// differences of M, gravity from the potential energy, and conservation
// laws along an RK4 integration of the forward dynamics.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
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

constexpr int kNumTrees = 30;

Eigen::MatrixXd MassMatrix(const MultibodyTree& tree,
                           const Eigen::VectorXd& q) {
  Eigen::MatrixXd M;
  CalcMassMatrix(tree, q, &M);
  return M;
}

Eigen::VectorXd Along(const MultibodyTree& tree, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& direction, double h) {
  Eigen::VectorXd q_h;
  IntegratePositions(tree, q, direction, h, &q_h);
  return q_h;
}

Eigen::VectorXd Unit(int n, int k) {
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  e[k] = 1.0;
  return e;
}

// k = Mdot v - c_C against Mdot v by differences of M along v and c_C the
// bias forces without gravity, on trees with and without floating joints;
// without them, also against central differences of the kinetic energy
// along each tangent direction (k = dT/dq).
TEST(Dynamics, MassRateForcesMatchDifferences) {
  std::mt19937 rng(107);
  int compared_with_energy = 0;
  for (int trial = 0; trial < 2 * kNumTrees; ++trial) {
    RandomTreeOptions options = RandomOptions(rng);
    if (trial % 2 == 1) {
      options.floating_probability = 0.0;
      options.floating_root = false;
    }
    const MultibodyTree tree = RandomTree(rng, options);
    const int nv = tree.num_velocities();
    if (nv < 2) continue;
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::VectorXd v = UniformVector(rng, nv, -2.0, 2.0);
    Eigen::VectorXd k;
    CalcMassRateForces(tree, q, v, &k);
    ASSERT_EQ(k.size(), nv);
    const double scale = std::max(1.0, CalcKineticEnergy(tree, q, v));
    const double hv = 1e-5 / v.lpNorm<Eigen::Infinity>();
    const Eigen::VectorXd Mdot_v = (MassMatrix(tree, Along(tree, q, v, hv)) -
                                    MassMatrix(tree, Along(tree, q, v, -hv))) *
                                   v / (2 * hv);
    Eigen::VectorXd c;
    CalcBiasForces(tree, q, v, Eigen::Vector3d::Zero(), &c);
    EXPECT_LT((k - (Mdot_v - c)).lpNorm<Eigen::Infinity>(), 1e-7 * scale)
        << "trial " << trial << "\nk:            " << k.transpose()
        << "\nMdot v - c_C: " << (Mdot_v - c).transpose();
    bool floating = false;
    for (int i = 0; i < tree.num_links(); ++i) {
      floating = floating || tree.joint(i).type == JointType::kFloating;
    }
    if (floating) continue;
    const double h = 1e-5;
    Eigen::VectorXd dT(nv);
    for (int j = 0; j < nv; ++j) {
      dT(j) = (CalcKineticEnergy(tree, Along(tree, q, Unit(nv, j), h), v) -
               CalcKineticEnergy(tree, Along(tree, q, Unit(nv, j), -h), v)) /
              (2 * h);
    }
    EXPECT_LT((k - dT).lpNorm<Eigen::Infinity>(), 1e-7 * scale)
        << "trial " << trial;
    if (k.norm() > 1e-3 * scale) ++compared_with_energy;
  }
  // Most trees' kinetic energy depends on the configuration (not a chain
  // of parallel axes or of prismatic joints only).
  EXPECT_GT(compared_with_energy, kNumTrees / 2);
}

TEST(Dynamics, MassMatrixIsSymmetricPositiveDefiniteAndGivesKineticEnergy) {
  std::mt19937 rng(101);
  for (int trial = 0; trial < kNumTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng));
    const int nv = tree.num_velocities();
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::VectorXd v = UniformVector(rng, nv, -2.0, 2.0);
    const Eigen::MatrixXd M = MassMatrix(tree, q);
    ASSERT_EQ(M.rows(), nv);
    ASSERT_EQ(M.cols(), nv);
    EXPECT_EQ(M, M.transpose());
    if (nv > 0) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
      EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << "trial " << trial;
    }
    // Kinetic energy link by link: 1/2 m |v_com|^2 + 1/2 w' I_W w.
    std::vector<Eigen::Isometry3d> X;
    std::vector<Eigen::Matrix<double, 6, 1>> V;
    CalcLinkPoses(tree, q, &X);
    CalcLinkVelocities(tree, q, v, &V);
    double T = 0.0;
    Eigen::Vector3d linear = Eigen::Vector3d::Zero();
    Eigen::Vector3d angular = Eigen::Vector3d::Zero();
    for (int l = 0; l < tree.num_links(); ++l) {
      const LinkInertia& in = tree.link(l).inertia;
      const Eigen::Matrix3d& R = X[l].linear();
      const Eigen::Vector3d w = V[l].tail<3>();
      const Eigen::Vector3d c = X[l] * in.com;
      const Eigen::Vector3d v_com =
          V[l].head<3>() + w.cross(c - X[l].translation());
      const Eigen::Matrix3d I_W = R * in.inertia * R.transpose();
      T += 0.5 * in.mass * v_com.squaredNorm() + 0.5 * w.dot(I_W * w);
      linear += in.mass * v_com;
      angular += c.cross(in.mass * v_com) + I_W * w;
    }
    const double T_M = 0.5 * v.dot(M * v);
    EXPECT_NEAR(T_M, T, 1e-12 * T) << "trial " << trial;
    EXPECT_NEAR(CalcKineticEnergy(tree, q, v), T, 1e-12 * T);
    const Eigen::Matrix<double, 6, 1> h = CalcMomentum(tree, q, v);
    EXPECT_LT(RelativeError(h.head<3>(), linear), 1e-12);
    EXPECT_LT(RelativeError(h.tail<3>(), angular), 1e-12);
  }
}

TEST(Dynamics, MassMatrixColumnsAreInverseDynamicsOfUnitAccelerations) {
  std::mt19937 rng(202);
  for (int trial = 0; trial < kNumTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng));
    const int nv = tree.num_velocities();
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::MatrixXd M = MassMatrix(tree, q);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nv);
    Eigen::VectorXd tau;
    for (int k = 0; k < nv; ++k) {
      CalcInverseDynamics(tree, q, zero, Unit(nv, k), Eigen::Vector3d::Zero(),
                          &tau);
      EXPECT_LT(RelativeError(tau, M.col(k)), 1e-13)
          << "trial " << trial << " column " << k;
    }
    // Linearity in vdot: tau(vdot) = M vdot + bias.
    const Eigen::VectorXd v = UniformVector(rng, nv, -1, 1);
    const Eigen::VectorXd vdot = UniformVector(rng, nv, -1, 1);
    const Eigen::Vector3d g(0.3, -0.2, -9.81);
    Eigen::VectorXd bias;
    CalcInverseDynamics(tree, q, v, vdot, g, &tau);
    CalcBiasForces(tree, q, v, g, &bias);
    EXPECT_LT(RelativeError(tau, M * vdot + bias), 1e-12);
  }
}

// Lagrange's equations for these velocities (Boltzmann-Hamel form): with
// T = 1/2 v' M v, c(q, v) = Mdot v - dT/dq + Gamma, where dT/dq is taken
// along IntegratePositions and Gamma is nonzero only for a floating joint's
// angular velocity w (in the parent frame, q_rot' = [w] q_rot): the
// directions R -> exp(e) R do not commute, Gamma = (dT/dw) x w.
TEST(Dynamics, CoriolisTermsMatchTheLagrangianFormFromFiniteDifferences) {
  std::mt19937 rng(303);
  const double h = 1e-5;
  double worst = 0.0;
  for (int trial = 0; trial < kNumTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng, 15));
    const int nv = tree.num_velocities();
    if (nv == 0) continue;
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::VectorXd v = UniformVector(rng, nv, -1.5, 1.5);
    Eigen::VectorXd c;
    CalcBiasForces(tree, q, v, Eigen::Vector3d::Zero(), &c);
    const Eigen::MatrixXd M = MassMatrix(tree, q);
    const Eigen::VectorXd Mdot_v = (MassMatrix(tree, Along(tree, q, v, h)) -
                                    MassMatrix(tree, Along(tree, q, v, -h))) *
                                   v / (2 * h);
    Eigen::VectorXd dT_dq(nv);
    for (int k = 0; k < nv; ++k) {
      const Eigen::VectorXd e = Unit(nv, k);
      dT_dq[k] = 0.5 *
                 v.dot((MassMatrix(tree, Along(tree, q, e, h)) -
                        MassMatrix(tree, Along(tree, q, e, -h))) *
                       v) /
                 (2 * h);
    }
    Eigen::VectorXd expected = Mdot_v - dT_dq;
    const Eigen::VectorXd p = M * v;
    for (int i = 0; i < tree.num_links(); ++i) {
      if (tree.joint(i).type != JointType::kFloating) continue;
      const int s = tree.velocity_start(i) + 3;
      expected.segment<3>(s) += p.segment<3>(s).cross(v.segment<3>(s));
    }
    const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
    const double error = (c - expected).cwiseAbs().maxCoeff() / scale;
    EXPECT_LT(error, 1e-6) << "trial " << trial;
    worst = std::max(worst, error);
  }
  RecordProperty("worst_coriolis_error", std::to_string(worst));
}

TEST(Dynamics, GravityTermIsTheGradientOfPotentialEnergy) {
  std::mt19937 rng(404);
  const double h = 1e-5;
  for (int trial = 0; trial < kNumTrees; ++trial) {
    const MultibodyTree tree = RandomTree(rng, RandomOptions(rng));
    const int nv = tree.num_velocities();
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::Vector3d g = UniformVector(rng, -10.0, 10.0);
    Eigen::VectorXd tau;
    CalcBiasForces(tree, q, Eigen::VectorXd::Zero(nv), g, &tau);
    Eigen::VectorXd dV_dq(nv);
    for (int k = 0; k < nv; ++k) {
      const Eigen::VectorXd e = Unit(nv, k);
      dV_dq[k] = (CalcPotentialEnergy(tree, Along(tree, q, e, h), g) -
                  CalcPotentialEnergy(tree, Along(tree, q, e, -h), g)) /
                 (2 * h);
    }
    const double scale = std::max(1.0, dV_dq.cwiseAbs().maxCoeff());
    EXPECT_LT((tau - dV_dq).cwiseAbs().maxCoeff() / scale, 1e-8)
        << "trial " << trial;
    // PE = -sum m g . c = -M_total g . c_total.
    EXPECT_NEAR(
        CalcPotentialEnergy(tree, q, g),
        -tree.TotalMass() * g.dot(CalcCenterOfMass(tree, q)),
        1e-12 * std::max(1.0, std::abs(CalcPotentialEnergy(tree, q, g))));
  }
}

// RK4 for the forward dynamics M vdot = tau - bias(q, v), the positions'
// rate being v except a floating quaternion's, 1/2 (0, w) * quat.
struct Rk4 {
  const MultibodyTree& tree;
  Eigen::Vector3d gravity;
  Eigen::VectorXd tau;  // applied, constant

  Eigen::VectorXd PositionRate(const Eigen::VectorXd& q,
                               const Eigen::VectorXd& v) const {
    Eigen::VectorXd qdot = Eigen::VectorXd::Zero(q.size());
    for (int i = 0; i < tree.num_links(); ++i) {
      const int qs = tree.position_start(i), vs = tree.velocity_start(i);
      switch (tree.joint(i).type) {
        case JointType::kFixed:
          break;
        case JointType::kRevolute:
        case JointType::kPrismatic:
          qdot[qs] = v[vs];
          break;
        case JointType::kFloating: {
          qdot.segment<3>(qs) = v.segment<3>(vs);
          const Eigen::Quaterniond quat(q[qs + 3], q[qs + 4], q[qs + 5],
                                        q[qs + 6]);
          Eigen::Quaterniond w;
          w.w() = 0.0;
          w.vec() = v.segment<3>(vs + 3);
          const Eigen::Quaterniond rate = w * quat;
          qdot.segment<4>(qs + 3) =
              0.5 * Eigen::Vector4d(rate.w(), rate.x(), rate.y(), rate.z());
          break;
        }
      }
    }
    return qdot;
  }

  Eigen::VectorXd Acceleration(const Eigen::VectorXd& q,
                               const Eigen::VectorXd& v) const {
    Eigen::MatrixXd M;
    Eigen::VectorXd bias;
    CalcMassMatrix(tree, q, &M);
    CalcBiasForces(tree, q, v, gravity, &bias);
    return M.llt().solve(tau - bias);
  }

  // One step of (q, v, work) with work' = v' tau.
  void Step(double dt, Eigen::VectorXd* q, Eigen::VectorXd* v,
            double* work) const {
    const Eigen::VectorXd q0 = *q, v0 = *v;
    const Eigen::VectorXd k1q = PositionRate(q0, v0),
                          k1v = Acceleration(q0, v0);
    const double k1w = v0.dot(tau);
    const Eigen::VectorXd q1 = q0 + 0.5 * dt * k1q, v1 = v0 + 0.5 * dt * k1v;
    const Eigen::VectorXd k2q = PositionRate(q1, v1),
                          k2v = Acceleration(q1, v1);
    const double k2w = v1.dot(tau);
    const Eigen::VectorXd q2 = q0 + 0.5 * dt * k2q, v2 = v0 + 0.5 * dt * k2v;
    const Eigen::VectorXd k3q = PositionRate(q2, v2),
                          k3v = Acceleration(q2, v2);
    const double k3w = v2.dot(tau);
    const Eigen::VectorXd q3 = q0 + dt * k3q, v3 = v0 + dt * k3v;
    const Eigen::VectorXd k4q = PositionRate(q3, v3),
                          k4v = Acceleration(q3, v3);
    const double k4w = v3.dot(tau);
    *q = q0 + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    *v = v0 + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    *work += dt / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
};

TEST(Dynamics, EnergyChangesByTheAppliedWorkAlongRk4) {
  std::mt19937 rng(505);
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  for (int trial = 0; trial < 6; ++trial) {
    RandomTreeOptions options = RandomOptions(rng, 10);
    options.num_joints = std::max(options.num_joints, 3);
    const MultibodyTree tree = RandomTree(rng, options);
    const int nv = tree.num_velocities();
    // Even trials: no applied force (energy conserved); odd: constant.
    const Eigen::VectorXd tau = trial % 2 == 0
                                    ? Eigen::VectorXd::Zero(nv)
                                    : UniformVector(rng, nv, -1.0, 1.0);
    const Rk4 rk4{tree, g, tau};
    Eigen::VectorXd q = RandomPositions(tree, rng);
    Eigen::VectorXd v = UniformVector(rng, nv, -1.0, 1.0);
    const auto energy = [&] {
      return CalcKineticEnergy(tree, q, v) + CalcPotentialEnergy(tree, q, g);
    };
    const double E0 = energy();
    double work = 0.0, scale = 0.0, drift = 0.0;
    const double dt = 1e-3;
    for (int step = 0; step < 1000; ++step) {
      rk4.Step(dt, &q, &v, &work);
      scale = std::max(scale, CalcKineticEnergy(tree, q, v));
      drift = std::max(drift, std::abs(energy() - E0 - work));
    }
    EXPECT_LT(drift, 1e-8 * scale) << "trial " << trial << " scale " << scale;
  }
}

TEST(Dynamics, FloatingTreeConservesMomentumWithoutGravity) {
  std::mt19937 rng(606);
  for (int trial = 0; trial < 4; ++trial) {
    RandomTreeOptions options;
    options.num_joints = 8;
    options.floating_root = true;
    options.world_probability = 0.0;
    const MultibodyTree tree = RandomTree(rng, options);
    const int nv = tree.num_velocities();
    const Rk4 rk4{tree, Eigen::Vector3d::Zero(), Eigen::VectorXd::Zero(nv)};
    Eigen::VectorXd q = RandomPositions(tree, rng);
    Eigen::VectorXd v = UniformVector(rng, nv, -1.0, 1.0);
    const Eigen::Matrix<double, 6, 1> h0 = CalcMomentum(tree, q, v);
    const double T0 = CalcKineticEnergy(tree, q, v);
    const Eigen::Vector3d com0 = CalcCenterOfMass(tree, q);
    double work = 0.0, drift = 0.0;
    for (int step = 0; step < 1000; ++step) {
      rk4.Step(1e-3, &q, &v, &work);
      drift = std::max(drift, RelativeError(CalcMomentum(tree, q, v), h0));
    }
    EXPECT_LT(drift, 1e-9) << "trial " << trial;
    EXPECT_NEAR(CalcKineticEnergy(tree, q, v), T0, 1e-8 * T0);
    // After 1 s the centre of mass has moved by (linear momentum) / mass.
    EXPECT_LT(
        (CalcCenterOfMass(tree, q) - com0 - h0.head<3>() / tree.TotalMass())
            .norm(),
        1e-9);
  }
}

}  // namespace
}  // namespace sapcontact

namespace sapcontact {
namespace {

// A copy of `tree` with random armature on every joint and random springs
// on its revolute and prismatic joints.
MultibodyTree WithArmatureAndSprings(const MultibodyTree& tree,
                                     std::mt19937& rng) {
  MultibodyTree out;
  for (int i = 0; i < tree.num_links(); ++i) {
    Joint j = tree.joint(i);
    j.armature = testing::Uniform(rng, 0.0, 0.5);
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
      j.stiffness = testing::Uniform(rng, 0.0, 20.0);
      j.spring_reference = testing::Uniform(rng, -1.0, 1.0);
    }
    out.AddLink(tree.link(i), j);
  }
  return out;
}

// Armature adds to M's diagonal and to everything M stands for (inverse
// dynamics, kinetic energy); a spring's force is minus the gradient of its
// energy in CalcPotentialEnergy.
TEST(Dynamics, ArmatureAndSpringsEnterMassMatrixDynamicsAndEnergy) {
  std::mt19937 rng(505);
  const double h = 1e-6;
  for (int trial = 0; trial < kNumTrees; ++trial) {
    const MultibodyTree plain = testing::RandomTree(rng, RandomOptions(rng));
    const MultibodyTree tree = WithArmatureAndSprings(plain, rng);
    const int nv = tree.num_velocities();
    const Eigen::VectorXd q = RandomPositions(tree, rng);
    const Eigen::VectorXd v = UniformVector(rng, nv, -2.0, 2.0);
    const Eigen::VectorXd vdot = UniformVector(rng, nv, -1.0, 1.0);
    const Eigen::MatrixXd M = MassMatrix(tree, q);
    const Eigen::MatrixXd M_plain = MassMatrix(plain, q);
    const Eigen::VectorXd a = tree.ArmatureVector();
    EXPECT_LT((M - M_plain - Eigen::MatrixXd(a.asDiagonal())).norm(),
              1e-13 * M.norm())
        << "trial " << trial;
    const Eigen::Vector3d g(0.1, 0.2, -9.81);
    Eigen::VectorXd tau, bias;
    CalcInverseDynamics(tree, q, v, vdot, g, &tau);
    CalcBiasForces(tree, q, v, g, &bias);
    EXPECT_LT(RelativeError(tau, M * vdot + bias), 1e-12);
    const double T = CalcKineticEnergy(tree, q, v);
    EXPECT_NEAR(T, 0.5 * v.dot(M * v), 1e-12 * T);
    // Springs against differences of the potential energy without gravity.
    Eigen::VectorXd spring;
    CalcSpringForces(tree, q, &spring);
    bool any = false;
    for (int k = 0; k < nv; ++k) {
      const Eigen::VectorXd e = Unit(nv, k);
      const double dV = (CalcPotentialEnergy(tree, Along(tree, q, e, h),
                                             Eigen::Vector3d::Zero()) -
                         CalcPotentialEnergy(tree, Along(tree, q, e, -h),
                                             Eigen::Vector3d::Zero())) /
                        (2 * h);
      EXPECT_NEAR(spring[k], -dV, 1e-6 * (1.0 + std::abs(dV)))
          << "trial " << trial << " velocity " << k;
      any = any || spring[k] != 0.0;
    }
    EXPECT_EQ(any, tree.HasSprings());
  }
}

TEST(MultibodyTree, RejectsBadArmatureAndSprings) {
  Link link;
  link.name = "l";
  link.inertia.mass = 1.0;
  link.inertia.inertia = Eigen::Matrix3d::Identity();
  Joint joint;
  joint.name = "j";
  joint.type = JointType::kRevolute;
  joint.armature = -1.0;
  MultibodyTree tree;
  EXPECT_THROW(tree.AddLink(link, joint), std::invalid_argument);
  joint.armature = 0.0;
  joint.stiffness = std::nan("");
  EXPECT_THROW(tree.AddLink(link, joint), std::invalid_argument);
  joint.stiffness = 1.0;
  joint.type = JointType::kFloating;
  EXPECT_THROW(tree.AddLink(link, joint), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
