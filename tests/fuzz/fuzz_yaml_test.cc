// Fuzz classes 1-3 (tests/fuzz/fuzz_rules.h): YAML syntax, YAML semantics
// and --set overrides of scene files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_rules.h"

namespace sapcontact {
namespace {

using namespace fuzz;  // NOLINT: the suite's rules

// --- Class 1: YAML syntax ---------------------------------------------------

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) lines.push_back(l);
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string t;
  for (const std::string& l : lines) t += l + "\n";
  return t;
}

std::string MutateSyntax(std::string text, Random& r) {
  static const std::string kSpecial = ":{}[],-&*!|>'\"#%@`\t\n ?.=0123456789e";
  const int edits = 1 + static_cast<int>(r.Below(2));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = r.Below(text.size());
    std::vector<std::string> lines = Lines(text);
    const size_t line = r.Below(lines.size());
    switch (r.Below(11)) {
      case 0:  // delete a few characters
        text.erase(at, 1 + r.Below(8));
        break;
      case 1:  // insert a special character
        text.insert(at, 1, kSpecial[r.Below(kSpecial.size())]);
        break;
      case 2:  // replace a character
        text[at] = kSpecial[r.Below(kSpecial.size())];
        break;
      case 3:  // duplicate a line
        lines.insert(lines.begin() + line, lines[line]);
        text = Join(lines);
        break;
      case 4:  // delete a line
        lines.erase(lines.begin() + line);
        text = Join(lines);
        break;
      case 5: {  // swap two lines
        std::swap(lines[line], lines[r.Below(lines.size())]);
        text = Join(lines);
        break;
      }
      case 6:  // indent or dedent
        if (r.Chance(50)) {
          lines[line] = (r.Chance(50) ? "  " : "\t") + lines[line];
        } else if (lines[line].size() > 1) {
          lines[line] = lines[line].substr(1 + r.Below(2));
        }
        text = Join(lines);
        break;
      case 7:  // truncate
        text.resize(at);
        break;
      case 8: {  // raw bytes
        const char bytes[] = {'\0', '\xff', '\xc3', '\x01', '\x7f', '\xef'};
        text.insert(at, 1, bytes[r.Below(sizeof(bytes))]);
        break;
      }
      case 9:  // a YAML directive, document marker or tag
        text.insert(0, r.Pick(std::vector<std::string>{
                           "%YAML 1.2\n---\n", "---\n", "--- !!map\n", "...\n",
                           "%TAG ! tag:x,2000:\n"}));
        break;
      default:  // repeat a slice
        text.insert(at, text.substr(at, r.Below(40)));
        break;
    }
  }
  return text;
}

TEST(Fuzz, YamlSyntax) {
  TempDir dir("fuzz_syntax");
  Random r(Seed() * 1000 + 1);
  Tally tally;
  const int n = Cases(500);
  for (int i = 0; i < n; ++i) {
    const std::string text = MutateSyntax(r.Pick(BaseScenes()), r);
    const std::string path = dir.Write("scene.yaml", text);
    CheckSceneRun(
        path, {}, dir.path() / "out",
        "yaml_syntax case " + std::to_string(i) + " '" + Show(text) + "'",
        &tally);
  }
  Report("yaml_syntax", n, tally);
}

// --- Class 2: YAML semantics ------------------------------------------------

// Values that are wrong, extreme or hostile.
const std::vector<std::string>& Values() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> v = {
        "0",
        "-0",
        "1",
        "-1",
        "0.5",
        "1e-3",
        "2",
        "10",
        "100",
        "1e3",
        "1e6",
        "1e9",
        "1e12",
        "1e15",
        "1e16",
        "1e20",
        "1e100",
        "1e154",
        "1e300",
        "1e307",
        "1.7976931348623157e308",
        "1e309",
        "-1e309",
        "4.9e-324",
        "1e-320",
        "1e-9",
        "1e-7",
        ".inf",
        "-.inf",
        ".nan",
        ".NaN",
        "inf",
        "nan",
        "0x10",
        "0o17",
        "1_000",
        "+5",
        "2147483647",
        "2147483648",
        "-2147483649",
        "99999999999999999999",
        "3.5",
        "abc",
        "''",
        "\"\"",
        "~",
        "null",
        "true",
        "false",
        "yes",
        "[]",
        "{}",
        "[1, 2]",
        "[1, 2, 3]",
        "[0, 0, 1e307]",
        "[.nan, 0, 0]",
        "[1e154, 0, 0]",
        "[0, 0, 0]",
        "[1, 1, 1]",
        "[100000, 1, 1]",
        "[300, 300, 300]",
        "[-1, 0, 0]",
        "[[1, 2, 3]]",
        "{a: 1}",
        "[a, b, c]",
        "*undefined",
        "&x 5",
        "!!str 5",
        "!!float 1",
        "!!binary aGk=",
        "plane",
        "box",
        "sphere",
        "capsule",
        "rigid",
        "sap",
        "cholmod",
        "dense",
        "backtracking",
        "default",
        "rubber",
        "ground",
        "box_0_0_0",
        "[1, 0, 0, 0]",
        "[0, 0, 0, 0]",
        "[0.2, 0.2, 0.2, 0.2]",
        "{count: [2, 2, 2], spacing: [0, 0, 0]}",
        "{count: [100, 100, 100], spacing: [1, 1, 1]}",
        "{count: [5, 5, 5], spacing: [0.01, 0.01, 0.01]}",
        "{type: box, size: [1, 1, 1]}",
        "{type: plane}",
        "{type: sphere, radius: 1e-9}"};
    v.push_back(std::string(600, 'x'));
    v.push_back("[" + std::string(40, '[') + "1" + std::string(40, ']') + "]");
    std::string bomb = "[&a0 [x,x,x,x,x,x,x,x,x]";
    for (int i = 1; i <= 9; ++i) {
      const std::string p = "*a" + std::to_string(i - 1);
      bomb += ", &a" + std::to_string(i) + " [" + p + "," + p + "," + p + "," +
              p + "," + p + "," + p + "," + p + "," + p + "," + p + "]";
    }
    v.push_back(bomb + "]");
    return v;
  }();
  return v;
}

// Values at and near the limits of docs/scenes.md (valid or just outside
// them): where the numerics are most likely to break.
const std::vector<std::string>& BoundaryValues() {
  static const std::vector<std::string> v = {
      "1e-7",
      "1",
      "1.0000001",
      "9.9e-8",
      "1e7",
      "9999",
      "-9999",
      "1e4",
      "10001",
      "[9999, 0, 0]",
      "[0, 0, 1e6]",
      "[1e6, -1e6, 1e6]",
      "[0, 0, -9999]",
      "[7000, 7000, 0]",
      "1e15",
      "1.1e15",
      "1e-3",
      "9e-4",
      "1e-6",
      "1e9",
      "1e-5",
      "[1e-5, 1e-5, 1e-5]",
      "[1e4, 1e4, 1e4]",
      "[1e4, 1e-5, 1]",
      "100",
      "1000",
      "10000",
      "0",
      "[0, 9999, 0]",
      "[1000, -1000, 1000]",
      "1e6",
      "1e-3",
      "64",
      "65",
      "1000000",
      "99999",
      "{count: [10, 10, 1], spacing: [0.2, 0.2, 0]}",
      "{count: [4, 4, 4], spacing: [0, 0, 0]}",
      "{count: [1, 1, 2], spacing: [0, 0, 1e6]}",
      "[3.14159, 1e3, -1e3]",
      "[1, 1e-12, 0, 0]",
      "[1e-300, 0, 0, 1e-300]"};
  return v;
}

// Ordinary values.
const std::vector<std::string>& PlausibleValues() {
  static const std::vector<std::string> v = {
      "0.001",
      "0.002",
      "0.05",
      "0.3",
      "0.5",
      "2",
      "5",
      "0.02",
      "0.1",
      "[0, 0, 0.5]",
      "[0.1, 0, 0.3]",
      "[1, 0, 0]",
      "[0, 0, -1.62]",
      "[0.5, 0.5, 0.5]",
      "[0.1, 0.2, 0.3]",
      "[0.7071, 0, 0.7071, 0]",
      "1000",
      "1.0e5",
      ".inf",
      "sap",
      "rigid",
      "backtracking",
      "dense",
      "cholmod",
      "true",
      "false",
      "rubber",
      "default",
      "{count: [2, 1, 1], spacing: [0.3, 0, 0]}"};
  return v;
}

// A value: hostile, at the limits, or ordinary.
const std::string& AnyValue(Random& r) {
  const size_t k = r.Below(100);
  if (k < 25) return r.Pick(Values());
  if (k < 65) return r.Pick(BoundaryValues());
  return r.Pick(PlausibleValues());
}

// Values of the right type for a key, ordinary or at the limits.
const std::string& ValueFor(const std::string& key, Random& r) {
  static const std::vector<std::string> kVectors = {
      "[0, 0, 0]",       "[0, 0, 0.3]",   "[1, 0, 0]",         "[9999, 0, 0]",
      "[0, 0, -9999]",   "[1e6, 0, 0.1]", "[-1e6, 1e6, 0.5]",  "[0.5, -0.3, 2]",
      "[0, 7000, 7000]", "[1e-5, 0, 0]",  "[1000, 1000, 1000]"};
  static const std::vector<std::string> kSizes = {
      "[0.2, 0.2, 0.2]", "[1e-5, 1e-5, 1e-5]", "[1e4, 1e4, 1e4]",
      "[1e4, 1e-5, 1]",  "[0.05, 2, 0.05]",    "[3, 3, 0.01]"};
  static const std::map<std::string, std::vector<std::string>> kByKey = {
      {"time_step", {"1e-7", "1", "0.001", "0.01", "0.0005", "0.1", "0.5"}},
      {"duration", {"0.001", "0.05", "1", "0.0001", "0.3", "1e7"}},
      {"gravity", kVectors},
      {"position", kVectors},
      {"velocity", kVectors},
      {"angular_velocity", kVectors},
      {"rpy",
       {"[0, 0, 0]", "[3.14159, 0, 0]", "[1e3, -1e3, 1e3]", "[0.3, 0.2, 0.1]",
        "[1.5707963, 0, 0]"}},
      {"quaternion",
       {"[1, 0, 0, 0]", "[0.7071, 0, 0.7071, 0]", "[1, 1e-12, 0, 0]",
        "[1e-300, 0, 0, 1e-300]", "[1e300, 1e300, 0, 0]", "[0, 0, 0, 1]"}},
      {"size", kSizes},
      {"spacing",
       {"[0, 0, 0]", "[0.2, 0.2, 0.2]", "[1e6, 0, 0]", "[0.05, 0.05, 0.05]",
        "[0, 0, 0.1]"}},
      {"count",
       {"[1, 1, 1]", "[2, 2, 2]", "[10, 10, 1]", "[1, 1, 50]", "[100000, 1, 1]",
        "[3, 3, 3]"}},
      {"mass", {"1e-6", "1e9", "1", "10", "0.001", "5e8", "1e-5"}},
      {"density", {"1e-3", "1e6", "1000", "7800", "1e5", "0.01"}},
      {"radius", {"1e-5", "1e4", "0.05", "0.5", "2"}},
      {"length", {"1e-5", "1e4", "0.1", "1"}},
      {"stiffness", {"1e-3", "1e15", ".inf", "1e6", "1", "1e12", "10"}},
      {"dissipation_time_scale", {"0", "1e3", "0.01", "1", "1e-6"}},
      {"friction", {"0", "100", "0.5", "1", "1e-9", "50"}},
      {"margin", {"0", "1", "1e-3", "0.5", "1e-9"}},
      {"every", {"1", "2", "1000000", "7"}},
      {"max_iterations", {"1", "2", "100", "10000", "3"}},
      {"near_rigid_threshold", {"0", "1", "1e3", "1e-6", "0.01"}},
      {"friction_regularization", {"1e-12", "1e3", "1e-3", "1", "1e-8"}},
      {"rel_tolerance", {"1", "1e-12", "1e-6", "0.5", "1e-300"}},
      {"abs_tolerance", {"0", "1", "1e-14", "1e-300"}},
      {"model", {"sap", "rigid", "similar", "lagged"}},
      {"hunt_crossley_dissipation", {"0", "1e4", "50", "1e5", "-1", "0.5"}},
      {"stiction_tolerance", {"1e-8", "10", "1e-4", "0", "1e-9", "0.01"}},
      {"line_search", {"exact", "backtracking"}},
      {"linear_solver", {"auto", "dense", "cholmod", "block_sparse"}},
      {"stiction_prediction", {"true", "false"}},
      {"exclude_separated_contacts", {"true", "false"}},
      {"warm_start_at_rest", {"true", "false"}},
      {"supported_delassus_estimate", {"true", "false"}},
      {"line_search_slope_ratio", {"0", "0.9", "0.99", "1", "-0.1"}},
      {"factor_reuse_rate", {"0", "0.5", "0.99", "1", "-0.1"}},
      {"fixed", {"true", "false"}},
      {"type", {"box", "sphere", "capsule", "plane"}},
      {"material", {"default", "rubber"}},
  };
  std::string k = key;
  const size_t dot = k.rfind('.');
  if (dot != std::string::npos) {
    k = k.substr(dot + 1);
    // "bodies.box.position.2" -> an element of a vector: a number.
    if (!k.empty() && std::isdigit(static_cast<unsigned char>(k[0]))) {
      k = key.substr(0, dot);
      k = k.substr(k.rfind('.') + 1);
      if (kByKey.count(k)) return r.Pick(BoundaryValues());
    }
  }
  const auto it = kByKey.find(k);
  if (it == kByKey.end() || r.Chance(25)) return AnyValue(r);
  return r.Pick(it->second);
}

const std::vector<std::string>& Keys() {
  static const std::vector<std::string> k = {"time_step",
                                             "duration",
                                             "gravity",
                                             "solver",
                                             "model",
                                             "near_rigid_threshold",
                                             "friction_regularization",
                                             "rel_tolerance",
                                             "abs_tolerance",
                                             "max_iterations",
                                             "line_search",
                                             "linear_solver",
                                             "stiction_prediction",
                                             "exclude_separated_contacts",
                                             "warm_start_at_rest",
                                             "supported_delassus_estimate",
                                             "line_search_slope_ratio",
                                             "factor_reuse_rate",
                                             "materials",
                                             "material_pairs",
                                             "integrator",
                                             "scheme",
                                             "error_controlled",
                                             "accuracy",
                                             "max_step",
                                             "min_step",
                                             "default",
                                             "stiffness",
                                             "dissipation_time_scale",
                                             "friction",
                                             "hunt_crossley_dissipation",
                                             "stiction_tolerance",
                                             "collision",
                                             "margin",
                                             "output",
                                             "every",
                                             "bodies",
                                             "name",
                                             "fixed",
                                             "shape",
                                             "type",
                                             "size",
                                             "radius",
                                             "length",
                                             "mass",
                                             "density",
                                             "position",
                                             "rpy",
                                             "quaternion",
                                             "velocity",
                                             "angular_velocity",
                                             "material",
                                             "grid",
                                             "count",
                                             "spacing",
                                             "bogus",
                                             "",
                                             "<<"};
  return k;
}

// A line "<indent>key: value" gets another value; or a key is renamed,
// added or removed; or a whole random body is appended.
std::string MutateSemantics(const std::string& base, Random& r) {
  std::vector<std::string> lines = Lines(base);
  const int edits = 1 + static_cast<int>(r.Below(2));
  for (int e = 0; e < edits; ++e) {
    const size_t line = r.Below(lines.size());
    std::string& l = lines[line];
    const size_t colon = l.find(": ");
    switch (r.Below(10)) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
      case 5:
      case 6:  // a new value for a "key: value" line
        if (colon != std::string::npos && l.find('{') == std::string::npos) {
          const size_t start = l.find_first_not_of(" -");
          const std::string key =
              start < colon ? l.substr(start, colon - start) : "";
          l = l.substr(0, colon + 2) + ValueFor(key, r);
        } else if (l.find(": ") != std::string::npos) {
          // In a flow map: replace the value after a random ": ".
          std::vector<size_t> at;
          for (size_t p = l.find(": "); p != std::string::npos;
               p = l.find(": ", p + 1)) {
            at.push_back(p);
          }
          const size_t p = r.Pick(at) + 2;
          const size_t end = l.find_first_of(",}", p);
          l = l.substr(0, p) + AnyValue(r) +
              (end == std::string::npos ? "" : l.substr(end));
        }
        break;
      case 7:  // rename a key
        if (colon != std::string::npos) {
          const size_t start = l.find_first_not_of(" -");
          if (start < colon)
            l = l.substr(0, start) + r.Pick(Keys()) + l.substr(colon);
        }
        break;
      case 8: {  // add a key next to this line, at its indentation
        const size_t indent = l.find_first_not_of(' ');
        lines.insert(
            lines.begin() + line + 1,
            std::string(indent == std::string::npos ? 0 : indent, ' ') +
                r.Pick(Keys()) + ": " + AnyValue(r));
        break;
      }
      default: {  // append a random body
        std::string body = "  - name: " +
                           r.Pick(std::vector<std::string>{
                               "extra", "box", "ground", "e_0_0_0"}) +
                           "\n";
        body += "    shape: " +
                r.Pick(std::vector<std::string>{
                    "{type: box, size: [0.1, 0.1, 0.1]}",
                    "{type: sphere, radius: 0.05}",
                    "{type: capsule, radius: 0.02, length: 0.1}",
                    "{type: plane}", "{type: " + AnyValue(r) + "}"}) +
                "\n";
        for (const char* key : {"mass", "position", "velocity", "grid", "fixed",
                                "rpy", "material"}) {
          if (r.Chance(40)) {
            body += std::string("    ") + key + ": " + AnyValue(r) + "\n";
          }
        }
        return Join(lines) + body;
      }
    }
  }
  return Join(lines);
}

TEST(Fuzz, YamlSemantics) {
  TempDir dir("fuzz_semantics");
  Random r(Seed() * 1000 + 2);
  Tally tally;
  const int n = Cases(600);
  for (int i = 0; i < n; ++i) {
    const std::string text = MutateSemantics(r.Pick(BaseScenes()), r);
    const std::string path = dir.Write("scene.yaml", text);
    CheckSceneRun(path, {}, dir.path() / "out",
                  "yaml_semantics case " + std::to_string(i) + " '" +
                      Show(text, 2000) + "'",
                  &tally);
  }
  Report("yaml_semantics", n, tally);
}

// --- Class 3: overrides
// -------------------------------------------------------

const std::vector<std::string>& OverrideKeys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> k = {"time_step",
                                  "duration",
                                  "gravity",
                                  "gravity.0",
                                  "gravity.2",
                                  "gravity.3",
                                  "gravity.x",
                                  "solver",
                                  "solver.model",
                                  "solver.near_rigid_threshold",
                                  "solver.friction_regularization",
                                  "solver.rel_tolerance",
                                  "solver.abs_tolerance",
                                  "solver.max_iterations",
                                  "solver.line_search",
                                  "solver.linear_solver",
                                  "solver.model.x",
                                  "materials.default.stiffness",
                                  "materials.default.dissipation_time_scale",
                                  "materials.default.friction",
                                  "materials.default.model",
                                  "materials.default.hunt_crossley_dissipation",
                                  "materials.default.stiction_tolerance",
                                  "materials.rubber.model",
                                  "materials.rubber.stiffness",
                                  "materials.steel.friction",
                                  "materials.default",
                                  "collision.margin",
                                  "output.every",
                                  "bodies.box.mass",
                                  "bodies.box.density",
                                  "bodies.box.position",
                                  "bodies.box.position.2",
                                  "bodies.box.position.7",
                                  "bodies.box.rpy",
                                  "bodies.box.quaternion",
                                  "bodies.box.velocity",
                                  "bodies.box.velocity.0",
                                  "bodies.box.angular_velocity",
                                  "bodies.box.shape.size",
                                  "bodies.box.shape.size.1",
                                  "bodies.box.shape.radius",
                                  "bodies.box.shape.type",
                                  "bodies.box.shape",
                                  "bodies.box.grid.count",
                                  "bodies.box.grid.spacing",
                                  "bodies.box.grid",
                                  "bodies.box.name",
                                  "bodies.box.fixed",
                                  "bodies.box.material",
                                  "bodies.box",
                                  "bodies.ground.velocity",
                                  "bodies.ground.fixed",
                                  "bodies.ball.mass",
                                  "bodies.ball.shape.radius",
                                  "bodies.rod.shape.length",
                                  "bodies.nobody.mass",
                                  "bodies",
                                  "",
                                  ".",
                                  "a..b",
                                  "=",
                                  "bogus",
                                  "bodies.box.mass.kg",
                                  "output.every.1"};
    k.push_back(std::string(5000, 'k'));
    return k;
  }();
  return k;
}

// Keys every base scene has (the body "box" included).
const std::vector<std::string>& ValidOverrideKeys() {
  static const std::vector<std::string> k = {
      "time_step",
      "duration",
      "gravity",
      "gravity.2",
      "solver.model",
      "solver.near_rigid_threshold",
      "solver.friction_regularization",
      "solver.rel_tolerance",
      "solver.max_iterations",
      "solver.line_search",
      "solver.linear_solver",
      "materials.default.stiffness",
      "materials.default.dissipation_time_scale",
      "materials.default.friction",
      "materials.default.model",
      "materials.default.hunt_crossley_dissipation",
      "materials.default.stiction_tolerance",
      "collision.margin",
      "output.every",
      "bodies.box.mass",
      "bodies.box.density",
      "bodies.box.position",
      "bodies.box.position.2",
      "bodies.box.rpy",
      "bodies.box.quaternion",
      "bodies.box.velocity",
      "bodies.box.angular_velocity",
      "bodies.box.shape.size",
      "bodies.box.shape.size.1",
      "bodies.box.grid.count",
      "bodies.box.grid.spacing"};
  return k;
}

TEST(Fuzz, Overrides) {
  TempDir dir("fuzz_overrides");
  Random r(Seed() * 1000 + 3);
  Tally tally;
  const int n = Cases(500);
  for (int i = 0; i < n; ++i) {
    const std::string path = dir.Write("scene.yaml", r.Pick(BaseScenes()));
    std::vector<std::string> overrides;
    const int count = 1 + static_cast<int>(r.Below(3));
    for (int k = 0; k < count; ++k) {
      const std::string key =
          r.Chance(70) ? r.Pick(ValidOverrideKeys()) : r.Pick(OverrideKeys());
      const std::string value = ValueFor(key, r);
      switch (r.Below(16)) {
        case 0:
          overrides.push_back(key);  // no '='
          break;
        case 1:
          overrides.push_back(key + "=");
          break;
        case 2:
          overrides.push_back(key + "==" + value);
          break;
        default:
          overrides.push_back(key + "=" + value);
      }
    }
    std::string label = "override case " + std::to_string(i) + ":";
    for (const std::string& o : overrides) label += " --set '" + Show(o) + "'";
    CheckSceneRun(path, overrides, dir.path() / "out", label, &tally);
  }
  Report("overrides", n, tally);
}

}  // namespace
}  // namespace sapcontact
