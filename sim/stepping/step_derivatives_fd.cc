// Step derivatives by central differences of whole steps from perturbed
// states (StepDerivativeMethod::kFiniteDifferences; docs/theory.md §21):
// the reference the implicit method is checked against.
#include <cmath>
#include <vector>

#include "sapcontact/sim/stepping/step_derivative_work.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact {
namespace {

// log(R1 R0') as a rotation vector (world axes).
Vector3 RotationDifference(const Eigen::Quaterniond& q1,
                           const Eigen::Quaterniond& q0) {
  const Eigen::AngleAxisd aa(q1 * q0.conjugate());
  double angle = aa.angle();
  if (angle > M_PI) angle -= 2.0 * M_PI;
  return angle * aa.axis();
}

Eigen::Quaterniond FloatingQuaternionOf(const Eigen::VectorXd& q, int qs) {
  return Eigen::Quaterniond(q[qs + 3], q[qs + 4], q[qs + 5], q[qs + 6]);
}

// The state after a step, as the step's position update makes it.
struct NextState {
  std::vector<Pose> poses;         // per body tree
  std::vector<Eigen::VectorXd> q;  // per robot tree
  Eigen::VectorXd v;
};

}  // namespace

void TimeStepper::DifferencedStepDerivatives(StepDerivativeWork* w,
                                             const SavedStep& saved,
                                             const SavedStep& at_start,
                                             StepDerivatives* result) {
  StepDerivatives& out = *result;
  const SapProblem& P0 = w->P0;
  const std::vector<ContactPoint>& contacts0 = w->contacts0;
  const SapSolverResults& r0 = w->r0;
  const int nv = w->nv, num_targets = w->num_targets;
  const double dt = w->dt, hq = w->hq, hv = w->hv, hu = w->hu;
  auto solve = [&](const SapProblem& p, const Eigen::VectorXd* guess) {
    return SolveConverged(w, p, guess);
  };
  auto moved_problem = [&](int i, double e) {
    Perturb(saved, nv, i, e);
    return ProblemAtCurrentState();  // copied by the caller
  };
  // Row j of the actuation rows: its constraint and row.
  auto target_of = [&](SapProblem* p, int j) -> double& {
    for (ActuationConstraint& a : p->actuation) {
      if (j < a.target.size()) return a.target(j);
      j -= static_cast<int>(a.target.size());
    }
    throw std::logic_error("CalcStepDerivatives: no actuation row");
  };

  // The position update x+ from the current state and velocities v
  // (IntegrateBodies, IntegrateRobots), and its tangent difference.
  auto next_state = [&](const Eigen::VectorXd& v) {
    NextState x;
    x.v = v;
    for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
      const BodyState& s = step_.state[layout_.body_of_tree[t]];
      const Pose p =
          AdvancePose(s.pose, v.segment<3>(6 * t), v.segment<3>(6 * t + 3), dt);
      x.poses.push_back(p);
    }
    for (size_t t = layout_.body_of_tree.size(); t < P0.trees.size(); ++t) {
      const int r = layout_.robot_of_tree[t];
      const MultibodyTree& mb = scene_.robots[r].description.tree;
      Eigen::VectorXd q_next;
      IntegratePositions(
          mb, step_.robot_state[r].q,
          v.segment(layout_.tree_offsets[t], mb.num_velocities()), dt, &q_next);
      x.q.push_back(q_next);
    }
    return x;
  };
  auto difference = [&](const NextState& a, const NextState& b) {
    Eigen::VectorXd d(2 * nv);
    d.tail(nv) = a.v - b.v;
    for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
      d.segment<3>(6 * t) = a.poses[t].position - b.poses[t].position;
      d.segment<3>(6 * t + 3) =
          RotationDifference(a.poses[t].orientation, b.poses[t].orientation);
    }
    for (size_t t = layout_.body_of_tree.size(); t < P0.trees.size(); ++t) {
      const int r = layout_.robot_of_tree[t];
      const MultibodyTree& mb = scene_.robots[r].description.tree;
      const Eigen::VectorXd& qa = a.q[t - layout_.body_of_tree.size()];
      const Eigen::VectorXd& qb = b.q[t - layout_.body_of_tree.size()];
      for (int i = 0; i < mb.num_links(); ++i) {
        const int qs = mb.position_start(i);
        const int vs = layout_.tree_offsets[t] + mb.velocity_start(i);
        switch (mb.joint(i).type) {
          case JointType::kFixed:
            break;
          case JointType::kRevolute:
          case JointType::kPrismatic:
            d(vs) = qa(qs) - qb(qs);
            break;
          case JointType::kFloating:
            d.segment<3>(vs) = qa.segment<3>(qs) - qb.segment<3>(qs);
            d.segment<3>(vs + 3) = RotationDifference(
                FloatingQuaternionOf(qa, qs), FloatingQuaternionOf(qb, qs));
            break;
        }
      }
    }
    return d;
  };
  // Central differences of whole steps from the perturbed states.
  for (int i = 0; i < 2 * nv; ++i) {
    // The step is shrunk (to 1/100 at most) while the perturbed
    // contacts do not follow the nominal ones.
    double h = i < nv ? hq : hv;
    NextState x[2];
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (attempt > 0) h *= 0.1;
      bool follow = true;
      for (int side = 0; side < 2; ++side) {
        const SapProblem p = moved_problem(i, side == 0 ? h : -h);
        follow = follow && ContactsFollow(last_.contacts, contacts0, h);
        x[side] = next_state(solve(p, &r0.v).v);
      }
      if (follow) break;
    }
    out.A.col(i) = difference(x[0], x[1]) / (2 * h);
  }
  RestoreStep(at_start);
  for (int j = 0; j < nv; ++j) {
    NextState x[2];
    for (int side = 0; side < 2; ++side) {
      SapProblem p = P0;
      const Eigen::VectorXd d = (side == 0 ? hu : -hu) * w->ForceDirection(j);
      int o = 0;
      for (Tree& tree : p.trees) {
        tree.v_star += d.segment(o, tree.v_star.size());
        o += static_cast<int>(tree.v_star.size());
      }
      x[side] = next_state(solve(p, &r0.v).v);
    }
    out.B.col(j) = difference(x[0], x[1]) / (2 * hu);
  }
  out.B_targets.resize(2 * nv, num_targets);
  for (int j = 0; j < num_targets; ++j) {
    NextState x[2];
    for (int side = 0; side < 2; ++side) {
      SapProblem p = P0;
      target_of(&p, j) += side == 0 ? hq : -hq;
      x[side] = next_state(solve(p, &r0.v).v);
    }
    out.B_targets.col(j) = difference(x[0], x[1]) / (2 * hq);
  }
  const SapSolverDerivatives lin(P0, r0, w->params);
  out.contact_regions = lin.regions();
  out.scaled_residual = lin.scaled_residual();
}

}  // namespace sapcontact
