// A robot as the simulator sees it: a multibody tree (multibody/
// multibody_tree.h) plus the collision geometry attached to its links and
// the URDF's mimic couplings. Loaded from URDF by LoadUrdf
// (sim/robot/urdf_loader.h). Units SI; frames as in multibody_tree.h.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>
#include <string>
#include <vector>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/geometry/shapes.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/visual_geometry.h"

namespace sapcontact {

/// One collision shape fixed on a link.
struct RobotGeometry {
  /// "<link>/<collision name or index>" for messages and output.
  std::string name;
  /// Link index in RobotDescription::tree.
  int link{-1};
  /// Shape in its own frame G (geometry/shapes.h): box, sphere,
  /// cylinder, mesh (in the mesh file's frame, scaled; it collides as its
  /// convex hull) or capsule (the URDF extension <capsule radius length>, or
  /// a <cylinder> under UrdfOptions::cylinders_as_capsules).
  Shape shape;
  /// Pose of G in the link frame L (X_LG).
  Pose pose_in_link;
};

/// q_follower = multiplier * q_leader + offset (URDF <mimic>), both 1-DOF
/// joints (indices in RobotDescription::tree).
struct JointCoupling {
  int follower{-1};
  int leader{-1};
  double multiplier{1.0};
  double offset{0.0};
};

/// A frame F on a link held at a pose T fixed in the world, near-rigidly
/// (docs/theory.md §17): all six coordinates (a weld) or F's origin only
/// (orientation false: a ball-and-socket point, MJCF connect). MJCF
/// <equality> weld and connect between a robot's body and a static one.
struct LinkWeld {
  std::string name;
  int link{-1};
  /// F in the link frame (X_LF) and the world pose T it is held at (X_WT).
  Eigen::Isometry3d X_LF{Eigen::Isometry3d::Identity()};
  Eigen::Isometry3d X_WT{Eigen::Isometry3d::Identity()};
  bool orientation{true};
};

/// A fixed tendon's length L = sum_i c_i q_i of 1-DOF joints held within
/// [lower, upper] [m or rad] by two unilateral rows, near-rigid as joint
/// limits are (MJCF <tendon><fixed range>).
struct TendonLimit {
  std::string name;
  std::vector<int> joints;  // indices in RobotDescription::tree
  std::vector<double> coefficients;
  double lower{0.0};
  double upper{0.0};
};

/// What an actuator does with its control u (MJCF actuators, by MuJoCo's
/// force f = gain u + bias with the actuator length gear q).
enum class ActuatorKind {
  /// A force: the joint gets gear * f, f = u clamped to [ctrl_lower,
  /// ctrl_upper], then to [force_lower, force_upper] (MJCF <motor>).
  kMotor,
  /// A servo to a position: the simulator's implicit PD on the joint with
  /// stiffness kp gear^2 and damping kv gear^2 toward q = u / gear (u
  /// clamped to the control range), its effort limited by the force range
  /// times |gear| (MJCF <position>, or <general> reducing to it).
  kPosition,
  /// A servo to a velocity: the implicit PD with damping kv gear^2 toward
  /// v = u / gear (MJCF <velocity>).
  kVelocity,
};

/// An actuator on a 1-DOF joint; bounds in the units of f [N or N m per
/// unit of gear]; infinite bounds: none.
struct RobotActuator {
  std::string name;
  ActuatorKind kind{ActuatorKind::kMotor};
  /// Joint index in RobotDescription::tree (revolute or prismatic).
  int joint{-1};
  double gear{1.0};
  /// Servo gains (kPosition: kp [N/m or N m/rad per unit of gear^2], kv;
  /// kVelocity: kv), >= 0.
  double kp{0.0};
  double kv{0.0};
  double ctrl_lower{-std::numeric_limits<double>::infinity()};
  double ctrl_upper{std::numeric_limits<double>::infinity()};
  double force_lower{-std::numeric_limits<double>::infinity()};
  double force_upper{std::numeric_limits<double>::infinity()};
};

struct RobotDescription {
  /// The URDF's robot name.
  std::string name;
  /// Links in depth-first order from the root, a link's children in the
  /// file order of their joints; link i is attached by joint i (named as in
  /// the URDF). Link 0 is the URDF root link, attached to the world by
  /// joint 0: fixed
  /// (named "<root link>_base", origin = the base pose) or floating (q's
  /// first 7 entries = the base pose, origin identity).
  MultibodyTree tree;
  std::vector<RobotGeometry> geometries;
  /// What the robot looks like (URDF <visual>; sim/robot/visual_geometry.h),
  /// in link order, each link's in document order. Display only.
  std::vector<VisualGeometry> visuals;
  std::vector<JointCoupling> couplings;
  std::vector<LinkWeld> welds;
  std::vector<TendonLimit> tendon_limits;
  /// Actuators (motors and servos), in file order; their controls are set
  /// at run time (TimeStepper::SetControls), zero until then.
  std::vector<RobotActuator> actuators;
  /// Generalized positions at load: zeros, with a floating base at the base
  /// pose.
  Eigen::VectorXd initial_positions;
  /// What the loader did not take as written, one line each: collision
  /// elements skipped at the user's request (UrdfOptions::
  /// skip_unsupported: "robot.urdf:42: <torus> in link 'hand' collision 0
  /// skipped (unknown geometry)"), geometry approximated (a mesh that is
  /// not convex or not closed collides as its convex hull; a cylinder
  /// loaded as a capsule), values read but not modelled ("robot.urdf:17:
  /// <dynamics friction="0.1"> of joint 'elbow' ignored (joint friction is
  /// not modelled)"), and a robot without any collision geometry.
  std::vector<std::string> warnings;
  /// Collision elements: loaded (in `geometries`), dropped (skipped), and
  /// of the loaded ones approximated (as above).
  struct CollisionCounts {
    int loaded{0};
    int dropped{0};
    int approximated{0};
  };
  CollisionCounts collision_counts;
  /// Visual elements: loaded (in `visuals`) and dropped (warned: a mesh
  /// file that cannot be read, an unknown geometry).
  struct VisualCounts {
    int loaded{0};
    int dropped{0};
  };
  VisualCounts visual_counts;
};

}  // namespace sapcontact

namespace sapcontact {

/// Moves the robot as a whole: the frame its description calls the world
/// is placed at X_WM in the world. A fixed root joint's origin becomes
/// X_WM * origin; a floating root's initial pose (initial_positions' first
/// 7 entries) becomes X_WM * pose. Other root joints (a description loaded
/// by our loaders never has one): std::invalid_argument.
void PlaceRobot(const Pose& X_WM, RobotDescription* d);

}  // namespace sapcontact
