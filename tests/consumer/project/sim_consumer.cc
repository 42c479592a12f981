// Consumer of an installed sapcontact (tests/consumer/README.md): links only
// the sim component. Run with the repository's config/scenes folder:
//   sim_consumer <repo>/config/scenes
// 1. robots/double_pendulum.urdf through LoadUrdf (urdfdom): joints
//    base_base (fixed), shoulder, elbow; two 1 kg bobs (inertia 1.6e-4
//    kg m^2 about their centres) 0.5 m and 1.0 m below the shoulder. At
//    q = 0 (hanging) its mass matrix is the closed form
//      M11 = 2 I + m1 l1^2 + m2 (l1 + l2)^2, M12 = I + m2 (l2^2 + l1 l2),
//      M22 = I + m2 l2^2.
// 2. box_rest.yaml (a 10 kg box of side 0.2 m on the ground, pair stiffness
//    k = 5e5 N/m) stepped 300 times (0.3 s): the box must rest at
//    z = 0.1 - m g / (4 k) (within 2 % of the deflection) and move slower
//    than 1e-5 m/s.
// Exit status 0 when both hold, 1 otherwise.
#include <sapcontact/sim/robot/urdf_loader.h>
#include <sapcontact/sim/scene/scene_loader.h>
#include <sapcontact/sim/stepping/time_stepper.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  using namespace sapcontact;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CONFIG_SCENES_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    const RobotDescription robot =
        LoadUrdf(dir + "/robots/double_pendulum.urdf");
    const MultibodyTree& tree = robot.tree;
    std::printf("%s: %d links, nq %d, FindJoint(elbow) %d, %d geometries\n",
                robot.name.c_str(), tree.num_links(), tree.num_positions(),
                tree.FindJoint("elbow"), robot.collision_counts.loaded);
    if (tree.num_links() != 3 || tree.num_positions() != 2 ||
        tree.FindJoint("shoulder") != 1 || tree.FindJoint("elbow") != 2 ||
        robot.collision_counts.loaded != 2) {
      return 1;
    }
    Eigen::MatrixXd M;
    CalcMassMatrix(tree, Eigen::VectorXd::Zero(2), &M);
    const double m = 1.0, l = 0.5, I = 1.6e-4;
    Eigen::Matrix2d M_ref;
    M_ref << 2 * I + m * l * l + m * 4 * l * l, I + m * 2 * l * l,
        I + m * 2 * l * l, I + m * l * l;
    const double eM = (M - M_ref).norm() / M_ref.norm();
    std::printf("M(0) = [%.6f %.6f; %.6f %.6f], relative error %.1e\n", M(0, 0),
                M(0, 1), M(1, 0), M(1, 1), eM);
    if (!(eM <= 1e-12)) return 1;

    const Scene scene = LoadScene(dir + "/box_rest.yaml");
    TimeStepper stepper(scene);
    const int box = scene.FindBody("box");
    for (int n = 0; n < 300; ++n) {
      const StepInfo info = stepper.Step();
      if (info.failed) {
        std::printf("step %d failed: %s\n", n, info.failure.c_str());
        return 1;
      }
    }
    const double deflection = 10.0 * 9.81 / (4.0 * 5e5);
    const double z = stepper.state()[box].pose.position.z();
    const double speed = stepper.state()[box].velocity.norm();
    std::printf("box after %.3f s: z %.6e m (expected %.6e), |v| %.1e m/s\n",
                stepper.time(), z, 0.1 - deflection, speed);
    if (!(std::abs(z - (0.1 - deflection)) < 0.02 * deflection &&
          speed < 1e-5)) {
      return 1;
    }
  } catch (const std::exception& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  return 0;
}
