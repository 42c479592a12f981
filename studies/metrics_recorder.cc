#include "sapcontact/studies/metrics_recorder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sapcontact/sim/scene/nearest_names.h"
#include "sapcontact/solver/rigid_qp/rigid_qp_solver.h"

namespace sapcontact {
namespace {

MetricsContext MakeContext(const Scene& scene, const MetricsOptions& o) {
  MetricsContext c;
  c.time_step = scene.time_step;
  c.total_steps = std::max(
      1, static_cast<int>(std::llround(scene.duration / scene.time_step)));
  c.gravity = scene.gravity;
  c.near_rigid_threshold = scene.solver.near_rigid_threshold;
  c.friction_regularization = scene.solver.friction_regularization;
  c.window_fraction = o.window_fraction;
  c.sliding_speed_mps = o.sliding_speed_mps;
  return c;
}

std::vector<std::string> CheckedNames(const MetricsOptions& o,
                                      const Scene& scene) {
  std::vector<std::string> names =
      o.metrics.empty() ? DefaultMetricNames() : o.metrics;
  CheckMetricNames(names, scene);
  return names;
}

std::vector<std::string> BodyNames(const Scene& scene) {
  std::vector<std::string> names;
  for (const Body& b : scene.bodies) names.push_back(b.name);
  return names;
}

std::vector<std::string> RobotNames(const Scene& scene) {
  std::vector<std::string> names;
  for (const RobotSpec& r : scene.robots) names.push_back(r.name);
  return names;
}

// The joint a joint metric names; throws naming what is missing.
MetricJoint FindMetricJoint(const std::string& name, const JointMetric& m,
                            const Scene& scene) {
  const std::string what = "metric '" + name + "': ";
  MetricJoint found;
  found.robot = scene.FindRobot(m.robot);
  if (found.robot < 0) {
    throw std::invalid_argument(
        what + "no robot '" + m.robot + "' in the scene" +
        (scene.robots.empty()
             ? " (it has no robots)"
             : " (robots, nearest first: " +
                   NearestNames(m.robot, RobotNames(scene), 10) + ")"));
  }
  const RobotSpec& robot = scene.robots[found.robot];
  const MultibodyTree& tree = robot.description.tree;
  std::vector<std::string> joints;
  int jt = -1;
  for (int j = 0; j < tree.num_links(); ++j) {
    if (tree.joint(j).type == JointType::kFixed) continue;
    joints.push_back(tree.joint(j).name);
    if (tree.joint(j).name == m.joint) jt = j;
  }
  if (jt < 0) {
    throw std::invalid_argument(
        what + "robot '" + m.robot + "' has no moving joint '" + m.joint +
        "' (joints, nearest first: " + NearestNames(m.joint, joints, 10) + ")");
  }
  if (tree.num_positions(jt) != 1 || tree.num_velocities(jt) != 1) {
    throw std::invalid_argument(what + "joint '" + m.joint + "' of robot '" +
                                m.robot +
                                "' has more than one degree of freedom: "
                                "joint metrics are of revolute and "
                                "prismatic joints");
  }
  found.q = tree.position_start(jt);
  found.v = tree.velocity_start(jt);
  for (size_t k = 0; k < robot.actuation.size(); ++k) {
    if (robot.actuation[k].joint == jt) found.actuator = static_cast<int>(k);
  }
  if (m.quantity == JointMetric::Quantity::kEffort && found.actuator < 0) {
    throw std::invalid_argument(what + "joint '" + m.joint + "' of robot '" +
                                m.robot + "' has no actuation (robots." +
                                m.robot + ".actuation." + m.joint +
                                " in the scene): no effort to report");
  }
  found.quantity = m.quantity;
  return found;
}

}  // namespace

void CheckMetricNames(const std::vector<std::string>& names,
                      const Scene& scene) {
  for (const std::string& name : names) {
    const std::string problem = MetricNameProblem(name);
    if (!problem.empty()) {
      throw std::invalid_argument("metric '" + name + "': " + problem);
    }
    JointMetric joint;
    if (ParseJointMetric(name, &joint)) {
      FindMetricJoint(name, joint, scene);
      continue;
    }
    BodyMetric body;
    if (!ParseBodyMetric(name, &body) || scene.FindBody(body.body) >= 0) {
      continue;
    }
    std::string message =
        "metric '" + name + "': no body '" + body.body + "' in the scene";
    if (scene.FindRobot(body.body) >= 0) {
      message += " ('" + body.body +
                 "' is a robot: body metrics are of the scene's bodies)";
    }
    message += scene.bodies.empty()
                   ? " (it has no bodies)"
                   : " (bodies, nearest first: " +
                         NearestNames(body.body, BodyNames(scene), 10) + ")";
    throw std::invalid_argument(message);
  }
}

MetricsRecorder::MetricsRecorder(const Scene& scene,
                                 const MetricsOptions& options)
    : names_(CheckedNames(options, scene)),
      sap_model_(scene.solver.model == SolverModel::kSap),
      cold_solver_(MakeSapParameters(scene.solver)),
      accumulator_(MakeContext(scene, options)) {
  for (const std::string& name : names_) {
    rigid_qp_ = rigid_qp_ || name.rfind("rigid_qp_", 0) == 0;
    cold_start_ = cold_start_ || name == "cold_start_newton_iterations";
  }
  for (int b = 0; b < static_cast<int>(scene.bodies.size()); ++b) {
    if (scene.bodies[b].fixed) continue;
    probe_ = b;
    probe_velocity_ = scene.bodies[b].velocity;
    break;
  }
  const TimeStepper initial(scene);
  mechanical_energy_ = initial.KineticEnergy() + initial.PotentialEnergy();
  const Vector3 nan = Vector3::Constant(std::nan(""));
  body_position_.assign(scene.bodies.size(), nan);
  body_velocity_.assign(scene.bodies.size(), nan);
  for (const std::string& name : names_) {
    BodyMetric body;
    metric_body_.push_back(
        ParseBodyMetric(name, &body) ? scene.FindBody(body.body) : -1);
    JointMetric joint;
    metric_joint_.push_back(ParseJointMetric(name, &joint)
                                ? FindMetricJoint(name, joint, scene)
                                : MetricJoint{});
  }
  joint_value_.assign(names_.size(), std::nan(""));
}

void MetricsRecorder::OnStep(const TimeStepper& stepper, const StepInfo& info) {
  const Scene& scene = stepper.scene();
  const SapProblem& problem = stepper.last_problem();
  MapTrees(stepper);
  StepSample& s = sample_;
  s.newton_iterations = info.newton_iterations;
  s.max_penetration = info.max_penetration;
  s.step_time_s = info.collision_time + info.solver_time;
  s.energy = mechanical_energy_ + info.elastic_energy;
  mechanical_energy_ = stepper.KineticEnergy() + stepper.PotentialEnergy();
  const SapSolverResults& sap = stepper.last_sap_results();
  s.reciprocal_condition = sap_model_ && info.newton_iterations > 0
                               ? sap.statistics.reciprocal_condition
                               : 0.0;

  const std::vector<ContactPoint>& points = stepper.last_contacts();
  const Eigen::VectorXd& gamma = stepper.last_impulses();
  const std::vector<BodyState>& state = stepper.state();
  const int nc = static_cast<int>(problem.contacts.size());
  s.contacts.resize(nc);
  std::fill(supported_.begin(), supported_.end(), 0);
  s.supported_mass = 0;
  for (int k = 0; k < nc; ++k) {
    const Contact& c = problem.contacts[k];
    ContactSample& cs = s.contacts[k];
    cs.phi0 = c.phi0;
    cs.normal = points[k].normal;
    cs.parameters = c.parameters;
    cs.impulse = gamma.size() == 3 * nc ? Vector3(gamma.segment<3>(3 * k))
                                        : Vector3::Zero();
    cs.velocity.setZero();
    for (const ContactJacobianBlock* block :
         {&c.first, c.second ? &*c.second : nullptr}) {
      if (block == nullptr) continue;
      const int owner = tree_owner_[block->tree];
      if (owner >= 0) {
        const BodyState& b = state[owner];
        v_body_ << b.velocity, b.angular_velocity;
        cs.velocity += block->J * v_body_;
      } else {
        cs.velocity += block->J * stepper.robot_states()[-owner - 1].v;
      }
    }
    const bool sap_values = sap_model_ && sap.R_n.size() == nc;
    cs.w = sap_values ? sap.delassus_estimate(k) : std::nan("");
    cs.R_n = sap_values ? sap.R_n(k) : std::nan("");
    cs.R_t = sap_values ? sap.R_t(k) : std::nan("");
    cs.effective_stiffness = sap_values && sap.effective_stiffness.size() == nc
                                 ? sap.effective_stiffness(k)
                                 : std::nan("");
    if (cs.impulse(kNormal) > 0) {
      for (int b : {points[k].body_a, points[k].body_b}) {
        // Colliders past the bodies are robot links: not bodies resting.
        if (b >= static_cast<int>(scene.bodies.size()) ||
            scene.bodies[b].fixed || supported_[b]) {
          continue;
        }
        supported_[b] = 1;
        s.supported_mass += scene.bodies[b].mass;
      }
    }
  }

  s.rigid_qp_impulse_distance = std::nan("");
  s.rigid_qp_velocity_distance = std::nan("");
  s.rigid_qp_failed = false;
  if (rigid_qp_ && sap_model_ && nc > 0) {
    RigidQpResult qp;
    try {
      qp = SolveRigidContactQp(problem);
    } catch (const std::invalid_argument&) {
      qp.status = RigidQpStatus::kNumericalError;
    }
    if (qp.status != RigidQpStatus::kSolved &&
        qp.status != RigidQpStatus::kSolvedReducedAccuracy) {
      s.rigid_qp_failed = true;
    } else {
      const double l_scale = qp.impulses.norm();
      const double v_scale = (StackedVStar(problem) - qp.velocities).norm();
      if (l_scale > 0 && v_scale > 0) {
        s.rigid_qp_impulse_distance =
            (sap.gamma - qp.impulses).norm() / l_scale;
        s.rigid_qp_velocity_distance = (sap.v - qp.velocities).norm() / v_scale;
      }
    }
  }
  s.cold_start_iterations = -1;
  if (cold_start_ && sap_model_ && nc > 0) {
    s.cold_start_iterations =
        cold_solver_.Solve(problem).statistics.newton_iterations;
  }
  ProbeSample& probe = s.probe;
  probe.valid = probe_ >= 0;
  probe.in_contact = false;
  if (probe.valid) {
    probe.velocity0 = probe_velocity_;
    probe.velocity = state[probe_].velocity;
    probe_velocity_ = probe.velocity;
    for (int k = 0; k < nc; ++k) {
      const ContactPoint& p = points[k];
      if (!(s.contacts[k].impulse(kNormal) > 0)) continue;
      if (p.body_a != probe_ && p.body_b != probe_) continue;
      probe.in_contact = true;
      // Normals point from A into B.
      probe.normal = p.body_b == probe_ ? p.normal : Vector3(-p.normal);
      probe.parameters = s.contacts[k].parameters;
      break;
    }
  }
  accumulator_.Add(s);
  for (int b : metric_body_) {
    if (b < 0) continue;
    body_position_[b] = state[b].pose.position;  // the centre of mass
    body_velocity_[b] = state[b].velocity;
  }
  for (size_t i = 0; i < metric_joint_.size(); ++i) {
    const MetricJoint& j = metric_joint_[i];
    if (j.robot < 0) continue;
    const RobotState& robot = stepper.robot_states()[j.robot];
    switch (j.quantity) {
      case JointMetric::Quantity::kPosition:
        joint_value_[i] = robot.q(j.q);
        break;
      case JointMetric::Quantity::kVelocity:
        joint_value_[i] = robot.v(j.v);
        break;
      case JointMetric::Quantity::kEffort:
        joint_value_[i] = stepper.ActuationEfforts(j.robot)(j.actuator);
        break;
    }
  }
}

void MetricsRecorder::MapTrees(const TimeStepper& stepper) {
  // The trees of the last problem: the awake free bodies in scene order,
  // then the robots with degrees of freedom in scene order
  // (TimeStepper::ProblemTree). Sleeping changes them from step to step.
  const Scene& scene = stepper.scene();
  const int trees = static_cast<int>(stepper.last_problem().trees.size());
  tree_owner_.assign(trees, kNoOwner);
  supported_.assign(scene.bodies.size(), 0);
  int body_trees = 0;
  for (int b = 0; b < static_cast<int>(scene.bodies.size()); ++b) {
    const int t = stepper.ProblemTree(b);
    if (t < 0) continue;
    if (t >= trees) break;
    tree_owner_[t] = b;
    ++body_trees;
  }
  int t = body_trees;
  for (int r = 0; r < static_cast<int>(scene.robots.size()) && t < trees; ++r) {
    if (stepper.robot_states()[r].v.size() > 0) tree_owner_[t++] = -r - 1;
  }
  for (int owner : tree_owner_) {
    if (owner == kNoOwner) {
      throw std::logic_error(
          "metrics: a tree of the step is neither a body "
          "nor a robot");
    }
  }
}

std::vector<MetricValue> MetricsRecorder::Metrics() const {
  std::vector<std::string> scalar;  // the accumulator's
  for (size_t i = 0; i < names_.size(); ++i) {
    if (metric_body_[i] < 0 && metric_joint_[i].robot < 0) {
      scalar.push_back(names_[i]);
    }
  }
  const std::vector<MetricValue> scalar_values = accumulator_.Metrics(scalar);
  std::vector<MetricValue> out;
  size_t next_scalar = 0;
  for (size_t i = 0; i < names_.size(); ++i) {
    const int b = metric_body_[i];
    if (metric_joint_[i].robot >= 0) {
      out.push_back({names_[i], joint_value_[i]});
      continue;
    }
    if (b < 0) {
      out.push_back(scalar_values[next_scalar++]);
      continue;
    }
    BodyMetric body;
    ParseBodyMetric(names_[i], &body);
    const Vector3& v = body.quantity == BodyMetric::Quantity::kPosition
                           ? body_position_[b]
                           : body_velocity_[b];
    const std::vector<std::string> columns = MetricColumns(names_[i]);
    if (body.component >= 0) {
      out.push_back({columns[0], v(body.component)});
    } else {
      for (int c = 0; c < 3; ++c) out.push_back({columns[c], v(c)});
    }
  }
  return out;
}

std::vector<MetricValue> MetricsRecorder::Estimates() const {
  return accumulator_.Estimates();
}

}  // namespace sapcontact
