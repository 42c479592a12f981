// Helpers of the command-line tests: run `sapsim` in process
// (cli::Main) with stdout and stderr captured, temporary directories, and
// the checks every output must pass (no nan, inf or null anywhere).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sapsim/sapsim_command.h"

namespace sapcontact::cli_test {

namespace fs = std::filesystem;

/// A 10 kg, 0.2 m box resting on the ground (as config/scenes/box_rest.yaml,
/// 20 steps), nine lines: the valid scene the command-line tests damage.
inline constexpr char kBoxRestScene[] =
    "time_step: 0.001\n"
    "duration: 0.02\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: box\n"
    "    shape: {type: box, size: [0.2, 0.2, 0.2]}\n"
    "    mass: 10\n"
    "    position: [0, 0, 0.1]\n"
    "    rpy: [0, 0, 0]\n";

struct CliResult {
  int status{-1};
  std::string out, err;
};

/// Runs `sapsim args...` in process with stdout and stderr captured.
inline CliResult RunSapsim(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"sapsim"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  CliResult r;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  std::string thrown;
  try {
    r.status = cli::Main(static_cast<int>(argv.size()), argv.data());
  } catch (const std::exception& e) {
    thrown = e.what();
  } catch (...) {
    thrown = "a non-standard exception";
  }
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  if (!thrown.empty()) {
    ADD_FAILURE() << "cli::Main threw: " << thrown;
    r.status = -1;
  }
  return r;
}

/// A fresh directory below the system's temporary directory, removed by the
/// destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = fs::temp_directory_path() /
            ("sapsim_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string File(const std::string& name) const {
    return (path_ / name).string();
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return File(name);
  }

 private:
  fs::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The repository root (config/, docs/): $SAPCONTACT_SOURCE_DIR, else from
/// this file's path.
inline std::string SourceDir() {
  if (const char* root = std::getenv("SAPCONTACT_SOURCE_DIR")) return root;
  const std::string here = __FILE__;
  return here.substr(0, here.rfind("/tests/"));
}

/// A number cell: parses completely as a finite double.
inline bool FiniteNumber(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && std::isfinite(v);
}

/// Splits a CSV line at commas (no quoting: trajectory rows never quote).
inline std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::stringstream s(line);
  while (std::getline(s, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

/// Checks a trajectory.csv: the header, then rows of 15 cells ending in a
/// newline, every cell but the body name a finite number. Returns "" or the
/// first problem.
inline std::string TrajectoryProblem(const std::string& path) {
  const std::string text = ReadFile(path);
  if (text.empty() || text.back() != '\n') return "does not end in a newline";
  std::stringstream s(text);
  std::string line;
  std::getline(s, line);
  if (line != "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz") {
    return "bad header '" + line + "'";
  }
  for (int row = 2; std::getline(s, line); ++row) {
    const std::vector<std::string> cells = SplitCsv(line);
    if (cells.size() != 15) {
      return "row " + std::to_string(row) + " has " +
             std::to_string(cells.size()) + " cells";
    }
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c == 1) continue;
      if (!FiniteNumber(cells[c])) {
        return "row " + std::to_string(row) + " cell " + std::to_string(c) +
               " = '" + cells[c] + "' is not a finite number";
      }
    }
  }
  return "";
}

/// Checks a JSON document: it parses, and holds no null and no non-finite
/// number anywhere. Returns "" or the first problem.
inline std::string JsonProblem(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFile(path));
  } catch (const std::exception& e) {
    return std::string("does not parse: ") + e.what();
  }
  std::string problem;
  std::function<void(const nlohmann::json&, const std::string&)> walk =
      [&](const nlohmann::json& v, const std::string& where) {
        if (!problem.empty()) return;
        if (v.is_null()) {
          problem = where + " is null";
        } else if (v.is_number_float() && !std::isfinite(v.get<double>())) {
          problem = where + " is not finite";
        } else if (v.is_object()) {
          for (auto it = v.begin(); it != v.end(); ++it) {
            walk(it.value(), where + "." + it.key());
          }
        } else if (v.is_array()) {
          for (size_t i = 0; i < v.size(); ++i) {
            walk(v[i], where + "[" + std::to_string(i) + "]");
          }
        }
      };
  walk(j, "$");
  return problem;
}

/// Whether `text` holds a cell (between commas or line ends) that reads as
/// nan, inf or null in any case.
inline bool HasNonFiniteCell(const std::string& text) {
  std::string cell;
  auto bad = [](std::string c) {
    for (char& ch : c) ch = static_cast<char>(std::tolower(ch));
    while (!c.empty() && (c[0] == '-' || c[0] == '+' || c[0] == '"')) {
      c.erase(0, 1);
    }
    while (!c.empty() && c.back() == '"') c.pop_back();
    return c == "nan" || c == "inf" || c == "infinity" || c == "null" ||
           c == "-nan";
  };
  for (char ch : text) {
    if (ch == ',' || ch == '\n' || ch == '\r') {
      if (bad(cell)) return true;
      cell.clear();
    } else {
      cell += ch;
    }
  }
  return bad(cell);
}

}  // namespace sapcontact::cli_test
