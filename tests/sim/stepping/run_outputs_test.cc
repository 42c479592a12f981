// The per-contact and per-step files of RunSimulation (simulation.h):
// contacts.csv and steps.csv, checked against the physics they report.
//
// Scene: a box sliding and spinning on the ground, a lighter box dropped on
// top of it (sliding relative to it), and a ball dropped beside them, every
// step written (output.every = 1). For every moving body and step:
//   m (v_n - v_{n-1}) = m g dt + sum of the contact impulses on it
// (linear momentum; the impulse on B is +p, on A -p, p = impulse_n n +
// impulse_t), with the impulses of contacts.csv and the velocities of
// trajectory.csv, to the solver's tolerance. The impulses lie in the
// Coulomb cone, the slip is |v_t| of the contact point from the bodies'
// velocities, and steps.csv's energies are those of the trajectory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/csv_reader.h"
#include "sapcontact/sim/stepping/simulation.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

constexpr char kScene[] =
    "time_step: 1.0e-3\n"
    "duration: 0.25\n"
    "gravity: [0, 0, -9.81]\n"
    "materials:\n"
    "  default: {stiffness: 1.0e6, dissipation_time_scale: 0.01, "
    "friction: 0.4}\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: bottom\n"
    "    shape: {type: box, size: [0.3, 0.2, 0.1]}\n"
    "    mass: 2.0\n"
    "    position: [0, 0, 0.05]\n"
    "    velocity: [0.8, 0.1, 0]\n"
    "    angular_velocity: [0, 0, 2.0]\n"
    "  - name: top\n"
    "    shape: {type: box, size: [0.1, 0.1, 0.1]}\n"
    "    mass: 0.5\n"
    "    position: [0.02, 0, 0.152]\n"
    "    rpy: [0, 0, 0.3]\n"
    "  - name: ball\n"
    "    shape: {type: sphere, radius: 0.05}\n"
    "    mass: 0.3\n"
    "    position: [-0.4, 0.1, 0.07]\n"
    "    velocity: [0, -0.5, 0]\n"
    "output:\n"
    "  every: 1\n";

// A run of kScene (with overrides) into a fresh directory.
class RunDir {
 public:
  RunDir(const std::string& tag, const std::vector<std::string>& overrides,
         bool contacts, bool steps) {
    dir_ = fs::temp_directory_path() /
           ("run_outputs_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path scene_file = dir_ / "scene.yaml";
    std::ofstream(scene_file) << kScene;
    scene_ = LoadScene(scene_file.string(), overrides);
    SimulationOptions options;
    options.output_dir = (dir_ / "out").string();
    options.write_contacts = contacts;
    options.write_steps = steps;
    summary_ = RunSimulation(scene_, options);
  }
  ~RunDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path File(const char* name) const { return dir_ / "out" / name; }
  const Scene& scene() const { return scene_; }
  const SimulationSummary& summary() const { return summary_; }

 private:
  fs::path dir_;
  Scene scene_;
  SimulationSummary summary_;
};

struct Row {  // trajectory.csv: one body at one time
  Vector3 x, v, w;
  Eigen::Quaterniond q;
};

// trajectory.csv as frames[time index][body name].
struct Trajectory {
  std::vector<double> times;
  std::vector<std::map<std::string, Row>> frames;
};

Trajectory ReadTrajectory(const fs::path& path) {
  CsvReader csv(path);
  const int t = csv.Column("time"), body = csv.Column("body");
  int c[13];
  const char* names[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                           "vx", "vy", "vz", "wx", "wy", "wz"};
  for (int i = 0; i < 13; ++i) c[i] = csv.Column(names[i]);
  Trajectory traj;
  while (csv.Next()) {
    if (traj.times.empty() || csv.Number(t) > traj.times.back()) {
      traj.times.push_back(csv.Number(t));
      traj.frames.emplace_back();
    }
    Row r;
    r.x = {csv.Number(c[0]), csv.Number(c[1]), csv.Number(c[2])};
    r.q = Eigen::Quaterniond(csv.Number(c[3]), csv.Number(c[4]),
                             csv.Number(c[5]), csv.Number(c[6]));
    r.v = {csv.Number(c[7]), csv.Number(c[8]), csv.Number(c[9])};
    r.w = {csv.Number(c[10]), csv.Number(c[11]), csv.Number(c[12])};
    traj.frames.back()[csv.Text(body)] = r;
  }
  return traj;
}

struct ContactRow {
  std::string a, b;
  Vector3 point, normal, friction;
  double phi, impulse_n, slip;
};

// contacts.csv grouped by time (the times in file order).
std::vector<std::pair<double, std::vector<ContactRow>>> ReadContacts(
    const fs::path& path) {
  CsvReader csv(path);
  const int t = csv.Column("time"), a = csv.Column("body_a"),
            b = csv.Column("body_b");
  int c[12];
  const char* names[12] = {"x",          "y",   "z",          "nx",
                           "ny",         "nz",  "impulse_tx", "impulse_ty",
                           "impulse_tz", "phi", "impulse_n",  "slip_speed"};
  for (int i = 0; i < 12; ++i) c[i] = csv.Column(names[i]);
  std::vector<std::pair<double, std::vector<ContactRow>>> groups;
  while (csv.Next()) {
    if (groups.empty() || csv.Number(t) > groups.back().first) {
      groups.emplace_back(csv.Number(t), std::vector<ContactRow>());
    }
    ContactRow r;
    r.a = csv.Text(a);
    r.b = csv.Text(b);
    r.point = {csv.Number(c[0]), csv.Number(c[1]), csv.Number(c[2])};
    r.normal = {csv.Number(c[3]), csv.Number(c[4]), csv.Number(c[5])};
    r.friction = {csv.Number(c[6]), csv.Number(c[7]), csv.Number(c[8])};
    r.phi = csv.Number(c[9]);
    r.impulse_n = csv.Number(c[10]);
    r.slip = csv.Number(c[11]);
    groups.back().second.push_back(r);
  }
  return groups;
}

// The largest momentum residual over bodies and steps, relative to the
// largest momentum change of a body in a step.
struct Balance {
  double max_residual{0};  // [N s]
  double max_ratio{0};     // of a residual to its step's momenta
  double scale{0};         // max |m dv| [N s]
  int checked{0};          // body-steps with contacts
};

Balance CheckMomentum(const RunDir& run) {
  const Scene& scene = run.scene();
  const Trajectory traj = ReadTrajectory(run.File("trajectory.csv"));
  const auto contacts = ReadContacts(run.File("contacts.csv"));
  const double dt = scene.time_step;
  EXPECT_EQ(traj.times.size(), static_cast<size_t>(run.summary().steps) + 1);
  std::map<double, const std::vector<ContactRow>*> at;
  for (const auto& [t, rows] : contacts) at[t] = &rows;
  Balance balance;
  for (size_t n = 1; n < traj.times.size(); ++n) {
    const auto found = at.find(traj.times[n]);
    // The step's momentum scale: Newton's stopping test compares the
    // gradient (the momentum residual) with the norm of A v over all trees
    // (rel_tolerance), so the residual is relative to the bodies' momenta.
    double momenta = 0;
    for (const Body& body : scene.bodies) {
      if (!body.fixed) {
        momenta += body.mass * traj.frames[n].at(body.name).v.norm();
      }
    }
    for (const Body& body : scene.bodies) {
      if (body.fixed) continue;
      Vector3 impulse = Vector3::Zero();
      bool touched = false;
      if (found != at.end()) {
        for (const ContactRow& c : *found->second) {
          const Vector3 p = c.impulse_n * c.normal + c.friction;
          if (c.b == body.name) impulse += p, touched = true;
          if (c.a == body.name) impulse -= p, touched = true;
        }
      }
      const Vector3 dp = body.mass * (traj.frames[n].at(body.name).v -
                                      traj.frames[n - 1].at(body.name).v);
      const Vector3 residual = dp - body.mass * dt * scene.gravity - impulse;
      balance.max_residual = std::max(balance.max_residual, residual.norm());
      balance.max_ratio =
          std::max(balance.max_ratio, residual.norm() / momenta);
      balance.scale = std::max(balance.scale, dp.norm());
      balance.checked += touched ? 1 : 0;
    }
  }
  return balance;
}

TEST(RunOutputs, ContactImpulsesAndGravityEqualEachBodysMomentumChangeSap) {
  const RunDir run("sap", {"solver.contact_model=sap"}, true, false);
  ASSERT_EQ(run.summary().failed_steps, 0) << run.summary().first_failure;
  const Balance b = CheckMomentum(run);
  std::printf(
      "[sap] momentum residual %.3e N s (%.2e of the step's momenta) of max "
      "|m dv| %.3e N s (%d body-steps with contacts)\n",
      b.max_residual, b.max_ratio, b.scale, b.checked);
  // Three bodies in contact for most of the 250 steps.
  EXPECT_GT(b.checked, 500);
  // Newton stops at a relative gradient of 1e-6 (rel_tolerance): the
  // momentum equation holds to that, relative to the momenta; a sign or a
  // component of the impulses wrong would miss by |m dv| ~ 0.1 N s.
  EXPECT_LT(b.max_ratio, 1e-6);
  EXPECT_LT(b.max_residual, 1e-5 * b.scale);
}

TEST(RunOutputs, ContactImpulsesAndGravityEqualEachBodysMomentumChangeRigid) {
  const RunDir run("rigid", {"solver.model=rigid"}, true, false);
  ASSERT_EQ(run.summary().failed_steps, 0) << run.summary().first_failure;
  const Balance b = CheckMomentum(run);
  std::printf(
      "[rigid] momentum residual %.3e N s of max |m dv| %.3e N s "
      "(%d body-steps with contacts)\n",
      b.max_residual, b.scale, b.checked);
  EXPECT_GT(b.checked, 500);
  // The rigid QP's velocities are v* + A^-1 J' gamma of its impulses: the
  // balance holds to round-off (and the files' 12 digits).
  EXPECT_LT(b.max_residual, 1e-9 * b.scale);
}

// Impulses in the friction cone, normals of unit length, friction orthogonal
// to them; the slip is the tangential velocity of B relative to A at the
// contact point (start-of-step point, end-of-step velocities).
TEST(RunOutputs, ContactRowsAreInTheConeAndTheirSlipIsTheRelativeVelocity) {
  // The SAP paper's model: a sliding contact's friction is on the cone
  // (the lagged model's is mu times the previous step's normal impulse).
  const RunDir run("cone", {"solver.contact_model=sap"}, true, false);
  const Scene& scene = run.scene();
  const Trajectory traj = ReadTrajectory(run.File("trajectory.csv"));
  const auto contacts = ReadContacts(run.File("contacts.csv"));
  const double mu = 0.4;
  int sliding = 0, rows = 0;
  double max_slip_error = 0;
  for (const auto& [t, group] : contacts) {
    const size_t n =
        static_cast<size_t>(std::find(traj.times.begin(), traj.times.end(), t) -
                            traj.times.begin());
    ASSERT_LT(n, traj.times.size()) << "contacts.csv time " << t;
    ASSERT_GE(n, 1u);
    for (const ContactRow& c : group) {
      ++rows;
      EXPECT_NEAR(c.normal.norm(), 1.0, 1e-9);
      EXPECT_GE(c.impulse_n, 0.0);
      EXPECT_LT(std::abs(c.friction.dot(c.normal)), 1e-9);
      EXPECT_LE(c.friction.norm(), mu * c.impulse_n * (1 + 1e-9) + 1e-15);
      // Velocity of the contact point on a body: v + w x (p - x_start).
      auto point_velocity = [&](const std::string& name) -> Vector3 {
        const int b = scene.FindBody(name);
        if (scene.bodies[b].fixed) return Vector3::Zero();
        const Row& end = traj.frames[n].at(name);
        const Row& start = traj.frames[n - 1].at(name);
        return end.v + end.w.cross(c.point - start.x);
      };
      const Vector3 v = point_velocity(c.b) - point_velocity(c.a);
      const Vector3 v_t = v - v.dot(c.normal) * c.normal;
      max_slip_error = std::max(max_slip_error, std::abs(c.slip - v_t.norm()));
      if (c.slip > 1e-3 && c.impulse_n > 1e-9) {
        ++sliding;
        // Sliding: friction at the cone's edge, against the slip of B.
        EXPECT_NEAR(c.friction.norm(), mu * c.impulse_n,
                    1e-3 * mu * c.impulse_n + 1e-12);
        EXPECT_LT(c.friction.dot(v_t), 0.0);
      }
    }
  }
  EXPECT_GT(rows, 1000);
  EXPECT_GT(sliding, 200);  // the bottom box slides and spins the whole run
  EXPECT_LT(max_slip_error, 1e-9);
}

// steps.csv: a row per step, its contact count that of contacts.csv, and
// energies at the start of the step from the trajectory: kinetic
// 1/2 m v^2 + 1/2 w' I_W w, potential -m g.x.
TEST(RunOutputs, StepRowsCountContactsAndCarryTheTrajectorysEnergies) {
  // SAP: the solver's counters add up: the contacts by kind, the ones left
  // out of the contact graph among the speculative ones, a factorization
  // for every Newton iteration and none without, no Newton work without an
  // island.
  const RunDir run("steps", {"solver.contact_model=sap"}, true, true);
  const Scene& scene = run.scene();
  const Trajectory traj = ReadTrajectory(run.File("trajectory.csv"));
  const auto contacts = ReadContacts(run.File("contacts.csv"));
  std::map<double, int> count;
  for (const auto& [t, group] : contacts) {
    count[t] = static_cast<int>(group.size());
  }
  CsvReader steps(run.File("steps.csv"));
  const int t = steps.Column("time"), nc = steps.Column("contacts"),
            it = steps.Column("newton_iterations"),
            ke = steps.Column("kinetic_energy_J"),
            pe = steps.Column("potential_energy_J"),
            failed = steps.Column("failed"),
            penetrating = steps.Column("penetrating_contacts"),
            speculative = steps.Column("speculative_contacts"),
            excluded = steps.Column("excluded_contacts"),
            islands = steps.Column("islands"),
            factorizations = steps.Column("factorizations");
  size_t n = 0;
  double max_ke_error = 0, max_pe_error = 0;
  while (steps.Next()) {
    ++n;
    ASSERT_LT(n, traj.times.size());
    EXPECT_DOUBLE_EQ(steps.Number(t), traj.times[n]);
    const auto c = count.find(traj.times[n]);
    EXPECT_EQ(steps.Number(nc), c == count.end() ? 0 : c->second)
        << steps.Where();
    EXPECT_EQ(steps.Number(penetrating) + steps.Number(speculative),
              steps.Number(nc))
        << steps.Where();
    EXPECT_LE(steps.Number(excluded), steps.Number(speculative));
    EXPECT_EQ(steps.Number(it) >= 1, steps.Number(factorizations) >= 1)
        << steps.Where();
    EXPECT_GE(steps.Number(factorizations), steps.Number(it));
    if (steps.Number(islands) == 0) {
      EXPECT_EQ(steps.Number(it), 0) << steps.Where();
      EXPECT_EQ(steps.Number(nc), steps.Number(excluded)) << steps.Where();
    }
    EXPECT_EQ(steps.Number(failed), 0);
    double kinetic = 0, potential = 0;
    for (const Body& body : scene.bodies) {
      if (body.fixed) continue;
      const Row& r = traj.frames[n - 1].at(body.name);
      const Matrix3 R = r.q.normalized().toRotationMatrix();
      const Matrix3 I_W = R * body.inertia * R.transpose();
      kinetic += 0.5 * body.mass * r.v.squaredNorm() + 0.5 * r.w.dot(I_W * r.w);
      potential -= body.mass * scene.gravity.dot(r.x);
    }
    max_ke_error = std::max(max_ke_error, std::abs(steps.Number(ke) - kinetic));
    max_pe_error =
        std::max(max_pe_error, std::abs(steps.Number(pe) - potential));
  }
  EXPECT_EQ(n, static_cast<size_t>(run.summary().steps));
  // The trajectory's 12 digits (and the quaternion's) bound the agreement.
  EXPECT_LT(max_ke_error, 1e-9);
  EXPECT_LT(max_pe_error, 1e-9);
}

// contacts.csv follows output.every (steps 7, 14, ..., 245 and the last of
// 250): exactly the output steps that have contacts by steps.csv, with
// their counts; without the options neither file is written, and an
// earlier run's files are removed.
TEST(RunOutputs, ContactRowsFollowOutputEveryAndStaleFilesAreRemoved) {
  const RunDir run("every", {"output.every=7"}, true, true);
  const auto contacts = ReadContacts(run.File("contacts.csv"));
  std::vector<std::pair<double, size_t>> expected;
  CsvReader steps(run.File("steps.csv"));
  const int t = steps.Column("time"), nc = steps.Column("contacts");
  for (int n = 1; steps.Next(); ++n) {
    if ((n % 7 == 0 || n == 250) && steps.Number(nc) > 0) {
      expected.emplace_back(steps.Number(t),
                            static_cast<size_t>(steps.Number(nc)));
    }
  }
  ASSERT_GT(expected.size(), 20u);  // the bottom box hops now and then
  ASSERT_EQ(contacts.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_DOUBLE_EQ(contacts[i].first, expected[i].first);
    EXPECT_EQ(contacts[i].second.size(), expected[i].second);
  }

  // Run again into the same directory without the options.
  SimulationOptions options;
  options.output_dir = run.File("").string();
  std::ofstream(run.File("steps.csv")) << "stale\n";
  RunSimulation(run.scene(), options);
  EXPECT_FALSE(fs::exists(run.File("contacts.csv")));
  EXPECT_FALSE(fs::exists(run.File("steps.csv")));
}

}  // namespace
}  // namespace sapcontact
