// Robot rows of the MuJoCo comparison (bench/mujoco_comparison.cc): for a
// RobotComparisonScene (bench/comparison_robots.h), the row at one time step
// (RobotRow: sapcontact's scene with the comparison's overrides and the MJCF
// MuJoCo compiled from the same URDF, UrdfToMjcf + RobotMjcf), one run of
// each engine on it, and the per-scene checks printed above its rows: the
// initial-frame check and the hull summary. The URDF copy MuJoCo compiles
// and the MJCF it saves live in a temporary folder. SI units; z up.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>  // mkdtemp (POSIX)
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/comparison_engines.h"
#include "bench/comparison_robots.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

#ifndef SAPCONTACT_SOURCE_DIR
#define SAPCONTACT_SOURCE_DIR "."
#endif

namespace sapcontact::comparison {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder under the system's temporary directory, removed with the object.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mujoco_comparison_XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a folder like " + pattern);
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// MuJoCo's own compilation of the URDF at `urdf_path`, saved as MJCF text.
// MuJoCo does not resolve package:// URIs; a copy of the URDF with the
// extension element <mujoco><compiler meshdir="MESHDIR" strippath="true"
// discardvisual="true"/></mujoco> (first child of <robot>) makes it look up
// every mesh's bare file name in `meshdir` and keep only collision geometry.
// The copy and the saved MJCF live in a temporary folder.
inline std::string UrdfToMjcf(const std::string& urdf_path,
                              const std::string& meshdir) {
  std::string urdf = ReadFile(urdf_path);
  const auto robot = FindStartTag(urdf, "robot", "");
  if (robot.first == std::string::npos || urdf[robot.second - 2] == '/') {
    throw std::runtime_error(urdf_path + ": no <robot> element");
  }
  urdf.insert(robot.second, "\n  <mujoco><compiler meshdir=\"" +
                                XmlEscape(meshdir) +
                                "\" strippath=\"true\" "
                                "discardvisual=\"true\"/></mujoco>");
  TemporaryFolder folder;
  const std::string copy = (folder.path() / "robot.urdf").string();
  const std::string saved = (folder.path() / "robot.xml").string();
  std::ofstream(copy, std::ios::binary) << urdf;
  char message[1000] = "";
  mjModel* m = mj_loadXML(copy.c_str(), nullptr, message, sizeof(message));
  if (m == nullptr) {
    throw std::runtime_error("MuJoCo cannot load " + urdf_path + ": " +
                             message);
  }
  const int ok = mj_saveLastXML(saved.c_str(), m, message, sizeof(message));
  mj_deleteModel(m);
  if (!ok) {
    throw std::runtime_error("mj_saveLastXML of " + urdf_path + ": " + message);
  }
  return ReadFile(saved);
}

// One robot row at one time step: the scene as sapcontact loads it (with
// the comparison's overrides) and the MuJoCo model made from it.
struct RobotRow {
  const RobotComparisonScene* spec{nullptr};
  std::string path;  // the scene file
  std::vector<std::string> overrides;
  double dt{0};
  int steps{0};
  Scene scene;
  std::string mjcf;
  std::string error;  // the MuJoCo model could not be made
};

// The row of robot scene `s` at time step dt. `robot_mjcf` is MuJoCo's
// MJCF of the robot (UrdfToMjcf; made at the first call, "" with
// *robot_error set when MuJoCo could not make it). `extra` (--set) goes after
// the comparison's overrides. Throws when sapcontact cannot load the scene.
inline RobotRow MakeRobotRow(const RobotComparisonScene& s, double dt,
                             double sigma, std::string* robot_mjcf,
                             std::string* robot_error,
                             const std::vector<std::string>& extra = {}) {
  RobotRow row;
  row.spec = &s;
  row.path = std::string(SAPCONTACT_SOURCE_DIR) + "/" + s.scene_file;
  row.overrides = RobotSceneOverrides(s, dt, sigma);
  row.overrides.insert(row.overrides.end(), extra.begin(), extra.end());
  row.dt = dt;
  row.steps = static_cast<int>(std::lround(s.duration / dt));
  row.scene = LoadScene(row.path, row.overrides);
  try {
    if (robot_mjcf->empty() && robot_error->empty()) {
      *robot_mjcf =
          UrdfToMjcf(row.scene.robots.at(0).urdf_path, s.mujoco_meshdir);
    }
    if (!robot_error->empty()) throw std::runtime_error(*robot_error);
    row.mjcf = RobotMjcf(row.scene, s, *robot_mjcf, dt, /*legacy_size=*/
                         !SAPCONTACT_MUJOCO3);
  } catch (const std::exception& e) {
    if (robot_mjcf->empty()) *robot_error = e.what();
    row.error = e.what();
  }
  return row;
}

inline EngineRun RunSapcontactRobotOnce(const RobotRow& row) {
  EngineRun r;
  try {
    const Scene scene = LoadScene(row.path, row.overrides);
    TimeStepper stepper(scene);
    const int link = row.spec->reference_link.empty()
                         ? -1
                         : scene.robots[0].description.tree.FindLink(
                               row.spec->reference_link);
    std::vector<int> objects;
    for (const std::string& o : row.spec->objects) {
      objects.push_back(scene.FindBody(o));
    }
    auto frame = [&]() {
      return link < 0 ? Eigen::Isometry3d::Identity()
                      : stepper.LinkPoses(0)[link];
    };
    auto positions = [&]() {
      std::vector<Eigen::Vector3d> p;
      for (int b : objects) p.push_back(stepper.state()[b].pose.position);
      return p;
    };
    const Eigen::Isometry3d X0 = frame();
    const std::vector<Eigen::Vector3d> p0 = positions();
    r.steps = row.steps;
    StepSapcontact(&stepper, &r);
    r.objects = ObjectMotions(X0, frame(), p0, positions());
    const MultibodyTree& tree = scene.robots[0].description.tree;
    for (int i = 0; i < tree.num_links(); ++i) {
      if (tree.num_positions(i) == 1) {
        r.joint_positions.push_back(
            stepper.robot_states()[0].q(tree.position_start(i)));
      }
    }
    r.outcome = r.objects[0].tangential;
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// World pose of MuJoCo body `b` (after kinematics).
inline Eigen::Isometry3d BodyPose(const mjData* d, int b) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (int i = 0; i < 3; ++i) {
    X.translation()(i) = d->xpos[3 * b + i];
    for (int j = 0; j < 3; ++j) X.linear()(i, j) = d->xmat[9 * b + 3 * i + j];
  }
  return X;
}

// One run of sapcontact's simulation path (RunSimulationTimed) on the row's
// scene, loaded outside the timing. Its outcome is the first object's
// displacement in the world frame (the library run's is relative to the
// reference link; the table prints the library run's).
inline EngineRun RunSimulationRobotOnce(const RobotRow& row) {
  EngineRun r;
  try {
    const Scene scene = LoadScene(row.path, row.overrides);
    const int object = scene.FindBody(row.spec->objects.at(0));
    const SimulationSummary summary = RunSimulationTimed(scene, &r);
    r.outcome = (summary.final_state[object].pose.position -
                 scene.bodies[object].pose.position)
                    .norm();
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// Sets MuJoCo's state to the scene's initial one: the robot's joint
// positions and velocities by joint name, the free bodies' poses and
// velocities by body name. Returns what is missing, or "".
inline std::string SetMujocoInitialState(const Scene& scene, const mjModel* m,
                                         mjData* d) {
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  const Eigen::VectorXd q = RobotInitialPositions(robot);
  const Eigen::VectorXd v = RobotInitialVelocities(robot);
  for (int i = 0; i < tree.num_links(); ++i) {
    const Joint& joint = tree.joint(i);
    if (joint.type == JointType::kFixed) continue;
    const int id = mj_name2id(m, mjOBJ_JOINT, joint.name.c_str());
    if (id < 0) return "no MuJoCo joint '" + joint.name + "'";
    d->qpos[m->jnt_qposadr[id]] = q(tree.position_start(i));
    d->qvel[m->jnt_dofadr[id]] = v(tree.velocity_start(i));
  }
  for (const Body& b : scene.bodies) {
    if (b.fixed) continue;
    const int id = mj_name2id(m, mjOBJ_BODY, b.name.c_str());
    if (id < 0 || m->body_jntnum[id] != 1) {
      return "no MuJoCo free body '" + b.name + "'";
    }
    const int joint = m->body_jntadr[id];
    mjtNum* qpos = d->qpos + m->jnt_qposadr[joint];
    mjtNum* qvel = d->qvel + m->jnt_dofadr[joint];
    const Eigen::Quaterniond& o = b.pose.orientation;
    // A free joint's angular velocity is in the body frame.
    const Eigen::Vector3d w = o.conjugate() * b.angular_velocity;
    for (int k = 0; k < 3; ++k) {
      qpos[k] = b.pose.position(k);
      qvel[k] = b.velocity(k);
      qvel[3 + k] = w(k);
    }
    qpos[3] = o.w();
    qpos[4] = o.x();
    qpos[5] = o.y();
    qpos[6] = o.z();
  }
  return "";
}

// One run of MuJoCo on a robot row: the robot's initial joint positions and
// velocities and the free bodies' poses and velocities set by name in
// mjData, the PD targets as controls (at the end of each step, as
// sapcontact evaluates them); model compilation, mjData and the initial
// kinematics outside the timing.
inline EngineRun RunMujocoRobotOnce(const RobotRow& row) {
  EngineRun r;
  if (!row.error.empty()) {
    r.error = row.error;
    return r;
  }
  MjModelPtr model;
  MjDataPtr data;
  if (!MakeMujoco(row.mjcf, &model, &data, &r.error)) return r;
  const mjModel* m = model.get();
  mjData* d = data.get();
  auto fail = [&](const std::string& what) {
    r.error = what;
    return r;
  };
  const std::string state_error = SetMujocoInitialState(row.scene, m, d);
  if (!state_error.empty()) return fail(state_error);
  const RobotSpec& robot = row.scene.robots[0];
  const std::vector<JointActuation>& actuation = robot.actuation;
  if (m->nu != static_cast<int>(actuation.size())) {
    return fail("MuJoCo has " + std::to_string(m->nu) + " actuators");
  }
  bool varying = false;
  for (const JointActuation& a : actuation) {
    varying = varying || !a.target.is_constant() ||
              !a.target_velocity.is_constant() || !a.feedforward.is_constant();
  }
  // u = kp (ctrl - q) - kd v with ctrl = q_d + (kd v_d + u0) / kp.
  auto set_controls = [&](double t) {
    for (size_t k = 0; k < actuation.size(); ++k) {
      const JointActuation& a = actuation[k];
      d->ctrl[k] =
          a.target.ScalarValue(t) + (a.kd * a.target_velocity.ScalarValue(t) +
                                     a.feedforward.ScalarValue(t)) /
                                        a.kp;
    }
  };
  const RobotComparisonScene& s = *row.spec;
  const int link = s.reference_link.empty()
                       ? -1
                       : mj_name2id(m, mjOBJ_BODY, s.reference_link.c_str());
  std::vector<int> objects;
  for (const std::string& o : s.objects) {
    objects.push_back(mj_name2id(m, mjOBJ_BODY, o.c_str()));
    if (objects.back() < 0) return fail("no MuJoCo body '" + o + "'");
  }
  auto frame = [&]() {
    return link < 0 ? Eigen::Isometry3d::Identity() : BodyPose(d, link);
  };
  auto positions = [&]() {
    std::vector<Eigen::Vector3d> p;
    for (int b : objects) {
      p.emplace_back(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    }
    return p;
  };
  mj_kinematics(m, d);
  const Eigen::Isometry3d X0 = frame();
  const std::vector<Eigen::Vector3d> p0 = positions();
  set_controls(row.dt);
  r.steps = row.steps;
  if (varying) {
    StepMujoco(m, d, &r, [&](int n) { set_controls((n + 1) * row.dt); });
  } else {
    StepMujoco(m, d, &r);
  }
  mj_kinematics(m, d);  // mj_step leaves the frames of the step's start
  r.objects = ObjectMotions(X0, frame(), p0, positions());
  const MultibodyTree& tree = robot.description.tree;
  for (int i = 0; i < tree.num_links(); ++i) {
    if (tree.num_positions(i) == 1) {
      const int id = mj_name2id(m, mjOBJ_JOINT, tree.joint(i).name.c_str());
      r.joint_positions.push_back(d->qpos[m->jnt_qposadr[id]]);
    }
  }
  r.outcome = r.objects[0].tangential;
  CheckMujocoRun(m, d, &r);
  return r;
}

// How far apart the two engines' initial world frames are: the robot's
// links (against MuJoCo's body of the same name; links fused into another
// body are skipped) and the free bodies, the largest distance [m] and
// rotation angle [rad]. Checks that both engines placed the robot and the
// scene alike.
inline std::string InitialFrameCheck(const RobotRow& row) {
  if (!row.error.empty()) return "-";
  std::string error;
  MjModelPtr model;
  MjDataPtr data;
  if (!MakeMujoco(row.mjcf, &model, &data, &error)) return error;
  const mjModel* m = model.get();
  mjData* d = data.get();
  std::string out;
  error = SetMujocoInitialState(row.scene, m, d);
  if (error.empty()) {
    mj_kinematics(m, d);
    const TimeStepper stepper(row.scene);
    const std::vector<Eigen::Isometry3d> links = stepper.LinkPoses(0);
    const MultibodyTree& tree = row.scene.robots[0].description.tree;
    double position = 0, rotation = 0;
    int frames = 0;
    auto compare = [&](const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
      position = std::max(position, (a.translation() - b.translation()).norm());
      rotation = std::max(
          rotation,
          Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle());
      ++frames;
    };
    for (int i = 0; i < tree.num_links(); ++i) {
      const int b = mj_name2id(m, mjOBJ_BODY, tree.link(i).name.c_str());
      if (b > 0) compare(links[i], BodyPose(d, b));  // 0: MuJoCo's world
    }
    for (size_t i = 0; i < row.scene.bodies.size(); ++i) {
      const Body& body = row.scene.bodies[i];
      const int b = mj_name2id(m, mjOBJ_BODY, body.name.c_str());
      if (body.fixed || b < 0) continue;
      Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
      X.translation() = body.pose.position;
      X.linear() = body.pose.rotation();
      compare(X, BodyPose(d, b));
    }
    char text[128];
    std::snprintf(text, sizeof(text),
                  "%d frames, largest difference %.2g m, %.2g rad", frames,
                  position, rotation);
    out = text;
  } else {
    out = error;
  }
  return out;
}

// The hulls each engine collides the robot's meshes and the scene's mesh
// bodies as: "name vertices/faces" per mesh, sapcontact's (polygonal faces)
// then MuJoCo's (triangles), one line.
inline std::string HullSummary(const RobotRow& row) {
  std::ostringstream out;
  MjModelPtr model;
  std::string error;
  if (row.error.empty()) model.reset(LoadMjcf(row.mjcf, &error));
  const mjModel* m = model.get();
  auto mujoco_hull = [&](const std::string& name) -> std::string {
    const int id = m == nullptr ? -1 : mj_name2id(m, mjOBJ_MESH, name.c_str());
    if (id < 0 || m->mesh_graphadr[id] < 0) return "-";
    const int* graph = m->mesh_graph + m->mesh_graphadr[id];
    return std::to_string(graph[0]) + "v " + std::to_string(graph[1]) + "f";
  };
  auto sap_hull = [](const MeshShape& mesh) {
    return std::to_string(mesh.hull.vertices.size()) + "v " +
           std::to_string(mesh.hull.faces.size()) + "f";
  };
  out << "  hulls sapcontact | MuJoCo:";
  std::vector<const MeshShape*> seen;
  for (const RobotGeometry& g : row.scene.robots[0].description.geometries) {
    const MeshShape* mesh = g.shape.mesh.get();
    if (mesh == nullptr ||
        std::find(seen.begin(), seen.end(), mesh) != seen.end()) {
      continue;
    }
    seen.push_back(mesh);
    const std::string stem = std::filesystem::path(mesh->path).stem().string();
    out << " " << stem << " " << sap_hull(*mesh) << " | " << mujoco_hull(stem)
        << ";";
  }
  for (const Body& b : row.scene.bodies) {
    if (b.shape.mesh == nullptr) continue;
    out << " " << b.name << " " << sap_hull(*b.shape.mesh) << " | "
        << mujoco_hull("scene " + b.name) << ";";
  }
  if (!error.empty()) out << " (MuJoCo: " << error << ")";
  return out.str();
}

// The line under a robot row's table row: each object's motion in both
// engines' runs (a, b) in the scene's reference frame, tangential / normal
// [m], and how far apart the final joint positions are [rad] (both runs
// having them).
inline std::string RobotMotionLine(const RobotComparisonScene& s,
                                   const EngineRun& a, const EngineRun& b) {
  std::string out =
      "  objects' motion on " +
      (s.reference_link.empty() ? std::string("the world") : s.reference_link) +
      ", tangential / normal [m]:";
  for (size_t i = 0; i < s.objects.size(); ++i) {
    auto motion = [&](const EngineRun& r) -> std::string {
      if (i >= r.objects.size()) return "-";
      char text[64];
      std::snprintf(text, sizeof(text), "%.3g / %.3g", r.objects[i].tangential,
                    r.objects[i].normal);
      return text;
    };
    out += " " + s.objects[i] + " sapcontact " + motion(a) + ", MuJoCo " +
           motion(b) + ";";
  }
  if (a.joint_positions.size() == b.joint_positions.size() &&
      !a.joint_positions.empty()) {
    double most = 0;
    for (size_t i = 0; i < a.joint_positions.size(); ++i) {
      most =
          std::max(most, std::abs(a.joint_positions[i] - b.joint_positions[i]));
    }
    char text[64];
    std::snprintf(text, sizeof(text),
                  " final joint positions differ by at most %.2g rad", most);
    out += text;
  }
  return out;
}

}  // namespace sapcontact::comparison
