// Where `package://NAME/...` (URDF, SDFormat) and `model://NAME/...`
// (SDFormat) URIs find their folders: in the ':'-separated folder lists of
// environment variables (ROS_PACKAGE_PATH, SDF_PATH, ...), the same way for
// every front end.
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

/// The folders listed in environment variable `var` (':'-separated, empty
/// entries skipped); none when it is not set.
std::vector<std::string> EnvFolders(const char* var);

/// The folder of package (or model) `name` in the folders of the variables
/// `vars`, in order: a listed folder itself named `name`, or a folder
/// `name` inside a listed one; "" when none has it.
std::string FindPackageFolder(const std::string& name,
                              const std::vector<const char*>& vars);

}  // namespace sapcontact
