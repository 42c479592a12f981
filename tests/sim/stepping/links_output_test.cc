// links.csv (SimulationOptions::write_links, sapsim run --links): every
// robot link's world pose and velocity at the output steps. Checked against
// forward kinematics of joints.csv's joint positions and velocities of the
// same rows (the arm of config/scenes/arm_push.yaml, moving).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/stepping/csv_reader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

TEST(LinksOutput, LinkPosesAndVelocitiesAreTheJointsForwardKinematics) {
  const Scene scene = scene_tests::LoadShippedScene(
      "arm_push", {"duration=0.2", "output.every=50"});
  const fs::path dir =
      fs::temp_directory_path() / ("links_output_" + std::to_string(getpid()));
  fs::remove_all(dir);
  SimulationOptions options;
  options.output_dir = dir.string();
  options.write_links = true;
  RunSimulation(scene, options);
  const RobotSpec& robot = scene.robots[0];
  const MultibodyTree& tree = robot.description.tree;
  // q, v per time from joints.csv (a fixed base: 1-DOF joints only).
  std::map<std::string, std::pair<Eigen::VectorXd, Eigen::VectorXd>> state;
  {
    CsvReader joints(dir / "joints.csv");
    const int t = joints.Column("time"), j = joints.Column("joint"),
              p = joints.Column("position"), v = joints.Column("velocity");
    while (joints.Next()) {
      auto& s = state[joints.Text(t)];
      if (s.first.size() == 0) {
        s.first = Eigen::VectorXd::Zero(tree.num_positions());
        s.second = Eigen::VectorXd::Zero(tree.num_velocities());
      }
      const int joint = tree.FindJoint(joints.Text(j));
      s.first(tree.position_start(joint)) = joints.Number(p);
      s.second(tree.velocity_start(joint)) = joints.Number(v);
    }
  }
  ASSERT_EQ(state.size(), 5u);  // t = 0 and every 50 of 200 steps
  CsvReader links(dir / "links.csv");
  const int t = links.Column("time"), l = links.Column("link");
  int rows = 0;
  double worst_pose = 0.0, worst_velocity = 0.0, speed = 0.0;
  while (links.Next()) {
    ++rows;
    const auto& [q, v] = state.at(links.Text(t));
    std::vector<Eigen::Isometry3d> X;
    std::vector<Eigen::Matrix<double, 6, 1>> V;
    CalcLinkPoses(tree, q, &X);
    CalcLinkVelocities(tree, q, v, &V);
    const int link = tree.FindLink(links.Text(l));
    ASSERT_GE(link, 0) << links.Text(l);
    const Eigen::Quaterniond quat(
        links.Number(links.Column("qw")), links.Number(links.Column("qx")),
        links.Number(links.Column("qy")), links.Number(links.Column("qz")));
    const Eigen::Vector3d p(links.Number(links.Column("x")),
                            links.Number(links.Column("y")),
                            links.Number(links.Column("z")));
    worst_pose =
        std::max({worst_pose, (p - X[link].translation()).norm(),
                  (quat.toRotationMatrix() - X[link].rotation()).norm()});
    const Eigen::Vector3d vel(links.Number(links.Column("vx")),
                              links.Number(links.Column("vy")),
                              links.Number(links.Column("vz")));
    const Eigen::Vector3d w(links.Number(links.Column("wx")),
                            links.Number(links.Column("wy")),
                            links.Number(links.Column("wz")));
    // CalcLinkVelocities: linear velocity of the link origin, then angular.
    worst_velocity = std::max({worst_velocity, (vel - V[link].head<3>()).norm(),
                               (w - V[link].tail<3>()).norm()});
    speed = std::max(speed, vel.norm());
  }
  EXPECT_EQ(rows, 5 * tree.num_links());
  EXPECT_LT(worst_pose, 1e-9);
  EXPECT_LT(worst_velocity, 1e-9);
  EXPECT_GT(speed, 0.01);  // the arm moves
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sapcontact
