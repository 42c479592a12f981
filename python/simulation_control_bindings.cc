// Python Simulation's forces and contacts (docs/python.md "Controller
// API"), on the C++ TimeStepper's controller API (sim/stepping/
// time_stepper.h): apply_force on a body or a robot's link ("robot/link")
// at a point, world or body frame (ApplyWrench); apply_generalized_forces;
// set_joint_torques (SetJointTorque); clear_forces; contacts() and
// contact_wrench(); sleeping bodies and wake_up. Names are checked here first
// so that messages name the Python argument and the nearest candidates.
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
#include "sapcontact/collision/contact_point.h"
#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {
namespace {

// A wrench target: "box" (a body, or its index) or "arm/link3" (a robot's
// link), checked here so that errors name the argument; `name` is the
// TimeStepper's spelling of it.
struct Target {
  int body{-1};             // scene body, or -1 for a link
  int robot{-1}, link{-1};  // a robot's link (tree link index)
  std::string name;
};

Target ResolveTarget(const PySimulation& s, const py::object& target) {
  Target w;
  const Scene& scene = s.stepper->scene();
  if (!py::isinstance<py::str>(target)) {
    w.body = s.BodyIndex(target);
    w.name = scene.bodies[w.body].name;
    return w;
  }
  const std::string name = target.cast<std::string>();
  w.name = name;
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
  return value.is_none() ? Eigen::Vector3d::Zero()
                         : Eigen::Vector3d(ToVector3(value, name));
}

// Per-contact world impulses on B (the contact frame's rows turned back).
Eigen::Vector3d WorldImpulse(const ContactPoint& c, const Eigen::Vector3d& g) {
  return ContactFrameRows(c.normal).transpose() * g;
}

}  // namespace

void DefineSimulationControl(py::class_<PySimulation>& c) {
  c.def(
      "apply_force",
      [](PySimulation& s, const py::object& target, const py::object& force,
         const py::object& torque, const py::object& point,
         const std::string& frame) {
        const Target t = ResolveTarget(s, target);
        const Scene& scene = s.stepper->scene();
        if (t.body >= 0 && scene.bodies[t.body].fixed) {
          throw py::value_error("target: '" + scene.bodies[t.body].name +
                                "' is fixed (forces act on moving bodies "
                                "and robot links only)");
        }
        if (frame != "world" && frame != "body") {
          throw py::value_error("frame: '" + frame +
                                "' is not one of 'world', 'body'");
        }
        const Eigen::Vector3d f = ToVector3(force, "force");
        const Eigen::Vector3d tau = OptionalVector3(torque, "torque");
        const Eigen::Vector3d p = OptionalVector3(point, "point");
        const auto lock = s.Lock();
        s.stepper->ApplyWrench(
            t.name, f, tau, p,
            frame == "body" ? WrenchFrame::kBody : WrenchFrame::kWorld);
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
  c.def_property_readonly(
      "sleeping",
      [](PySimulation& s) {
        const auto lock = s.Lock();
        std::vector<std::string> names;
        const Scene& scene = s.stepper->scene();
        for (size_t b = 0; b < scene.bodies.size(); ++b) {
          if (s.stepper->IsAsleep(static_cast<int>(b))) {
            names.push_back(scene.bodies[b].name);
          }
        }
        return names;
      },
      "Names of the bodies asleep now (solver.sleep; docs/scenes.md "
      "\"Sleeping\"), scene order; empty without sleeping.");
  c.def(
      "wake_up",
      [](PySimulation& s, const py::object& body) {
        const int b = s.BodyIndex(body);
        const auto lock = s.Lock();
        s.stepper->WakeUp(b);
      },
      py::arg("body"),
      "Wakes the island of `body` (name or index): every body that fell "
      "asleep with it moves again from the next step. apply_force and "
      "set_body_state wake their bodies by themselves. Raises ValueError "
      "for an unknown body.");
  c.def(
      "apply_generalized_forces",
      [](PySimulation& s, const py::object& robot, const py::object& tau) {
        const int r = s.RobotIndex(robot);
        const Eigen::VectorXd t = ToVector(tau, "tau");
        const auto lock = s.Lock();
        s.stepper->SetAppliedGeneralizedForces(r, t);
      },
      py::arg("robot"), py::arg("tau"),
      "Adds generalized forces tau (nv,) [N m or N] to a robot's "
      "coordinates during every following step until replaced or "
      "cleared (added to set_joint_torques' and link forces').");
  c.def(
      "set_joint_torques",
      [](PySimulation& s, const py::object& robot, const py::dict& torques) {
        const int r = s.RobotIndex(robot);
        // Every name checked before any torque is set.
        const std::vector<std::string> joints = s.JointNames(r);
        std::vector<double> tau(joints.size(), 0.0);
        for (const auto& item : torques) {
          const std::string joint = py::str(item.first);
          s.JointIndex(r, joint);  // ValueError naming the nearest joints
          for (size_t k = 0; k < joints.size(); ++k) {
            if (joints[k] == joint) tau[k] = item.second.cast<double>();
          }
          if (!std::isfinite(item.second.cast<double>())) {
            throw py::value_error("torques['" + joint + "']: must be finite");
          }
        }
        const auto lock = s.Lock();
        for (size_t k = 0; k < joints.size(); ++k) {
          s.stepper->SetJointTorque(r, joints[k], tau[k]);
        }
      },
      py::arg("robot"), py::arg("torques"),
      "Sets the robot's joint torques [N m or N], {joint: tau}, for every "
      "following step until replaced (the next call replaces them all: "
      "joints not named get 0) or cleared. They add to the PD actuation "
      "and count in robot_state's effort. Unknown joints raise ValueError "
      "naming the nearest joints.");
  c.def(
      "set_controls",
      [](PySimulation& s, const py::object& robot, const py::object& u) {
        const int r = s.RobotIndex(robot);
        const Eigen::VectorXd x = ToVector(u, "u");
        const auto lock = s.Lock();
        try {
          s.stepper->SetControls(r, x);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("robot"), py::arg("u"),
      "Sets the controls of the robot's actuators (actuator_names order; an "
      "MJCF file's motors and servos) for every following step until "
      "replaced: a motor k adds gear_k * u_k, u_k clamped to its control and "
      "force ranges, to its joint; a position or velocity servo sets its "
      "joint's PD target to u_k / gear_k. Zero at the start. Raises "
      "ValueError for a wrong size or non-finite values.");
  c.def(
      "controls",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(s.stepper->Controls(r));
      },
      py::arg("robot"),
      "The actuators' controls last set (zeros at the start).");
  c.def(
      "actuator_names",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        return s.stepper->ActuatorNames(r);
      },
      py::arg("robot"), "The robot's actuators, in control order.");
  c.def(
      "clear_forces",
      [](PySimulation& s) {
        const auto lock = s.Lock();
        s.stepper->ClearAppliedForces();
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
        const std::vector<ContactReport> reports = s.stepper->Contacts();
        Eigen::VectorXd slip = Eigen::VectorXd::Constant(
            nc, std::numeric_limits<double>::quiet_NaN());
        if (static_cast<int>(reports.size()) == nc) {
          for (int k = 0; k < nc; ++k) slip[k] = reports[k].slip_speed;
        }
        d["slip_speed"] = ToNumpy(slip);
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
        const Target target = ResolveTarget(s, py::str(name));
        const Wrench w = s.stepper->ContactWrench(target.name);
        py::dict d;
        d["force"] = ToNumpy(Eigen::VectorXd(w.force));
        d["torque"] = ToNumpy(Eigen::VectorXd(w.torque));
        return d;
      },
      py::arg("name"),
      "The total contact force [N] (the last step's impulses / dt) on a "
      "body or a robot link ('robot/link') and its torque [N m] about the "
      "body's centre of mass (a link: its frame's origin) at the start of "
      "the step, world frame, as a dict {force, torque}. Raises ValueError "
      "naming the nearest names for an unknown target.");
}

}  // namespace sapcontact::python
