// "--set dotted.key=value" overrides: they change exactly the named value,
// are validated like file values, and unknown keys fail.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "sapcontact/sim/scene/scene_loader.h"
#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace {

using testing_util::ScenePath;

const char* kOverrideScene = R"(time_step: 0.001
duration: 1
materials:
  rubber: {stiffness: 1.0e5, friction: 0.9}
bodies:
  - {name: ground, fixed: true, shape: {type: plane}}
  - name: box
    shape: {type: box, size: [0.2, 0.2, 0.2]}
    mass: 10
    position: [0, 0, 0.1]
    rpy: [0, 0, 0.5]
  - name: ball
    shape: {type: sphere, radius: 0.05}
    density: 1000
    material: rubber
    grid: {count: [2, 1, 1], spacing: [0.2, 0, 0]}
)";

Scene LoadWith(const std::vector<std::string>& overrides) {
  return LoadSceneFromString(kOverrideScene, "over.yaml", overrides);
}

TEST(SceneOverrides, ScalarsAndSections) {
  const Scene s = LoadWith(
      {"time_step=0.01", "duration=3", "solver.near_rigid_threshold=0.1",
       "solver.model=rigid", "output.every=5", "collision.margin=0.002",
       "integrator.robots=euler"});
  EXPECT_EQ(s.time_step, 0.01);
  EXPECT_EQ(s.duration, 3.0);
  // The file has no solver/output/collision sections: they are created.
  EXPECT_EQ(s.solver.near_rigid_threshold, 0.1);
  EXPECT_EQ(s.solver.model, SolverModel::kRigid);
  EXPECT_EQ(s.solver.friction_regularization, 1e-3);  // untouched default
  EXPECT_EQ(s.output.every, 5);
  EXPECT_EQ(s.collision.margin, 0.002);
  EXPECT_EQ(s.integrator.robots, RobotIntegrator::kEuler);
  EXPECT_EQ(LoadWith({}).integrator.robots, RobotIntegrator::kVariational);
  try {
    LoadWith({"integrator.robots=rk4"});
    ADD_FAILURE() << "loaded";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "integrator.robots: unknown value 'rk4' (expected "
                  "variational | euler)"),
              std::string::npos)
        << e.what();
  }
}

TEST(SceneOverrides, Materials) {
  const Scene s = LoadWith(
      {"materials.default.friction=0.3", "materials.rubber.stiffness=.inf"});
  EXPECT_EQ(s.materials[s.FindMaterial("default")].friction, 0.3);
  EXPECT_EQ(s.materials[s.FindMaterial("default")].stiffness, 1e6);
  EXPECT_TRUE(std::isinf(s.materials[s.FindMaterial("rubber")].stiffness));
  EXPECT_EQ(s.materials[s.FindMaterial("rubber")].friction, 0.9);
}

TEST(SceneOverrides, ContactModelsOfMaterials) {
  const Scene s = LoadWith({"materials.default.model=lagged",
                            "materials.rubber.model=similar",
                            "materials.rubber.hunt_crossley_dissipation=12.5",
                            "materials.default.stiction_tolerance=2e-3"});
  const Material& def = s.materials[s.FindMaterial("default")];
  const Material& rubber = s.materials[s.FindMaterial("rubber")];
  EXPECT_EQ(def.model, ContactModel::kLagged);
  EXPECT_EQ(def.stiction_tolerance, 2e-3);
  EXPECT_EQ(def.hunt_crossley_dissipation, 50.0);  // untouched default
  EXPECT_EQ(rubber.model, ContactModel::kSimilar);
  EXPECT_EQ(rubber.hunt_crossley_dissipation, 12.5);
  EXPECT_EQ(rubber.stiction_tolerance, 1e-4);
  EXPECT_EQ(rubber.friction, 0.9);  // the file's values stay
  // The box (default) on the ball (rubber): lagged wins.
  EXPECT_EQ(s.PairParameters(s.FindBody("box"), s.FindBody("ball_0_0_0")).model,
            ContactModel::kLagged);
}

TEST(SceneOverrides, BodiesByNameAndListElements) {
  const Scene s = LoadWith({"bodies.box.mass=5", "bodies.box.position.2=0.5",
                            "bodies.ball.angular_velocity.1=4",
                            "bodies.ball.shape.radius=0.04",
                            "bodies.ball.grid.count=[3,1,1]", "gravity.2=-1.62",
                            "bodies.box.velocity=[1, 2, 3]"});
  const Body& box = s.bodies[s.FindBody("box")];
  EXPECT_EQ(box.mass, 5.0);
  EXPECT_NEAR(box.inertia(0, 0), 5.0 * 0.08 / 12.0, 1e-15);
  EXPECT_EQ(box.pose.position, Vector3(0, 0, 0.5));
  EXPECT_EQ(box.velocity, Vector3(1, 2, 3));
  // Vectors the file leaves at their default get the default first.
  EXPECT_EQ(s.gravity, Vector3(0, 0, -1.62));
  EXPECT_EQ(s.bodies[s.FindBody("ball_1_0_0")].angular_velocity,
            Vector3(0, 4, 0));
  // The grid template's override reaches every copy.
  ASSERT_GE(s.FindBody("ball_2_0_0"), 0);
  for (int i = 0; i < 3; ++i) {
    const Body& b = s.bodies[s.FindBody("ball_" + std::to_string(i) + "_0_0")];
    EXPECT_EQ(b.shape.radius, 0.04);
    EXPECT_NEAR(b.pose.position.x(), 0.2 * i, 1e-15);
  }
}

TEST(SceneOverrides, ExclusiveFieldsReplaceEachOther) {
  const Scene s =
      LoadWith({"bodies.ball.mass=2", "bodies.box.quaternion=[1,0,0,0]"});
  const Body& ball = s.bodies[s.FindBody("ball_0_0_0")];
  EXPECT_EQ(ball.mass, 2.0);  // density removed
  const Body& box = s.bodies[s.FindBody("box")];
  EXPECT_TRUE(box.pose.orientation.isApprox(Eigen::Quaterniond::Identity()));
}

TEST(SceneOverrides, LaterOverridesWin) {
  const Scene s = LoadWith({"time_step=0.01", "time_step=0.02"});
  EXPECT_EQ(s.time_step, 0.02);
}

TEST(SceneOverrides, ShippedSceneAcceptsTheIssueExamples) {
  const Scene s =
      LoadScene(ScenePath("box_rest"),
                {"time_step=0.01", "solver.near_rigid_threshold=0.1",
                 "materials.default.friction=0.3"});
  EXPECT_EQ(s.time_step, 0.01);
  EXPECT_EQ(s.solver.near_rigid_threshold, 0.1);
  EXPECT_EQ(s.PairParameters(0, 1).friction, 0.3);
}

struct BadOverride {
  const char* assignment;
  const char* field;  // expected SceneError::field()
};

// Test names show the assignment (stable between builds, unlike the bytes
// of the pointers gtest would print otherwise).
void PrintTo(const BadOverride& c, std::ostream* os) { *os << c.assignment; }

class BadOverrideTest : public ::testing::TestWithParam<BadOverride> {};

TEST_P(BadOverrideTest, FailsNamingFileOverrideAndField) {
  const BadOverride& c = GetParam();
  try {
    LoadWith({c.assignment});
    FAIL() << "no SceneError for " << c.assignment;
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), "over.yaml");
    EXPECT_EQ(e.line(), 0) << msg;
    EXPECT_EQ(e.field(), c.field) << msg;
    EXPECT_NE(msg.find("over.yaml"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("--set ") + c.assignment), std::string::npos)
        << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, BadOverrideTest,
    ::testing::Values(
        // Keys that do not exist.
        BadOverride{"time_stpe=0.01", "time_stpe"},
        BadOverride{"solver.near_rigid=0.1", "solver.near_rigid"},
        BadOverride{"materials.default.frction=0.3",
                    "materials.default.frction"},
        BadOverride{"materials.steel.friction=0.3", "materials.steel"},
        BadOverride{"bodies.crate.mass=5", "bodies.crate"},
        BadOverride{"bodies.box.mas=5", "bodies.box.mas"},
        BadOverride{"bodies.ball_0_0_0.mass=5", "bodies.ball_0_0_0"},
        BadOverride{"bodies.box.shape.colour=red", "bodies.box.shape.colour"},
        BadOverride{"gravity.3=1", "gravity.3"},
        BadOverride{"gravity.x=1", "gravity.x"},
        BadOverride{"time_step.value=1", "time_step"},
        BadOverride{"bodies.box.angular_velocity.x=1",
                    "bodies.box.angular_velocity.x"},
        BadOverride{"bodies.box.shape.radius=1", "bodies.box.shape.radius"},
        BadOverride{"bodies.box.grid.count.0=2", "bodies.box.grid.count"},
        // Malformed assignments.
        BadOverride{"time_step", "time_step"},
        BadOverride{"time_step=", "time_step"}, BadOverride{"=1", ""},
        BadOverride{"solver..model=sap", "solver..model"},
        // Bad values, validated like file values.
        BadOverride{"time_step=-1", "time_step"},
        BadOverride{"time_step=fast", "time_step"},
        BadOverride{"bodies.box.mass=0", "bodies.box.mass"},
        BadOverride{"gravity=[0,-9.81]", "gravity"},
        BadOverride{"solver.max_iterations=1.5", "solver.max_iterations"},
        BadOverride{"bodies.box.shape.size.1=-0.2", "bodies.box.shape.size[1]"},
        BadOverride{"bodies.box.quaternion=[0,0,0,0]", "bodies.box.quaternion"},
        BadOverride{"materials.default.model=glide", "materials.default.model"},
        BadOverride{"materials.rubber.modle=lagged", "materials.rubber.modle"},
        BadOverride{"materials.default.model.x=1", "materials.default.model"},
        BadOverride{"materials.rubber.hunt_crossley_dissipation=-5",
                    "materials.rubber.hunt_crossley_dissipation"},
        BadOverride{"materials.default.stiction_tolerance=0",
                    "materials.default.stiction_tolerance"},
        BadOverride{"materials.default.stiction_tolerance=100",
                    "materials.default.stiction_tolerance"}));

}  // namespace
}  // namespace sapcontact
