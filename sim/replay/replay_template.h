// The replay page's HTML/JS template (replay_template.html) and its robot
// script (replay_robot.js), embedded at
// build time: CMake writes it into a generated replay_template.cc (see
// CMakeLists.txt here), so the program never reads the source tree.
#pragma once

#include <string>

namespace sapcontact {

/// The text of replay_template.html: a page with the markers /*THREE_JS*/
/// (three.js goes there) and /*REPLAY_DATA*/ (the run's JSON data).
std::string ReplayTemplateHtml();

/// The text of replay_robot.js: the page's robot links and visuals
/// (window.sapReplayRobot), inlined at the template's /*ROBOT_JS*/.
std::string ReplayRobotJs();

}  // namespace sapcontact
