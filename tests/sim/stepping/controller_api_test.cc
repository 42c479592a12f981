// The controller API of TimeStepper (time_stepper.h, docs/embedding.md)
// against independent references:
//   NearestNames      edit distances by hand; nearest-first order, ties in
//                     the given order, "and N more"
//   ApplyWrench       body: one step from rest without gravity or contact
//                     gives v = dt f / m and w = dt I^-1 (r x f + tau), I the
//                     box's closed-form inertia turned to the world; link: the
//                     same step as the generalized force J' w with J from
//                     finite differences of link poses
//   LinkVelocity      central differences of LinkPose along v
//   LinkJacobian      finite differences of LinkPose
//   SetActuationTarget  the yaw joint settles at the override (no gravity
//                     load on it), back to the scene's target after Clear;
//                     the shoulder's effort at rest equals the gravity
//                     torque (RNEA at rest, an independent call)
//   ContactWrench     a box resting on the ground: m g up, zero torque about
//                     its centre; Contacts() impulses sum to m g dt
//   names             wrong names throw std::invalid_argument with the
//                     nearest candidates
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/multibody/multibody_tree.h"
#include "sapcontact/sim/scene/nearest_names.h"
#include "sapcontact/sim/scene/scene_loader.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "tests/sim/stepping/shipped_scene.h"

namespace sapcontact {
namespace {

using Vector6 = Eigen::Matrix<double, 6, 1>;

// The pusher arm (config/scenes/robots/pusher_arm.urdf) alone, gravity and
// actuation as given; loaded as if it were config/scenes/<file> so that
// the URDF path resolves.
Scene ArmScene(const std::string& gravity, const std::string& actuation,
               const std::string& extra_bodies = "") {
  const std::string path = scene_tests::FindSceneFile("arm_push");
  if (path.empty()) throw std::runtime_error("config/scenes not found");
  const std::string yaml =
      "time_step: 1.0e-3\n"
      "duration: 1.0\n"
      "gravity: " +
      gravity +
      "\n"
      "robots:\n"
      "  - name: pusher\n"
      "    urdf: robots/pusher_arm.urdf\n"
      "    base: {position: [0, 0, 0], fixed: true}\n"
      "    joints:\n"
      "      joint1: {position: 0.3, velocity: 0.7}\n"
      "      joint2: {position: 0.2, velocity: -0.4}\n"
      "      joint3: {position: -0.5, velocity: 0.9}\n" +
      actuation + "bodies:\n" +
      (extra_bodies.empty() ? "  - {name: post, fixed: true, position: [5, 5, "
                              "0], shape: {type: sphere, radius: 0.1}}\n"
                            : extra_bodies);
  return LoadSceneFromString(yaml, path);
}

// Rotation vector of R (the angle-axis log).
Vector3 Log(const Matrix3& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

// Robot r's state with q replaced by q + h dq (revolute joints only).
void SetPositions(TimeStepper* stepper, int r, const Eigen::VectorXd& q) {
  RobotState s = stepper->robot_states()[r];
  s.q = q;
  stepper->SetRobotState(r, s);
}

// 6 x nv Jacobian of the point p_L fixed on `link` by central differences
// of LinkPose: column i is ((p(q + h e_i) - p(q - h e_i)) / 2h,
// log(R(q + h e_i) R(q - h e_i)') / 2h).
Eigen::MatrixXd FiniteDifferenceJacobian(TimeStepper* stepper, int r,
                                         const std::string& link,
                                         const Vector3& p_L) {
  const RobotState saved = stepper->robot_states()[r];
  const int n = static_cast<int>(saved.v.size());
  const double h = 1e-6;
  Eigen::MatrixXd J(6, n);
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd q = saved.q;
    q(i) += h;
    SetPositions(stepper, r, q);
    const Eigen::Isometry3d plus = stepper->LinkPose(r, link);
    q(i) -= 2 * h;
    SetPositions(stepper, r, q);
    const Eigen::Isometry3d minus = stepper->LinkPose(r, link);
    J.col(i).head<3>() = (plus * p_L - minus * p_L) / (2 * h);
    J.col(i).tail<3>() =
        Log(plus.linear() * minus.linear().transpose()) / (2 * h);
  }
  stepper->SetRobotState(r, saved);
  return J;
}

// ------------------------------------------------------------ NearestNames

TEST(NearestNames, EditDistanceByHand) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
}

TEST(NearestNames, NearestFirstTiesInOrderAndMore) {
  const std::vector<std::string> names = {"block_0_1_2", "ground",
                                          "block_0_0_2", "block_1_0_2", "ball"};
  // blok_0_0_2: distance 1 to block_0_0_2, 2 to block_0_1_2 and
  // block_1_0_2 (tie: given order), more to the rest.
  EXPECT_EQ(NearestNames("blok_0_0_2", names, 3),
            "block_0_0_2, block_0_1_2, block_1_0_2 and 2 more");
  EXPECT_EQ(NearestNames("x", {}, 3), "(none)");
  EXPECT_EQ(NearestNames("x", {"a", "b"}, 0), "and 2 more");
  EXPECT_EQ(NearestNames("bal", {"ball"}, 5), "ball");
}

// ------------------------------------------------------------- ApplyWrench

constexpr char kFreeBox[] =
    "time_step: 1.0e-3\n"
    "duration: 1.0\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: {type: box, size: [0.1, 0.2, 0.3]}\n"
    "    mass: 2.0\n"
    "    position: [0, 0, 1]\n"
    "    rpy: [0.3, -0.2, 0.7]\n";

TEST(ControllerApi, BodyWrenchAtOffsetPointGivesTorqueRCrossF) {
  const Scene scene = LoadSceneFromString(kFreeBox, "free_box.yaml");
  const double m = 2.0, dt = scene.time_step;
  // Box inertia about its centre, body axes (closed form).
  const Vector3 d(m / 12 * (0.2 * 0.2 + 0.3 * 0.3),
                  m / 12 * (0.1 * 0.1 + 0.3 * 0.3),
                  m / 12 * (0.1 * 0.1 + 0.2 * 0.2));
  const Vector3 f(1.0, -2.0, 0.5), tau(0.01, 0.0, -0.02);
  const Vector3 p_B(0.05, -0.1, 0.12);  // a point on the box, body frame
  for (WrenchFrame frame : {WrenchFrame::kWorld, WrenchFrame::kBody}) {
    TimeStepper stepper(scene);
    const Matrix3 R = stepper.state()[0].pose.orientation.toRotationMatrix();
    stepper.ApplyWrench("box", f, tau, p_B, frame);
    stepper.Step();
    const Vector3 f_W = frame == WrenchFrame::kBody ? Vector3(R * f) : f;
    const Vector3 tau_W = frame == WrenchFrame::kBody ? Vector3(R * tau) : tau;
    const Matrix3 I_W = R * d.asDiagonal() * R.transpose();
    const Vector3 torque = tau_W + (R * p_B).cross(f_W);
    const Vector3 w = dt * I_W.inverse() * torque;
    const BodyState& s = stepper.state()[0];
    EXPECT_LT((s.velocity - dt * f_W / m).norm(), 1e-14);
    EXPECT_LT((s.angular_velocity - w).norm(), 1e-12 * w.norm())
        << s.angular_velocity.transpose() << " vs " << w.transpose();
    // The same through SetAppliedWrench with the torque about the centre.
    TimeStepper reference(scene);
    reference.SetAppliedWrench(0, f_W, torque);
    reference.Step();
    EXPECT_LT(
        (reference.state()[0].angular_velocity - s.angular_velocity).norm(),
        1e-15);
  }
}

TEST(ControllerApi,
     LinkWrenchEqualsGeneralizedForceOfFiniteDifferenceJacobian) {
  const Scene scene = ArmScene("[0, 0, 0]", "");
  TimeStepper a(scene), b(scene);
  const int r = a.FindRobot("pusher");
  const Vector3 p_L(0.4, 0.0, -0.15);  // near the pusher's tip
  const Vector3 f(3.0, -1.0, 2.0), tau(0.2, 0.1, -0.3);
  // Body frame: force and torque turn with link3.
  const Matrix3 R = a.LinkPose(r, "link3").linear();
  a.ApplyWrench("pusher/link3", f, tau, p_L, WrenchFrame::kBody);
  const Eigen::MatrixXd J = FiniteDifferenceJacobian(&b, r, "link3", p_L);
  Vector6 w;
  w << R * f, R * tau;
  b.SetAppliedGeneralizedForces(r, J.transpose() * w);
  a.Step();
  b.Step();
  const Eigen::VectorXd va = a.robot_states()[r].v, vb = b.robot_states()[r].v;
  // Velocities change by dt M^-1 J' w ~ 1e-3..1e-2 rad/s; the finite
  // differences are good to ~1e-9 relative.
  EXPECT_LT((va - vb).norm(), 1e-8)
      << va.transpose() << " vs " << vb.transpose();
  // Without the wrench the velocities differ (the test can fail).
  TimeStepper c(scene);
  c.Step();
  EXPECT_GT((c.robot_states()[r].v - va).norm(), 1e-3);
}

TEST(ControllerApi, LinkJacobianMatchesFiniteDifferences) {
  const Scene scene = ArmScene("[0, 0, -9.81]", "");
  TimeStepper stepper(scene);
  const int r = stepper.FindRobot("pusher");
  for (const std::string link : {"link1", "link2", "link3"}) {
    const Vector3 p_L(0.1, -0.05, 0.2);
    const Eigen::MatrixXd J = stepper.LinkJacobian(r, link, p_L);
    const Eigen::MatrixXd J_fd =
        FiniteDifferenceJacobian(&stepper, r, link, p_L);
    ASSERT_EQ(J.rows(), 6);
    ASSERT_EQ(J.cols(), 3);
    EXPECT_LT((J - J_fd).norm(), 1e-8) << link << "\n" << J << "\n" << J_fd;
  }
}

TEST(ControllerApi, LinkVelocityIsDerivativeOfLinkPose) {
  const Scene scene = ArmScene("[0, 0, -9.81]", "");
  TimeStepper stepper(scene);
  const int r = stepper.FindRobot("pusher");
  for (int i = 0; i < 50; ++i) stepper.Step();
  const RobotState s = stepper.robot_states()[r];
  ASSERT_GT(s.v.norm(), 0.1);
  for (const std::string link : {"link1", "link2", "link3"}) {
    const SpatialVelocity V = stepper.LinkVelocity(r, link);
    const double h = 1e-6;
    SetPositions(&stepper, r, s.q + h * s.v);
    const Eigen::Isometry3d plus = stepper.LinkPose(r, link);
    SetPositions(&stepper, r, s.q - h * s.v);
    const Eigen::Isometry3d minus = stepper.LinkPose(r, link);
    stepper.SetRobotState(r, s);
    const Vector3 v = (plus.translation() - minus.translation()) / (2 * h);
    const Vector3 w = Log(plus.linear() * minus.linear().transpose()) / (2 * h);
    EXPECT_LT((V.linear - v).norm(), 1e-7) << link;
    EXPECT_LT((V.angular - w).norm(), 1e-7) << link;
  }
}

// ------------------------------------------------------- actuation, joints

constexpr char kArmActuation[] =
    "    actuation:\n"
    "      joint1: {kp: 300.0, kd: 30.0, target: 0.0}\n"
    "      joint2: {kp: 3000.0, kd: 60.0, target: 0.2}\n"
    "      joint3: {kp: 1000.0, kd: 20.0, target: -0.5}\n";

TEST(ControllerApi, ActuationTargetOverrideMovesJointToTarget) {
  const Scene scene = ArmScene("[0, 0, -9.81]", kArmActuation);
  TimeStepper stepper(scene);
  const int r = stepper.FindRobot("pusher");
  EXPECT_EQ(stepper.JointNames(r),
            (std::vector<std::string>{"joint1", "joint2", "joint3"}));
  EXPECT_EQ(stepper.LinkNames(r),
            (std::vector<std::string>{"link0", "link1", "link2", "link3"}));
  stepper.SetActuationTarget(r, "joint1", 0.8);
  for (int i = 0; i < 3000; ++i) stepper.Step();
  // joint1 turns about the vertical: gravity does not load it, so the PD
  // settles at the target exactly (up to the decay of the transient:
  // kd/kp = 0.1 s time constant, 3 s).
  const int j1 = stepper.FindJoint(r, "joint1");
  const int j2 = stepper.FindJoint(r, "joint2");
  EXPECT_NEAR(stepper.JointPositions(r)(j1), 0.8, 1e-4);
  EXPECT_LT(stepper.JointVelocities(r).norm(), 1e-4);
  // At rest the shoulder's PD effort holds the arm against gravity: equal
  // to the gravity torque from the RNEA at (q, v = 0).
  const RobotState& s = stepper.robot_states()[r];
  Eigen::VectorXd g;
  CalcBiasForces(scene.robots[r].description.tree, s.q,
                 Eigen::VectorXd::Zero(3), scene.gravity, &g);
  const Eigen::VectorXd effort = stepper.JointEfforts(r);
  EXPECT_NEAR(effort(j2), g(1), 1e-3 * std::abs(g(1)));
  EXPECT_GT(std::abs(g(1)), 1.0);
  // Back to the scene's target 0.
  stepper.ClearActuationTargets(r);
  for (int i = 0; i < 3000; ++i) stepper.Step();
  EXPECT_NEAR(stepper.JointPositions(r)(j1), 0.0, 1e-4);
}

TEST(ControllerApi, JointTorqueIsAGeneralizedForceOnItsJoint) {
  const Scene scene = ArmScene("[0, 0, -9.81]", "");
  TimeStepper a(scene), b(scene);
  const int r = a.FindRobot("pusher");
  a.SetJointTorques(r, {{"joint2", 5.0}, {"joint3", -2.0}});
  b.SetAppliedGeneralizedForces(r, Eigen::Vector3d(0.0, 5.0, -2.0));
  for (int i = 0; i < 20; ++i) {
    a.Step();
    b.Step();
  }
  EXPECT_LT((a.robot_states()[r].v - b.robot_states()[r].v).norm(), 1e-14);
  const Eigen::VectorXd effort = a.JointEfforts(r);
  EXPECT_EQ(effort(0), 0.0);
  EXPECT_EQ(effort(1), 5.0);
  EXPECT_EQ(effort(2), -2.0);
  a.ClearAppliedForces();
  EXPECT_EQ(a.JointEfforts(r).norm(), 0.0);
}

// ----------------------------------------------------------------- contacts

constexpr char kRestingBox[] =
    "time_step: 1.0e-3\n"
    "duration: 1.0\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {type: plane}}\n"
    "  - name: box\n"
    "    shape: {type: box, size: [0.2, 0.1, 0.1]}\n"
    "    mass: 0.5\n"
    "    position: [0.3, -0.2, 0.05]\n";

TEST(ControllerApi, ContactWrenchOfRestingBoxIsItsWeight) {
  const Scene scene = LoadSceneFromString(kRestingBox, "resting_box.yaml");
  TimeStepper stepper(scene);
  for (int i = 0; i < 500; ++i) stepper.Step();
  const double m = 0.5, dt = scene.time_step;
  const Vector3 weight = -m * scene.gravity;
  const Wrench w = stepper.ContactWrench("box");
  EXPECT_LT((w.force - weight).norm(), 1e-6 * weight.norm())
      << w.force.transpose();
  // Symmetric box, symmetric support: no torque about the centre.
  EXPECT_LT(w.torque.norm(), 1e-6) << w.torque.transpose();
  // The ground receives the opposite force.
  const Wrench g = stepper.ContactWrench("ground");
  EXPECT_LT((g.force + w.force).norm(), 1e-12);
  // The reports: impulses on the box sum to m g dt; normals from the
  // ground into the box; points on the bottom face.
  const std::vector<ContactReport> contacts = stepper.Contacts();
  ASSERT_GE(contacts.size(), 3u);
  Vector3 sum = Vector3::Zero();
  for (const ContactReport& c : contacts) {
    EXPECT_EQ(c.body_a, "ground");
    EXPECT_EQ(c.body_b, "box");
    EXPECT_LT((c.normal - Vector3::UnitZ()).norm(), 1e-9);
    EXPECT_NEAR(c.point.z(), 0.0, 1e-3);
    EXPECT_LT(c.slip_speed, 1e-4);
    sum += c.impulse;
  }
  EXPECT_LT((sum - weight * dt).norm(), 1e-6 * weight.norm() * dt);
}

TEST(ControllerApi, ContactWrenchOfRobotLink) {
  // The arm pushed down onto a fixed block with its joints free: the
  // contact force on link3 is the same whether asked of the link or summed
  // from the reports, and opposite to the block's.
  const std::string block =
      "  - {name: block, fixed: true, position: [0.6, 0.3, -0.05], shape: "
      "{type: box, size: [0.8, 0.8, 0.2]}}\n";
  const Scene scene = ArmScene("[0, 0, -9.81]", "", block);
  TimeStepper stepper(scene);
  int touching = 0;
  for (int i = 0; i < 400; ++i) {
    stepper.Step();
    if (!stepper.Contacts().empty()) ++touching;
  }
  ASSERT_GT(touching, 0);
  const Wrench link = stepper.ContactWrench("pusher/link3");
  const Wrench fixed = stepper.ContactWrench("block");
  Vector3 sum = Vector3::Zero();
  for (const ContactReport& c : stepper.Contacts()) {
    if (c.body_b == "pusher/link3") sum += c.impulse / scene.time_step;
    if (c.body_a == "pusher/link3") sum -= c.impulse / scene.time_step;
  }
  EXPECT_GT(link.force.norm(), 1.0);  // the arm rests on the block
  EXPECT_LT((link.force - sum).norm(), 1e-12);
  EXPECT_LT((link.force + fixed.force).norm(), 1e-9);
}

// ---------------------------------------------------------------- state, names

TEST(ControllerApi, SetBodyStateMovesTheBody) {
  const Scene scene = LoadSceneFromString(kFreeBox, "free_box.yaml");
  TimeStepper stepper(scene);
  BodyState s;
  s.pose.position = Vector3(1, 2, 3);
  s.velocity = Vector3(0.5, 0, -1);
  stepper.SetBodyState(stepper.FindBody("box"), s);
  stepper.Step();
  EXPECT_LT((stepper.state()[0].pose.position -
             (Vector3(1, 2, 3) + scene.time_step * s.velocity))
                .norm(),
            1e-15);
  s.velocity.x() = NAN;
  EXPECT_THROW(stepper.SetBodyState(0, s), std::invalid_argument);
}

// The message of the invalid_argument `f` throws ("" if none).
template <typename F>
std::string Message(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ControllerApi, WrongNamesListNearestCandidates) {
  const std::string box =
      "  - {name: ground, fixed: true, shape: {type: plane}}\n"
      "  - {name: box, position: [0.8, 0, 0.05], shape: {type: box, size: "
      "[0.1, 0.1, 0.1]}, mass: 0.5}\n";
  const Scene scene =
      ArmScene("[0, 0, -9.81]",
               "    actuation:\n      joint1: {kp: 10.0, kd: 1.0}\n", box);
  TimeStepper stepper(scene);
  const int r = stepper.FindRobot("pusher");
  EXPECT_EQ(Message([&] { stepper.FindBody("bx"); }),
            "no body named 'bx' (nearest: box, ground)");
  EXPECT_EQ(Message([&] { stepper.FindRobot("pushr"); }),
            "no robot named 'pushr' (nearest: pusher)");
  EXPECT_NE(Message([&] {
              stepper.FindJoint(r, "joint4");
            }).find("(nearest: joint1, joint2, joint3)"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              stepper.LinkPose(r, "lnk3");
            }).find("no link named 'lnk3' (nearest: link3,"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              stepper.SetActuationTarget(r, "joint2", 0.1);
            }).find("no actuated joint named 'joint2' (actuated: joint1)"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              stepper.ApplyWrench("pusher", Vector3::UnitX(), Vector3::Zero());
            }).find("is a robot"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              stepper.ApplyWrench("pusher/link9", Vector3::UnitX(),
                                  Vector3::Zero());
            }).find("(nearest: link0,"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              stepper.ApplyWrench("ground", Vector3::UnitX(), Vector3::Zero());
            }).find("fixed"),
            std::string::npos);
  EXPECT_NE(
      Message([&] { stepper.ContactWrench("boxx"); }).find("(nearest: box,"),
      std::string::npos);
  EXPECT_NE(Message([&] { stepper.JointNames(3); }).find("no robot 3"),
            std::string::npos);
  EXPECT_THROW(stepper.SetJointTorque(r, "joint1", NAN), std::invalid_argument);
}

}  // namespace
}  // namespace sapcontact
