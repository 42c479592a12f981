// Loading the shipped scenes and well-formed inputs: values, defaults, grid
// expansion, orientations, materials.
#include "sapcontact/sim/scene/scene_loader.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/common/constants.h"
#include "tests/sim/scene/scene_test_util.h"

namespace sapcontact {
namespace {

using testing_util::ScenePath;

using test_constants::kPi;

const char* kShipped[] = {"box_rest", "box_slide", "incline",
                          "stack",    "pile",      "mass_ratio"};

TEST(SceneLoader, EveryShippedSceneLoadsAndIsConsistent) {
  for (const char* name : kShipped) {
    SCOPED_TRACE(name);
    const Scene s = LoadScene(ScenePath(name));
    EXPECT_GT(s.time_step, 0.0);
    EXPECT_GT(s.duration, 0.0);
    ASSERT_FALSE(s.bodies.empty());
    ASSERT_GE(s.FindMaterial("default"), 0);
    int free_bodies = 0;
    for (const Body& b : s.bodies) {
      EXPECT_NEAR(b.pose.orientation.norm(), 1.0, 1e-14);
      if (b.fixed) continue;
      ++free_bodies;
      EXPECT_GT(b.mass, 0.0);
      // Positive definite inertia satisfying the triangle inequality.
      const Vector3 d = b.inertia.diagonal();
      EXPECT_GT(d.minCoeff(), 0.0);
      EXPECT_LE(d.maxCoeff(), d.sum() - d.maxCoeff() + 1e-15);
    }
    EXPECT_GT(free_bodies, 0);
  }
}

TEST(SceneLoader, BoxRestValues) {
  const Scene s = LoadScene(ScenePath("box_rest"));
  EXPECT_EQ(s.source, ScenePath("box_rest"));
  EXPECT_DOUBLE_EQ(s.time_step, 1e-3);
  EXPECT_DOUBLE_EQ(s.duration, 2.0);
  EXPECT_EQ(s.gravity, Vector3(0, 0, -9.81));
  ASSERT_EQ(s.bodies.size(), 2u);
  const Body& ground = s.bodies[0];
  EXPECT_EQ(ground.name, "ground");
  EXPECT_TRUE(ground.fixed);
  EXPECT_EQ(ground.shape.type, ShapeType::kPlane);
  EXPECT_EQ(ground.mass, 0.0);
  const Body& box = s.bodies[s.FindBody("box")];
  EXPECT_EQ(box.shape.type, ShapeType::kBox);
  EXPECT_EQ(box.shape.size, Vector3(0.2, 0.2, 0.2));
  EXPECT_DOUBLE_EQ(box.mass, 10.0);
  // Cube: I = m s^2 / 6.
  EXPECT_NEAR(box.inertia(0, 0), 10.0 * 0.04 / 6.0, 1e-15);
  EXPECT_EQ(box.pose.position, Vector3(0, 0, 0.1));
  EXPECT_EQ(box.material, "default");
  // Same material on both bodies: k/2, 2 tau_d, mu (docs/scenes.md).
  const ContactParameters p = s.PairParameters(0, 1);
  EXPECT_DOUBLE_EQ(p.stiffness, 5.0e5);
  EXPECT_DOUBLE_EQ(p.dissipation_time_scale, 0.02);
  EXPECT_DOUBLE_EQ(p.friction, 0.5);
}

TEST(SceneLoader, InclineGravityIsTwentyDegreesFromVertical) {
  const Scene s = LoadScene(ScenePath("incline"));
  const double angle = std::atan2(s.gravity.x(), -s.gravity.z());
  EXPECT_NEAR(angle, 20.0 * kPi / 180.0, 1e-9);
  EXPECT_NEAR(s.gravity.norm(), 9.81, 1e-8);
  EXPECT_EQ(s.gravity.y(), 0.0);
  // The documented 30 degree override.
  const Scene s30 =
      LoadScene(ScenePath("incline"), {"gravity=[4.905,0,-8.495709211]"});
  EXPECT_NEAR(std::atan2(s30.gravity.x(), -s30.gravity.z()), kPi / 6.0, 1e-9);
  EXPECT_NEAR(s30.gravity.norm(), 9.81, 1e-8);
}

TEST(SceneLoader, StackGridExpansion) {
  const Scene s = LoadScene(ScenePath("stack"));
  ASSERT_EQ(s.bodies.size(), 11u);
  for (int k = 0; k < 10; ++k) {
    const int i = s.FindBody("box_0_0_" + std::to_string(k));
    ASSERT_EQ(i, k + 1);
    EXPECT_NEAR(s.bodies[i].pose.position.z(), 0.05 + 0.1 * k, 1e-15);
    EXPECT_EQ(s.bodies[i].pose.position.head<2>(), Eigen::Vector2d::Zero());
  }
  EXPECT_EQ(s.FindBody("box"), -1);  // the template is replaced
}

TEST(SceneLoader, GridNamesOrderAndPositions) {
  const std::string yaml = R"(
time_step: 0.001
duration: 1
bodies:
  - name: ball
    shape: {type: sphere, radius: 0.05}
    density: 1000
    position: [1, 2, 3]
    grid: {count: [2, 3, 4], spacing: [0.1, 0.2, 0.3]}
  - name: after
    shape: {type: sphere, radius: 0.05}
    mass: 1
)";
  const Scene s = LoadSceneFromString(yaml, "grid.yaml");
  ASSERT_EQ(s.bodies.size(), 2u * 3u * 4u + 1u);
  int n = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k, ++n) {
        const Body& b = s.bodies[n];
        EXPECT_EQ(b.name, "ball_" + std::to_string(i) + "_" +
                              std::to_string(j) + "_" + std::to_string(k));
        EXPECT_TRUE(b.pose.position.isApprox(
            Vector3(1 + 0.1 * i, 2 + 0.2 * j, 3 + 0.3 * k), 1e-15));
        EXPECT_NEAR(b.mass, 1000.0 * 4.0 / 3.0 * kPi * 0.05 * 0.05 * 0.05,
                    1e-12);
      }
    }
  }
  EXPECT_EQ(s.bodies.back().name, "after");
}

TEST(SceneLoader, PileHasHundredsOfBodiesInsideTheBin) {
  const Scene s = LoadScene(ScenePath("pile"));
  int spheres = 0, boxes = 0;
  for (const Body& b : s.bodies) {
    if (b.fixed) continue;
    (b.shape.type == ShapeType::kSphere ? spheres : boxes)++;
    const Aabb box = ComputeAabb(b.shape, b.pose);
    EXPECT_GT(box.lower.x(), -0.3);
    EXPECT_LT(box.upper.x(), 0.3);
    EXPECT_GT(box.lower.y(), -0.3);
    EXPECT_LT(box.upper.y(), 0.3);
    EXPECT_GT(box.lower.z(), 0.0);
  }
  EXPECT_EQ(spheres, 183);
  EXPECT_EQ(boxes, 100);
}

// solver.contact_model is the model of every material that names none, the
// built-in default included; a material's own model wins.
TEST(SceneLoader, ContactModelOfTheSceneAndOfMaterials) {
  const std::string yaml = R"(
time_step: 0.002
duration: 0.5
solver: {contact_model: sap}
materials:
  rubber: {friction: 0.9}
  soft: {model: similar}
bodies:
  - {name: ball, shape: {type: sphere, radius: 0.1}, mass: 2}
)";
  const Scene s = LoadSceneFromString(yaml, "models.yaml");
  EXPECT_EQ(s.solver.contact_model, ContactModel::kSap);
  ASSERT_EQ(s.materials.size(), 3u);
  for (const Material& m : s.materials) {
    EXPECT_EQ(m.model,
              m.name == "soft" ? ContactModel::kSimilar : ContactModel::kSap)
        << m.name;
  }
  // An override reaches the materials too; a bad value names the field.
  const Scene lagged =
      LoadSceneFromString(yaml, "models.yaml", {"solver.contact_model=lagged"});
  EXPECT_EQ(lagged.materials[0].model, ContactModel::kLagged);
  EXPECT_EQ(lagged.materials[2].model, ContactModel::kSimilar);
  try {
    LoadSceneFromString(yaml, "models.yaml", {"solver.contact_model=soft"});
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(e.field(), "solver.contact_model");
    EXPECT_NE(std::string(e.what()).find("sap | similar | lagged"),
              std::string::npos)
        << e.what();
  }
}

TEST(SceneLoader, DefaultsOfOptionalSections) {
  const Scene s = LoadSceneFromString(R"(
time_step: 0.002
duration: 0.5
bodies:
  - {name: ball, shape: {type: sphere, radius: 0.1}, mass: 2}
)",
                                      "defaults.yaml");
  EXPECT_EQ(s.gravity, Vector3(0, 0, -9.81));
  EXPECT_EQ(s.solver.model, SolverModel::kSap);
  EXPECT_EQ(s.solver.near_rigid_threshold, 1.0);
  EXPECT_EQ(s.solver.friction_regularization, 1e-3);
  EXPECT_EQ(s.solver.rel_tolerance, 1e-6);
  EXPECT_EQ(s.solver.abs_tolerance, 1e-14);
  EXPECT_EQ(s.solver.max_iterations, 100);
  EXPECT_EQ(s.solver.line_search, LineSearchMethod::kExact);
  EXPECT_EQ(s.solver.linear_solver, LinearSolverKind::kAuto);
  EXPECT_TRUE(s.solver.stiction_prediction);
  EXPECT_TRUE(MakeSapParameters(s.solver).stiction_prediction);
  EXPECT_TRUE(s.solver.supported_delassus_estimate);
  EXPECT_TRUE(
      MakeSapParameters(s.solver).regularization.supported_delassus_estimate);
  EXPECT_EQ(MakeSapParameters(s.solver).line_search_slope_ratio,
            SapSolverParameters().line_search_slope_ratio);
  EXPECT_EQ(s.output.every, 10);
  EXPECT_EQ(s.collision.margin, 1e-3);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "default");
  EXPECT_EQ(s.materials[0].stiffness, 1e6);
  EXPECT_EQ(s.materials[0].dissipation_time_scale, 0.01);
  EXPECT_EQ(s.materials[0].friction, 0.5);
  EXPECT_EQ(s.solver.contact_model, ContactModel::kLagged);
  EXPECT_EQ(s.materials[0].model, ContactModel::kLagged);
  EXPECT_EQ(s.materials[0].hunt_crossley_dissipation, 50.0);
  EXPECT_EQ(s.materials[0].stiction_tolerance, 1e-4);
  const Body& b = s.bodies[0];
  EXPECT_FALSE(b.fixed);
  EXPECT_EQ(b.pose.position, Vector3::Zero());
  EXPECT_TRUE(b.pose.orientation.isApprox(Eigen::Quaterniond::Identity()));
  EXPECT_EQ(b.velocity, Vector3::Zero());
  EXPECT_EQ(b.angular_velocity, Vector3::Zero());
  EXPECT_EQ(b.material_index, 0);
}

TEST(SceneLoader, SolverSectionAndMaterials) {
  const Scene s = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
solver: {model: rigid, near_rigid_threshold: 0.5, friction_regularization: 0.01,
         rel_tolerance: 1e-8, abs_tolerance: 0, max_iterations: 7,
         line_search: backtracking, linear_solver: cholmod,
         stiction_prediction: false, line_search_slope_ratio: 0,
         supported_delassus_estimate: false}
materials:
  steel: {stiffness: .inf, dissipation_time_scale: 0, friction: 0.2}
  default: {friction: 0.8}
bodies:
  - {name: floor, fixed: true, shape: {type: plane}, material: steel}
  - {name: ball, shape: {type: sphere, radius: 0.1}, mass: 2}
)",
                                      "solver.yaml");
  EXPECT_EQ(s.solver.model, SolverModel::kRigid);
  EXPECT_EQ(s.solver.near_rigid_threshold, 0.5);
  EXPECT_EQ(s.solver.friction_regularization, 0.01);
  EXPECT_EQ(s.solver.rel_tolerance, 1e-8);
  EXPECT_EQ(s.solver.abs_tolerance, 0.0);
  EXPECT_EQ(s.solver.max_iterations, 7);
  EXPECT_EQ(s.solver.line_search, LineSearchMethod::kBacktracking);
  EXPECT_EQ(s.solver.linear_solver, LinearSolverKind::kCholmod);
  EXPECT_FALSE(s.solver.stiction_prediction);
  EXPECT_FALSE(MakeSapParameters(s.solver).stiction_prediction);
  EXPECT_EQ(MakeSapParameters(s.solver).line_search_slope_ratio, 0.0);
  EXPECT_FALSE(
      MakeSapParameters(s.solver).regularization.supported_delassus_estimate);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "default");
  EXPECT_EQ(s.materials[0].friction, 0.8);
  EXPECT_EQ(s.materials[0].stiffness, 1e6);  // unspecified: Material default
  EXPECT_TRUE(std::isinf(s.materials[1].stiffness));
  EXPECT_EQ(s.bodies[0].material, "steel");
  EXPECT_EQ(s.bodies[0].material_index, 1);
  // Rigid steel in series with the default material: the default's k.
  const ContactParameters p = s.PairParameters(0, 1);
  EXPECT_EQ(p.stiffness, 1e6);
  EXPECT_EQ(p.dissipation_time_scale, 0.01);
  EXPECT_NEAR(p.friction, 2 * 0.2 * 0.8 / 1.0, 1e-15);
}

// materials.<name>.model, hunt_crossley_dissipation, stiction_tolerance,
// and their combination for each pair of bodies (sim/scene/material.h).
TEST(SceneLoader, ContactModelsOfMaterials) {
  const Scene s = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
materials:
  felt: {model: similar, stiffness: 1.0e5, hunt_crossley_dissipation: 20,
         stiction_tolerance: 1.0e-3}
  steel: {model: lagged, stiffness: .inf, hunt_crossley_dissipation: 5}
  default: {model: sap}
bodies:
  - {name: floor, fixed: true, shape: {type: plane}, material: steel}
  - {name: pad, shape: {type: sphere, radius: 0.1}, mass: 2, material: felt,
     position: [0, 0, 1]}
  - {name: ball, shape: {type: sphere, radius: 0.1}, mass: 2, position: [1, 0, 1]}
)",
                                      "models.yaml");
  const Material& felt = s.materials[s.FindMaterial("felt")];
  EXPECT_EQ(felt.model, ContactModel::kSimilar);
  EXPECT_EQ(felt.hunt_crossley_dissipation, 20.0);
  EXPECT_EQ(felt.stiction_tolerance, 1e-3);
  const Material& steel = s.materials[s.FindMaterial("steel")];
  EXPECT_EQ(steel.model, ContactModel::kLagged);
  EXPECT_EQ(steel.stiction_tolerance, 1e-4);  // unspecified: the default
  EXPECT_EQ(s.materials[s.FindMaterial("default")].model, ContactModel::kSap);
  // felt on steel: lagged wins; rigid steel leaves felt's d; larger v_s.
  const ContactParameters pad_floor = s.PairParameters(1, 0);
  EXPECT_EQ(pad_floor.model, ContactModel::kLagged);
  EXPECT_EQ(pad_floor.hunt_crossley_dissipation, 20.0);
  EXPECT_EQ(pad_floor.stiction_tolerance, 1e-3);
  // felt on default (sap): similar; d of springs in series.
  const ContactParameters pad_ball = s.PairParameters(1, 2);
  EXPECT_EQ(pad_ball.model, ContactModel::kSimilar);
  EXPECT_NEAR(pad_ball.hunt_crossley_dissipation,
              (1e6 * 20 + 1e5 * 50) / (1e6 + 1e5), 1e-12);
  // default with default: sap.
  EXPECT_EQ(s.PairParameters(2, 2).model, ContactModel::kSap);
}

TEST(SceneLoader, RpyAndQuaternionGiveTheSameRotation) {
  const Scene s = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
bodies:
  - {name: a, shape: {type: box, size: [1, 2, 3]}, mass: 1, rpy: [0, 0, 1.5707963267948966]}
  - {name: b, shape: {type: box, size: [1, 2, 3]}, mass: 1, quaternion: [2, 0, 0, 2]}
  - {name: c, shape: {type: box, size: [1, 2, 3]}, mass: 1, rpy: [0.3, -0.2, 0.1]}
)",
                                      "rot.yaml");
  // A quarter turn about z, from rpy and from an unnormalized quaternion.
  const Matrix3 ra = s.bodies[0].pose.rotation();
  const Matrix3 rb = s.bodies[1].pose.rotation();
  EXPECT_TRUE(ra.isApprox(rb, 1e-14));
  EXPECT_TRUE((ra * Vector3::UnitX()).isApprox(Vector3::UnitY(), 1e-14));
  // rpy convention: R = Rz(yaw) Ry(pitch) Rx(roll).
  const double r = 0.3, p = -0.2, y = 0.1;
  Matrix3 rx, ry, rz;
  rx << 1, 0, 0, 0, std::cos(r), -std::sin(r), 0, std::sin(r), std::cos(r);
  ry << std::cos(p), 0, std::sin(p), 0, 1, 0, -std::sin(p), 0, std::cos(p);
  rz << std::cos(y), -std::sin(y), 0, std::sin(y), std::cos(y), 0, 0, 0, 1;
  EXPECT_TRUE(s.bodies[2].pose.rotation().isApprox(rz * ry * rx, 1e-14));
}

TEST(SceneLoader, CapsuleAndVelocities) {
  const Scene s = LoadSceneFromString(R"(
time_step: 0.001
duration: 1
bodies:
  - name: rod
    shape: {type: capsule, radius: 0.05, length: 0.4}
    mass: 3
    velocity: [1, 2, 3]
    angular_velocity: [0.1, 0.2, 0.3]
)",
                                      "rod.yaml");
  const Body& b = s.bodies[0];
  EXPECT_EQ(b.shape.type, ShapeType::kCapsule);
  EXPECT_EQ(b.shape.radius, 0.05);
  EXPECT_EQ(b.shape.length, 0.4);
  EXPECT_EQ(b.velocity, Vector3(1, 2, 3));
  EXPECT_EQ(b.angular_velocity, Vector3(0.1, 0.2, 0.3));
  EXPECT_EQ(b.mass, 3.0);
}

}  // namespace
}  // namespace sapcontact
