// Random kinematic trees for the multibody tests: random topology, the four
// joint types mixed, random origins, axes and inertias; random states.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <string>

#include "sapcontact/multibody/multibody_tree.h"
#include "tests/common/constants.h"

namespace sapcontact {
namespace testing {

using test_constants::kPi;

struct RandomTreeOptions {
  int num_joints{10};
  /// Each link's parent is the previous link (a chain) instead of random.
  bool chain{false};
  /// Probability of a floating joint (root or not).
  double floating_probability{0.1};
  /// Root joint: floating (true), or drawn like the others (false).
  bool floating_root{false};
  /// Probability that a non-root link hangs from the world.
  double world_probability{0.05};
};

inline double Uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

/// Options of a random tree: 1 to max_joints joints, each floating with
/// probability 0.1, a floating root half the time; chain: one branch.
inline RandomTreeOptions RandomOptions(std::mt19937& rng, int max_joints = 30,
                                       bool chain = false) {
  RandomTreeOptions options;
  options.num_joints = std::uniform_int_distribution<int>(1, max_joints)(rng);
  options.chain = chain;
  options.floating_probability = 0.1;
  options.floating_root = Uniform(rng, 0, 1) < 0.5;
  return options;
}

inline Eigen::Vector3d UniformVector(std::mt19937& rng, double lo, double hi) {
  return Eigen::Vector3d(Uniform(rng, lo, hi), Uniform(rng, lo, hi),
                         Uniform(rng, lo, hi));
}

inline Eigen::VectorXd UniformVector(std::mt19937& rng, int n, double lo,
                                     double hi) {
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = Uniform(rng, lo, hi);
  return x;
}

/// A uniformly distributed unit vector / rotation.
inline Eigen::Vector3d RandomUnitVector(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Eigen::Vector3d a(normal(rng), normal(rng), normal(rng));
  return a.normalized();
}

inline Eigen::Quaterniond RandomQuaternion(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
  return q.normalized();
}

inline Eigen::Isometry3d RandomPose(std::mt19937& rng, double half_width) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = RandomQuaternion(rng).toRotationMatrix();
  X.translation() = UniformVector(rng, -half_width, half_width);
  return X;
}

/// Mass in [0.5, 2] kg, COM within 0.2 m of the origin, principal moments
/// in [0.01, 0.1] kg m^2 about random axes.
inline LinkInertia RandomInertia(std::mt19937& rng) {
  LinkInertia in;
  in.mass = Uniform(rng, 0.5, 2.0);
  in.com = UniformVector(rng, -0.2, 0.2);
  const Eigen::Matrix3d R = RandomQuaternion(rng).toRotationMatrix();
  in.inertia = R * UniformVector(rng, 0.01, 0.1).asDiagonal() * R.transpose();
  in.inertia = 0.5 * (in.inertia + in.inertia.transpose()).eval();
  return in;
}

inline MultibodyTree RandomTree(std::mt19937& rng,
                                const RandomTreeOptions& options) {
  MultibodyTree tree;
  for (int i = 0; i < options.num_joints; ++i) {
    Link link;
    link.name = "link" + std::to_string(i);
    link.inertia = RandomInertia(rng);
    Joint joint;
    joint.name = "joint" + std::to_string(i);
    if (i == 0) {
      joint.parent = -1;
    } else if (options.chain) {
      joint.parent = i - 1;
    } else if (Uniform(rng, 0, 1) < options.world_probability) {
      joint.parent = -1;
    } else {
      joint.parent = std::uniform_int_distribution<int>(0, i - 1)(rng);
    }
    const double u = Uniform(rng, 0, 1);
    const double pf = options.floating_probability;
    if (i == 0 && options.floating_root) {
      joint.type = JointType::kFloating;
    } else if (u < pf) {
      joint.type = JointType::kFloating;
    } else if (u < pf + 0.15) {
      joint.type = JointType::kFixed;
    } else if (u < pf + 0.45) {
      joint.type = JointType::kPrismatic;
    } else {
      joint.type = JointType::kRevolute;
    }
    joint.origin = RandomPose(rng, 0.5);
    joint.axis = RandomUnitVector(rng);
    tree.AddLink(link, joint);
  }
  return tree;
}

/// Random q: revolute in [-pi, pi], prismatic in [-0.5, 0.5] m, floating
/// position in [-1, 1] m and a random quaternion of norm in [0.5, 2] (the
/// functions normalize it).
inline Eigen::VectorXd RandomPositions(const MultibodyTree& tree,
                                       std::mt19937& rng) {
  Eigen::VectorXd q = tree.ZeroPositions();
  for (int i = 0; i < tree.num_links(); ++i) {
    const int s = tree.position_start(i);
    switch (tree.joint(i).type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
        q[s] = Uniform(rng, -kPi, kPi);
        break;
      case JointType::kPrismatic:
        q[s] = Uniform(rng, -0.5, 0.5);
        break;
      case JointType::kFloating: {
        q.segment<3>(s) = UniformVector(rng, -1.0, 1.0);
        const Eigen::Quaterniond quat = RandomQuaternion(rng);
        q.segment<4>(s + 3) =
            Uniform(rng, 0.5, 2.0) *
            Eigen::Vector4d(quat.w(), quat.x(), quat.y(), quat.z());
        break;
      }
    }
  }
  return q;
}

/// max |a - b| / max |b| (b the reference; 1 if b is 0).
inline double RelativeError(const Eigen::MatrixXd& a,
                            const Eigen::MatrixXd& b) {
  const double scale = b.size() == 0 ? 1.0 : b.cwiseAbs().maxCoeff();
  if (a.size() == 0) return 0.0;
  return (a - b).cwiseAbs().maxCoeff() / (scale > 0.0 ? scale : 1.0);
}

}  // namespace testing
}  // namespace sapcontact
