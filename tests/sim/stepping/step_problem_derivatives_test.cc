// The solve's derivatives (docs/theory.md §20) on the problems real scenes
// pose: the 7-DOF Barrett WAM of Debian's dart-doc holding a mesh prism on
// its forearm (PD actuation rows on every joint, two-tree contacts between
// a link and the prism), and the arm pushing a box (a 3-link arm, contacts
// between the pusher and the box and the box and the ground). Every
// Jacobian column against central differences of whole solves. Skips where
// dart-doc is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/common/solve_derivative_checks.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using derivative_checks::CheckAllJacobians;
using scene_tests::LoadShippedScene;

// Takes `steps` steps of `scene`, then checks the derivatives of the last
// step's problem (which must have at least `min_contacts` contacts) with
// finite-difference steps step_scale times the default.
void CheckSceneProblem(const Scene& scene, int steps, int min_contacts,
                       const std::string& name, double step_scale) {
  TimeStepper stepper(scene);
  for (int i = 0; i < steps; ++i) stepper.Step();
  const SapProblem& problem = stepper.last_problem();
  ASSERT_GE(static_cast<int>(problem.contacts.size()), min_contacts);
  CheckAllJacobians(problem, name, step_scale);
}

TEST(StepProblemDerivatives, WamHoldingAPrism) {
  if (!std::filesystem::exists("/usr/share/doc/dart/data/urdf/wam")) {
    GTEST_SKIP() << "Debian's dart-doc is not installed (scripts/setup "
                    "installs it): /usr/share/doc/dart/data/urdf is missing";
  }
  const Scene scene =
      LoadShippedScene("wam_tray", {"solver.rel_tolerance=1e-9"});
  CheckSceneProblem(scene, 200, 3, "wam_tray", 1.0);
}

TEST(StepProblemDerivatives, ArmPushingABox) {
  const Scene scene = LoadShippedScene("arm_push");
  // Steps 10 times the default: the lagged contacts' stiff normal direction
  // amplifies the solves' round-off in gamma.
  CheckSceneProblem(scene, 1500, 13, "arm_push", 10.0);
}

}  // namespace
}  // namespace sapcontact
