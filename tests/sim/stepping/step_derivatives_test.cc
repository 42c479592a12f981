// TimeStepper::CalcStepDerivatives (docs/theory.md §21): the implicit
// method (the solve by the implicit function theorem, the contacts moved in
// closed form from their features, the problem's data along that motion by
// central differences, the position update analytically) against central
// differences of whole steps, column by column at 1e-6 relative, on a box
// sliding and turning on the ground and a ball dropping onto a box (three
// contact models), a box sliding, a tower of primitive pairs (box on box,
// capsules, spheres), and the 7-DOF WAM holding a mesh prism on its forearm
// (its mesh contacts differenced); free fall against its closed form; the
// stepper's state untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;

// A box sliding and turning on the ground, and a ball falling onto a
// second box; `model` the contact model.
std::string Scene2(const std::string& model) {
  return "time_step: 1.0e-3\n"
         "duration: 1.0\n"
         "materials:\n"
         "  default: {stiffness: 1.0e5, dissipation_time_scale: 0.01, "
         "friction: 0.4, hunt_crossley_dissipation: 2.0, "
         "stiction_tolerance: 1.0e-3}\n"
         "solver: {contact_model: " +
         model +
         "}\n"
         "bodies:\n"
         "  - {name: ground, fixed: true, shape: {type: plane}}\n"
         "  - name: slider\n"
         "    shape: {type: box, size: [0.2, 0.1, 0.1]}\n"
         "    mass: 2.0\n"
         "    position: [0, 0, 0.0499]\n"
         "    velocity: [0.8, 0.3, 0]\n"
         "    angular_velocity: [0, 0, 1.5]\n"
         "  - name: base\n"
         "    shape: {type: box, size: [0.3, 0.3, 0.1]}\n"
         "    mass: 5.0\n"
         "    position: [2, 0, 0.0499]\n"
         "  - name: ball\n"
         "    shape: {type: sphere, radius: 0.05}\n"
         "    mass: 0.3\n"
         "    position: [2.03, 0.02, 0.1497]\n"
         "    velocity: [0.2, 0, -0.5]\n";
}

// `rounding`: the whole-step differences' round-off in the configuration
// rows, whose tangent differences subtract poses of size |x| (a few eps |x|
// / h per entry; CheckScene).
void ExpectColumnsClose(const Eigen::MatrixXd& an, const Eigen::MatrixXd& fd,
                        const StepDerivatives& d, const char* which,
                        double rounding) {
  ASSERT_EQ(an.rows(), fd.rows());
  ASSERT_EQ(an.cols(), fd.cols());
  const int nv = static_cast<int>(d.coordinates.size());
  for (int j = 0; j < an.cols(); ++j) {
    // Whole-step differences carry the solves' 1e-12 tolerance over a 1e-5
    // step: a floor of 1e-6 on the column's scale.
    const double scale = std::max(an.col(j).norm(), 1e-6);
    EXPECT_LE((an.col(j) - fd.col(j)).norm(),
              1e-6 * scale + std::sqrt(nv) * rounding)
        << which << " column " << j << " (" << (j < nv ? "d" : "d v of ")
        << d.coordinates[j % nv] << ")\nimplicit:    " << an.col(j).transpose()
        << "\nwhole steps: " << fd.col(j).transpose();
  }
}

// Steps `scene` `steps` times, then compares the two methods; h [m, rad,
// m/s, rad/s] and h_force [N, N m] are the whole-step differences' steps:
// small enough that no contact changes region (stiff contacts and narrow
// friction bands need small ones), large against the solves' tolerance.
StepDerivatives CheckScene(const Scene& scene, int steps,
                           const std::string& name, double h, double h_force) {
  SCOPED_TRACE(name);
  TimeStepper stepper(scene);
  for (int i = 0; i < steps; ++i) stepper.Step();
  const StepDerivatives an = stepper.CalcStepDerivatives();
  StepDerivativeOptions fd_options;
  fd_options.method = StepDerivativeMethod::kFiniteDifferences;
  fd_options.position_step = h;
  fd_options.velocity_step = h;
  fd_options.force_step = h_force;
  const StepDerivatives fd = stepper.CalcStepDerivatives(fd_options);
  const int nv = static_cast<int>(an.coordinates.size());
  EXPECT_EQ(an.A.rows(), 2 * nv);
  if (an.A.rows() != 2 * nv) return an;
  EXPECT_GT(an.contact_regions.size(), 0u);
  EXPECT_LT(an.scaled_residual, 1e-10);
  // Poses of size |x| differenced over 2 h: 4 eps |x| / h per entry.
  double x_max = 0.0;
  for (const BodyState& b : stepper.state()) {
    x_max = std::max(x_max, b.pose.position.cwiseAbs().maxCoeff());
  }
  for (const RobotState& r : stepper.robot_states()) {
    if (r.q.size() > 0) x_max = std::max(x_max, r.q.cwiseAbs().maxCoeff());
  }
  const double rounding =
      4 * std::numeric_limits<double>::epsilon() * x_max / h;
  ExpectColumnsClose(an.A, fd.A, an, "A", rounding);
  ExpectColumnsClose(an.B, fd.B, an, "B", rounding);
  EXPECT_EQ(an.targets, fd.targets);
  for (int j = 0; j < an.B_targets.cols() && an.targets == fd.targets; ++j) {
    const double scale = std::max(an.B_targets.col(j).norm(), 1e-6);
    EXPECT_LE((an.B_targets.col(j) - fd.B_targets.col(j)).norm(), 1e-6 * scale)
        << an.targets[j];
  }
  return an;
}

TEST(StepDerivatives, BoxesAndABallOnTheGround) {
  for (const char* model : {"sap", "similar", "lagged"}) {
    const Scene scene = LoadSceneFromString(Scene2(model), "two_boxes.yaml");
    const StepDerivatives d = CheckScene(scene, 20, model, 1e-6, 1e-3);
    // Plane-box and box-sphere contacts: all in closed form.
    EXPECT_GE(d.contact_regions.size(), 5u);
    EXPECT_TRUE(d.differenced_contacts.empty());
  }
}

TEST(StepDerivatives, BoxSlidingOnTheGround) {
  const StepDerivatives d =
      CheckScene(LoadShippedScene("box_slide"), 20, "box_slide", 1e-7, 1e-4);
  EXPECT_TRUE(d.differenced_contacts.empty());
}

TEST(StepDerivatives, TowerOfPrimitivePairsInClosedForm) {
  // A small box turned on a large one (the incident face's corners against
  // the reference face), a capsule lying across a capsule (crossing lines)
  // on the ground (segment ends against the plane), a ball in the crook of
  // a capsule's end (point against point) and one against its side (point
  // against line), a ball on the ground, a can tilted on its rim (a rim
  // point sliding along the rim): every contact in closed form.
  const Scene scene = LoadSceneFromString(
      "time_step: 1.0e-3\n"
      "duration: 1.0\n"
      "materials:\n"
      "  default: {stiffness: 1.0e5, dissipation_time_scale: 0.01, "
      "friction: 0.5}\n"
      "bodies:\n"
      "  - {name: ground, fixed: true, shape: {type: plane}}\n"
      "  - name: base\n"
      "    shape: {type: box, size: [0.4, 0.4, 0.1]}\n"
      "    mass: 4.0\n"
      "    position: [0, 0, 0.0499]\n"
      "  - name: top\n"
      "    shape: {type: box, size: [0.2, 0.15, 0.1]}\n"
      "    mass: 1.0\n"
      "    position: [0.03, -0.02, 0.1498]\n"
      "    rpy: [0, 0, 0.4]\n"
      "    velocity: [0.3, 0.1, 0]\n"
      "  - name: log\n"
      "    shape: {type: capsule, radius: 0.04, length: 0.4}\n"
      "    mass: 1.0\n"
      "    position: [1, 0, 0.0399]\n"
      "    rpy: [0, 1.5707963267948966, 0]\n"
      "  - name: cross\n"
      "    shape: {type: capsule, radius: 0.03, length: 0.3}\n"
      "    mass: 0.5\n"
      "    position: [1.05, 0.02, 0.1098]\n"
      "    rpy: [1.5707963267948966, 0, 0.3]\n"
      "    velocity: [0, 0, -0.1]\n"
      "  - name: end_ball\n"
      "    shape: {type: sphere, radius: 0.05}\n"
      "    mass: 0.2\n"
      "    position: [0.7107, 0, 0.0499]\n"
      "  - name: side_ball\n"
      "    shape: {type: sphere, radius: 0.05}\n"
      "    mass: 0.2\n"
      "    position: [0.9, 0.0893, 0.04995]\n"
      "  - name: can\n"
      "    shape: {type: cylinder, radius: 0.04, length: 0.12}\n"
      "    mass: 0.3\n"
      "    position: [0, 1, 0.06904]\n"
      "    rpy: [0.3, 0, 0]\n",
      "tower.yaml");
  const StepDerivatives d = CheckScene(scene, 20, "tower", 1e-7, 1e-4);
  EXPECT_EQ(d.contact_regions.size(), 16u);
  // Every kind of feature pair is there.
  TimeStepper stepper(scene);
  for (int i = 0; i < 20; ++i) stepper.Step();
  std::set<std::pair<FeatureType, FeatureType>> kinds;
  for (const ContactPoint& c : stepper.last_contacts()) {
    kinds.insert({std::min(c.feature_a.type, c.feature_b.type),
                  std::max(c.feature_a.type, c.feature_b.type)});
  }
  using T = FeatureType;
  EXPECT_EQ(kinds, (std::set<std::pair<T, T>>{{T::kPoint, T::kPoint},
                                              {T::kPoint, T::kLine},
                                              {T::kPoint, T::kFace},
                                              {T::kLine, T::kLine},
                                              {T::kFace, T::kRim}}));
  EXPECT_TRUE(d.differenced_contacts.empty());
  EXPECT_TRUE(d.one_sided.empty());
  EXPECT_TRUE(d.held_contacts.empty());
}

TEST(StepDerivatives, WamHoldingAPrism) {
  if (!std::filesystem::exists("/usr/share/doc/dart/data/urdf/wam")) {
    GTEST_SKIP() << "Debian's dart-doc is not installed (scripts/setup "
                    "installs it): /usr/share/doc/dart/data/urdf is missing";
  }
  const Scene scene =
      LoadShippedScene("wam_tray", {"solver.rel_tolerance=1e-9"});
  CheckScene(scene, 200, "wam_tray", 1e-7, 1e-4);
  // Its seven PD targets: raising /j2's target speeds /j2 up.
  TimeStepper stepper(scene);
  for (int i = 0; i < 200; ++i) stepper.Step();
  const StepDerivatives d = stepper.CalcStepDerivatives();
  ASSERT_EQ(d.targets.size(), 7u);
  EXPECT_EQ(d.targets[1], "wam//j2 target");
  const int nv = static_cast<int>(d.coordinates.size());
  const int j2 = static_cast<int>(
      std::find(d.coordinates.begin(), d.coordinates.end(), "wam//j2") -
      d.coordinates.begin());
  ASSERT_LT(j2, nv);
  EXPECT_GT(d.B_targets(nv + j2, 1), 0.0);
}

TEST(StepDerivatives, FacesInExactAlignmentFollowTheCorners) {
  // A box resting flat on an equal box: its corners lie on the sides of the
  // lower box's face, so moving either box sideways or turning it changes
  // which points the face clipping reports (the step is not differentiable
  // there). The closed form follows the corners, on both sides; the columns
  // that move no corner across a side (the velocities, the heights) match
  // whole-step differences.
  const Scene scene =
      LoadShippedScene("stack", {"bodies.box.grid.count=[1,1,2]"});
  TimeStepper stepper(scene);
  for (int i = 0; i < 20; ++i) stepper.Step();
  const StepDerivatives an = stepper.CalcStepDerivatives();
  const int nv = static_cast<int>(an.coordinates.size());
  EXPECT_EQ(an.contact_regions.size(), 8u);
  EXPECT_TRUE(an.differenced_contacts.empty());
  EXPECT_TRUE(an.one_sided.empty());
  EXPECT_TRUE(an.held_contacts.empty());
  std::vector<int> special;  // the sideways moves and turns
  for (int i = 0; i < nv; ++i) {
    if (an.coordinates[i].substr(an.coordinates[i].size() - 2) != "/z") {
      special.push_back(i);
    }
  }
  StepDerivativeOptions fd_options;
  fd_options.method = StepDerivativeMethod::kFiniteDifferences;
  fd_options.position_step = 1e-7;
  fd_options.velocity_step = 1e-7;
  fd_options.force_step = 1e-4;
  const StepDerivatives fd = stepper.CalcStepDerivatives(fd_options);
  for (int j = 0; j < 2 * nv; ++j) {
    if (std::find(special.begin(), special.end(), j) != special.end()) {
      continue;
    }
    const double scale = std::max(an.A.col(j).norm(), 1e-6);
    EXPECT_LE((an.A.col(j) - fd.A.col(j)).norm(), 1e-6 * scale)
        << "column " << j << " (" << an.coordinates[j % nv] << ")";
  }
}

TEST(StepDerivatives, FreeFallHasItsClosedForm) {
  // No contact, no rotation: p+ = p + dt v+, v+ = v + dt (g + u / m).
  const Scene scene = LoadSceneFromString(
      "time_step: 1.0e-3\nduration: 1.0\nbodies:\n"
      "  - name: ball\n    shape: {type: sphere, radius: 0.1}\n"
      "    mass: 2.0\n    position: [0, 0, 1]\n    velocity: [0.5, 0, 0]\n",
      "fall.yaml");
  TimeStepper stepper(scene);
  const StepDerivatives d = stepper.CalcStepDerivatives();
  const double dt = 1e-3, m = 2.0, I = 0.4 * m * 0.01;
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(12, 12);
  A.topRightCorner(6, 6) = dt * Eigen::MatrixXd::Identity(6, 6);
  // (The data's central differences carry round-off: 1e-16 / 1e-7.)
  EXPECT_LT((d.A - A).norm(), 1e-8) << d.A;
  Eigen::VectorXd inverse_mass(6);
  inverse_mass << 1 / m, 1 / m, 1 / m, 1 / I, 1 / I, 1 / I;
  Eigen::MatrixXd B(12, 6);
  B << dt * dt * inverse_mass.asDiagonal().toDenseMatrix(),
      dt * inverse_mass.asDiagonal().toDenseMatrix();
  EXPECT_LT((d.B - B).norm(), 1e-9 * B.norm()) << d.B;
  EXPECT_EQ(d.coordinates.front(), "ball/x");
  EXPECT_EQ(d.coordinates.back(), "ball/rz");
}

TEST(StepDerivatives, LeavesTheSimulationAsItWas) {
  const Scene scene = LoadSceneFromString(Scene2("sap"), "two_boxes.yaml");
  TimeStepper a(scene), b(scene);
  for (int i = 0; i < 10; ++i) {
    a.Step();
    b.Step();
  }
  // What the last step reports stays bitwise the same after either
  // method: its contacts, impulses and the contact wrenches (taken about
  // the bodies' positions at the start of that step, not the current
  // ones).
  StepDerivativeOptions differences;
  differences.method = StepDerivativeMethod::kFiniteDifferences;
  for (const StepDerivativeOptions& options :
       {StepDerivativeOptions{}, differences}) {
    a.CalcStepDerivatives(options);
    ASSERT_EQ(a.last_contacts().size(), b.last_contacts().size());
    for (size_t k = 0; k < a.last_contacts().size(); ++k) {
      EXPECT_EQ(a.last_contacts()[k].position, b.last_contacts()[k].position);
    }
    EXPECT_EQ(a.last_impulses(), b.last_impulses());
    for (const char* body : {"slider", "ball"}) {
      EXPECT_EQ(a.ContactWrench(body).force, b.ContactWrench(body).force);
      EXPECT_EQ(a.ContactWrench(body).torque, b.ContactWrench(body).torque)
          << body;
    }
  }
  for (int i = 0; i < 10; ++i) {
    a.Step();
    b.Step();
  }
  for (size_t k = 0; k < a.state().size(); ++k) {
    EXPECT_EQ(a.state()[k].pose.position, b.state()[k].pose.position);
    EXPECT_EQ(a.state()[k].velocity, b.state()[k].velocity);
  }
}

TEST(StepDerivatives, RejectsTheRigidQpAndBadSteps) {
  Scene scene = LoadSceneFromString(Scene2("sap"), "two_boxes.yaml");
  StepDerivativeOptions bad;
  bad.position_step = -1.0;
  TimeStepper stepper(scene);
  EXPECT_THROW(stepper.CalcStepDerivatives(bad), std::invalid_argument);
  scene.solver.model = SolverModel::kRigid;
  TimeStepper rigid(scene);
  EXPECT_THROW(rigid.CalcStepDerivatives(), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
