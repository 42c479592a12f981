// Python Simulation's forces, contacts and controller API (the C++
// TimeStepper's controller methods, docs/python.md "Controller API"):
// apply_force, apply_generalized_forces, clear_forces, contacts.
#include <pybind11/stl.h>

#include <string>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/simulation_binding.h"
#include "sapcontact/sim/collision/contact_point.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {

void DefineSimulationControl(py::class_<PySimulation>& c) {
  c.def(
       "apply_force",
       [](PySimulation& s, const py::object& body, const py::object& force,
          const py::object& torque) {
         const int b = s.BodyIndex(body);
         if (s.stepper->scene().bodies[b].fixed) {
           throw py::value_error("body: '" + s.stepper->scene().bodies[b].name +
                                 "' is fixed (forces act on moving "
                                 "bodies only)");
         }
         const Eigen::Vector3d f = ToVector3(force, "force");
         const Eigen::Vector3d t = torque.is_none()
                                       ? Eigen::Vector3d::Zero()
                                       : ToVector3(torque, "torque");
         const auto lock = s.Lock();
         s.stepper->SetAppliedWrench(b, f, t);
       },
       py::arg("body"), py::arg("force"), py::arg("torque") = py::none(),
       "Applies a force [N] through the centre of mass and a torque [N m] "
       "(world frame) to a free body during every following step until "
       "replaced or cleared (clear_forces).")
      .def(
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
          "cleared.")
      .def(
          "clear_forces",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            s.stepper->ClearAppliedForces();
          },
          "Removes every force applied with apply_force and "
          "apply_generalized_forces.")
      .def(
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
              world.row(k) =
                  (ContactFrameRows(c[k].normal).transpose() * gk).transpose();
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
            return d;
          },
          "The last step's contacts as a dict: body_a, body_b (names), point "
          "(nc, 3) [m] and normal (nc, 3) (from A into B) at the start of "
          "the step, phi (nc,) [m], impulse (nc, 3) in the contact frame "
          "(n, t1, t2) [N*s] and impulse_world (nc, 3): the impulse on B in "
          "the world frame (A receives the opposite).");
}

}  // namespace sapcontact::python
