// Loads a MuJoCo MJCF model (default: the Gym hopper that Debian's dart-doc
// ships; or the file given as the first argument) with LoadMjcf and prints
// what the simulator would get: each robot's links with their masses, its
// joints with their types and limits, the world geometry, the time step
// and the warnings. Its check: every robot's joint-space mass matrix at the
// initial positions is symmetric positive definite (each moving link
// chain carries mass and inertia), and the total mass is the links' sum.
//   build/bin/mjcf_model_example [model.xml]
#include <sapcontact/multibody/multibody_tree.h>
#include <sapcontact/sim/robot/mjcf_loader.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  using namespace sapcontact;
  const std::string path =
      argc > 1 ? argv[1] : "/usr/share/doc/dart/data/mjcf/openai/hopper.xml";
  MjcfModel model;
  try {
    model = LoadMjcf(path);
  } catch (const MjcfError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  std::printf("model '%s': time step %g s, gravity (%g, %g, %g) m/s^2\n",
              model.name.c_str(), model.time_step, model.gravity.x(),
              model.gravity.y(), model.gravity.z());
  bool ok = true;
  for (const RobotDescription& r : model.robots) {
    const MultibodyTree& tree = r.tree;
    std::printf("robot '%s': %d links, %d positions, %d velocities, %g kg\n",
                r.name.c_str(), tree.num_links(), tree.num_positions(),
                tree.num_velocities(), tree.TotalMass());
    double sum = 0.0;
    for (int i = 0; i < tree.num_links(); ++i) {
      const Joint& j = tree.joint(i);
      sum += tree.link(i).inertia.mass;
      std::printf("  %-22s %8.4f kg  joint %-16s %-9s",
                  tree.link(i).name.c_str(), tree.link(i).inertia.mass,
                  j.name.c_str(), JointTypeName(j.type));
      if (std::isfinite(j.lower)) std::printf(" [%g, %g]", j.lower, j.upper);
      std::printf("\n");
    }
    Eigen::MatrixXd M;
    CalcMassMatrix(tree, r.initial_positions, &M);
    const bool spd = (M - M.transpose()).norm() <= 1e-12 * M.norm() &&
                     Eigen::LLT<Eigen::MatrixXd>(M).info() == Eigen::Success;
    std::printf("  mass matrix at the initial positions: %s\n",
                spd ? "symmetric positive definite" : "NOT positive definite");
    ok = ok && spd && std::abs(sum - tree.TotalMass()) <= 1e-12 * sum;
    for (const std::string& w : r.warnings)
      std::printf("  warning: %s\n", w.c_str());
  }
  for (const WorldGeometry& g : model.world_geometries) {
    std::printf("world geometry %s: %s, friction %g\n", g.name.c_str(),
                ShapeTypeName(g.shape.type), g.surface.friction);
  }
  for (const std::string& w : model.warnings)
    std::printf("warning: %s\n", w.c_str());
  return ok ? 0 : 1;
}
