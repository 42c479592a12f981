// Bad input: every case throws SceneError whose message names the file, the
// line (the line marked "#<" in the case's text) and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace {

struct ErrorCase {
  const char* name;
  const char* yaml;   // one line carries the marker "#<"
  const char* field;  // expected SceneError::field()
};

// Common head of most cases (lines 1-3).
#define HEAD "time_step: 0.001\nduration: 1\nbodies:\n"
#define GROUND "  - {name: ground, fixed: true, shape: {type: plane}}\n"

const ErrorCase kCases[] = {
    {"unknown_root_key", "time_stpe: 0.001  #<\nduration: 1\nbodies: []\n",
     "time_stpe"},
    {"unknown_body_key",
     HEAD "  - name: box\n    shape: {type: sphere, radius: 1}\n"
          "    mas: 10  #<\n",
     "bodies.box.mas"},
    {"unknown_shape_param",
     HEAD "  - name: box\n    mass: 1\n"
          "    shape: {type: box, size: [1, 1, 1], radius: 1}  #<\n",
     "bodies.box.shape.radius"},
    {"unknown_solver_key",
     "time_step: 0.001\nduration: 1\nsolver:\n  max_iter: 5  #<\n"
     "bodies:\n" GROUND,
     "solver.max_iter"},
    {"unknown_material_key",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  rubber: {stifness: 1.0e5}  #<\nbodies:\n" GROUND,
     "materials.rubber.stifness"},
    {"unknown_grid_key",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    grid: {count: [1, 1, 2], spacing: [0, 0, 3], offset: 1}  #<\n",
     "bodies.b.grid.offset"},
    {"duplicate_key",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    mass: 2  #<\n",
     "bodies.b.mass"},
    {"missing_time_step", "duration: 1  #<\nbodies:\n" GROUND, "time_step"},
    {"missing_duration", "time_step: 1  #<\nbodies:\n" GROUND, "duration"},
    {"missing_bodies", "time_step: 0.001  #<\nduration: 1\n", "bodies"},
    {"missing_shape", HEAD "  - name: box  #<\n    mass: 1\n",
     "bodies.box.shape"},
    {"missing_mass",
     HEAD "  - name: box  #<\n    shape: {type: sphere, radius: 1}\n",
     "bodies.box.mass"},
    {"missing_name",
     HEAD "  - mass: 1  #<\n    shape: {type: sphere, radius: 1}\n",
     "bodies[0].name"},
    {"missing_shape_type",
     HEAD "  - name: box\n    mass: 1\n    shape: {size: [1, 1, 1]}  #<\n",
     "bodies.box.shape.type"},
    {"missing_box_size",
     HEAD "  - name: box\n    mass: 1\n    shape: {type: box}  #<\n",
     "bodies.box.shape.size"},
    {"missing_capsule_length",
     HEAD
     "  - name: rod\n    mass: 1\n    shape: {type: capsule, radius: 1}  #<\n",
     "bodies.rod.shape.length"},
    {"missing_grid_spacing",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    grid: {count: [1, 1, 2]}  #<\n",
     "bodies.b.grid.spacing"},
    {"time_step_not_a_number",
     "time_step: abc  #<\nduration: 1\nbodies:\n" GROUND, "time_step"},
    {"time_step_zero", "time_step: 0  #<\nduration: 1\nbodies:\n" GROUND,
     "time_step"},
    {"time_step_negative",
     "time_step: -1e-3  #<\nduration: 1\nbodies:\n" GROUND, "time_step"},
    {"duration_negative", "time_step: 1e-3\nduration: -2  #<\nbodies:\n" GROUND,
     "duration"},
    {"mass_is_a_list",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n"
          "    mass: [1, 2]  #<\n",
     "bodies.b.mass"},
    {"mass_zero",
     HEAD
     "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 0  #<\n",
     "bodies.b.mass"},
    {"mass_negative",
     HEAD
     "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: -5  #<\n",
     "bodies.b.mass"},
    {"density_negative",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n"
          "    density: -1000  #<\n",
     "bodies.b.density"},
    {"mass_and_density",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    density: 1000  #<\n",
     "bodies.b.density"},
    {"box_size_negative",
     HEAD "  - name: box\n    mass: 1\n"
          "    shape: {type: box, size: [0.2, -0.2, 0.2]}  #<\n",
     "bodies.box.shape.size[1]"},
    {"box_size_wrong_length",
     HEAD "  - name: box\n    mass: 1\n"
          "    shape: {type: box, size: [0.2, 0.2]}  #<\n",
     "bodies.box.shape.size"},
    {"sphere_radius_zero",
     HEAD
     "  - name: b\n    mass: 1\n    shape: {type: sphere, radius: 0}  #<\n",
     "bodies.b.shape.radius"},
    {"capsule_length_negative",
     HEAD "  - name: b\n    mass: 1\n"
          "    shape: {type: capsule, radius: 1, length: -1}  #<\n",
     "bodies.b.shape.length"},
    {"unknown_shape_type",
     HEAD "  - name: b\n    mass: 1\n"
          "    shape: {type: cone, radius: 1}  #<\n",
     "bodies.b.shape.type"},
    {"position_too_short",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    position: [0, 0]  #<\n",
     "bodies.b.position"},
    {"position_not_finite",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    position: [0, .nan, 1]  #<\n",
     "bodies.b.position[1]"},
    {"fixed_not_bool",
     HEAD "  - name: b\n    fixed: maybe  #<\n    shape: {type: plane}\n",
     "bodies.b.fixed"},
    {"zero_quaternion",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    quaternion: [0, 0, 0, 0]  #<\n",
     "bodies.b.quaternion"},
    {"infinite_quaternion",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    quaternion: [1, .inf, 0, 0]  #<\n",
     "bodies.b.quaternion[1]"},
    {"rpy_and_quaternion",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    rpy: [0, 0, 0]\n    quaternion: [1, 0, 0, 0]  #<\n",
     "bodies.b.quaternion"},
    {"missing_material",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    material: rubber  #<\n",
     "bodies.b.material"},
    {"plane_not_fixed", HEAD "  - name: floor\n    shape: {type: plane}  #<\n",
     "bodies.floor.fixed"},
    {"plane_fixed_false",
     HEAD "  - name: floor\n    fixed: false  #<\n    shape: {type: plane}\n",
     "bodies.floor.fixed"},
    {"fixed_body_moving",
     HEAD "  - name: wall\n    fixed: true\n    shape: {type: box, size: [1, "
          "1, 1]}\n"
          "    velocity: [1, 0, 0]  #<\n",
     "bodies.wall.velocity"},
    {"stiffness_negative",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {stiffness: -1}  #<\nbodies:\n" GROUND,
     "materials.default.stiffness"},
    {"stiffness_minus_inf",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {stiffness: -.inf}  #<\nbodies:\n" GROUND,
     "materials.default.stiffness"},
    {"friction_negative",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default:\n    friction: -0.5  #<\nbodies:\n" GROUND,
     "materials.default.friction"},
    {"dissipation_infinite",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {dissipation_time_scale: .inf}  #<\nbodies:\n" GROUND,
     "materials.default.dissipation_time_scale"},
    {"contact_model_unknown",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  felt:\n    model: hunt_crossley  #<\nbodies:\n" GROUND,
     "materials.felt.model"},
    {"contact_model_not_a_string",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {model: [lagged]}  #<\nbodies:\n" GROUND,
     "materials.default.model"},
    {"hunt_crossley_dissipation_negative",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {hunt_crossley_dissipation: -1}  #<\nbodies:\n" GROUND,
     "materials.default.hunt_crossley_dissipation"},
    {"hunt_crossley_dissipation_infinite",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {hunt_crossley_dissipation: .inf}  #<\nbodies:\n" GROUND,
     "materials.default.hunt_crossley_dissipation"},
    {"hunt_crossley_dissipation_too_large",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {hunt_crossley_dissipation: 1.0e5}  #<\nbodies:\n" GROUND,
     "materials.default.hunt_crossley_dissipation"},
    {"stiction_tolerance_zero",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default:\n    stiction_tolerance: 0  #<\nbodies:\n" GROUND,
     "materials.default.stiction_tolerance"},
    {"stiction_tolerance_too_small",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {stiction_tolerance: 1.0e-12}  #<\nbodies:\n" GROUND,
     "materials.default.stiction_tolerance"},
    {"stiction_tolerance_not_a_number",
     "time_step: 0.001\nduration: 1\nmaterials:\n"
     "  default: {stiction_tolerance: slow}  #<\nbodies:\n" GROUND,
     "materials.default.stiction_tolerance"},
    {"solver_model_unknown",
     "time_step: 0.001\nduration: 1\nsolver: {model: sapp}  "
     "#<\nbodies:\n" GROUND,
     "solver.model"},
    {"max_iterations_not_integer",
     "time_step: 0.001\nduration: 1\nsolver:\n  max_iterations: 2.5  #<\n"
     "bodies:\n" GROUND,
     "solver.max_iterations"},
    {"output_every_zero",
     "time_step: 0.001\nduration: 1\noutput: {every: 0}  #<\nbodies:\n" GROUND,
     "output.every"},
    {"grid_count_zero",
     HEAD "  - name: b\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    grid: {count: [1, 0, 2], spacing: [0, 0, 3]}  #<\n",
     "bodies.b.grid.count[1]"},
    {"duplicate_body_name",
     HEAD "  - {name: b, shape: {type: sphere, radius: 1}, mass: 1}\n"
          "  - {name: b, shape: {type: sphere, radius: 1}, mass: 1}  #<\n",
     "bodies.b.name"},
    {"grid_name_collision",
     HEAD "  - {name: b_0_0_1, shape: {type: sphere, radius: 1}, mass: 1}\n"
          "  - name: b  #<\n    shape: {type: sphere, radius: 1}\n    mass: 1\n"
          "    grid: {count: [1, 1, 2], spacing: [0, 0, 3]}\n",
     "bodies.b.name"},
    {"bad_body_name",
     HEAD "  - {name: a.b, shape: {type: sphere, radius: 1}, mass: 1}  #<\n",
     "bodies[0].name"},
    {"bodies_empty", "time_step: 0.001\nduration: 1\nbodies: []  #<\n",
     "bodies"},
    {"body_not_a_map", HEAD "  - just_a_string  #<\n", "bodies[0]"},
    {"document_is_a_list", "- time_step  #<\n- duration\n", ""},
    {"material_pair_unknown_material",
     "time_step: 0.001\nduration: 1\nmaterials: {rubber: {}}\n"
     "material_pairs:\n  - {materials: [rubber, felt]}  #<\nbodies:\n" GROUND,
     "material_pairs[0].materials"},
    {"material_pair_of_one_material",
     "time_step: 0.001\nduration: 1\nmaterials: {rubber: {}}\n"
     "material_pairs:\n  - {materials: [rubber], friction: 1}  #<\n"
     "bodies:\n" GROUND,
     "material_pairs[0].materials"},
    {"material_pair_twice",
     "time_step: 0.001\nduration: 1\nmaterials: {rubber: {}}\n"
     "material_pairs:\n  - {materials: [rubber, default], friction: 1}\n"
     "  - {materials: [default, rubber], friction: 2}  #<\nbodies:\n" GROUND,
     "material_pairs[1].materials"},
    {"material_pair_bad_value",
     "time_step: 0.001\nduration: 1\n"
     "material_pairs:\n  - {materials: [default, default], friction: -1}  "
     "#<\nbodies:\n" GROUND,
     "material_pairs[0].friction"},
    {"material_pair_unknown_key",
     "time_step: 0.001\nduration: 1\n"
     "material_pairs:\n  - {materials: [default, default], stifness: 1}  "
     "#<\nbodies:\n" GROUND,
     "material_pairs[0].stifness"},
};

using testing_util::MarkedLine;

class BadSceneTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(BadSceneTest, ErrorNamesFileLineAndField) {
  const ErrorCase& c = GetParam();
  const int line = MarkedLine(c.yaml);
  ASSERT_GT(line, 0) << "test case without a #< marker";
  const std::string path = testing_util::WriteTempScene(
      std::string("bad_") + c.name + ".yaml", c.yaml);
  try {
    LoadScene(path);
    FAIL() << "no SceneError for " << c.name;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find(path + ":" + std::to_string(line) + ":"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.field), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, BadSceneTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(BadScene, MalformedYamlNamesFileAndLine) {
  const std::string text =
      "time_step: 0.001\nduration: 1\nbodies:\n"
      "  - name: box\n    shape: {type: box, size: [1, 1, 1]\n    mass: 1\n";
  const std::string path = testing_util::WriteTempScene("malformed.yaml", text);
  try {
    LoadScene(path);
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
    // The unclosed flow map opens on line 5; yaml-cpp notices it there or
    // on the following lines.
    EXPECT_GE(e.line(), 5) << msg;
    EXPECT_LE(e.line(), 7) << msg;
    EXPECT_NE(msg.find(path + ":" + std::to_string(e.line()) + ":"),
              std::string::npos)
        << msg;
  }
}

TEST(BadScene, EmptyAndMissingFiles) {
  const std::string empty = testing_util::WriteTempScene("empty.yaml", "");
  try {
    LoadScene(empty);
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(empty), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
  }
}

// The message of a scene file that cannot be opened.
std::string OpenError(const std::string& path) {
  try {
    LoadScene(path);
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(e.field(), "");
    return e.what();
  }
  ADD_FAILURE() << path << " loaded";
  return "";
}

// A file that cannot be opened: the system's reason, and for a relative
// path the working directory it was looked up from.
TEST(BadScene, MissingFilesSayWhyAndWhere) {
  const std::string empty = testing_util::WriteTempScene("empty.yaml", "");
  const std::string missing = empty + ".does_not_exist";
  EXPECT_EQ(
      OpenError(missing),
      missing + ": cannot open the scene file: No such file or directory");
  // A path through a regular file.
  EXPECT_EQ(OpenError(empty + "/scene.yaml"),
            empty + "/scene.yaml: cannot open the scene file: Not a directory");
  const std::string cwd = std::filesystem::current_path().string();
  const std::string relative = "nosuch_" + std::to_string(::getpid()) + ".yaml";
  ASSERT_FALSE(std::filesystem::exists(relative));
  EXPECT_EQ(OpenError(relative),
            relative +
                ": cannot open the scene file: No such file or directory "
                "(relative to the working directory " +
                cwd + ")");
  if (::geteuid() != 0) {  // root reads anything
    const std::string secret = testing_util::WriteTempScene(
        "secret.yaml", "time_step: 0.001\nduration: 1\nbodies: []\n");
    std::filesystem::permissions(secret, std::filesystem::perms::none);
    EXPECT_EQ(OpenError(secret),
              secret + ": cannot open the scene file: Permission denied");
  }
}

// An unknown contact model's message lists the three models.
TEST(BadScene, UnknownContactModelListsTheChoices) {
  const std::string path = testing_util::WriteTempScene(
      "bad_model_choices.yaml",
      "time_step: 0.001\nduration: 1\nmaterials:\n"
      "  default: {model: coulomb}\nbodies:\n" GROUND);
  try {
    LoadScene(path);
    FAIL() << "no SceneError";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path + ":4:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("materials.default.model"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'coulomb'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sap | similar | lagged"), std::string::npos) << msg;
  }
}

TEST(BadScene, InfiniteStiffnessIsAllowed) {
  const Scene s = LoadSceneFromString(
      "time_step: 0.001\nduration: 1\nmaterials:\n"
      "  default: {stiffness: .inf}\nbodies:\n" GROUND,
      "inf.yaml");
  EXPECT_TRUE(std::isinf(s.materials[0].stiffness));
  EXPECT_GT(s.materials[0].stiffness, 0.0);
}

TEST(BadScene, SceneErrorIsARuntimeError) {
  EXPECT_THROW(LoadSceneFromString("a: [", "x.yaml"), std::runtime_error);
}

}  // namespace
}  // namespace sapcontact
