// sapsim: command-line front end of sapcontact.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/contact_model/regime_estimates.h"
#include "sapcontact/contact_model/regularization.h"
#include "sapsim/fclib_command.h"
#include "sapsim/run_command.h"
#include "sapsim/sweep_command.h"

namespace {

using namespace sapcontact;

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "sapsim: compliant and near-rigid frictional contact with the convex SAP "
      "formulation (Castro et al., T-RO 2022)."};
  app.require_subcommand(1);

  double mass = 1.0, dt = 1e-3, k = std::numeric_limits<double>::infinity();
  double tau_d = 0.0, mu = 0.5, beta = 1.0, sigma = 1e-3, g = 9.81;
  int n = 1;
  CLI::App* est = app.add_subcommand(
      "estimate",
      "Print the SAP regularization and the regime estimates (docs/theory.md "
      "§9) "
      "(resting penetration, stiction slip) for a point mass on n contacts.");
  est->add_option("--mass", mass, "mass [kg]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  est->add_option("--contacts", n, "number of equal contacts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  est->add_option("--dt", dt, "time step [s]")->capture_default_str();
  est->add_option("--stiffness", k, "contact stiffness [N/m], inf allowed")
      ->capture_default_str();
  est->add_option("--tau-d", tau_d, "dissipation time scale [s]")
      ->capture_default_str();
  est->add_option("--friction", mu, "friction coefficient")
      ->capture_default_str();
  est->add_option("--beta", beta, "near-rigid threshold")
      ->capture_default_str();
  est->add_option("--sigma", sigma, "friction regularization")
      ->capture_default_str();
  est->add_option("--gravity", g, "gravity magnitude [m/s^2]")
      ->capture_default_str();

  sapcontact::cli::RunOptions run_options;
  CLI::App* run = sapcontact::cli::AddRunCommand(app, &run_options);
  sapcontact::cli::FclibCommandOptions fclib_options;
  CLI::App* fclib = sapcontact::cli::AddFclibCommand(app, &fclib_options);
  sapcontact::cli::SweepCommands sweep_commands(app);

  CLI::App* demo = app.add_subcommand(
      "demo",
      "Print the regime estimates of a point mass at dt = 1e-3 and 1e-2 s "
      "(scripts/demo runs a small pile with `sapsim run`).");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) return sapcontact::cli::Run(run_options);
    if (*fclib) return sapcontact::cli::RunFclib(fclib_options);
    if (sweep_commands.selected()) return sweep_commands.Run();
    if (*est) return RunEstimate(mass, n, dt, k, tau_d, mu, beta, sigma, g);
    if (*demo) {
      for (double step : {1e-3, 1e-2}) {
        RunEstimate(1.0, 1, step, std::numeric_limits<double>::infinity(), 0.0,
                    0.5, 1.0, 1e-3, 9.81);
      }
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sapsim: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
