// Python Simulation: a scene stepped interactively (TimeStepper): loading,
// step(), time, names, state() and set_body_state(), the last step's
// problem and results, energies. Forces, contacts and the controller API
// are in simulation_control_bindings.cc. step() releases the GIL.
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/name_lookup.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "python/simulation_binding.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {

// Python's SimulationError (a RuntimeError): a step that cannot go on.
py::object& SimulationErrorType() {
  static py::object type;
  return type;
}

[[noreturn]] void RaiseSimulationError(const SimulationError& e) {
  PyErr_SetString(SimulationErrorType().ptr(), e.what());
  throw py::error_already_set();
}

// Loads a scene; SceneError (file:line: field: message) becomes ValueError.
Scene LoadPythonScene(const std::string& path,
                      const std::vector<std::string>& overrides) {
  try {
    return LoadScene(path, overrides);
  } catch (const SceneError& e) {
    throw py::value_error(e.what());
  }
}

int PySimulation::BodyIndex(py::handle body) const {
  const Scene& scene = stepper->scene();
  if (py::isinstance<py::str>(body)) {
    std::vector<std::string> names;
    for (const Body& b : scene.bodies) names.push_back(b.name);
    return IndexOfName(body.cast<std::string>(), names, "body", "body");
  }
  const int b = body.cast<int>();
  if (b < 0 || b >= static_cast<int>(scene.bodies.size())) {
    throw py::value_error("body: " + std::to_string(b) +
                          " is not a body index (the scene has " +
                          std::to_string(scene.bodies.size()) + " bodies)");
  }
  return b;
}

int PySimulation::RobotIndex(py::handle robot) const {
  const Scene& scene = stepper->scene();
  if (py::isinstance<py::str>(robot)) {
    std::vector<std::string> names;
    for (const RobotSpec& r : scene.robots) names.push_back(r.name);
    return IndexOfName(robot.cast<std::string>(), names, "robot", "robot");
  }
  const int r = robot.cast<int>();
  if (r < 0 || r >= static_cast<int>(scene.robots.size())) {
    throw py::value_error("robot: " + std::to_string(r) +
                          " is not a robot index");
  }
  return r;
}

namespace {

py::dict StepInfoDict(const StepInfo& i) {
  py::dict d;
  d["contacts"] = i.contacts;
  d["newton_iterations"] = i.newton_iterations;
  d["failed"] = i.failed;
  d["failure"] = i.failure;
  d["max_penetration"] = i.max_penetration;
  d["max_hover"] = i.max_hover;
  d["collision_time"] = i.collision_time;
  d["solver_time"] = i.solver_time;
  d["elastic_energy"] = i.elastic_energy;
  d["sleeping_bodies"] = i.sleeping_bodies;
  return d;
}

}  // namespace

void DefineSimulation(py::module_& m) {
  SimulationErrorType() =
      py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
          "sapcontact.SimulationError",
          "A simulation step that cannot go on (non-finite state, data the "
          "solver rejects, a collision limit); the message names the step "
          "and the body or contact.",
          PyExc_RuntimeError, nullptr));
  m.attr("SimulationError") = SimulationErrorType();
  DefineRunScene(m);

  py::class_<PySimulation> c(
      m, "Simulation",
      "A scene stepped interactively (C++ TimeStepper): step(n), read "
      "state() and contacts(), apply forces between steps. Bodies are "
      "indexed in scene order (body_names; fixed ones included) or by "
      "name. One step at a time (steps from several threads are "
      "serialized); step() releases the GIL.");
  c.def(py::init([](const py::object& path, const py::object& overrides) {
          const Scene scene = LoadPythonScene(PathArgument(path, "path"),
                                              OverrideList(overrides));
          auto s = std::make_unique<PySimulation>();
          s->time_step = scene.time_step;
          if (scene.integrator.scheme == IntegrationScheme::kErrorControlled) {
            s->stepper =
                std::make_unique<TimeStepper>(ErrorControlledScene(scene));
            s->integrator = std::make_unique<ErrorControlledIntegrator>(
                s->stepper.get(), scene.integrator, scene.time_step);
          } else {
            s->stepper = std::make_unique<TimeStepper>(scene);
          }
          return s;
        }),
        py::arg("path"), py::arg("overrides") = py::none(),
        "Simulation(path, overrides=None): loads the scene (overrides as "
        "in run_scene) at time 0.")
      .def(
          "step",
          [](PySimulation& s, int n) {
            if (n < 0) throw py::value_error("n: must be >= 0");
            std::optional<SimulationError> error;
            StepInfo last;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(s.mutex);
              try {
                for (int i = 0; i < n; ++i) {
                  if (!s.integrator) {
                    s.last = s.stepper->Step();
                    continue;
                  }
                  // Error control: accepted steps up to the next multiple
                  // of time_step.
                  const double t_end =
                      (std::round(s.stepper->time() / s.time_step) + 1) *
                      s.time_step;
                  while (s.stepper->time() < t_end - 1e-9 * s.time_step) {
                    s.last = s.integrator->Step(t_end).info;
                  }
                }
              } catch (const SimulationError& e) {
                error = e;
              }
              last = s.last;
            }
            if (error) RaiseSimulationError(*error);
            return StepInfoDict(last);
          },
          py::arg("n") = 1,
          "Advances n time steps (under integrator.scheme error_controlled: "
          "to n multiples of time_step later, in the steps the error "
          "control chooses); returns the last step's info as a dict "
          "(contacts, newton_iterations, failed, failure, max_penetration "
          "[m], max_hover [m], collision_time and solver_time [s], "
          "elastic_energy [J], sleeping_bodies). Raises SimulationError "
          "for a step that "
          "cannot go on.")
      .def_property_readonly(
          "time",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return s.stepper->time();
          },
          "Simulated time [s].")
      .def_property_readonly(
          "steps_taken",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return s.stepper->steps_taken();
          },
          "Steps taken since the scene was loaded.")
      .def_property_readonly(
          "time_step",
          [](const PySimulation& s) { return s.stepper->scene().time_step; },
          "dt [s].")
      .def_property_readonly(
          "duration",
          [](const PySimulation& s) { return s.stepper->scene().duration; },
          "The scene's duration [s] (step() is not limited by it).")
      .def_property_readonly(
          "warnings",
          [](const PySimulation& s) { return s.stepper->scene().warnings; },
          "What loading did not take as written (geometry a robot's URDF "
          "dropped or approximated, meshes that collide as their convex "
          "hull), one line each naming the field; also "
          "summary['warnings'] of run_scene.")
      .def_property_readonly(
          "body_names",
          [](const PySimulation& s) {
            std::vector<std::string> names;
            for (const Body& b : s.stepper->scene().bodies) {
              names.push_back(b.name);
            }
            return names;
          },
          "All bodies, scene order (fixed ones included).")
      .def_property_readonly(
          "robot_names",
          [](const PySimulation& s) {
            std::vector<std::string> names;
            for (const RobotSpec& r : s.stepper->scene().robots) {
              names.push_back(r.name);
            }
            return names;
          })
      .def(
          "state",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            const Scene& scene = s.stepper->scene();
            const auto& st = s.stepper->state();
            const int nb = static_cast<int>(st.size());
            Eigen::MatrixXd x(nb, 3), q(nb, 4), v(nb, 3), w(nb, 3);
            std::vector<bool> fixed(nb);
            for (int b = 0; b < nb; ++b) {
              const bool is_fixed = scene.bodies[b].fixed;
              // Fixed bodies keep their scene pose (prescribed ones move
              // in the world; their pose here is the initial one).
              const Pose& pose = is_fixed ? scene.bodies[b].pose : st[b].pose;
              x.row(b) = pose.position.transpose();
              q.row(b) << pose.orientation.w(), pose.orientation.x(),
                  pose.orientation.y(), pose.orientation.z();
              v.row(b) = st[b].velocity.transpose();
              w.row(b) = st[b].angular_velocity.transpose();
              fixed[b] = is_fixed;
            }
            py::dict d;
            d["time"] = s.stepper->time();
            py::list names;
            for (const Body& b : scene.bodies) names.append(b.name);
            d["body_names"] = names;
            d["fixed"] = fixed;
            d["positions"] = ToNumpy(x);
            d["quaternions"] = ToNumpy(q);
            d["velocities"] = ToNumpy(v);
            d["angular_velocities"] = ToNumpy(w);
            py::dict robots;
            for (size_t r = 0; r < scene.robots.size(); ++r) {
              const RobotState& state = s.stepper->robot_states()[r];
              py::dict rs;
              rs["q"] = ToNumpy(state.q);
              rs["v"] = ToNumpy(state.v);
              const py::dict joints = RobotStateDict(s, static_cast<int>(r));
              rs["joints"] = joints["joints"];
              rs["effort"] = joints["effort"];
              robots[py::str(scene.robots[r].name)] = rs;
            }
            d["robots"] = robots;
            return d;
          },
          "The current state as a dict: time [s], body_names, fixed, "
          "positions (nb, 3) [m], quaternions (nb, 4) (w, x, y, z), "
          "velocities (nb, 3) [m/s], angular_velocities (nb, 3) [rad/s] "
          "(world frame), robots {name: {'q', 'v', 'joints', 'effort'}}: q and "
          "v "
          "every coordinate of the robot's tree (a floating base first), "
          "joints and effort as robot_state's.")
      .def(
          "set_body_state",
          [](PySimulation& s, const py::object& body,
             const py::object& position, const py::object& quaternion,
             const py::object& velocity, const py::object& angular_velocity) {
            const int b = s.BodyIndex(body);
            if (s.stepper->scene().bodies[b].fixed) {
              throw py::value_error(
                  "body: '" + s.stepper->scene().bodies[b].name + "' is fixed");
            }
            const auto lock = s.Lock();
            std::vector<BodyState> st = s.stepper->state();
            if (!position.is_none()) {
              st[b].pose.position = ToVector3(position, "position");
            }
            if (!quaternion.is_none()) {
              const Eigen::VectorXd q = ToVector(quaternion, "quaternion", 4);
              if (!(q.norm() > 0) || !q.allFinite()) {
                throw py::value_error(
                    "quaternion: must be finite and "
                    "non-zero (w, x, y, z)");
              }
              st[b].pose.orientation =
                  Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
            }
            if (!velocity.is_none()) {
              st[b].velocity = ToVector3(velocity, "velocity");
            }
            if (!angular_velocity.is_none()) {
              st[b].angular_velocity =
                  ToVector3(angular_velocity, "angular_velocity");
            }
            s.stepper->SetState(st);
          },
          py::arg("body"), py::arg("position") = py::none(),
          py::arg("quaternion") = py::none(), py::arg("velocity") = py::none(),
          py::arg("angular_velocity") = py::none(),
          "Replaces parts of a free body's state (name or index): position "
          "[m], quaternion (w, x, y, z), velocity [m/s], angular_velocity "
          "[rad/s], world frame.");

  DefineSimulationControl(c);
  DefineSimulationRobots(c);
  DefineSimulationDynamics(c);

  c.def(
       "last_problem",
       [](PySimulation& s) {
         const auto lock = s.Lock();
         return PyProblem(s.stepper->last_problem());
       },
       "A copy of the last step's contact problem as a SapProblem (solve "
       "it again, with other parameters or another solver).")
      .def(
          "step_derivatives",
          [](PySimulation& s, const std::string& method, double position_step,
             double velocity_step, double force_step, double rel_tolerance,
             bool central_differences) {
            StepDerivativeOptions o;
            o.central_differences = central_differences;
            if (method == "finite_differences") {
              o.method = StepDerivativeMethod::kFiniteDifferences;
            } else if (method != "implicit") {
              throw py::value_error("step_derivatives: method '" + method +
                                    "' (implicit or finite_differences)");
            }
            o.position_step = position_step;
            o.velocity_step = velocity_step;
            o.force_step = force_step;
            o.rel_tolerance = rel_tolerance;
            StepDerivatives d;
            {
              const auto lock = s.Lock();
              py::gil_scoped_release release;
              d = s.stepper->CalcStepDerivatives(o);
            }
            py::dict out;
            out["A"] = ToNumpy(d.A);
            out["B"] = ToNumpy(d.B);
            out["B_targets"] = ToNumpy(d.B_targets);
            out["targets"] = d.targets;
            out["coordinates"] = d.coordinates;
            out["one_sided"] = d.one_sided;
            out["held_contacts"] = d.held_contacts;
            out["differenced_contacts"] = d.differenced_contacts;
            AddContactRegions(d.contact_regions, &out);
            out["scaled_residual"] = d.scaled_residual;
            return out;
          },
          py::arg("method") = "implicit", py::arg("position_step") = 0.0,
          py::arg("velocity_step") = 0.0, py::arg("force_step") = 0.0,
          py::arg("rel_tolerance") = 1e-12,
          py::arg("central_differences") = false,
          "Derivatives of the next step from the current state, x+ = f(x, "
          "u), in the layout of MuJoCo's mjd_transitionFD (docs/theory.md "
          "§21): x = (dq, v), dq the configuration's tangent (a free body: "
          "dp [m] and a turn dtheta [rad] about world axes; a robot: its "
          "joints), v the velocities (world frame for bodies), nv each; u "
          "the generalized forces held during the step (a body's force [N] "
          "and torque [N m], world axes; a robot's generalized forces). "
          "Returns a dict: A (2 nv, 2 nv) = dx+/dx, B (2 nv, nv) = dx+/du, "
          "coordinates (nv names: 'box/x' ... 'box/rz', 'arm/joint1'), "
          "B_targets (2 nv, m) = dx+/d(PD target positions) with targets "
          "(m names: 'arm/joint1 target'), the "
          "step's contacts' region, boundary_distance [m/s] and near_rigid "
          "(where the derivative is one-sided), one_sided (columns of A whose "
          "contact set changed on one side: faces in exact alignment, a "
          "contact at the margin; one-sided there), held_contacts (columns "
          "whose contact set changed on both sides: the step's contacts held, "
          "moving with the bodies to first order), differenced_contacts "
          "(contacts whose motion is taken by differences of collision "
          "detection; the others move in closed form), scaled_residual. "
          "method 'implicit' (the solve by the implicit function theorem, "
          "the contacts moved in closed form from their features, the "
          "problem built from them by central differences) or "
          "'finite_differences' (central differences of "
          "whole steps); steps 0 pick the method's defaults. The simulation "
          "is left as it was. Raises ValueError with the rigid model or "
          "sleeping bodies, SimulationError where the step cannot be "
          "taken.")
      .def(
          "last_results",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return SapResultsToPython(s.stepper->last_sap_results());
          },
          "The last step's SapResults (SAP model).")
      .def(
          "kinetic_energy",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return s.stepper->KineticEnergy();
          },
          "[J]")
      .def(
          "potential_energy",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return s.stepper->PotentialEnergy();
          },
          "Gravitational potential energy [J] (zero at the world origin).")
      .def("__repr__", [](PySimulation& s) {
        const auto lock = s.Lock();
        return "<sapcontact.Simulation '" + s.stepper->scene().source + "' t=" +
               py::repr(py::float_(s.stepper->time())).cast<std::string>() +
               " s>";
      });
}

}  // namespace sapcontact::python
