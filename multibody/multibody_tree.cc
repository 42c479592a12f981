// MultibodyTree: building and validating the model, per-joint sizes, and
// the argument checks shared by the multibody functions.
#include "sapcontact/multibody/multibody_tree.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sapcontact/multibody/tree_internal.h"

namespace sapcontact {
namespace {

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", x);
  return buffer;
}

[[noreturn]] void Fail(const char* kind, const std::string& name,
                       const std::string& what) {
  throw std::invalid_argument(std::string(kind) + " '" + name + "': " + what);
}

void ValidateLink(const Link& link) {
  const LinkInertia& in = link.inertia;
  const auto fail = [&](const std::string& what) {
    Fail("link", link.name, what);
  };
  if (!std::isfinite(in.mass)) fail("mass is not finite");
  if (in.mass < 0.0) fail("mass is negative (" + Num(in.mass) + ")");
  if (!in.com.allFinite()) fail("com is not finite");
  if (!in.inertia.allFinite()) fail("inertia is not finite");
  // Symmetric PSD up to rounding relative to the inertia's size.
  const double scale = in.inertia.cwiseAbs().maxCoeff();
  const double tol = 1e-9 * scale;
  const bool symmetric =
      (in.inertia - in.inertia.transpose()).cwiseAbs().maxCoeff() <= tol;
  const double min_eig = symmetric
                             ? Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(
                                   in.inertia, Eigen::EigenvaluesOnly)
                                   .eigenvalues()
                                   .minCoeff()
                             : 0.0;
  if (!symmetric || min_eig < -tol) {
    fail("inertia is not symmetric positive semidefinite");
  }
}

void ValidateJoint(const Joint& joint, int num_links) {
  const auto fail = [&](const std::string& what) {
    Fail("joint", joint.name, what);
  };
  if (joint.parent < -1 || joint.parent >= num_links) {
    fail("parent " + std::to_string(joint.parent) +
         " is neither -1 (the world) nor an existing link (the tree has " +
         std::to_string(num_links) + " links)");
  }
  if (!joint.origin.matrix().allFinite()) fail("origin is not finite");
  const Eigen::Matrix3d& R = joint.origin.linear();
  if ((R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() >
          1e-9 ||
      R.determinant() < 0.0 ||
      !joint.origin.matrix().row(3).isApprox(Eigen::RowVector4d::UnitW())) {
    fail("origin is not a rigid transform (its rotation is not orthonormal)");
  }
  if (joint.type == JointType::kRevolute ||
      joint.type == JointType::kPrismatic) {
    const double norm = joint.axis.norm();
    if (!std::isfinite(norm) || std::abs(norm - 1.0) > 1e-9) {
      fail("axis is not unit length (norm " + Num(norm) + ")");
    }
  }
  if (std::isnan(joint.lower) || std::isnan(joint.upper) ||
      joint.lower > joint.upper) {
    fail("lower (" + Num(joint.lower) + ") > upper (" + Num(joint.upper) + ")");
  }
  if (!(joint.damping >= 0.0) || !std::isfinite(joint.damping)) {
    fail("damping is negative or not finite (" + Num(joint.damping) + ")");
  }
  if (!(joint.limit_time_constant >= 0.0) ||
      !std::isfinite(joint.limit_time_constant)) {
    fail("limit_time_constant is negative or not finite (" +
         Num(joint.limit_time_constant) + ")");
  }
  if (!(joint.friction_loss >= 0.0) || !std::isfinite(joint.friction_loss)) {
    fail("friction_loss is negative or not finite (" +
         Num(joint.friction_loss) + ")");
  }
  if (joint.friction_loss > 0.0 && joint.type != JointType::kRevolute &&
      joint.type != JointType::kPrismatic) {
    fail("friction_loss on a joint that is not revolute or prismatic");
  }
  if (!(joint.armature >= 0.0) || !std::isfinite(joint.armature)) {
    fail("armature is negative or not finite (" + Num(joint.armature) + ")");
  }
  if (!(joint.stiffness >= 0.0) || !std::isfinite(joint.stiffness) ||
      !std::isfinite(joint.spring_reference)) {
    fail(
        "stiffness is negative or not finite, or spring_reference not "
        "finite (" +
        Num(joint.stiffness) + ", " + Num(joint.spring_reference) + ")");
  }
  if (joint.stiffness > 0.0 && joint.type != JointType::kRevolute &&
      joint.type != JointType::kPrismatic) {
    fail("a spring (stiffness > 0) needs a revolute or prismatic joint");
  }
  if (!(joint.velocity_limit > 0.0)) {
    fail("velocity_limit is not positive (" + Num(joint.velocity_limit) + ")");
  }
  if (!(joint.effort_limit > 0.0)) {
    fail("effort_limit is not positive (" + Num(joint.effort_limit) + ")");
  }
}

int PositionsOf(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic:
      return 1;
    case JointType::kFloating:
      return 7;
  }
  return 0;
}

int VelocitiesOf(JointType type) {
  return type == JointType::kFloating ? 6 : PositionsOf(type);
}

}  // namespace

const char* JointTypeName(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return "fixed";
    case JointType::kRevolute:
      return "revolute";
    case JointType::kPrismatic:
      return "prismatic";
    case JointType::kFloating:
      return "floating";
  }
  return "unknown";
}

int MultibodyTree::AddLink(const Link& link, const Joint& joint) {
  ValidateLink(link);
  ValidateJoint(joint, num_links());
  if (FindLink(link.name) >= 0) {
    Fail("link", link.name, "name is a duplicate");
  }
  if (FindJoint(joint.name) >= 0) {
    Fail("joint", joint.name, "name is a duplicate");
  }
  links_.push_back(link);
  joints_.push_back(joint);
  Joint& added = joints_.back();
  if (added.type == JointType::kRevolute ||
      added.type == JointType::kPrismatic) {
    added.axis.normalize();  // unit within 1e-9 already
  }
  q_start_.push_back(num_positions_);
  v_start_.push_back(num_velocities_);
  num_positions_ += PositionsOf(joint.type);
  num_velocities_ += VelocitiesOf(joint.type);
  return num_links() - 1;
}

int MultibodyTree::FindLink(const std::string& name) const {
  for (int i = 0; i < num_links(); ++i) {
    if (links_[i].name == name) return i;
  }
  return -1;
}

int MultibodyTree::FindJoint(const std::string& name) const {
  for (int i = 0; i < num_links(); ++i) {
    if (joints_[i].name == name) return i;
  }
  return -1;
}

int MultibodyTree::num_positions(int i) const {
  return PositionsOf(joints_[i].type);
}

int MultibodyTree::num_velocities(int i) const {
  return VelocitiesOf(joints_[i].type);
}

double MultibodyTree::TotalMass() const {
  double mass = 0.0;
  for (const Link& link : links_) mass += link.inertia.mass;
  return mass;
}

Eigen::VectorXd MultibodyTree::ZeroPositions() const {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(num_positions_);
  for (int i = 0; i < num_links(); ++i) {
    if (joints_[i].type == JointType::kFloating) q[q_start_[i] + 3] = 1.0;
  }
  return q;
}

Eigen::VectorXd MultibodyTree::DampingVector() const {
  Eigen::VectorXd d(num_velocities_);
  for (int i = 0; i < num_links(); ++i) {
    d.segment(v_start_[i], num_velocities(i)).setConstant(joints_[i].damping);
  }
  return d;
}

Eigen::VectorXd MultibodyTree::ArmatureVector() const {
  Eigen::VectorXd a(num_velocities_);
  for (int i = 0; i < num_links(); ++i) {
    a.segment(v_start_[i], num_velocities(i)).setConstant(joints_[i].armature);
  }
  return a;
}

bool MultibodyTree::HasSprings() const {
  for (const Joint& j : joints_) {
    if (j.stiffness > 0.0) return true;
  }
  return false;
}

void CalcSpringForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                      Eigen::VectorXd* tau) {
  if (q.size() != tree.num_positions()) {
    throw std::invalid_argument("CalcSpringForces: q has " +
                                std::to_string(q.size()) + " entries, not " +
                                std::to_string(tree.num_positions()));
  }
  tau->setZero(tree.num_velocities());
  for (int i = 0; i < tree.num_links(); ++i) {
    const Joint& j = tree.joint(i);
    if (j.stiffness == 0.0) continue;
    (*tau)[tree.velocity_start(i)] =
        -j.stiffness * (q[tree.position_start(i)] - j.spring_reference);
  }
}

namespace multibody_internal {

void CheckSize(const char* what, Eigen::Index size, int expected,
               const char* unit) {
  if (size != expected) {
    throw std::invalid_argument(
        std::string(what) + " has " + std::to_string(size) +
        " entries, the tree has " + std::to_string(expected) + " " + unit);
  }
}

void CheckLinkIndex(const MultibodyTree& tree, int link) {
  if (link < 0 || link >= tree.num_links()) {
    throw std::invalid_argument("link index " + std::to_string(link) +
                                " is out of range (the tree has " +
                                std::to_string(tree.num_links()) + " links)");
  }
}

void CheckPoses(const MultibodyTree& tree,
                const std::vector<Eigen::Isometry3d>& X_WL) {
  if (static_cast<int>(X_WL.size()) != tree.num_links()) {
    throw std::invalid_argument("X_WL has " + std::to_string(X_WL.size()) +
                                " entries, the tree has " +
                                std::to_string(tree.num_links()) + " links");
  }
}

Eigen::Quaterniond FloatingQuaternion(const MultibodyTree& tree, int i,
                                      const Eigen::VectorXd& q) {
  const int s = tree.position_start(i) + 3;
  Eigen::Quaterniond quat(q[s], q[s + 1], q[s + 2], q[s + 3]);
  const double norm = quat.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) {
    Fail("joint", tree.joint(i).name,
         "quaternion is zero or not finite (norm " + Num(norm) + ")");
  }
  quat.coeffs() /= norm;
  return quat;
}

}  // namespace multibody_internal
}  // namespace sapcontact
