// Helpers shared by the scene tests: paths of the shipped scenes and
// temporary scene files.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/repo_root.h"

namespace sapcontact {
namespace testing_util {

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

/// The 1-based number of the line of `text` that carries the marker "#<"
/// (-1 if none): where a bad-input case expects its error.
inline int MarkedLine(const std::string& text) {
  std::istringstream is(text);
  std::string line;
  for (int n = 1; std::getline(is, line); ++n) {
    if (line.find("#<") != std::string::npos) return n;
  }
  return -1;
}

}  // namespace testing_util
}  // namespace sapcontact
