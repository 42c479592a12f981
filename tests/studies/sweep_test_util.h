// Helpers of the sweep tests: paths of the shipped scenes and studies, and
// a per-process temporary directory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace sapcontact {
namespace sweep_testing {

/// The repository root, from this file's path (tests/studies/...).
inline std::string RepoRoot() {
  const std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/"));
}

inline std::string ScenePath(const std::string& name) {
  return RepoRoot() + "/config/scenes/" + name + ".yaml";
}

inline std::string StudyPath(const std::string& name) {
  return RepoRoot() + "/config/studies/" + name + ".yaml";
}

/// A fresh directory under the system temporary directory.
inline std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sapcontact_sweep_test_" + std::to_string(::getpid())) /
                   name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace sweep_testing
}  // namespace sapcontact
