// Round trip: simulate a scene, export every step's contact problem as an
// FCLib file (fclib/fclib_step_export.h, what `sapsim run --export-fclib`
// does), read the files back and solve them with the rigid QP
// (fclib/fclib_solver.h): the solutions must reproduce the impulses the
// time stepper computed.
//  - SAP model: the file holds W + R, whose convex QP is SAP's dual (SAP paper
//    §III-A, Eq. (22)), strictly convex: the impulses themselves must agree, to
//    SAP's own accuracy (Newton tolerance 1e-10 here; measured 1.6e-13).
//  - Rigid model: the file holds the rigid-limit W, singular for boxes on
//    four coplanar contacts (impulses not unique): u = W r + q and the
//    objective must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sapcontact/fclib/fclib_solver.h"
#include "sapcontact/fclib/fclib_step_export.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/fclib/fclib_test_util.h"

namespace sapcontact {
namespace {

using fclib_test::RepoRoot;
using fclib_test::TempPath;

struct RoundTripErrors {
  int files{0};
  double impulses{0}, velocities{0}, objective{0};
};

RoundTripErrors RunAndCompare(const std::string& scene_name,
                              const std::vector<std::string>& overrides,
                              int steps) {
  const Scene scene = LoadScene(
      RepoRoot() + "/config/scenes/" + scene_name + ".yaml", overrides);
  TimeStepper stepper(scene);
  const bool sap = scene.solver.model == SolverModel::kSap;
  FclibStepWriter writer(TempPath(scene_name + "/" + scene_name + ".hdf5"),
                         scene_name);
  RoundTripErrors e;
  double largest_impulse = 0.0;
  for (int n = 0; n < steps; ++n) {
    const double t = stepper.time();
    const StepInfo info = stepper.Step();
    EXPECT_FALSE(info.failed) << info.failure;
    Eigen::VectorXd R;
    if (sap) {
      R = StackRegularization(stepper.last_sap_results().R_n,
                              stepper.last_sap_results().R_t);
    }
    const Eigen::VectorXd& gamma = stepper.last_impulses();
    const std::string path =
        writer.Write(n, t, stepper.last_problem(), R, gamma);
    if (path.empty()) continue;
    EXPECT_EQ(path, writer.StepPath(n));
    const FclibLocalProblem p = ReadFclibLocal(path);
    EXPECT_TRUE(p.solution.has_value());
    if (p.solution) {
      EXPECT_EQ(p.solution->r, gamma);  // stored exactly
    }
    const FclibSolveResult r = SolveFclibLocal(p);
    EXPECT_TRUE(r.success) << path << ": " << r.message;
    const FclibResiduals stored = ComputeFclibResiduals(p.W, p.q, p.mu, gamma);
    // Relative to the step's impulses, or, for a step whose stored impulses
    // are exactly zero (the box in flight), to 1e-3 of the largest of the
    // run: both solves then agree to round-off, not to zero digits.
    largest_impulse = std::max(largest_impulse, gamma.norm());
    const double scale =
        std::max({gamma.norm(), 1e-3 * largest_impulse, 1e-300});
    e.impulses = std::max(e.impulses, (r.r - gamma).norm() / scale);
    e.velocities =
        std::max(e.velocities, (r.residuals.u_sym - stored.u_sym).norm() /
                                   std::max(stored.u_sym.norm(), p.q.norm()));
    e.objective = std::max(e.objective,
                           std::abs(r.residuals.objective - stored.objective) /
                               std::abs(stored.objective));
    ++e.files;
  }
  std::printf(
      "%s (%s): %d files, max relative differences: impulses %.2e, u %.2e, "
      "objective %.2e\n",
      scene_name.c_str(), sap ? "sap, W + R" : "rigid, W", e.files, e.impulses,
      e.velocities, e.objective);
  return e;
}

TEST(FclibExportRoundTrip, SapStepsReproduceImpulses) {
  // A stack of 10 boxes (40 contacts, W singular, W + R definite) settling,
  // with SAP converged tightly (FCLib problems are friction-cone problems:
  // the sap contact model).
  const RoundTripErrors e =
      RunAndCompare("stack",
                    {"duration=0.02", "solver.rel_tolerance=1e-10",
                     "solver.contact_model=sap"},
                    20);
  EXPECT_EQ(e.files, 20);
  EXPECT_LT(e.impulses, 1e-9);  // measured 1.6e-13
  EXPECT_LT(e.objective, 1e-12);
  // A box sliding on the ground (friction on the cone boundary).
  const RoundTripErrors s =
      RunAndCompare("box_slide",
                    {"duration=0.02", "solver.rel_tolerance=1e-10",
                     "solver.contact_model=sap"},
                    20);
  EXPECT_GT(s.files, 0);
  EXPECT_LT(s.impulses, 1e-9);
}

TEST(FclibExportRoundTrip, RigidStepsReproduceVelocities) {
  const RoundTripErrors e =
      RunAndCompare("stack", {"duration=0.02", "solver.model=rigid"}, 20);
  EXPECT_EQ(e.files, 20);
  EXPECT_LT(e.velocities, 1e-7);
  EXPECT_LT(e.objective, 1e-7);
}

}  // namespace
}  // namespace sapcontact
