// The repository root for tests that read shipped files (config/, docs/).
#pragma once

#include <string>

namespace sapcontact {
namespace testing_util {

/// The repository root, from this file's path (tests/common/...).
inline std::string RepoRoot() {
  const std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/"));
}

}  // namespace testing_util
}  // namespace sapcontact
