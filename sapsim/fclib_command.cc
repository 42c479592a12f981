#include "sapsim/fclib_command.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
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
  if (used != value.size() || value.empty()) {
    throw std::invalid_argument("--set solver." + key + ": '" + value +
                                "' is not a number");
  }
  return x;
}

int ParseInt(const std::string& key, const std::string& value) {
  const double x = ParseDouble(key, value);
  if (x != static_cast<int>(x)) {
    throw std::invalid_argument("--set solver." + key + ": '" + value +
                                "' is not an integer");
  }
  return static_cast<int>(x);
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
      "max(||q||, ||u||, ||u_stored||). Exit "
      "status: 0 all solved, 1 some solver failed, 2 bad input.");
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
      "linear_solver=auto|dense|cholmod, continuation=true|false, "
      "continuation_factor, rank_tolerance");
  cmd->add_option("--csv", o->csv,
                  "write name,contacts,solver,status,iterations,solve_time_s,"
                  "objective,convex_residual,coulomb_residual");
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
       [&] { o->rigid.feasibility_tolerance = ParseDouble(key, v); }},
      {"gap_tolerance", [&] { o->rigid.gap_tolerance = ParseDouble(key, v); }},
      {"max_polish_iterations",
       [&] { o->rigid.max_polish_iterations = ParseInt(key, v); }},
      {"psd_tolerance",
       [&] { o->rigid.validation.psd_tolerance = ParseDouble(key, v); }},
      {"refine", [&] { o->refine = ParseBool(key, v); }},
      {"refine_tolerance",
       [&] { o->refinement.tolerance = ParseDouble(key, v); }},
      {"refine_max_iterations",
       [&] { o->refinement.max_iterations = ParseInt(key, v); }},
      {"near_rigid_threshold",
       [&] {
         o->sap.regularization.near_rigid_threshold = ParseDouble(key, v);
       }},
      {"friction_regularization",
       [&] {
         o->sap.regularization.friction_regularization = ParseDouble(key, v);
       }},
      {"soft_norm_tolerance",
       [&] {
         o->sap.regularization.soft_norm_tolerance = ParseDouble(key, v);
       }},
      {"rel_tolerance", [&] { o->sap.rel_tolerance = ParseDouble(key, v); }},
      {"abs_tolerance", [&] { o->sap.abs_tolerance = ParseDouble(key, v); }},
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
           else
             throw std::invalid_argument(
                 "--set solver.linear_solver: expected auto, dense or cholmod");
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
       [&] { o->continuation_factor = ParseDouble(key, v); }},
      {"rank_tolerance",
       [&] { o->primal_form.rank_tolerance = ParseDouble(key, v); }},
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
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) {
      std::fprintf(stderr, "sapsim fclib: error: cannot write %s\n",
                   o.csv.c_str());
      return 2;
    }
    csv << "name,contacts,solver,status,iterations,solve_time_s,objective,"
           "convex_residual,coulomb_residual\n";
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
      continue;
    }
    (r.success ? solved : failed)++;
    total_time += r.solve_time_s;
    const FclibResiduals& res = r.residuals;
    if (r.r.size() > 0) worst_es = std::max(worst_es, res.convex_residual);
    std::string iters = std::to_string(r.iterations);
    if (r.refinement_iterations > 0) {
      iters += "+" + std::to_string(r.refinement_iterations);
    }
    std::string versus = "-";
    if (stored && stored->r.size() == r.r.size() && r.r.size() > 0) {
      char buffer[96];
      const double u_scale =
          std::max({velocity_scale, stored->u.norm(), res.u.norm()});
      std::snprintf(buffer, sizeof(buffer), "dr %.1e du %.1e",
                    RelDiff(r.r, stored->r, stored->r.norm()),
                    RelDiff(res.u, stored->u, u_scale));
      versus = buffer;
    }
    if (!o.quiet) {
      std::printf("%-36s %5d %-5s %-24s %9s %9.3f %24.16e %9.2e %9.2e %s\n",
                  name.c_str(), r.contacts, ToString(r.solver),
                  r.status.c_str(), iters.c_str(), r.solve_time_s,
                  res.objective, res.convex_residual, res.coulomb_residual,
                  versus.c_str());
      if (!r.success && !r.message.empty()) {
        std::printf("  %s: %s\n", name.c_str(), r.message.c_str());
      }
      std::fflush(stdout);
    }
    if (csv.is_open()) {
      char line[512];
      std::snprintf(line, sizeof(line), "%s,%d,%s,%s,%d,%.6g,%.17g,%.6e,%.6e\n",
                    name.c_str(), r.contacts, ToString(r.solver),
                    r.status.c_str(), r.iterations, r.solve_time_s,
                    res.objective, res.convex_residual, res.coulomb_residual);
      csv << line;
    }
  }
  std::printf(
      "%zu file(s): %d solved, %d failed, %d bad; worst relative e_S %.2e; "
      "total solve time %.3f s\n",
      o.files.size(), solved, failed, bad, worst_es, total_time);
  if (csv.is_open()) {
    csv.close();
    if (!csv) {
      std::fprintf(stderr, "sapsim fclib: error: writing %s failed\n",
                   o.csv.c_str());
      return 2;
    }
  }
  if (bad > 0) return 2;
  return failed > 0 ? 1 : 0;
}

}  // namespace sapcontact::cli
