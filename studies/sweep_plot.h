// Plots of a sweep table (studies/sweep_table.h) with gnuplot (Debian
// gnuplot-nox, installed by scripts/setup): one PNG per plot, measured
// points per series, the analytic estimates (studies/metrics.h) as lines in
// the series' colour, optional vertical markers (e.g. the near-rigid
// crossover stiffness) and power-law reference lines. Rows with status
// "error" are left out; rows with failed solver steps are drawn with open
// markers and "(failed steps)" in the legend. Undefined cells, and cells
// <= 0 on a log axis, are left out.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "sapcontact/studies/sweep_spec.h"
#include "sapcontact/studies/sweep_table.h"

namespace sapcontact {

/// An analytic line: a column of the table and its legend text.
struct PlotLine {
  std::string column;
  std::string label;  ///< empty: the estimate's definition
};

/// Axis scale.
enum class PlotScale { kAuto, kLinear, kLog };

struct PlotSpec {
  /// Output file name (PNG) in the output directory.
  std::string file;
  std::string title;
  /// Columns of the x and y values (numbers).
  std::string x, y;
  /// Columns whose distinct value combinations make the series (none: one
  /// series).
  std::vector<std::string> series;
  /// Legend name of the series columns (default: the column names).
  std::string series_label;
  std::vector<PlotLine> estimates;
  /// A column whose value (per series: the median over its rows) is drawn
  /// as a dashed vertical line, with `vertical_line_label` in the legend.
  std::string vertical_line;
  std::string vertical_line_label;
  /// Legend name of the measured points (default "measured").
  std::string points_label;
  /// Exponent s of a reference line c x^s (NaN: none), drawn through the
  /// measured point of the first series whose x is nearest
  /// reference_through (NaN: its smallest x).
  double reference_slope{std::numeric_limits<double>::quiet_NaN()};
  double reference_through{std::numeric_limits<double>::quiet_NaN()};
  /// Axis labels; empty: the column name with its unit.
  std::string xlabel, ylabel;
  /// kAuto: log when every value is > 0 and max / min >= 100.
  PlotScale xscale{PlotScale::kAuto}, yscale{PlotScale::kAuto};
};

/// One plot per (metric, varied key): x = the first key of an axis, the
/// other axes' first keys as series; the metric's estimate (if it has one:
/// resting_penetration_m, stiction_slip_speed_mps, hover_height_m) as a
/// line. Files "<metric>_vs_<key>.png" ('.' in keys becomes '_').
std::vector<PlotSpec> DefaultPlots(const std::vector<SweepAxis>& axes,
                                   const std::vector<std::string>& metrics);

/// Axis label of a column: metric/estimate definitions and common scene
/// keys get units ("time_step" -> "time step dt [s]").
std::string ColumnLabel(const std::string& column);

/// Writes DIR/plots.gp and DIR/plot_data/*.dat and runs gnuplot in DIR.
/// Returns the PNG paths written; a plot with nothing to draw (no valid
/// point or estimate) is skipped and not listed.
/// @throws std::invalid_argument when a plot names a column the table does
///         not have; std::runtime_error when a file cannot be written or
///         gnuplot is missing or fails (the message says which).
std::vector<std::string> WritePlots(const SweepTable& table,
                                    const std::vector<PlotSpec>& plots,
                                    const std::string& dir);

}  // namespace sapcontact
