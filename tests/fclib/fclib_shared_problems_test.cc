// A representative, fast subset of the 33 shared FCLib problems
// (../shared/fclib, located by fclib_test::SharedFclibDir; skipped when
// absent): the rigid QP reaches relative e_S <= 1e-8 and the convex
// reference objective to 1e-8 (or lower); SAP in its stiff limit the
// objective to 1e-6. The full table is produced by
//   sapsim fclib ../shared/fclib/problems/*.hdf5 --solver rigid|sap
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sapcontact/fclib/fclib_solver.h"
#include "tests/fclib/fclib_test_util.h"

namespace sapcontact {
namespace {

// One problem of each kind: single contact; asymmetric W (Rover, OneObject,
// Capsules); slightly indefinite W (Confeti); global-condensed (Box_Stacks,
// CubeH8); singular W with q outside range(W) (LMGC: offset DOFs); many
// contacts (Capsules-i97-269: 216); degenerate contacts (local_problem_test).
const char* const kRigidSubset[] = {"FrictionContact3D_1c",
                                    "Rover4396",
                                    "CubeH8",
                                    "Confeti-ex13-4contact-Fc3D-SBM",
                                    "NESpheres_10_1",
                                    "OneObject-i1028-138",
                                    "Box_Stacks-i0035-31-0",
                                    "LMGC_100_PR_PerioBox-i00361-60-03000",
                                    "local_problem_test",
                                    "Capsules-i97-269"};
// SAP: also the three largest (570, 463, 256 contacts), which the
// contact-space path solves with a sparse factorization (docs/theory.md §15).
const char* const kSapSubset[] = {"FrictionContact3D_RR_1c",
                                  "Rover4516",
                                  "Confeti-ex13-4contact-Fc3D-SBM",
                                  "OneObject-i1028-138",
                                  "LMGC_100_PR_PerioBox-i00361-60-03000",
                                  "KaplasTower-i1061-4",
                                  "RockPile_tob1",
                                  "spheres-in-a-box-98-i10000-256-10"};

void CheckSubset(FclibSolverKind kind, const char* const* names, int count,
                 double objective_tolerance, double residual_tolerance) {
  const std::string dir = fclib_test::SharedFclibDir();
  if (dir.empty()) GTEST_SKIP() << "../shared/fclib not found";
  const auto refs = fclib_test::ReadReferences(dir);
  FclibSolverOptions options;
  options.solver = kind;
  for (int k = 0; k < count; ++k) {
    const std::string name = names[k];
    const FclibLocalProblem p =
        ReadFclibLocal(dir + "/problems/" + name + ".hdf5");
    const FclibSolveResult r = SolveFclibLocal(p, options);
    const double ref = std::stod(refs.at(name).at("convex_objective"));
    const double rel = (r.residuals.objective - ref) / std::abs(ref);
    std::printf("%-38s %-5s %-24s it %3d e_S %.2e objective rel %+.2e\n",
                name.c_str(), ToString(kind), r.status.c_str(), r.iterations,
                r.residuals.convex_residual, rel);
    EXPECT_TRUE(r.success) << name << ": " << r.message;
    EXPECT_LE(r.residuals.convex_residual, residual_tolerance) << name;
    EXPECT_LE(rel, objective_tolerance) << name;
    EXPECT_GE(rel, -1e-10) << name << ": below the reference optimum";
  }
}

TEST(FclibSharedProblems, RigidQpReachesReferences) {
  CheckSubset(FclibSolverKind::kRigid, kRigidSubset,
              sizeof(kRigidSubset) / sizeof(kRigidSubset[0]), 1e-8, 1e-8);
}

TEST(FclibSharedProblems, SapStiffLimitReachesReferenceObjective) {
  // e_S of SAP's solution is O(sigma) (the regularization), not tested.
  CheckSubset(FclibSolverKind::kSap, kSapSubset,
              sizeof(kSapSubset) / sizeof(kSapSubset[0]), 1e-6, 1e-5);
}

}  // namespace
}  // namespace sapcontact
