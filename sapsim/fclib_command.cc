#include "sapsim/fclib_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "sapcontact/fclib/fclib_io.h"

namespace sapcontact::cli {
namespace {

double ParseDouble(const std::string& key, const std::string& value) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || !std::isfinite(x)) {
    throw std::invalid_argument("--set solver." + key + ": '" + value +
                                "' is not a finite number");
  }
  return x;
}

// A number in [lo, hi] (the settings' ranges, fclib_command.h).
double ParseIn(const std::string& key, const std::string& value, double lo,
               double hi) {
  const double x = ParseDouble(key, value);
  if (!(x >= lo && x <= hi)) {
    std::ostringstream os;
    os << "--set solver." << key << ": " << value << " is outside [" << lo
       << ", " << hi << "]";
    throw std::invalid_argument(os.str());
  }
  return x;
}

int ParseInt(const std::string& key, const std::string& value, int lo = 1,
             int hi = 100000) {
  const double x = ParseDouble(key, value);
  if (!(x >= -2e9 && x <= 2e9) || x != static_cast<int>(x)) {
    throw std::invalid_argument("--set solver." + key + ": '" + value +
                                "' is not an integer");
  }
  return static_cast<int>(ParseIn(key, value, lo, hi));
}

// Tolerances: in [0, 1].
double ParseTolerance(const std::string& key, const std::string& value) {
  return ParseIn(key, value, 0.0, 1.0);
}

// A CSV cell for a number: empty when not finite (never "nan" or "inf").
std::string Cell(const char* format, double v) {
  if (!std::isfinite(v)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

// RFC 4180 quoting of a text cell.
std::string Quote(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

// A number for the printed table ("-" when not finite).
std::string Shown(const char* format, double v) {
  return std::isfinite(v) ? Cell(format, v) : "-";
}

bool ParseBool(const std::string& key, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  throw std::invalid_argument("--set solver." + key + ": '" + value +
                              "' is not true or false");
}

// ||a - b|| / scale (absolute if scale = 0).
double RelDiff(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
               double scale) {
  return scale > 0 ? (a - b).norm() / scale : (a - b).norm();
}

}  // namespace

CLI::App* AddFclibCommand(CLI::App& app, FclibCommandOptions* o) {
  CLI::App* cmd = app.add_subcommand(
      "fclib",
      "Solve FCLib problem files (HDF5, local or global) with the rigid QP "
      "(convex relaxation, Wsym = (W + W')/2, then natural-map refinement) "
      "or SAP in its stiff limit (k = inf, tau_d = 0, beta = 1e-3, sigma = "
      "1e-6, by continuation from beta = 1, sigma = 1e-3). Prints one row "
      "per problem: relative convex (e_S) and Coulomb (e_C) residuals as in "
      "Siconos' fc3d_compute_error, objective 1/2 r'Wsym r + q'r; for files "
      "with a stored /solution (e.g. from sapsim run --export-fclib) dr = "
      "||r - r_stored|| / ||r_stored|| and du = ||u - u_stored|| / "
      "max(||q||, ||u||, ||u_stored||). Each file is read in a child "
      "process first, so that a damaged file (which makes libfclib end the "
      "process) is reported as a bad_file row with its error and the other "
      "files still run. A NaN residual never counts as solved. Exit "
      "status: 0 all solved, 1 some solver failed, 2 bad input (a bad file, "
      "setting or CSV path; reported at the end).");
  cmd->add_option("files", o->files, "FCLib problem files (.hdf5)")->required();
  cmd->add_option("--solver", o->solver, "rigid or sap")
      ->check(CLI::IsMember({"rigid", "sap"}))
      ->capture_default_str();
  cmd->add_option(
      "--set,-s", o->settings,
      "solver setting solver.KEY=VALUE (repeatable): max_iterations; rigid: "
      "feasibility_tolerance, gap_tolerance, max_polish_iterations, "
      "psd_tolerance, linear_solver=auto|dense|sparse, refine=true|false, "
      "refine_tolerance, refine_max_iterations; sap: near_rigid_threshold, "
      "friction_regularization, rel_tolerance, abs_tolerance, "
      "soft_norm_tolerance, line_search=exact|backtracking, "
      "linear_solver=auto|dense|cholmod|block_sparse, continuation=true|false, "
      "continuation_factor, form=contact_space|primal (local problems: SAP "
      "on the sparse W, or on a dense primal form; docs/theory.md §15), "
      "rank_tolerance");
  cmd->add_option("--csv", o->csv,
                  "write name,contacts,solver,status,iterations,solve_time_s,"
                  "objective,convex_residual,coulomb_residual,error (one row "
                  "per file: a bad file has status bad_file and its error; "
                  "numbers that are not finite are empty cells)")
      ->each([o](const std::string&) { o->csv_given = true; });
  cmd->add_option("--read-timeout", o->read_timeout_s,
                  "seconds after which reading one file (in a child "
                  "process) is stopped and the file counted as bad")
      ->capture_default_str();
  cmd->add_flag("--quiet,-q", o->quiet, "print only errors and the summary");
  return cmd;
}

void ApplyFclibSetting(const std::string& assignment, FclibSolverOptions* o) {
  const std::string prefix = "solver.";
  const size_t eq = assignment.find('=');
  if (assignment.compare(0, prefix.size(), prefix) != 0 ||
      eq == std::string::npos) {
    throw std::invalid_argument("--set '" + assignment +
                                "': expected solver.KEY=VALUE");
  }
  const std::string key = assignment.substr(prefix.size(), eq - prefix.size());
  const std::string v = assignment.substr(eq + 1);
  const bool sap = o->solver == FclibSolverKind::kSap;
  const std::map<std::string, std::function<void()>> setters = {
      {"max_iterations",
       [&] {
         (sap ? o->sap.max_iterations : o->rigid.max_iterations) =
             ParseInt(key, v);
       }},
      {"feasibility_tolerance",
       [&] { o->rigid.feasibility_tolerance = ParseTolerance(key, v); }},
      {"gap_tolerance",
       [&] { o->rigid.gap_tolerance = ParseTolerance(key, v); }},
      {"max_polish_iterations",
       [&] { o->rigid.max_polish_iterations = ParseInt(key, v, 0); }},
      {"psd_tolerance",
       [&] { o->rigid.validation.psd_tolerance = ParseTolerance(key, v); }},
      {"refine", [&] { o->refine = ParseBool(key, v); }},
      {"refine_tolerance",
       [&] { o->refinement.tolerance = ParseTolerance(key, v); }},
      {"refine_max_iterations",
       [&] { o->refinement.max_iterations = ParseInt(key, v, 0); }},
      {"near_rigid_threshold",
       [&] {
         o->sap.regularization.near_rigid_threshold =
             ParseIn(key, v, 1e-12, 1e3);
       }},
      {"friction_regularization",
       [&] {
         o->sap.regularization.friction_regularization =
             ParseIn(key, v, 1e-12, 1e3);
       }},
      {"soft_norm_tolerance",
       [&] {
         o->sap.regularization.soft_norm_tolerance = ParseTolerance(key, v);
       }},
      {"rel_tolerance", [&] { o->sap.rel_tolerance = ParseTolerance(key, v); }},
      {"abs_tolerance", [&] { o->sap.abs_tolerance = ParseTolerance(key, v); }},
      {"line_search",
       [&] {
         if (v != "exact" && v != "backtracking") {
           throw std::invalid_argument(
               "--set solver.line_search: expected exact or backtracking");
         }
         o->sap.line_search = v == "exact" ? LineSearchType::kExact
                                           : LineSearchType::kBacktracking;
       }},
      {"linear_solver",
       [&] {
         if (sap) {
           if (v == "auto")
             o->sap.linear_solver = LinearSolverType::kAuto;
           else if (v == "dense")
             o->sap.linear_solver = LinearSolverType::kDense;
           else if (v == "cholmod")
             o->sap.linear_solver = LinearSolverType::kCholmod;
           else if (v == "block_sparse")
             o->sap.linear_solver = LinearSolverType::kBlockSparse;
           else
             throw std::invalid_argument(
                 "--set solver.linear_solver: expected auto, dense, cholmod "
                 "or block_sparse");
         } else {
           if (v == "auto")
             o->rigid.linear_solver = RigidQpLinearSolver::kAuto;
           else if (v == "dense")
             o->rigid.linear_solver = RigidQpLinearSolver::kDense;
           else if (v == "sparse")
             o->rigid.linear_solver = RigidQpLinearSolver::kSparse;
           else
             throw std::invalid_argument(
                 "--set solver.linear_solver: expected auto, dense or sparse");
         }
       }},
      {"continuation", [&] { o->continuation = ParseBool(key, v); }},
      {"continuation_factor",
       [&] { o->continuation_factor = ParseIn(key, v, 1.1, 1e6); }},
      {"form",
       [&] {
         if (v != "contact_space" && v != "primal") {
           throw std::invalid_argument(
               "--set solver.form: expected contact_space or primal");
         }
         o->sap_contact_space = v == "contact_space";
       }},
      {"rank_tolerance",
       [&] { o->primal_form.rank_tolerance = ParseTolerance(key, v); }},
  };
  const auto it = setters.find(key);
  if (it == setters.end()) {
    std::string keys;
    for (const auto& [name, setter] : setters) keys += " " + name;
    throw std::invalid_argument("--set solver." + key +
                                ": unknown setting; known:" + keys);
  }
  it->second();
}

int RunFclib(const FclibCommandOptions& o) {
  FclibSolverOptions options;
  options.solver =
      o.solver == "sap" ? FclibSolverKind::kSap : FclibSolverKind::kRigid;
  try {
    for (const std::string& s : o.settings) ApplyFclibSetting(s, &options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "sapsim fclib: error: %s\n", e.what());
    return 2;
  }
  if (o.csv_given && o.csv.empty()) {
    std::fprintf(stderr, "sapsim fclib: error: --csv: empty path\n");
    return 2;
  }
  if (!(o.read_timeout_s > 0.0) || !std::isfinite(o.read_timeout_s)) {
    std::fprintf(stderr,
                 "sapsim fclib: error: --read-timeout: must be > 0 s\n");
    return 2;
  }
  // The CSV is written under a temporary name and renamed at the end.
  const std::string csv_tmp = o.csv.empty() ? "" : o.csv + ".partial";
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(csv_tmp);
    if (!csv) {
      std::fprintf(stderr, "sapsim fclib: error: cannot write %s\n",
                   o.csv.c_str());
      return 2;
    }
    csv << "name,contacts,solver,status,iterations,solve_time_s,objective,"
           "convex_residual,coulomb_residual,error\n";
  }
  if (!o.quiet) {
    std::printf("%-36s %5s %-5s %-24s %9s %9s %24s %9s %9s %s\n", "name", "nc",
                "solver", "status", "iters", "time[s]", "objective", "e_S",
                "e_C", "vs stored solution");
  }
  int bad = 0, failed = 0, solved = 0;
  double worst_es = 0.0, total_time = 0.0;
  for (const std::string& path : o.files) {
    const std::string name = FclibProblemName(path);
    FclibSolveResult r;
    std::optional<FclibSolution> stored;
    double velocity_scale = 0.0;  // ||q|| (local) or ||w|| (global)
    try {
      // Read in a child process first: a file that makes libfclib or HDF5
      // fail (exit, crash, hang) is a row with its error, and the batch
      // goes on.
      ProbeFclibFile(path, o.read_timeout_s);
      if (DetectFclibProblemKind(path) == FclibProblemKind::kLocal) {
        const FclibLocalProblem p = ReadFclibLocal(path);
        stored = p.solution;
        velocity_scale = p.q.norm();
        r = SolveFclibLocal(p, options);
      } else {
        const FclibGlobalProblem p = ReadFclibGlobal(path);
        stored = p.solution;
        velocity_scale = p.w.norm();
        r = SolveFclibGlobal(p, options);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sapsim fclib: error: %s\n", e.what());
      ++bad;
      if (!o.quiet) {
        std::printf("%-36s %5s %-5s %-24s\n", name.c_str(), "-",
                    o.solver.c_str(), "bad_file");
        std::fflush(stdout);
      }
      if (csv.is_open()) {
        csv << Quote(name) << ",," << o.solver << ",bad_file,,,,,,"
            << Quote(e.what()) << "\n";
      }
      continue;
    }
    (r.success ? solved : failed)++;
    total_time += r.solve_time_s;
    const FclibResiduals& res = r.residuals;
    if (r.success && std::isfinite(res.convex_residual)) {
      worst_es = std::max(worst_es, res.convex_residual);
    }
    std::string iters = std::to_string(r.iterations);
    if (r.refinement_iterations > 0) {
      iters += "+" + std::to_string(r.refinement_iterations);
    }
    std::string versus = "-";
    if (stored && stored->r.size() == r.r.size() && r.r.size() > 0 &&
        r.r.allFinite()) {
      const double u_scale =
          std::max({velocity_scale, stored->u.norm(), res.u.norm()});
      const double dr = RelDiff(r.r, stored->r, stored->r.norm());
      const double du = RelDiff(res.u, stored->u, u_scale);
      if (std::isfinite(dr) && std::isfinite(du)) {
        char buffer[96];
        std::snprintf(buffer, sizeof(buffer), "dr %.1e du %.1e", dr, du);
        versus = buffer;
      }
    }
    if (!o.quiet) {
      std::printf("%-36s %5d %-5s %-24s %9s %9.3f %24s %9s %9s %s\n",
                  name.c_str(), r.contacts, ToString(r.solver),
                  r.status.c_str(), iters.c_str(), r.solve_time_s,
                  Shown("%.16e", res.objective).c_str(),
                  Shown("%.2e", res.convex_residual).c_str(),
                  Shown("%.2e", res.coulomb_residual).c_str(), versus.c_str());
      if (!r.success && !r.message.empty()) {
        std::printf("  %s: %s\n", name.c_str(), r.message.c_str());
      }
      std::fflush(stdout);
    }
    if (csv.is_open()) {
      csv << Quote(name) << "," << r.contacts << "," << ToString(r.solver)
          << "," << r.status << "," << r.iterations << ","
          << Cell("%.6g", r.solve_time_s) << "," << Cell("%.17g", res.objective)
          << "," << Cell("%.6e", res.convex_residual) << ","
          << Cell("%.6e", res.coulomb_residual) << ","
          << Quote(r.success ? "" : r.message) << "\n";
    }
  }
  std::printf(
      "%zu file(s): %d solved, %d failed, %d bad; worst relative e_S of the "
      "solved %.2e; total solve time %.3f s\n",
      o.files.size(), solved, failed, bad, worst_es, total_time);
  if (csv.is_open()) {
    csv.close();
    std::error_code ec;
    if (csv) std::filesystem::rename(csv_tmp, o.csv, ec);
    if (!csv || ec) {
      std::filesystem::remove(csv_tmp, ec);
      std::fprintf(stderr, "sapsim fclib: error: writing %s failed\n",
                   o.csv.c_str());
      return 2;
    }
  }
  if (bad > 0) return 2;
  return failed > 0 ? 1 : 0;
}

}  // namespace sapcontact::cli
