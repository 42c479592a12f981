// TimeStepper::CalcStepDerivatives (docs/theory.md §21): the implicit
// method (the solve by the implicit function theorem, the problem's data by
// central differences, the position update analytically) against central
// differences of whole steps, column by column at 1e-6 relative, on a box
// sliding and turning on the ground and a ball dropping onto a box (three
// contact models), a box sliding, and the 7-DOF WAM holding a mesh prism on
// its forearm; free fall against its closed form; the stepper's state
// untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
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

void ExpectColumnsClose(const Eigen::MatrixXd& an, const Eigen::MatrixXd& fd,
                        const StepDerivatives& d, const char* which) {
  ASSERT_EQ(an.rows(), fd.rows());
  ASSERT_EQ(an.cols(), fd.cols());
  const int nv = static_cast<int>(d.coordinates.size());
  for (int j = 0; j < an.cols(); ++j) {
    // Whole-step differences carry the solves' 1e-12 tolerance over a 1e-5
    // step: a floor of 1e-6 on the column's scale.
    const double scale = std::max(an.col(j).norm(), 1e-6);
    EXPECT_LE((an.col(j) - fd.col(j)).norm(), 1e-6 * scale)
        << which << " column " << j << " (" << (j < nv ? "d" : "d v of ")
        << d.coordinates[j % nv] << ")\nimplicit:    " << an.col(j).transpose()
        << "\nwhole steps: " << fd.col(j).transpose();
  }
}

// Steps `scene` `steps` times, then compares the two methods; h [m, rad,
// m/s, rad/s] and h_force [N, N m] are the whole-step differences' steps:
// small enough that no contact changes region (stiff contacts and narrow
// friction bands need small ones), large against the solves' tolerance.
void CheckScene(const Scene& scene, int steps, const std::string& name,
                double h, double h_force) {
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
  ASSERT_EQ(an.A.rows(), 2 * nv);
  EXPECT_GT(an.contact_regions.size(), 0u);
  EXPECT_LT(an.scaled_residual, 1e-10);
  ExpectColumnsClose(an.A, fd.A, an, "A");
  ExpectColumnsClose(an.B, fd.B, an, "B");
  ASSERT_EQ(an.targets, fd.targets);
  for (int j = 0; j < an.B_targets.cols(); ++j) {
    const double scale = std::max(an.B_targets.col(j).norm(), 1e-6);
    EXPECT_LE((an.B_targets.col(j) - fd.B_targets.col(j)).norm(), 1e-6 * scale)
        << an.targets[j];
  }
}

TEST(StepDerivatives, BoxesAndABallOnTheGround) {
  for (const char* model : {"sap", "similar", "lagged"}) {
    const Scene scene = LoadSceneFromString(Scene2(model), "two_boxes.yaml");
    CheckScene(scene, 20, model, 1e-6, 1e-3);
  }
}

TEST(StepDerivatives, BoxSlidingOnTheGround) {
  CheckScene(LoadShippedScene("box_slide"), 20, "box_slide", 1e-7, 1e-4);
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

TEST(StepDerivatives, FacesInExactAlignmentHoldTheirContacts) {
  // A box resting flat on a box: moving either box sideways or turning it
  // changes which points the face contact's clipping reports (the step is
  // not differentiable there): those columns are one-sided or hold the
  // contacts; the others match whole-step differences.
  const Scene scene =
      LoadShippedScene("stack", {"bodies.box.grid.count=[1,1,2]"});
  TimeStepper stepper(scene);
  for (int i = 0; i < 20; ++i) stepper.Step();
  const StepDerivatives an = stepper.CalcStepDerivatives();
  const int nv = static_cast<int>(an.coordinates.size());
  std::vector<int> special = an.one_sided;
  special.insert(special.end(), an.held_contacts.begin(),
                 an.held_contacts.end());
  ASSERT_FALSE(special.empty());
  for (int i : special) ASSERT_LT(i, nv);  // configuration columns only
  // A turn about z moves no point along the normals: the held contacts'
  // phi0 stay, and the boxes' velocities do not change.
  for (int i : an.held_contacts) {
    if (an.coordinates[i].back() != 'z') continue;
    EXPECT_LT(an.A.col(i).tail(nv).norm(), 1e-9) << an.coordinates[i];
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
  const int contacts = static_cast<int>(a.last_contacts().size());
  a.CalcStepDerivatives();
  EXPECT_EQ(static_cast<int>(a.last_contacts().size()), contacts);
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
