// TimeStepper::CalcStepDerivatives (sim/stepping/step_derivatives.h,
// docs/theory.md §21): the nominal problem and solve, the coordinates'
// and targets' names, and the state saved, perturbed and restored around
// the perturbed problems. The columns come from the implicit method
// (step_derivatives_implicit.cc) or finite differences of whole steps
// (step_derivatives_fd.cc).
#include "sapcontact/sim/stepping/step_derivatives.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/stepping/step_derivative_work.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

Matrix3 RotationExp(const Vector3& phi) {
  const double t = phi.norm();
  if (t == 0.0) return Matrix3::Identity();
  return Eigen::AngleAxisd(t, phi / t).toRotationMatrix();
}

bool ContactsFollow(const std::vector<ContactPoint>& moved,
                    const std::vector<ContactPoint>& nominal, double h,
                    const std::vector<int>* only) {
  if (moved.size() != nominal.size()) return false;
  const double tolerance = 1e3 * h;
  const size_t count = only ? only->size() : moved.size();
  for (size_t i = 0; i < count; ++i) {
    const size_t k = only ? (*only)[i] : i;
    const ContactPoint& a = moved[k];
    const ContactPoint& b = nominal[k];
    if (a.body_a != b.body_a || a.body_b != b.body_b ||
        (a.position - b.position).norm() > tolerance ||
        (a.normal - b.normal).norm() > tolerance) {
      return false;
    }
  }
  return true;
}

const Eigen::LLT<Eigen::MatrixXd>& StepDerivativeWork::Llt(int t) {
  if (llt_.empty()) {
    llt_.resize(P0.trees.size());
    factored_.assign(P0.trees.size(), 0);
  }
  if (!factored_[t]) {
    llt_[t].compute(P0.trees[t].A);
    factored_[t] = 1;
  }
  return llt_[t];
}

Eigen::VectorXd StepDerivativeWork::ForceDirection(int j) {
  Eigen::VectorXd d = Eigen::VectorXd::Zero(nv);
  int t = 0;
  while (j >= tree_offsets[t] + P0.trees[t].A.rows()) ++t;
  const int n = static_cast<int>(P0.trees[t].A.rows());
  d.segment(tree_offsets[t], n) =
      dt * Llt(t).solve(Eigen::VectorXd::Unit(n, j - tree_offsets[t]));
  return d;
}

TimeStepper::SavedStep TimeStepper::SaveStep() const {
  return SavedStep{step_, last_};
}

void TimeStepper::RestoreStep(const SavedStep& s, bool with_problem) {
  step_ = s.step;
  if (with_problem) last_ = s.last;
}

const SapProblem& TimeStepper::ProblemAtCurrentState() {
  StepInfo info;
  UpdateColliderPoses();
  Collide(&info);
  BuildProblem();
  return last_.problem;
}

void TimeStepper::Perturb(const SavedStep& saved, int nv, int i, double e) {
  // The state only: the caller builds the contacts and the problem again.
  RestoreStep(saved, /*with_problem=*/false);
  const bool velocity = i >= nv;
  if (velocity) i -= nv;
  // The tree of coordinate i and its index there.
  int t = static_cast<int>(layout_.tree_offsets.size()) - 1;
  while (layout_.tree_offsets[t] > i) --t;
  const int j = i - layout_.tree_offsets[t];
  if (t < static_cast<int>(layout_.body_of_tree.size())) {
    BodyState& s = step_.state[layout_.body_of_tree[t]];
    if (velocity) {
      (j < 3 ? s.velocity : s.angular_velocity)(j % 3) += e;
    } else if (j < 3) {
      s.pose.position(j) += e;
    } else {
      Vector3 turn = Vector3::Zero();
      turn(j - 3) = e;
      s.pose.orientation =
          (Eigen::Quaterniond(RotationExp(turn)) * s.pose.orientation)
              .normalized();
    }
    return;
  }
  const int r = layout_.robot_of_tree[t];
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  RobotState& st = step_.robot_state[r];
  const Eigen::VectorXd unit = Eigen::VectorXd::Unit(st.v.size(), j);
  if (velocity) {
    // The carried momentum p = M_prev v moves with v (M_prev held).
    st.v(j) += e;
    step_.robot_momentum[r] += e * step_.robot_M[r].col(j);
  } else {
    Eigen::VectorXd q_next;
    IntegratePositions(mb, st.q, unit, e, &q_next);
    st.q = q_next;
    CalcLinkPoses(mb, st.q, &step_.link_poses[r]);
  }
}
StepDerivatives TimeStepper::CalcStepDerivatives(
    const StepDerivativeOptions& options) {
  if (scene_.solver.model != SolverModel::kSap) {
    throw std::invalid_argument(
        "CalcStepDerivatives: the SAP model only (solver.model is the rigid "
        "QP)");
  }
  if (scene_.integrator.robots != RobotIntegrator::kVariational &&
      !scene_.robots.empty()) {
    throw std::invalid_argument(
        "CalcStepDerivatives: robots stepped with integrator.robots: euler "
        "are not differentiated (the variational step is)");
  }
  if (sleep_.num_sleeping > 0) {
    throw std::invalid_argument(
        "CalcStepDerivatives: " + std::to_string(sleep_.num_sleeping) +
        " bodies are asleep (solver.sleep); wake them first (WakeUp)");
  }
  const bool fd = options.method == StepDerivativeMethod::kFiniteDifferences;
  auto pick = [](double given, double implicit, double whole, bool fd) {
    if (!(given >= 0) || !std::isfinite(given)) {
      throw std::invalid_argument(
          "CalcStepDerivatives: central-difference steps must be finite and "
          ">= 0 (0: the default)");
    }
    return given > 0 ? given : fd ? whole : implicit;
  };
  SapSolverParameters params = sap_.parameters();
  params.rel_tolerance = options.rel_tolerance;
  params.threads = 1;
  StepDerivativeWork w(params);
  w.central = options.central_differences;
  w.hq = pick(options.position_step, 1e-7, 1e-5, fd);
  w.hv = pick(options.velocity_step, 1e-7, 1e-5, fd);
  w.hu = pick(options.force_step, 1e-4, 1e-2, fd);
  w.dt = scene_.time_step;

  const SavedStep saved = SaveStep();
  StepDerivatives out;
  try {
    w.P0 = ProblemAtCurrentState();
    w.contacts0 = last_.contacts;
    w.tree_offsets = layout_.tree_offsets;
    const SavedStep at_start = SaveStep();  // the problem built, as Step()
    w.nv = w.P0.num_velocities();
    w.r0 = SolveConverged(&w, w.P0, &step_.guess);
    const SapProblem& P0 = w.P0;

    // Coordinate names.
    for (int body : layout_.body_of_tree) {
      for (const char* c : {"x", "y", "z", "rx", "ry", "rz"}) {
        out.coordinates.push_back(scene_.bodies[body].name + "/" + c);
      }
    }
    for (size_t t = layout_.body_of_tree.size(); t < P0.trees.size(); ++t) {
      const int r = layout_.robot_of_tree[t];
      const MultibodyTree& mb = scene_.robots[r].description.tree;
      std::vector<std::string> names(mb.num_velocities());
      for (int i = 0; i < mb.num_links(); ++i) {
        const int vs = mb.velocity_start(i);
        const std::string prefix = scene_.robots[r].name + "/";
        switch (mb.joint(i).type) {
          case JointType::kFixed:
            break;
          case JointType::kRevolute:
          case JointType::kPrismatic:
            names[vs] = prefix + mb.joint(i).name;
            break;
          case JointType::kFloating: {
            int k = 0;
            for (const char* c : {"x", "y", "z", "rx", "ry", "rz"}) {
              names[vs + k++] = prefix + mb.link(i).name + "/" + c;
            }
            break;
          }
        }
      }
      out.coordinates.insert(out.coordinates.end(), names.begin(), names.end());
    }

    // PD targets: one per actuation row, in problem order (robots in scene
    // order).
    for (size_t r = 0; r < scene_.robots.size(); ++r) {
      const RobotSpec& spec = scene_.robots[r];
      if (layout_.tree_of_robot[r] < 0) continue;
      for (const JointActuation& act : spec.actuation) {
        out.targets.push_back(spec.name + "/" +
                              spec.description.tree.joint(act.joint).name +
                              " target");
      }
    }
    const int num_targets = static_cast<int>(out.targets.size());
    w.num_targets = num_targets;

    out.A.resize(2 * w.nv, 2 * w.nv);
    out.B.resize(2 * w.nv, w.nv);
    if (fd) {
      DifferencedStepDerivatives(&w, saved, at_start, &out);
    } else {
      ImplicitStepDerivatives(&w, saved, &out);
    }
  } catch (...) {
    RestoreStep(saved);
    throw;
  }
  RestoreStep(saved);
  return out;
}

SapSolverResults TimeStepper::SolveConverged(
    StepDerivativeWork* w, const SapProblem& p,
    const Eigen::VectorXd* guess) const {
  SapSolverResults r = w->solver.Solve(p, guess);
  if (r.status != SapSolverStatus::kConverged) {
    Fail("step derivatives: the step's contact solve did not converge (" +
         std::string(ToString(r.status)) + ")");
  }
  return r;
}

}  // namespace sapcontact
