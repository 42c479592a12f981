#include "sapcontact/sim/stepping/time_stepper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/scene_collision.h"
#include "sapcontact/solver/parallel/thread_pool.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

Matrix3 Skew(const Vector3& p) {
  Matrix3 S;
  S << 0, -p(2), p(1), p(2), 0, -p(0), -p(1), p(0), 0;
  return S;
}

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
  J36.rightCols<3>() = -sign * frame_rows * Skew(r);
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
  state_.resize(nb);
  applied_force_.assign(nb, Vector3::Zero());
  applied_torque_.assign(nb, Vector3::Zero());
  applied_point_.assign(nb, Vector3::Zero());
  applied_frame_.assign(nb, WrenchFrame::kWorld);
  const int nm = static_cast<int>(scene_.materials.size());
  pair_parameters_.resize(static_cast<size_t>(nm) * nm);
  for (int a = 0; a < nm; ++a) {
    for (int b = 0; b < nm; ++b) {
      pair_parameters_[a * nm + b] =
          CombineMaterials(scene_.materials[a], scene_.materials[b]);
    }
  }
  tree_of_body_.assign(nb, -1);
  for (int b = 0; b < nb; ++b) {
    const Body& body = scene_.bodies[b];
    state_[b].pose = body.pose;
    state_[b].velocity = body.velocity;
    state_[b].angular_velocity = body.angular_velocity;
    if (!body.fixed) {
      tree_of_body_[b] = static_cast<int>(body_of_tree_.size());
      body_of_tree_.push_back(b);
    }
  }
  problem_.time_step = scene_.time_step;
  problem_.trees.resize(body_of_tree_.size());
  for (size_t t = 0; t < body_of_tree_.size(); ++t) {
    problem_.trees[t].A = Eigen::MatrixXd::Zero(6, 6);
    problem_.trees[t].v_star.resize(6);
    problem_.trees[t].name = scene_.bodies[body_of_tree_[t]].name;
  }
  guess_.resize(6 * body_of_tree_.size());
  free_bodies_ = body_of_tree_;
  still_time_.assign(nb, 0.0);
  sleep_island_.assign(nb, -1);
  bounding_radius_.resize(nb);
  for (int b = 0; b < nb; ++b) {
    bounding_radius_[b] = scene_.bodies[b].shape.type == ShapeType::kPlane
                              ? 0.0
                              : BoundingRadius(scene_.bodies[b].shape);
  }
  SetUpRobots();
  tree_offsets_ = problem_.TreeOffsets();
  poses_.resize(num_colliders());
  motion_bounds_.resize(num_colliders());
}

int TimeStepper::MaterialOfCollider(int c) const {
  const int nb = static_cast<int>(scene_.bodies.size());
  return c < nb ? scene_.bodies[c].material_index
                : scene_.robots[collider_robot_[c]].material_index;
}

Vector3 TimeStepper::WorldPointVelocity(int c, const Vector3& p,
                                        const Vector3& n) const {
  const int nb = static_cast<int>(scene_.bodies.size());
  if (c >= nb || !scene_.bodies[c].prescribed) return Vector3::Zero();
  const Body& body = scene_.bodies[c];
  const BodyState& s = state_[c];
  const double t = time_ + scene_.time_step;  // velocities over the step
  Vector3 v = s.velocity + s.angular_velocity.cross(p - s.pose.position);
  const Vector3 surface = body.motion.surface_velocity.Value(t);
  v += surface - surface.dot(n) * n;  // its tangential part only
  return v;
}

bool TimeStepper::ColliderJacobian(int c, const Matrix3& rows, const Vector3& p,
                                   double sign, int* tree, Eigen::MatrixXd* J) {
  const int nb = static_cast<int>(scene_.bodies.size());
  if (c < nb) {
    *tree = tree_of_body_[c];
    if (*tree < 0) return false;
    SetPointJacobian(rows, p - state_[c].pose.position, sign, J);
    return true;
  }
  const int r = collider_robot_[c];
  *tree = tree_of_robot_[r];
  if (*tree < 0) return false;
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  // Per-thread scratch: contacts are built on the solver's threads.
  thread_local Eigen::MatrixXd point_J;
  CalcPointJacobian(mb, link_poses_[r], collider_link_[c], p, &point_J);
  J->noalias() = sign * rows * point_J;
  return true;
}

double TimeStepper::KineticEnergy() const {
  double e = 0.0;
  for (size_t b = 0; b < state_.size(); ++b) {
    const Body& body = scene_.bodies[b];
    if (body.fixed) continue;
    const BodyState& s = state_[b];
    e += 0.5 * body.mass * s.velocity.squaredNorm() +
         0.5 * s.angular_velocity.dot(WorldInertia(body, s.pose) *
                                      s.angular_velocity);
  }
  for (size_t r = 0; r < robot_state_.size(); ++r) {
    e += CalcKineticEnergy(scene_.robots[r].description.tree, robot_state_[r].q,
                           robot_state_[r].v);
  }
  return e;
}

double TimeStepper::PotentialEnergy() const {
  double e = 0.0;
  for (size_t b = 0; b < state_.size(); ++b) {
    const Body& body = scene_.bodies[b];
    if (body.fixed) continue;
    e -= body.mass * scene_.gravity.dot(state_[b].pose.position);
  }
  for (size_t r = 0; r < robot_state_.size(); ++r) {
    e += CalcPotentialEnergy(scene_.robots[r].description.tree,
                             robot_state_[r].q, scene_.gravity);
  }
  return e;
}

Eigen::VectorXd TimeStepper::FreeVelocityRate(
    int i, double h, const std::vector<Eigen::MatrixXd>& M_prev,
    const Eigen::LLT<Eigen::MatrixXd>& A_llt) {
  const double dt = scene_.time_step;
  int t = static_cast<int>(tree_offsets_.size()) - 1;
  while (tree_offsets_[t] > i) --t;
  const int j = i - tree_offsets_[t];
  if (t < static_cast<int>(body_of_tree_.size())) {
    // v* = (v + dt (g + f / m), FreeRotation(I, w) + dt I^-1 tau): only
    // the gyroscopic step is not linear in v.
    Eigen::VectorXd rate = Eigen::VectorXd::Zero(6);
    if (j < 3) {
      rate(j) = 1.0;
      return rate;
    }
    const int b = body_of_tree_[t];
    const Matrix3 I = WorldInertia(scene_.bodies[b], state_[b].pose);
    const Vector3 w = state_[b].angular_velocity;
    const Vector3 e = h * Vector3::Unit(j - 3);
    rate.tail<3>() =
        (FreeRotation(I, w + e, dt) - FreeRotation(I, w - e, dt)) / (2 * h);
    return rate;
  }
  // A v* = p + dt (tau + k(q, 2 v - v_prev)) with p = M_prev v carried
  // (AddRobotProblem): A and tau do not depend on v, k is quadratic in it
  // (its central difference is exact but for round-off), and q with it
  // the link poses stay.
  const int r = robot_of_tree_[t];
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  Eigen::VectorXd v = 2.0 * robot_state_[r].v - robot_previous_v_[r];
  Eigen::VectorXd k_plus, k_minus;
  v(j) += 2 * h;
  CalcMassRateForces(mb, link_poses_[r], v, &k_plus);
  v(j) -= 4 * h;
  CalcMassRateForces(mb, link_poses_[r], v, &k_minus);
  return A_llt.solve(M_prev[r].col(j) + dt * (k_plus - k_minus) / (2 * h));
}

void TimeStepper::BuildProblem() {
  const double dt = scene_.time_step;
  // Trees: A = diag(m I, I_world), v* with gravity and gyroscopic terms.
  for (size_t t = 0; t < body_of_tree_.size(); ++t) {
    const int b = body_of_tree_[t];
    const Body& body = scene_.bodies[b];
    const BodyState& s = state_[b];
    const Matrix3 I = WorldInertia(body, s.pose);
    Tree& tree = problem_.trees[t];
    tree.A.topLeftCorner<3, 3>() = body.mass * Matrix3::Identity();
    tree.A.bottomRightCorner<3, 3>() = 0.5 * (I + I.transpose());
    tree.v_star.head<3>() = s.velocity + dt * scene_.gravity;
    tree.v_star.tail<3>() = FreeRotation(I, s.angular_velocity, dt);
    guess_.segment<3>(6 * t) = s.velocity;
    guess_.segment<3>(6 * t + 3) = s.angular_velocity;
  }
  // External forces on free bodies (explicit, evaluated at the step's end
  // time like the prescribed motions).
  const double t_end = time_ + dt;
  for (const ExternalForce& f : scene_.external_forces) {
    if (f.body < 0 || tree_of_body_[f.body] < 0) continue;
    const Body& body = scene_.bodies[f.body];
    const BodyState& s = state_[f.body];
    const Vector3 force = f.force.Value(t_end);
    const Vector3 r = s.pose.orientation * f.point;
    const Vector3 torque = f.torque.Value(t_end) + r.cross(force);
    Tree& tree = problem_.trees[tree_of_body_[f.body]];
    tree.v_star.head<3>() += dt * force / body.mass;
    tree.v_star.tail<3>() +=
        dt * tree.A.bottomRightCorner<3, 3>().ldlt().solve(torque);
  }
  // Wrenches applied by the caller (SetAppliedWrench, ApplyWrench): force
  // at the point, torque about the centre of mass.
  for (size_t t = 0; t < body_of_tree_.size(); ++t) {
    const int b = body_of_tree_[t];
    if (b < 0) continue;
    if (applied_force_[b].isZero(0) && applied_torque_[b].isZero(0)) continue;
    const Eigen::Quaterniond& R = state_[b].pose.orientation;
    const bool body_axes = applied_frame_[b] == WrenchFrame::kBody;
    const Vector3 force = body_axes ? R * applied_force_[b] : applied_force_[b];
    Vector3 torque = body_axes ? R * applied_torque_[b] : applied_torque_[b];
    if (!applied_point_[b].isZero(0)) {
      torque += (R * applied_point_[b]).cross(force);
    }
    Tree& tree = problem_.trees[t];
    tree.v_star.head<3>() += dt * force / scene_.bodies[b].mass;
    tree.v_star.tail<3>() +=
        dt * tree.A.bottomRightCorner<3, 3>().ldlt().solve(torque);
  }
  problem_.limits.clear();
  problem_.holonomic.clear();
  problem_.actuation.clear();
  for (int r = 0; r < static_cast<int>(robot_state_.size()); ++r) {
    AddRobotProblem(r);
  }
  // Contacts: v_c = R (v_B + w_B x r_B - v_A - w_A x r_A).
  // Colliders are bodies (tree: 6-DOF point Jacobian) or robot link
  // geometries (the robot's point Jacobian); fixed and prescribed ones are
  // the world, whose point velocity enters as the contact's bias velocity.
  problem_.contacts.resize(contacts_.size());
  // Each contact is built on its own (on the solver's threads when it has
  // more than one: the same numbers whichever thread builds it).
  auto build_contact = [&](int k, int) {
    const ContactPoint& cp = contacts_[k];
    const Matrix3 rows = ContactFrameRows(cp.normal);
    Contact& c = problem_.contacts[k];
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
    // v_n at the start of the step (guess_ holds the velocities at the
    // start of the step; the bias carries the prescribed motion), + when
    // separating, like v_c.
    c.normal_velocity0 = ContactVelocity(c, tree_offsets_, guess_)(kNormal);
    c.parameters = pair_parameters_[MaterialOfCollider(cp.body_a) *
                                        scene_.materials.size() +
                                    MaterialOfCollider(cp.body_b)];
  };
  const int nc = static_cast<int>(contacts_.size());
  ThreadPool* pool = sap_.thread_pool();
  if (pool != nullptr && pool->threads() > 1 && nc >= 64) {
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
  applied_force_[body] = force;
  applied_torque_[body] = torque;
  if (!force.isZero(0) || !torque.isZero(0)) WakeIsland(body);
  applied_point_[body].setZero();
  applied_frame_[body] = WrenchFrame::kWorld;
}

void TimeStepper::ClearAppliedForces() {
  for (Vector3& f : applied_force_) f.setZero();
  for (Vector3& t : applied_torque_) t.setZero();
  for (Vector3& p : applied_point_) p.setZero();
  for (Eigen::VectorXd& tau : joint_torque_) tau.setZero();
  for (std::vector<LinkWrench>& w : link_wrenches_) w.clear();
  for (Eigen::VectorXd& tau : applied_tau_) tau.resize(0);
}

void TimeStepper::SetState(const std::vector<BodyState>& state) {
  if (state.size() != state_.size()) {
    throw std::invalid_argument(
        "TimeStepper::SetState: " + std::to_string(state.size()) +
        " states for " + std::to_string(state_.size()) + " bodies");
  }
  for (size_t b = 0; b < state.size(); ++b) {
    if (!scene_.bodies[b].fixed) state_[b] = state[b];
  }
  WakeAll();
  have_previous_guess_ = false;  // no velocity history for the new state
}

std::string TimeStepper::BodyLabel(int body) const {
  if (body >= static_cast<int>(scene_.bodies.size()) &&
      body < num_colliders()) {
    return "link geometry '" + collider_name_[body] + "'";
  }
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    return "body " + std::to_string(body);
  }
  return "body '" + scene_.bodies[body].name + "'";
}

std::string TimeStepper::ContactLabel(int k) const {
  std::string label = "contact " + std::to_string(k);
  if (k >= 0 && k < static_cast<int>(contacts_.size())) {
    label += " between bodies '" + collider_name_[contacts_[k].body_a] +
             "' and '" + collider_name_[contacts_[k].body_b] + "'";
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
    if (index >= 0 && index < static_cast<long>(body_of_tree_.size())) {
      return BodyLabel(body_of_tree_[index]) + rest;
    }
    if (index >= 0 && index < static_cast<long>(robot_of_tree_.size()) &&
        robot_of_tree_[index] >= 0) {
      return "robot '" + scene_.robots[robot_of_tree_[index]].name + "'" + rest;
    }
    break;
  }
  return message;
}

void TimeStepper::Fail(const std::string& what) const {
  char when[96];
  std::snprintf(when, sizeof(when),
                "step %d (t = %.6g s to %.6g s): ", steps_ + 1, time_,
                time_ + scene_.time_step);
  throw SimulationError(steps_ + 1, when + what);
}

// Step() runs the phases of a step in order, in the shape of MuJoCo's
// mj_step (mj_fwdPosition, mj_collision, mj_fwdConstraint, integration):
// collider poses and motion bounds, collision, the contact problem and its
// solve, the gliding measure, position integration.
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
  info.solver_time = Seconds(t1);
  CheckVelocities(info);
  MeasureGliding(&info);
  IntegrateRobots(info);
  IntegrateBodies();
  time_ += scene_.time_step;
  ++steps_;
  if (scene_.solver.sleep) UpdateSleep(&info);
  return info;
}

void TimeStepper::UpdateColliderPoses() {
  const double dt = scene_.time_step;
  const double t_end = time_ + dt;
  for (size_t b = 0; b < state_.size(); ++b) {
    const Body& body = scene_.bodies[b];
    BodyState& s = state_[b];
    if (body.prescribed) {  // its velocities over this step
      s.velocity = body.motion.velocity.Value(t_end);
      s.angular_velocity = body.motion.angular_velocity.Value(t_end);
    }
    poses_[b] = s.pose;
    motion_bounds_[b] =
        body.prescribed
            ? MotionBound(body.shape, s.velocity, s.angular_velocity, dt)
        : body.fixed || sleep_island_[b] >= 0  // sleeping bodies stay put
            ? 0.0
            : MotionBound(body.shape, s.velocity + dt * scene_.gravity,
                          s.angular_velocity, dt);
  }
  UpdateRobotColliderPoses();
}

void TimeStepper::Collide(StepInfo* info) {
  CollisionOptions options;
  options.margin = scene_.collision.margin;
  try {
    if (scene_.solver.sleep) UpdateResting();
    contacts_ = collision_.FindContacts(poses_, options, motion_bounds_,
                                        sap_.thread_pool());
    // A contact between a moving body and a sleeping one wakes the sleeper's
    // island; its own contacts are then found with it awake.
    while (num_sleeping_ > 0 && WakeTouchedIslands()) {
      RemapTrees();
      UpdateColliderPoses();
      UpdateResting();
      contacts_ = collision_.FindContacts(poses_, options, motion_bounds_,
                                          sap_.thread_pool());
    }
  } catch (const CollisionLimitError& e) {
    contacts_.clear();
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
  info->contacts = static_cast<int>(contacts_.size());
  for (const ContactPoint& cp : contacts_) {
    info->max_penetration = std::max(info->max_penetration, -cp.phi);
  }
}

void TimeStepper::SolveContacts(StepInfo* info) {
  BuildProblem();
  if (scene_.solver.sleep && problem_.trees.empty()) {  // everything sleeps
    v_next_.resize(0);
    impulses_.resize(0);
    previous_guess_.resize(0);
    sap_results_ = SapSolverResults();
    return;
  }
  if (scene_.solver.model == SolverModel::kSap) {
    SolveSap(info);
  } else {
    SolveRigidQp(info);
  }
}

void TimeStepper::SolveSap(StepInfo* info) {
  const double dt = scene_.time_step;
  try {
    if (have_previous_guess_) {
      extrapolated_guess_ = 2.0 * guess_ - previous_guess_;
      candidates_.assign({&extrapolated_guess_, &guess_});
    } else {
      candidates_.assign({&guess_});
    }
    // Into the kept results: no allocation per step.
    sap_.SolveFromCandidates(problem_, candidates_, &sap_results_);
    previous_guess_ = guess_;
    have_previous_guess_ = true;
  } catch (const std::invalid_argument& e) {
    Fail("contact solver: " + NameBodies(e.what()));
  }
  const SapSolverResults& r = sap_results_;
  info->newton_iterations = r.statistics.newton_iterations;
  const SapSolverStatistics& st = r.statistics;
  StepInfo::SolverCounters& c = info->counters;
  c.islands = st.islands;
  c.largest_island_velocities = st.largest_island_velocities;
  c.penetrating_contacts = st.penetrating_contacts;
  c.speculative_contacts = st.speculative_contacts;
  c.excluded_contacts = st.excluded_contacts;
  c.factorizations = st.factorizations;
  c.low_rank_updates = st.low_rank_updates;
  c.line_search_evaluations = st.line_search_iterations;
  info->failed = !r.converged();
  if (info->failed) {
    info->failure = r.message;
    // A robot past its velocity limits: the likely cause, named.
    for (int i = 0; i < static_cast<int>(scene_.robots.size()); ++i) {
      info->failure += DivergenceNote(i);
    }
  }
  v_next_ = r.v;  // kept: no allocation per step
  impulses_ = r.gamma;
  // Elastic energy k_eff phi0^2 / 2 with the solver's effective
  // stiffness (each contact model's own; the near-rigid floor's beyond
  // it). Fallback for a solver that does not report it: sap's
  // 1 / (dt (dt + tau_d) R_n).
  const bool have_k_eff = r.effective_stiffness.size() ==
                          static_cast<Eigen::Index>(contacts_.size());
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const double phi = contacts_[k].phi;
    if (phi >= 0) continue;
    double k_eff;
    if (have_k_eff) {
      k_eff = r.effective_stiffness(k);
    } else {
      const double tau = problem_.contacts[k].parameters.dissipation_time_scale;
      k_eff = 1.0 / (dt * (dt + tau) * r.R_n(k));
    }
    info->elastic_energy += 0.5 * k_eff * phi * phi;
  }
}

void TimeStepper::SolveRigidQp(StepInfo* info) {
  std::vector<bool> fixed(scene_.bodies.size());
  for (size_t b = 0; b < fixed.size(); ++b) fixed[b] = scene_.bodies[b].fixed;
  const double bytes = EstimateRigidQpBytes(
      contacts_, static_cast<int>(scene_.bodies.size()), fixed);
  if (bytes > scene_limits::kMaxRigidQpBytes) {
    char what[256];
    std::snprintf(what, sizeof(what),
                  "rigid contact solver: %zu contacts would need about %.3g "
                  "GB, more than the %.3g GB budget (docs/scenes.md, "
                  "Limits): bodies piled at one place? (the sap model "
                  "needs far less)",
                  contacts_.size(), bytes / 1e9,
                  scene_limits::kMaxRigidQpBytes / 1e9);
    try {
      Fail(what);
    } catch (SimulationError& limit) {
      limit.set_limit_exceeded(true);
      throw;
    }
  }
  RigidQpResult r;
  try {
    r = SolveRigidContactQp(problem_);
  } catch (const std::invalid_argument& e) {
    Fail("rigid contact solver: " + NameBodies(e.what()));
  }
  info->newton_iterations = r.iterations;
  // Reduced accuracy (residuals below 1e-6) is a usable solution; the
  // iteration limit leaves usable impulses (in the cones, not optimal), a
  // failed step; after a numerical error or an infeasibility report the
  // impulses must not be used: the step keeps the old velocities.
  info->failed = r.status != RigidQpStatus::kSolved &&
                 r.status != RigidQpStatus::kSolvedReducedAccuracy;
  if (info->failed) {
    info->failure = std::string(ToString(r.status)) + ": " + r.reason;
  }
  const bool usable = r.status == RigidQpStatus::kSolved ||
                      r.status == RigidQpStatus::kSolvedReducedAccuracy ||
                      r.status == RigidQpStatus::kMaxIterations;
  if (usable && r.velocities.size() == guess_.size() &&
      r.velocities.allFinite()) {
    v_next_ = r.velocities;
    impulses_ = r.impulses;
  } else {
    v_next_ = guess_;
    impulses_.setZero(3 * problem_.contacts.size());
  }
}

void TimeStepper::CheckVelocities(const StepInfo& info) const {
  const Eigen::VectorXd& v_next = v_next_;
  if (v_next.size() == guess_.size() && v_next.allFinite()) return;
  for (size_t t = 0; t < body_of_tree_.size(); ++t) {
    if (v_next.size() == guess_.size() &&
        v_next.segment<6>(6 * t).allFinite()) {
      continue;
    }
    Fail(BodyLabel(body_of_tree_[t]) +
         ": velocity is not finite after the contact solve" +
         (info.failed ? " (" + info.failure + ")" : ""));
  }
}

void TimeStepper::MeasureGliding(StepInfo* info) const {
  // Gliding (StepInfo::max_hover): contacts that push while sliding,
  // across a gap at the end of the step.
  if (impulses_.size() != 3 * static_cast<Eigen::Index>(contacts_.size())) {
    return;
  }
  const double dt = scene_.time_step;
  for (size_t k = 0; k < contacts_.size(); ++k) {
    if (!(impulses_(3 * k + kNormal) > 0.0)) continue;
    const Vector3 v_c =
        ContactVelocity(problem_.contacts[k], tree_offsets_, v_next_);
    if (!(Tangential(v_c).norm() > kHoverSlipSpeed)) continue;
    const double gap = contacts_[k].phi + dt * v_c(kNormal);
    if (gap > info->max_hover) {
      info->max_hover = gap;
      info->hover_contact = static_cast<int>(k);
    }
  }
}

void TimeStepper::IntegrateBodies() {
  const double dt = scene_.time_step;
  for (size_t b = 0; b < state_.size(); ++b) {
    if (!scene_.bodies[b].prescribed) continue;
    BodyState& s = state_[b];
    s.pose.position += dt * s.velocity;
    const double angle = s.angular_velocity.norm() * dt;
    if (angle > 0) {
      s.pose.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(
                               angle, s.angular_velocity.normalized())) *
                           s.pose.orientation;
      s.pose.orientation.normalize();
    }
  }
  for (size_t t = 0; t < body_of_tree_.size(); ++t) {
    BodyState& s = state_[body_of_tree_[t]];
    s.velocity = v_next_.segment<3>(6 * t);
    s.angular_velocity = v_next_.segment<3>(6 * t + 3);
    s.pose = AdvancePose(s.pose, s.velocity, s.angular_velocity, dt);
    if (!s.pose.position.allFinite() ||
        !s.pose.orientation.coeffs().allFinite()) {
      Fail(BodyLabel(body_of_tree_[t]) + ": pose is not finite after the step");
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
