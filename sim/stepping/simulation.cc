#include "sapcontact/sim/stepping/simulation.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "sapcontact/collision/contact_point.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/error_controlled_integrator.h"
#include "sapcontact/sim/stepping/scene_collision.h"

namespace sapcontact {
namespace {

using Clock = std::chrono::steady_clock;

// One row per moving body. The name is written as a string (any length);
// the numbers are finite (TimeStepper::Step checks every new state).
void WriteRows(std::ofstream& out, const TimeStepper& stepper) {
  const Scene& scene = stepper.scene();
  char time[40], numbers[400];
  std::snprintf(time, sizeof(time), "%.9g,", stepper.time());
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    if (scene.bodies[b].fixed) continue;
    const BodyState& s = stepper.state()[b];
    const Vector3& x = s.pose.position;
    const Eigen::Quaterniond& q = s.pose.orientation;
    std::snprintf(numbers, sizeof(numbers),
                  ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,"
                  "%.12g,%.12g,%.12g,%.12g,%.12g\n",
                  x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z(),
                  s.velocity.x(), s.velocity.y(), s.velocity.z(),
                  s.angular_velocity.x(), s.angular_velocity.y(),
                  s.angular_velocity.z());
    out << time << scene.bodies[b].name << numbers;
  }
}

// links.csv: one row per link of every robot (header comment of
// simulation.h).
void WriteLinkRows(std::ofstream& out, const TimeStepper& stepper) {
  const Scene& scene = stepper.scene();
  char line[512];
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    const RobotSpec& spec = scene.robots[r];
    const std::vector<Eigen::Isometry3d> poses =
        stepper.LinkPoses(static_cast<int>(r));
    const MultibodyTree& mb = spec.description.tree;
    // Every link's velocity in one pass (as TimeStepper::LinkVelocity).
    std::vector<Eigen::Matrix<double, 6, 1>> velocities;
    const RobotState& state = stepper.robot_states()[r];
    CalcLinkVelocities(mb, state.q, state.v, &velocities);
    for (int l = 0; l < mb.num_links(); ++l) {
      const Eigen::Isometry3d& X = poses[l];
      const Eigen::Quaterniond q(X.rotation());
      SpatialVelocity V;
      V.linear = velocities[l].head<3>();
      V.angular = velocities[l].tail<3>();
      std::snprintf(line, sizeof(line),
                    "%.9g,%s,%s,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,"
                    "%.12g,%.12g,%.12g,%.12g,%.12g,%.12g\n",
                    stepper.time(), spec.name.c_str(), mb.link(l).name.c_str(),
                    X.translation().x(), X.translation().y(),
                    X.translation().z(), q.w(), q.x(), q.y(), q.z(),
                    V.linear.x(), V.linear.y(), V.linear.z(), V.angular.x(),
                    V.angular.y(), V.angular.z());
      out << line;
    }
  }
}

// joints.csv: one row per 1-DOF joint of every robot (position [rad or m],
// velocity, actuation effort of the last step, 0 when not actuated); a
// floating base's pose and velocity go in rows named "<base joint>.x" etc.
void WriteJointRows(std::ofstream& out, const TimeStepper& stepper) {
  const Scene& scene = stepper.scene();
  char line[200];
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    const RobotSpec& spec = scene.robots[r];
    const MultibodyTree& mb = spec.description.tree;
    const RobotState& st = stepper.robot_states()[r];
    const Eigen::VectorXd& effort =
        stepper.ActuationEfforts(static_cast<int>(r));
    for (int j = 0; j < mb.num_links(); ++j) {
      const Joint& joint = mb.joint(j);
      if (joint.type == JointType::kFloating) {
        static const char* kNames[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
        for (int i = 0; i < 7; ++i) {
          const double v = i < 6 ? st.v(mb.velocity_start(j) + i) : 0.0;
          std::snprintf(line, sizeof(line), "%.9g,%s,%s.%s,%.12g,%.12g,0\n",
                        stepper.time(), spec.name.c_str(), joint.name.c_str(),
                        kNames[i], st.q(mb.position_start(j) + i), v);
          out << line;
        }
        continue;
      }
      if (joint.type == JointType::kFixed) continue;
      double u = 0.0;
      for (size_t k = 0; k < spec.actuation.size(); ++k) {
        if (spec.actuation[k].joint == j) u = effort(k);
      }
      std::snprintf(line, sizeof(line), "%.9g,%s,%s,%.12g,%.12g,%.12g\n",
                    stepper.time(), spec.name.c_str(), joint.name.c_str(),
                    st.q(mb.position_start(j)), st.v(mb.velocity_start(j)), u);
      out << line;
    }
  }
}

// Throws SimulationError naming the step, the file and the column unless
// every value is finite.
void CheckFiniteRow(int step, const char* file, const char* const* columns,
                    const double* values, int count) {
  for (int i = 0; i < count; ++i) {
    if (std::isfinite(values[i])) continue;
    char what[200];
    std::snprintf(what, sizeof(what), "step %d: %s: %s = %g is not finite",
                  step, file, columns[i], values[i]);
    throw SimulationError(step, what);
  }
}

constexpr char kLinksHeader[] =
    "time,robot,link,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
constexpr char kContactsHeader[] =
    "time,body_a,body_b,x,y,z,nx,ny,nz,phi,impulse_n,impulse_tx,impulse_ty,"
    "impulse_tz,slip_speed\n";
constexpr char kStepsHeader[] =
    "time,contacts,newton_iterations,solver_time_s,collision_time_s,"
    "max_penetration_m,kinetic_energy_J,potential_energy_J,elastic_energy_J,"
    "failed,islands,largest_island_dofs,penetrating_contacts,"
    "speculative_contacts,excluded_contacts,factorizations,low_rank_updates,"
    "line_search_evaluations,step_size_s,error_estimate,rejected\n";

// The generalized velocities at the end of the last step, stacked in the
// order of the stepper's problem trees: the moving (non-fixed) bodies that
// were awake in scene order, (v, w) of each in the world frame, then the robots
// with degrees of freedom, their v. Both solver models leave exactly these in
// the state.
Eigen::VectorXd EndVelocities(const TimeStepper& stepper) {
  const Scene& scene = stepper.scene();
  Eigen::VectorXd v(stepper.last_problem().num_velocities());
  Eigen::Index offset = 0;
  auto append = [&](const Eigen::Ref<const Eigen::VectorXd>& x) {
    if (offset + x.size() > v.size()) return;
    v.segment(offset, x.size()) = x;
    offset += x.size();
  };
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    // Fixed and sleeping bodies are not in the problem.
    if (stepper.ProblemTree(static_cast<int>(b)) < 0) continue;
    Eigen::Matrix<double, 6, 1> x;
    x << stepper.state()[b].velocity, stepper.state()[b].angular_velocity;
    append(x);
  }
  for (const RobotState& r : stepper.robot_states()) {
    if (r.v.size() > 0) append(r.v);
  }
  if (offset != v.size()) {
    throw std::logic_error(
        "contacts.csv: the state's velocities do not match the contact "
        "problem's trees");
  }
  return v;
}

// contacts.csv: one row per contact of the last step (columns in
// simulation.h). The impulses are the stepper's (contact frame n, t1, t2 of
// ContactFrameRows(normal), conventions.h), turned into world vectors; the
// slip is |v_t| of v_c = J v + bias with v at the end of the step.
void WriteContactRows(std::ofstream& out, const TimeStepper& stepper,
                      int step) {
  const std::vector<ContactPoint>& contacts = stepper.last_contacts();
  const SapProblem& problem = stepper.last_problem();
  const Eigen::VectorXd& gamma = stepper.last_impulses();
  const size_t nc = contacts.size();
  if (nc == 0) return;
  if (problem.contacts.size() != nc ||
      gamma.size() != 3 * static_cast<Eigen::Index>(nc)) {
    throw std::logic_error(
        "contacts.csv: the last step's contacts, problem and impulses differ "
        "in size");
  }
  const Eigen::VectorXd v = EndVelocities(stepper);
  const std::vector<int> offsets = problem.TreeOffsets();
  static const char* const kColumns[] = {
      "x",          "y",          "z",          "nx",
      "ny",         "nz",         "phi",        "impulse_n",
      "impulse_tx", "impulse_ty", "impulse_tz", "slip_speed"};
  char time[40], numbers[420];
  std::snprintf(time, sizeof(time), "%.9g,", stepper.time());
  for (size_t k = 0; k < nc; ++k) {
    const ContactPoint& cp = contacts[k];
    const Contact& c = problem.contacts[k];
    const Matrix3 rows = ContactFrameRows(cp.normal);
    const Vector3 g = gamma.segment<3>(3 * k);
    const Vector3 friction = rows.row(kTangent1).transpose() * g(kTangent1) +
                             rows.row(kTangent2).transpose() * g(kTangent2);
    const Vector3 v_c = ContactVelocity(c, offsets, v);
    const double values[12] = {
        cp.position.x(), cp.position.y(), cp.position.z(),
        cp.normal.x(),   cp.normal.y(),   cp.normal.z(),
        cp.phi,          g(kNormal),      friction.x(),
        friction.y(),    friction.z(),    Tangential(v_c).norm()};
    CheckFiniteRow(step, "contacts.csv", kColumns, values, 12);
    std::snprintf(numbers, sizeof(numbers),
                  ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,"
                  "%.12g,%.12g,%.12g\n",
                  values[0], values[1], values[2], values[3], values[4],
                  values[5], values[6], values[7], values[8], values[9],
                  values[10], values[11]);
    out << time << stepper.ColliderName(cp.body_a) << ','
        << stepper.ColliderName(cp.body_b) << numbers;
  }
}

// steps.csv: the row of one step (columns in simulation.h); the energies
// are those at its start.
void WriteStepRow(std::ofstream& out, const TimeStepper& stepper, int step,
                  const StepInfo& info, double kinetic, double potential,
                  double step_size, double error_estimate, int rejected) {
  static const char* const kColumns[] = {"time",
                                         "solver_time_s",
                                         "collision_time_s",
                                         "max_penetration_m",
                                         "kinetic_energy_J",
                                         "potential_energy_J",
                                         "elastic_energy_J"};
  const double values[7] = {
      stepper.time(),       info.solver_time, info.collision_time,
      info.max_penetration, kinetic,          potential,
      info.elastic_energy};
  CheckFiniteRow(step, "steps.csv", kColumns, values, 7);
  const StepInfo::SolverCounters& c = info.counters;
  char line[512];
  std::snprintf(line, sizeof(line),
                "%.9g,%d,%d,%.6g,%.6g,%.12g,%.12g,%.12g,%.12g,%d,%d,%d,%d,%d,"
                "%d,%d,%d,%d,%.9g,%.6g,%d\n",
                values[0], info.contacts, info.newton_iterations, values[1],
                values[2], values[3], values[4], values[5], values[6],
                info.failed ? 1 : 0, c.islands, c.largest_island_velocities,
                c.penetrating_contacts, c.speculative_contacts,
                c.excluded_contacts, c.factorizations, c.low_rank_updates,
                c.line_search_evaluations, step_size, error_estimate, rejected);
  out << line;
}

// Throws SimulationError unless every number of the summary is finite.
void CheckFinite(const SimulationSummary& s) {
  const std::pair<const char*, double> fields[] = {
      {"mean_contacts", s.mean_contacts},
      {"mean_newton_iterations", s.mean_newton_iterations},
      {"max_penetration_m", s.max_penetration_m},
      {"max_hover_m", s.max_hover_m},
      {"max_hover_time_s", s.max_hover_time_s},
      {"kinetic_energy_initial_J", s.kinetic_energy_initial_J},
      {"kinetic_energy_final_J", s.kinetic_energy_final_J},
      {"energy_initial_J", s.energy_initial_J},
      {"energy_max_J", s.energy_max_J},
      {"energy_max_increase_rel", s.energy_max_increase_rel},
      {"wall_time_s", s.wall_time_s},
      {"solver_time_s", s.solver_time_s},
      {"collision_time_s", s.collision_time_s}};
  for (const auto& [name, value] : fields) {
    if (!std::isfinite(value)) {
      throw SimulationError(
          s.steps, "after step " + std::to_string(s.steps) +
                       " (the end): summary: " + std::string(name) + " = " +
                       std::to_string(value) + " is not finite");
    }
  }
}

// A temporary output file, removed when it goes out of scope unless it was
// renamed to its final name.
struct PartialFile {
  explicit PartialFile(std::filesystem::path p) : path(std::move(p)) {}
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  ~PartialFile() {
    if (committed || path.empty()) return;
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  // @throws std::runtime_error when the rename fails.
  void CommitAs(const std::filesystem::path& final_path) {
    std::error_code ec;
    std::filesystem::rename(path, final_path, ec);
    if (ec) {
      throw std::runtime_error("cannot rename " + path.string() + " to " +
                               final_path.string() + ": " + ec.message());
    }
    committed = true;
  }
  std::filesystem::path path;
  bool committed{false};
};

// An output file written under DIR/NAME.partial and renamed to DIR/NAME at
// the end; inactive (writes nothing) when constructed with active = false.
struct OutputFile {
  OutputFile(bool active, const std::filesystem::path& dir, const char* name)
      : final_path(active ? dir / name : std::filesystem::path()),
        tmp(active ? dir / (std::string(name) + ".partial")
                   : std::filesystem::path()) {}
  bool active() const { return !final_path.empty(); }
  // Opens the temporary file and writes the header. @throws
  // std::runtime_error when it cannot be written.
  void Open(const char* header) {
    if (!active()) return;
    out.open(tmp.path);
    if (!out) throw std::runtime_error("cannot write " + tmp.path.string());
    out << header;
  }
  // Closes the temporary file. @throws std::runtime_error on a write error.
  void Close() {
    if (!out.is_open()) return;
    out.close();
    if (!out) throw std::runtime_error("error writing " + tmp.path.string());
  }
  void Commit() {
    if (active()) tmp.CommitAs(final_path);
  }
  std::filesystem::path final_path;
  PartialFile tmp;
  std::ofstream out;
};

}  // namespace

std::string SummaryToJson(const Scene& scene, const SimulationSummary& s) {
  nlohmann::ordered_json j;
  j["scene"] = scene.source;
  j["steps"] = s.steps;
  j["time_step"] = s.time_step;
  j["duration"] = s.duration;
  j["solver_model"] = SolverModelName(scene.solver.model);
  j["wall_time_s"] = s.wall_time_s;
  j["solver_time_s"] = s.solver_time_s;
  j["collision_time_s"] = s.collision_time_s;
  j["mean_contacts"] = s.mean_contacts;
  j["max_contacts"] = s.max_contacts;
  j["mean_newton_iterations"] = s.mean_newton_iterations;
  j["max_newton_iterations"] = s.max_newton_iterations;
  const SimulationSummary::SolverCounterMeans& c = s.solver_counters;
  j["solver_counters"] = {
      {"islands", c.islands},
      {"largest_island_dofs", c.largest_island_dofs},
      {"penetrating_contacts", c.penetrating_contacts},
      {"speculative_contacts", c.speculative_contacts},
      {"excluded_contacts", c.excluded_contacts},
      {"factorizations", c.factorizations},
      {"low_rank_updates", c.low_rank_updates},
      {"line_search_evaluations", c.line_search_evaluations}};
  const SimulationSummary::IntegratorStatistics& in = s.integrator;
  j["integrator"] = {
      {"scheme", in.error_controlled ? "error_controlled" : "fixed"},
      {"accuracy", in.error_controlled ? in.accuracy : 0.0},
      {"accepted_steps", in.accepted_steps},
      {"rejected_steps", in.rejected_steps},
      {"steps_at_min_step", in.steps_at_min_step},
      {"min_step_s", in.min_step_s},
      {"max_step_s", in.max_step_s},
      {"mean_step_s", in.mean_step_s},
      {"solves_per_step", in.solves_per_step}};
  j["failed_steps"] = s.failed_steps;
  j["first_failure"] = s.first_failure;
  j["max_penetration_m"] = s.max_penetration_m;
  j["max_hover_m"] = s.max_hover_m;
  j["max_hover_time_s"] = s.max_hover_time_s;
  j["max_hover_bodies"] = s.max_hover_bodies;
  j["max_hover_point_m"] =
      s.max_hover_bodies.empty()
          ? nlohmann::ordered_json::array()
          : nlohmann::ordered_json{s.max_hover_point_m.x(),
                                   s.max_hover_point_m.y(),
                                   s.max_hover_point_m.z()};
  j["kinetic_energy_initial_J"] = s.kinetic_energy_initial_J;
  j["kinetic_energy_final_J"] = s.kinetic_energy_final_J;
  j["energy_initial_J"] = s.energy_initial_J;
  j["energy_max_J"] = s.energy_max_J;
  j["energy_max_increase_rel"] = s.energy_max_increase_rel;
  j["warnings"] = s.warnings.empty() ? scene.warnings : s.warnings;
  nlohmann::ordered_json bodies = nlohmann::ordered_json::array();
  for (size_t b = 0; b < scene.bodies.size() && b < s.final_state.size(); ++b) {
    const BodyState& st = s.final_state[b];
    const Eigen::Quaterniond& q = st.pose.orientation;
    nlohmann::ordered_json body;
    body["name"] = scene.bodies[b].name;
    body["fixed"] = scene.bodies[b].fixed;
    body["position"] = {st.pose.position.x(), st.pose.position.y(),
                        st.pose.position.z()};
    body["quaternion_wxyz"] = {q.w(), q.x(), q.y(), q.z()};
    body["velocity"] = {st.velocity.x(), st.velocity.y(), st.velocity.z()};
    body["angular_velocity"] = {st.angular_velocity.x(),
                                st.angular_velocity.y(),
                                st.angular_velocity.z()};
    bodies.push_back(body);
  }
  j["bodies"] = bodies;
  nlohmann::ordered_json robots = nlohmann::ordered_json::array();
  for (size_t r = 0; r < scene.robots.size() && r < s.final_robot_state.size();
       ++r) {
    const RobotSpec& spec = scene.robots[r];
    const MultibodyTree& mb = spec.description.tree;
    const RobotState& st = s.final_robot_state[r];
    nlohmann::ordered_json robot;
    robot["name"] = spec.name;
    robot["fixed_base"] = spec.fixed_base;
    nlohmann::ordered_json joints = nlohmann::ordered_json::array();
    for (int jt = 0; jt < mb.num_links(); ++jt) {
      const Joint& joint = mb.joint(jt);
      if (joint.type == JointType::kFixed) continue;
      nlohmann::ordered_json entry;
      entry["name"] = joint.name;
      entry["type"] = JointTypeName(joint.type);
      const int nq = mb.num_positions(jt), nv = mb.num_velocities(jt);
      if (nq == 1) {
        entry["position"] = st.q(mb.position_start(jt));
        entry["velocity"] = st.v(mb.velocity_start(jt));
        for (size_t k = 0; k < spec.actuation.size(); ++k) {
          if (spec.actuation[k].joint == jt &&
              r < s.final_robot_efforts.size()) {
            entry["effort"] = s.final_robot_efforts[r](k);
          }
        }
      } else {
        entry["position"] =
            std::vector<double>(st.q.data() + mb.position_start(jt),
                                st.q.data() + mb.position_start(jt) + nq);
        entry["velocity"] =
            std::vector<double>(st.v.data() + mb.velocity_start(jt),
                                st.v.data() + mb.velocity_start(jt) + nv);
      }
      joints.push_back(entry);
    }
    robot["joints"] = joints;
    const RobotDescription::CollisionCounts& counts =
        spec.description.collision_counts;
    robot["collision_shapes"] = {{"loaded", counts.loaded},
                                 {"dropped", counts.dropped},
                                 {"approximated", counts.approximated}};
    robots.push_back(robot);
  }
  if (!scene.robots.empty()) j["robots"] = robots;
  // Invalid UTF-8 (in a file name, say) is replaced, never thrown.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int StepCount(const Scene& scene) {
  const double steps = std::round(scene.duration / scene.time_step);
  if (!(steps <= scene_limits::kMaxSteps)) {  // also NaN
    throw std::invalid_argument(
        "duration: duration / time_step = " + std::to_string(steps) +
        " steps, more than the limit of " +
        std::to_string(static_cast<long>(scene_limits::kMaxSteps)) +
        " (docs/scenes.md, Limits)");
  }
  return std::max(1, static_cast<int>(steps));
}

InitialOverlap FindInitialOverlap(const Scene& scene) {
  ValidateScene(scene);
  CollisionDetector detector = MakeCollisionDetector(scene);
  std::vector<Eigen::VectorXd> q;
  for (const RobotSpec& r : scene.robots) q.push_back(RobotInitialPositions(r));
  const std::vector<Pose> poses = ColliderPoses(scene, q);
  // The contacts of the first step (margin and motion bounds as the time
  // stepper uses them), so that the limits fail here, as bad input.
  std::vector<double> bounds(poses.size(), 0.0);
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    const Body& body = scene.bodies[b];
    if (body.fixed) continue;
    bounds[b] =
        MotionBound(body.shape, body.velocity + scene.time_step * scene.gravity,
                    body.angular_velocity, scene.time_step);
  }
  CollisionOptions options;
  options.margin = scene.collision.margin;
  const std::vector<ContactPoint>& contacts =
      detector.FindContacts(poses, options, bounds);
  if (scene.solver.model == SolverModel::kRigid) {
    const std::vector<bool> fixed = FixedColliders(scene);
    const double bytes =
        EstimateRigidQpBytes(contacts, static_cast<int>(fixed.size()), fixed);
    if (bytes > scene_limits::kMaxRigidQpBytes) {
      char what[256];
      std::snprintf(what, sizeof(what),
                    "%zu contacts, whose rigid-contact QP would need about "
                    "%.3g GB, more than the %.3g GB budget",
                    contacts.size(), bytes / 1e9,
                    scene_limits::kMaxRigidQpBytes / 1e9);
      throw CollisionLimitError(what, contacts.front().body_a,
                                contacts.front().body_b);
    }
  }
  InitialOverlap overlap;
  overlap.contacts = static_cast<int>(contacts.size());
  for (const ContactPoint& c : contacts) {
    if (-c.phi > overlap.depth) {
      overlap.depth = -c.phi;
      overlap.body_a = c.body_a;
      overlap.body_b = c.body_b;
    }
  }
  if (overlap.body_a >= 0) {
    const std::vector<std::string> names = ColliderBodyNames(scene);
    overlap.name_a = names[overlap.body_a];
    overlap.name_b = names[overlap.body_b];
  }
  return overlap;
}

Scene ErrorControlledScene(const Scene& scene) {
  Scene s = scene;
  s.solver.rel_tolerance =
      std::clamp(scene.integrator.accuracy * 1e-2, 1e-12, 1e-4);
  return s;
}

SimulationSummary RunSimulation(const Scene& scene,
                                const SimulationOptions& options) {
  const auto t_start = Clock::now();
  const int steps = StepCount(scene);
  const bool controlled =
      scene.integrator.scheme == IntegrationScheme::kErrorControlled;
  TimeStepper stepper(controlled ? ErrorControlledScene(scene) : scene);
  std::optional<ErrorControlledIntegrator> integrator;
  if (controlled) {
    integrator.emplace(&stepper, scene.integrator, scene.time_step);
  }
  SimulationSummary s;
  s.time_step = scene.time_step;
  const int every = std::max(1, scene.output.every);
  // Error control lands on the output times k every time_step (and the
  // end, steps time_step), where a fixed-step run writes its rows.
  const double t_final = steps * scene.time_step;
  const double output_period = every * scene.time_step;
  int next_output = 1;
  SimulationSummary::IntegratorStatistics& in = s.integrator;
  in.error_controlled = controlled;
  in.accuracy = scene.integrator.accuracy;
  in.min_step_s = std::numeric_limits<double>::infinity();

  namespace fs = std::filesystem;
  const bool write = !options.output_dir.empty();
  const fs::path dir(options.output_dir);
  const fs::path traj_final = dir / "trajectory.csv";
  const fs::path summary_final = dir / "summary.json";
  const fs::path joints_final = dir / "joints.csv";
  const bool write_joints = write && !scene.robots.empty();
  PartialFile joints_tmp(write_joints ? dir / "joints.csv.partial"
                                      : fs::path());
  std::ofstream joints;
  // Outputs are written under temporary names, removed on any exception.
  PartialFile traj_tmp(write ? dir / "trajectory.csv.partial" : fs::path());
  PartialFile summary_tmp(write ? dir / "summary.json.partial" : fs::path());
  std::ofstream trajectory;
  OutputFile contacts(write && options.write_contacts, dir, "contacts.csv");
  OutputFile steps_csv(write && options.write_steps, dir, "steps.csv");
  OutputFile links(write && options.write_links && !scene.robots.empty(), dir,
                   "links.csv");
  if (write) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      throw std::runtime_error("cannot create output directory " +
                               dir.string() + ": " + ec.message());
    }
    // Stale outputs of an earlier run must not survive a failed one.
    fs::remove(traj_final, ec);
    fs::remove(summary_final, ec);
    fs::remove(joints_final, ec);
    // Also those this run does not write: they would not match it.
    fs::remove(dir / "contacts.csv", ec);
    fs::remove(dir / "steps.csv", ec);
    fs::remove(dir / "links.csv", ec);
    contacts.Open(kContactsHeader);
    steps_csv.Open(kStepsHeader);
    links.Open(kLinksHeader);
    if (links.out.is_open()) WriteLinkRows(links.out, stepper);
    if (write_joints) {
      joints.open(joints_tmp.path);
      if (!joints) {
        throw std::runtime_error("cannot write " + joints_tmp.path.string());
      }
      joints << "time,robot,joint,position,velocity,effort\n";
      WriteJointRows(joints, stepper);
    }
    trajectory.open(traj_tmp.path);
    if (!trajectory) {
      throw std::runtime_error("cannot write " + traj_tmp.path.string());
    }
    trajectory << "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
    WriteRows(trajectory, stepper);
  }

  double sum_contacts = 0, sum_iterations = 0;
  int n = 0;
  for (;; ++n) {
    if (controlled ? stepper.time() >= t_final - 1e-9 * scene.time_step
                   : n >= steps) {
      break;
    }
    const double kinetic = stepper.KineticEnergy();
    const double potential = stepper.PotentialEnergy();
    if (n == 0) s.kinetic_energy_initial_J = kinetic;
    StepInfo info;
    double step_size = scene.time_step, error_estimate = 0.0;
    int rejected = 0;
    bool output = false;
    if (controlled) {
      if (n >= scene_limits::kMaxSteps) {
        throw SimulationError(
            n, "error control took " + std::to_string(n) +
                   " steps, the limit of one run (docs/scenes.md, Limits), "
                   "and reached t = " +
                   std::to_string(stepper.time()) +
                   " s: loosen integrator.accuracy or raise "
                   "integrator.min_step");
      }
      const double t_out = std::min(next_output * output_period, t_final);
      const ErrorControlledStep ec = integrator->Step(t_out);
      info = ec.info;
      step_size = ec.step_size;
      error_estimate = ec.error_estimate;
      rejected = ec.rejected;
      in.rejected_steps += ec.rejected;
      in.steps_at_min_step += ec.at_min_step ? 1 : 0;
      in.solves_per_step += ec.solves;
      if (stepper.time() >= t_out - 1e-9 * output_period) {
        output = true;
        ++next_output;
      }
    } else {
      info = stepper.Step();
      in.solves_per_step += 1;
      output = (n + 1) % every == 0 || n + 1 == steps;
    }
    in.min_step_s = std::min(in.min_step_s, step_size);
    in.max_step_s = std::max(in.max_step_s, step_size);
    // Energy at the start of this step (contacts found at these poses).
    const double energy = kinetic + potential + info.elastic_energy;
    if (!std::isfinite(energy)) {
      char what[160];
      std::snprintf(what, sizeof(what),
                    "step %d: the total energy at its start is not finite "
                    "(kinetic %g J, gravitational %g J, elastic %g J)",
                    n + 1, kinetic, potential, info.elastic_energy);
      throw SimulationError(n + 1, what);
    }
    if (n == 0) {
      s.energy_initial_J = energy;
      s.energy_max_J = energy;
    }
    s.energy_max_J = std::max(s.energy_max_J, energy);
    sum_contacts += info.contacts;
    sum_iterations += info.newton_iterations;
    const StepInfo::SolverCounters& c = info.counters;
    SimulationSummary::SolverCounterMeans& m = s.solver_counters;
    m.islands += c.islands;
    m.largest_island_dofs += c.largest_island_velocities;
    m.penetrating_contacts += c.penetrating_contacts;
    m.speculative_contacts += c.speculative_contacts;
    m.excluded_contacts += c.excluded_contacts;
    m.factorizations += c.factorizations;
    m.low_rank_updates += c.low_rank_updates;
    m.line_search_evaluations += c.line_search_evaluations;
    s.max_contacts = std::max(s.max_contacts, info.contacts);
    s.max_newton_iterations =
        std::max(s.max_newton_iterations, info.newton_iterations);
    s.max_penetration_m = std::max(s.max_penetration_m, info.max_penetration);
    if (info.max_hover > s.max_hover_m && info.hover_contact >= 0) {
      const ContactPoint& c = stepper.last_contacts()[info.hover_contact];
      s.max_hover_m = info.max_hover;
      s.max_hover_time_s = stepper.time();
      s.max_hover_bodies = {stepper.ColliderName(c.body_a),
                            stepper.ColliderName(c.body_b)};
      s.max_hover_point_m = c.position;
    }
    s.solver_time_s += info.solver_time;
    s.collision_time_s += info.collision_time;
    if (info.failed) {
      if (s.failed_steps == 0) {
        char when[96];
        std::snprintf(when, sizeof(when),
                      "step %d (t = %.6g s to %.6g s): ", n + 1,
                      stepper.time() - step_size, stepper.time());
        s.first_failure = when + info.failure;
      }
      ++s.failed_steps;
    }
    if (trajectory.is_open() && output) {
      WriteRows(trajectory, stepper);
      if (joints.is_open()) WriteJointRows(joints, stepper);
      if (links.out.is_open()) WriteLinkRows(links.out, stepper);
      if (contacts.out.is_open()) {
        WriteContactRows(contacts.out, stepper, n + 1);
      }
    }
    if (steps_csv.out.is_open()) {
      WriteStepRow(steps_csv.out, stepper, n + 1, info, kinetic, potential,
                   step_size, error_estimate, rejected);
    }
    if (options.on_step) options.on_step(stepper, info);
  }
  s.steps = n;
  s.duration = controlled ? stepper.time() : steps * scene.time_step;
  in.accepted_steps = n;
  in.mean_step_s = s.duration / std::max(n, 1);
  in.solves_per_step /= std::max(n, 1);
  if (n == 0) in.min_step_s = 0.0;
  s.mean_contacts = sum_contacts / std::max(n, 1);
  s.mean_newton_iterations = sum_iterations / std::max(n, 1);
  for (double* sum :
       {&s.solver_counters.islands, &s.solver_counters.largest_island_dofs,
        &s.solver_counters.penetrating_contacts,
        &s.solver_counters.speculative_contacts,
        &s.solver_counters.excluded_contacts, &s.solver_counters.factorizations,
        &s.solver_counters.low_rank_updates,
        &s.solver_counters.line_search_evaluations}) {
    *sum /= std::max(n, 1);
  }
  s.kinetic_energy_final_J = stepper.KineticEnergy();
  const double gain = s.energy_max_J - s.energy_initial_J;
  s.energy_max_increase_rel =
      gain / std::max(std::abs(s.energy_initial_J), 1e-300);
  if (!std::isfinite(s.energy_max_increase_rel)) {
    // E_0 = 0 (or tiny): the increase relative to itself.
    s.energy_max_increase_rel =
        gain / std::max(std::abs(s.energy_initial_J), std::abs(gain));
  }
  s.warnings = stepper.scene().warnings;
  s.final_state = stepper.state();
  s.final_robot_state = stepper.robot_states();
  for (size_t r = 0; r < scene.robots.size(); ++r) {
    s.final_robot_efforts.push_back(
        stepper.ActuationEfforts(static_cast<int>(r)));
  }
  s.wall_time_s = std::chrono::duration<double>(Clock::now() - t_start).count();
  CheckFinite(s);

  if (write) {
    trajectory.close();
    if (!trajectory) {
      throw std::runtime_error("error writing " + traj_tmp.path.string());
    }
    std::ofstream summary(summary_tmp.path);
    summary << SummaryToJson(scene, s);
    summary.close();
    if (!summary) {
      throw std::runtime_error("cannot write " + summary_tmp.path.string());
    }
    if (joints.is_open()) {
      joints.close();
      if (!joints) {
        throw std::runtime_error("error writing " + joints_tmp.path.string());
      }
    }
    contacts.Close();
    steps_csv.Close();
    links.Close();
    if (write_joints) joints_tmp.CommitAs(joints_final);
    contacts.Commit();
    steps_csv.Commit();
    links.Commit();
    traj_tmp.CommitAs(traj_final);
    summary_tmp.CommitAs(summary_final);
  }
  return s;
}

}  // namespace sapcontact
