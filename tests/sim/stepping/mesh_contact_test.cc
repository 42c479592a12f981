// Meshes and cylinders in simulation, against the primitives and closed
// forms:
//  - a mesh cube's trajectory equals the box primitive's (1e-12) resting
//    and sliding: the hull of its mesh gives the same four corners;
//  - a finely tessellated sphere mesh rests on its pole with the sphere
//    primitive's penetration (1%);
//  - a solid cylinder launched sliding on its side ends rolling at 2/3 of
//    its speed (v = v0 / (1 + I / (m r^2)), I = m r^2 / 2), within 1%;
//  - a cylinder standing on its cap rests on four points without rocking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/geometry/geometry_test_util.h"

namespace sapcontact {
namespace {

using geometry_test::BinaryStl;
using geometry_test::BoxTriangles;
using geometry_test::SphereTriangles;
using geometry_test::TempDir;
using geometry_test::WriteBytes;

Scene LoadText(const TempDir& dir, const std::string& name,
               const std::string& text) {
  const std::string path = dir.File(name);
  std::ofstream(path) << text;
  return LoadScene(path);
}

// time_step 1 ms, a ground plane and `body` (a YAML list item).
std::string Ground(double duration, const std::string& body) {
  return "time_step: 1.0e-3\nduration: " + std::to_string(duration) +
         "\nbodies:\n  - {name: ground, fixed: true, shape: {type: "
         "plane}}\n" +
         body;
}

// The states of body 1 after each of `steps` steps.
std::vector<BodyState> FinalStates(const Scene& scene, int steps) {
  TimeStepper stepper(scene);
  std::vector<BodyState> out;
  for (int i = 0; i < steps; ++i) {
    const StepInfo info = stepper.Step();
    EXPECT_FALSE(info.failed) << info.failure;
    out.push_back(stepper.state()[1]);
  }
  return out;
}

TEST(MeshContact, MeshCubeFollowsTheBoxPrimitive) {
  TempDir dir;
  // 0.25 m: exact in the STL's float32, so the hull's corners are the box's.
  WriteBytes(dir.File("cube.stl"),
             BinaryStl(BoxTriangles(Vector3::Constant(-0.125),
                                    Vector3::Constant(0.125))));
  const char* kMotions[] = {
      "    position: [0, 0, 0.125]\n",  // resting
      ("    position: [0, 0, 0.125]\n    velocity: [1, 0.2, 0]\n"
       "    angular_velocity: [0, 0, 3]\n"),  // sliding and spinning to rest
      "    position: [0, 0, 0.3]\n    rpy: [0.3, 0.2, 0.1]\n",  // dropped
  };
  for (const char* motion : kMotions) {
    const Scene primitive =
        LoadText(dir, "box.yaml",
                 Ground(0.6,
                        "  - name: cube\n    shape: {type: box, size: [0.25, "
                        "0.25, 0.25]}\n    mass: 10\n" +
                            std::string(motion)));
    const Scene mesh =
        LoadText(dir, "mesh.yaml",
                 Ground(0.6,
                        "  - name: cube\n    shape: {type: mesh, file: "
                        "cube.stl}\n    mass: 10\n" +
                            std::string(motion)));
    ASSERT_TRUE(
        mesh.bodies[1].inertia.isApprox(primitive.bodies[1].inertia, 1e-14));
    const std::vector<BodyState> a = FinalStates(primitive, 600);
    const std::vector<BodyState> b = FinalStates(mesh, 600);
    double worst = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
      worst = std::max(
          {worst,
           (a[i].pose.position - b[i].pose.position).cwiseAbs().maxCoeff(),
           (a[i].pose.orientation.coeffs() - b[i].pose.orientation.coeffs())
               .cwiseAbs()
               .maxCoeff(),
           (a[i].velocity - b[i].velocity).cwiseAbs().maxCoeff(),
           (a[i].angular_velocity - b[i].angular_velocity)
               .cwiseAbs()
               .maxCoeff()});
    }
    std::printf(
        "[mesh cube] largest difference from the box over 600 steps: "
        "%.3g\n",
        worst);
    EXPECT_LE(worst, 1e-12) << motion;
  }
}

TEST(MeshContact, TessellatedSphereRestsLikeTheSphere) {
  TempDir dir;
  // 64 rings x 128 segments, poles on the z axis: the south pole is a
  // vertex at the sphere's lowest point; the next ring is 0.12 mm above it.
  WriteBytes(dir.File("ball.stl"), BinaryStl(SphereTriangles(0.1, 64, 128)));
  auto penetration = [&](const std::string& shape) {
    const Scene scene =
        LoadText(dir, "ball.yaml",
                 Ground(0.5, "  - name: ball\n    shape: " + shape +
                                 "\n    mass: 2\n    position: [0, 0, 0.1]\n"));
    TimeStepper stepper(scene);
    StepInfo info;
    for (int i = 0; i < 500; ++i) info = stepper.Step();
    EXPECT_FALSE(info.failed) << info.failure;
    return info.max_penetration;
  };
  const double sphere = penetration("{type: sphere, radius: 0.1}");
  const double mesh = penetration("{type: mesh, file: ball.stl}");
  std::printf(
      "[tessellated sphere] resting penetration %.6g m, sphere %.6g m "
      "(%+.3f%%)\n",
      mesh, sphere, 100 * (mesh / sphere - 1));
  EXPECT_GT(sphere, 0.0);
  EXPECT_NEAR(mesh, sphere, 0.01 * sphere);
}

TEST(MeshContact, SlidingCylinderEndsRollingAtTwoThirdsOfItsSpeed) {
  TempDir dir;
  const double r = 0.05, v0 = 1.0;
  // Axis along y (rpy x = pi/2), launched along x without spin.
  const Scene scene = LoadText(
      dir, "roll.yaml",
      Ground(0.5,
             "  - name: can\n    shape: {type: cylinder, radius: 0.05, "
             "length: 0.2}\n    density: 1000\n    position: [0, 0, "
             "0.05]\n    rpy: [1.5707963267948966, 0, 0]\n    velocity: "
             "[1, 0, 0]\n") +
          // SAP's exact stiction: the rolling contact does not creep.
          "solver: {contact_model: sap}\n");
  TimeStepper stepper(scene);
  for (int i = 0; i < 500; ++i) {
    const StepInfo info = stepper.Step();
    ASSERT_FALSE(info.failed) << info.failure;
  }
  const BodyState& s = stepper.state()[1];
  std::printf(
      "[rolling cylinder] v = %.6f m/s (2/3 v0 = %.6f), w r = %.6f "
      "m/s\n",
      s.velocity.x(), 2.0 / 3.0 * v0, s.angular_velocity.y() * r);
  EXPECT_NEAR(s.velocity.x(), 2.0 / 3.0 * v0, 0.01 * 2.0 / 3.0 * v0);
  EXPECT_NEAR(s.angular_velocity.y() * r, s.velocity.x(), 1e-3);  // rolling
  EXPECT_LT(std::abs(s.velocity.y()), 1e-9);
}

TEST(MeshContact, StandingCylinderRestsOnFourPointsWithoutRocking) {
  TempDir dir;
  const Scene scene = LoadText(
      dir, "stand.yaml",
      Ground(1.0,
             "  - name: can\n    shape: {type: cylinder, radius: 0.04, "
             "length: 0.12}\n    mass: 0.5\n    position: [0, 0, "
             "0.06]\n"));
  TimeStepper stepper(scene);
  StepInfo info;
  for (int i = 0; i < 1000; ++i) info = stepper.Step();
  EXPECT_FALSE(info.failed) << info.failure;
  EXPECT_EQ(info.contacts, 4);
  const BodyState& s = stepper.state()[1];
  std::printf(
      "[standing cylinder] %d contacts, |w| = %.3g rad/s, |v| = %.3g "
      "m/s after 1 s\n",
      info.contacts, s.angular_velocity.norm(), s.velocity.norm());
  EXPECT_LT(s.angular_velocity.norm(), 1e-6);
  EXPECT_LT(s.velocity.norm(), 1e-6);
  EXPECT_LT(s.pose.orientation.angularDistance(Eigen::Quaterniond::Identity()),
            1e-9);
}

}  // namespace
}  // namespace sapcontact
