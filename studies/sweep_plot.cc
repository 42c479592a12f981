#include "sapcontact/studies/sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sapcontact/studies/gnuplot.h"
#include "sapcontact/studies/metrics.h"

namespace sapcontact {
namespace {

bool UseLog(PlotScale scale, const std::vector<double>& values) {
  if (scale != PlotScale::kAuto) return scale == PlotScale::kLog;
  double lo = INFINITY, hi = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v <= 0) return false;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return hi > 0 && hi / lo >= 100;
}

std::string FileStem(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

struct Series {
  std::string label;
  double sort_key{0};
  std::vector<std::vector<double>> ok, failed, lines;  // x, y, estimates...
  std::vector<double> vline_values;
};

int RequireColumn(const SweepTable& t, const std::string& column,
                  const PlotSpec& p, const char* field) {
  const int c = t.Column(column);
  if (c < 0) {
    throw std::invalid_argument("plot " + p.file + ": " + field + " '" +
                                column + "' is not a column of the table");
  }
  return c;
}

double Median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](double x) { return !std::isfinite(x); }),
          v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Writes the data file of one plot and appends its gnuplot commands.
bool AddPlot(const SweepTable& t, const PlotSpec& p, const std::string& dir,
             std::ostream& gp) {
  const int xc = RequireColumn(t, p.x, p, "x");
  const int yc = RequireColumn(t, p.y, p, "y");
  const int status = RequireColumn(t, "status", p, "status");
  std::vector<int> sc, ec;
  for (const std::string& s : p.series)
    sc.push_back(RequireColumn(t, s, p, "series"));
  for (const PlotLine& e : p.estimates) {
    ec.push_back(RequireColumn(t, e.column, p, "estimate"));
  }
  const int vc = p.vertical_line.empty()
                     ? -1
                     : RequireColumn(t, p.vertical_line, p, "vertical_line");

  std::vector<double> xs, ys;
  for (const auto& row : t.rows) {
    if (row[status] == "error") continue;
    xs.push_back(CellNumber(row[xc]));
    ys.push_back(CellNumber(row[yc]));
    for (int c : ec) ys.push_back(CellNumber(row[c]));
  }
  const bool logx = UseLog(p.xscale, xs), logy = UseLog(p.yscale, ys);
  auto valid = [](double v, bool log) {
    return std::isfinite(v) && (!log || v > 0);
  };

  std::string series_name = p.series_label;
  for (size_t i = 0; p.series_label.empty() && i < p.series.size(); ++i) {
    series_name += (i ? ", " : "") + p.series[i];
  }
  std::map<std::string, Series> by_key;
  std::vector<std::string> order;
  for (const auto& row : t.rows) {
    if (row[status] == "error") continue;
    std::string key, label;
    for (size_t i = 0; i < sc.size(); ++i) {
      key += row[sc[i]] + "\x1f";
      label += (i ? ", " : "") + row[sc[i]];
    }
    if (!by_key.count(key)) {
      order.push_back(key);
      Series& s = by_key[key];
      s.label = p.series.empty() ? "" : series_name + " = " + label;
      s.sort_key = sc.empty() ? 0 : CellNumber(row[sc[0]]);
    }
    Series& s = by_key[key];
    const double x = CellNumber(row[xc]), y = CellNumber(row[yc]);
    if (!valid(x, logx)) continue;
    std::vector<double> line = {x, NAN};
    for (int c : ec) {
      const double e = CellNumber(row[c]);
      line.push_back(valid(e, logy) ? e : NAN);
    }
    if (valid(y, logy)) {
      std::vector<double> point = line;
      point[1] = y;
      (row[status] == "ok" ? s.ok : s.failed).push_back(point);
    }
    if (!ec.empty()) s.lines.push_back(line);
    if (vc >= 0) s.vline_values.push_back(CellNumber(row[vc]));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) {
                     const double ka = by_key[a].sort_key;
                     const double kb = by_key[b].sort_key;
                     if (std::isnan(ka) || std::isnan(kb)) return false;
                     return ka < kb;
                   });

  const std::string data = "plot_data/" + FileStem(p.file) + ".dat";
  std::ofstream out(std::filesystem::path(dir) / data);
  if (!out) throw std::runtime_error("cannot write " + dir + "/" + data);
  int block = 0;
  std::vector<std::string> clauses;
  std::vector<std::string> arrows;
  double anchor_x = NAN, anchor_y = NAN;
  auto first_series_with_points = [&]() -> size_t {
    for (size_t k = 0; k < order.size(); ++k) {
      if (!by_key[order[k]].ok.empty()) return k;
    }
    return order.size();
  };
  auto write_block = [&](std::vector<std::vector<double>>& rows) {
    std::sort(rows.begin(), rows.end());
    for (const auto& r : rows) {
      for (size_t i = 0; i < r.size(); ++i)
        out << (i ? " " : "") << GnuplotNumber(r[i]);
      out << "\n";
    }
    out << "\n\n";
    return block++;
  };
  const std::string file = GnuplotString(data);
  const std::string points =
      p.points_label.empty() ? "measured" : p.points_label;
  for (size_t i = 0; i < order.size(); ++i) {
    Series& s = by_key[order[i]];
    const std::string color = GnuplotString(kGnuplotColors[i % 8]);
    const std::string suffix = s.label.empty() ? "" : ", " + s.label;
    if (!s.ok.empty()) {
      // Reference-line anchor: in the first series with points, the point
      // nearest reference_through (default: the smallest x).
      if (i == first_series_with_points()) {
        std::sort(s.ok.begin(), s.ok.end());
        double best = INFINITY;
        for (const auto& r : s.ok) {
          const double d =
              std::isnan(p.reference_through)
                  ? (r[0] == s.ok[0][0] ? 0.0 : INFINITY)
                  : std::abs(logx ? std::log(r[0] / p.reference_through)
                                  : r[0] - p.reference_through);
          if (d < best) {
            best = d;
            anchor_x = r[0];
            anchor_y = r[1];
          }
        }
      }
      const int b = write_block(s.ok);
      clauses.push_back(file + " index " + std::to_string(b) +
                        " using 1:2 with points pt 7 ps 1.4 lc rgb " + color +
                        " title " + GnuplotString(points + suffix) +
                        " noenhanced");
    }
    if (!s.failed.empty()) {
      const int b = write_block(s.failed);
      clauses.push_back(
          file + " index " + std::to_string(b) +
          " using 1:2 with points pt 6 ps 1.6 lc rgb " + color + " title " +
          GnuplotString(points + " (failed steps)" + suffix) + " noenhanced");
    }
    std::vector<bool> has_line(p.estimates.size(), false);
    for (const auto& r : s.lines) {
      for (size_t j = 0; j < p.estimates.size(); ++j) {
        has_line[j] = has_line[j] || std::isfinite(r[2 + j]);
      }
    }
    if (std::find(has_line.begin(), has_line.end(), true) != has_line.end()) {
      const int b = write_block(s.lines);
      for (size_t j = 0; j < p.estimates.size(); ++j) {
        if (!has_line[j]) continue;
        std::string label = p.estimates[j].label;
        if (label.empty()) {
          const MetricDefinition* d =
              FindMetricDefinition(p.estimates[j].column);
          label = d ? d->description : p.estimates[j].column;
        }
        clauses.push_back(file + " index " + std::to_string(b) +
                          " using 1:" + std::to_string(3 + j) +
                          " with lines lw 2 dt " + std::to_string(1 + j % 5) +
                          " lc rgb " + color + " title " +
                          GnuplotString(label + suffix) + " noenhanced");
      }
    }
    if (vc >= 0) {
      const double v = Median(s.vline_values);
      if (valid(v, logx)) {
        arrows.push_back("set arrow from " + GnuplotNumber(v) +
                         ", graph 0 to " + GnuplotNumber(v) +
                         ", graph 1 nohead dt 3 lw 2 lc rgb " + color);
        clauses.push_back("NaN with lines dt 3 lw 2 lc rgb " + color +
                          " title " +
                          GnuplotString((p.vertical_line_label.empty()
                                             ? p.vertical_line
                                             : p.vertical_line_label) +
                                        suffix) +
                          " noenhanced");
      }
    }
  }
  if (!std::isnan(p.reference_slope) && std::isfinite(anchor_x) &&
      (!logx || anchor_x > 0)) {
    char expr[256];
    std::snprintf(expr, sizeof(expr), "%s*(x/%s)**(%g)",
                  GnuplotNumber(anchor_y).c_str(),
                  GnuplotNumber(anchor_x).c_str(), p.reference_slope);
    char label[64];
    std::snprintf(label, sizeof(label), "reference line, slope %g",
                  p.reference_slope);
    clauses.push_back(std::string(expr) + " with lines lw 1 dt 4 lc rgb " +
                      GnuplotString("#555555") + " title " +
                      GnuplotString(label));
  }

  if (block == 0) return false;  // nothing measured or estimated to draw
  // The legend goes below the graph, in a band sized for its entries.
  const int key_height = 20 * static_cast<int>(clauses.size()) + 20;
  const int height = 560 + key_height;
  char layout[256];
  std::snprintf(layout, sizeof(layout),
                "set terminal pngcairo size 1000,%d enhanced font \"DejaVu "
                "Sans,11\"\nset bmargin at screen %.4f\n"
                "set key at screen 0.5, screen %.4f center center box "
                "opaque\n",
                height, (key_height + 70.0) / height,
                (key_height / 2.0 + 5.0) / height);
  gp << "reset\n"
     << layout << "set output " << GnuplotString(p.file) << "\n"
     << "set title "
     << GnuplotString(p.title.empty() ? p.y + " vs " + p.x : p.title)
     << " noenhanced\n"
     << "set xlabel "
     << GnuplotString(p.xlabel.empty() ? ColumnLabel(p.x) : p.xlabel)
     << " noenhanced\n"
     << "set ylabel "
     << GnuplotString(p.ylabel.empty() ? ColumnLabel(p.y) : p.ylabel)
     << " noenhanced\n"
     << "set grid\nset autoscale fix\n"
     << "set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06\n";
  if (logx) gp << "set logscale x 10\nset format x \"10^{%L}\"\n";
  if (logy) gp << "set logscale y 10\nset format y \"10^{%L}\"\n";
  for (const std::string& a : arrows) gp << a << "\n";
  gp << "plot ";
  for (size_t i = 0; i < clauses.size(); ++i) {
    gp << (i ? ", \\\n     " : "") << clauses[i];
  }
  gp << "\n";
  gp << "unset output\n\n";
  return true;
}

}  // namespace

std::vector<std::string> WritePlots(const SweepTable& table,
                                    const std::vector<PlotSpec>& plots,
                                    const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "plot_data", ec);
  if (ec) {
    throw std::runtime_error("cannot create " + dir +
                             "/plot_data: " + ec.message());
  }
  std::ostringstream gp;
  gp << "# Written by sapsim (studies/sweep_plot.cc); run: gnuplot plots.gp\n";
  std::vector<std::string> written;
  for (const PlotSpec& p : plots) {
    if (AddPlot(table, p, dir, gp)) {
      written.push_back((fs::path(dir) / p.file).string());
    }
  }
  {
    std::ofstream script(fs::path(dir) / "plots.gp");
    script << gp.str();
    if (!script) throw std::runtime_error("cannot write " + dir + "/plots.gp");
  }
  if (written.empty()) return written;
  RunGnuplot(dir, "plots.gp", "plots.log");
  return written;
}

}  // namespace sapcontact
