// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the multibody component. A planar double pendulum (revolute joints about
// y, links along x from their joints, centres of mass lc1 = 0.3 m and
// lc2 = 0.25 m out, link 1 of length l1 = 0.6 m, masses 1.5 kg and 0.8 kg,
// inertias I1 = 0.02, I2 = 0.01 kg m^2 about y) against the textbook closed
// forms:
//   M11 = I1 + I2 + m1 lc1^2 + m2 (l1^2 + lc2^2 + 2 l1 lc2 cos q2)
//   M12 = I2 + m2 (lc2^2 + l1 lc2 cos q2),  M22 = I2 + m2 lc2^2
// and, at v = 0 under gravity g along -z (a rotation q about y turns +x
// towards -z, so link k's centre is at height -(...) sin(...)), the bias
// forces dV/dq:
//   c1 = -g ((m1 lc1 + m2 l1) cos q1 + m2 lc2 cos(q1 + q2)),
//   c2 = -g m2 lc2 cos(q1 + q2).
// Exit status 0 when both agree to 1e-12 (relative), 1 otherwise.
#include <sapcontact/multibody/multibody_tree.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace sapcontact;
  const double m1 = 1.5, m2 = 0.8, l1 = 0.6, lc1 = 0.3, lc2 = 0.25;
  const double I1 = 0.02, I2 = 0.01, g = 9.81;
  MultibodyTree tree;
  Joint shoulder;
  shoulder.name = "shoulder";
  shoulder.type = JointType::kRevolute;
  shoulder.axis = Eigen::Vector3d::UnitY();
  Link upper{"upper", {m1, {lc1, 0, 0}, Eigen::Matrix3d::Identity() * I1}};
  tree.AddLink(upper, shoulder);
  Joint elbow = shoulder;
  elbow.name = "elbow";
  elbow.parent = 0;
  elbow.origin.translation() = Eigen::Vector3d(l1, 0, 0);
  Link fore{"fore", {m2, {lc2, 0, 0}, Eigen::Matrix3d::Identity() * I2}};
  tree.AddLink(fore, elbow);
  if (tree.FindJoint("elbow") != 1 || tree.num_velocities() != 2) {
    std::printf("FindJoint(elbow) %d, nv %d: expected 1, 2\n",
                tree.FindJoint("elbow"), tree.num_velocities());
    return 1;
  }

  bool ok = true;
  double worst = 0;
  for (const auto& angles :
       {Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(0.7, -1.2),
        Eigen::Vector2d(-2.1, 2.9)}) {
    const Eigen::VectorXd q = angles;
    Eigen::MatrixXd M;
    Eigen::VectorXd c;
    CalcMassMatrix(tree, q, &M);
    CalcBiasForces(tree, q, Eigen::VectorXd::Zero(2), Eigen::Vector3d(0, 0, -g),
                   &c);
    const double c2q = std::cos(q(1)), c12 = std::cos(q(0) + q(1));
    Eigen::Matrix2d M_ref;
    M_ref(0, 0) = I1 + I2 + m1 * lc1 * lc1 +
                  m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * c2q);
    M_ref(0, 1) = M_ref(1, 0) = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2q);
    M_ref(1, 1) = I2 + m2 * lc2 * lc2;
    const Eigen::Vector2d c_ref(
        -g * ((m1 * lc1 + m2 * l1) * std::cos(q(0)) + m2 * lc2 * c12),
        -g * m2 * lc2 * c12);
    const double eM = (M - M_ref).norm() / M_ref.norm();
    const double ec = (c - c_ref).norm() / c_ref.norm();
    std::printf(
        "q = (%5.2f, %5.2f): |M - M_ref|/|M_ref| %.1e, "
        "|c - c_ref|/|c_ref| %.1e\n",
        q(0), q(1), eM, ec);
    worst = std::max(worst, std::max(eM, ec));
    ok = ok && eM <= 1e-12 && ec <= 1e-12;
  }
  std::printf("multibody: worst relative error %.1e (limit 1e-12)\n", worst);
  return ok ? 0 : 1;
}
