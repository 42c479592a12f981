// The controller API of TimeStepper (sim/stepping/time_stepper.h,
// docs/embedding.md): name lookups with nearest-name errors, joint and link
// data of robots, state and actuation-target setters, joint torques,
// wrenches on bodies and links, and contact reports.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/nearest_names.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {
namespace {

// "'x' (nearest: a, b and 3 more)" style tails of the lookup errors.
std::string Nearest(const std::string& name,
                    const std::vector<std::string>& candidates) {
  return " (nearest: " + NearestNames(name, candidates, 5) + ")";
}

bool AllFinite(const Vector3& a, const Vector3& b) {
  return a.allFinite() && b.allFinite();
}

}  // namespace

void TimeStepper::CheckRobot(int r, const char* who) const {
  if (r < 0 || r >= static_cast<int>(scene_.robots.size())) {
    throw std::invalid_argument(
        std::string("TimeStepper::") + who + ": no robot " + std::to_string(r) +
        " (" + std::to_string(scene_.robots.size()) + " robots)");
  }
}

int TimeStepper::FindBody(const std::string& name) const {
  const int b = scene_.FindBody(name);
  if (b >= 0) return b;
  std::vector<std::string> names;
  for (const Body& body : scene_.bodies) names.push_back(body.name);
  throw std::invalid_argument("no body named '" + name + "'" +
                              Nearest(name, names));
}

int TimeStepper::FindRobot(const std::string& name) const {
  const int r = scene_.FindRobot(name);
  if (r >= 0) return r;
  std::vector<std::string> names;
  for (const RobotSpec& robot : scene_.robots) names.push_back(robot.name);
  throw std::invalid_argument("no robot named '" + name + "'" +
                              Nearest(name, names));
}

std::vector<std::string> TimeStepper::JointNames(int r) const {
  CheckRobot(r, "JointNames");
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  std::vector<std::string> names;
  for (int j : layout_.joints_of_robot[r]) names.push_back(tree.joint(j).name);
  return names;
}

int TimeStepper::FindJoint(int r, const std::string& joint) const {
  CheckRobot(r, "FindJoint");
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  const std::vector<int>& joints = layout_.joints_of_robot[r];
  for (size_t i = 0; i < joints.size(); ++i) {
    if (tree.joint(joints[i]).name == joint) return static_cast<int>(i);
  }
  throw std::invalid_argument(
      "robot '" + scene_.robots[r].name + "' has no joint named '" + joint +
      "' with a degree of freedom" + Nearest(joint, JointNames(r)));
}

Eigen::VectorXd TimeStepper::JointPositions(int r) const {
  CheckRobot(r, "JointPositions");
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  const std::vector<int>& joints = layout_.joints_of_robot[r];
  Eigen::VectorXd q(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    q(i) = step_.robot_state[r].q(tree.position_start(joints[i]));
  }
  return q;
}

Eigen::VectorXd TimeStepper::JointVelocities(int r) const {
  CheckRobot(r, "JointVelocities");
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  const std::vector<int>& joints = layout_.joints_of_robot[r];
  Eigen::VectorXd v(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    v(i) = step_.robot_state[r].v(tree.velocity_start(joints[i]));
  }
  return v;
}

Eigen::VectorXd TimeStepper::JointEfforts(int r) const {
  CheckRobot(r, "JointEfforts");
  const RobotSpec& spec = scene_.robots[r];
  const MultibodyTree& tree = spec.description.tree;
  const std::vector<int>& joints = layout_.joints_of_robot[r];
  Eigen::VectorXd effort = Eigen::VectorXd::Zero(joints.size());
  Eigen::VectorXd motors = Eigen::VectorXd::Zero(tree.num_velocities());
  AddMotorForces(r, &motors);
  for (size_t i = 0; i < joints.size(); ++i) {
    const int dof = tree.velocity_start(joints[i]);
    effort(i) = inputs_.joint_torque[r](dof) + motors(dof);
    if (inputs_.applied_tau[r].size() == tree.num_velocities()) {
      effort(i) += inputs_.applied_tau[r](dof);
    }
    for (size_t k = 0; k < spec.actuation.size(); ++k) {
      if (spec.actuation[k].joint == joints[i]) {
        effort(i) += last_.robot_efforts[r](k);
      }
    }
  }
  return effort;
}

std::vector<std::string> TimeStepper::LinkNames(int r) const {
  CheckRobot(r, "LinkNames");
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  std::vector<std::string> names;
  for (int l = 0; l < tree.num_links(); ++l) names.push_back(tree.link(l).name);
  return names;
}

int TimeStepper::FindLink(int r, const std::string& link) const {
  CheckRobot(r, "FindLink");
  const int l = scene_.robots[r].description.tree.FindLink(link);
  if (l >= 0) return l;
  throw std::invalid_argument("robot '" + scene_.robots[r].name +
                              "' has no link named '" + link + "'" +
                              Nearest(link, LinkNames(r)));
}

Eigen::Isometry3d TimeStepper::LinkPose(int r, const std::string& link) const {
  return step_.link_poses[r][FindLink(r, link)];
}

SpatialVelocity TimeStepper::LinkVelocity(int r,
                                          const std::string& link) const {
  const int l = FindLink(r, link);
  std::vector<Eigen::Matrix<double, 6, 1>> V;
  CalcLinkVelocities(scene_.robots[r].description.tree, step_.robot_state[r].q,
                     step_.robot_state[r].v, &V);
  SpatialVelocity s;
  s.linear = V[l].head<3>();
  s.angular = V[l].tail<3>();
  return s;
}

Eigen::MatrixXd TimeStepper::LinkJacobian(int r, const std::string& link,
                                          const Vector3& point_in_link) const {
  const int l = FindLink(r, link);
  if (!point_in_link.allFinite()) {
    throw std::invalid_argument("TimeStepper::LinkJacobian: point not finite");
  }
  Eigen::MatrixXd J;
  CalcFrameJacobian(scene_.robots[r].description.tree, step_.link_poses[r], l,
                    step_.link_poses[r][l] * point_in_link, &J);
  return J;
}

void TimeStepper::SetBodyState(int body, const BodyState& state) {
  if (body < 0 || body >= static_cast<int>(scene_.bodies.size())) {
    throw std::invalid_argument("TimeStepper::SetBodyState: no body " +
                                std::to_string(body));
  }
  const Body& b = scene_.bodies[body];
  if (b.fixed || b.prescribed) {
    throw std::invalid_argument("TimeStepper::SetBodyState: body '" + b.name +
                                "' is " + (b.fixed ? "fixed" : "prescribed") +
                                ": its state is not free");
  }
  if (!state.pose.position.allFinite() ||
      !state.pose.orientation.coeffs().allFinite() ||
      state.pose.orientation.norm() == 0.0 ||
      !AllFinite(state.velocity, state.angular_velocity)) {
    throw std::invalid_argument("TimeStepper::SetBodyState: body '" + b.name +
                                "': pose and velocities must be finite, the "
                                "quaternion nonzero");
  }
  step_.state[body] = state;
  step_.state[body].pose.orientation.normalize();
  WakeIsland(body);
  warm_start_.have_previous_guess =
      false;  // no velocity history for the new state
}

void TimeStepper::SetActuationTarget(int r, const std::string& joint,
                                     double position, double velocity,
                                     double feedforward) {
  CheckRobot(r, "SetActuationTarget");
  const RobotSpec& spec = scene_.robots[r];
  const int j = spec.description.tree.FindJoint(joint);
  for (size_t k = 0; k < spec.actuation.size(); ++k) {
    if (j < 0 || spec.actuation[k].joint != j) continue;
    if (!std::isfinite(position) || !std::isfinite(velocity) ||
        !std::isfinite(feedforward)) {
      throw std::invalid_argument("TimeStepper::SetActuationTarget: robot '" +
                                  spec.name + "' joint '" + joint +
                                  "': targets must be finite");
    }
    inputs_.actuation_override[r][k] = {true, position, velocity, feedforward};
    return;
  }
  std::vector<std::string> actuated;
  for (const JointActuation& act : spec.actuation) {
    actuated.push_back(spec.description.tree.joint(act.joint).name);
  }
  throw std::invalid_argument(
      "robot '" + spec.name + "' has no actuated joint named '" + joint +
      "' (actuated: " + NearestNames(joint, actuated, actuated.size()) + ")");
}

void TimeStepper::ClearActuationTargets(int r) {
  CheckRobot(r, "ClearActuationTargets");
  for (ActuationOverride& o : inputs_.actuation_override[r]) o.active = false;
}

void TimeStepper::SetJointTorque(int r, const std::string& joint, double tau) {
  const int i = FindJoint(r, joint);
  if (!std::isfinite(tau)) {
    throw std::invalid_argument("TimeStepper::SetJointTorque: robot '" +
                                scene_.robots[r].name + "' joint '" + joint +
                                "': torque must be finite");
  }
  const MultibodyTree& tree = scene_.robots[r].description.tree;
  inputs_.joint_torque[r](tree.velocity_start(layout_.joints_of_robot[r][i])) =
      tau;
}

void TimeStepper::SetJointTorques(int r,
                                  const std::map<std::string, double>& tau) {
  for (const auto& [joint, value] : tau) {
    FindJoint(r, joint);
    if (!std::isfinite(value)) {
      throw std::invalid_argument("TimeStepper::SetJointTorques: robot '" +
                                  scene_.robots[r].name + "' joint '" + joint +
                                  "': torque must be finite");
    }
  }
  for (const auto& [joint, value] : tau) SetJointTorque(r, joint, value);
}

void TimeStepper::SetControls(int r, const Eigen::VectorXd& u) {
  const int nr = static_cast<int>(scene_.robots.size());
  if (r < 0 || r >= nr) {
    throw std::invalid_argument("TimeStepper::SetControls: no robot " +
                                std::to_string(r) + " (the scene has " +
                                std::to_string(nr) + ")");
  }
  const RobotSpec& spec = scene_.robots[r];
  const size_t n = spec.description.actuators.size();
  if (static_cast<size_t>(u.size()) != n) {
    throw std::invalid_argument("TimeStepper::SetControls: robot '" +
                                spec.name + "' has " + std::to_string(n) +
                                " actuator" + (n == 1 ? "" : "s") + ", not " +
                                std::to_string(u.size()));
  }
  for (size_t k = 0; k < n; ++k) {
    if (!std::isfinite(u[k])) {
      throw std::invalid_argument(
          "TimeStepper::SetControls: robot '" + spec.name + "' actuator '" +
          spec.description.actuators[k].name + "': control must be finite");
    }
  }
  inputs_.controls[r] = u;
}

const Eigen::VectorXd& TimeStepper::Controls(int r) const {
  return inputs_.controls.at(r);
}

std::vector<std::string> TimeStepper::ActuatorNames(int r) const {
  std::vector<std::string> names;
  for (const RobotActuator& a : scene_.robots.at(r).description.actuators) {
    names.push_back(a.name);
  }
  return names;
}

void TimeStepper::ResolveTarget(const std::string& name, const char* who,
                                int* body, int* robot, int* link) const {
  *body = *robot = *link = -1;
  const size_t slash = name.find('/');
  if (slash == std::string::npos) {
    *body = scene_.FindBody(name);
    if (*body >= 0) return;
    // Candidates: bodies and every robot link.
    std::vector<std::string> names;
    for (const Body& b : scene_.bodies) names.push_back(b.name);
    for (const RobotSpec& spec : scene_.robots) {
      const MultibodyTree& tree = spec.description.tree;
      for (int l = 0; l < tree.num_links(); ++l) {
        names.push_back(spec.name + "/" + tree.link(l).name);
      }
    }
    const bool is_robot = scene_.FindRobot(name) >= 0;
    throw std::invalid_argument(
        std::string("TimeStepper::") + who + ": " +
        (is_robot ? "'" + name + "' is a robot: name one of its links as '" +
                        name + "/<link>'"
                  : "no body or robot link named '" + name + "'") +
        Nearest(name, names));
  }
  *robot = FindRobot(name.substr(0, slash));
  *link = FindLink(*robot, name.substr(slash + 1));
}

void TimeStepper::ApplyWrench(const std::string& target, const Vector3& force,
                              const Vector3& torque, const Vector3& point,
                              WrenchFrame frame) {
  int body, r, link;
  ResolveTarget(target, "ApplyWrench", &body, &r, &link);
  if (!AllFinite(force, torque) || !point.allFinite()) {
    throw std::invalid_argument("TimeStepper::ApplyWrench: '" + target +
                                "': force, torque and point must be finite");
  }
  if (body >= 0) {
    if (scene_.bodies[body].prescribed) {
      throw std::invalid_argument("TimeStepper::ApplyWrench: body '" + target +
                                  "' is prescribed: forces cannot move it");
    }
    SetAppliedWrench(body, force, torque);  // throws for a fixed body
    inputs_.applied_point[body] = point;
    inputs_.applied_frame[body] = frame;
    return;
  }
  if (layout_.tree_of_robot[r] < 0) {
    throw std::invalid_argument("TimeStepper::ApplyWrench: robot '" +
                                scene_.robots[r].name +
                                "' has no degrees of freedom");
  }
  LinkWrench w;
  w.link = link;
  w.force = force;
  w.torque = torque;
  w.point = point;
  w.frame = frame;
  for (LinkWrench& old : inputs_.link_wrenches[r]) {
    if (old.link == link) {
      old = w;
      return;
    }
  }
  inputs_.link_wrenches[r].push_back(w);
}

std::vector<ContactReport> TimeStepper::Contacts() const {
  std::vector<ContactReport> reports;
  const size_t nc = last_.contacts.size();
  if (last_.impulses.size() != 3 * static_cast<Eigen::Index>(nc) ||
      last_.problem.contacts.size() != nc) {
    return reports;
  }
  const int nb = static_cast<int>(scene_.bodies.size());
  auto name = [&](int c) {
    if (c < nb) return scene_.bodies[c].name;
    const RobotSpec& spec = scene_.robots[layout_.collider_robot[c]];
    return spec.name + "/" +
           spec.description.tree.link(layout_.collider_link[c]).name;
  };
  reports.resize(nc);
  for (size_t k = 0; k < nc; ++k) {
    const ContactPoint& cp = last_.contacts[k];
    ContactReport& report = reports[k];
    report.body_a = name(cp.body_a);
    report.body_b = name(cp.body_b);
    report.collider_a = cp.body_a;
    report.collider_b = cp.body_b;
    report.point = cp.position;
    report.normal = cp.normal;
    report.phi = cp.phi;
    const Matrix3 rows = ContactFrameRows(cp.normal);
    report.impulse = rows.transpose() * last_.impulses.segment<3>(3 * k);
    if (last_.v_next.size() == static_cast<Eigen::Index>(step_.guess.size())) {
      const Vector3 v_c = ContactVelocity(last_.problem.contacts[k],
                                          layout_.tree_offsets, last_.v_next);
      report.slip_speed = Tangential(v_c).norm();
    }
  }
  return reports;
}

Wrench TimeStepper::ContactWrench(const std::string& body_or_link) const {
  int body, r, link;
  ResolveTarget(body_or_link, "ContactWrench", &body, &r, &link);
  Wrench w;
  const size_t nc = last_.contacts.size();
  if (last_.impulses.size() != 3 * static_cast<Eigen::Index>(nc)) return w;
  const int nb = static_cast<int>(scene_.bodies.size());
  auto matches = [&](int c) {
    return body >= 0 ? c == body
                     : c >= nb && layout_.collider_robot[c] == r &&
                           layout_.collider_link[c] == link;
  };
  const Vector3 origin =
      body >= 0 ? last_.poses[body].position
                : Vector3(step_.step_link_poses[r][link].translation());
  const double dt = scene_.time_step;
  for (size_t k = 0; k < nc; ++k) {
    const ContactPoint& cp = last_.contacts[k];
    const bool on_a = matches(cp.body_a), on_b = matches(cp.body_b);
    if (on_a == on_b) continue;  // not this target's (or internal)
    const Vector3 impulse_on_b = ContactFrameRows(cp.normal).transpose() *
                                 last_.impulses.segment<3>(3 * k);
    const Vector3 f = (on_b ? impulse_on_b : Vector3(-impulse_on_b)) / dt;
    w.force += f;
    w.torque += (cp.position - origin).cross(f);
  }
  return w;
}

// The entry of robot r's joint tree index j in its actuation, -1 if none.
int TimeStepper::ActuationIndex(int r, int j) const {
  const std::vector<JointActuation>& actuation = scene_.robots[r].actuation;
  for (size_t k = 0; k < actuation.size(); ++k) {
    if (actuation[k].joint == j) return static_cast<int>(k);
  }
  return -1;
}

bool TimeStepper::IsMimicFollower(int r, int j) const {
  for (const JointCoupling& c : scene_.robots[r].description.couplings) {
    if (c.follower == j) return true;
  }
  return false;
}

void TimeStepper::SetActuationGains(int r, const std::string& joint, double kp,
                                    double kd) {
  const int i = FindJoint(r, joint);  // the robot and the name checked
  RobotSpec& spec = scene_.robots[r];
  const int j = layout_.joints_of_robot[r][i];
  if (IsMimicFollower(r, j)) {
    throw std::invalid_argument(
        "TimeStepper::SetActuationGains: robot '" + spec.name + "' joint '" +
        joint + "' follows another joint (URDF <mimic>): actuate its leader");
  }
  if (!std::isfinite(kp) || !std::isfinite(kd) || kp < 0.0 || kd < 0.0 ||
      !(kp + kd > 0.0)) {
    throw std::invalid_argument(
        "TimeStepper::SetActuationGains: robot '" + spec.name + "' joint '" +
        joint + "': kp = " + std::to_string(kp) + ", kd = " +
        std::to_string(kd) + ": expected finite gains >= 0 with kp + kd > 0");
  }
  int k = ActuationIndex(r, j);
  if (k < 0) {
    // A joint that gains actuation holds where it is.
    const MultibodyTree& tree = spec.description.tree;
    JointActuation a;
    a.joint = j;
    a.effort_limit = tree.joint(j).effort_limit;
    spec.actuation.push_back(a);
    k = static_cast<int>(spec.actuation.size()) - 1;
    inputs_.actuation_override[r].push_back(
        {true, step_.robot_state[r].q(tree.position_start(j)), 0.0, 0.0});
    last_.robot_efforts[r].conservativeResize(spec.actuation.size());
    last_.robot_efforts[r](k) = 0.0;
  }
  spec.actuation[k].kp = kp;
  spec.actuation[k].kd = kd;
}

void TimeStepper::SetActuationGains(int r, const Eigen::VectorXd& kp,
                                    const Eigen::VectorXd& kd) {
  CheckRobot(r, "SetActuationGains");
  const std::vector<std::string> names = JointNames(r);
  const Eigen::Index n = static_cast<Eigen::Index>(names.size());
  if (kp.size() != n || kd.size() != n) {
    throw std::invalid_argument(
        "TimeStepper::SetActuationGains: robot '" + scene_.robots[r].name +
        "' has " + std::to_string(n) + " joints (JointNames), got " +
        std::to_string(kp.size()) + " kp and " + std::to_string(kd.size()) +
        " kd");
  }
  // Every entry checked before any is set.
  for (Eigen::Index i = 0; i < n; ++i) {
    if (IsMimicFollower(r, layout_.joints_of_robot[r][i])) continue;
    if (!std::isfinite(kp(i)) || !std::isfinite(kd(i)) || kp(i) < 0.0 ||
        kd(i) < 0.0 || !(kp(i) + kd(i) > 0.0)) {
      throw std::invalid_argument(
          "TimeStepper::SetActuationGains: robot '" + scene_.robots[r].name +
          "' joint '" + names[i] + "': kp = " + std::to_string(kp(i)) +
          ", kd = " + std::to_string(kd(i)) +
          ": expected finite gains >= 0 with kp + kd > 0");
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (IsMimicFollower(r, layout_.joints_of_robot[r][i])) continue;
    SetActuationGains(r, names[i], kp(i), kd(i));
  }
}

void TimeStepper::SetActuationTargets(int r, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd* v) {
  CheckRobot(r, "SetActuationTargets");
  const RobotSpec& spec = scene_.robots[r];
  const std::vector<std::string> names = JointNames(r);
  const Eigen::Index n = static_cast<Eigen::Index>(names.size());
  if (q.size() != n || (v != nullptr && v->size() != n)) {
    throw std::invalid_argument(
        "TimeStepper::SetActuationTargets: robot '" + spec.name + "' has " +
        std::to_string(n) + " joints (JointNames), got " +
        std::to_string(q.size()) + " positions" +
        (v != nullptr ? " and " + std::to_string(v->size()) + " velocities"
                      : std::string()));
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const int j = layout_.joints_of_robot[r][i];
    if (IsMimicFollower(r, j)) continue;
    if (!std::isfinite(q(i)) || (v != nullptr && !std::isfinite((*v)(i)))) {
      throw std::invalid_argument("TimeStepper::SetActuationTargets: robot '" +
                                  spec.name + "' joint '" + names[i] +
                                  "': targets must be finite");
    }
    if (ActuationIndex(r, j) < 0) {
      throw std::invalid_argument(
          "TimeStepper::SetActuationTargets: robot '" + spec.name +
          "' joint '" + names[i] +
          "' has no actuation: give it gains first (SetActuationGains)");
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const int j = layout_.joints_of_robot[r][i];
    if (IsMimicFollower(r, j)) continue;
    const int k = ActuationIndex(r, j);
    ActuationOverride& o = inputs_.actuation_override[r][k];
    const double feedforward = o.active ? o.feedforward : 0.0;
    o = {true, q(i), v != nullptr ? (*v)(i) : 0.0, feedforward};
  }
}

}  // namespace sapcontact
