// Helpers shared by the scene tests: paths of the shipped scenes and
// temporary scene files.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace sapcontact {
namespace testing_util {

/// The repository root, from this file's path (tests/sim/scene/...).
inline std::string RepoRoot() {
  const std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/"));
}

inline std::string ScenePath(const std::string& name) {
  return RepoRoot() + "/config/scenes/" + name + ".yaml";
}

/// Writes `text` to a fresh file named `name` in a per-process temporary
/// directory and returns its path.
inline std::string WriteTempScene(const std::string& name,
                                  const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sapcontact_scene_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace testing_util
}  // namespace sapcontact
