#include "sapcontact/studies/run_plots.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sapcontact/sim/stepping/csv_reader.h"
#include "sapcontact/studies/gnuplot.h"

namespace sapcontact {
namespace {

namespace fs = std::filesystem;

// Bodies named in the legend; the others are drawn without a name.
constexpr size_t kMaxLegendBodies = 12;

// The commands common to every plot, up to the `plot` command.
std::string Header(const std::string& file, const std::string& title,
                   const std::string& ylabel) {
  return "reset\n"
         "set terminal pngcairo size 1000,600 enhanced font \"DejaVu "
         "Sans,11\"\n"
         "set output " +
         GnuplotString(file) + "\nset title " + GnuplotString(title) +
         " noenhanced\nset xlabel \"time [s]\"\nset ylabel " +
         GnuplotString(ylabel) +
         " noenhanced\nset grid\nset key outside right top noenhanced\n";
}

// One line per body of bodies.dat (column 2: z, 3: |v|); a note instead
// when there is none.
void BodyPlot(std::ostream& gp, const std::string& file,
              const std::string& title, const std::string& ylabel, int column,
              const std::vector<std::string>& bodies) {
  gp << Header(file, title, ylabel);
  if (bodies.empty()) {
    gp << "set label 1 \"no moving bodies in trajectory.csv\" at graph 0.5, "
          "graph 0.5 center\nset xrange [0:1]\nset yrange [0:1]\n"
          "plot 2 notitle\n";
  } else {
    const char* width = bodies.size() > kMaxLegendBodies ? "0.8" : "1.5";
    gp << "plot ";
    for (size_t i = 0; i < bodies.size(); ++i) {
      gp << (i ? ", \\\n     " : "") << "\"run_plot_data/bodies.dat\" index "
         << i << " using 1:" << column << " with lines lw " << width
         << " lc rgb " << GnuplotString(kGnuplotColors[i % 8]) << " "
         << (i < kMaxLegendBodies ? "title " + GnuplotString(bodies[i])
                                  : "notitle");
    }
    if (bodies.size() > kMaxLegendBodies) {
      gp << ", \\\n     NaN with lines lc rgb \"#888888\" title "
         << GnuplotString("... and " +
                          std::to_string(bodies.size() - kMaxLegendBodies) +
                          " more bodies");
    }
    gp << "\n";
  }
  gp << "unset output\n\n";
}

// Lines of steps.dat: (column, legend, colour) each.
struct StepLine {
  int column;
  const char* title;
  const char* color;
};

void StepPlot(std::ostream& gp, const std::string& file,
              const std::string& title, const std::string& ylabel,
              const std::vector<StepLine>& lines, const char* style) {
  gp << Header(file, title, ylabel);
  if (lines.size() == 1) gp << "set key off\n";
  gp << "plot ";
  for (size_t i = 0; i < lines.size(); ++i) {
    gp << (i ? ", \\\n     " : "")
       << "\"run_plot_data/steps.dat\" using 1:" << lines[i].column << " with "
       << style << " lw 1.5 lc rgb " << GnuplotString(lines[i].color)
       << " title " << GnuplotString(lines[i].title);
  }
  gp << "\nunset output\n\n";
}

}  // namespace

const std::vector<std::string>& RunPlotFiles() {
  static const std::vector<std::string> files = {
      "heights.png",    "speeds.png",      "energy.png",     "contacts.png",
      "iterations.png", "solver_time.png", "penetration.png"};
  return files;
}

void WriteRunPlots(const std::string& output_dir) {
  const fs::path dir(output_dir);
  // Both inputs are read (and checked) before anything is written.
  CsvReader traj(dir / "trajectory.csv",
                 "written by every run with an output directory");
  const int t_col = traj.Column("time"), body_col = traj.Column("body"),
            z_col = traj.Column("z"), vx_col = traj.Column("vx"),
            vy_col = traj.Column("vy"), vz_col = traj.Column("vz");
  // bodies.dat: one block per body (time z |v|), in first-appearance order.
  std::vector<std::string> bodies;
  std::map<std::string, std::string> lines;
  while (traj.Next()) {
    const std::string& body = traj.Text(body_col);
    const double vx = traj.Number(vx_col), vy = traj.Number(vy_col),
                 vz = traj.Number(vz_col);
    auto [it, inserted] = lines.try_emplace(body);
    if (inserted) bodies.push_back(body);
    it->second += GnuplotNumber(traj.Number(t_col)) + " " +
                  GnuplotNumber(traj.Number(z_col)) + " " +
                  GnuplotNumber(std::sqrt(vx * vx + vy * vy + vz * vz)) + "\n";
  }
  // steps.dat: time contacts iterations solver[ms] penetration[mm]
  // kinetic potential elastic total.
  CsvReader steps(dir / "steps.csv",
                  "written by sapsim run --plot, RunSimulation with "
                  "write_steps");
  const char* const step_names[8] = {"time",
                                     "contacts",
                                     "newton_iterations",
                                     "solver_time_s",
                                     "max_penetration_m",
                                     "kinetic_energy_J",
                                     "potential_energy_J",
                                     "elastic_energy_J"};
  int step_col[8];
  for (int c = 0; c < 8; ++c) step_col[c] = steps.Column(step_names[c]);
  std::string step_lines =
      "# time contacts newton_iterations solver_time_ms max_penetration_mm "
      "kinetic_J potential_J elastic_J total_J\n";
  int step_rows = 0;
  while (steps.Next()) {
    double v[8];
    for (int c = 0; c < 8; ++c) v[c] = steps.Number(step_col[c]);
    step_lines += GnuplotNumber(v[0]) + " " + GnuplotNumber(v[1]) + " " +
                  GnuplotNumber(v[2]) + " " + GnuplotNumber(1e3 * v[3]) + " " +
                  GnuplotNumber(1e3 * v[4]) + " " + GnuplotNumber(v[5]) + " " +
                  GnuplotNumber(v[6]) + " " + GnuplotNumber(v[7]) + " " +
                  GnuplotNumber(v[5] + v[6] + v[7]) + "\n";
    ++step_rows;
  }
  if (step_rows == 0) {
    throw std::runtime_error(steps.path().string() +
                             ": no rows (one per step expected)");
  }

  std::error_code ec;
  for (const std::string& png : RunPlotFiles()) fs::remove(dir / png, ec);
  fs::create_directories(dir / "run_plot_data", ec);
  if (ec) {
    throw std::runtime_error("cannot create " +
                             (dir / "run_plot_data").string() + ": " +
                             ec.message());
  }
  auto write = [](const fs::path& path, auto&& fill) {
    std::ofstream out(path);
    fill(out);
    if (!out) throw std::runtime_error("cannot write " + path.string());
  };
  write(dir / "run_plot_data" / "bodies.dat", [&](std::ostream& out) {
    for (const std::string& body : bodies) {
      out << "# " << body << "\n" << lines[body] << "\n\n";
    }
  });
  write(dir / "run_plot_data" / "steps.dat",
        [&](std::ostream& out) { out << step_lines; });

  const std::vector<std::string>& png = RunPlotFiles();
  std::ostringstream gp;
  gp << "# Written by WriteRunPlots (studies/run_plots.cc); run in this "
        "directory: gnuplot run_plots.gp\n";
  BodyPlot(gp, png[0], "height of the centre of mass", "z [m]", 2, bodies);
  BodyPlot(gp, png[1], "speed of the centre of mass", "|v| [m/s]", 3, bodies);
  StepPlot(gp, png[2], "energy at the start of each step", "energy [J]",
           {{6, "kinetic", "#1f77b4"},
            {7, "potential (gravity, 0 at the world origin)", "#2ca02c"},
            {8, "elastic (contacts)", "#ff7f0e"},
            {9, "total", "#000000"}},
           "lines");
  StepPlot(gp, png[3], "contacts per step", "contacts",
           {{2, "contacts", "#1f77b4"}}, "steps");
  StepPlot(gp, png[4], "contact solver iterations per step", "iterations",
           {{3, "iterations", "#d62728"}}, "steps");
  StepPlot(gp, png[5], "contact solver time per step", "solver time [ms]",
           {{4, "solver time", "#9467bd"}}, "lines");
  StepPlot(gp, png[6], "max penetration per step", "max penetration [mm]",
           {{5, "max penetration", "#8c564b"}}, "lines");
  const fs::path script = dir / "run_plots.gp";
  {
    std::ofstream out(script);
    out << gp.str();
    if (!out) throw std::runtime_error("cannot write " + script.string());
  }
  RunGnuplot(dir.string(), "run_plots.gp", "run_plots.log");
  for (const std::string& file : png) {
    if (fs::file_size(dir / file, ec) == 0 || ec) {
      throw std::runtime_error("gnuplot wrote no " + (dir / file).string() +
                               "; see " + (dir / "run_plots.log").string());
    }
  }
}

}  // namespace sapcontact
