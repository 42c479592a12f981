#include <cmath>
#include <limits>
#include <string>

#include "sapcontact/sim/robot/mjcf_reader.h"

namespace sapcontact {
namespace mjcf_loader_internal {

// <actuator>: motors, position and velocity servos, and <general>
// actuators that reduce to one of them (gain fixed, no activation
// dynamics, bias none or MuJoCo's servo bias) on hinge and slide joints
// become RobotActuators of the robot that has the joint; others are warned.
void MjcfReader::ReadActuators() {
  const double inf = std::numeric_limits<double>::infinity();
  for (const Element* section : doc_.Children(doc_.root(), "actuator")) {
    int index = 0;
    for (const Element* a : doc_.Children(section)) {
      const std::string tag = MjcfDocument::Tag(a);
      const std::string cls = doc_.ClassOf(a, "main");
      RobotActuator m;
      double motor_gain = 1.0;  // <general> motors: f = gain u
      if (tag == "motor") {
        m.kind = ActuatorKind::kMotor;
      } else if (tag == "position") {
        m.kind = ActuatorKind::kPosition;
        m.kp = doc_.Number(a, "kp", cls, 1.0);
        m.kv = doc_.Number(a, "kv", cls, 0.0);
        if (!(m.kp > 0.0) || !(m.kv >= 0.0)) {
          doc_.Fail(a, "kp must be > 0 and kv >= 0");
        }
      } else if (tag == "velocity") {
        m.kind = ActuatorKind::kVelocity;
        m.kv = doc_.Number(a, "kv", cls, 1.0);
        if (!(m.kv > 0.0)) doc_.Fail(a, "kv must be > 0");
      } else if (tag == "general") {
        // f = g0 u + b0 + b1 L + b2 Ldot, L = gear q.
        const std::string dyn = doc_.Text(a, "dyntype", cls, "none");
        const std::string gain = doc_.Text(a, "gaintype", cls, "fixed");
        const std::string bias = doc_.Text(a, "biastype", cls, "none");
        const VectorXd g =
            doc_.Numbers(a, "gainprm", cls, VectorXd::Unit(10, 0), 1);
        const VectorXd b =
            doc_.Numbers(a, "biasprm", cls, VectorXd::Zero(10), 1);
        const double b0 = b.size() > 0 ? b[0] : 0.0;
        const double b1 = b.size() > 1 ? b[1] : 0.0;
        const double b2 = b.size() > 2 ? b[2] : 0.0;
        bool reduces = dyn == "none" && gain == "fixed" && g[0] > 0.0;
        if (reduces && bias == "none") {
          m.kind = ActuatorKind::kMotor;
          motor_gain = g[0];
        } else if (reduces && bias == "affine" && b0 == 0.0 && b1 == -g[0] &&
                   b2 <= 0.0) {
          m.kind = ActuatorKind::kPosition;
          m.kp = g[0];
          m.kv = -b2;
        } else if (reduces && bias == "affine" && b0 == 0.0 && b1 == 0.0 &&
                   b2 == -g[0]) {
          m.kind = ActuatorKind::kVelocity;
          m.kv = g[0];
        } else {
          reduces = false;
        }
        if (!reduces) {
          model_.warnings.push_back(
              doc_.Where(a) +
              ": a <general> actuator that is not a motor, position or "
              "velocity servo (activation dynamics, a gain or bias other than "
              "u and a servo's) is not applied");
          ++index;
          continue;
        }
      } else {
        model_.warnings.push_back(doc_.Where(a) + ": <" + tag +
                                  "> actuators are not applied (motor, "
                                  "position, velocity and general are)");
        ++index;
        continue;
      }
      m.name = a->Attribute("name") ? a->Attribute("name")
                                    : "actuator" + std::to_string(index);
      ++index;
      const char* joint = a->Attribute("joint");
      if (joint == nullptr) {
        model_.warnings.push_back(
            doc_.Where(a) +
            ": an actuator on a tendon, site or body is not applied (joint "
            "actuators are)");
        continue;
      }
      int robot = -1;
      for (size_t r = 0; r < model_.robots.size() && robot < 0; ++r) {
        const int k = model_.robots[r].tree.FindJoint(joint);
        if (k >= 0) {
          robot = static_cast<int>(r);
          m.joint = k;
        }
      }
      if (robot < 0) {
        bool ball = false;
        for (const RobotDescription& d : model_.robots) {
          ball = ball || d.tree.FindJoint(std::string(joint) + "_x") >= 0;
        }
        if (ball) {
          model_.warnings.push_back(
              doc_.Where(a) + ": an actuator on the ball joint '" + joint +
              "' is not applied (hinge and slide "
              "actuators are)");
          continue;
        }
        doc_.Fail(a, "no hinge or slide joint named '" + std::string(joint) +
                         "' in a moving body");
      }
      const JointType type = model_.robots[robot].tree.joint(m.joint).type;
      if (type != JointType::kRevolute && type != JointType::kPrismatic) {
        doc_.Fail(a, "joint '" + std::string(joint) +
                         "' is not a hinge or slide joint");
      }
      const VectorXd gear =
          doc_.Numbers(a, "gear", cls, VectorXd::Unit(6, 0), 1);
      m.gear = gear[0] * motor_gain;
      if (!(m.gear != 0.0)) doc_.Fail(a, "gear must not be 0");
      // ctrllimited / forcelimited: true, false, or auto (a range given).
      const auto range = [&](const char* limited, const char* name, double* lo,
                             double* hi) {
        const int l = doc_.Bool(a, limited, cls, -1);
        if (l == 0 || (l == -1 && doc_.Find(a, name, cls) == nullptr)) {
          *lo = -inf;
          *hi = inf;
          return;
        }
        const VectorXd r = doc_.Numbers(a, name, cls, VectorXd::Zero(2));
        if (!(r[0] < r[1])) {
          doc_.Fail(a,
                    std::string(name) + " needs lower < upper when " + limited);
        }
        *lo = r[0];
        *hi = r[1];
      };
      range("ctrllimited", "ctrlrange", &m.ctrl_lower, &m.ctrl_upper);
      range("forcelimited", "forcerange", &m.force_lower, &m.force_upper);
      // The force range bounds gain u: in units of u for the gear above.
      m.force_lower /= motor_gain;
      m.force_upper /= motor_gain;
      if (m.kind != ActuatorKind::kMotor && m.force_lower != -m.force_upper) {
        model_.warnings.push_back(
            doc_.Where(a) +
            ": the servo's forcerange is not symmetric: its effort is "
            "limited to the larger bound's magnitude");
      }
      model_.robots[robot].actuators.push_back(m);
    }
  }
}

// MjcfModel::robot_filter_pairs: each body and its parent, and the
// <contact><exclude body1 body2> pairs of bodies of one robot; excludes
// across robots or with the world are warned (filters are per robot).
void MjcfReader::ReadContactExcludes() {
  // MuJoCo never lets a body touch its parent.
  model_.robot_filter_pairs.assign(model_.robots.size(), {});
  for (const MjcfBody& b : model_.bodies) {
    if (b.robot < 0 || b.parent < 0) continue;
    const MjcfBody& p = model_.bodies[b.parent];
    if (p.robot == b.robot && p.link != b.link) {
      model_.robot_filter_pairs[b.robot].emplace_back(p.link, b.link);
    }
  }
  for (const Element* section : doc_.Children(doc_.root(), "contact")) {
    for (const Element* e : doc_.Children(section, "exclude")) {
      int index[2];
      const char* names[2] = {e->Attribute("body1"), e->Attribute("body2")};
      for (int k = 0; k < 2; ++k) {
        if (names[k] == nullptr) doc_.Fail(e, "needs body1 and body2");
        index[k] = -1;
        for (size_t b = 0; b < model_.bodies.size(); ++b) {
          if (model_.bodies[b].name == names[k]) index[k] = b;
        }
        if (index[k] < 0 && std::string(names[k]) != "world") {
          doc_.Fail(e, "no body named '" + std::string(names[k]) + "'");
        }
      }
      if (index[0] >= 0 && index[1] >= 0 &&
          model_.bodies[index[0]].robot >= 0 &&
          model_.bodies[index[0]].robot == model_.bodies[index[1]].robot) {
        const MjcfBody& a = model_.bodies[index[0]];
        const MjcfBody& b = model_.bodies[index[1]];
        if (a.link != b.link) {
          model_.robot_filter_pairs[a.robot].emplace_back(a.link, b.link);
        }
      } else {
        model_.warnings.push_back(
            doc_.Where(e) +
            ": an exclude between different robots or with the world is not "
            "applied (excludes within one robot are)");
      }
    }
  }
}

// <keyframe><key>: qpos and qvel in MuJoCo's layout (qpos_slots_) into
// each robot's q and v; ctrl, act, mpos and mquat are warned.
void MjcfReader::ReadKeyframes() {
  int nq = 0, nv = 0;
  for (const QposSlot& s : qpos_slots_) {
    nq += s.kind == QposSlot::kFree ? 7 : s.kind == QposSlot::kBall ? 4 : 1;
    nv += s.kind == QposSlot::kFree ? 6 : s.kind == QposSlot::kBall ? 3 : 1;
  }
  for (const Element* section : doc_.Children(doc_.root(), "keyframe")) {
    for (const Element* e : doc_.Children(section, "key")) {
      MjcfKeyframe key;
      key.name = e->Attribute("name")
                     ? e->Attribute("name")
                     : "key" + std::to_string(model_.keyframes.size());
      key.time = doc_.Number(e, "time", "", 0.0);
      for (const RobotDescription& d : model_.robots) {
        key.q.push_back(d.initial_positions);
        key.v.push_back(VectorXd::Zero(d.tree.num_velocities()));
      }
      const auto numbers = [&](const char* name, int n) {
        if (e->Attribute(name) == nullptr) return VectorXd();
        const VectorXd x = doc_.Numbers(e, name, "", VectorXd::Zero(n));
        return x;
      };
      const VectorXd qpos = numbers("qpos", nq);
      const VectorXd qvel = numbers("qvel", nv);
      int iq = 0, iv = 0;
      for (const QposSlot& s : qpos_slots_) {
        const MultibodyTree& tree = model_.robots[s.robot].tree;
        VectorXd& q = key.q[s.robot];
        VectorXd& v = key.v[s.robot];
        const int pq = tree.position_start(s.joint);
        const int pv = tree.velocity_start(s.joint);
        if (s.kind == QposSlot::kFree) {
          if (qpos.size() > 0) q.segment<7>(pq) = qpos.segment<7>(iq);
          const Eigen::Quaterniond R(q[pq + 3], q[pq + 4], q[pq + 5],
                                     q[pq + 6]);
          if (qvel.size() > 0) {
            v.segment<3>(pv) = qvel.segment<3>(iv);
            // MuJoCo's angular velocity is in the body frame, ours in the
            // world frame.
            v.segment<3>(pv + 3) =
                R.normalized() * Vector3d(qvel.segment<3>(iv + 3));
          }
          iq += 7, iv += 6;
        } else if (s.kind == QposSlot::kBall) {
          // R = Rx(a) Ry(b) Rz(c): the three hinges' angles.
          Matrix3d R = Matrix3d::Identity();
          if (qpos.size() > 0) {
            R = Eigen::Quaterniond(qpos[iq], qpos[iq + 1], qpos[iq + 2],
                                   qpos[iq + 3])
                    .normalized()
                    .toRotationMatrix();
            const Vector3d abc = R.eulerAngles(0, 1, 2);
            q.segment<3>(pq) = abc;
          }
          if (qvel.size() > 0 && qvel.segment<3>(iv).norm() > 0.0) {
            // Body-frame angular velocity = E (a', b', c').
            const Vector3d abc = q.segment<3>(pq);
            const Matrix3d Rz =
                Eigen::AngleAxisd(abc[2], Vector3d::UnitZ()).toRotationMatrix();
            const Matrix3d Ry =
                Eigen::AngleAxisd(abc[1], Vector3d::UnitY()).toRotationMatrix();
            Matrix3d E;
            E.col(0) = Rz.transpose() * Ry.transpose() * Vector3d::UnitX();
            E.col(1) = Rz.transpose() * Vector3d::UnitY();
            E.col(2) = Vector3d::UnitZ();
            if (std::abs(std::cos(abc[1])) < 1e-9) {
              doc_.Fail(e, "qvel of ball joint '" +
                               std::string(s.e->Attribute("name")
                                               ? s.e->Attribute("name")
                                               : "") +
                               "' at the hinges' gimbal lock (y angle +-90 "
                               "degrees)");
            }
            v.segment<3>(pv) = E.inverse() * Vector3d(qvel.segment<3>(iv));
          }
          iq += 4, iv += 3;
        } else {
          if (qpos.size() > 0) q[pq] = qpos[iq];
          if (qvel.size() > 0) v[pv] = qvel[iv];
          iq += 1, iv += 1;
        }
      }
      for (const char* unused : {"ctrl", "act", "mpos", "mquat"}) {
        if (e->Attribute(unused) != nullptr) {
          model_.warnings.push_back(doc_.Where(e) + ": " + unused +
                                    " of a keyframe is not applied (qpos "
                                    "and qvel are)");
        }
      }
      model_.keyframes.push_back(std::move(key));
    }
  }
}

// <equality><joint joint1 joint2 polycoef>: with a linear polynomial,
// y - y0 = c0 + c1 (x - x0) (y0, x0 the joints' qpos0, our q's refs) is the
// coupling q_1 = c1 q_2 + y0 + c0 - c1 x0 of two hinge or slide joints of
// one robot (a near-rigid row, as URDF's mimic); others are warned.
void MjcfReader::ReadJointEqualities() {
  for (const Element* section : doc_.Children(doc_.root(), "equality")) {
    for (const Element* e : doc_.Children(section, "joint")) {
      const char* j1 = e->Attribute("joint1");
      const char* j2 = e->Attribute("joint2");
      if (j1 == nullptr) doc_.Fail(e, "needs joint1");
      const std::string cls = doc_.ClassOf(e, "main");
      const VectorXd c = doc_.Numbers(
          e, "polycoef", cls, (VectorXd(5) << 0, 1, 0, 0, 0).finished(), 1);
      if (j2 == nullptr || c.tail(c.size() - 2).cwiseAbs().maxCoeff() > 0.0) {
        model_.warnings.push_back(
            doc_.Where(e) +
            ": a joint equality without joint2 or with a nonlinear polycoef "
            "is not applied (linear couplings of two joints are)");
        continue;
      }
      int robot = -1, follower = -1, leader = -1;
      for (size_t r = 0; r < model_.robots.size(); ++r) {
        const MultibodyTree& t = model_.robots[r].tree;
        if (t.FindJoint(j1) >= 0 && t.FindJoint(j2) >= 0) {
          robot = static_cast<int>(r);
          follower = t.FindJoint(j1);
          leader = t.FindJoint(j2);
        }
      }
      const MultibodyTree* tree =
          robot >= 0 ? &model_.robots[robot].tree : nullptr;
      const auto scalar = [&](int j) {
        const JointType type = tree->joint(j).type;
        return type == JointType::kRevolute || type == JointType::kPrismatic;
      };
      if (robot < 0 || !scalar(follower) || !scalar(leader) ||
          follower == leader) {
        model_.warnings.push_back(
            doc_.Where(e) +
            ": a joint equality between joints that are not two hinge or "
            "slide joints of one robot is not applied");
        continue;
      }
      RobotDescription& d = model_.robots[robot];
      for (const JointCoupling& other : d.couplings) {
        if (other.follower == follower) {
          doc_.Fail(e, "joint '" + std::string(j1) +
                           "' already follows another joint equality");
        }
      }
      // The leader must not follow the follower, however indirectly.
      for (int at = leader, hops = 0; at >= 0; ++hops) {
        if (at == follower || hops > tree->num_links()) {
          doc_.Fail(e, "the joint equalities form a loop through '" +
                           std::string(j1) + "'");
        }
        int next = -1;
        for (const JointCoupling& other : d.couplings) {
          if (other.follower == at) next = other.leader;
        }
        at = next;
      }
      const double y0 = d.initial_positions[tree->position_start(follower)];
      const double x0 = d.initial_positions[tree->position_start(leader)];
      JointCoupling coupling;
      coupling.follower = follower;
      coupling.leader = leader;
      coupling.multiplier = c[1];
      coupling.offset = y0 + c[0] - c[1] * x0;
      d.couplings.push_back(coupling);
    }
  }
}

// <tendon><fixed>: L = sum coef q of hinge and slide joints of one robot.
// A range (limited, or auto with a range) holds L within it; stiffness,
// damping and frictionloss are warned; a tendon without any of them does
// nothing in MuJoCo either (unless an actuator pulls it: warned there).
void MjcfReader::ReadTendons() {
  for (const Element* section : doc_.Children(doc_.root(), "tendon")) {
    for (const Element* e : doc_.Children(section)) {
      const std::string tag = MjcfDocument::Tag(e);
      if (tag != "fixed") {
        model_.warnings.push_back(doc_.Where(e) + ": <tendon><" + tag +
                                  "> is not applied (fixed tendons are)");
        continue;
      }
      const std::string cls = doc_.ClassOf(e, "main");
      const char* name = e->Attribute("name");
      TendonLimit t;
      t.name = name != nullptr ? name : "tendon";
      int robot = -1;
      for (const Element* j : doc_.Children(e, "joint")) {
        const char* joint = j->Attribute("joint");
        if (joint == nullptr) doc_.Fail(j, "needs joint");
        int r_of = -1, index = -1;
        for (size_t r = 0; r < model_.robots.size(); ++r) {
          const int k = model_.robots[r].tree.FindJoint(joint);
          if (k >= 0) r_of = static_cast<int>(r), index = k;
        }
        if (r_of < 0) {
          doc_.Fail(j, "no joint named '" + std::string(joint) + "'");
        }
        const JointType type = model_.robots[r_of].tree.joint(index).type;
        if ((type != JointType::kRevolute && type != JointType::kPrismatic) ||
            (robot >= 0 && r_of != robot)) {
          doc_.Fail(j,
                    "a fixed tendon's joints must be hinge or slide "
                    "joints of one robot");
        }
        robot = r_of;
        t.joints.push_back(index);
        t.coefficients.push_back(doc_.Number(j, "coef", "", 1.0));
      }
      if (robot < 0) doc_.Fail(e, "a fixed tendon needs at least one <joint>");
      for (const char* a : {"stiffness", "damping", "frictionloss"}) {
        if (doc_.Number(e, a, cls, 0.0) != 0.0) {
          model_.warnings.push_back(doc_.Where(e) + ": the tendon's " + a +
                                    " is not applied (its range is)");
        }
      }
      const int limited = doc_.Bool(e, "limited", cls, -1);
      const bool has_range = doc_.Find(e, "range", cls) != nullptr;
      if (!(limited == 1 || (limited == -1 && has_range))) continue;
      const VectorXd range = doc_.Numbers(e, "range", cls, VectorXd::Zero(2));
      if (!(range[0] < range[1])) {
        doc_.Fail(e, "a limited tendon needs range with lower < upper");
      }
      t.lower = range[0];
      t.upper = range[1];
      model_.robots[robot].tendon_limits.push_back(std::move(t));
    }
  }
}

// <equality><weld> and <connect> between a body of a robot and a static
// body (MuJoCo's mocap bodies are static here): the robot's body is held
// where the file puts it relative to the static one, near-rigidly. Others
// (two robots, one robot's own bodies) are warned.
void MjcfReader::ReadWeldsAndConnects() {
  // World poses of the robots' links at qpos0.
  std::vector<std::vector<Isometry3d>> X_WL(model_.robots.size());
  for (size_t r = 0; r < model_.robots.size(); ++r) {
    CalcLinkPoses(model_.robots[r].tree, model_.robots[r].initial_positions,
                  &X_WL[r]);
  }
  const auto world_pose = [&](const MjcfBody& b) {
    return b.robot < 0 ? ToIsometry(b.body_in_link)
                       : X_WL[b.robot][b.link] * ToIsometry(b.body_in_link);
  };
  for (const Element* section : doc_.Children(doc_.root(), "equality")) {
    for (const Element* e : doc_.Children(section)) {
      const std::string tag = MjcfDocument::Tag(e);
      if (tag != "weld" && tag != "connect") continue;
      const char* names[2] = {e->Attribute("body1"), e->Attribute("body2")};
      if (names[0] == nullptr) doc_.Fail(e, "needs body1");
      int index[2] = {-1, -1};
      for (int k = 0; k < 2; ++k) {
        if (names[k] == nullptr) continue;  // body2 omitted: the world
        for (size_t b = 0; b < model_.bodies.size(); ++b) {
          if (model_.bodies[b].name == names[k]) index[k] = static_cast<int>(b);
        }
        if (index[k] < 0) {
          doc_.Fail(e, "no body named '" + std::string(names[k]) + "'");
        }
      }
      const auto robot_of = [&](int k) {
        return index[k] < 0 ? -1 : model_.bodies[index[k]].robot;
      };
      if ((robot_of(0) >= 0) == (robot_of(1) >= 0)) {
        model_.warnings.push_back(
            doc_.Where(e) + ": a " + tag +
            " between two moving bodies (or two static ones) is not applied "
            "(one of a robot's bodies to a static body is)");
        continue;
      }
      const std::string cls = doc_.ClassOf(e, "main");
      if (doc_.Owner(e, "solref", cls) != nullptr ||
          doc_.Owner(e, "solimp", cls) != nullptr) {
        model_.warnings.push_back(doc_.Where(e) +
                                  ": solref and solimp of an equality are "
                                  "not applied (it holds near-rigidly)");
      }
      const int moving = robot_of(0) >= 0 ? 0 : 1;
      const MjcfBody& mb = model_.bodies[index[moving]];
      const Isometry3d X_W1 = index[0] < 0
                                  ? Isometry3d::Identity()
                                  : world_pose(model_.bodies[index[0]]);
      const Isometry3d X_W2 = index[1] < 0
                                  ? Isometry3d::Identity()
                                  : world_pose(model_.bodies[index[1]]);
      LinkWeld w;
      w.name = std::string(tag) + " " +
               (e->Attribute("name") != nullptr ? e->Attribute("name")
                                                : names[moving]);
      w.link = mb.link;
      const Isometry3d X_WL0 = X_WL[mb.robot][mb.link];
      if (tag == "connect") {
        // anchor in body1's frame; the point coincides with body2's at
        // qpos0.
        const Eigen::Vector3d a_W =
            X_W1 * Eigen::Vector3d(
                       doc_.Numbers(e, "anchor", "", Eigen::Vector3d::Zero()));
        w.orientation = false;
        w.X_LF = Isometry3d::Identity();
        w.X_LF.translation() = X_WL0.inverse() * a_W;
        w.X_WT = Isometry3d::Identity();
        w.X_WT.translation() = a_W;
      } else {
        // relpose: body2 in body1's frame; a zero quaternion (MuJoCo's
        // default) takes their relative pose at qpos0.
        const VectorXd rel = doc_.Numbers(
            e, "relpose", cls, (VectorXd(7) << 0, 1, 0, 0, 0, 0, 0).finished());
        Isometry3d X_W2_held = X_W2;
        if (rel.tail<4>().norm() > 0.0) {
          Isometry3d X_12 = Isometry3d::Identity();
          X_12.translation() = rel.head<3>();
          X_12.linear() = Eigen::Quaterniond(rel[3], rel[4], rel[5], rel[6])
                              .normalized()
                              .toRotationMatrix();
          X_W2_held = X_W1 * X_12;
        }
        // F: the moving body's frame; T: where the file holds it.
        w.X_LF = ToIsometry(mb.body_in_link);
        if (moving == 1) {
          w.X_WT = X_W2_held;
        } else {
          // body1 moves: held at X_W2 X_12^-1 = X_W2 (X_W1^-1 X_W2_held)^-1.
          w.X_WT = X_W2 * (X_W1.inverse() * X_W2_held).inverse();
        }
      }
      model_.robots[mb.robot].welds.push_back(w);
    }
  }
}

}  // namespace mjcf_loader_internal
}  // namespace sapcontact
