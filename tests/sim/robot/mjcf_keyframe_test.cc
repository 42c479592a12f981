// <keyframe><key> as a robot's initial state (robots: [{mjcf: ...,
// mjcf_keyframe: NAME}]): every body's world pose and spatial velocity at
// the key agree with MuJoCo's (Debian's libmujoco 2.2.2,
// mj_resetDataKeyframe then mj_forward), for a free root, a ball joint
// (our three hinges), a hinge and a slide; errors name the field.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/scene/robot_spec.h"
#include "sapcontact/sim/scene/scene_loader.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

const char* const kKeyframeModel = R"(<mujoco>
  <worldbody>
    <body name="root" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="upper" pos="0.3 0 0">
        <joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="lower" pos="0.3 0 0">
          <joint name="elbow" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
          <body name="tip" pos="0.3 0 0">
            <joint name="slider" type="slide" axis="1 0 0"/>
            <geom type="sphere" size="0.05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe>
    <key name="pose" qpos="0.1 -0.2 1.3 0.9 0.1 0.3 -0.2 0.8 0.2 -0.4 0.3 0.7 0.05"
         qvel="0.3 -0.1 0.2 0.5 -0.4 0.6 0.7 -0.3 0.9 -1.1 0.4"/>
    <key name="still"/>
  </keyframe>
</mujoco>
)";

std::string WriteKeyframeModel() {
  const fs::path dir = fs::temp_directory_path() /
                       ("sapcontact_keyframe_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "arm.xml").string();
  std::ofstream(path) << kKeyframeModel;
  return path;
}

TEST(MjcfKeyframe, PosesAndVelocitiesMatchMujocosAtTheKey) {
  const std::string path = WriteKeyframeModel();
  const Scene scene = LoadSceneFromString(
      "time_step: 0.001\nduration: 0.1\nrobots:\n  - name: arm\n    mjcf: " +
          path + "\n    mjcf_keyframe: pose\n",
      "keyframe.yaml");
  const RobotSpec& robot = scene.robots.at(0);
  EXPECT_EQ(robot.mjcf_keyframe, "pose");
  const MultibodyTree& tree = robot.description.tree;
  const Eigen::VectorXd q = RobotInitialPositions(robot);
  const Eigen::VectorXd v = RobotInitialVelocities(robot);
  std::vector<Eigen::Isometry3d> X;
  std::vector<Eigen::Matrix<double, 6, 1>> V;
  CalcLinkPoses(tree, q, &X);
  CalcLinkVelocities(tree, q, v, &V);

  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  ASSERT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  mj_resetDataKeyframe(m, d, 0);
  mj_forward(m, d);
  for (const char* body : {"root", "upper", "lower", "tip"}) {
    SCOPED_TRACE(body);
    const int b = mj_name2id(m, mjOBJ_BODY, body);
    const int l = tree.FindLink(body);
    ASSERT_GE(l, 0);
    const Eigen::Vector3d p(d->xpos[3 * b], d->xpos[3 * b + 1],
                            d->xpos[3 * b + 2]);
    Eigen::Matrix3d R;
    for (int i = 0; i < 9; ++i) R(i / 3, i % 3) = d->xmat[9 * b + i];
    EXPECT_LT((X[l].translation() - p).norm(), 1e-12);
    EXPECT_LT((X[l].linear() - R).norm(), 1e-12);
    // mj_objectVelocity: (angular, linear) at the body's centre of mass
    // (xipos), world axes.
    mjtNum vel[6];
    mj_objectVelocity(m, d, mjOBJ_BODY, b, vel, 0);
    const Eigen::Vector3d w(vel[0], vel[1], vel[2]);
    const Eigen::Vector3d lin(vel[3], vel[4], vel[5]);
    const Eigen::Vector3d com(d->xipos[3 * b], d->xipos[3 * b + 1],
                              d->xipos[3 * b + 2]);
    const Eigen::Vector3d w_ours = V[l].tail<3>();
    const Eigen::Vector3d at_com =
        V[l].head<3>() + w_ours.cross(com - X[l].translation());
    EXPECT_LT((w_ours - w).norm(), 1e-12);
    EXPECT_LT((at_com - lin).norm(), 1e-12);
    EXPECT_GT(w.norm(), 0.1);
  }
  mj_deleteData(d);
  mj_deleteModel(m);

  // A key without qpos is qpos0 at rest; unknown keys name the known ones.
  const Scene still = LoadSceneFromString(
      "time_step: 0.001\nduration: 0.1\nrobots:\n  - name: arm\n    mjcf: " +
          path + "\n    mjcf_keyframe: still\n",
      "keyframe.yaml");
  EXPECT_EQ(RobotInitialVelocities(still.robots[0]).norm(), 0.0);
  try {
    LoadSceneFromString(
        "time_step: 0.001\nduration: 0.1\nrobots:\n  - name: arm\n    mjcf: " +
            path + "\n    mjcf_keyframe: psoe\n",
        "keyframe.yaml");
    ADD_FAILURE() << "loaded";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "robots.arm.mjcf_keyframe: the MJCF file has no keyframe "
                  "'psoe' (its keys: pose"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
