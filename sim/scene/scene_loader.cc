#include "sapcontact/sim/scene/scene_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "sapcontact/geometry/shape_traits.h"
#include "sapcontact/sim/robot/urdf_loader.h"
#include "sapcontact/sim/scene/scene_limits.h"
#include "sapcontact/sim/scene/scene_overrides.h"
#include "sapcontact/sim/scene/scene_parser.h"
#include "sapcontact/sim/scene/scene_yaml_reader.h"
#include "sapcontact/sim/scene/world_scene.h"

namespace sapcontact {
namespace {

using scene_internal::Join;
using scene_internal::SceneParser;
using scene_internal::YamlReader;

namespace limits = scene_limits;

// "1e+06" style numbers for limit messages.
std::string Num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Whether `s` is valid UTF-8 without control characters.
bool PrintableUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    int extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
      extra = 1;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
    } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      return false;
    }
    if (i + extra >= s.size() && extra > 0) return false;
    for (int k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += 1 + extra;
  }
  return true;
}

}  // namespace

namespace scene_internal {

bool ForbiddenNameCharacter(char c) {
  return c == '.' || c == '=' || c == ',' || c == '"' ||
         std::isspace(static_cast<unsigned char>(c));
}

bool ValidName(const std::string& name) {
  for (char c : name) {
    if (ForbiddenNameCharacter(c)) return false;
  }
  return !name.empty() && PrintableUtf8(name);
}

Scene SceneParser::Parse(const YAML::Node& root) {
  if (!root.IsMap()) {
    if (root.IsNull()) {
      r_.FailNoPlace("",
                     "the scene is empty (expected a map with "
                     "time_step, duration and bodies)");
    }
    r_.Fail(root, "", "expected a map at the top level");
  }
  r_.CheckMap(root, "", scene_internal::RootKeys());
  Scene scene;
  scene.source = r_.file();
  const YAML::Node dt_node = r_.Required(root, "time_step", "");
  scene.time_step = r_.Positive(dt_node, "time_step");
  const YAML::Node duration_node = r_.Required(root, "duration", "");
  scene.duration = r_.Positive(duration_node, "duration");
  r_.CheckRange(dt_node, "time_step", scene.time_step, limits::kMinTimeStep,
                limits::kMaxTimeStep, "s",
                "no contact time scale is resolved by a smaller or a "
                "larger step");
  const double steps = std::round(scene.duration / scene.time_step);
  if (!(steps <= limits::kMaxSteps)) {
    r_.Fail(duration_node, "duration",
            "duration / time_step = " + Num(steps) +
                " steps, more than the limit of " + Num(limits::kMaxSteps) +
                " steps of one run (docs/scenes.md, Limits): shorten the "
                "duration or enlarge the time step");
  }
  if (root["gravity"]) {
    scene.gravity = r_.Vec3(root["gravity"], "gravity");
    r_.CheckRange(root["gravity"], "gravity", scene.gravity.norm(), 0.0,
                  limits::kMaxGravity, "m/s^2",
                  "more than 1000 g is not a rigid-body scene", "|gravity|");
  }
  if (root["solver"]) ParseSolver(root["solver"], &scene.solver);
  ParseMaterials(root["materials"], &scene);
  ParseMaterialPairs(root["material_pairs"], &scene);
  if (root["output"]) {
    const YAML::Node out = root["output"];
    r_.CheckMap(out, "output", scene_internal::OutputKeys());
    if (out["every"]) {
      scene.output.every = r_.PositiveInt(out["every"], "output.every");
    }
  }
  if (root["collision"]) {
    const YAML::Node col = root["collision"];
    r_.CheckMap(col, "collision", scene_internal::CollisionKeys());
    if (col["margin"]) {
      scene.collision.margin =
          r_.NonNegative(col["margin"], "collision.margin");
      r_.CheckRange(col["margin"], "collision.margin", scene.collision.margin,
                    0.0, limits::kMaxMargin, "m",
                    "a larger margin makes every nearby pair a contact");
    }
  }
  if (root["integrator"]) {
    const YAML::Node in = root["integrator"];
    r_.CheckMap(in, "integrator", scene_internal::IntegratorKeys());
    if (in["robots"]) {
      scene.integrator.robots = static_cast<RobotIntegrator>(r_.Choice(
          in["robots"], "integrator.robots", {"variational", "euler"}));
    }
    IntegratorSettings& s = scene.integrator;
    if (in["scheme"]) {
      s.scheme = static_cast<IntegrationScheme>(r_.Choice(
          in["scheme"], "integrator.scheme", {"fixed", "error_controlled"}));
    }
    if (in["accuracy"]) {
      s.accuracy = r_.Positive(in["accuracy"], "integrator.accuracy");
      r_.CheckRange(in["accuracy"], "integrator.accuracy", s.accuracy,
                    limits::kMinAccuracy, limits::kMaxAccuracy, "",
                    "below it round-off is the error, above it nothing is "
                    "controlled");
    }
    for (const char* key : {"max_step", "min_step"}) {
      if (!in[key]) continue;
      const std::string f = std::string("integrator.") + key;
      double& h = std::string(key) == "max_step" ? s.max_step : s.min_step;
      h = r_.Positive(in[key], f);
      r_.CheckRange(in[key], f, h, limits::kMinTimeStep, limits::kMaxTimeStep,
                    "s", "as time_step");
    }
    const double max_step = s.max_step > 0.0 ? s.max_step : scene.time_step;
    if (in["min_step"] && s.min_step > max_step) {
      r_.Fail(in["min_step"] ? in["min_step"] : in, "integrator.min_step",
              "must not exceed integrator.max_step (or time_step, " +
                  Num(max_step) + " s)");
    }
  }
  const YAML::Node robots = root["robots"];
  // (Robots that are not a list fail in ParseRobots.)
  const bool has_robots = robots && !robots.IsNull() &&
                          !(robots.IsSequence() && robots.size() == 0);
  ParseBodies(has_robots ? root["bodies"] : r_.Required(root, "bodies", ""),
              has_robots, &scene);
  ParseRobots(robots, &scene);
  ParseExternalForces(root["external_forces"], &scene);
  CheckRigidPairsHaveRegularization(root, scene);
  scene.warnings = warnings_;
  for (const RobotSpec& r : scene.robots) {
    for (const std::string& w : r.description.warnings) {
      scene.warnings.push_back("robots." + r.name + ": " + w);
    }
  }
  return scene;
}

void SceneParser::ParseSolver(const YAML::Node& n, SolverSettings* s) {
  r_.CheckMap(n, "solver", scene_internal::SolverKeys());
  if (n["model"]) {
    s->model = static_cast<SolverModel>(
        r_.Choice(n["model"], "solver.model", {"sap", "rigid"}));
  }
  if (n["contact_model"]) {
    s->contact_model =
        ContactModelChoice(n["contact_model"], "solver.contact_model");
  }
  if (n["near_rigid_threshold"]) {
    s->near_rigid_threshold = r_.NonNegative(n["near_rigid_threshold"],
                                             "solver.near_rigid_threshold");
    r_.CheckRange(n["near_rigid_threshold"], "solver.near_rigid_threshold",
                  s->near_rigid_threshold, 0.0, limits::kMaxRegularization, "",
                  "beta > 1 already makes every contact near-rigid");
  }
  if (n["friction_regularization"]) {
    s->friction_regularization = r_.Positive(n["friction_regularization"],
                                             "solver.friction_regularization");
    r_.CheckRange(n["friction_regularization"],
                  "solver.friction_regularization", s->friction_regularization,
                  0.0, limits::kMaxRegularization, "",
                  "sigma > 1 is no friction at all");
  }
  if (n["rel_tolerance"]) {
    s->rel_tolerance = r_.Positive(n["rel_tolerance"], "solver.rel_tolerance");
    r_.CheckRange(n["rel_tolerance"], "solver.rel_tolerance", s->rel_tolerance,
                  0.0, 1.0, "",
                  "a relative tolerance above 1 accepts any iterate");
  }
  if (n["abs_tolerance"]) {
    s->abs_tolerance =
        r_.NonNegative(n["abs_tolerance"], "solver.abs_tolerance");
    r_.CheckRange(n["abs_tolerance"], "solver.abs_tolerance", s->abs_tolerance,
                  0.0, 1.0, "",
                  "an absolute tolerance above 1 accepts any iterate");
  }
  if (n["max_iterations"]) {
    s->max_iterations =
        r_.PositiveInt(n["max_iterations"], "solver.max_iterations");
    r_.CheckRange(n["max_iterations"], "solver.max_iterations",
                  s->max_iterations, 1, limits::kMaxSolverIterations, "",
                  "a step that needs more does not converge");
  }
  if (n["line_search"]) {
    s->line_search = static_cast<LineSearchMethod>(r_.Choice(
        n["line_search"], "solver.line_search", {"exact", "backtracking"}));
  }
  if (n["linear_solver"]) {
    s->linear_solver = static_cast<LinearSolverKind>(
        r_.Choice(n["linear_solver"], "solver.linear_solver",
                  {"auto", "dense", "cholmod", "block_sparse"}));
  }
  if (n["threads"]) {
    s->threads = r_.PositiveInt(n["threads"], "solver.threads");
    r_.CheckRange(n["threads"], "solver.threads", s->threads, 1,
                  limits::kMaxThreads, "", "threads of one simulation");
  }
  if (n["sleep"]) s->sleep = r_.Bool(n["sleep"], "solver.sleep");
  if (n["sleep_speed"]) {
    s->sleep_speed = r_.Positive(n["sleep_speed"], "solver.sleep_speed");
    r_.CheckRange(n["sleep_speed"], "solver.sleep_speed", s->sleep_speed, 0.0,
                  limits::kMaxSleepSpeed, "m/s",
                  "a body that fast is moving, not resting");
  }
  if (n["sleep_time"]) {
    s->sleep_time = r_.NonNegative(n["sleep_time"], "solver.sleep_time");
    r_.CheckRange(n["sleep_time"], "solver.sleep_time", s->sleep_time, 0.0,
                  limits::kMaxSleepTime, "s", "longer than any run");
  }
  if (n["stiction_prediction"]) {
    s->stiction_prediction =
        r_.Bool(n["stiction_prediction"], "solver.stiction_prediction");
  }
  if (n["exclude_separated_contacts"]) {
    s->exclude_separated_contacts = r_.Bool(
        n["exclude_separated_contacts"], "solver.exclude_separated_contacts");
  }
  if (n["warm_start_at_rest"]) {
    s->warm_start_at_rest =
        r_.Bool(n["warm_start_at_rest"], "solver.warm_start_at_rest");
  }
  if (n["supported_delassus_estimate"]) {
    s->supported_delassus_estimate = r_.Bool(
        n["supported_delassus_estimate"], "solver.supported_delassus_estimate");
  }
  if (n["line_search_slope_ratio"]) {
    s->line_search_slope_ratio = r_.NonNegative(
        n["line_search_slope_ratio"], "solver.line_search_slope_ratio");
    r_.CheckRange(n["line_search_slope_ratio"],
                  "solver.line_search_slope_ratio", s->line_search_slope_ratio,
                  0.0, 0.99, "",
                  "a ratio of 1 accepts steps that barely reduce the slope");
  }
  if (n["factor_reuse_rate"]) {
    s->factor_reuse_rate =
        r_.NonNegative(n["factor_reuse_rate"], "solver.factor_reuse_rate");
    r_.CheckRange(n["factor_reuse_rate"], "solver.factor_reuse_rate",
                  s->factor_reuse_rate, 0.0, 0.99, "",
                  "a rate of 1 keeps a factorization that no longer converges");
  }
}

// sap | similar | lagged (docs/theory.md §18).
ContactModel SceneParser::ContactModelChoice(const YAML::Node& n,
                                             const std::string& field) const {
  const ContactModel models[] = {ContactModel::kSap, ContactModel::kSimilar,
                                 ContactModel::kLagged};
  std::vector<std::string> names;
  for (ContactModel model : models) names.push_back(ToString(model));
  return models[r_.Choice(n, field, names)];
}

void SceneParser::ParseMaterials(const YAML::Node& n, Scene* scene) {
  // The built-in "default", of the scene's contact model.
  scene->materials.assign(1, Material{});
  scene->materials[0].model = scene->solver.contact_model;
  if (!n) return;
  r_.CheckMap(n, "materials", {});
  for (const auto& item : n) {
    const std::string name = item.first.Scalar();
    const std::string field = "materials." + name;
    if (!ValidName(name)) {
      r_.Fail(item.first, field,
              "invalid material name (no spaces, '.', '=', ',', '\"' or "
              "control characters; UTF-8)");
    }
    if (name.size() > limits::kMaxNameLength) {
      r_.Fail(item.first, field.substr(0, 40) + "...",
              "a material name of " + std::to_string(name.size()) +
                  " characters, more than the limit of " +
                  std::to_string(limits::kMaxNameLength) +
                  " (docs/scenes.md, Limits)");
    }
    const YAML::Node& m = item.second;
    r_.CheckMap(m, field, scene_internal::MaterialKeys());
    Material mat;
    mat.name = name;
    mat.model = scene->solver.contact_model;
    ParseMaterialFields(m, field, &mat);
    if (name == "default") {
      scene->materials[0] = mat;
    } else {
      scene->materials.push_back(mat);
    }
  }
}

// The fields of a material (MaterialKeys) present in `m`, over the values
// *mat already holds.
void SceneParser::ParseMaterialFields(const YAML::Node& m,
                                      const std::string& field, Material* mat) {
  if (m["stiffness"]) {
    mat->stiffness =
        r_.Double(m["stiffness"], field + ".stiffness", /*allow_inf=*/true);
    if (!(mat->stiffness > 0.0)) {
      r_.Fail(m["stiffness"], field + ".stiffness",
              "must be > 0 N/m (or .inf for rigid)");
    }
    if (!std::isinf(mat->stiffness)) {
      r_.CheckRange(m["stiffness"], field + ".stiffness", mat->stiffness,
                    limits::kMinStiffness, limits::kMaxStiffness, "N/m",
                    "stiffer contacts are rigid at any time step (use "
                    ".inf); softer ones hold nothing up");
    }
  }
  if (m["dissipation_time_scale"]) {
    mat->dissipation_time_scale = r_.NonNegative(
        m["dissipation_time_scale"], field + ".dissipation_time_scale");
    r_.CheckRange(
        m["dissipation_time_scale"], field + ".dissipation_time_scale",
        mat->dissipation_time_scale, 0.0, limits::kMaxDissipationTimeScale, "s",
        "longer than any simulated motion");
  }
  if (m["friction"]) {
    mat->friction = r_.NonNegative(m["friction"], field + ".friction");
    r_.CheckRange(m["friction"], field + ".friction", mat->friction, 0.0,
                  limits::kMaxFriction, "",
                  "no surface pair has a larger friction coefficient");
  }
  if (m["model"]) mat->model = ContactModelChoice(m["model"], field + ".model");
  if (m["hunt_crossley_dissipation"]) {
    const std::string f = field + ".hunt_crossley_dissipation";
    mat->hunt_crossley_dissipation =
        r_.NonNegative(m["hunt_crossley_dissipation"], f);
    r_.CheckRange(m["hunt_crossley_dissipation"], f,
                  mat->hunt_crossley_dissipation, 0.0,
                  limits::kMaxHuntCrossleyDissipation, "s/m",
                  "every impact would be fully damped");
  }
  if (m["stiction_tolerance"]) {
    const std::string f = field + ".stiction_tolerance";
    mat->stiction_tolerance = r_.Positive(m["stiction_tolerance"], f);
    r_.CheckRange(m["stiction_tolerance"], f, mat->stiction_tolerance,
                  limits::kMinStictionTolerance, limits::kMaxStictionTolerance,
                  "m/s",
                  "below it creep is slower than any run resolves, above "
                  "it friction is viscous at every speed");
  }
}

void SceneParser::ParseMaterialPairs(const YAML::Node& n, Scene* scene) {
  if (!n) return;
  if (!n.IsSequence()) {
    r_.Fail(n, "material_pairs",
            "must be a list of {materials: [a, b], <material fields>}");
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node& m = n[i];
    const std::string field = "material_pairs[" + std::to_string(i) + "]";
    std::vector<std::string> keys = scene_internal::MaterialKeys();
    keys.insert(keys.begin(), "materials");
    r_.CheckMap(m, field, keys);
    const YAML::Node names = m["materials"];
    if (!names || !names.IsSequence() || names.size() != 2) {
      r_.Fail(names ? names : m, field + ".materials",
              "must name two materials: [a, b]");
    }
    MaterialPair pair;
    pair.material_a =
        MaterialIndex(names[0], field + ".materials",
                      r_.String(names[0], field + ".materials"), *scene);
    pair.material_b =
        MaterialIndex(names[1], field + ".materials",
                      r_.String(names[1], field + ".materials"), *scene);
    for (size_t j = 0; j < i; ++j) {
      const MaterialPair& o = scene->material_pairs[j];
      if (std::minmax(o.material_a, o.material_b) ==
          std::minmax(pair.material_a, pair.material_b)) {
        r_.Fail(names, field + ".materials",
                "the pair of material_pairs[" + std::to_string(j) + "] again");
      }
    }
    // Fields not given keep the materials' combination.
    const ContactParameters combined = CombineMaterials(
        scene->materials[pair.material_a], scene->materials[pair.material_b]);
    Material mat =
        MaterialWithParameters(scene->materials[pair.material_a].name + "+" +
                                   scene->materials[pair.material_b].name,
                               combined);
    ParseMaterialFields(m, field, &mat);
    pair.parameters = MaterialParameters(mat);
    scene->material_pairs.push_back(pair);
  }
}

// SAP's R_n = max(beta^2 w / (4 pi^2), 1 / (dt k (dt + tau_d))) is 0 for
// a rigid pair (k = inf) when beta = 0: the problem is not strictly
// convex and the solver rejects it. Such a pair exists when two bodies,
// not both fixed, have rigid materials.
void SceneParser::CheckRigidPairsHaveRegularization(const YAML::Node& root,
                                                    const Scene& scene) {
  if (scene.solver.model != SolverModel::kSap ||
      scene.solver.near_rigid_threshold > 0.0) {
    return;
  }
  const std::string pair = RigidPair(scene);
  if (pair.empty()) return;
  const YAML::Node solver = root["solver"];
  const YAML::Node at =
      solver && solver.IsMap() && solver["near_rigid_threshold"]
          ? solver["near_rigid_threshold"]
          : root;
  r_.Fail(at, "solver.near_rigid_threshold",
          "0 leaves rigid contacts without regularization (R_n = 0): " + pair +
              " have rigid materials (stiffness .inf); give beta > 0 or "
              "a finite stiffness");
}

int SceneParser::MaterialIndex(const YAML::Node& node, const std::string& field,
                               const std::string& name, const Scene& scene) {
  const int index = scene.FindMaterial(name);
  if (index < 0) {
    std::string list;
    for (const auto& m : scene.materials) {
      list += (list.empty() ? "" : ", ") + m.name;
    }
    r_.Fail(node, field,
            "no material named '" + name + "' (defined: " + list + ")");
  }
  return index;
}

// Checks a robot or body name: length, characters (ValidName).
void SceneParser::CheckName(const YAML::Node& node, const std::string& field,
                            const std::string& name, const char* what) {
  if (name.size() > limits::kMaxNameLength) {
    r_.Fail(node, field,
            std::string("a ") + what + " name of " +
                std::to_string(name.size()) +
                " characters, more than the limit of " +
                std::to_string(limits::kMaxNameLength) +
                " (docs/scenes.md, Limits)");
  }
  if (!ValidName(name)) {
    r_.Fail(node, field,
            std::string("invalid ") + what + " name '" + name +
                "' (no spaces, '.', '=', ',', '\"' or control "
                "characters; UTF-8)");
  }
}
}  // namespace scene_internal

namespace {

Scene ParseWithOverrides(YAML::Node root, YamlReader* reader,
                         const std::vector<std::string>& overrides) {
  try {
    // The document's size counting alias uses, before anything walks it.
    std::string path;
    YAML::Node at;
    const std::string problem = scene_internal::YamlSizeProblem(
        root, "", limits::kMaxYamlNodes, limits::kMaxYamlDepth, &path, &at);
    if (!problem.empty()) reader->Fail(at, path, problem);
    if (overrides.size() > limits::kMaxOverrides) {
      reader->FailNoPlace("", std::to_string(overrides.size()) +
                                  " --set overrides, more than the limit of " +
                                  std::to_string(limits::kMaxOverrides) +
                                  " (docs/scenes.md, Limits)");
    }
    for (const auto& o : overrides) {
      scene_internal::ApplyOverride(root, o, reader);
    }
    return SceneParser(*reader).Parse(root);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) reader->FailNoPlace("", e.msg);
    throw SceneError(reader->file(), e.mark.line + 1, e.mark.column + 1, "",
                     reader->file() + ":" + std::to_string(e.mark.line + 1) +
                         ":" + std::to_string(e.mark.column + 1) + ": " +
                         e.msg);
  } catch (const std::invalid_argument& e) {
    reader->FailNoPlace("", e.what());
  }
}

[[noreturn]] void Malformed(const std::string& file, const YAML::Exception& e) {
  const int line = e.mark.line + 1;
  const int column = e.mark.column + 1;
  throw SceneError(file, line, column, "",
                   file + ":" + std::to_string(line) + ":" +
                       std::to_string(column) + ": malformed YAML: " + e.msg);
}

// The text of a scene file: a regular file of at most kMaxFileBytes (a
// FIFO or a device such as /dev/zero would otherwise be read forever).
std::string ReadSceneFile(const std::string& path, const YamlReader& reader) {
  namespace fs = std::filesystem;
  // The file cannot be opened: the system's reason, and for a relative path
  // the working directory it was looked up from. The file, not a field of
  // it, is the problem: "path: cannot open the scene file: reason".
  auto fail_open = [&path](const std::error_code& reason) {
    std::string message =
        path + ": cannot open the scene file: " + reason.message();
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    if (fs::path(path).is_relative() && !ec) {
      message += " (relative to the working directory " + cwd.string() + ")";
    }
    throw SceneError(path, 0, 0, "", message);
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    // fs::status reports a missing file and a path through a regular file
    // alike: ask open(2) for its own reason.
    errno = 0;
    std::FILE* probe = std::fopen(path.c_str(), "rb");
    const int reason = errno != 0 ? errno : ENOENT;
    if (probe != nullptr) std::fclose(probe);
    fail_open(ec ? ec : std::error_code(reason, std::generic_category()));
  }
  if (fs::is_directory(st)) {
    reader.FailNoPlace("", "is a directory, not a scene file");
  }
  if (!fs::is_regular_file(st)) {
    reader.FailNoPlace("",
                       "not a regular file (cannot read a scene from a "
                       "device, pipe or socket)");
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail_open(std::error_code(errno, std::generic_category()));
  std::string text;
  char chunk[65536];
  size_t got = 0;
  while (text.size() <= limits::kMaxFileBytes &&
         (got = std::fread(chunk, 1, sizeof(chunk), file.get())) > 0) {
    text.append(chunk, got);
  }
  if (std::ferror(file.get())) {
    reader.FailNoPlace(
        "", "cannot read the scene file: " +
                std::error_code(errno, std::generic_category()).message());
  }
  if (text.size() > limits::kMaxFileBytes) {
    reader.FailNoPlace("", "the scene file is larger than " +
                               std::to_string(limits::kMaxFileBytes >> 20) +
                               " MiB (docs/scenes.md, Limits)");
  }
  return text;
}

}  // namespace

Scene LoadScene(const std::string& path,
                const std::vector<std::string>& overrides) {
  YamlReader reader(path);
  std::string text = ReadSceneFile(path, reader);
  std::vector<std::string> model_warnings;
  if (const ModelFileFormat format = ModelSceneFormat(path);
      format != ModelFileFormat::kNone) {
    // An MJCF or SDFormat file runs as the scene it describes
    // (world_scene.h).
    try {
      text = ModelSceneYaml(path, format, &model_warnings);
    } catch (const std::invalid_argument& e) {
      throw SceneError(path, 0, 0, "", e.what());
    }
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    Malformed(path, e);
  }
  Scene scene = ParseWithOverrides(root, &reader, overrides);
  scene.warnings.insert(scene.warnings.begin(), model_warnings.begin(),
                        model_warnings.end());
  return scene;
}

Scene LoadSceneFromString(const std::string& yaml, const std::string& name,
                          const std::vector<std::string>& overrides) {
  YamlReader reader(name);
  if (yaml.size() > limits::kMaxFileBytes) {
    reader.FailNoPlace("", "the scene text is larger than " +
                               std::to_string(limits::kMaxFileBytes >> 20) +
                               " MiB (docs/scenes.md, Limits)");
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    Malformed(name, e);
  }
  return ParseWithOverrides(root, &reader, overrides);
}

}  // namespace sapcontact
