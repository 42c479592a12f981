// ContactCarriesNoImpulse and SolveWithoutInactiveContacts
// (sim/stepping/scene_collision.h): the zero-impulse test against the contact
// models' own impulses, and the pruned solve against the plain solve of the
// same problem.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/sim/collision/contact_point.h"
#include "sapcontact/sim/stepping/scene_collision.h"

namespace sapcontact {
namespace {

// The impulse of contact c at v_c, from the contact model itself.
Vector3 ModelImpulse(const Contact& c, double dt,
                     const RegularizationParameters& reg, double w,
                     const Vector3& v_c) {
  const ContactConstraint k = ContactConstraint::Make(
      c.parameters, reg, dt, w, c.phi0, c.normal_velocity0);
  ContactConstraintRayState state;
  k.EvaluateAlong(v_c, Vector3::Zero(), &state);
  return state.gamma;
}

TEST(InactiveContacts, NoImpulseWheneverTheTestSaysSoForAllThreeModels) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const RegularizationParameters reg;
  const double dt = 1e-3;
  int inactive = 0, active_checked = 0;
  for (ContactModel model :
       {ContactModel::kSap, ContactModel::kSimilar, ContactModel::kLagged}) {
    for (int n = 0; n < 20000; ++n) {
      Contact c;
      c.parameters.model = model;
      c.parameters.stiffness = u(rng) < 0.5 ? 1e5 : INFINITY;
      c.parameters.dissipation_time_scale = 0.01 * u(rng);
      c.parameters.friction = u(rng);
      c.phi0 = 2e-3 * (u(rng) - 0.2);
      c.normal_velocity0 = u(rng) - 0.5;
      const Vector3 v_c(2.0 * (u(rng) - 0.5), u(rng) - 0.5, u(rng) - 0.5);
      const double w = 0.1 + 10.0 * u(rng);
      const double allowance = u(rng) < 0.5 ? 0.0 : 0.1 * u(rng);
      const Vector3 gamma = ModelImpulse(c, dt, reg, w, v_c);
      if (ContactCarriesNoImpulse(c, dt, reg, w, v_c, allowance)) {
        ++inactive;
        EXPECT_EQ(gamma, Vector3::Zero()) << "model " << ToString(model);
        // The allowance covers a velocity change of that size.
        const Vector3 dv(-allowance, allowance, 0.0);
        EXPECT_EQ(ModelImpulse(c, dt, reg, w, v_c + dv), Vector3::Zero());
      } else if (allowance == 0.0 && c.phi0 > 0.0) {
        // Below the threshold by more than round-off: the model pushes.
        const double h = model == ContactModel::kSap
                             ? dt + c.parameters.dissipation_time_scale
                             : dt;
        const double slip = std::hypot(v_c(1), v_c(2));
        const double mu =
            model == ContactModel::kLagged ? 0.0 : c.parameters.friction;
        if (c.phi0 + h * (v_c(0) - mu * slip) < -1e-9) {
          ++active_checked;
          EXPECT_GT(gamma(0), 0.0) << "model " << ToString(model);
        }
      }
    }
  }
  // Neither branch is vacuous.
  EXPECT_GT(inactive, 10000);
  EXPECT_GT(active_checked, 5000);
}

// Balls of radius r along x, tree i = ball i (6 DOF, A = diag(m, m, m, I, I,
// I)); contact i between balls i and i + 1 with normal +x at gap phi[i].
struct Chain {
  SapProblem problem;
};

Chain MakeChain(const std::vector<double>& mass, const std::vector<double>& vx,
                const std::vector<double>& phi) {
  Chain chain;
  SapProblem& p = chain.problem;
  p.time_step = 1e-3;
  const double r = 0.05;
  for (size_t i = 0; i < mass.size(); ++i) {
    Tree t;
    const double I = 0.4 * mass[i] * r * r;
    t.A = Eigen::VectorXd(
              (Eigen::VectorXd(6) << mass[i], mass[i], mass[i], I, I, I)
                  .finished())
              .asDiagonal();
    t.v_star = Eigen::VectorXd::Zero(6);
    t.v_star(0) = vx[i];
    p.trees.push_back(t);
  }
  const Vector3 n = Vector3::UnitX();
  const Matrix3 rows = ContactFrameRows(n);
  auto block = [&](const Vector3& arm, double sign) {
    Eigen::MatrixXd J(3, 6);
    Matrix3 cross;
    cross << 0, -arm.z(), arm.y(), arm.z(), 0, -arm.x(), -arm.y(), arm.x(), 0;
    J.leftCols<3>() = sign * rows;
    J.rightCols<3>() = -sign * rows * cross;  // w x arm = -[arm]x w
    return J;
  };
  for (size_t i = 0; i < phi.size(); ++i) {
    Contact c;
    c.first.tree = static_cast<int>(i);
    c.first.J = block(r * n, -1.0);
    c.second.emplace();
    c.second->tree = static_cast<int>(i + 1);
    c.second->J = block(-r * n, 1.0);
    c.phi0 = phi[i];
    c.parameters.stiffness = INFINITY;
    c.parameters.dissipation_time_scale = 1.5e-3;
    c.parameters.friction = 0.5;
    p.contacts.push_back(c);
  }
  return chain;
}

void ExpectSameSolution(const SapSolverResults& full,
                        const SapSolverResults& pruned, double tolerance) {
  ASSERT_TRUE(full.converged());
  ASSERT_TRUE(pruned.converged());
  EXPECT_LT((full.v - pruned.v).lpNorm<Eigen::Infinity>(),
            tolerance * full.v.lpNorm<Eigen::Infinity>());
  ASSERT_EQ(full.gamma.size(), pruned.gamma.size());
  EXPECT_LT((full.gamma - pruned.gamma).lpNorm<Eigen::Infinity>(),
            tolerance * full.gamma.lpNorm<Eigen::Infinity>());
  EXPECT_LT((full.v_c - pruned.v_c).lpNorm<Eigen::Infinity>(),
            tolerance * full.v.lpNorm<Eigen::Infinity>());
}

TEST(InactiveContacts, AContactPushedShutWithinTheStepIsPutBack) {
  // Ball 0 hits ball 1 at 1 m/s; ball 1 is 0.5 mm from ball 2, at rest at
  // free motion (predicted inactive), but the hit pushes it shut within the
  // step; ball 3 stays 5 mm away from ball 2.
  const Chain chain = MakeChain({1.0, 1.0, 1.0, 1.0}, {1.0, 0.0, 0.0, 0.0},
                                {-1e-5, 5e-4, 5e-3});
  SapSolverParameters parameters;
  parameters.regularization.near_rigid_threshold = 0.63;
  SapSolver plain(parameters), pruning_solver(parameters);
  SapSolverResults full, pruned;
  plain.SolveFromCandidates(chain.problem, {}, &full);
  InactiveContactPruning pruning;
  pruning.min_fraction = 0.0;
  SolveWithoutInactiveContacts(&pruning_solver, chain.problem, {}, &pruning,
                               &pruned);
  // The full solve: contact 1 pushes, contact 2 does not.
  EXPECT_GT(full.gamma(3), 0.0);
  EXPECT_EQ(full.gamma(6), 0.0);
  EXPECT_EQ(pruning.restored, 1);
  EXPECT_EQ(pruning.pruned, 1);
  EXPECT_EQ(pruning.solves, 2);
  ExpectSameSolution(full, pruned, 1e-5);
  EXPECT_EQ(pruned.gamma.segment<3>(6), Vector3::Zero());
  // Its regularization is the plain estimate's: 2 balls of 1 kg.
  EXPECT_GT(pruned.R_n(2), 0.0);
  EXPECT_NEAR(pruned.delassus_estimate(2), full.delassus_estimate(2), 1e-12);
}

TEST(InactiveContacts, ASupportIsNeverPrunedAndWithoutTheEstimateItIs) {
  // A light ball (1 kg) pressed by a heavy one (100 kg, 0.2 m/s) with a
  // second heavy ball 3 mm behind it: the supported Delassus estimate
  // (docs/theory.md §19) counts the light ball as heavy because of that
  // second neighbour, so its contact must stay.
  const Chain chain =
      MakeChain({100.0, 1.0, 100.0}, {0.2, 0.0, 0.0}, {-1e-5, 3e-3});
  for (bool supported : {true, false}) {
    SapSolverParameters parameters;
    parameters.regularization.near_rigid_threshold = 0.63;
    parameters.regularization.supported_delassus_estimate = supported;
    SapSolver plain(parameters), pruning_solver(parameters);
    SapSolverResults full, pruned;
    plain.SolveFromCandidates(chain.problem, {}, &full);
    InactiveContactPruning pruning;
    pruning.min_fraction = 0.0;
    SolveWithoutInactiveContacts(&pruning_solver, chain.problem, {}, &pruning,
                                 &pruned);
    EXPECT_EQ(full.gamma(3), 0.0);
    EXPECT_EQ(pruning.pruned, supported ? 0 : 1) << supported;
    EXPECT_EQ(pruning.support_fallbacks, supported ? 1 : 0) << supported;
    ExpectSameSolution(full, pruned, 1e-5);
    EXPECT_EQ(pruned.delassus_estimate(0), full.delassus_estimate(0));
  }
}

TEST(InactiveContacts, DisabledOrNothingToPruneIsThePlainSolve) {
  const Chain chain =
      MakeChain({1.0, 1.0, 1.0}, {1.0, 0.0, 0.0}, {-1e-5, 5e-3});
  SapSolverParameters parameters;
  for (bool enabled : {false, true}) {
    SapSolver plain(parameters), pruning_solver(parameters);
    SapSolverResults full, pruned;
    plain.SolveFromCandidates(chain.problem, {}, &full);
    InactiveContactPruning pruning;
    pruning.enabled = enabled;
    pruning.min_fraction = 0.6;  // 1 of 2 predicted: below it
    SolveWithoutInactiveContacts(&pruning_solver, chain.problem, {}, &pruning,
                                 &pruned);
    EXPECT_EQ(pruning.pruned, 0);
    EXPECT_EQ(pruning.solves, 1);
    EXPECT_EQ(pruned.v, full.v);  // bitwise: the same solve
    EXPECT_EQ(pruned.gamma, full.gamma);
  }
}

TEST(InactiveContacts, AnInvalidContactIsLeftToTheSolverToName) {
  Chain chain = MakeChain({1.0, 1.0, 1.0}, {1.0, 0.0, 0.0}, {-1e-5, 5e-3});
  chain.problem.contacts[1].parameters.friction = -1.0;
  SapSolver solver;
  SapSolverResults results;
  InactiveContactPruning pruning;
  pruning.min_fraction = 0.0;
  try {
    SolveWithoutInactiveContacts(&solver, chain.problem, {}, &pruning,
                                 &results);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("contact 1"), std::string::npos)
        << e.what();
  }
}

TEST(InactiveContacts, AnErrorInAKeptContactNamesItsFullIndex) {
  // Contacts 0 and 1 have gaps that stay open and are pruned; contact 2
  // (kept: index 0 of the problem the solver sees) has a non-finite
  // Jacobian entry.
  Chain chain = MakeChain({1.0, 1.0, 1.0, 1.0}, {0.0, 0.0, 1.0, 0.0},
                          {5e-3, 5e-3, -1e-5});
  chain.problem.contacts[2].first.J(0, 0) = NAN;
  SapSolver solver;
  SapSolverResults results;
  InactiveContactPruning pruning;
  pruning.min_fraction = 0.0;
  try {
    SolveWithoutInactiveContacts(&solver, chain.problem, {}, &pruning,
                                 &results);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("contact 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sapcontact
