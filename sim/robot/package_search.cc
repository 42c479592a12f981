#include "sapcontact/sim/robot/package_search.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace sapcontact {

std::vector<std::string> EnvFolders(const char* var) {
  std::vector<std::string> out;
  const char* env = std::getenv(var);
  if (env == nullptr) return out;
  std::istringstream in(env);
  std::string f;
  while (std::getline(in, f, ':')) {
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

std::string FindPackageFolder(const std::string& name,
                              const std::vector<const char*>& vars) {
  namespace fs = std::filesystem;
  for (const char* var : vars) {
    for (const std::string& folder : EnvFolders(var)) {
      std::error_code ec;
      const fs::path f(folder);
      if (f.filename() == name && fs::is_directory(f, ec)) return f.string();
      if (fs::is_directory(f / name, ec)) return (f / name).string();
    }
  }
  return "";
}

}  // namespace sapcontact
