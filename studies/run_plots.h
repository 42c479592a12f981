// Plots of one simulation run with gnuplot
// (Debian gnuplot-nox, installed by scripts/setup), from the files
// RunSimulation writes (sim/stepping/simulation.h):
//   DIR/trajectory.csv  (always written)  -> heights.png, speeds.png
//   DIR/steps.csv       (write_steps)     -> energy.png, contacts.png,
//                                            iterations.png, solver_time.png,
//                                            penetration.png
// The PNGs land in DIR next to the script DIR/run_plots.gp, its data
// DIR/run_plot_data/{bodies,steps}.dat and gnuplot's messages
// DIR/run_plots.log (run `gnuplot run_plots.gp` in DIR to redraw).
#pragma once

#include <string>
#include <vector>

namespace sapcontact {

/// The PNG files WriteRunPlots writes, in this order: heights.png (z of
/// each moving body's centre of mass vs time [m]), speeds.png (|v| of each
/// moving body's centre of mass [m/s]), energy.png (kinetic, gravitational
/// potential (zero at the world origin), elastic and their total [J], at
/// the start of each step), contacts.png (contacts per step),
/// iterations.png (Newton or interior-point iterations per step),
/// solver_time.png (contact solver time per step [ms]), penetration.png
/// (max penetration per step [mm]).
const std::vector<std::string>& RunPlotFiles();

/// Reads `output_dir`/trajectory.csv and `output_dir`/steps.csv and writes
/// the RunPlotFiles() PNGs into `output_dir` (existing ones are replaced;
/// removed first, so a failure leaves none of them stale). Scenes without
/// moving bodies (robots only) get heights.png and speeds.png saying so.
/// Many bodies are all drawn (thin lines); the legend names the first 12.
/// @throws std::runtime_error when an input file is missing or malformed
/// (the message names the file, and the line), a file cannot be written,
/// gnuplot is missing, fails (see DIR/run_plots.log) or leaves a PNG
/// unwritten.
void WriteRunPlots(const std::string& output_dir);

}  // namespace sapcontact
