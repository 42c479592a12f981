// Python run_scene: runs a YAML scene to its duration (RunSimulation, the
// same code as `sapsim run`) and returns the trajectory as numpy arrays and
// the summary as a dict (RunResult). Releases the GIL while simulating.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "python/simulation_binding.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/simulation.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::python {
namespace {

// Frames of a run, recorded as trajectory.csv records them: the initial
// state, then after every output.every-th step and the last one.
struct Frames {
  std::vector<double> times;
  std::vector<std::vector<BodyState>> bodies;  // moving bodies only
  std::vector<std::vector<RobotState>> robots;
  // Per frame and robot: its links' world poses.
  std::vector<std::vector<std::vector<Eigen::Isometry3d>>> links;

  void Record(const TimeStepper& stepper) {
    const Scene& scene = stepper.scene();
    times.push_back(stepper.time());
    std::vector<BodyState> moving;
    for (size_t b = 0; b < scene.bodies.size(); ++b) {
      if (!scene.bodies[b].fixed) moving.push_back(stepper.state()[b]);
    }
    bodies.push_back(std::move(moving));
    robots.push_back(stepper.robot_states());
    links.emplace_back();
    for (size_t r = 0; r < scene.robots.size(); ++r) {
      links.back().push_back(stepper.LinkPoses(static_cast<int>(r)));
    }
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
  std::vector<int> contacts, newton_iterations, sleeping_bodies;
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
    sleeping_bodies.push_back(i.sleeping_bodies);
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
    d["sleeping_bodies"] = ints(sleeping_bodies);
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

}  // namespace

void DefineRunScene(py::module_& m) {
  py::class_<PyRunResult>(
      m, "RunResult",
      "What run_scene returns. Frames as trajectory.csv has them (the "
      "initial state, every output.every steps and the last step):\n"
      "  times (nf,) [s]; body_names: the moving bodies (scene order);\n"
      "  positions (nf, nb, 3) [m], quaternions (nf, nb, 4) (w, x, y, z),\n"
      "  velocities (nf, nb, 3) [m/s], angular_velocities (nf, nb, 3)\n"
      "  [rad/s], world frame; robots: {name: {'q': (nf, nq), 'v': (nf, "
      "nv), 'links': names, 'link_positions': (nf, nl, 3) [m], "
      "'link_quaternions': (nf, nl, 4) (w, x, y, z)}} (link frames, "
      "world);\n"
      "  steps: one entry per step (ns = summary['steps']): time (ns,) [s] "
      "at its end, contacts, newton_iterations (int64), failed (bool), "
      "max_penetration and max_hover [m], collision_time and solver_time "
      "[s], elastic_energy [J] at its start, sleeping_bodies at its end "
      "(int64; solver.sleep);\n"
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
        const Scene scene = LoadPythonScene(file, list);
        {
          py::gil_scoped_release release;
          const int every = std::max(1, scene.output.every);
          const int steps = StepCount(scene);
          {
            const TimeStepper initial(scene);
            frames.Record(initial);
          }
          // Frames at the output times: every output.every steps, or under
          // error control the times k output.every time_step it lands on.
          const bool controlled =
              scene.integrator.scheme == IntegrationScheme::kErrorControlled;
          const double period = every * scene.time_step;
          const double t_final = steps * scene.time_step;
          options.on_step = [&](const TimeStepper& s, const StepInfo& info) {
            records.Record(s.time(), info);
            if (controlled) {
              const double t = s.time();
              const double k = std::round(t / period);
              if (std::abs(t - k * period) <= 1e-9 * period ||
                  t >= t_final - 1e-9 * scene.time_step) {
                frames.Record(s);
              }
              return;
            }
            const int n = s.steps_taken();
            if (n % every == 0 || n == steps) {
              frames.Record(s);
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
          // Link frames: (frames, links, 3) positions [m] and (frames,
          // links, 4) quaternions (w, x, y, z), world.
          const MultibodyTree& mb = scene.robots[k].description.tree;
          const py::ssize_t nf = static_cast<py::ssize_t>(frames.times.size());
          const py::ssize_t nl = mb.num_links();
          py::list names;
          for (int l = 0; l < mb.num_links(); ++l)
            names.append(mb.link(l).name);
          py::array_t<double> p({nf, nl, py::ssize_t{3}});
          py::array_t<double> quat({nf, nl, py::ssize_t{4}});
          for (py::ssize_t i = 0; i < nf; ++i) {
            for (py::ssize_t l = 0; l < nl; ++l) {
              const Eigen::Isometry3d& X = frames.links[i][k][l];
              const Eigen::Quaterniond qt(X.rotation());
              for (int c = 0; c < 3; ++c)
                p.mutable_at(i, l, c) = X.translation()(c);
              quat.mutable_at(i, l, 0) = qt.w();
              quat.mutable_at(i, l, 1) = qt.x();
              quat.mutable_at(i, l, 2) = qt.y();
              quat.mutable_at(i, l, 3) = qt.z();
            }
          }
          d["links"] = names;
          d["link_positions"] = p;
          d["link_quaternions"] = quat;
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
}

}  // namespace sapcontact::python
