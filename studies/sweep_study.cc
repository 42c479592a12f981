#include "sapcontact/studies/sweep_study.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_yaml_reader.h"
#include "sapcontact/studies/metrics.h"

namespace sapcontact {
namespace {

// YAML nodes of a study file, counting every use of an alias.
constexpr long kMaxStudyNodes = 100000;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  /// "<file>: <field>: <problem>", followed by " (line L, column C)" when
  /// `at` has a place in the file.
  [[noreturn]] void Fail(const std::string& field, const std::string& problem,
                         const YAML::Node& at = YAML::Node()) const {
    std::string place;
    if (at.IsDefined() && !at.Mark().is_null()) {
      place = " (" + file_ + ":" + std::to_string(at.Mark().line + 1) + ":" +
              std::to_string(at.Mark().column + 1) + ")";
    }
    throw std::invalid_argument(file_ + ": " + field + ": " + problem + place);
  }

  void CheckKeys(const YAML::Node& map, const std::string& field,
                 const std::set<std::string>& allowed) const {
    if (!map.IsMap()) {
      Fail(field.empty() ? "(document)" : field, "not a map", map);
    }
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        Fail(field.empty() ? "(document)" : field, "keys must be plain names",
             kv.first);
      }
      const std::string key = kv.first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (const std::string& a : allowed)
          list += (list.empty() ? "" : ", ") + a;
        Fail(Join(field, key), "unknown key (allowed: " + list + ")", kv.first);
      }
      if (!seen.insert(key).second) {
        Fail(Join(field, key), "duplicate key", kv.first);
      }
    }
  }

  static std::string Join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "." + b;
  }

  std::string String(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) Fail(field, "expected a string", node);
    return node.Scalar();
  }

  double Number(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) Fail(field, "expected a number", node);
    double v = 0;
    if (!YAML::convert<double>::decode(node, v) || !std::isfinite(v)) {
      Fail(field, "'" + node.Scalar() + "' is not a finite number", node);
    }
    return v;
  }

  bool Bool(const YAML::Node& node, const std::string& field) const {
    bool v = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
      Fail(field, "expected true or false", node);
    }
    return v;
  }

  std::vector<std::string> Strings(const YAML::Node& node,
                                   const std::string& field) const {
    std::vector<std::string> out;
    if (node.IsScalar()) return {node.Scalar()};
    if (!node.IsSequence()) Fail(field, "expected a list of strings", node);
    for (size_t i = 0; i < node.size(); ++i) {
      out.push_back(String(node[i], field + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  PlotScale Scale(const YAML::Node& node, const std::string& field) const {
    if (node.IsScalar() && node.Scalar() == "auto") {
      return PlotScale::kAuto;
    }
    return Bool(node, field) ? PlotScale::kLog : PlotScale::kLinear;
  }

  PlotSpec Plot(const YAML::Node& n, const std::string& field) const {
    CheckKeys(n, field,
              {"file", "title", "x", "y", "series", "series_label", "estimates",
               "vertical_line", "vertical_line_label", "reference_slope",
               "reference_through", "points_label", "xlabel", "ylabel", "logx",
               "logy"});
    PlotSpec p;
    for (const char* required : {"file", "x", "y"}) {
      if (!n[required]) Fail(Join(field, required), "missing", n);
    }
    p.file = String(n["file"], Join(field, "file"));
    if (p.file.find('/') != std::string::npos || p.file.size() < 5 ||
        p.file.substr(p.file.size() - 4) != ".png") {
      Fail(Join(field, "file"), "must be a file name ending in .png",
           n["file"]);
    }
    p.x = String(n["x"], Join(field, "x"));
    p.y = String(n["y"], Join(field, "y"));
    if (n["title"]) p.title = String(n["title"], Join(field, "title"));
    if (n["series"]) p.series = Strings(n["series"], Join(field, "series"));
    if (n["series_label"]) {
      p.series_label = String(n["series_label"], Join(field, "series_label"));
    }
    if (n["estimates"]) {
      const YAML::Node e = n["estimates"];
      const std::string ef = Join(field, "estimates");
      if (!e.IsSequence()) Fail(ef, "expected a list", e);
      for (size_t i = 0; i < e.size(); ++i) {
        const std::string f = ef + "[" + std::to_string(i) + "]";
        PlotLine line;
        if (e[i].IsScalar()) {
          line.column = e[i].Scalar();
        } else {
          CheckKeys(e[i], f, {"column", "label"});
          if (!e[i]["column"]) Fail(Join(f, "column"), "missing", e[i]);
          line.column = String(e[i]["column"], Join(f, "column"));
          if (e[i]["label"])
            line.label = String(e[i]["label"], Join(f, "label"));
        }
        p.estimates.push_back(line);
      }
    }
    if (n["vertical_line"]) {
      p.vertical_line =
          String(n["vertical_line"], Join(field, "vertical_line"));
    }
    if (n["vertical_line_label"]) {
      p.vertical_line_label =
          String(n["vertical_line_label"], Join(field, "vertical_line_label"));
    }
    if (n["reference_slope"]) {
      p.reference_slope =
          Number(n["reference_slope"], Join(field, "reference_slope"));
    }
    if (n["reference_through"]) {
      p.reference_through =
          Number(n["reference_through"], Join(field, "reference_through"));
    }
    if (n["points_label"]) {
      p.points_label = String(n["points_label"], Join(field, "points_label"));
    }
    if (n["xlabel"]) p.xlabel = String(n["xlabel"], Join(field, "xlabel"));
    if (n["ylabel"]) p.ylabel = String(n["ylabel"], Join(field, "ylabel"));
    if (n["logx"]) p.xscale = Scale(n["logx"], Join(field, "logx"));
    if (n["logy"]) p.yscale = Scale(n["logy"], Join(field, "logy"));
    return p;
  }

 private:
  std::string file_;
};

nlohmann::ordered_json ScaleJson(PlotScale s) {
  if (s == PlotScale::kAuto) return "auto";
  return s == PlotScale::kLog;
}

}  // namespace

SweepStudy ParseSweepStudy(const std::string& text, const std::string& name,
                           const std::string& base_dir) {
  const Reader r(name);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    r.Fail("(document)", std::string("bad YAML: ") + e.what());
  }
  // Nested aliases would expand exponentially when walked: count first.
  std::string path;
  YAML::Node at;
  const std::string size_problem = scene_internal::YamlSizeProblem(
      doc, "", kMaxStudyNodes, scene_limits::kMaxYamlDepth, &path, &at);
  if (!size_problem.empty()) {
    r.Fail(path.empty() ? "(document)" : path, size_problem, at);
  }
  r.CheckKeys(doc, "",
              {"name", "description", "scene", "set", "vary", "metrics",
               "window_fraction", "sliding_speed_mps", "plots", "total_points",
               "shard"});
  SweepStudy s;
  if (!doc["scene"]) r.Fail("scene", "missing", doc);
  s.scene = r.String(doc["scene"], "scene");
  if (std::filesystem::path(s.scene).is_relative()) {
    s.scene = (std::filesystem::path(base_dir) / s.scene).lexically_normal();
  }
  s.name = doc["name"] ? r.String(doc["name"], "name")
                       : std::filesystem::path(name).stem().string();
  if (doc["description"]) {
    s.description = r.String(doc["description"], "description");
  }
  if (doc["set"]) s.set = r.Strings(doc["set"], "set");
  if (doc["vary"]) {
    const std::vector<std::string> specs = r.Strings(doc["vary"], "vary");
    for (size_t i = 0; i < specs.size(); ++i) {
      try {
        s.vary.push_back(ParseSweepAxis(specs[i]));
      } catch (const std::invalid_argument& e) {
        r.Fail("vary[" + std::to_string(i) + "]", e.what(),
               doc["vary"].IsSequence() ? doc["vary"][i] : doc["vary"]);
      }
    }
  }
  if (doc["metrics"]) s.metrics = r.Strings(doc["metrics"], "metrics");
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    const std::string problem = MetricNameProblem(s.metrics[i]);
    if (!problem.empty()) {
      r.Fail("metrics[" + std::to_string(i) + "]",
             "'" + s.metrics[i] + "': " + problem,
             doc["metrics"].IsSequence() ? doc["metrics"][i] : doc["metrics"]);
    }
  }
  if (doc["window_fraction"]) {
    s.window_fraction = r.Number(doc["window_fraction"], "window_fraction");
    if (!(s.window_fraction > 0 && s.window_fraction <= 1)) {
      r.Fail("window_fraction", "must be in (0, 1]", doc["window_fraction"]);
    }
  }
  if (doc["sliding_speed_mps"]) {
    s.sliding_speed_mps =
        r.Number(doc["sliding_speed_mps"], "sliding_speed_mps");
    if (!(s.sliding_speed_mps > 0)) {
      r.Fail("sliding_speed_mps", "must be > 0", doc["sliding_speed_mps"]);
    }
  }
  if (doc["plots"]) {
    const YAML::Node plots = doc["plots"];
    if (!plots.IsSequence()) r.Fail("plots", "expected a list", plots);
    std::set<std::string> files;
    for (size_t i = 0; i < plots.size(); ++i) {
      const std::string f = "plots[" + std::to_string(i) + "]";
      s.plots.push_back(r.Plot(plots[i], f));
      if (!files.insert(s.plots.back().file).second) {
        r.Fail(f + ".file", "'" + s.plots.back().file + "' used twice",
               plots[i]);
      }
    }
  }
  return s;
}

SweepStudy LoadSweepStudy(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw std::invalid_argument(
        path + ": cannot read the study file (" +
        (fs::exists(path, ec) ? "not a regular file" : "no such file") + ")");
  }
  if (fs::file_size(path, ec) > scene_limits::kMaxFileBytes) {
    throw std::invalid_argument(
        path + ": the study file is larger than " +
        std::to_string(scene_limits::kMaxFileBytes >> 20) + " MiB");
  }
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot read the study file");
  std::stringstream text;
  text << in.rdbuf();
  return ParseSweepStudy(text.str(), path,
                         std::filesystem::path(path).parent_path().string());
}

std::string SweepStudyToJson(const SweepStudy& s, int total_points,
                             const SweepShard& shard) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["description"] = s.description;
  j["scene"] = std::filesystem::absolute(s.scene).lexically_normal().string();
  j["set"] = s.set;
  nlohmann::ordered_json vary = nlohmann::ordered_json::array();
  for (const SweepAxis& a : s.vary) vary.push_back(a.spec);
  j["vary"] = vary;
  j["metrics"] = s.metrics;
  j["window_fraction"] = s.window_fraction;
  j["sliding_speed_mps"] = s.sliding_speed_mps;
  nlohmann::ordered_json plots = nlohmann::ordered_json::array();
  for (const PlotSpec& p : s.plots) {
    nlohmann::ordered_json q;
    q["file"] = p.file;
    q["title"] = p.title;
    q["x"] = p.x;
    q["y"] = p.y;
    q["series"] = p.series;
    q["series_label"] = p.series_label;
    nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
    for (const PlotLine& e : p.estimates) {
      estimates.push_back({{"column", e.column}, {"label", e.label}});
    }
    q["estimates"] = estimates;
    q["vertical_line"] = p.vertical_line;
    q["vertical_line_label"] = p.vertical_line_label;
    if (!std::isnan(p.reference_slope)) {
      q["reference_slope"] = p.reference_slope;
    }
    if (!std::isnan(p.reference_through)) {
      q["reference_through"] = p.reference_through;
    }
    q["points_label"] = p.points_label;
    q["xlabel"] = p.xlabel;
    q["ylabel"] = p.ylabel;
    q["logx"] = ScaleJson(p.xscale);
    q["logy"] = ScaleJson(p.yscale);
    plots.push_back(q);
  }
  j["plots"] = plots;
  j["total_points"] = total_points;
  j["shard"] = ToString(shard);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void ReadSweepRecordCounts(const std::string& json_text, int* total_points,
                           SweepShard* shard) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.contains("total_points") ||
      !j["total_points"].is_number_integer() || !j.contains("shard") ||
      !j["shard"].is_string()) {
    throw std::invalid_argument(
        "sweep.json: needs integer total_points and string shard");
  }
  *total_points = j["total_points"].get<int>();
  *shard = ParseShard(j["shard"].get<std::string>());
}

}  // namespace sapcontact
