// What the plots of studies/ share (sweep_plot.h, run_plots.h): gnuplot
// numbers and string literals, the line colours, and running a script with
// gnuplot (Debian gnuplot-nox, installed by scripts/setup).
#pragma once

#include <string>

namespace sapcontact {

/// Line colours of the plots, in order ("#rrggbb").
inline constexpr const char* kGnuplotColors[8] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
    "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/// `v` as a number of a gnuplot data file: "%.10g", and NaN (which gnuplot
/// leaves out of the plot) when `v` is not finite.
std::string GnuplotNumber(double v);

/// `s` as a gnuplot double-quoted string literal (", \ escaped).
std::string GnuplotString(const std::string& s);

/// Runs `gnuplot SCRIPT > LOG 2>&1` in directory `dir` (script and log are
/// names in it). @throws std::runtime_error when gnuplot is not installed
/// ("gnuplot not found (Debian package gnuplot-nox ...)") or fails (the
/// message names the script and the log).
void RunGnuplot(const std::string& dir, const std::string& script,
                const std::string& log);

}  // namespace sapcontact
