// Robots in the time step (docs/robots.md, docs/theory.md §17): their
// trees and colliders at construction, state changes, the variational free
// motion and joint-limit, mimic and PD-actuation constraints of each step,
// link geometry poses before collision, and position integration after the
// solve. Part of TimeStepper (sim/stepping/time_stepper.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/sap/weld_constraint.h"

namespace sapcontact {

void TimeStepper::SetUpRobots() {
  const int nb = static_cast<int>(scene_.bodies.size());
  layout_.collider_name.clear();
  for (const Body& b : scene_.bodies) layout_.collider_name.push_back(b.name);
  layout_.collider_robot.assign(nb, -1);
  layout_.collider_link.assign(nb, -1);
  layout_.collider_geometry.assign(nb, -1);
  const int nr = static_cast<int>(scene_.robots.size());
  if (nr > 0 && scene_.solver.model != SolverModel::kSap) {
    throw std::invalid_argument(
        "robots: solver.model rigid takes contacts only; robots need joint "
        "limits and actuation as constraints (use solver.model sap)");
  }
  step_.robot_state.resize(nr);
  layout_.tree_of_robot.assign(nr, -1);
  step_.link_poses.resize(nr);
  last_.robot_efforts.resize(nr);
  inputs_.applied_tau.resize(nr);
  step_.robot_M.resize(nr);
  step_.robot_momentum.resize(nr);
  step_.robot_previous_v.resize(nr);
  layout_.actuation_of_robot.assign(nr, -1);
  layout_.joints_of_robot.assign(nr, {});
  inputs_.joint_torque.resize(nr);
  inputs_.controls.resize(nr);
  inputs_.link_wrenches.assign(nr, {});
  inputs_.actuation_override.resize(nr);
  limits_.over_velocity_since.assign(nr, {});
  limits_.velocity_warned.assign(nr, {});
  limits_.effort_warned.assign(nr, {});
  step_.step_link_poses.resize(nr);
  int guess_size = static_cast<int>(step_.guess.size());
  for (int r = 0; r < nr; ++r) {
    const RobotSpec& spec = scene_.robots[r];
    const MultibodyTree& tree = spec.description.tree;
    RobotState& st = step_.robot_state[r];
    st.q = RobotInitialPositions(spec);
    st.v = RobotInitialVelocities(spec);
    step_.robot_M[r].resize(0, 0);
    CalcMassMatrix(tree, st.q, &step_.robot_M[r]);
    if (tree.num_velocities() > 0 &&
        Eigen::LLT<Eigen::MatrixXd>(step_.robot_M[r]).info() !=
            Eigen::Success) {
      throw std::invalid_argument(
          "robots." + spec.name +
          ": the mass matrix at the initial state is "
          "not positive definite: a link that moves has no mass or "
          "rotational inertia (URDF <inertial>)");
    }
    step_.robot_momentum[r] = step_.robot_M[r] * st.v;
    step_.robot_previous_v[r] = st.v;
    last_.robot_efforts[r] = Eigen::VectorXd::Zero(spec.actuation.size());
    inputs_.joint_torque[r] = Eigen::VectorXd::Zero(tree.num_velocities());
    inputs_.controls[r] =
        Eigen::VectorXd::Zero(spec.description.actuators.size());
    inputs_.actuation_override[r].assign(spec.actuation.size(), {});
    for (int j = 0; j < tree.num_links(); ++j) {
      const JointType type = tree.joint(j).type;
      if (type == JointType::kRevolute || type == JointType::kPrismatic) {
        layout_.joints_of_robot[r].push_back(j);
      }
    }
    limits_.over_velocity_since[r].assign(layout_.joints_of_robot[r].size(),
                                          -1);
    limits_.velocity_warned[r].assign(layout_.joints_of_robot[r].size(), 0);
    limits_.effort_warned[r].assign(layout_.joints_of_robot[r].size(), 0);
    if (tree.num_velocities() > 0) {
      layout_.tree_of_robot[r] = static_cast<int>(last_.problem.trees.size());
      Tree t;
      t.A = Eigen::MatrixXd::Zero(tree.num_velocities(), tree.num_velocities());
      t.v_star = Eigen::VectorXd::Zero(tree.num_velocities());
      t.name = spec.name;
      last_.problem.trees.push_back(std::move(t));
      guess_size += tree.num_velocities();
    }
    for (size_t g = 0; g < spec.description.geometries.size(); ++g) {
      const RobotGeometry& geometry = spec.description.geometries[g];
      layout_.collider_robot.push_back(r);
      layout_.collider_link.push_back(geometry.link);
      layout_.collider_geometry.push_back(static_cast<int>(g));
      layout_.collider_name.push_back(spec.name + "/" + geometry.name);
    }
    CalcLinkPoses(tree, st.q, &step_.link_poses[r]);
    step_.step_link_poses[r] = step_.link_poses[r];
  }
  layout_.robot_of_tree.assign(last_.problem.trees.size(), -1);
  for (int r = 0; r < nr; ++r) {
    if (layout_.tree_of_robot[r] >= 0)
      layout_.robot_of_tree[layout_.tree_of_robot[r]] = r;
  }
  step_.guess.resize(guess_size);
}

void TimeStepper::SetRobotState(int r, const RobotState& state) {
  if (r < 0 || r >= static_cast<int>(step_.robot_state.size())) {
    throw std::invalid_argument("TimeStepper::SetRobotState: no robot " +
                                std::to_string(r));
  }
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  if (state.q.size() != tree.num_positions() ||
      state.v.size() != tree.num_velocities()) {
    throw std::invalid_argument(
        "TimeStepper::SetRobotState: robot '" + scene_.robots[r].name +
        "' has " + std::to_string(tree.num_positions()) + " positions and " +
        std::to_string(tree.num_velocities()) + " velocities");
  }
  step_.robot_state[r] = state;
  CalcLinkPoses(tree, state.q, &step_.link_poses[r]);
  CalcMassMatrix(tree, state.q, &step_.robot_M[r]);
  step_.robot_momentum[r] = step_.robot_M[r] * state.v;
  step_.robot_previous_v[r] = state.v;
  warm_start_.have_previous_guess = false;
}

std::vector<Eigen::Isometry3d> TimeStepper::LinkPoses(int r) const {
  return step_.link_poses.at(r);
}

Eigen::VectorXd TimeStepper::RobotVelocityForces(int r,
                                                 const Eigen::VectorXd& v) {
  Eigen::VectorXd k;
  // step_.link_poses[r] holds the link poses at the robot's q.
  CalcMassRateForces(scene_.robots[r].description.tree, step_.link_poses[r], v,
                     &k);
  return k;
}

void TimeStepper::AddMotorForces(int r, Eigen::VectorXd* tau) const {
  const RobotDescription& d = scene_.robots[r].description;
  for (size_t k = 0; k < d.actuators.size(); ++k) {
    const RobotActuator& a = d.actuators[k];
    if (a.kind != ActuatorKind::kMotor) continue;  // servos: PD rows
    const double u =
        std::clamp(inputs_.controls[r][k], a.ctrl_lower, a.ctrl_upper);
    (*tau)[d.tree.velocity_start(a.joint)] +=
        a.gear * std::clamp(u, a.force_lower, a.force_upper);
  }
}

void TimeStepper::AddRobotProblem(int r) {
  const RobotSpec& spec = scene_.robots[r];
  const MultibodyTree& mb = spec.description.tree;
  const RobotState& st = step_.robot_state[r];
  const int t = layout_.tree_of_robot[r];
  if (t < 0) return;
  const double dt = scene_.time_step;
  const double t_end = step_.time + dt;
  const int n = mb.num_velocities();
  // A = M + dt D, v* = A^-1 (M v + dt (tau_ext + tau_spring - c)); M
  // includes the joints' armature.
  // The discrete Euler-Lagrange step of the Lagrangian with M at the start
  // of the step (docs/theory.md §17): with the momentum p_k = M(q_(k-1)) v_k
  // carried from the last step,
  //   (M(q_k) + dt D) v* = p_k + dt (tau_ext - g(q_k) + k(q_k, v*)),
  //   k(q, v) = Mdot(q, v) v - c_C(q, v) (= 1/2 d(v' M(q) v)/dq without
  // floating joints), c_C the Coriolis and centrifugal forces and g the
  // gravity load (CalcMassRateForces: one pass over the links). A
  // variational integrator: unlike v* = v + dt M^-1 (tau - c(q, v)) it does
  // not drift in energy when M depends on q.
  Eigen::MatrixXd& M = step_.robot_M[r];
  CalcMassMatrix(mb, st.q, &M);
  CalcBiasForces(mb, st.q, Eigen::VectorXd::Zero(n), scene_.gravity,
                 &scratch_.bias);
  scratch_.tau = -scratch_.bias;
  if (mb.HasSprings()) {  // joint springs, explicit (MuJoCo's Euler too)
    CalcSpringForces(mb, st.q, &scratch_.spring);
    scratch_.tau += scratch_.spring;
  }
  for (const ExternalForce& f : scene_.external_forces) {
    if (f.robot != r) continue;
    const Eigen::Vector3d p = step_.link_poses[r][f.link] * f.point;
    CalcFrameJacobian(mb, step_.link_poses[r], f.link, p, &scratch_.frame_J);
    Eigen::Matrix<double, 6, 1> wrench;
    wrench << f.force.Value(t_end), f.torque.Value(t_end);
    scratch_.tau.noalias() += scratch_.frame_J.transpose() * wrench;
  }
  if (inputs_.applied_tau[r].size() == n)
    scratch_.tau += inputs_.applied_tau[r];
  scratch_.tau += inputs_.joint_torque[r];
  AddMotorForces(r, &scratch_.tau);
  // ApplyWrench on links: J' (f, tau) at the point (scratch_.frame_J is kept:
  // no allocation per step).
  for (const LinkWrench& w : inputs_.link_wrenches[r]) {
    const Eigen::Isometry3d& X_WL = step_.link_poses[r][w.link];
    const Eigen::Vector3d p = X_WL * w.point;
    CalcFrameJacobian(mb, step_.link_poses[r], w.link, p, &scratch_.frame_J);
    Eigen::Matrix<double, 6, 1> wrench;
    if (w.frame == WrenchFrame::kBody) {
      wrench << X_WL.linear() * w.force, X_WL.linear() * w.torque;
    } else {
      wrench << w.force, w.torque;
    }
    scratch_.tau.noalias() += scratch_.frame_J.transpose() * wrench;
  }
  Tree& tree = last_.problem.trees[t];
  tree.A = M;
  tree.A.diagonal() += dt * mb.DampingVector();
  const Eigen::LLT<Eigen::MatrixXd> llt(tree.A);
  if (llt.info() != Eigen::Success) {
    const std::string diverged = DivergenceNote(r);
    Fail("robot '" + spec.name + "': the mass matrix is not positive definite" +
         (diverged.empty() ? " (a moving link without mass or inertia?)"
                           : diverged));
  }
  if (scene_.integrator.robots == RobotIntegrator::kEuler) {
    // MuJoCo's Euler: A v* = M(q_k) v_k + dt (tau - g(q_k) - C(q_k, v_k)).
    CalcBiasForces(mb, st.q, st.v, Eigen::Vector3d::Zero(), &scratch_.coriolis);
    scratch_.tau -= scratch_.coriolis;
    scratch_.coriolis.noalias() = M * st.v;
    tree.v_star = llt.solve(scratch_.coriolis + dt * scratch_.tau);
  } else {
    tree.v_star = llt.solve(
        step_.robot_momentum[r] +
        dt * (scratch_.tau +
              RobotVelocityForces(r, 2.0 * st.v - step_.robot_previous_v[r])));
  }
  // The tree's offset in the stacked velocities (bodies' trees first).
  int offset = 6 * static_cast<int>(layout_.body_of_tree.size());
  for (int q = 0; q < r; ++q) {
    if (layout_.tree_of_robot[q] >= 0) {
      offset += scene_.robots[q].description.tree.num_velocities();
    }
  }
  step_.guess.segment(offset, n) = st.v;

  auto unit_row = [&](int i, double sign) {
    ConstraintJacobianBlock b;
    b.tree = t;
    b.J = Eigen::MatrixXd::Zero(1, n);
    b.J(0, i) = sign;
    return b;
  };
  // Joint limits near the current position (docs/theory.md §17): a limit
  // enters when it is within the distance the joint could travel this step
  // (Drake's window 2 dt max(|v|, |v*|)) plus 1 mm (or mrad).
  if (spec.joint_limits) {
    for (int j = 0; j < mb.num_links(); ++j) {
      const Joint& joint = mb.joint(j);
      if (joint.type != JointType::kRevolute &&
          joint.type != JointType::kPrismatic) {
        continue;
      }
      const int i = mb.velocity_start(j);
      const double q = st.q(mb.position_start(j));
      const double window =
          2.0 * dt * std::max(std::abs(st.v(i)), std::abs(tree.v_star(i))) +
          1e-3;
      for (int side = 0; side < 2; ++side) {
        const double bound = side == 0 ? joint.lower : joint.upper;
        if (!std::isfinite(bound)) continue;
        const double gap = side == 0 ? q - bound : bound - q;
        if (gap > window) continue;
        LimitConstraint lim;
        lim.first = unit_row(i, side == 0 ? 1.0 : -1.0);
        lim.g0 = Eigen::VectorXd::Constant(1, gap);
        if (joint.limit_time_constant > 0.0) {
          // Compliant: critically damped for the joint's effective inertia
          // m = 1 / (A^-1)_ii, k = m / tau^2 and tau_d = 2 tau (docs/
          // robots.md, "Limits").
          scratch_.column.setZero(n);
          scratch_.column[i] = 1.0;
          llt.solveInPlace(scratch_.column);
          const double tau = joint.limit_time_constant;
          lim.stiffness = 1.0 / (scratch_.column[i] * tau * tau);
          lim.dissipation_time_scale = 2.0 * tau;
        }
        lim.name = spec.name + "/" + joint.name +
                   (side == 0 ? " lower limit" : " upper limit");
        last_.problem.limits.push_back(std::move(lim));
      }
    }
  }
  // URDF mimic couplings: q_f - m q_l - offset = 0, near-rigid.
  for (const JointCoupling& c : spec.description.couplings) {
    HolonomicConstraint h;
    h.first = unit_row(mb.velocity_start(c.follower), 1.0);
    h.first.J(0, mb.velocity_start(c.leader)) -= c.multiplier;
    h.g0 = Eigen::VectorXd::Constant(
        1, st.q(mb.position_start(c.follower)) -
               c.multiplier * st.q(mb.position_start(c.leader)) - c.offset);
    h.name = spec.name + "/" + mb.joint(c.follower).name + " mimic";
    last_.problem.holonomic.push_back(std::move(h));
  }
  // Joint dry friction: the joint's velocity held at zero by an impulse of
  // at most dt times its friction loss (MuJoCo's frictionloss row).
  for (int j = 0; j < mb.num_links(); ++j) {
    const double f = mb.joint(j).friction_loss;
    if (!(f > 0.0)) continue;
    HolonomicConstraint h;
    h.first = unit_row(mb.velocity_start(j), 1.0);
    h.g0 = Eigen::VectorXd::Zero(1);
    h.impulse_lower = Eigen::VectorXd::Constant(1, -dt * f);
    h.impulse_upper = Eigen::VectorXd::Constant(1, dt * f);
    h.name = spec.name + "/" + mb.joint(j).name + " friction";
    last_.problem.holonomic.push_back(std::move(h));
  }
  // Fixed tendons' ranges (MJCF): L = c' q within [lower, upper], entered
  // like joint limits when within reach of this step.
  if (spec.joint_limits) {
    for (const TendonLimit& tl : spec.description.tendon_limits) {
      ConstraintJacobianBlock row;
      row.tree = t;
      row.J = Eigen::MatrixXd::Zero(1, n);
      double L = 0.0;
      for (size_t k = 0; k < tl.joints.size(); ++k) {
        const int j = tl.joints[k];
        row.J(0, mb.velocity_start(j)) += tl.coefficients[k];
        L += tl.coefficients[k] * st.q(mb.position_start(j));
      }
      const double rate = (row.J * st.v)(0),
                   rate_star = (row.J * tree.v_star)(0);
      const double window =
          2.0 * dt * std::max(std::abs(rate), std::abs(rate_star)) + 1e-3;
      for (int side = 0; side < 2; ++side) {
        const double gap = side == 0 ? L - tl.lower : tl.upper - L;
        if (gap > window) continue;
        LimitConstraint lim;
        lim.first = row;
        if (side == 1) lim.first.J = -row.J;
        lim.g0 = Eigen::VectorXd::Constant(1, gap);
        lim.name = spec.name + "/tendon " + tl.name +
                   (side == 0 ? " lower limit" : " upper limit");
        last_.problem.limits.push_back(std::move(lim));
      }
    }
  }
  // Links held at world poses (MJCF weld and connect to static bodies).
  for (const LinkWeld& w : spec.description.welds) {
    WeldFrame held, frame;
    held.pose = w.X_WT;
    frame.pose = step_.link_poses[r][w.link] * w.X_LF;
    frame.tree = t;
    CalcFrameJacobian(mb, step_.link_poses[r], w.link, frame.pose.translation(),
                      &frame.J);
    HolonomicConstraint h =
        MakeWeldConstraint(held, frame, spec.name + "/" + w.name);
    // Only the rows the robot can move: a row its joints cannot change
    // (a hinge's tip along the hinge axis) has no impulse to give.
    const int rows = w.orientation ? 6 : 3;
    const double scale = h.first.J.topRows(rows).rowwise().norm().maxCoeff();
    int kept = 0;
    for (int i = 0; i < rows; ++i) {
      if (h.first.J.row(i).norm() <= 1e-9 * scale) continue;
      h.first.J.row(kept) = h.first.J.row(i);
      h.g0(kept) = h.g0(i);
      ++kept;
    }
    if (kept == 0) continue;
    h.g0.conservativeResize(kept);
    h.first.J.conservativeResize(kept, Eigen::NoChange);
    last_.problem.holonomic.push_back(std::move(h));
  }
  // Implicit PD actuation, one row per actuated joint.
  layout_.actuation_of_robot[r] = -1;
  const int m = static_cast<int>(spec.actuation.size());
  if (m == 0) return;
  ActuationConstraint a;
  a.name = spec.name;
  a.first.tree = t;
  a.first.J = Eigen::MatrixXd::Zero(m, n);
  a.position.resize(m);
  a.target.resize(m);
  a.target_velocity.resize(m);
  a.feedforward.resize(m);
  a.kp.resize(m);
  a.kd.resize(m);
  a.effort_limit.resize(m);
  for (int k = 0; k < m; ++k) {
    const JointActuation& act = spec.actuation[k];
    a.first.J(k, mb.velocity_start(act.joint)) = 1.0;
    a.position(k) = st.q(mb.position_start(act.joint));
    const ActuationOverride& o = inputs_.actuation_override[r][k];
    if (o.active) {  // SetActuationTarget
      a.target(k) = o.position;
      a.target_velocity(k) = o.velocity;
      a.feedforward(k) = o.feedforward;
    } else if (act.servo >= 0) {  // SetControls: an MJCF servo
      const RobotActuator& s = spec.description.actuators[act.servo];
      const double u = std::clamp(inputs_.controls[r][act.servo], s.ctrl_lower,
                                  s.ctrl_upper) /
                       s.gear;
      const bool position = s.kind == ActuatorKind::kPosition;
      a.target(k) = position ? u : a.position(k);
      a.target_velocity(k) = position ? 0.0 : u;
      a.feedforward(k) = 0.0;
    } else {
      a.target(k) = act.target.ScalarValue(t_end);
      a.target_velocity(k) = act.target_velocity.ScalarValue(t_end);
      a.feedforward(k) = act.feedforward.ScalarValue(t_end);
    }
    a.kp(k) = act.kp;
    a.kd(k) = act.kd;
    a.effort_limit(k) = act.effort_limit;
  }
  layout_.actuation_of_robot[r] =
      static_cast<int>(last_.problem.actuation.size());
  last_.problem.actuation.push_back(std::move(a));
}

void TimeStepper::SetAppliedGeneralizedForces(int r,
                                              const Eigen::VectorXd& tau) {
  if (r < 0 || r >= static_cast<int>(step_.robot_state.size())) {
    throw std::invalid_argument(
        "TimeStepper::SetAppliedGeneralizedForces: no robot " +
        std::to_string(r));
  }
  const int n = scene_.robots[r].description.tree.num_velocities();
  if (tau.size() != n || !tau.allFinite()) {
    throw std::invalid_argument(
        "TimeStepper::SetAppliedGeneralizedForces: robot '" +
        scene_.robots[r].name + "' needs " + std::to_string(n) +
        " finite generalized forces, got " + std::to_string(tau.size()));
  }
  inputs_.applied_tau[r] = tau;
}

void TimeStepper::UpdateRobotColliderPoses() {
  const double dt = scene_.time_step;
  // Link poses at the start of the step, for ContactWrench (same sizes
  // every step: no allocation).
  for (size_t r = 0; r < step_.link_poses.size(); ++r) {
    step_.step_link_poses[r] = step_.link_poses[r];
  }
  // Robot link geometries: poses from the link poses, motion bounds from
  // the link velocities.
  for (int c = static_cast<int>(step_.state.size()); c < num_colliders(); ++c) {
    const int r = layout_.collider_robot[c];
    const RobotGeometry& geometry =
        scene_.robots[r].description.geometries[layout_.collider_geometry[c]];
    const Eigen::Isometry3d& X_WL = step_.link_poses[r][geometry.link];
    Pose& pose = last_.poses[c];
    pose.position = X_WL * geometry.pose_in_link.position;
    pose.orientation =
        Eigen::Quaterniond(X_WL.linear()) * geometry.pose_in_link.orientation;
    if (c == static_cast<int>(step_.state.size()) ||
        layout_.collider_robot[c - 1] != r) {
      CalcLinkVelocities(scene_.robots[r].description.tree,
                         step_.robot_state[r].q, step_.robot_state[r].v,
                         &scratch_.link_velocities);
    }
    const Eigen::Matrix<double, 6, 1>& V =
        scratch_.link_velocities[geometry.link];
    const Vector3 w = V.tail<3>();
    const Vector3 v = V.head<3>() + w.cross(pose.position - X_WL.translation());
    last_.motion_bounds[c] =
        MotionBound(geometry.shape, v, w, dt) + dt * dt * scene_.gravity.norm();
  }
}

void TimeStepper::IntegrateRobots(const StepInfo& info) {
  const double dt = scene_.time_step;
  const Eigen::VectorXd& v_next = last_.v_next;
  int offset = 6 * static_cast<int>(layout_.body_of_tree.size());
  for (int r = 0; r < static_cast<int>(step_.robot_state.size()); ++r) {
    const int t = layout_.tree_of_robot[r];
    if (t < 0) continue;
    const MultibodyTree& mb = scene_.robots[r].description.tree;
    RobotState& st = step_.robot_state[r];
    const int n = mb.num_velocities();
    step_.robot_previous_v[r] = st.v;
    st.v = v_next.segment(offset, n);
    offset += n;
    step_.robot_momentum[r].noalias() = step_.robot_M[r] * st.v;  // p_(k+1)
    if (!st.v.allFinite()) {
      Fail("robot '" + scene_.robots[r].name +
           "': velocity is not finite after the contact solve" +
           (info.failed ? " (" + info.failure + ")" : "") + DivergenceNote(r));
    }
    CheckJointLimits(r);
    Eigen::VectorXd q_next;
    IntegratePositions(mb, st.q, st.v, dt, &q_next);
    st.q = q_next;
    CalcLinkPoses(mb, st.q, &step_.link_poses[r]);
    const int a = layout_.actuation_of_robot[r];
    if (a >= 0 && scene_.solver.model == SolverModel::kSap) {
      int row = 0;
      for (size_t k = 0; k < last_.problem.limits.size(); ++k) {
        row += static_cast<int>(last_.problem.limits[k].g0.size());
      }
      for (size_t k = 0; k < last_.problem.holonomic.size(); ++k) {
        row += static_cast<int>(last_.problem.holonomic[k].g0.size());
      }
      for (int k = 0; k < a; ++k) {
        row += static_cast<int>(last_.problem.actuation[k].position.size());
      }
      last_.robot_efforts[r] = last_.sap_results.constraint_impulses.segment(
                                   row, last_.robot_efforts[r].size()) /
                               dt;
    }
  }
}

void TimeStepper::CheckJointLimits(int r) {
  const RobotSpec& spec = scene_.robots[r];
  const MultibodyTree& tree = spec.description.tree;
  const RobotState& st = step_.robot_state[r];
  const std::vector<int>& joints = layout_.joints_of_robot[r];
  scratch_.motor.setZero(tree.num_velocities());
  AddMotorForces(r, &scratch_.motor);
  for (size_t i = 0; i < joints.size(); ++i) {
    const Joint& joint = tree.joint(joints[i]);
    const int dof = tree.velocity_start(joints[i]);
    const double v = st.v(dof);
    const bool revolute = joint.type == JointType::kRevolute;
    if (!(std::abs(v) <= joint.velocity_limit)) {
      if (limits_.over_velocity_since[r][i] < 0)
        limits_.over_velocity_since[r][i] = step_.steps + 1;
      if (!limits_.velocity_warned[r][i]) {
        limits_.velocity_warned[r][i] = 1;
        char text[512];
        std::snprintf(text, sizeof(text),
                      "robot '%s': joint '%s' reached %.4g %s at step %d (t "
                      "= %.6g s), past its URDF velocity limit of %.4g %s "
                      "(not enforced: docs/robots.md, Limits)",
                      spec.name.c_str(), joint.name.c_str(), v,
                      revolute ? "rad/s" : "m/s", step_.steps + 1,
                      step_.time + scene_.time_step, joint.velocity_limit,
                      revolute ? "rad/s" : "m/s");
        scene_.warnings.push_back(text);
      }
    } else {
      limits_.over_velocity_since[r][i] = -1;
    }
    double explicit_effort = inputs_.joint_torque[r](dof) + scratch_.motor(dof);
    if (inputs_.applied_tau[r].size() == tree.num_velocities()) {
      explicit_effort += inputs_.applied_tau[r](dof);
    }
    if (!(std::abs(explicit_effort) <= joint.effort_limit) &&
        !limits_.effort_warned[r][i]) {
      limits_.effort_warned[r][i] = 1;
      char text[512];
      std::snprintf(text, sizeof(text),
                    "robot '%s': joint '%s' received an explicit %s of %.4g "
                    "%s at step %d, past its URDF effort limit of %.4g %s "
                    "(applied as given; the PD actuation's efforts are "
                    "clamped: docs/robots.md, Limits)",
                    spec.name.c_str(), joint.name.c_str(),
                    revolute ? "torque" : "force", explicit_effort,
                    revolute ? "N m" : "N", step_.steps + 1, joint.effort_limit,
                    revolute ? "N m" : "N");
      scene_.warnings.push_back(text);
    }
  }
}

std::string TimeStepper::DivergenceNote(int r) const {
  const RobotSpec& spec = scene_.robots[r];
  const MultibodyTree& tree = spec.description.tree;
  int first = -1;
  for (size_t i = 0; i < limits_.over_velocity_since[r].size(); ++i) {
    const int since = limits_.over_velocity_since[r][i];
    if (since >= 0 &&
        (first < 0 || since < limits_.over_velocity_since[r][first])) {
      first = static_cast<int>(i);
    }
  }
  if (first < 0) return "";
  const int j = layout_.joints_of_robot[r][first];
  const Joint& joint = tree.joint(j);
  const bool revolute = joint.type == JointType::kRevolute;
  char text[512];
  std::snprintf(text, sizeof(text),
                " (robot '%s' diverged: joint '%s' has been past its URDF "
                "velocity limit of %.4g %s since step %d, now at %.4g %s; an "
                "explicit controller with too high gains? docs/robots.md, "
                "Actuation at run time)",
                spec.name.c_str(), joint.name.c_str(), joint.velocity_limit,
                revolute ? "rad/s" : "m/s",
                limits_.over_velocity_since[r][first],
                step_.robot_state[r].v(tree.velocity_start(j)),
                revolute ? "rad/s" : "m/s");
  return text;
}

}  // namespace sapcontact
