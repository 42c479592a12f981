// Python Simulation's forces and contacts (docs/python.md "Controller
// API"): apply_force on a body or a robot's link ("robot/link") at a point,
// world or body frame; apply_generalized_forces; set_joint_torques;
// clear_forces; contacts() and contact_wrench(). Forces are held here and
// handed to the TimeStepper before every step (ApplyHeldForces): a
// body-frame force turns with its body, and a link's generalized forces
// J' (f, tau) follow the robot's configuration.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "python/bindings.h"
#include "python/name_lookup.h"
#include "python/numpy_arguments.h"
#include "python/simulation_binding.h"
#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/collision/contact_point.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {
namespace {

const Eigen::Vector3d kZero = Eigen::Vector3d::Zero();

// A wrench target: "box" (a body) or "arm/link3" (a robot's link).
HeldWrench ResolveTarget(const PySimulation& s, const py::object& target) {
  HeldWrench w;
  if (!py::isinstance<py::str>(target)) {
    w.body = s.BodyIndex(target);
    return w;
  }
  const std::string name = target.cast<std::string>();
  const Scene& scene = s.stepper->scene();
  const size_t slash = name.find('/');
  if (slash == std::string::npos) {
    if (scene.FindBody(name) < 0 && scene.FindRobot(name) >= 0) {
      throw py::value_error("target: '" + name +
                            "' is a robot: name one of its links as '" + name +
                            "/LINK' (link_names)");
    }
    std::vector<std::string> names;
    for (const Body& b : scene.bodies) names.push_back(b.name);
    w.body = IndexOfName(name, names, "target", "body");
    return w;
  }
  w.robot = s.RobotIndex(py::str(name.substr(0, slash)));
  w.link = s.LinkIndex(w.robot, name.substr(slash + 1));
  return w;
}

Eigen::Vector3d OptionalVector3(const py::object& value, const char* name) {
  return value.is_none() ? kZero : Eigen::Vector3d(ToVector3(value, name));
}

// Per-contact world impulses on B (the contact frame's rows turned back).
Eigen::Vector3d WorldImpulse(const ContactPoint& c, const Eigen::Vector3d& g) {
  return ContactFrameRows(c.normal).transpose() * g;
}

// The end-of-step generalized velocities in the problem's tree order (the
// moving bodies' (v, w), then the robots with DOFs), as contacts.csv has
// them (sim/stepping/simulation.cc).
Eigen::VectorXd EndVelocities(const TimeStepper& stepper) {
  const Scene& scene = stepper.scene();
  std::vector<double> v;
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    if (scene.bodies[b].fixed) continue;
    for (int k = 0; k < 3; ++k) v.push_back(stepper.state()[b].velocity[k]);
    for (int k = 0; k < 3; ++k) {
      v.push_back(stepper.state()[b].angular_velocity[k]);
    }
  }
  for (const RobotState& r : stepper.robot_states()) {
    for (Eigen::Index k = 0; k < r.v.size(); ++k) v.push_back(r.v[k]);
  }
  return Eigen::Map<Eigen::VectorXd>(v.data(),
                                     static_cast<Eigen::Index>(v.size()));
}

// Slip speed |v_t| of each contact at the end of the last step (v_c = J v
// + bias with the state's velocities); NaN where the problem does not
// match (no step yet).
Eigen::VectorXd SlipSpeeds(const TimeStepper& stepper) {
  const auto& contacts = stepper.last_contacts();
  const SapProblem& problem = stepper.last_problem();
  const int nc = static_cast<int>(contacts.size());
  Eigen::VectorXd slip =
      Eigen::VectorXd::Constant(nc, std::numeric_limits<double>::quiet_NaN());
  const Eigen::VectorXd v = EndVelocities(stepper);
  if (static_cast<int>(problem.contacts.size()) != nc ||
      v.size() != problem.num_velocities()) {
    return slip;
  }
  const std::vector<int> offsets = problem.TreeOffsets();
  for (int k = 0; k < nc; ++k) {
    const Contact& c = problem.contacts[k];
    Eigen::Vector3d v_c = c.bias_velocity;
    if (c.first.tree >= 0) {
      v_c += c.first.J * v.segment(offsets[c.first.tree], c.first.J.cols());
    }
    if (c.second && c.second->tree >= 0) {
      v_c +=
          c.second->J * v.segment(offsets[c.second->tree], c.second->J.cols());
    }
    slip[k] = std::hypot(v_c[kTangent1], v_c[kTangent2]);
  }
  return slip;
}

}  // namespace

void PySimulation::ApplyHeldForces() {
  if (!holds_forces) return;
  const Scene& scene = stepper->scene();
  std::vector<Eigen::VectorXd> tau(scene.robots.size());
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    for (const Eigen::VectorXd* t :
         {&generalized_forces[r], &joint_torques[r]}) {
      if (t->size() == 0) continue;
      tau[r] = tau[r].size() == 0 ? *t : Eigen::VectorXd(tau[r] + *t);
    }
  }
  // Bodies: the wrench about the centre of mass, world frame.
  std::vector<Eigen::Vector3d> force(scene.bodies.size(), kZero),
      torque(scene.bodies.size(), kZero);
  std::vector<bool> touched(scene.bodies.size(), false);
  for (const HeldWrench& w : wrenches) {
    if (w.body >= 0) {
      const Eigen::Matrix3d R =
          stepper->state()[w.body].pose.orientation.toRotationMatrix();
      const Eigen::Vector3d f =
          w.body_frame ? Eigen::Vector3d(R * w.force) : w.force;
      const Eigen::Vector3d t =
          w.body_frame ? Eigen::Vector3d(R * w.torque) : w.torque;
      force[w.body] += f;
      torque[w.body] += t + (R * w.point).cross(f);
      touched[w.body] = true;
      continue;
    }
    // A link: generalized forces J' (f, tau) of the frame at the point.
    const MultibodyTree& tree = scene.robots[w.robot].description.tree;
    const std::vector<Eigen::Isometry3d> X = stepper->LinkPoses(w.robot);
    const Eigen::Matrix3d R = X[w.link].rotation();
    Eigen::Matrix<double, 6, 1> wrench;
    wrench << (w.body_frame ? Eigen::Vector3d(R * w.force) : w.force),
        (w.body_frame ? Eigen::Vector3d(R * w.torque) : w.torque);
    Eigen::MatrixXd J;
    CalcFrameJacobian(tree, X, w.link, X[w.link] * w.point, &J);
    const Eigen::VectorXd g = J.transpose() * wrench;
    tau[w.robot] =
        tau[w.robot].size() == 0 ? g : Eigen::VectorXd(tau[w.robot] + g);
  }
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    if (touched[b])
      stepper->SetAppliedWrench(static_cast<int>(b), force[b], torque[b]);
  }
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    if (tau[r].size() > 0)
      stepper->SetAppliedGeneralizedForces(static_cast<int>(r), tau[r]);
  }
}

void PySimulation::StepWithoutGil(int n) {
  for (int i = 0; i < n; ++i) {
    ApplyHeldForces();
    last = stepper->Step();
  }
}

void DefineSimulationControl(py::class_<PySimulation>& c) {
  c.def(
      "apply_force",
      [](PySimulation& s, const py::object& target, const py::object& force,
         const py::object& torque, const py::object& point,
         const std::string& frame) {
        HeldWrench w = ResolveTarget(s, target);
        const Scene& scene = s.stepper->scene();
        if (w.body >= 0 && scene.bodies[w.body].fixed) {
          throw py::value_error("target: '" + scene.bodies[w.body].name +
                                "' is fixed (forces act on moving bodies "
                                "and robot links only)");
        }
        if (frame != "world" && frame != "body") {
          throw py::value_error("frame: '" + frame +
                                "' is not one of 'world', 'body'");
        }
        w.force = ToVector3(force, "force");
        w.torque = OptionalVector3(torque, "torque");
        w.point = OptionalVector3(point, "point");
        w.body_frame = frame == "body";
        if (!w.force.allFinite() || !w.torque.allFinite() ||
            !w.point.allFinite()) {
          throw py::value_error(
              "apply_force: force, torque and point must be finite");
        }
        const auto lock = s.Lock();
        bool replaced = false;
        for (HeldWrench& held : s.wrenches) {
          if (held.body == w.body && held.robot == w.robot &&
              held.link == w.link) {
            held = w;
            replaced = true;
          }
        }
        if (!replaced) s.wrenches.push_back(w);
        s.holds_forces = true;
        s.ApplyHeldForces();
      },
      py::arg("target"), py::arg("force"), py::arg("torque") = py::none(),
      py::arg("point") = py::none(), py::arg("frame") = "world",
      "Applies a force [N] and a torque [N m] to `target` during every "
      "following step until replaced (another apply_force on the same "
      "target) or cleared (clear_forces).\n\n"
      "target: a moving body (name or index) or a robot's link as "
      "'robot/link'. point: where the force acts, in the target's frame "
      "[m] (a body's frame is at its centre of mass; a link's is the link "
      "frame; default the origin): it adds point x force to the torque. "
      "frame: 'world' (default) or 'body': the frame force and torque are "
      "given in; a body-frame force turns with the target. A link's wrench "
      "enters as generalized forces J' (force, torque), J the frame "
      "Jacobian at the point (link_jacobian), recomputed every step. "
      "Raises ValueError for an unknown or fixed target, naming the "
      "nearest names.");
  c.def(
      "apply_generalized_forces",
      [](PySimulation& s, const py::object& robot, const py::object& tau) {
        const int r = s.RobotIndex(robot);
        const Eigen::VectorXd t = ToVector(tau, "tau");
        const auto lock = s.Lock();
        s.stepper->SetAppliedGeneralizedForces(r, t);  // checks the size
        s.generalized_forces[r] = t;
        s.holds_forces = true;
      },
      py::arg("robot"), py::arg("tau"),
      "Adds generalized forces tau (nv,) [N m or N] to a robot's "
      "coordinates during every following step until replaced or "
      "cleared (added to set_joint_torques' and link forces').");
  c.def(
      "set_joint_torques",
      [](PySimulation& s, const py::object& robot, const py::dict& torques) {
        const int r = s.RobotIndex(robot);
        const MultibodyTree& tree =
            s.stepper->scene().robots[r].description.tree;
        Eigen::VectorXd tau = Eigen::VectorXd::Zero(tree.num_velocities());
        for (const auto& item : torques) {
          const int j = s.JointIndex(r, py::str(item.first));
          const double value = item.second.cast<double>();
          if (!std::isfinite(value)) {
            throw py::value_error("torques['" +
                                  py::str(item.first).cast<std::string>() +
                                  "']: must be finite");
          }
          tau[tree.velocity_start(j)] = value;
        }
        const auto lock = s.Lock();
        s.joint_torques[r] = tau;
        s.holds_forces = true;
        s.ApplyHeldForces();
      },
      py::arg("robot"), py::arg("torques"),
      "Sets the robot's joint torques [N m or N], {joint: tau}, for every "
      "following step until replaced (the next call replaces them all: "
      "joints not named get 0) or cleared. They add to the PD actuation "
      "and count in robot_state's effort. Unknown joints raise ValueError "
      "naming the nearest joints.");
  c.def(
      "clear_forces",
      [](PySimulation& s) {
        const auto lock = s.Lock();
        s.stepper->ClearAppliedForces();
        s.wrenches.clear();
        for (auto& t : s.generalized_forces) t.resize(0);
        for (auto& t : s.joint_torques) t.resize(0);
        s.holds_forces = false;
      },
      "Removes every force applied with apply_force, "
      "apply_generalized_forces and set_joint_torques.");
  c.def(
      "contacts",
      [](PySimulation& s) {
        const auto lock = s.Lock();
        const auto& c = s.stepper->last_contacts();
        const Eigen::VectorXd& g = s.stepper->last_impulses();
        const int nc = static_cast<int>(c.size());
        Eigen::MatrixXd p(nc, 3), n(nc, 3), imp(nc, 3), world(nc, 3);
        Eigen::VectorXd phi(nc);
        py::list a, b;
        for (int k = 0; k < nc; ++k) {
          p.row(k) = c[k].position.transpose();
          n.row(k) = c[k].normal.transpose();
          phi[k] = c[k].phi;
          const Eigen::Vector3d gk = g.segment<3>(3 * k);
          imp.row(k) = gk.transpose();
          world.row(k) = WorldImpulse(c[k], gk).transpose();
          a.append(s.stepper->ColliderName(c[k].body_a));
          b.append(s.stepper->ColliderName(c[k].body_b));
        }
        py::dict d;
        d["body_a"] = a;
        d["body_b"] = b;
        d["point"] = ToNumpy(p);
        d["normal"] = ToNumpy(n);
        d["phi"] = ToNumpy(phi);
        d["impulse"] = ToNumpy(imp);
        d["impulse_world"] = ToNumpy(world);
        d["slip_speed"] = ToNumpy(SlipSpeeds(*s.stepper));
        return d;
      },
      "The last step's contacts as a dict of arrays (one row per contact): "
      "body_a, body_b (names: a body, or a robot link's geometry as "
      "'robot/link/k'), point (nc, 3) [m] and normal (nc, 3) (from A into "
      "B) at the start of the step, phi (nc,) [m], impulse (nc, 3) in the "
      "contact frame (n, t1, t2) [N*s], impulse_world (nc, 3): the impulse "
      "on B in the world frame (A receives the opposite), slip_speed (nc,) "
      "[m/s]: the tangential speed of B relative to A at the end of the "
      "step (contacts.csv's columns).");
  c.def(
      "contact_wrench",
      [](PySimulation& s, const std::string& name) {
        const auto lock = s.Lock();
        const Scene& scene = s.stepper->scene();
        const HeldWrench target = ResolveTarget(s, py::str(name));
        // The reference point: the body's centre of mass, or the link
        // frame's origin, at the current state.
        Eigen::Vector3d origin;
        std::string prefix;
        if (target.body >= 0) {
          origin = scene.bodies[target.body].fixed
                       ? scene.bodies[target.body].pose.position
                       : s.stepper->state()[target.body].pose.position;
        } else {
          origin =
              s.stepper->LinkPoses(target.robot)[target.link].translation();
          prefix = scene.robots[target.robot].name + "/" +
                   scene.robots[target.robot]
                       .description.tree.link(target.link)
                       .name +
                   "/";
        }
        auto is_target = [&](int collider) {
          if (target.body >= 0) return collider == target.body;
          const std::string& n = s.stepper->ColliderName(collider);
          return n.compare(0, prefix.size(), prefix) == 0;
        };
        const auto& c = s.stepper->last_contacts();
        const Eigen::VectorXd& g = s.stepper->last_impulses();
        const double dt = scene.time_step;
        Eigen::Vector3d force = kZero, torque = kZero;
        for (size_t k = 0; k < c.size(); ++k) {
          const Eigen::Vector3d on_b =
              WorldImpulse(c[k], g.segment<3>(3 * k)) / dt;
          for (const auto& [collider, f] :
               {std::pair<int, Eigen::Vector3d>{c[k].body_b, on_b},
                std::pair<int, Eigen::Vector3d>{c[k].body_a, -on_b}}) {
            if (!is_target(collider)) continue;
            force += f;
            torque += (c[k].position - origin).cross(f);
          }
        }
        py::dict d;
        d["force"] = ToNumpy(Eigen::VectorXd(force));
        d["torque"] = ToNumpy(Eigen::VectorXd(torque));
        return d;
      },
      py::arg("name"),
      "The total contact force [N] (the last step's impulses / dt) on a "
      "body or a robot link ('robot/link') and its torque [N m] about the "
      "body's centre of mass (a link: its frame's origin) at the current "
      "state, world frame, as a dict {force, torque}. Raises ValueError "
      "naming the nearest names for an unknown target.");
}

}  // namespace sapcontact::python
