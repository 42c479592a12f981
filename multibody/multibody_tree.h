// A kinematic tree of rigid links connected by joints (Featherstone,
// "Rigid Body Dynamics Algorithms", 2008, ch. 4): the model of one robot.
// Links are numbered in topological order (a link's parent has a smaller
// index); link i is attached to its parent (or to the world, parent -1) by
// joint i, so joints and links share indices. The tree's root joint (index
// 0) is usually fixed (a fixed-base robot placed in the world) or floating.
//
// Frames. Each link L has a frame; the pose of joint i's link relative to
// its parent's frame is X_PL(q) = origin_i * Motion_i(q_i) (the URDF
// convention: the child link frame is the joint frame after the joint's
// motion), with origin_i a constant rigid transform given in the parent
// frame and Motion_i:
//   kFixed      identity                                  (nq 0, nv 0)
//   kRevolute   rotation by q about `axis` (unit, in the joint frame)
//                                                          (nq 1, nv 1)
//   kPrismatic  translation by q along `axis`              (nq 1, nv 1)
//   kFloating   q = (x, y, z, qw, qx, qy, qz): translation (x, y, z), then
//               the rotation of the unit quaternion (qw, qx, qy, qz) (nq 7);
//               v = (linear velocity of the link origin, angular velocity),
//               both expressed in the PARENT's frame (nv 6), the order and
//               frame of the simulator's free bodies (sim/stepping). With
//               a non-identity origin, "parent frame" means the joint frame
//               (parent * origin), the frame (x, y, z) is measured in, for
//               v, its generalized forces and IntegratePositions alike.
// Revolute/prismatic velocities are the time derivative of q [rad/s, m/s].
// Generalized positions and velocities of the tree are stacked joint by
// joint in index order.
//
// Units: SI (m, kg, kg m^2, rad, N, N m). Gravity is a world-frame vector.
//
// The free functions throw std::invalid_argument on a q, v or vdot of the
// wrong size and on a bad link index. They are thread-safe: their scratch
// space is thread_local, allocated when a thread first meets a larger tree.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>
#include <string>
#include <vector>

namespace sapcontact {

enum class JointType { kFixed, kRevolute, kPrismatic, kFloating };

/// "fixed", "revolute", "prismatic", "floating".
const char* JointTypeName(JointType type);

/// Mass properties of a link in its own frame.
struct LinkInertia {
  double mass{0.0};  ///< [kg], >= 0
  /// Centre of mass in the link frame [m].
  Eigen::Vector3d com{Eigen::Vector3d::Zero()};
  /// Rotational inertia about the centre of mass, link-frame axes [kg m^2],
  /// symmetric positive semidefinite.
  Eigen::Matrix3d inertia{Eigen::Matrix3d::Zero()};
};

/// A joint: how a link moves relative to its parent (see the file comment).
struct Joint {
  std::string name;
  JointType type{JointType::kFixed};
  /// Parent link index, or -1 for the world.
  int parent{-1};
  /// Pose of the joint frame in the parent link's frame (the world frame
  /// for parent -1).
  Eigen::Isometry3d origin{Eigen::Isometry3d::Identity()};
  /// Unit axis in the joint frame (revolute, prismatic).
  Eigen::Vector3d axis{Eigen::Vector3d::UnitZ()};
  /// Viscous joint damping [N m s/rad or N s/m] per velocity (>= 0); for a
  /// floating joint it applies to all six velocities.
  double damping{0.0};
  /// Armature [kg m^2 or kg] per velocity (>= 0): the reflected inertia of
  /// a rotor (MJCF armature), added to the mass matrix's diagonal entry of
  /// each of the joint's velocities (CalcMassMatrix, CalcInverseDynamics,
  /// CalcKineticEnergy).
  double armature{0.0};
  /// Joint spring (revolute, prismatic): generalized force -stiffness (q -
  /// spring_reference) [N m or N], stiffness >= 0 [N m/rad or N/m]
  /// (MJCF stiffness, springref). Its energy is in CalcPotentialEnergy.
  double stiffness{0.0};
  double spring_reference{0.0};
  /// Dry friction (revolute, prismatic): the joint sticks unless its other
  /// forces exceed this torque or force [N m or N], >= 0, and slides
  /// against it otherwise (URDF <dynamics friction>, MJCF frictionloss;
  /// the simulator's bounded velocity row, docs/robots.md "Joint
  /// friction").
  double friction_loss{0.0};
  /// Position limits [rad or m] (revolute, prismatic); -inf/+inf: none.
  double lower{-std::numeric_limits<double>::infinity()};
  double upper{std::numeric_limits<double>::infinity()};
  /// 0 (default): the simulator's position limits are near-rigid. > 0 [s]:
  /// compliant, a critically damped spring-damper of this time constant for
  /// the joint's effective inertia (MJCF solreflimit; docs/robots.md,
  /// "Limits").
  double limit_time_constant{0.0};
  /// Velocity [rad/s or m/s] and effort [N m or N] limits, > 0 (inf: none).
  double velocity_limit{std::numeric_limits<double>::infinity()};
  double effort_limit{std::numeric_limits<double>::infinity()};
};

/// A link: its name, mass properties, and (by index) the joint that attaches
/// it to its parent.
struct Link {
  std::string name;
  LinkInertia inertia;
};

class MultibodyTree {
 public:
  /// Adds link `link` attached by `joint` (joint.parent must be -1 or an
  /// existing link); returns the new link's (and joint's) index.
  /// @throws std::invalid_argument naming the link or joint: an unknown
  ///         parent, a duplicate link or joint name, a non-finite origin or
  ///         mass property, a negative mass, an inertia that is not
  ///         symmetric PSD, an origin whose rotation is not orthonormal
  ///         (1e-9), an axis that is not unit length (relative 1e-9)
  ///         for revolute/prismatic joints, lower > upper, negative or
  ///         non-finite damping, armature or stiffness, a spring on a fixed
  ///         or floating joint,
  ///         non-positive velocity or effort limits.
  int AddLink(const Link& link, const Joint& joint);

  int num_links() const { return static_cast<int>(links_.size()); }
  int num_positions() const { return num_positions_; }
  int num_velocities() const { return num_velocities_; }
  const Link& link(int i) const { return links_[i]; }
  const Joint& joint(int i) const { return joints_[i]; }
  /// Index of the link or joint with this name, or -1.
  int FindLink(const std::string& name) const;
  int FindJoint(const std::string& name) const;
  /// First index of joint i's entries in q and in v, and their counts.
  int position_start(int i) const { return q_start_[i]; }
  int velocity_start(int i) const { return v_start_[i]; }
  int num_positions(int i) const;
  int num_velocities(int i) const;
  /// Total mass [kg].
  double TotalMass() const;

  /// q with every joint at 0 (floating: origin, identity quaternion).
  Eigen::VectorXd ZeroPositions() const;
  /// Per-velocity joint damping (nv), see Joint::damping.
  Eigen::VectorXd DampingVector() const;
  /// Per-velocity armature (nv), see Joint::armature.
  Eigen::VectorXd ArmatureVector() const;
  /// True when some joint has a spring (Joint::stiffness > 0).
  bool HasSprings() const;

 private:
  std::vector<Link> links_;
  std::vector<Joint> joints_;
  std::vector<int> q_start_, v_start_;
  int num_positions_{0}, num_velocities_{0};
};

/// World poses of every link frame at q (forward kinematics). X_WL has
/// num_links() entries. @throws std::invalid_argument if q has the wrong
/// size or a floating joint's quaternion is zero (it is normalized, not
/// required to be unit).
void CalcLinkPoses(const MultibodyTree& tree, const Eigen::VectorXd& q,
                   std::vector<Eigen::Isometry3d>* X_WL);

/// Spatial velocities of every link at (q, v): for link L, (linear velocity
/// of L's origin, angular velocity), both in the world frame [m/s, rad/s].
void CalcLinkVelocities(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v,
                        std::vector<Eigen::Matrix<double, 6, 1>>* V_WL);

/// The joint-space mass matrix M(q) (nv x nv, symmetric positive
/// semidefinite; definite when every moving subtree has mass and inertia),
/// by the composite-rigid-body algorithm. Kinetic energy = 1/2 v' M v.
void CalcMassMatrix(const MultibodyTree& tree, const Eigen::VectorXd& q,
                    Eigen::MatrixXd* M);

/// Inverse dynamics by the recursive Newton-Euler algorithm: the
/// generalized forces tau = M(q) vdot + c(q, v) - tau_g(q) that produce the
/// accelerations vdot under gravity g [m/s^2, world frame], without
/// damping. For a floating joint, tau's six entries are the force and
/// torque (in that order, parent-frame coordinates, torque about the link
/// origin) conjugate to its velocity.
void CalcInverseDynamics(const MultibodyTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& vdot,
                         const Eigen::Vector3d& gravity, Eigen::VectorXd* tau);

/// Bias forces c(q, v) - tau_g(q) = CalcInverseDynamics with vdot = 0
/// (Coriolis, centrifugal and gravity).
void CalcBiasForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, const Eigen::Vector3d& gravity,
                    Eigen::VectorXd* c);

/// Joint spring forces (nv): -stiffness (q - spring_reference) at each
/// revolute or prismatic joint's velocity (Joint::stiffness), zero
/// elsewhere [N m or N].
void CalcSpringForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                      Eigen::VectorXd* tau);

/// Jacobian (3 x nv) of the world-frame velocity of a point fixed on link
/// `link`, given by its WORLD position p_W at q: v_p = J v. Columns of joints
/// that do not move the link are zero.
void CalcPointJacobian(const MultibodyTree& tree, const Eigen::VectorXd& q,
                       int link, const Eigen::Vector3d& p_W,
                       Eigen::MatrixXd* J);

/// The same with the link poses already computed (CalcLinkPoses at q),
/// the form a simulator with many contacts per step uses.
void CalcPointJacobian(const MultibodyTree& tree,
                       const std::vector<Eigen::Isometry3d>& X_WL, int link,
                       const Eigen::Vector3d& p_W, Eigen::MatrixXd* J);

/// Jacobian (6 x nv) of a frame fixed on `link` with origin at world point
/// p_W: rows 0-2 the linear velocity of p_W, rows 3-5 the angular velocity,
/// world frame.
void CalcFrameJacobian(const MultibodyTree& tree, const Eigen::VectorXd& q,
                       int link, const Eigen::Vector3d& p_W,
                       Eigen::MatrixXd* J);

/// The same with the link poses already computed (CalcLinkPoses at q).
void CalcFrameJacobian(const MultibodyTree& tree,
                       const std::vector<Eigen::Isometry3d>& X_WL, int link,
                       const Eigen::Vector3d& p_W, Eigen::MatrixXd* J);

/// Kinetic energy 1/2 v' M v [J] (armature included) and potential energy
/// -sum m_L g . c_L + sum 1/2 k (q - q_ref)^2 [J] (gravity zero at the world
/// origin, and the joint springs), and the spatial momentum about the world
/// origin (linear [kg m/s], then angular [kg m^2/s], world frame).
double CalcKineticEnergy(const MultibodyTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v);
double CalcPotentialEnergy(const MultibodyTree& tree, const Eigen::VectorXd& q,
                           const Eigen::Vector3d& gravity);
Eigen::Matrix<double, 6, 1> CalcMomentum(const MultibodyTree& tree,
                                         const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v);

/// k(q, v) = Mdot(q, v) v - c_C(q, v) [N m or N], c_C the Coriolis and
/// centrifugal forces and Mdot v the mass matrix's change along v (tangent
/// directions, as IntegratePositions): the velocity term of the variational
/// step (docs/theory.md §17). Without floating joints it is dT/dq, the
/// gradient of the kinetic energy at fixed v. One pass over the links, no
/// mass matrix.
void CalcMassRateForces(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v, Eigen::VectorXd* k);
/// The same with the link poses already computed (CalcLinkPoses at q).
void CalcMassRateForces(const MultibodyTree& tree,
                        const std::vector<Eigen::Isometry3d>& X_WL,
                        const Eigen::VectorXd& v, Eigen::VectorXd* k);

/// World position of the tree's centre of mass [m] (the origin if the tree
/// has no mass).
Eigen::Vector3d CalcCenterOfMass(const MultibodyTree& tree,
                                 const Eigen::VectorXd& q);

/// q_next = q advanced by dt with constant velocity v: revolute/prismatic
/// q + dt v; floating position + dt v_lin and the quaternion rotated by the
/// angle-axis dt w (parent frame), renormalized.
void IntegratePositions(const MultibodyTree& tree, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& v, double dt,
                        Eigen::VectorXd* q_next);

}  // namespace sapcontact
