// Robots, prescribed motion and external forces in a scene: the YAML
// `robots:` and `external_forces:` sections and a body's `prescribed:` key
// (docs/robots.md, docs/scenes.md), after loading and validation. SI units.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/sim/robot/collision_filter.h"
#include "sapcontact/sim/robot/robot_description.h"
#include "sapcontact/sim/scene/time_function.h"

namespace sapcontact {

/// Initial state of one joint (YAML robots[i].joints.<joint>). A floating
/// base's initial pose is `base`; its initial velocity base_velocity.
struct JointInitialState {
  int joint{-1};         ///< index in the robot's tree
  double position{0.0};  ///< [rad or m]
  double velocity{0.0};  ///< [rad/s or m/s]
};

/// Implicit PD actuation of one 1-DOF joint (YAML
/// robots[i].actuation.<joint>): effort u = kp (target - q) + kd
/// (target_velocity - v) + feedforward, clamped to +-effort_limit, applied
/// implicitly in the step (docs/theory.md, the PD constraint).
struct JointActuation {
  int joint{-1};   ///< index in the robot's tree
  double kp{0.0};  ///< [N m/rad or N/m], >= 0
  double kd{0.0};  ///< [N m s/rad or N s/m], >= 0; kp + kd > 0
  /// Position target q_d(t) [rad or m]. Default: constant 0.
  TimeFunction target{1};
  /// Velocity target v_d(t); when absent in the file it is the target's
  /// time derivative (LoadScene sets target.TimeDerivative(); 0 for a
  /// constant target). Built in code: constant 0 unless set.
  TimeFunction target_velocity{1};
  /// Feed-forward effort u0(t) [N m or N]. Default 0.
  TimeFunction feedforward{1};
  /// Effort limit [N m or N], > 0; default the URDF joint's effort limit
  /// (infinite when the URDF gives none).
  double effort_limit{std::numeric_limits<double>::infinity()};
  /// A servo of the robot's file (RobotDescription::actuators index, an
  /// MJCF <position> or <velocity>): its control u, clamped to its control
  /// range, sets the target (position u / gear, or velocity u / gear)
  /// instead of `target` and `target_velocity`. -1: none.
  int servo{-1};
};

/// One robot (YAML `robots:` item).
struct RobotSpec {
  /// Unique among robots and bodies; same character rules as body names.
  std::string name;
  /// The URDF path as written in the file, and resolved against the scene
  /// file's folder (empty for an MJCF robot).
  std::string urdf;
  std::string urdf_path;
  /// An MJCF robot: the file as written and resolved, and the top-level
  /// body of <worldbody> that is the robot (mjcf_body; may be omitted when
  /// the file has one robot).
  std::string mjcf;
  std::string mjcf_path;
  std::string mjcf_body;
  /// The <keyframe><key name> whose qpos and qvel are the robot's initial
  /// state (mjcf_keyframe; empty: the file's qpos0, at rest).
  std::string mjcf_keyframe;
  /// An SDFormat robot: the file as written and resolved, and the robot of
  /// the file (sdf_model: a model's name, or "<model>::<root link>" for a
  /// model with several free link trees; may be omitted when the file has
  /// one robot).
  std::string sdf;
  std::string sdf_path;
  std::string sdf_model;
  /// base: {position, rpy or quaternion, fixed}. URDF: fixed: true welds the
  /// root link to the world at this pose; false makes it a floating base
  /// starting there. MJCF: the pose of the file's world frame in the scene
  /// (default identity); fixed follows the file (a free joint floats).
  Pose base_pose;
  bool fixed_base{true};
  /// A floating base's initial velocity (world frame) [m/s], [rad/s].
  Vector3 base_velocity{Vector3::Zero()};
  Vector3 base_angular_velocity{Vector3::Zero()};
  /// Joints not listed start at position 0, velocity 0.
  std::vector<JointInitialState> joints;
  std::vector<JointActuation> actuation;
  /// Material of every link's collision geometry; index in Scene::materials.
  std::string material{"default"};
  int material_index{0};
  /// Materials of single collision geometries (YAML geometry_materials:
  /// {"<link>/<collision>": MATERIAL}): per description.geometries entry,
  /// an index in Scene::materials, or -1 for `material`. Empty: all -1.
  std::vector<int> geometry_material_index;
  /// Contacts between this robot's links (default off), except the pairs
  /// the collision filter excludes (RobotCollisionFilter).
  bool self_collision{false};
  /// Collision filter (docs/robots.md, "Collision filters"; YAML
  /// collision_filter: {adjacent, pairs} and srdf): links within
  /// `collision_adjacent` joints of each other (links welded by fixed
  /// joints counting as one body; default 1: parent and child) and the
  /// named pairs (link indices of description.tree, from
  /// collision_filter.pairs and the SRDF's <disable_collisions>) never
  /// collide with each other.
  int collision_adjacent{1};
  std::vector<std::pair<int, int>> collision_filter_pairs;
  /// The SRDF file as written and resolved against the scene file's folder
  /// (empty: none).
  std::string srdf;
  std::string srdf_path;
  /// UrdfOptions (sim/robot/urdf_loader.h).
  bool skip_unsupported{false};
  bool cylinders_as_capsules{false};
  /// package://NAME/... mesh URIs (URDF, SDFormat) and model://NAME/...
  /// URIs (SDFormat): NAME -> folder, as written and resolved against the
  /// scene file's folder (UrdfOptions::package_paths,
  /// SdfOptions::package_paths; then the environment's search paths).
  std::map<std::string, std::string> package_paths;
  /// Joint limits as constraints (default on; off ignores the URDF limits).
  bool joint_limits{true};
  /// The loaded URDF (base pose and floating/fixed applied).
  RobotDescription description;
};

/// The robot's initial generalized positions (tree.num_positions()):
/// description.initial_positions (a floating base at base_pose) with each
/// `joints` entry's position, then every mimic follower at multiplier *
/// q_leader + offset. @throws std::invalid_argument on joint indices that
/// are not 1-DOF joints of the tree.
Eigen::VectorXd RobotInitialPositions(const RobotSpec& robot);
/// Initial generalized velocities (tree.num_velocities()): zero, a floating
/// root joint's (base_velocity, base_angular_velocity), each `joints`
/// entry's velocity, then every mimic follower at multiplier * v_leader.
Eigen::VectorXd RobotInitialVelocities(const RobotSpec& robot);

/// A body that follows prescribed velocities instead of dynamics (YAML
/// bodies[i].prescribed): pose integrated from them; infinite mass; contacts
/// with it see its velocity. Fixed bodies may instead have only a
/// surface_velocity (a conveyor belt: the surface moves, the body does not).
struct PrescribedMotion {
  /// World-frame velocity of the body origin [m/s] and angular velocity
  /// [rad/s] as functions of time.
  TimeFunction velocity{3};
  TimeFunction angular_velocity{3};
  /// Tangential velocity of the body's surface material [m/s], world frame
  /// (conveyor belts); added to the body's point velocities at contacts
  /// (only its component tangent to each contact counts).
  TimeFunction surface_velocity{3};
};

/// An external force and torque on a body or a robot link (YAML
/// `external_forces:` item).
struct ExternalForce {
  /// The target as written ("box" or "arm/link3") and resolved: a body
  /// index, or a robot index and link index.
  std::string target;
  int body{-1};
  int robot{-1};
  int link{-1};
  /// World-frame force [N] applied at the body's centre of mass (a link:
  /// at the link frame's origin plus `point`), and torque [N m].
  TimeFunction force{3};
  TimeFunction torque{3};
  /// Application point in the body's or link's frame [m] (default origin /
  /// centre of mass).
  Vector3 point{Vector3::Zero()};
};

/// The link pairs of the robot that never collide with each other: its
/// collision_adjacent and collision_filter_pairs (docs/robots.md,
/// "Collision filters").
LinkCollisionFilter RobotCollisionFilter(const RobotSpec& robot);

}  // namespace sapcontact
