// The Python Simulation (simulation_bindings.cc: loading, stepping, state;
// simulation_control_bindings.cc: forces, contacts and the controller API)
// and what run_scene (run_scene_bindings.cc) shares with it.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/error_controlled_integrator.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {

/// Python's SimulationError (a RuntimeError), created by DefineSimulation.
py::object& SimulationErrorType();
/// Raises `e` as a SimulationError (holding the GIL).
[[noreturn]] void RaiseSimulationError(const SimulationError& e);

/// Loads a scene; SceneError (file:line: field: message) becomes
/// ValueError.
Scene LoadPythonScene(const std::string& path,
                      const std::vector<std::string>& overrides);

// The Python Simulation: a TimeStepper and a lock (one step at a time).
// step() holds the lock with the GIL released; every other method takes it
// through Lock(), which waits without holding the GIL, and step() never
// takes the GIL while holding the lock, so the two cannot deadlock.
struct PySimulation {
  std::unique_ptr<TimeStepper> stepper;
  // integrator.scheme error_controlled: steps land on multiples of the
  // scene's time_step (docs/theory.md §22).
  std::unique_ptr<ErrorControlledIntegrator> integrator;
  double time_step{0.0};
  std::mutex mutex;
  StepInfo last;

  std::unique_lock<std::mutex> Lock() {
    std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release release;
      lock.lock();
    }
    return lock;
  }

  /// A body by name or index; ValueError naming the nearest names.
  int BodyIndex(py::handle body) const;
  /// A robot by name or index; ValueError naming the nearest names.
  int RobotIndex(py::handle robot) const;
  /// A link of robot r by name; ValueError naming the nearest links.
  int LinkIndex(int r, const std::string& link) const;
  /// Robot r's 1-DOF joints (revolute, prismatic) in tree order: their
  /// tree joint indices (simulation_robot_bindings.cc).
  std::vector<int> Joints(int r) const;
  std::vector<std::string> JointNames(int r) const;
  /// The tree joint index of robot r's 1-DOF joint `joint`; ValueError
  /// naming the nearest joints.
  int JointIndex(int r, const std::string& joint) const;
};

/// robot_state(r) as a dict (simulation_robot_bindings.cc).
py::dict RobotStateDict(const PySimulation& s, int r);

/// RunResult and run_scene (run_scene_bindings.cc).
void DefineRunScene(py::module_& m);
/// Simulation's forces and contacts (simulation_control_bindings.cc).
void DefineSimulationControl(py::class_<PySimulation>& c);
/// Simulation's robot methods: joints, links, robot state
/// (simulation_robot_bindings.cc).
void DefineSimulationRobots(py::class_<PySimulation>& c);
/// Simulation's robot dynamics: mass matrix, bias and gravity forces,
/// centre of mass, limits, inertias (simulation_dynamics_bindings.cc).
void DefineSimulationDynamics(py::class_<PySimulation>& c);

}  // namespace sapcontact::python
