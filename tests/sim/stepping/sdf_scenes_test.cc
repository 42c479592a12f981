// SDFormat files (Debian's dart-doc data/sdf) run as whole scenes
// (LoadScene of the .sdf/.world: its step, gravity and static models) and
// as robots of a YAML scene:
//   every file runs with 0 failed steps or is refused naming its line
//   Atlas's SDF stands on the ground under PD like its URDF twin
//   the double pendulum of double_pendulum.world swings as a pendulum:
//   total energy of the undamped joints stays put
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/common/repo_root.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;
using scene_tests::Simulate;

const std::string kSdfDir = "/usr/share/doc/dart/data/sdf";

// The worlds include Gazebo's model://sun and model://ground_plane: our own
// equivalents in config/sdf_models.
void UseShippedSdfModels() {
  ::setenv("SDF_PATH",
           (testing_util::RepoRoot() + "/config/sdf_models").c_str(), 1);
}

TEST(SdfScenes, EverySdfFileRunsOrIsRefusedNamingItsLine) {
  if (!fs::exists(kSdfDir)) GTEST_SKIP() << kSdfDir;
  UseShippedSdfModels();
  int ran = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSdfDir)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".sdf" && ext != ".world" && ext != ".model") continue;
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    const Scene scene = LoadScene(path, {"duration=0.3"});
    if (entry.path().filename() == "test_skeleton_joint.world") {
      // A screw joint, which our trees cannot express: loaded as fixed.
      bool warned = false;
      for (const std::string& w : scene.warnings) {
        warned |= w.find(
                      "test_skeleton_joint.world:218: <joint "
                      "name='joint_screw'>: this joint type (screw, "
                      "gearbox) is not supported: it is loaded as a "
                      "fixed joint") != std::string::npos;
      }
      EXPECT_TRUE(warned);
    }
    const SimulationSummary s = Simulate(scene);
    EXPECT_EQ(s.failed_steps, 0) << s.first_failure;
    EXPECT_GT(s.steps, 0);
    ++ran;
  }
  EXPECT_EQ(ran, 16);
  // Without the models, the include is refused naming its line.
  ::unsetenv("SDF_PATH");
  try {
    LoadScene(kSdfDir + "/double_pendulum.world");
    ADD_FAILURE() << "loaded";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("double_pendulum.world:6: "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("model://sun"), std::string::npos);
  }
}

// The world's physics, its ground plane (Gazebo's friction 100) and its
// double pendulum on a base, hung from the base by an undamped revolute
// joint: the base rests on the ground, and the pendulum's energy (it is
// the only thing moving) is conserved within the implicit step's
// dissipation.
TEST(SdfScenes, DoublePendulumWorldSwings) {
  if (!fs::exists(kSdfDir)) GTEST_SKIP() << kSdfDir;
  UseShippedSdfModels();
  const Scene scene =
      LoadScene(kSdfDir + "/double_pendulum_with_base.world", {"duration=1"});
  EXPECT_EQ(scene.time_step, 0.001);
  EXPECT_EQ(scene.gravity, Vector3(0, 0, -9.81));
  ASSERT_EQ(scene.robots.size(), 1u);
  const RobotSpec& r = scene.robots[0];
  EXPECT_EQ(r.sdf_model, "double_pendulum_with_base");
  EXPECT_FALSE(r.fixed_base);  // the base link is free
  ASSERT_EQ(scene.bodies.size(), 1u);
  EXPECT_EQ(scene.bodies[0].name, "ground_plane/link/collision");
  EXPECT_EQ(scene.materials.at(scene.bodies[0].material_index).friction, 100.0);
  double e0 = 0.0, e_min = 1e300, e_max = -1e300;
  bool first = true;
  const SimulationSummary s =
      Simulate(scene, [&](const TimeStepper& st, const StepInfo&) {
        const double e = st.KineticEnergy() + st.PotentialEnergy();
        if (first) e0 = e, first = false;
        e_min = std::min(e_min, e);
        e_max = std::max(e_max, e);
      });
  EXPECT_EQ(s.failed_steps, 0);
  std::printf("[double_pendulum_with_base] energy in [%.4f, %.4f] J of %.4f\n",
              e_min, e_max, e0);
  // The base settles by a fraction of a millimetre; the pendulum's 10.9 J
  // of swing are kept to a few percent at dt = 1 ms.
  EXPECT_LT(e_max - e0, 0.05);
  EXPECT_GT(e_min - e0, -0.05 * 10.9);
}

// Atlas's SDF and its URDF twin in the same standing scene (the shipped
// atlas_stand: PD on every joint, self-collision with its filter): both
// stand for 1 s and their pelvis heights agree to 1e-8 m (the SDF
// lumps six 50 g camera frames into utorso).
TEST(SdfScenes, AtlasSdfStandsLikeItsUrdfTwin) {
  if (!fs::exists(kSdfDir)) GTEST_SKIP() << kSdfDir;
  const std::string body = R"(time_step: 1.0e-3
duration: 1.0
robots:
  - name: atlas
    base: {position: [0, 0, 0.9275]}
    self_collision: true
    collision_filter: {adjacent: 3, pairs: [[l_uleg, r_uleg]]}
    actuation:
      default: {kp: 3000.0, kd: 100.0}
bodies:
  - name: ground
    fixed: true
    shape: {type: plane}
)";
  const auto with = [&](const std::string& file, const std::string& base) {
    std::string yaml = body;
    yaml.insert(yaml.find("    base:"), file);
    yaml.replace(yaml.find("[0, 0, 0.9275]}"), 15, "[0, 0, 0.9275]" + base);
    return LoadSceneFromString(yaml, "atlas.yaml");
  };
  const Scene urdf =
      with("    urdf: " + kSdfDir + "/atlas/atlas_v3_no_head.urdf\n",
           ", fixed: false}");
  const Scene sdf =
      with("    sdf: " + kSdfDir + "/atlas/atlas_v3_no_head.sdf\n", "}");
  ASSERT_EQ(sdf.robots[0].actuation.size(), 27u);
  EXPECT_FALSE(sdf.robots[0].fixed_base);
  TimeStepper a(urdf), b(sdf);
  double max_dz = 0.0, min_z = 1e300;
  int failed = 0;
  const int steps = static_cast<int>(urdf.duration / urdf.time_step + 0.5);
  for (int k = 0; k < steps; ++k) {
    failed += a.Step().failed + b.Step().failed;
    const double za = a.robot_states()[0].q(2), zb = b.robot_states()[0].q(2);
    max_dz = std::max(max_dz, std::abs(za - zb));
    min_z = std::min(min_z, zb);
  }
  std::printf(
      "[atlas sdf vs urdf] pelvis heights differ by at most %.2e m; "
      "lowest %.4f m\n",
      max_dz, min_z);
  EXPECT_EQ(failed, 0);
  EXPECT_LT(max_dz, 1e-8);
  EXPECT_GT(min_z, 0.7 * 0.9275);
  EXPECT_GT(b.last_contacts().size(), 0u);
}

// robots: [{sdf: FILE, sdf_model: NAME}] picks one robot of a world, placed
// by base; errors name the field.
TEST(SdfScenes, RobotsOfAYamlSceneAndTheirErrors) {
  if (!fs::exists(kSdfDir)) GTEST_SKIP() << kSdfDir;
  UseShippedSdfModels();
  const std::string world = kSdfDir + "/benchmark.world";
  const auto load = [](const std::string& yaml) {
    return LoadSceneFromString("time_step: 0.001\nduration: 0.1\n" + yaml,
                               "scene.yaml");
  };
  const Scene s = load("robots:\n  - name: p\n    sdf: " + world +
                       "\n    sdf_model: double_pendulum_with_base3\n"
                       "    base: {position: [0, 0, 1]}\n");
  const RobotSpec& r = s.robots.at(0);
  EXPECT_TRUE(r.fixed_base);  // hung from the world by a revolute joint
  ASSERT_EQ(r.description.tree.link(0).name, "world");
  // The model's pose in the world, moved up 1 m by base.
  const Eigen::Isometry3d& X = r.description.tree.joint(0).origin;
  EXPECT_NEAR(X.translation().z(), 1.0, 1e-12);
  const auto error = [&](const std::string& yaml) {
    try {
      load(yaml);
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(
      error("robots:\n  - name: p\n    sdf: " + world + "\n")
          .find("the SDFormat file has 22 robots (double_pendulum_with_base, "),
      std::string::npos);
  EXPECT_NE(error("robots:\n  - name: p\n    sdf: " + world +
                  "\n    sdf_model: double_pendulum_with_bas\n")
                .find("robots.p.sdf_model: the SDFormat file has no robot "
                      "'double_pendulum_with_bas' (its robots: "),
            std::string::npos);
  EXPECT_NE(error("robots:\n  - name: p\n    sdf: " + world +
                  "\n    sdf_model: double_pendulum_with_base3\n"
                  "    base: {fixed: false}\n")
                .find("robots.p.base.fixed: the SDFormat robot's root is "
                      "welded to the world"),
            std::string::npos);
  EXPECT_NE(
      error("robots:\n  - name: p\n    sdf: " + world + "\n    mjcf_body: x\n")
          .find("robots.p.mjcf_body: an option of robots loaded from "
                "'mjcf' files"),
      std::string::npos);
  // package_paths resolves model:// without SDF_PATH.
  ::unsetenv("SDF_PATH");
  EXPECT_NE(error("robots:\n  - name: p\n    sdf: " + world +
                  "\n    sdf_model: double_pendulum_with_base3\n")
                .find("benchmark.world:6: "),
            std::string::npos);
  const std::string models = testing_util::RepoRoot() + "/config/sdf_models";
  const Scene with_paths =
      load("robots:\n  - name: p\n    sdf: " + world +
           "\n    sdf_model: double_pendulum_with_base3\n"
           "    package_paths: {sun: " +
           models + "/sun, ground_plane: " + models + "/ground_plane}\n");
  EXPECT_EQ(with_paths.robots.at(0).sdf_model, "double_pendulum_with_base3");
}

}  // namespace
}  // namespace sapcontact
