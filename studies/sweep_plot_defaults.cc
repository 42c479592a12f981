// Default plots of a sweep and axis labels (declared in studies/sweep_plot.h).
#include <algorithm>
#include <cctype>
#include <map>

#include "sapcontact/studies/metrics.h"
#include "sapcontact/studies/sweep_plot.h"

namespace sapcontact {

std::string ColumnLabel(const std::string& column) {
  const std::string unit = MetricUnit(column);
  if (!unit.empty()) return column + " [" + unit + "]";
  const size_t dot = column.rfind('.');
  std::string last = dot == std::string::npos ? column : column.substr(dot + 1);
  std::string parent;
  if (!last.empty() && std::isdigit(static_cast<unsigned char>(last[0])) &&
      dot != std::string::npos) {
    const size_t dot2 = column.rfind('.', dot - 1);
    parent = column.substr(dot2 == std::string::npos ? 0 : dot2 + 1,
                           dot - (dot2 == std::string::npos ? 0 : dot2 + 1));
  }
  static const std::map<std::string, std::string> units = {
      {"time_step", "time step dt [s]"},
      {"duration", "duration [s]"},
      {"stiffness", "stiffness k [N/m]"},
      {"dissipation_time_scale", "dissipation time scale tau_d [s]"},
      {"friction", "friction coefficient mu [-]"},
      {"near_rigid_threshold", "near-rigid threshold beta [-]"},
      {"friction_regularization", "friction regularization sigma [-]"},
      {"mass", "mass [kg]"},
      {"density", "density [kg/m^3]"},
      {"margin", "margin [m]"},
      {"radius", "radius [m]"},
      {"velocity", "velocity [m/s]"},
      {"angular_velocity", "angular velocity [rad/s]"},
      {"position", "position [m]"},
      {"gravity", "gravity [m/s^2]"},
      {"size", "size [m]"},
      {"length", "length [m]"},
  };
  const std::string& key = parent.empty() ? last : parent;
  const auto it = units.find(key);
  if (it == units.end()) return column;
  return column + ": " + it->second;
}

std::vector<PlotSpec> DefaultPlots(const std::vector<SweepAxis>& axes,
                                   const std::vector<std::string>& metrics) {
  static const std::map<std::string, std::string> estimate_of = {
      {"resting_penetration_m", "estimate_resting_penetration_m"},
      {"stiction_slip_speed_mps", "estimate_stiction_slip_mps"},
      {"hover_height_m", "estimate_hover_height_m"},
  };
  std::vector<PlotSpec> plots;
  for (const std::string& metric : MetricColumns(metrics)) {
    for (size_t a = 0; a < axes.size(); ++a) {
      PlotSpec p;
      p.x = axes[a].keys.at(0);
      p.y = metric;
      for (size_t b = 0; b < axes.size(); ++b) {
        if (b != a) p.series.push_back(axes[b].keys.at(0));
      }
      const auto it = estimate_of.find(metric);
      if (it != estimate_of.end()) p.estimates.push_back({it->second, ""});
      std::string key = p.x, name = metric;
      std::replace(key.begin(), key.end(), '.', '_');
      std::replace(name.begin(), name.end(), '.', '_');
      p.file = name + "_vs_" + key + ".png";
      if (axes[a].log_spacing) p.xscale = PlotScale::kLog;
      plots.push_back(p);
    }
  }
  return plots;
}

}  // namespace sapcontact
