// Helpers shared by the URDF tests: paths of the shipped robots, temporary
// files, line numbers inside inline URDF text, and error-message checks.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "sapcontact/sim/robot/urdf_loader.h"
#include "tests/common/repo_root.h"

namespace sapcontact {
namespace testing_util {

/// A URDF document: a robot named "test" holding `body`.
inline std::string RobotUrdf(const std::string& body) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"test\">\n" + body +
         "</robot>\n";
}

inline std::string RobotPath(const std::string& name) {
  return RepoRoot() + "/config/scenes/robots/" + name + ".urdf";
}

/// Writes `text` to a fresh file named `name` in a per-process temporary
/// directory and returns its path.
inline std::string WriteTempUrdf(const std::string& name,
                                 const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sapcontact_urdf_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

/// 1-based line of the first occurrence of `marker` in `text` (the test
/// fails if there is none).
inline int LineOf(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  if (at == std::string::npos) return -1;
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

/// "<source>:<line>:" for the first occurrence of `marker`.
inline std::string At(const std::string& source, const std::string& text,
                      const std::string& marker) {
  return source + ":" + std::to_string(LineOf(text, marker)) + ":";
}

/// Parses `xml` as "bad.urdf" and expects a UrdfError whose message
/// contains every string in `parts`; returns the message.
inline std::string ExpectUrdfError(const std::string& xml,
                                   std::initializer_list<std::string> parts,
                                   const UrdfOptions& options = {}) {
  try {
    ParseUrdf(xml, "bad.urdf", options);
  } catch (const UrdfError& e) {
    const std::string what = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(what.find(part), std::string::npos)
          << "message: " << what << "\nmissing: " << part;
    }
    return what;
  }
  ADD_FAILURE() << "no UrdfError for:\n" << xml;
  return "";
}

}  // namespace testing_util
}  // namespace sapcontact
