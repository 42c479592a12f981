#include "sapsim/sapsim_command.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <new>
#include <string>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/contact_model/regime_estimates.h"
#include "sapcontact/contact_model/regularization.h"
#include "sapsim/fclib_command.h"
#include "sapsim/run_command.h"
#include "sapsim/sweep_command.h"
#include "sapsim/view_command.h"

namespace sapcontact::cli {
namespace {

// A number option's check: finite (or +inf when allowed) and within
// [lo, hi] (lo excluded when open_lo).
CLI::Validator NumberIn(double lo, double hi, bool open_lo, bool allow_inf,
                        const std::string& unit) {
  const std::string range =
      std::string(open_lo ? "(" : "[") + CLI::detail::to_string(lo) + ", " +
      CLI::detail::to_string(hi) + "]" + (unit.empty() ? "" : " " + unit) +
      (allow_inf ? " or inf" : "");
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) {
          return "'" + text + "' is not a number";
        }
        if (allow_inf && std::isinf(v) && v > 0) return "";
        if (!std::isfinite(v) || v > hi || v < lo || (open_lo && v == lo)) {
          return "'" + text + "' is outside " + range;
        }
        return "";
      },
      "NUMBER in " + range);
}

// Regime estimates (docs/theory.md §9) for a point mass on n contacts.
int RunEstimate(double mass, int n, double dt, double stiffness, double tau_d,
                double mu, double beta, double sigma, double g) {
  const double w = DelassusDiagonalEstimate(Matrix3::Identity() / mass);
  RegularizationParameters reg;
  reg.near_rigid_threshold = beta;
  reg.friction_regularization = sigma;
  const ContactRegularization r = ComputeRegularization(
      ContactParameters{stiffness, tau_d, mu}, reg, dt, w, 0.0);
  std::printf(
      "point mass %.6g kg on %d contact(s), dt = %.3g s, k = %.3g N/m, "
      "tau_d = %.3g s, mu = %.3g, beta = %.3g, sigma = %.3g\n",
      mass, n, dt, stiffness, tau_d, mu, beta, sigma);
  std::printf("  Delassus estimate w      = %.6e 1/kg (||W_kk||_F / 3)\n", w);
  std::printf("  R_n                      = %.6e (%s)\n", r.R_n,
              r.near_rigid ? "near-rigid floor" : "compliant");
  std::printf("  R_t                      = %.6e\n", r.R_t);
  std::printf("  mu_tilde                 = %.6e\n", r.mu_tilde());
  std::printf("  resting penetration      = %.6e m\n",
              RestingPenetration(mass, g, n, dt, tau_d, r.R_n));
  std::printf("  near-rigid crossover k   = %.6e N/m\n",
              NearRigidCrossoverStiffness(dt, tau_d, beta, w));
  std::printf("  stiction slip bound      = %.6e m/s (sigma mu g dt)\n",
              PointMassStictionSlipBound(sigma, mu, g, dt));
  return 0;
}

// "sapsim" or "sapsim SUB": the deepest subcommand selected so far.
std::string CommandName(const CLI::App& app) {
  std::string name = "sapsim";
  const CLI::App* at = &app;
  while (true) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) break;
    at = subs.front();
    name += " " + at->get_name();
  }
  return name;
}

}  // namespace

int Main(int argc, const char* const* argv) {
  CLI::App app{
      "sapsim: compliant and near-rigid frictional contact with the convex SAP "
      "formulation (Castro et al., T-RO 2022). Exit status of every "
      "subcommand: 0 success; 1 the work ran but something failed (solver "
      "steps, a numerically bad run stopped, unsolved problems); 2 bad input "
      "(command line, scene, --set, study or FCLib file), with one message "
      "naming the file (and line and field for YAML) or the option."};
  app.require_subcommand(1);

  double mass = 1.0, dt = 1e-3, k = std::numeric_limits<double>::infinity();
  double tau_d = 0.0, mu = 0.5, beta = 1.0, sigma = 1e-3, g = 9.81;
  int n = 1;
  CLI::App* est = app.add_subcommand(
      "estimate",
      "Print the SAP regularization and the regime estimates (docs/theory.md "
      "§9) "
      "(resting penetration, stiction slip) for a point mass on n contacts. "
      "Every value is checked against the bounds shown (exit status 2 "
      "otherwise).");
  est->add_option("--mass", mass, "mass [kg]")
      ->check(NumberIn(1e-9, 1e9, true, false, "kg"))
      ->capture_default_str();
  est->add_option("--contacts", n, "number of equal contacts")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  est->add_option("--dt", dt, "time step [s]")
      ->check(NumberIn(1e-9, 1.0, false, false, "s"))
      ->capture_default_str();
  est->add_option("--stiffness", k, "contact stiffness [N/m], inf allowed")
      ->check(NumberIn(0.0, 1e20, true, true, "N/m"))
      ->capture_default_str();
  est->add_option("--tau-d", tau_d, "dissipation time scale [s]")
      ->check(NumberIn(0.0, 1e3, false, false, "s"))
      ->capture_default_str();
  est->add_option("--friction", mu, "friction coefficient")
      ->check(NumberIn(0.0, 1e3, false, false, ""))
      ->capture_default_str();
  est->add_option("--beta", beta, "near-rigid threshold")
      ->check(NumberIn(0.0, 1e3, false, false, ""))
      ->capture_default_str();
  est->add_option("--sigma", sigma, "friction regularization")
      ->check(NumberIn(0.0, 1e3, true, false, ""))
      ->capture_default_str();
  est->add_option("--gravity", g, "gravity magnitude [m/s^2]")
      ->check(NumberIn(0.0, 1e4, false, false, "m/s^2"))
      ->capture_default_str();

  RunOptions run_options;
  CLI::App* run = AddRunCommand(app, &run_options);
  FclibCommandOptions fclib_options;
  CLI::App* fclib = AddFclibCommand(app, &fclib_options);
  SweepCommands sweep_commands(app);
  ViewOptions view_options;
  CLI::App* view = AddViewCommand(app, &view_options);

  CLI::App* demo = app.add_subcommand(
      "demo",
      "Print the regime estimates of a point mass at dt = 1e-3 and 1e-2 s "
      "(scripts/demo runs a small pile with `sapsim run`).");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the help on stdout, status 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string name = CommandName(app);
    std::string what = e.what();
    if (name == "sapsim" && argc > 1 && argv[1][0] != '-') {
      // CLI11 reports an unknown first word as a missing subcommand.
      std::string known;
      for (const CLI::App* sub : app.get_subcommands({})) {
        known += (known.empty() ? "" : ", ") + sub->get_name();
      }
      what = "unknown subcommand '" + std::string(argv[1]) +
             "' (subcommands: " + known + ")";
    }
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for the options.\n",
                 name.c_str(), what.c_str(), name.c_str());
    return 2;
  }
  try {
    if (*run) return Run(run_options);
    if (*fclib) return RunFclib(fclib_options);
    if (*view) return RunView(view_options);
    if (sweep_commands.selected()) return sweep_commands.Run();
    if (*est) return RunEstimate(mass, n, dt, k, tau_d, mu, beta, sigma, g);
    if (*demo) {
      for (double step : {1e-3, 1e-2}) {
        RunEstimate(1.0, 1, step, std::numeric_limits<double>::infinity(), 0.0,
                    0.5, 1.0, 1e-3, 9.81);
      }
      return 0;
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "%s: error: out of memory (the limits of docs/scenes.md "
                 "\"Limits\" should prevent this: please report the input)\n",
                 CommandName(app).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", CommandName(app).c_str(), e.what());
    return 2;
  }
  return 0;
}

}  // namespace sapcontact::cli
