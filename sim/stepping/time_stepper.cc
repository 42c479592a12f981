#include "sapcontact/sim/stepping/time_stepper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "sapcontact/geometry/pose.h"
#include "sapcontact/parallel/thread_pool.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

// World-frame inertia R I_body R'.
Matrix3 WorldInertia(const Body& body, const Pose& pose) {
  const Matrix3 R = pose.rotation();
  return R * body.inertia * R.transpose();
}

// J (3 x 6) of the point at r (from the centre of mass, world frame) of a
// free body, rows in the contact frame, times `sign`: the velocity of the
// world point at offset r, v + w x r = v - [r]x w, in the contact frame whose
// rows are (n, t1, t2). Written in place (no allocation once J has its size)
// through a fixed-size 3 x 6 view: the same operations as on J's dynamic
// blocks (bitwise), unrolled.
void SetPointJacobian(const Matrix3& frame_rows, const Vector3& r, double sign,
                      Eigen::MatrixXd* J) {
  J->resize(3, 6);
  Eigen::Map<Eigen::Matrix<double, 3, 6>> J36(J->data());
  J36.leftCols<3>() = sign * frame_rows;
  J36.rightCols<3>() = -sign * frame_rows * CrossMatrix(r);
}

// Torque-free angular velocity after dt: the explicit gyroscopic step
// w - dt I^-1 (w x I w) (I the world inertia at the start of the step),
// rescaled to the kinetic energy 1/2 w'Iw it started with. The explicit step
// alone adds 1/2 dt^2 |I^-1 (w x I w)|_I^2 > 0 to the energy every step (its
// first-order change w . (w x I w) vanishes), so a body tumbling freely
// about a non-principal axis would gain energy without bound; torque-free
// motion conserves it exactly, and the rotation of I during the position
// update leaves 1/2 w'Iw unchanged. The rescaling is 1 + O(dt^2).
Vector3 FreeRotation(const Matrix3& I, const Vector3& w, double dt) {
  const Vector3 Iw = I * w;
  const Vector3 gyro = w.cross(Iw);
  if (gyro.squaredNorm() == 0.0) return w;  // principal axis or at rest
  const Vector3 w_next = w - dt * I.ldlt().solve(gyro);
  const double e0 = w.dot(Iw), e1 = w_next.dot(I * w_next);
  return e1 > 0.0 ? Vector3(w_next * std::sqrt(e0 / e1)) : w_next;
}

}  // namespace

double EstimateRigidQpBytes(const std::vector<ContactPoint>& contacts,
                            int num_bodies, const std::vector<bool>& fixed) {
  std::vector<double> per_body(num_bodies, 0.0);
  for (const ContactPoint& c : contacts) {
    for (int b : {c.body_a, c.body_b}) {
      if (b >= 0 && b < num_bodies && !fixed[b]) per_body[b] += 1.0;
    }
  }
  double nnz = 0.0;
  for (double c : per_body) nnz += 9.0 * c * c;
  const double n = 3.0 * static_cast<double>(contacts.size());
  nnz = std::min(nnz, n * n);
  // Beyond 5% nonzeros CHOLMOD's factor of the QP is nearly full too.
  const bool dense = n < 300 || nnz > 0.05 * n * n;
  return dense ? 4.0 * 8.0 * n * n : 10.0 * 8.0 * nnz;
}

SapSolverParameters MakeSapParameters(const SolverSettings& s) {
  SapSolverParameters p;
  p.regularization.near_rigid_threshold = s.near_rigid_threshold;
  p.regularization.friction_regularization = s.friction_regularization;
  p.rel_tolerance = s.rel_tolerance;
  p.abs_tolerance = s.abs_tolerance;
  p.max_iterations = s.max_iterations;
  p.line_search = s.line_search == LineSearchMethod::kExact
                      ? LineSearchType::kExact
                      : LineSearchType::kBacktracking;
  p.stiction_prediction = s.stiction_prediction;
  p.exclude_separated_contacts = s.exclude_separated_contacts;
  p.warm_start_at_rest = s.warm_start_at_rest;
  p.regularization.supported_delassus_estimate = s.supported_delassus_estimate;
  p.line_search_slope_ratio = s.line_search_slope_ratio;
  p.factor_reuse_rate = s.factor_reuse_rate;
  p.threads = s.threads;
  switch (s.linear_solver) {
    case LinearSolverKind::kAuto:
      p.linear_solver = LinearSolverType::kAuto;
      break;
    case LinearSolverKind::kDense:
      p.linear_solver = LinearSolverType::kDense;
      break;
    case LinearSolverKind::kCholmod:
      p.linear_solver = LinearSolverType::kCholmod;
      break;
    case LinearSolverKind::kBlockSparse:
      p.linear_solver = LinearSolverType::kBlockSparse;
      break;
  }
  return p;
}

namespace {
const Scene& Validated(const Scene& scene) {
  ValidateScene(scene);
  return scene;
}
}  // namespace

TimeStepper::TimeStepper(const Scene& scene)
    : scene_(Validated(scene)),
      collision_(MakeCollisionDetector(scene)),
      sap_(MakeSapParameters(scene.solver)) {
  // Links that overlap at the start and may collide (after the scene's
  // own warnings; sapsim run adds them to the scene before the run).
  for (std::string& w : SelfCollisionOverlapWarnings(scene_)) {
    if (std::find(scene_.warnings.begin(), scene_.warnings.end(), w) ==
        scene_.warnings.end()) {
      scene_.warnings.push_back(std::move(w));
    }
  }
  const int nb = static_cast<int>(scene_.bodies.size());
  step_.state.resize(nb);
  inputs_.applied_force.assign(nb, Vector3::Zero());
  inputs_.applied_torque.assign(nb, Vector3::Zero());
  inputs_.applied_point.assign(nb, Vector3::Zero());
  inputs_.applied_frame.assign(nb, WrenchFrame::kWorld);
  const int nm = static_cast<int>(scene_.materials.size());
  layout_.pair_parameters.resize(static_cast<size_t>(nm) * nm);
  for (int a = 0; a < nm; ++a) {
    for (int b = 0; b < nm; ++b) {
      layout_.pair_parameters[a * nm + b] = scene_.MaterialPairParameters(a, b);
    }
  }
  layout_.tree_of_body.assign(nb, -1);
  for (int b = 0; b < nb; ++b) {
    const Body& body = scene_.bodies[b];
    step_.state[b].pose = body.pose;
    step_.state[b].velocity = body.velocity;
    step_.state[b].angular_velocity = body.angular_velocity;
    if (!body.fixed) {
      layout_.tree_of_body[b] = static_cast<int>(layout_.body_of_tree.size());
      layout_.body_of_tree.push_back(b);
    }
  }
  last_.problem.time_step = scene_.time_step;
  last_.problem.trees.resize(layout_.body_of_tree.size());
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    last_.problem.trees[t].A = Eigen::MatrixXd::Zero(6, 6);
    last_.problem.trees[t].v_star.resize(6);
    last_.problem.trees[t].name = scene_.bodies[layout_.body_of_tree[t]].name;
  }
  step_.guess.resize(6 * layout_.body_of_tree.size());
  layout_.free_bodies = layout_.body_of_tree;
  sleep_.still_time.assign(nb, 0.0);
  sleep_.sleep_island.assign(nb, -1);
  sleep_.bounding_radius.resize(nb);
  for (int b = 0; b < nb; ++b) {
    sleep_.bounding_radius[b] = scene_.bodies[b].shape.type == ShapeType::kPlane
                                    ? 0.0
                                    : BoundingRadius(scene_.bodies[b].shape);
  }
  SetUpRobots();
  layout_.tree_offsets = last_.problem.TreeOffsets();
  last_.poses.resize(num_colliders());
  last_.motion_bounds.resize(num_colliders());
}

int TimeStepper::MaterialOfCollider(int c) const {
  const int nb = static_cast<int>(scene_.bodies.size());
  if (c < nb) return scene_.bodies[c].material_index;
  const RobotSpec& robot = scene_.robots[layout_.collider_robot[c]];
  if (!robot.geometry_material_index.empty()) {
    const int m = robot.geometry_material_index[layout_.collider_geometry[c]];
    if (m >= 0) return m;
  }
  return robot.material_index;
}

Vector3 TimeStepper::WorldPointVelocity(int c, const Vector3& p,
                                        const Vector3& n) const {
  const int nb = static_cast<int>(scene_.bodies.size());
  if (c >= nb || !scene_.bodies[c].prescribed) return Vector3::Zero();
  const Body& body = scene_.bodies[c];
  const BodyState& s = step_.state[c];
  const double t = step_.time + scene_.time_step;  // velocities over the step
  Vector3 v = s.velocity + s.angular_velocity.cross(p - s.pose.position);
  const Vector3 surface = body.motion.surface_velocity.Value(t);
  v += surface - surface.dot(n) * n;  // its tangential part only
  return v;
}

bool TimeStepper::ColliderJacobian(int c, const Matrix3& rows, const Vector3& p,
                                   double sign, int* tree, Eigen::MatrixXd* J) {
  const int nb = static_cast<int>(scene_.bodies.size());
  if (c < nb) {
    *tree = layout_.tree_of_body[c];
    if (*tree < 0) return false;
    SetPointJacobian(rows, p - step_.state[c].pose.position, sign, J);
    return true;
  }
  const int r = layout_.collider_robot[c];
  *tree = layout_.tree_of_robot[r];
  if (*tree < 0) return false;
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  // Per-thread scratch: contacts are built on the solver's threads.
  thread_local Eigen::MatrixXd point_J;
  CalcPointJacobian(mb, step_.link_poses[r], layout_.collider_link[c], p,
                    &point_J);
  J->noalias() = sign * rows * point_J;
  return true;
}

double TimeStepper::KineticEnergy() const {
  double e = 0.0;
  for (size_t b = 0; b < step_.state.size(); ++b) {
    const Body& body = scene_.bodies[b];
    if (body.fixed) continue;
    const BodyState& s = step_.state[b];
    e += 0.5 * body.mass * s.velocity.squaredNorm() +
         0.5 * s.angular_velocity.dot(WorldInertia(body, s.pose) *
                                      s.angular_velocity);
  }
  for (size_t r = 0; r < step_.robot_state.size(); ++r) {
    e += CalcKineticEnergy(scene_.robots[r].description.tree,
                           step_.robot_state[r].q, step_.robot_state[r].v);
  }
  return e;
}

double TimeStepper::PotentialEnergy() const {
  double e = 0.0;
  for (size_t b = 0; b < step_.state.size(); ++b) {
    const Body& body = scene_.bodies[b];
    if (body.fixed) continue;
    e -= body.mass * scene_.gravity.dot(step_.state[b].pose.position);
  }
  for (size_t r = 0; r < step_.robot_state.size(); ++r) {
    e += CalcPotentialEnergy(scene_.robots[r].description.tree,
                             step_.robot_state[r].q, scene_.gravity);
  }
  return e;
}

Eigen::VectorXd TimeStepper::FreeVelocityRate(
    int i, double h, const std::vector<Eigen::MatrixXd>& M_prev,
    const Eigen::LLT<Eigen::MatrixXd>& A_llt) {
  const double dt = scene_.time_step;
  int t = static_cast<int>(layout_.tree_offsets.size()) - 1;
  while (layout_.tree_offsets[t] > i) --t;
  const int j = i - layout_.tree_offsets[t];
  if (t < static_cast<int>(layout_.body_of_tree.size())) {
    // v* = (v + dt (g + f / m), FreeRotation(I, w) + dt I^-1 tau): only
    // the gyroscopic step is not linear in v.
    Eigen::VectorXd rate = Eigen::VectorXd::Zero(6);
    if (j < 3) {
      rate(j) = 1.0;
      return rate;
    }
    const int b = layout_.body_of_tree[t];
    const Matrix3 I = WorldInertia(scene_.bodies[b], step_.state[b].pose);
    const Vector3 w = step_.state[b].angular_velocity;
    const Vector3 e = h * Vector3::Unit(j - 3);
    rate.tail<3>() =
        (FreeRotation(I, w + e, dt) - FreeRotation(I, w - e, dt)) / (2 * h);
    return rate;
  }
  // A v* = p + dt (tau + k(q, 2 v - v_prev)) with p = M_prev v carried
  // (AddRobotProblem): A and tau do not depend on v, k is quadratic in it
  // (its central difference is exact but for round-off), and q with it
  // the link poses stay.
  const int r = layout_.robot_of_tree[t];
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  Eigen::VectorXd v = 2.0 * step_.robot_state[r].v - step_.robot_previous_v[r];
  Eigen::VectorXd k_plus, k_minus;
  v(j) += 2 * h;
  CalcMassRateForces(mb, step_.link_poses[r], v, &k_plus);
  v(j) -= 4 * h;
  CalcMassRateForces(mb, step_.link_poses[r], v, &k_minus);
  return A_llt.solve(M_prev[r].col(j) + dt * (k_plus - k_minus) / (2 * h));
}

void TimeStepper::BuildProblem() {
  const double dt = scene_.time_step;
  // Trees: A = diag(m I, I_world), v* with gravity and gyroscopic terms.
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    const int b = layout_.body_of_tree[t];
    const Body& body = scene_.bodies[b];
    const BodyState& s = step_.state[b];
    const Matrix3 I = WorldInertia(body, s.pose);
    Tree& tree = last_.problem.trees[t];
    tree.A.topLeftCorner<3, 3>() = body.mass * Matrix3::Identity();
    tree.A.bottomRightCorner<3, 3>() = 0.5 * (I + I.transpose());
    tree.v_star.head<3>() = s.velocity + dt * scene_.gravity;
    tree.v_star.tail<3>() = FreeRotation(I, s.angular_velocity, dt);
    step_.guess.segment<3>(6 * t) = s.velocity;
    step_.guess.segment<3>(6 * t + 3) = s.angular_velocity;
  }
  // External forces on free bodies (explicit, evaluated at the step's end
  // time like the prescribed motions).
  const double t_end = step_.time + dt;
  for (const ExternalForce& f : scene_.external_forces) {
    if (f.body < 0 || layout_.tree_of_body[f.body] < 0) continue;
    const Body& body = scene_.bodies[f.body];
    const BodyState& s = step_.state[f.body];
    const Vector3 force = f.force.Value(t_end);
    const Vector3 r = s.pose.orientation * f.point;
    const Vector3 torque = f.torque.Value(t_end) + r.cross(force);
    Tree& tree = last_.problem.trees[layout_.tree_of_body[f.body]];
    tree.v_star.head<3>() += dt * force / body.mass;
    tree.v_star.tail<3>() +=
        dt * tree.A.bottomRightCorner<3, 3>().ldlt().solve(torque);
  }
  // Wrenches applied by the caller (SetAppliedWrench, ApplyWrench): force
  // at the point, torque about the centre of mass.
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    const int b = layout_.body_of_tree[t];
    if (b < 0) continue;
    if (inputs_.applied_force[b].isZero(0) &&
        inputs_.applied_torque[b].isZero(0))
      continue;
    const Eigen::Quaterniond& R = step_.state[b].pose.orientation;
    const bool body_axes = inputs_.applied_frame[b] == WrenchFrame::kBody;
    const Vector3 force =
        body_axes ? R * inputs_.applied_force[b] : inputs_.applied_force[b];
    Vector3 torque =
        body_axes ? R * inputs_.applied_torque[b] : inputs_.applied_torque[b];
    if (!inputs_.applied_point[b].isZero(0)) {
      torque += (R * inputs_.applied_point[b]).cross(force);
    }
    Tree& tree = last_.problem.trees[t];
    tree.v_star.head<3>() += dt * force / scene_.bodies[b].mass;
    tree.v_star.tail<3>() +=
        dt * tree.A.bottomRightCorner<3, 3>().ldlt().solve(torque);
  }
  last_.problem.limits.clear();
  last_.problem.holonomic.clear();
  last_.problem.actuation.clear();
  for (int r = 0; r < static_cast<int>(step_.robot_state.size()); ++r) {
    AddRobotProblem(r);
  }
  // Contacts: v_c = R (v_B + w_B x r_B - v_A - w_A x r_A).
  // Colliders are bodies (tree: 6-DOF point Jacobian) or robot link
  // geometries (the robot's point Jacobian); fixed and prescribed ones are
  // the world, whose point velocity enters as the contact's bias velocity.
  last_.problem.contacts.resize(last_.contacts.size());
  // Each contact is built on its own (on the solver's threads when it has
  // more than one: the same numbers whichever thread builds it).
  auto build_contact = [&](int k, int) {
    const ContactPoint& cp = last_.contacts[k];
    const Matrix3 rows = ContactFrameRows(cp.normal);
    Contact& c = last_.problem.contacts[k];
    // Blocks are overwritten in place: no allocation in steady state.
    int tree_a = -1, tree_b = -1;
    const bool moves_a = ColliderJacobian(cp.body_a, rows, cp.position, -1.0,
                                          &tree_a, &c.first.J);
    if (!c.second) c.second.emplace();
    Eigen::MatrixXd& J_b = moves_a ? c.second->J : c.first.J;
    const bool moves_b =
        ColliderJacobian(cp.body_b, rows, cp.position, 1.0, &tree_b, &J_b);
    if (moves_a && moves_b && tree_a != tree_b) {
      c.first.tree = tree_a;
      c.second->tree = tree_b;
    } else if (moves_a && moves_b) {  // two links of one robot
      c.first.tree = tree_a;
      c.first.J += c.second->J;
      c.second.reset();
    } else {
      c.first.tree = moves_a ? tree_a : tree_b;
      c.second.reset();
    }
    c.bias_velocity.setZero();
    if (!moves_a || !moves_b) {
      c.bias_velocity =
          rows * (WorldPointVelocity(cp.body_b, cp.position, cp.normal) -
                  WorldPointVelocity(cp.body_a, cp.position, cp.normal));
    }
    c.phi0 = cp.phi;
    // v_n at the start of the step (step_.guess holds the velocities at the
    // start of the step; the bias carries the prescribed motion), + when
    // separating, like v_c.
    c.normal_velocity0 =
        ContactVelocity(c, layout_.tree_offsets, step_.guess)(kNormal);
    c.parameters = layout_.pair_parameters[MaterialOfCollider(cp.body_a) *
                                               scene_.materials.size() +
                                           MaterialOfCollider(cp.body_b)];
  };
  const int nc = static_cast<int>(last_.contacts.size());
  ThreadPool* pool = sap_.thread_pool();
  if (pool != nullptr && pool->threads() > 1 && nc >= 256) {
    pool->ForEach(nc, build_contact, 16);
  } else {
    for (int k = 0; k < nc; ++k) build_contact(k, 0);
  }
}

void TimeStepper::SetAppliedWrench(int body, const Vector3& force,
                                   const Vector3& torque) {
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    throw std::invalid_argument("TimeStepper::SetAppliedWrench: body " +
                                std::to_string(body) +
                                " is not a free body of the scene");
  }
  if (scene_.bodies[body].fixed) {
    throw std::invalid_argument(
        "TimeStepper::SetAppliedWrench: body " + std::to_string(body) + " ('" +
        scene_.bodies[body].name + "') is fixed: forces cannot move it");
  }
  if (!force.allFinite() || !torque.allFinite()) {
    throw std::invalid_argument("TimeStepper::SetAppliedWrench: body '" +
                                scene_.bodies[body].name +
                                "': force and torque must be finite");
  }
  inputs_.applied_force[body] = force;
  inputs_.applied_torque[body] = torque;
  if (!force.isZero(0) || !torque.isZero(0)) WakeIsland(body);
  inputs_.applied_point[body].setZero();
  inputs_.applied_frame[body] = WrenchFrame::kWorld;
}

void TimeStepper::ClearAppliedForces() {
  for (Vector3& f : inputs_.applied_force) f.setZero();
  for (Vector3& t : inputs_.applied_torque) t.setZero();
  for (Vector3& p : inputs_.applied_point) p.setZero();
  for (Eigen::VectorXd& tau : inputs_.joint_torque) tau.setZero();
  for (std::vector<LinkWrench>& w : inputs_.link_wrenches) w.clear();
  for (Eigen::VectorXd& tau : inputs_.applied_tau) tau.resize(0);
}

void TimeStepper::SetState(const std::vector<BodyState>& state) {
  if (state.size() != step_.state.size()) {
    throw std::invalid_argument(
        "TimeStepper::SetState: " + std::to_string(state.size()) +
        " states for " + std::to_string(step_.state.size()) + " bodies");
  }
  for (size_t b = 0; b < state.size(); ++b) {
    if (!scene_.bodies[b].fixed) step_.state[b] = state[b];
  }
  WakeAll();
  warm_start_.have_previous_guess =
      false;  // no velocity history for the new state
}

std::string TimeStepper::BodyLabel(int body) const {
  if (body >= static_cast<int>(scene_.bodies.size()) &&
      body < num_colliders()) {
    return "link geometry '" + layout_.collider_name[body] + "'";
  }
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    return "body " + std::to_string(body);
  }
  return "body '" + scene_.bodies[body].name + "'";
}

std::string TimeStepper::ContactLabel(int k) const {
  std::string label = "contact " + std::to_string(k);
  if (k >= 0 && k < static_cast<int>(last_.contacts.size())) {
    label += " between bodies '" +
             layout_.collider_name[last_.contacts[k].body_a] + "' and '" +
             layout_.collider_name[last_.contacts[k].body_b] + "'";
  }
  return label;
}

std::string TimeStepper::NameBodies(const std::string& message) const {
  for (const char* word : {"contact ", "tree "}) {
    const std::string w = word;
    if (message.compare(0, w.size(), w) != 0) continue;
    char* end = nullptr;
    const long index = std::strtol(message.c_str() + w.size(), &end, 10);
    if (end == message.c_str() + w.size()) break;
    std::string rest(end);
    // Drop the solver's own "('name')" after the index.
    if (rest.compare(0, 2, " (") == 0) {
      const size_t close = rest.find(')');
      if (close != std::string::npos) rest = rest.substr(close + 1);
    }
    if (w == "contact ") return ContactLabel(static_cast<int>(index)) + rest;
    if (index >= 0 && index < static_cast<long>(layout_.body_of_tree.size())) {
      return BodyLabel(layout_.body_of_tree[index]) + rest;
    }
    if (index >= 0 && index < static_cast<long>(layout_.robot_of_tree.size()) &&
        layout_.robot_of_tree[index] >= 0) {
      return "robot '" + scene_.robots[layout_.robot_of_tree[index]].name +
             "'" + rest;
    }
    break;
  }
  return message;
}

void TimeStepper::Fail(const std::string& what) const {
  char when[96];
  std::snprintf(when, sizeof(when),
                "step %d (t = %.6g s to %.6g s): ", step_.steps + 1, step_.time,
                step_.time + scene_.time_step);
  throw SimulationError(step_.steps + 1, when + what);
}

// Step() runs the phases of a step in order, in the shape of MuJoCo's
// mj_step (mj_fwdPosition, mj_collision, mj_fwdConstraint, integration):
// collider poses and motion bounds, collision, the contact problem and its
// solve, the gliding measure, position integration.
void TimeStepper::SetTimeStep(double dt) {
  if (!(dt >= scene_limits::kMinTimeStep && dt <= scene_limits::kMaxTimeStep)) {
    throw std::invalid_argument("SetTimeStep: dt = " + std::to_string(dt) +
                                " s is outside [1e-7, 1] s");
  }
  scene_.time_step = dt;
  last_.problem.time_step = dt;
}

void TimeStepper::SetWarmStartHint(const Eigen::VectorXd& v) {
  warm_start_.hint = v;
  warm_start_.have_hint = true;
}

void TimeStepper::Save(Snapshot* s) const {
  s->step = step_;
  s->last = last_;
  s->warm_start = warm_start_;
  s->sleep = sleep_;
  s->limits = limits_;
  if (scene_.solver.sleep) s->layout = layout_;
  s->time_step = scene_.time_step;
}

void TimeStepper::Restore(const Snapshot& s) {
  step_ = s.step;
  last_ = s.last;
  warm_start_ = s.warm_start;
  limits_ = s.limits;
  if (scene_.solver.sleep) {
    sleep_ = s.sleep;
    layout_ = s.layout;
    collision_.SetResting(sleep_.resting);
  }
  SetTimeStep(s.time_step);
}

StepInfo TimeStepper::Step() {
  StepInfo info;
  // Three clock reads (about 30 ns each, a percent of a small scene's step):
  // the end of collision is the start of the solve.
  const Clock::time_point t0 = Clock::now();
  if (scene_.solver.sleep) PrepareSleep();
  UpdateColliderPoses();
  Collide(&info);
  const Clock::time_point t1 = Clock::now();
  info.collision_time = std::chrono::duration<double>(t1 - t0).count();
  SolveContacts(&info);
  info.solver_time = SecondsSince(t1);
  CheckVelocities(info);
  MeasureGliding(&info);
  IntegrateRobots(info);
  IntegrateBodies();
  step_.time += scene_.time_step;
  ++step_.steps;
  if (scene_.solver.sleep) UpdateSleep(&info);
  return info;
}

void TimeStepper::UpdateColliderPoses() {
  const double dt = scene_.time_step;
  const double t_end = step_.time + dt;
  for (size_t b = 0; b < step_.state.size(); ++b) {
    const Body& body = scene_.bodies[b];
    BodyState& s = step_.state[b];
    if (body.prescribed) {  // its velocities over this step
      s.velocity = body.motion.velocity.Value(t_end);
      s.angular_velocity = body.motion.angular_velocity.Value(t_end);
    }
    last_.poses[b] = s.pose;
    last_.motion_bounds[b] =
        body.prescribed
            ? MotionBound(body.shape, s.velocity, s.angular_velocity, dt)
        : body.fixed || sleep_.sleep_island[b] >= 0  // sleeping bodies stay put
            ? 0.0
            : MotionBound(body.shape, s.velocity + dt * scene_.gravity,
                          s.angular_velocity, dt);
  }
  UpdateRobotColliderPoses();
}

void TimeStepper::Collide(StepInfo* info) {
  CollisionOptions options;
  options.margin = scene_.collision.margin;
  // Collision on the solver's pool (scene key solver.threads): one pool
  // whose workers serve both, not two competing for the cores.
  collision_.UseThreadPool(sap_.thread_pool());
  try {
    if (scene_.solver.sleep) UpdateResting();
    last_.contacts =
        collision_.FindContacts(last_.poses, options, last_.motion_bounds);
    // A contact between a moving body and a sleeping one wakes the sleeper's
    // island; its own contacts are then found with it awake.
    while (sleep_.num_sleeping > 0 && WakeTouchedIslands()) {
      RemapTrees();
      UpdateColliderPoses();
      UpdateResting();
      last_.contacts =
          collision_.FindContacts(last_.poses, options, last_.motion_bounds);
    }
  } catch (const CollisionLimitError& e) {
    last_.contacts.clear();
    try {
      Fail("collision detection: " + std::string(e.what()) + " (" +
           BodyLabel(e.body_a()) + " and " + BodyLabel(e.body_b()) +
           "; docs/scenes.md, Limits): bodies piled at one place?");
    } catch (SimulationError& limit) {
      limit.set_limit_exceeded(true);
      throw;
    }
  } catch (const std::invalid_argument& e) {
    // "FindContacts: body 3: non-finite pose": name the body.
    std::string message = e.what();
    const std::string prefix = "FindContacts: body ";
    if (message.compare(0, prefix.size(), prefix) == 0) {
      char* end = nullptr;
      const long body = std::strtol(message.c_str() + prefix.size(), &end, 10);
      message = BodyLabel(static_cast<int>(body)) + std::string(end);
    }
    Fail("collision detection: " + message);
  }
  info->contacts = static_cast<int>(last_.contacts.size());
  for (const ContactPoint& cp : last_.contacts) {
    info->max_penetration = std::max(info->max_penetration, -cp.phi);
  }
}

void TimeStepper::IntegrateBodies() {
  const double dt = scene_.time_step;
  for (size_t b = 0; b < step_.state.size(); ++b) {
    if (!scene_.bodies[b].prescribed) continue;
    BodyState& s = step_.state[b];
    s.pose.position += dt * s.velocity;
    const double angle = s.angular_velocity.norm() * dt;
    if (angle > 0) {
      s.pose.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(
                               angle, s.angular_velocity.normalized())) *
                           s.pose.orientation;
      s.pose.orientation.normalize();
    }
  }
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    BodyState& s = step_.state[layout_.body_of_tree[t]];
    s.velocity = last_.v_next.segment<3>(6 * t);
    s.angular_velocity = last_.v_next.segment<3>(6 * t + 3);
    s.pose = AdvancePose(s.pose, s.velocity, s.angular_velocity, dt);
    if (!s.pose.position.allFinite() ||
        !s.pose.orientation.coeffs().allFinite()) {
      Fail(BodyLabel(layout_.body_of_tree[t]) +
           ": pose is not finite after the step");
    }
  }
}

Pose AdvancePose(const Pose& pose, const Vector3& v, const Vector3& w,
                 double dt) {
  Pose next = pose;
  next.position += dt * v;
  const double angle = w.norm() * dt;
  if (angle > 0) {
    next.orientation =
        Eigen::Quaterniond(Eigen::AngleAxisd(angle, w.normalized())) *
        next.orientation;
  }
  next.orientation.normalize();
  return next;
}

}  // namespace sapcontact
