// Python bindings of the simulator (sim/): run_scene runs a YAML scene to
// its duration (RunSimulation, the same code as `sapsim run`) and returns
// the trajectory as numpy arrays and the summary as a dict; Simulation
// steps a loaded scene interactively (TimeStepper), so that Python code
// can read contacts and apply forces between steps. Both release the GIL
// while simulating.
#include <pybind11/stl.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/problem_binding.h"
#include "sapcontact/sim/collision/contact_point.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {
namespace {

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
Scene Load(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    return LoadScene(path, overrides);
  } catch (const SceneError& e) {
    throw py::value_error(e.what());
  }
}

// Frames of a run, recorded as trajectory.csv records them: the initial
// state, then after every output.every-th step and the last one.
struct Frames {
  std::vector<double> times;
  std::vector<std::vector<BodyState>> bodies;  // moving bodies only
  std::vector<std::vector<RobotState>> robots;

  void Record(double time, const Scene& scene,
              const std::vector<BodyState>& state,
              const std::vector<RobotState>& robot_state) {
    times.push_back(time);
    std::vector<BodyState> moving;
    for (size_t b = 0; b < scene.bodies.size(); ++b) {
      if (!scene.bodies[b].fixed) moving.push_back(state[b]);
    }
    bodies.push_back(std::move(moving));
    robots.push_back(robot_state);
  }
};

// A (frames, bodies, 3) or (frames, bodies, 4) array from a per-state getter.
template <class Get>
py::array_t<double> StackStates(const Frames& f, int width, Get get) {
  const py::ssize_t nf = static_cast<py::ssize_t>(f.times.size());
  const py::ssize_t nb =
      nf > 0 ? static_cast<py::ssize_t>(f.bodies[0].size()) : 0;
  py::array_t<double> a({nf, nb, static_cast<py::ssize_t>(width)});
  auto w = a.mutable_unchecked<3>();
  for (py::ssize_t i = 0; i < nf; ++i) {
    for (py::ssize_t b = 0; b < nb; ++b) {
      const Eigen::Vector4d v = get(f.bodies[i][b]);
      for (int k = 0; k < width; ++k) w(i, b, k) = v[k];
    }
  }
  return a;
}

Eigen::Vector4d Position(const BodyState& s) {
  return {s.pose.position.x(), s.pose.position.y(), s.pose.position.z(), 0};
}
Eigen::Vector4d Quaternion(const BodyState& s) {
  const Eigen::Quaterniond& q = s.pose.orientation;
  return {q.w(), q.x(), q.y(), q.z()};
}
Eigen::Vector4d Velocity(const BodyState& s) {
  return {s.velocity.x(), s.velocity.y(), s.velocity.z(), 0};
}
Eigen::Vector4d AngularVelocity(const BodyState& s) {
  return {s.angular_velocity.x(), s.angular_velocity.y(),
          s.angular_velocity.z(), 0};
}

// Per-step records of a run (StepInfo of every step).
struct StepRecords {
  std::vector<double> time, max_penetration, max_hover, collision_time,
      solver_time, elastic_energy;
  std::vector<int> contacts, newton_iterations;
  std::vector<bool> failed;

  void Record(double t, const StepInfo& i) {
    time.push_back(t);
    contacts.push_back(i.contacts);
    newton_iterations.push_back(i.newton_iterations);
    failed.push_back(i.failed);
    max_penetration.push_back(i.max_penetration);
    max_hover.push_back(i.max_hover);
    collision_time.push_back(i.collision_time);
    solver_time.push_back(i.solver_time);
    elastic_energy.push_back(i.elastic_energy);
  }
  py::dict ToDict() const {
    auto doubles = [](const std::vector<double>& v) {
      return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
    };
    auto ints = [](const std::vector<int>& v) {
      py::array_t<int64_t> a(static_cast<py::ssize_t>(v.size()));
      for (size_t i = 0; i < v.size(); ++i) a.mutable_at(i) = v[i];
      return a;
    };
    py::array_t<bool> f(static_cast<py::ssize_t>(failed.size()));
    for (size_t i = 0; i < failed.size(); ++i) f.mutable_at(i) = failed[i];
    py::dict d;
    d["time"] = doubles(time);
    d["contacts"] = ints(contacts);
    d["newton_iterations"] = ints(newton_iterations);
    d["failed"] = f;
    d["max_penetration"] = doubles(max_penetration);
    d["max_hover"] = doubles(max_hover);
    d["collision_time"] = doubles(collision_time);
    d["solver_time"] = doubles(solver_time);
    d["elastic_energy"] = doubles(elastic_energy);
    return d;
  }
};

// What run_scene returns.
struct PyRunResult {
  py::object times, positions, quaternions, velocities, angular_velocities;
  py::list body_names;
  py::dict robots;
  py::dict steps;
  py::dict summary;
  py::object output_dir;
};

py::dict SummaryDict(const Scene& scene, const SimulationSummary& s) {
  return py::module_::import("json").attr("loads")(SummaryToJson(scene, s));
}

// The text of one override value: numbers as Python's repr (exact;
// infinity as YAML's .inf), bools as true/false, sequences as YAML flow
// lists, strings as given.
std::string OverrideValue(py::handle value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) {
    return value.cast<bool>() ? "true" : "false";
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::float_>(value)) {
    const double x = value.cast<double>();
    if (std::isinf(x)) return x > 0 ? ".inf" : "-.inf";  // YAML's spelling
    if (std::isnan(x)) return ".nan";
  }
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return py::repr(value).cast<std::string>();
  }
  if (py::hasattr(value, "dtype") && py::hasattr(value, "item") &&
      py::len(py::module_::import("numpy").attr("shape")(value)) == 0) {
    return OverrideValue(value.attr("item")(), key);  // numpy scalar
  }
  if (py::isinstance<py::sequence>(value) || py::hasattr(value, "__array__")) {
    std::string text = "[";
    bool first = true;
    for (py::handle item : py::iter(value)) {
      text += (first ? "" : ", ") + OverrideValue(item, key);
      first = false;
    }
    return text + "]";
  }
  throw py::type_error(
      "overrides['" + key +
      "']: expected a number, bool, string or list, got " +
      py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

}  // namespace

std::string PathArgument(py::handle value, const std::string& name) {
  try {
    return py::module_::import("os").attr("fspath")(value).cast<std::string>();
  } catch (py::error_already_set&) {
    throw py::type_error(
        name + ": expected a path (str or os.PathLike), got " +
        py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  }
}

std::vector<std::string> OverrideList(const py::object& overrides) {
  std::vector<std::string> out;
  if (overrides.is_none()) return out;
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& item : overrides.cast<py::dict>()) {
      const std::string key = py::str(item.first);
      out.push_back(key + "=" + OverrideValue(item.second, key));
    }
    return out;
  }
  if (py::isinstance<py::str>(overrides)) {
    throw py::type_error(
        "overrides: expected a dict {key: value} or a list of 'key=value' "
        "strings, got a single string");
  }
  for (py::handle item : py::iter(overrides)) {
    if (!py::isinstance<py::str>(item)) {
      throw py::type_error(
          "overrides: expected a dict {key: value} or a list of 'key=value' "
          "strings");
    }
    out.push_back(item.cast<std::string>());
  }
  return out;
}

namespace {

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

  py::class_<PyRunResult>(
      m, "RunResult",
      "What run_scene returns. Frames as trajectory.csv has them (the "
      "initial state, every output.every steps and the last step):\n"
      "  times (nf,) [s]; body_names: the moving bodies (scene order);\n"
      "  positions (nf, nb, 3) [m], quaternions (nf, nb, 4) (w, x, y, z),\n"
      "  velocities (nf, nb, 3) [m/s], angular_velocities (nf, nb, 3)\n"
      "  [rad/s], world frame; robots: {name: {'q': (nf, nq), 'v': (nf, "
      "nv)}};\n"
      "  steps: one entry per step (ns = summary['steps']): time (ns,) [s] "
      "at its end, contacts, newton_iterations (int64), failed (bool), "
      "max_penetration and max_hover [m], collision_time and solver_time "
      "[s], elastic_energy [J] at its start;\n"
      "  summary: dict with the content of summary.json.\n"
      "Items are also reachable as result['summary'], result['times'], ...")
      .def_readonly("times", &PyRunResult::times)
      .def_readonly("body_names", &PyRunResult::body_names)
      .def_readonly("positions", &PyRunResult::positions)
      .def_readonly("quaternions", &PyRunResult::quaternions)
      .def_readonly("velocities", &PyRunResult::velocities)
      .def_readonly("angular_velocities", &PyRunResult::angular_velocities)
      .def_readonly("robots", &PyRunResult::robots)
      .def_readonly("steps", &PyRunResult::steps)
      .def_readonly("summary", &PyRunResult::summary)
      .def_readonly("output_dir", &PyRunResult::output_dir,
                    "The folder written (output_dir=...), else None.")
      .def(
          "keys",
          [](const PyRunResult&) {
            return std::vector<std::string>{
                "times",      "body_names",         "positions", "quaternions",
                "velocities", "angular_velocities", "robots",    "steps",
                "summary",    "output_dir"};
          },
          "Names usable as result[name].")
      .def(
          "__getitem__",
          [](py::object self, const std::string& key) -> py::object {
            const auto keys =
                self.attr("keys")().cast<std::vector<std::string>>();
            for (const std::string& k : keys) {
              if (k == key) return self.attr(key.c_str());
            }
            throw py::key_error(key);
          },
          py::arg("key"))
      .def("__repr__", [](const PyRunResult& r) {
        return "<sapcontact.RunResult " + std::to_string(py::len(r.times)) +
               " frames, " + std::to_string(py::len(r.body_names)) +
               " moving bodies>";
      });

  m.def(
      "run_scene",
      [](const py::object& path, const py::object& overrides,
         const py::object& duration, const py::object& output_dir,
         bool write_contacts, bool write_steps) {
        std::vector<std::string> list = OverrideList(overrides);
        if (!duration.is_none()) {
          if (!py::isinstance<py::int_>(duration) &&
              !py::isinstance<py::float_>(duration)) {
            throw py::type_error(
                "duration: expected a number of seconds or None, got " +
                py::str(py::type::of(duration).attr("__name__"))
                    .cast<std::string>());
          }
          list.push_back("duration=" +
                         py::repr(py::float_(duration)).cast<std::string>());
        }
        const std::string file = PathArgument(path, "path");
        SimulationOptions options;
        if (!output_dir.is_none()) {
          options.output_dir = PathArgument(output_dir, "output_dir");
          if (options.output_dir.empty()) {
            throw py::value_error(
                "output_dir: an empty path (give a directory, or None to "
                "write nothing)");
          }
        }
        options.write_contacts = write_contacts;
        options.write_steps = write_steps;
        Frames frames;
        StepRecords records;
        SimulationSummary summary;
        const Scene scene = Load(file, list);
        {
          py::gil_scoped_release release;
          const int every = std::max(1, scene.output.every);
          const int steps = StepCount(scene);
          {
            const TimeStepper initial(scene);
            frames.Record(0.0, scene, initial.state(), initial.robot_states());
          }
          options.on_step = [&](const TimeStepper& s, const StepInfo& info) {
            records.Record(s.time(), info);
            const int n = s.steps_taken();
            if (n % every == 0 || n == steps) {
              frames.Record(s.time(), s.scene(), s.state(), s.robot_states());
            }
          };
          try {
            summary = RunSimulation(scene, options);
          } catch (const SimulationError& e) {
            py::gil_scoped_acquire acquire;
            RaiseSimulationError(e);
          }
        }
        PyRunResult r;
        r.times = py::array_t<double>(
            static_cast<py::ssize_t>(frames.times.size()), frames.times.data());
        for (const Body& b : scene.bodies) {
          if (!b.fixed) r.body_names.append(b.name);
        }
        r.positions = StackStates(frames, 3, Position);
        r.quaternions = StackStates(frames, 4, Quaternion);
        r.velocities = StackStates(frames, 3, Velocity);
        r.angular_velocities = StackStates(frames, 3, AngularVelocity);
        for (size_t k = 0; k < scene.robots.size(); ++k) {
          const int nq = static_cast<int>(frames.robots[0][k].q.size());
          const int nv = static_cast<int>(frames.robots[0][k].v.size());
          Eigen::MatrixXd q(frames.times.size(), nq),
              v(frames.times.size(), nv);
          for (size_t i = 0; i < frames.times.size(); ++i) {
            q.row(i) = frames.robots[i][k].q.transpose();
            v.row(i) = frames.robots[i][k].v.transpose();
          }
          py::dict d;
          d["q"] = ToNumpy(q);
          d["v"] = ToNumpy(v);
          r.robots[py::str(scene.robots[k].name)] = d;
        }
        r.steps = records.ToDict();
        r.summary = SummaryDict(scene, summary);
        r.output_dir = options.output_dir.empty()
                           ? py::object(py::none())
                           : py::object(py::str(options.output_dir));
        return r;
      },
      py::arg("path"), py::arg("overrides") = py::none(),
      py::arg("duration") = py::none(), py::arg("output_dir") = py::none(),
      py::arg("write_contacts") = false, py::arg("write_steps") = false,
      "Runs the YAML scene at `path` to its duration, as `sapsim run` does, "
      "and returns a RunResult (numpy arrays and the summary dict).\n\n"
      "overrides: {key: value} or ['key=value', ...] with the keys of "
      "`sapsim run --set` (docs/scenes.md), e.g. {'time_step': 1e-3, "
      "'materials.default.friction': 0.3, 'gravity': [0, 0, -1.62]}; "
      "duration [s] replaces the scene's. Writes nothing unless output_dir "
      "is given (then trajectory.csv, summary.json and, with robots, "
      "joints.csv, exactly as sapsim run; write_contacts and write_steps "
      "add contacts.csv and steps.csv there, columns as in "
      "sim/stepping/simulation.h). "
      "Raises ValueError for a bad scene or override (file:line: field: "
      "message), SimulationError for a step that cannot go on. Solver "
      "failures are counted in summary['failed_steps'], not raised.");

  py::class_<PySimulation>(
      m, "Simulation",
      "A scene stepped interactively (C++ TimeStepper): step(n), read "
      "state() and contacts(), apply forces between steps. Bodies are "
      "indexed in scene order (body_names; fixed ones included) or by "
      "name. One step at a time (steps from several threads are "
      "serialized); step() releases the GIL.")
      .def(py::init([](const py::object& path, const py::object& overrides) {
             const Scene scene =
                 Load(PathArgument(path, "path"), OverrideList(overrides));
             auto s = std::make_unique<PySimulation>();
             s->stepper = std::make_unique<TimeStepper>(scene);
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
                for (int i = 0; i < n; ++i) s.last = s.stepper->Step();
              } catch (const SimulationError& e) {
                error = e;
              }
              last = s.last;
            }
            if (error) RaiseSimulationError(*error);
            return StepInfoDict(last);
          },
          py::arg("n") = 1,
          "Advances n time steps; returns the last step's info as a dict "
          "(contacts, newton_iterations, failed, failure, max_penetration "
          "[m], max_hover [m], collision_time and solver_time [s], "
          "elastic_energy [J]). Raises SimulationError for a step that "
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
              py::dict rs;
              rs["q"] = ToNumpy(s.stepper->robot_states()[r].q);
              rs["v"] = ToNumpy(s.stepper->robot_states()[r].v);
              robots[py::str(scene.robots[r].name)] = rs;
            }
            d["robots"] = robots;
            return d;
          },
          "The current state as a dict: time [s], body_names, fixed, "
          "positions (nb, 3) [m], quaternions (nb, 4) (w, x, y, z), "
          "velocities (nb, 3) [m/s], angular_velocities (nb, 3) [rad/s] "
          "(world frame), robots {name: {'q', 'v'}}.")
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
          "[rad/s], world frame.")
      .def(
          "apply_force",
          [](PySimulation& s, const py::object& body, const py::object& force,
             const py::object& torque) {
            const int b = s.BodyIndex(body);
            if (s.stepper->scene().bodies[b].fixed) {
              throw py::value_error("body: '" +
                                    s.stepper->scene().bodies[b].name +
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
          "the world frame (A receives the opposite).")
      .def(
          "last_problem",
          [](PySimulation& s) {
            const auto lock = s.Lock();
            return PyProblem(s.stepper->last_problem());
          },
          "A copy of the last step's contact problem as a SapProblem (solve "
          "it again, with other parameters or another solver).")
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
