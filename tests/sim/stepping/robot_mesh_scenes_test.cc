// The shipped scenes with real robot models from Debian's dart-doc, whose
// collision geometry is meshes (each colliding as its convex hull):
//  - kr5_push: the KUKA KR5 sweeps its palm through two mesh objects on the
//    ground: they move along the sweep and come to rest, their weight
//    carried by the ground's contact impulses;
//  - wam_tray: the Barrett WAM (meshes through package_paths) holds its
//    forearm level with a mesh prism resting on it: the prism's weight is
//    carried by its contacts with the link, and it stays on it;
//  - drchubo_drop: the DRC-Hubo humanoid falls 1 m onto the ground and comes
//    to rest on it.
// Each loads every collision mesh (none dropped) and takes no failed step.
// The tests skip, saying so, where dart-doc is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sapcontact/sim/stepping/scene_collision.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using scene_tests::LoadShippedScene;

bool HaveDartDoc() {
  return std::filesystem::exists("/usr/share/doc/dart/data/urdf");
}
#define SKIP_WITHOUT_DART_DOC()                                               \
  if (!HaveDartDoc()) {                                                       \
    GTEST_SKIP() << "Debian's dart-doc is not installed (scripts/setup "      \
                    "installs it): /usr/share/doc/dart/data/urdf is missing"; \
  }

// The world-frame impulse [N s] of the last step's contacts on collider c
// (the impulse A applies on B is gamma in the contact frame of conventions.h).
Vector3 ContactImpulseOn(const TimeStepper& s, int c, int* touching = nullptr,
                         int* with = nullptr) {
  Vector3 p = Vector3::Zero();
  const std::vector<ContactPoint>& contacts = s.last_contacts();
  for (size_t k = 0; k < contacts.size(); ++k) {
    const ContactPoint& cp = contacts[k];
    if (cp.body_a != c && cp.body_b != c) continue;
    const Vector3 gamma = s.last_impulses().segment<3>(3 * k);
    const Vector3 on_b = ContactFrameRows(cp.normal).transpose() * gamma;
    p += cp.body_b == c ? on_b : Vector3(-on_b);
    if (touching != nullptr) ++*touching;
    if (with != nullptr) *with = cp.body_b == c ? cp.body_a : cp.body_b;
  }
  return p;
}

// Every collision shape of the (one) robot loaded, all meshes, of which
// `approximated` are not convex (docs/robots.md), each warned about.
void ExpectAllMeshesLoaded(const Scene& scene, int loaded, int approximated) {
  for (const RobotSpec& r : scene.robots) {
    const auto& counts = r.description.collision_counts;
    EXPECT_EQ(counts.loaded, loaded) << r.name;
    EXPECT_EQ(counts.dropped, 0) << r.name;
    EXPECT_EQ(counts.approximated, approximated) << r.name;
    EXPECT_EQ(static_cast<int>(scene.warnings.size()), approximated);
    for (const RobotGeometry& g : r.description.geometries) {
      EXPECT_EQ(g.shape.type, ShapeType::kMesh) << g.name;
    }
  }
}

TEST(RobotMeshScenes, Kr5PushesTwoMeshObjectsThatComeToRest) {
  SKIP_WITHOUT_DART_DOC();
  // The weight check needs the objects' impulses converged to better than
  // 1e-6 of their weight: the default tolerance is relative to the whole
  // problem's momenta, the arm's (ten times the objects' masses).
  const Scene scene =
      LoadShippedScene("kr5_push", {"solver.rel_tolerance=1e-9"});
  ExpectAllMeshesLoaded(scene, 7, 7);
  const int prism = scene.FindBody("prism"), wedge = scene.FindBody("wedge");
  const double g = scene.gravity.norm(), dt = scene.time_step;
  int robot_contacts = 0;
  Vector3 last_prism = Vector3::Zero(), last_wedge = Vector3::Zero();
  const SimulationSummary summary =
      scene_tests::Simulate(scene, [&](const TimeStepper& s, const StepInfo&) {
        for (const ContactPoint& c : s.last_contacts()) {
          const int n = static_cast<int>(scene.bodies.size());
          robot_contacts += (c.body_a >= n || c.body_b >= n) &&
                            (c.body_a == prism || c.body_b == prism ||
                             c.body_a == wedge || c.body_b == wedge);
        }
        last_prism = ContactImpulseOn(s, prism);
        last_wedge = ContactImpulseOn(s, wedge);
      });
  EXPECT_EQ(summary.failed_steps, 0) << summary.first_failure;
  EXPECT_GT(robot_contacts, 100);  // the palm pushed for many steps
  for (const int b : {prism, wedge}) {
    const Body& body = scene.bodies[b];
    const BodyState& end = summary.final_state[b];
    // Pushed counterclockwise along the sweep, still on the ground.
    const double turned =
        std::atan2(end.pose.position.y(), end.pose.position.x()) -
        std::atan2(body.pose.position.y(), body.pose.position.x());
    std::printf(
        "[kr5_push] %s turned %.3f rad about the base, moved %.3f m, "
        "final speed %.2e m/s\n",
        body.name.c_str(), turned,
        (end.pose.position - body.pose.position).norm(), end.velocity.norm());
    EXPECT_GT(turned, 0.2) << body.name;
    EXPECT_NEAR(end.pose.position.z(), body.pose.position.z(), 1e-3);
    EXPECT_LT(end.velocity.norm(), 1e-4) << body.name;
  }
  // At rest, the ground's impulses carry each object's weight m g dt.
  const double m_prism = scene.bodies[prism].mass;
  const double m_wedge = scene.bodies[wedge].mass;
  EXPECT_NEAR(last_prism.z(), m_prism * g * dt, 1e-6 * m_prism * g * dt);
  EXPECT_NEAR(last_wedge.z(), m_wedge * g * dt, 1e-6 * m_wedge * g * dt);
  EXPECT_LT(last_prism.head<2>().norm(), 1e-6 * m_prism * g * dt);
}

TEST(RobotMeshScenes, WamCarriesAMeshPrismOnItsForearm) {
  SKIP_WITHOUT_DART_DOC();
  const Scene scene =
      LoadShippedScene("wam_tray", {"solver.rel_tolerance=1e-9"});
  ExpectAllMeshesLoaded(scene, 8, 5);
  EXPECT_EQ(scene.robots[0].package_paths.at("herb_description"),
            "/usr/share/doc/dart/data/urdf/wam");
  const RobotDescription& wam = scene.robots[0].description;
  const int prism = scene.FindBody("prism");
  const int n_bodies = static_cast<int>(scene.bodies.size());
  const double m = scene.bodies[prism].mass;
  const double weight = m * scene.gravity.norm() * scene.time_step;
  Vector3 last = Vector3::Zero();
  int touching = 0, with = -1;
  // The prism's position in the frame of the link it touches, once the arm
  // has settled (0.2 s) and at the end.
  Vector3 settled = Vector3::Zero(), final = Vector3::Zero();
  const SimulationSummary summary =
      scene_tests::Simulate(scene, [&](const TimeStepper& s, const StepInfo&) {
        touching = 0;
        last = ContactImpulseOn(s, prism, &touching, &with);
        if (with < n_bodies) return;
        const int link = wam.geometries[with - n_bodies].link;
        const Vector3 in_link =
            s.LinkPoses(0)[link].inverse() * s.state()[prism].pose.position;
        if (s.steps_taken() == 200) settled = in_link;
        final = in_link;
      });
  EXPECT_EQ(summary.failed_steps, 0) << summary.first_failure;
  ASSERT_GT(touching, 0);
  ASSERT_GE(with, n_bodies);
  const std::string link =
      wam.tree.link(wam.geometries[with - n_bodies].link).name;
  std::printf(
      "[wam_tray] prism on link '%s' with %d contacts: impulse (%.3g, "
      "%.3g, %.9g) N s, m g dt = %.9g N s; moved %.3g m on the link "
      "after 0.2 s\n",
      link.c_str(), touching, last.x(), last.y(), last.z(), weight,
      (final - settled).norm());
  // Its contacts are with the forearm link /wam4 and carry its weight.
  EXPECT_EQ(link, "/wam4");
  EXPECT_NEAR(last.z(), weight, 1e-6 * weight);
  EXPECT_LT(last.head<2>().norm(), 1e-6 * weight);
  // It stays where it settled on the link, at rest.
  EXPECT_LT(summary.final_state[prism].velocity.norm(), 1e-6);
  EXPECT_LT((final - settled).norm(), 1e-4);
}

// docs/robots.md, "Collision filters": with only parent and child filtered,
// six pairs of DRC-Hubo's hulls overlap at the start, the hips' deepest.
TEST(RobotMeshScenes, DrcHuboOverlapsWithoutItsFilter) {
  SKIP_WITHOUT_DART_DOC();
  const std::vector<std::string> warnings =
      SelfCollisionOverlapWarnings(LoadShippedScene(
          "drchubo_drop", {"robots.hubo.collision_filter.adjacent=1"}));
  ASSERT_EQ(warnings.size(), 6u);
  EXPECT_NE(warnings[0].find("robot 'hubo': links 'Body_LHY' and 'Body_LHP' "
                             "overlap by 0.0824 m at the start"),
            std::string::npos)
      << warnings[0];
  EXPECT_TRUE(
      SelfCollisionOverlapWarnings(LoadShippedScene("drchubo_drop")).empty());
}

TEST(RobotMeshScenes, DrcHuboFallsOneMetreAndComesToRestOnTheGround) {
  SKIP_WITHOUT_DART_DOC();
  const Scene scene = LoadShippedScene("drchubo_drop");
  ExpectAllMeshesLoaded(scene, 52, 30);
  double lowest_frame = 1e9, kinetic_end = 0;
  std::vector<Eigen::Isometry3d> links;
  const SimulationSummary summary =
      scene_tests::Simulate(scene, [&](const TimeStepper& s, const StepInfo&) {
        links = s.LinkPoses(0);
        kinetic_end = s.KineticEnergy();
      });
  EXPECT_EQ(summary.failed_steps, 0) << summary.first_failure;
  double highest = -1e9;
  for (const Eigen::Isometry3d& X : links) {
    lowest_frame = std::min(lowest_frame, X.translation().z());
    highest = std::max(highest, X.translation().z());
  }
  // The energy of the fall, m g h with h = 1 m.
  const double mass = scene.robots[0].description.tree.TotalMass();
  const double fall = mass * scene.gravity.norm() * 1.0;
  std::printf(
      "[drchubo_drop] %.2f kg: lowest link frame %.4f m, highest "
      "%.4f m, kinetic energy %.3g J (%.2g of the fall's %.0f J) "
      "after %.1f s; Newton iterations mean %.2f\n",
      mass, lowest_frame, highest, kinetic_end, kinetic_end / fall, fall,
      scene.duration, summary.mean_newton_iterations);
  EXPECT_GT(lowest_frame, -0.03);
  EXPECT_LT(highest, 0.5);  // lying, not standing (the head is at 1.7 m)
  // At rest but for its undamped, unactuated neck and fingers swinging.
  EXPECT_LT(kinetic_end, 1e-4 * fall);
}

// Atlas on flat ground under the scene's implicit PD on every joint
// (actuation.default), self-collision on with its filter: no overlap
// warning, it stands upright (pelvis tilt below 30 degrees, height above
// 70 % of the start) for at least 1 s, the feet carry its weight, no
// failed step.
TEST(RobotMeshScenes, AtlasStandsUnderPdOnEveryJoint) {
  SKIP_WITHOUT_DART_DOC();
  const Scene scene = LoadShippedScene("atlas_stand");
  ASSERT_EQ(scene.robots[0].actuation.size(), 27u);
  TimeStepper stepper(scene);
  for (const std::string& w : stepper.scene().warnings) {
    EXPECT_EQ(w.find("overlap by"), std::string::npos) << w;
  }
  const double mass = scene.robots[0].description.tree.TotalMass();
  const double weight = mass * scene.gravity.norm() * scene.time_step;
  const double z0 = stepper.robot_states()[0].q(2);
  double upright = -1.0, support = 0.0;
  int failed = 0;
  const int steps = static_cast<int>(scene.duration / scene.time_step + 0.5);
  for (int k = 1; k <= steps; ++k) {
    failed += stepper.Step().failed;
    const Eigen::VectorXd& q = stepper.robot_states()[0].q;
    const Eigen::Quaterniond pelvis(q(3), q(4), q(5), q(6));
    const double tilt =
        std::acos(std::clamp((pelvis * Vector3::UnitZ()).z(), -1.0, 1.0));
    if (upright < 0 && (tilt > 30.0 * M_PI / 180.0 || q(2) < 0.7 * z0)) {
      upright = k * scene.time_step;
    }
    if (k == steps / 4) {  // 0.5 s: the contact impulses carry the weight
      support = ContactImpulseOn(stepper, scene.FindBody("ground")).z();
    }
  }
  if (upright < 0) upright = scene.duration;
  std::printf(
      "[atlas_stand] %.1f kg: upright for %.2f s of %.1f s; ground impulse "
      "at 0.5 s %.4f of m g dt\n",
      mass, upright, scene.duration, -support / weight);
  EXPECT_EQ(failed, 0);
  EXPECT_GE(upright, 1.0);
  EXPECT_NEAR(-support / weight, 1.0, 0.05);
}

}  // namespace
}  // namespace sapcontact
