// MuJoCo MJCF models (https://mujoco.readthedocs.io/en/stable/
// XMLreference.html) into RobotDescriptions, read with MuJoCo's compiler
// semantics by a reader of our own (TinyXML; no MuJoCo code); the
// support table is in docs/robots.md, "MJCF support". Units SI; frames as in
// multibody/multibody_tree.h.
//
// Each top-level body of <worldbody> that has a joint somewhere in its
// subtree becomes one robot, named after that body; a top-level body
// without any joint below it is static, and its geoms join the world's.
// Links are named after MJCF bodies and joints after MJCF joints. Link 0
// is attached to the world by joint 0, fixed or floating (as for URDF
// robots): a top-level body moved by hinge or slide joints hangs from a
// massless link "world" welded to the world frame by joint "<body>_base".
//
// A body's joints (hinge -> revolute, slide -> prismatic, free ->
// floating) move it about their anchors `pos` in the body frame. A body
// with n joints becomes n links chained in the tree: the first n - 1 are
// massless and named "<body>/<joint>", the last is named after the body,
// carries its mass and geoms, and its frame is the body frame moved to
// the last joint's anchor (MjcfBody::body_in_link). A body without
// joints is welded to its parent. A joint's ref is folded into its origin,
// so q equals MuJoCo's qpos and the initial positions are the refs.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sapcontact/geometry/mesh_shape.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/sim/robot/world_description.h"

namespace sapcontact {

struct MjcfOptions {
  /// Read geoms into RobotDescription::visuals too (display only).
  bool load_visuals{true};
  /// Limits on each mesh file (geometry/mesh_shape.h).
  MeshLimits mesh_limits;
};

/// Where an MJCF body ended up: robot index in MjcfModel::robots (-1: the
/// world, for static bodies), link index in that robot's tree, and the
/// pose of the MJCF body frame in the link frame.
struct MjcfBody {
  std::string name;
  /// The parent body's index in MjcfModel::bodies (-1: the world).
  int parent{-1};
  int robot{-1};
  int link{-1};
  Pose body_in_link;
};

/// The MJCF model: a WorldDescription (world_description.h) with MuJoCo's
/// defaults (time_step 0.002 s, gravity (0, 0, -9.81)), whose world
/// geometries are the geoms of static bodies ("world/<geom name or
/// index>"; worldbody's own and jointless bodies'), with the geoms'
/// contype/conaffinity and the first entry of friction; robot self-collision
/// is on when some two of a robot's collision geoms on bodies that are not
/// parent and child have matching bits.
/// A <keyframe><key>: the robots' generalized positions and velocities it
/// gives (our layout: a ball joint's quaternion as its three hinges' angles
/// about x, then y, then z; a free joint's angular velocity in the world
/// frame), in MjcfModel::robots order.
struct MjcfKeyframe {
  std::string name;
  double time{0.0};
  std::vector<Eigen::VectorXd> q;
  std::vector<Eigen::VectorXd> v;
};

struct MjcfModel : WorldDescription {
  MjcfModel() { time_step = 0.002; }
  /// Every MJCF body in document order (worldbody excluded).
  std::vector<MjcfBody> bodies;
  /// The file's keyframes, in document order (unnamed ones "key<i>").
  std::vector<MjcfKeyframe> keyframes;
};

/// An MJCF file that cannot be loaded. what() names the file, the line and
/// the element: "ant.xml:31: <geom name='leg'>: size=\"0.1 x\" is not 1 to
/// 3 finite numbers".
class MjcfError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Loads the MJCF file at `path`. @throws MjcfError.
MjcfModel LoadMjcf(const std::string& path, const MjcfOptions& options = {});

/// Parses MJCF text; `source` names it in messages, and relative file
/// names resolve against its folder. @throws MjcfError.
MjcfModel ParseMjcf(const std::string& xml, const std::string& source,
                    const MjcfOptions& options = {});

}  // namespace sapcontact
