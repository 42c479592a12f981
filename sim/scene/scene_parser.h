// The scene file parser, internal to sim/scene: walks the YAML document of
// docs/scenes.md into a Scene (sim/scene/scene.h). One file per part of the
// schema: scene_loader.cc (the top level, solver, materials, checks shared
// by the parts), scene_parse_bodies.cc (bodies, shapes, poses, prescribed
// motion) and scene_parse_robots.cc (robots, joint states, actuation,
// external forces). Errors: SceneError through the YamlReader, naming the
// file, line and field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/robot/world_description.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/scene/scene_yaml_reader.h"

namespace sapcontact {
namespace scene_internal {

/// Whether `name` may name a body or a robot: names are used in override
/// paths and in output files (CSV, JSON), so no spaces, '.', '=', ',', '"'
/// or control characters, and valid UTF-8.
bool ValidName(const std::string& name);
/// The ASCII characters a name may not hold: '.', '=', ',', '"' and
/// whitespace.
bool ForbiddenNameCharacter(char c);

/// Why positions are limited (range messages).
inline constexpr const char* kPositionWhy =
    "farther out, double precision cannot resolve contact (use a frame "
    "near the bodies)";

class SceneParser {
 public:
  explicit SceneParser(const YamlReader& r) : r_(r) {}

  Scene Parse(const YAML::Node& root);

 private:
  // scene_loader.cc
  ContactModel ContactModelChoice(const YAML::Node& n,
                                  const std::string& field) const;

  void ParseSolver(const YAML::Node& n, SolverSettings* s);

  void ParseMaterials(const YAML::Node& n, Scene* scene);
  void ParseMaterialFields(const YAML::Node& m, const std::string& field,
                           Material* mat);
  void ParseMaterialPairs(const YAML::Node& n, Scene* scene);

  // SAP's R_n = max(beta^2 w / (4 pi^2), 1 / (dt k (dt + tau_d))) is 0 for
  // a rigid pair (k = inf) when beta = 0: the problem is not strictly
  // convex and the solver rejects it. Such a pair exists when two bodies,
  // not both fixed, have rigid materials.
  void CheckRigidPairsHaveRegularization(const YAML::Node& root,
                                         const Scene& scene);

  int MaterialIndex(const YAML::Node& node, const std::string& field,
                    const std::string& name, const Scene& scene);

  // Checks a robot or body name: length, characters (ValidName).
  void CheckName(const YAML::Node& node, const std::string& field,
                 const std::string& name, const char* what);

  // scene_parse_bodies.cc
  // `bodies` may be empty (or absent: a null node) when the scene has
  // robots.
  void ParseBodies(const YAML::Node& list, bool may_be_empty, Scene* scene);

  // Parses one YAML body (not yet grid-expanded). Returns the grid counts
  // and spacing through the out-arguments ({1,1,1} and 0 without grid).
  Body ParseBody(const YAML::Node& n, const std::string& field,
                 Eigen::Vector3i* count, Vector3* spacing, const Scene& scene);

  // `centre`: a mesh's centroid becomes the shape's origin (free bodies).
  Shape ParseShape(const YAML::Node& n, const std::string& field, bool centre);

  std::shared_ptr<const MeshShape> ParseMesh(const YAML::Node& n,
                                             const std::string& field,
                                             bool centre);

  // position, rpy or quaternion of a body or a robot base.
  void ParsePose(const YAML::Node& n, const std::string& field, Pose* pose);

  // bodies[i].prescribed: velocities of a fixed body as functions of time.
  void ParsePrescribed(const YAML::Node& body, const std::string& body_field,
                       Body* b);

  void CheckSize(const YAML::Node& node, const std::string& field,
                 double value);

  void CheckMass(const YAML::Node& node, const std::string& field, double mass);

  // scene_parse_robots.cc
  void ParseRobots(const YAML::Node& list, Scene* scene);

  RobotSpec ParseRobot(const YAML::Node& n, const std::string& field,
                       const Scene& scene);

  void ParseBase(const YAML::Node& n, const std::string& field, RobotSpec* r);

  // A file or folder named in the scene, resolved against the scene file's
  // folder (absolute names as they are), and the check that a file is a
  // readable file.
  std::string ResolveFile(const std::string& name) const;
  void CheckFile(const YAML::Node& node, const std::string& field,
                 const std::string& written, const std::string& resolved,
                 const char* what);
  // The robot's description from its URDF (base and options applied) or
  // from its MJCF or SDFormat file (kind "mjcf": mjcf, mjcf_body, base;
  // "sdf": sdf, sdf_model, package_paths, base).
  void LoadUrdfRobot(const YAML::Node& node, const std::string& field,
                     RobotSpec* r);
  void LoadModelFileRobot(const YAML::Node& n, const std::string& field,
                          const std::string& kind, RobotSpec* r);
  void ParseGeometryMaterials(const YAML::Node& n, const std::string& field,
                              const Scene& scene, RobotSpec* r);

  void ParsePackagePaths(const YAML::Node& n, const std::string& field,
                         RobotSpec* r);

  // collision_filter: {adjacent, pairs} and srdf: FILE (after the URDF).
  void ParseCollisionFilter(const YAML::Node& n, const std::string& field,
                            RobotSpec* r);
  void ParseSrdf(const YAML::Node& n, const std::string& field, RobotSpec* r);

  // The tree index of the 1-DOF joint named by `key` (a key of joints: or
  // actuation:), which must not be a mimic follower.
  int OneDofJoint(const YAML::Node& key, const std::string& field,
                  const RobotSpec& r, const char* what);

  void ParseJointStates(const YAML::Node& n, const std::string& field,
                        RobotSpec* r);

  void ParseActuation(const YAML::Node& n, const std::string& field,
                      RobotSpec* r);
  // The robot file's servos (MJCF <position>, <velocity>) as actuation
  // rows on joints actuation: left free (RobotSpec::actuation's servo).
  void AddServoActuation(RobotSpec* r);
  // One actuation entry's gains, targets and feed-forward into *a; true
  // when it gives effort_limit (else the joint's URDF limit applies).
  bool ParseActuationGains(const YAML::Node& m, const std::string& af,
                           JointActuation* a);

  void ParseExternalForces(const YAML::Node& list, Scene* scene);

  const YamlReader& r_;
  /// Scene::warnings of the bodies, in file order.
  std::vector<std::string> warnings_;
  /// Mesh files loaded so far: (path, scale, centred) -> the mesh, so that
  /// grid copies and bodies of one file share it and it is warned about
  /// once.
  std::map<std::string, std::shared_ptr<const MeshShape>> meshes_;
  /// MJCF and SDFormat files loaded so far ("<kind>:<path>" and the
  /// package paths -> the file's world and MJCF keyframes), and those whose
  /// own warnings were reported.
  struct LoadedModelFile {
    WorldDescription world;
    std::vector<MjcfKeyframe> keyframes;  // MJCF
  };
  std::map<std::string, std::shared_ptr<const LoadedModelFile>> model_files_;
  std::set<std::string> warned_model_files_;
};

}  // namespace scene_internal
}  // namespace sapcontact
