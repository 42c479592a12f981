// Helpers of the sweep tests: paths of the shipped scenes and studies, a
// per-process temporary directory, and a small sweep of short runs.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sapcontact/studies/sweep_runner.h"
#include "tests/common/repo_root.h"

namespace sapcontact {
namespace sweep_testing {

using testing_util::RepoRoot;

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

// A small sweep over box_rest (short runs).
inline std::vector<SweepAxis> SmallAxes() {
  return {ParseSweepAxis("time_step=2e-3,5e-3"),
          ParseSweepAxis("solver.near_rigid_threshold=0.3,1"),
          ParseSweepAxis("materials.default.stiffness=1e5,.inf")};
}

inline SweepOptions SmallOptions() {
  SweepOptions o;
  o.fixed_overrides = {"duration=0.06"};
  o.metrics.metrics = {"resting_penetration_m", "max_penetration_m",
                       "mean_newton_iterations", "us_per_step"};
  o.jobs = 2;
  return o;
}

// The columns that differ between two identical runs (timings).
inline bool IsTiming(const std::string& column) {
  return column == "wall_time_s" || column == "solver_time_s" ||
         column == "collision_time_s" || column == "us_per_step";
}

}  // namespace sweep_testing
}  // namespace sapcontact
