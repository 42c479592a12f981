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

  int BodyIndex(py::handle body) const {
    const Scene& scene = stepper->scene();
    if (py::isinstance<py::str>(body)) {
      const std::string name = body.cast<std::string>();
      const int b = scene.FindBody(name);
      if (b >= 0) return b;
      throw py::value_error("body: no body named '" + name + "'");
    }
    const int b = body.cast<int>();
    if (b < 0 || b >= static_cast<int>(scene.bodies.size())) {
      throw py::value_error("body: " + std::to_string(b) +
                            " is not a body index (the scene has " +
                            std::to_string(scene.bodies.size()) + " bodies)");
    }
    return b;
  }
  int RobotIndex(py::handle robot) const {
    const Scene& scene = stepper->scene();
    if (py::isinstance<py::str>(robot)) {
      const std::string name = robot.cast<std::string>();
      const int r = scene.FindRobot(name);
      if (r >= 0) return r;
      throw py::value_error("robot: no robot named '" + name + "'");
    }
    const int r = robot.cast<int>();
    if (r < 0 || r >= static_cast<int>(scene.robots.size())) {
      throw py::value_error("robot: " + std::to_string(r) +
                            " is not a robot index");
    }
    return r;
  }
};

/// RunResult and run_scene (run_scene_bindings.cc).
void DefineRunScene(py::module_& m);
/// Simulation's forces and contacts (simulation_control_bindings.cc).
void DefineSimulationControl(py::class_<PySimulation>& c);

}  // namespace sapcontact::python
