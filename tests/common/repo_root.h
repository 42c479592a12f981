// The repository root for tests that read shipped files (config/, docs/).
#pragma once

#include <filesystem>
#include <string>

namespace sapcontact {
namespace testing_util {

/// The repository root, from this file's path (tests/common/...), absolute
/// and without "..": ccache with CCACHE_BASEDIR compiles with a relative
/// __FILE__ ("../../tests/common/repo_root.h" from the build tree's tests/,
/// where CTest runs the tests).
inline std::string RepoRoot() {
  const std::string f = __FILE__;
  std::string root = std::filesystem::absolute(f.substr(0, f.rfind("/tests/")))
                         .lexically_normal()
                         .string();
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

}  // namespace testing_util
}  // namespace sapcontact
