// Fuzz target: the URDF loader (ParseUrdf, on urdfdom's XML parser), then a
// scene of the loaded robot above the ground stepped a few times.
//
// Input: URDF text, named config/scenes/robots/fuzz.urdf (relative mesh
// files resolve there; package://NAME is looked up in ROS_PACKAGE_PATH only
// if set). The comment <!--floating--> anywhere gives the robot a floating
// base; <!--capsules--> loads cylinders as capsules; <!--skip--> skips
// unsupported geometry.
// Rules:
//   - ParseUrdf returns a description or throws std::invalid_argument
//     (UrdfError, or the multibody tree's check) naming the problem; no
//     other exception, crash or leak;
//   - a scene of the robot is accepted or rejected by ValidateScene with
//     std::invalid_argument; an accepted one steps with a finite state or a
//     SimulationError (fuzz_target.h).
#include <stdexcept>
#include <string>

#include "sapcontact/geometry/shapes.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/fuzz/targets/fuzz_steps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace sapcontact;
  const std::string xml(reinterpret_cast<const char*>(data), size);
  UrdfOptions options;
  options.floating_base = xml.find("<!--floating-->") != std::string::npos;
  options.cylinders_as_capsules =
      xml.find("<!--capsules-->") != std::string::npos;
  options.skip_unsupported = xml.find("<!--skip-->") != std::string::npos;
  options.base_pose.position = Vector3(0, 0, 0.5);
  RobotSpec robot;
  try {
    robot.description = ParseUrdf(
        xml, fuzz::SourceDir() + "/config/scenes/robots/fuzz.urdf", options);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (robot.description.tree.num_links() > 64) return 0;
  Scene scene = fuzz::SceneWithGround();
  robot.name = "robot";
  robot.urdf = robot.urdf_path = "fuzz.urdf";
  robot.base_pose = options.base_pose;
  robot.fixed_base = !options.floating_base;
  scene.robots.push_back(std::move(robot));
  try {
    ValidateScene(scene);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  fuzz::StepFew(scene, 3);
  return 0;
}
