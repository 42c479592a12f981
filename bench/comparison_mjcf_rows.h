// MJCF file rows of the MuJoCo comparison (bench/mujoco_comparison.cc
// --mjcf): the same MuJoCo model file in both engines, as a user would run
// it. sapcontact runs the file as a scene (sapsim run model.xml: its time
// step, its floor, the default contact model and material with the file's
// frictions; docs/robots.md, "Running MJCF files"); MuJoCo loads the file
// as it is, once with the file's integrator (RK4 for the Gym models) and
// once with its Euler integrator, the like of our one solve per step. No
// controls. The Gym models of Debian's dart-doc are gunzipped into a
// temporary folder. Outcome: the root body's height at the end [m].
#pragma once

#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/comparison_engines.h"
#include "bench/comparison_robot_rows.h"
#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/robot/mjcf_loader.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact::comparison {

struct MjcfFileRow {
  std::string name;       ///< e.g. "humanoid"
  std::string gym_file;   ///< in dart-doc's data/mjcf/openai/
  std::string root_body;  ///< whose final height is the outcome
  double duration{1.0};   ///< simulated time [s]
};

inline std::vector<MjcfFileRow> AllMjcfRows() {
  return {{"humanoid", "humanoid.xml.gz", "torso", 2.0},
          {"ant", "ant.xml.gz", "torso", 1.0},
          {"half_cheetah", "half_cheetah.xml.gz", "torso", 1.0}};
}

// The row's file as plain XML in `folder` ("" if it cannot be written).
inline std::string MjcfRowFile(const MjcfFileRow& row,
                               const TemporaryFolder& folder) {
  const std::string src =
      "/usr/share/doc/dart/data/mjcf/openai/" + row.gym_file;
  const std::string out = (folder.path() / (row.name + ".xml")).string();
  const std::string cmd = "gzip -dc '" + src + "' > '" + out + "'";
  return std::system(cmd.c_str()) == 0 ? out : "";
}

// The root body's height in sapcontact's state at the end.
inline double SapcontactRootHeight(const TimeStepper& stepper,
                                   const std::string& body) {
  const RobotSpec& robot = stepper.scene().robots.at(0);
  const MultibodyTree& tree = robot.description.tree;
  std::vector<Eigen::Isometry3d> X;
  CalcLinkPoses(tree, stepper.robot_states()[0].q, &X);
  return X.at(tree.FindLink(body)).translation().z();
}

// The file as sapsim run loads it, for the row's duration.
inline Scene MjcfRowScene(const std::string& file, const MjcfFileRow& row,
                          const std::vector<std::string>& sets) {
  std::vector<std::string> overrides = sets;
  overrides.push_back("duration=" + std::to_string(row.duration));
  return LoadScene(file, overrides);
}

// sapcontact's library path: a TimeStepper::Step loop on the file's scene.
inline EngineRun RunSapcontactMjcfOnce(const std::string& file,
                                       const MjcfFileRow& row,
                                       const std::vector<std::string>& sets) {
  EngineRun r;
  try {
    const Scene scene = MjcfRowScene(file, row, sets);
    TimeStepper stepper(scene);
    r.steps = static_cast<int>(std::lround(row.duration / scene.time_step));
    StepSapcontact(&stepper, &r);
    r.outcome = SapcontactRootHeight(stepper, row.root_body);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// sapcontact's simulation path (what sapsim run does).
inline EngineRun RunSimulationMjcfOnce(const std::string& file,
                                       const MjcfFileRow& row,
                                       const std::vector<std::string>& sets) {
  EngineRun r;
  try {
    RunSimulationTimed(MjcfRowScene(file, row, sets), &r);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// MuJoCo on the file as it is (euler: with its Euler integrator instead of
// the file's).
inline EngineRun RunMujocoMjcfOnce(const std::string& file,
                                   const MjcfFileRow& row, bool euler) {
  EngineRun r;
  MjModelPtr model;
  MjDataPtr data;
  if (!MakeMujoco(ReadFile(file), &model, &data, &r.error)) return r;
  mjModel* m = model.get();
  mjData* d = data.get();
  if (euler) m->opt.integrator = mjINT_EULER;
  r.steps = static_cast<int>(std::lround(row.duration / m->opt.timestep));
  StepMujoco(m, d, &r);
  mj_kinematics(m, d);
  const int b = mj_name2id(m, mjOBJ_BODY, row.root_body.c_str());
  if (b < 0) {
    r.error = "no body " + row.root_body;
    return r;
  }
  r.outcome = d->xpos[3 * b + 2];
  CheckMujocoRun(m, d, &r);
  return r;
}

// The --mjcf table: per file, both sapcontact paths against MuJoCo with
// the file's integrator and with Euler, each engine's fastest run.
inline void PrintMjcfRows(const std::vector<std::string>& sets) {
  std::printf(
      "MJCF files as they are (dart-doc's Gym models, no controls), MuJoCo "
      "%s; sapcontact runs them as sapsim run does\n",
      mj_versionString());
  std::printf("%-13s %5s %6s | %9s %9s | %10s %10s | %7s %7s | %11s | %s\n",
              "file", "dt", "steps", "sap us", "sim us", "mj file us",
              "mj Euler", "sim/mjf", "sim/mjE", "contacts", "final root z [m]");
  TemporaryFolder folder;
  for (const MjcfFileRow& row : AllMjcfRows()) {
    const std::string file = MjcfRowFile(row, folder);
    const std::vector<EngineRun> runs = MeasureAlternating(
        {[&] { return RunSapcontactMjcfOnce(file, row, sets); },
         [&] { return RunSimulationMjcfOnce(file, row, sets); },
         [&] { return RunMujocoMjcfOnce(file, row, false); },
         [&] { return RunMujocoMjcfOnce(file, row, true); }});
    const EngineRun &lib = runs[0], &sim = runs[1], &mjf = runs[2],
                    &mje = runs[3];
    for (const EngineRun* e : {&lib, &sim, &mjf, &mje}) {
      if (!e->ok) std::printf("  %s: %s\n", row.name.c_str(), e->error.c_str());
    }
    double dt = 0.0;
    try {
      dt = sapcontact::LoadMjcf(file).time_step;
    } catch (const std::exception&) {
    }
    std::printf(
        "%-13s %5g %6d | %9.1f %9.1f | %10.1f %10.1f | %7.2f %7.2f | %5.1f "
        "%5.1f | sap %.3f, MuJoCo file %.3f, Euler %.3f\n",
        row.name.c_str(), dt, lib.steps, lib.us_per_step, sim.us_per_step,
        mjf.us_per_step, mje.us_per_step, sim.us_per_step / mjf.us_per_step,
        sim.us_per_step / mje.us_per_step, lib.mean_contacts, mje.mean_contacts,
        lib.outcome, mjf.outcome, mje.outcome);
    std::fflush(stdout);
  }
}

}  // namespace sapcontact::comparison
