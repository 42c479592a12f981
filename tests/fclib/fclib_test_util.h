// Helpers of the FCLib tests: temporary files, the shared problem set
// (../shared/fclib), random local problems, references.csv.
#pragma once

#include <unistd.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sapcontact/fclib/fclib_io.h"
#include "tests/common/repo_root.h"

namespace sapcontact {
namespace fclib_test {

/// A fresh per-process temporary directory for test files.
inline std::string TempDir() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sapcontact_fclib_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string TempPath(const std::string& name) {
  return TempDir() + "/" + name;
}

using testing_util::RepoRoot;

/// The shared FCLib set: $SAPCONTACT_SHARED_DIR/fclib, else the first
/// ancestor A of the working directory or of the repository with
/// A/shared/fclib/references.csv (CI has ../shared beside the repo). Empty
/// if not found.
inline std::string SharedFclibDir() {
  namespace fs = std::filesystem;
  std::vector<fs::path> starts;
  if (const char* env = std::getenv("SAPCONTACT_SHARED_DIR")) {
    if (fs::exists(fs::path(env) / "fclib" / "references.csv")) {
      return (fs::path(env) / "fclib").string();
    }
  }
  std::error_code ec;
  starts.push_back(fs::current_path(ec));
  starts.push_back(fs::path(RepoRoot()));
  for (fs::path a : starts) {
    for (; !a.empty(); a = a.parent_path()) {
      const fs::path candidate = a / "shared" / "fclib";
      if (fs::exists(candidate / "references.csv", ec)) {
        return candidate.string();
      }
      if (a == a.parent_path()) break;
    }
  }
  return "";
}

/// references.csv: name -> column -> value (as text).
inline std::map<std::string, std::map<std::string, std::string>> ReadReferences(
    const std::string& dir) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::ifstream in(dir + "/references.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string f; std::getline(hs, f, ',');) header.push_back(f);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::vector<std::string> fields;
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    for (size_t k = 0; k < header.size() && k < fields.size(); ++k) {
      out[fields[0]][header[k]] = fields[k];
    }
  }
  return out;
}

/// The r column of references/<name>.<kind>.csv.
inline Eigen::VectorXd ReadReferenceImpulses(const std::string& dir,
                                             const std::string& name,
                                             const std::string& kind) {
  std::ifstream in(dir + "/references/" + name + "." + kind + ".csv");
  std::string line;
  std::getline(in, line);
  std::vector<double> r;
  while (std::getline(in, line)) {
    r.push_back(std::stod(line.substr(0, line.find(','))));
  }
  return Eigen::Map<Eigen::VectorXd>(r.data(), r.size());
}

/// A random local problem: W = B B' (+ a skew part of relative size
/// `asymmetry`) with B 3nc x rank, mu in [0.1, 1], q random for full rank,
/// else q = B z + E_n c with c >= 0 (so that the QP is bounded below).
inline FclibLocalProblem RandomLocalProblem(int nc, int rank, unsigned seed,
                                            double asymmetry = 0.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.1, 1.0);
  const int n = 3 * nc;
  Eigen::MatrixXd B(n, rank);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < rank; ++j) B(i, j) = normal(gen);
  }
  Eigen::MatrixXd W = B * B.transpose() / rank;
  if (asymmetry > 0) {
    Eigen::MatrixXd S(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) S(i, j) = normal(gen);
    }
    W += asymmetry * W.norm() / n * (S - S.transpose());
  }
  FclibLocalProblem p;
  p.W = W.sparseView();
  p.q.resize(n);
  if (rank >= n) {
    for (int i = 0; i < n; ++i) p.q(i) = normal(gen);
    for (int i = 0; i < nc; ++i) p.q(3 * i) -= 1.0;  // mostly approaching
  } else {
    // q = B z + E_n c with c >= 0: for d in the cones with W d = 0 (so
    // B'd = 0), q'd = c'd_n >= 0, hence the QP is bounded below.
    Eigen::VectorXd z(rank);
    for (int j = 0; j < rank; ++j) z(j) = normal(gen);
    p.q = B * z / std::sqrt(rank);
    for (int i = 0; i < nc; ++i) p.q(3 * i) += 0.5 * uniform(gen);
  }
  p.mu.resize(nc);
  for (int i = 0; i < nc; ++i) p.mu(i) = uniform(gen);
  p.info.title = "random " + std::to_string(nc);
  return p;
}

}  // namespace fclib_test
}  // namespace sapcontact
