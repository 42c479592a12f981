// Stepping what a fuzzed loader accepted (scene_fuzzer.cc, urdf_fuzzer.cc).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/scene/material.h"
#include "sapcontact/sim/scene/scene.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/fuzz/targets/fuzz_target.h"

namespace sapcontact {
namespace fuzz {

/// Steps a loaded scene a few times. The TimeStepper is constructed or
/// rejects the scene with std::invalid_argument naming the item (its
/// documented check, e.g. a robot whose mass matrix is singular); then each
/// step either succeeds with a finite state or throws SimulationError (a
/// reported failure); nothing else may come out. Scenes of more than 256
/// bodies or 8 robots are not stepped (time), those of more than 64 bodies
/// or 2 robots one step only.
// A 10 ms scene at dt 1 ms with the default material and a fixed ground
// plane named "ground", for robot targets to add their robot to.
inline Scene SceneWithGround() {
  Scene scene;
  scene.time_step = 1e-3;
  scene.duration = 0.01;
  scene.materials.push_back(Material{});
  Body ground;
  ground.name = "ground";
  ground.fixed = true;
  ground.shape = MakePlane();
  scene.bodies.push_back(ground);
  return scene;
}

inline void StepFew(const Scene& scene, int steps) {
  if (scene.bodies.size() > 256 || scene.robots.size() > 8) return;
  std::unique_ptr<TimeStepper> owner;
  try {
    owner = std::make_unique<TimeStepper>(scene);
  } catch (const std::invalid_argument& e) {
    SAPCONTACT_FUZZ_CHECK(std::string(e.what()).size() > 10,
                          "an error that names nothing");
    return;
  }
  TimeStepper& stepper = *owner;
  if (scene.bodies.size() > 64 || scene.robots.size() > 2) steps = 1;
  for (int i = 0; i < steps; ++i) {
    try {
      stepper.Step();
    } catch (const SimulationError&) {
      return;  // reported, named failure
    }
    for (const BodyState& b : stepper.state()) {
      SAPCONTACT_FUZZ_CHECK(AllFinite(b.pose.position) &&
                                AllFinite(b.pose.orientation.coeffs()) &&
                                AllFinite(b.velocity) &&
                                AllFinite(b.angular_velocity),
                            "a step returned a non-finite body state");
    }
    for (const RobotState& r : stepper.robot_states()) {
      SAPCONTACT_FUZZ_CHECK(AllFinite(r.q) && AllFinite(r.v),
                            "a step returned a non-finite robot state");
    }
  }
}

/// A folder that holds nothing but the files the target writes for one
/// input (ProcessTempDir(tag), emptied on the first call), removed when the
/// process exits normally. For a model file's own relative references
/// (includes, meshes) to reach nothing else.
inline const std::string& InputFileDir(const std::string& tag) {
  static const std::string* const dir = [&tag] {
    const auto* d = new std::string(ProcessTempDir(tag));
    std::filesystem::remove_all(*d);
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(InputFileDir(""), ec);
    });
    return d;
  }();
  return *dir;
}

/// The robots of a model file's scene items (what scene_parse_robots.cc
/// makes of robots: [{mjcf|sdf: ...}]) 0.5 m above the ground, stepped a
/// few times when the scene validates. `loader` names the front end in
/// the rule PlaceRobot must keep.
inline void StepRobotsAboveGround(std::vector<RobotSpec> robots,
                                  const char* loader) {
  Scene scene = SceneWithGround();
  for (RobotSpec& robot : robots) {
    robot.fixed_base =
        robot.description.tree.joint(0).type == JointType::kFixed;
    robot.base_pose.position = Vector3(0, 0, 0.5);
    try {
      PlaceRobot(robot.base_pose, &robot.description);
    } catch (const std::exception& e) {
      Broken(
          (std::string("PlaceRobot accepts every robot ") + loader + " returns")
              .c_str(),
          e.what());
    }
    scene.robots.push_back(std::move(robot));
  }
  try {
    ValidateScene(scene);
  } catch (const std::invalid_argument&) {
    return;
  }
  StepFew(scene, 3);
}

}  // namespace fuzz
}  // namespace sapcontact
