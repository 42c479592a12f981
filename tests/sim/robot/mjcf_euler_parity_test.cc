// With integrator.robots: euler, a contact-free MJCF robot follows MuJoCo's
// Euler integrator (damping implicit, springs and Coriolis forces
// explicit, armature in the mass matrix) to round-off: the Gym humanoid in
// free flight, 100 steps of the file's 3 ms, against Debian's libmujoco
// 2.2.2 stepping the same file in the test (constraints off in MuJoCo,
// joint limits and self-collision off in ours: neither has contacts).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <Eigen/Core>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

// humanoid.xml.gz of dart-doc, gunzipped into a temporary folder.
std::string EulerParityHumanoid() {
  const std::string gz = "/usr/share/doc/dart/data/mjcf/openai/humanoid.xml.gz";
  if (!fs::exists(gz)) return "";
  const fs::path dir = fs::temp_directory_path() / ("sapcontact_euler_parity_" +
                                                    std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "humanoid.xml").string();
  const std::string cmd = "gzip -dc '" + gz + "' > '" + out + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return out;
}

// MuJoCo's qpos after `steps` Euler steps without constraints, with the
// initial velocities qvel0.
Eigen::VectorXd MujocoEulerQpos(const std::string& path, int steps,
                                const Eigen::VectorXd& qvel0) {
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  EXPECT_NE(m, nullptr) << error;
  if (m == nullptr) return {};
  m->opt.integrator = mjINT_EULER;
  m->opt.disableflags |= mjDSBL_CONSTRAINT;
  mjData* d = mj_makeData(m);
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = qvel0[i];
  for (int k = 0; k < steps; ++k) mj_step(m, d);
  Eigen::VectorXd q = Eigen::Map<Eigen::VectorXd>(d->qpos, m->nq);
  mj_deleteData(d);
  mj_deleteModel(m);
  return q;
}

// Our q after `steps` steps of the humanoid from v0, free of contact and
// limits, with integrator.robots = `integrator`.
Eigen::VectorXd OurFreeFlightQ(const std::string& path,
                               const std::string& integrator, int steps,
                               Eigen::VectorXd* v0, Eigen::VectorXd* q0) {
  const Scene scene = LoadSceneFromString(
      "time_step: 0.003\nduration: 1\nintegrator: {robots: " + integrator +
          "}\nrobots:\n  - name: torso\n    mjcf: " + path +
          "\n    joint_limits: false\n    self_collision: false\n",
      "parity.yaml");
  TimeStepper stepper(scene);
  const MultibodyTree& tree = scene.robots[0].description.tree;
  // Tumbling and flailing: every joint moving (our v and MuJoCo's qvel
  // agree for hinges; the free joint's angular velocity is world-frame in
  // ours and body-frame in MuJoCo, equal at the identity start pose).
  v0->resize(tree.num_velocities());
  for (int i = 0; i < v0->size(); ++i) (*v0)[i] = 0.5 * std::sin(1.0 + i);
  RobotState st = stepper.robot_states()[0];
  EXPECT_LT((st.q.segment<4>(3) - Eigen::Vector4d(1, 0, 0, 0)).norm(), 1e-15);
  *q0 = st.q;
  st.v = *v0;
  stepper.SetRobotState(0, st);
  for (int k = 0; k < steps; ++k) stepper.Step();
  EXPECT_EQ(stepper.last_contacts().size(), 0u);
  return stepper.robot_states()[0].q;
}

TEST(MjcfEulerParity, HumanoidInFreeFlightFollowsMujocosEuler) {
  const std::string path = EulerParityHumanoid();
  if (path.empty()) GTEST_SKIP() << "dart-doc's humanoid.xml.gz";
  const int steps = 100;
  Eigen::VectorXd v0, q0;
  const Eigen::VectorXd ours = OurFreeFlightQ(path, "euler", steps, &v0, &q0);
  const Eigen::VectorXd theirs = MujocoEulerQpos(path, steps, v0);
  ASSERT_EQ(ours.size(), theirs.size());
  // The same joints in the same order (MuJoCo's qpos is in body order).
  const double joints =
      (ours.tail(ours.size() - 7) - theirs.tail(theirs.size() - 7))
          .cwiseAbs()
          .maxCoeff();
  const double root = (ours.head<7>() - theirs.head<7>()).cwiseAbs().maxCoeff();
  const double moved = (theirs - q0).cwiseAbs().maxCoeff();
  // The variational step (the default) differs by O(dt^2) per step: the
  // comparison sees the difference.
  const Eigen::VectorXd variational =
      OurFreeFlightQ(path, "variational", steps, &v0, &q0);
  const double other =
      (variational.tail(ours.size() - 7) - theirs.tail(theirs.size() - 7))
          .cwiseAbs()
          .maxCoeff();
  std::printf(
      "[euler parity] humanoid, %d steps: joints %.2e rad, root %.2e, "
      "largest motion %.3f; variational step: joints %.2e rad\n",
      steps, joints, root, moved, other);
  EXPECT_GT(moved, 0.1);
  EXPECT_GT(other, 1e-4);
  EXPECT_LT(joints, 1e-6);
  EXPECT_LT(root, 1e-6);
}

TEST(MjcfEulerParity, StepDerivativesRefuseTheEulerStep) {
  const std::string path = EulerParityHumanoid();
  if (path.empty()) GTEST_SKIP() << "dart-doc's humanoid.xml.gz";
  const Scene scene = LoadSceneFromString(
      "time_step: 0.003\nduration: 1\nintegrator: {robots: euler}\n"
      "robots:\n  - name: torso\n    mjcf: " +
          path + "\n",
      "parity.yaml");
  TimeStepper stepper(scene);
  try {
    stepper.CalcStepDerivatives({});
    ADD_FAILURE() << "differentiated";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("integrator.robots: euler"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
