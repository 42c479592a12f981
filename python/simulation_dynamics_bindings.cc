// Python Simulation's robot dynamics (docs/robots.md "Robot dynamics",
// docs/python.md): mass_matrix, bias_forces, gravity_forces,
// center_of_mass, center_of_mass_jacobian, joint_limits and link_inertias
// at the current state (sim/stepping/robot_dynamics.h). Coordinates in
// robot_state order: a floating base's 7 positions and 6 velocities first.
#include <pybind11/stl.h>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/simulation_binding.h"
#include "sapcontact/sim/stepping/robot_dynamics.h"

namespace sapcontact::python {

void DefineSimulationDynamics(py::class_<PySimulation>& c) {
  c.def(
      "mass_matrix",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(RobotMassMatrix(*s.stepper, r));
      },
      py::arg("robot"),
      "M(q), (nv, nv) [kg, kg m, kg m^2], at the current state: the "
      "kinetic energy is v' M v / 2. Columns and rows in the order of the "
      "robot's velocities (a floating base's 6 first, then the joints).");
  c.def(
      "bias_forces",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(RobotBiasForces(*s.stepper, r));
      },
      py::arg("robot"),
      "c(q, v), (nv,) [N m or N]: the Coriolis, centrifugal and gravity "
      "generalized forces at the current state, in M dv/dt + c = tau "
      "(without contact, limits, actuation and joint damping).");
  c.def(
      "gravity_forces",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(RobotGravityForces(*s.stepper, r));
      },
      py::arg("robot"),
      "g(q) = c(q, 0), (nv,) [N m or N]: the gravity part of bias_forces, "
      "the gradient of the potential energy; applied as joint torques it "
      "holds the robot still against gravity.");
  c.def(
      "center_of_mass",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(Eigen::VectorXd(RobotCenterOfMass(*s.stepper, r)));
      },
      py::arg("robot"), "The robot's centre of mass (3,) [m], world frame.");
  c.def(
      "center_of_mass_jacobian",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        return ToNumpy(RobotCenterOfMassJacobian(*s.stepper, r));
      },
      py::arg("robot"),
      "J_com, (3, nv): the centre of mass's world velocity is J_com v.");
  c.def(
      "joint_limits",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        const RobotJointLimits l = RobotLimits(*s.stepper, r);
        py::dict d;
        d["joints"] = l.joints;
        d["lower"] = ToNumpy(l.lower);
        d["upper"] = ToNumpy(l.upper);
        d["velocity"] = ToNumpy(l.velocity);
        d["effort"] = ToNumpy(l.effort);
        return d;
      },
      py::arg("robot"),
      "The URDF's joint limits as a dict of numpy arrays in joint_names "
      "order: lower, upper [rad or m] (-inf, inf: none), velocity [rad/s "
      "or m/s] and effort [N m or N] (inf: none); joints: the names.");
  c.def(
      "link_inertias",
      [](PySimulation& s, const py::object& robot) {
        const int r = s.RobotIndex(robot);
        const auto lock = s.Lock();
        const RobotLinkInertias in = RobotInertias(*s.stepper, r);
        const py::ssize_t n = static_cast<py::ssize_t>(in.links.size());
        py::array_t<double> com({n, py::ssize_t{3}});
        py::array_t<double> inertia({n, py::ssize_t{3}, py::ssize_t{3}});
        for (py::ssize_t l = 0; l < n; ++l) {
          for (int i = 0; i < 3; ++i) {
            com.mutable_at(l, i) = in.com[l](i);
            for (int j = 0; j < 3; ++j) {
              inertia.mutable_at(l, i, j) = in.inertia[l](i, j);
            }
          }
        }
        py::dict d;
        d["links"] = in.links;
        d["mass"] = ToNumpy(in.mass);
        d["com"] = com;
        d["inertia"] = inertia;
        return d;
      },
      py::arg("robot"),
      "Per link of link_names: mass (n,) [kg], com (n, 3) [m, link frame] "
      "and inertia (n, 3, 3) [kg m^2, about the centre of mass, link "
      "axes].");
}

}  // namespace sapcontact::python
