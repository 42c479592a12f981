// Python Simulation's robot methods (docs/python.md "Controller API"):
// joint_names, robot_state and set_robot_state (per joint q, v, effort;
// arrays in joint order or {joint: value} dicts), link_names, link_pose,
// link_velocity and link_jacobian (world frame, at the current state), on
// the TimeStepper's controller API (sim/stepping/time_stepper.h). Joints are
// the robot's 1-DOF joints (revolute, prismatic) in tree order; a floating base
// is not a joint (its 7 positions and 6 velocities are "base_q", "base_v").
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/name_lookup.h"
#include "python/numpy_arguments.h"
#include "python/simulation_binding.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {

std::vector<int> PySimulation::Joints(int r) const {
  const MultibodyTree& tree = stepper->scene().robots[r].description.tree;
  std::vector<int> joints;
  for (int j = 0; j < tree.num_links(); ++j) {
    const JointType type = tree.joint(j).type;
    if (type == JointType::kRevolute || type == JointType::kPrismatic) {
      joints.push_back(j);
    }
  }
  return joints;
}

std::vector<std::string> PySimulation::JointNames(int r) const {
  return stepper->JointNames(r);
}

int PySimulation::JointIndex(int r, const std::string& joint) const {
  const std::vector<int> joints = Joints(r);
  return joints[IndexOfName(
      joint, JointNames(r), "joint",
      "joint of robot '" + stepper->scene().robots[r].name + "'")];
}

int PySimulation::LinkIndex(int r, const std::string& link) const {
  const MultibodyTree& tree = stepper->scene().robots[r].description.tree;
  std::vector<std::string> names;
  for (int l = 0; l < tree.num_links(); ++l) names.push_back(tree.link(l).name);
  return IndexOfName(link, names, "link",
                     "link of robot '" + stepper->scene().robots[r].name + "'");
}

namespace {

py::tuple PoseTuple(const Eigen::Isometry3d& X) {
  const Eigen::Quaterniond q(X.rotation());
  return py::make_tuple(
      ToNumpy(Eigen::VectorXd(X.translation())),
      ToNumpy(Eigen::VectorXd(Eigen::Vector4d(q.w(), q.x(), q.y(), q.z()))));
}

// A point argument in a link frame (None: the origin).
Eigen::Vector3d OptionalPoint(const py::object& point) {
  return point.is_none() ? Eigen::Vector3d::Zero()
                         : Eigen::Vector3d(ToVector3(point, "point"));
}

// New values for robot r's positions (velocities: `velocities`) from an
// array of every coordinate (nq or nv), an array of one value per joint,
// or a {joint: value} dict; `current` is kept where nothing is given.
Eigen::VectorXd JointValues(const PySimulation& s, int r,
                            const py::object& values, bool velocities,
                            const Eigen::VectorXd& current) {
  const MultibodyTree& tree = s.stepper->scene().robots[r].description.tree;
  const char* name = velocities ? "v" : "q";
  Eigen::VectorXd out = current;
  const std::vector<int> joints = s.Joints(r);
  auto start = [&](int j) {
    return velocities ? tree.velocity_start(j) : tree.position_start(j);
  };
  if (py::isinstance<py::dict>(values)) {
    for (const auto& item : values.cast<py::dict>()) {
      const int j = s.JointIndex(r, py::str(item.first));
      out[start(j)] = item.second.cast<double>();
    }
    return out;
  }
  const Eigen::VectorXd x = ToVector(values, name);
  if (x.size() == current.size()) return x;
  if (x.size() == static_cast<Eigen::Index>(joints.size())) {
    for (size_t k = 0; k < joints.size(); ++k) out[start(joints[k])] = x[k];
    return out;
  }
  throw py::value_error(
      std::string(name) + ": expected " + std::to_string(joints.size()) +
      " values (one per joint: " + std::to_string(joints.size()) +
      " joints) or " + std::to_string(current.size()) +
      " (every coordinate), or a {joint: value} dict; got " +
      std::to_string(x.size()));
}

}  // namespace

py::dict RobotStateDict(const PySimulation& s, int r) {
  const RobotSpec& robot = s.stepper->scene().robots[r];
  const MultibodyTree& tree = robot.description.tree;
  const RobotState& state = s.stepper->robot_states()[r];
  py::dict d;
  d["joints"] = s.JointNames(r);
  d["q"] = ToNumpy(s.stepper->JointPositions(r));
  d["v"] = ToNumpy(s.stepper->JointVelocities(r));
  d["effort"] = ToNumpy(s.stepper->JointEfforts(r));
  if (tree.num_links() > 0 && tree.joint(0).type == JointType::kFloating) {
    d["base_q"] = ToNumpy(Eigen::VectorXd(state.q.head(7)));
    d["base_v"] = ToNumpy(Eigen::VectorXd(state.v.head(6)));
  }
  return d;
}

void DefineSimulationRobots(py::class_<PySimulation>& c) {
  c.def(
      "joint_names",
      [](const PySimulation& s, const py::object& robot) {
        return s.JointNames(s.RobotIndex(robot));
      },
      py::arg("robot"),
      "The robot's joints with a degree of freedom (revolute, prismatic), "
      "tree order: the order of robot_state's arrays. A floating base is "
      "not listed (robot_state's base_q, base_v).");
  c.def(
      "robot_state",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return RobotStateDict(s, r);
      },
      py::arg("robot"),
      "The robot's joint state as a dict: joints (names), q [rad or m], v "
      "[rad/s or m/s] and effort [N m or N] (numpy arrays in joint order); "
      "effort is the last step's PD actuation effort plus the applied joint "
      "torques (set_joint_torques, apply_generalized_forces), 0 for a "
      "joint without either. A floating base adds base_q (x, y, z, qw, qx, "
      "qy, qz) and base_v (linear, angular velocity).");
  c.def(
      "set_robot_state",
      [](PySimulation& s, const py::object& robot, const py::object& q,
         const py::object& v) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        RobotState state = s.stepper->robot_states()[r];
        if (!q.is_none()) state.q = JointValues(s, r, q, false, state.q);
        if (!v.is_none()) state.v = JointValues(s, r, v, true, state.v);
        if (!state.q.allFinite() || !state.v.allFinite()) {
          throw py::value_error("set_robot_state: values must be finite");
        }
        s.stepper->SetRobotState(r, state);
      },
      py::arg("robot"), py::arg("q") = py::none(), py::arg("v") = py::none(),
      "Replaces the robot's positions q and velocities v: each None (kept), "
      "an array with one value per joint (joint_names order), an array of "
      "every coordinate (floating base first), or a {joint: value} dict "
      "(other joints kept). Raises ValueError naming the nearest joints for "
      "an unknown joint.");
  c.def(
      "set_actuation_target",
      [](PySimulation& s, const py::object& robot, const std::string& joint,
         double position, double velocity, double feedforward) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        s.stepper->SetActuationTarget(r, joint, position, velocity,
                                      feedforward);
      },
      py::arg("robot"), py::arg("joint"), py::arg("position"),
      py::arg("velocity") = 0.0, py::arg("feedforward") = 0.0,
      "Overrides the PD targets of an actuated joint (the scene's "
      "robots[i].actuation.<joint>) from the next step on, until "
      "clear_actuation_targets: position [rad or m], velocity [rad/s or "
      "m/s], feed-forward effort [N m or N]; the gains and effort limit "
      "stay the scene's. Raises ValueError for a joint without actuation "
      "(listing the actuated ones) or non-finite values.");
  c.def(
      "clear_actuation_targets",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        s.stepper->ClearActuationTargets(r);
      },
      py::arg("robot"),
      "The robot's actuated joints go back to the scene's target "
      "functions.");
  c.def(
      "set_actuation_gains",
      [](PySimulation& s, const py::object& robot, const py::object& kp,
         const py::object& kd, const py::object& joint) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        if (!joint.is_none()) {
          const std::string name = py::str(joint);
          s.JointIndex(r, name);  // ValueError naming the nearest joints
          s.stepper->SetActuationGains(r, name, kp.cast<double>(),
                                       kd.cast<double>());
          return;
        }
        const Eigen::Index n =
            static_cast<Eigen::Index>(s.JointNames(r).size());
        auto per_joint = [&](const py::object& x, const char* what) {
          if (py::isinstance<py::float_>(x) || py::isinstance<py::int_>(x)) {
            return Eigen::VectorXd::Constant(n, x.cast<double>()).eval();
          }
          return ToVector(x, what);
        };
        s.stepper->SetActuationGains(r, per_joint(kp, "kp"),
                                     per_joint(kd, "kd"));
      },
      py::arg("robot"), py::arg("kp"), py::arg("kd"),
      py::arg("joint") = py::none(),
      "Implicit PD gains from the next step on (stable for any gains; "
      "docs/robots.md, \"Actuation at run time\"): kp [N m/rad or N/m] and "
      "kd [N m s/rad or N s/m] of one joint (joint=...), or of every joint: "
      "numbers for all, or arrays in joint_names order (mimic followers' "
      "entries ignored: they follow their leader). A joint without "
      "actuation gains one, which holds its current position until "
      "set_actuation_targets; its effort limit is the URDF's. Raises "
      "ValueError for gains < 0, kp + kd = 0 or a wrong size.");
  c.def(
      "set_actuation_targets",
      [](PySimulation& s, const py::object& robot, const py::object& q,
         const py::object& v) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        const Eigen::VectorXd qd = ToVector(q, "q");
        if (v.is_none()) {
          s.stepper->SetActuationTargets(r, qd);
        } else {
          const Eigen::VectorXd vd = ToVector(v, "v");
          s.stepper->SetActuationTargets(r, qd, &vd);
        }
      },
      py::arg("robot"), py::arg("q"), py::arg("v") = py::none(),
      "PD targets of every actuated joint at once from the next step on, "
      "until clear_actuation_targets: q [rad or m] and v [rad/s or m/s] "
      "(default 0), arrays in joint_names order (mimic followers' entries "
      "ignored). Every joint must be actuated (set_actuation_gains).");
  c.def(
      "link_names",
      [](const PySimulation& s, const py::object& robot) {
        const MultibodyTree& tree =
            s.stepper->scene().robots[s.RobotIndex(robot)].description.tree;
        std::vector<std::string> names;
        for (int l = 0; l < tree.num_links(); ++l) {
          names.push_back(tree.link(l).name);
        }
        return names;
      },
      py::arg("robot"), "The robot's links, tree order (the root first).");
  c.def(
      "link_pose",
      [](PySimulation& s, const py::object& robot, const std::string& link) {
        const int r = s.RobotIndex(robot);
        s.LinkIndex(r, link);  // ValueError naming the nearest links
        const auto lock = s.Lock();
        return PoseTuple(s.stepper->LinkPose(r, link));
      },
      py::arg("robot"), py::arg("link"),
      "World pose of the link frame at the current state: (position (3,) "
      "[m], quaternion (4,) (w, x, y, z)).");
  c.def(
      "link_velocity",
      [](PySimulation& s, const py::object& robot, const std::string& link) {
        const int r = s.RobotIndex(robot);
        s.LinkIndex(r, link);  // ValueError naming the nearest links
        const auto lock = s.Lock();
        const SpatialVelocity V = s.stepper->LinkVelocity(r, link);
        return py::make_tuple(ToNumpy(Eigen::VectorXd(V.linear)),
                              ToNumpy(Eigen::VectorXd(V.angular)));
      },
      py::arg("robot"), py::arg("link"),
      "(linear velocity of the link frame's origin (3,) [m/s], angular "
      "velocity (3,) [rad/s]), world frame, at the current state.");
  c.def(
      "link_jacobian",
      [](PySimulation& s, const py::object& robot, const std::string& link,
         const py::object& point) {
        const int r = s.RobotIndex(robot);
        s.LinkIndex(r, link);  // ValueError naming the nearest links
        const Eigen::Vector3d p_L = OptionalPoint(point);
        const auto lock = s.Lock();
        const Eigen::MatrixXd J = s.stepper->LinkJacobian(r, link, p_L);
        return ToNumpy(J);
      },
      py::arg("robot"), py::arg("link"), py::arg("point") = py::none(),
      "The (6, nv) Jacobian of a frame fixed on the link with origin at "
      "`point` (link frame [m]; default the link origin), world frame: rows "
      "0-2 its origin's linear velocity, rows 3-5 the angular velocity, "
      "columns the robot's velocities (floating base first, then the "
      "joints: J[:, -len(joint_names):] for a floating robot).");
}

}  // namespace sapcontact::python
