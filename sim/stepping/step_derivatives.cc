// TimeStepper::CalcStepDerivatives (sim/stepping/step_derivatives.h,
// docs/theory.md §21).
#include "sapcontact/sim/stepping/step_derivatives.h"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sapcontact/sim/collision/contact_motion.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/time_stepper.h"

namespace sapcontact {

// Everything the problem's construction at a perturbed state reads or
// writes that Step() keeps between steps.
struct TimeStepper::SavedStep {
  std::vector<BodyState> state;
  std::vector<RobotState> robot_state;
  std::vector<std::vector<Eigen::Isometry3d>> link_poses, step_link_poses;
  std::vector<Eigen::MatrixXd> robot_M;
  std::vector<Eigen::VectorXd> robot_momentum;
  SapProblem problem;
  std::vector<ContactPoint> contacts;
  Eigen::VectorXd guess;
};

namespace {

Matrix3 Skew(const Vector3& a) {
  Matrix3 K;
  K << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return K;
}

// exp(phi) as a rotation matrix and the left Jacobian of SO(3) at phi:
// exp(phi + d) = exp(J_l(phi) d) exp(phi) to first order.
Matrix3 LeftJacobian(const Vector3& phi) {
  const double t = phi.norm();
  const Matrix3 K = Skew(phi);
  if (t < 1e-4) return Matrix3::Identity() + 0.5 * K + K * K / 6.0;
  return Matrix3::Identity() + (1.0 - std::cos(t)) / (t * t) * K +
         (t - std::sin(t)) / (t * t * t) * K * K;
}

Matrix3 Exp(const Vector3& phi) {
  const double t = phi.norm();
  if (t == 0.0) return Matrix3::Identity();
  return Eigen::AngleAxisd(t, phi / t).toRotationMatrix();
}

// log(R1 R0') as a rotation vector (world axes).
Vector3 RotationDifference(const Eigen::Quaterniond& q1,
                           const Eigen::Quaterniond& q0) {
  const Eigen::AngleAxisd aa(q1 * q0.conjugate());
  double angle = aa.angle();
  if (angle > M_PI) angle -= 2.0 * M_PI;
  return angle * aa.axis();
}

Eigen::Quaterniond FloatingQuaternionOf(const Eigen::VectorXd& q, int qs) {
  return Eigen::Quaterniond(q[qs + 3], q[qs + 4], q[qs + 5], q[qs + 6]);
}

// The state after a step, as the step's position update makes it.
struct NextState {
  std::vector<Pose> poses;         // per body tree
  std::vector<Eigen::VectorXd> q;  // per robot tree
  Eigen::VectorXd v;
};

// Whether the contacts at a state perturbed by h are the nominal ones moved
// a little: the same pairs in the same order, each point and normal within
// 1e3 h (a smooth perturbation moves them by O(h); collision detection
// choosing other points, as faces in exact alignment do when turned, moves
// them by the faces' size).
// `only`: the indices to check (every contact when null).
bool ContactsFollow(const std::vector<ContactPoint>& moved,
                    const std::vector<ContactPoint>& nominal, double h,
                    const std::vector<int>* only = nullptr) {
  if (moved.size() != nominal.size()) return false;
  const double tolerance = 1e3 * h;
  const size_t count = only ? only->size() : moved.size();
  for (size_t i = 0; i < count; ++i) {
    const size_t k = only ? (*only)[i] : i;
    const ContactPoint& a = moved[k];
    const ContactPoint& b = nominal[k];
    if (a.body_a != b.body_a || a.body_b != b.body_b ||
        (a.position - b.position).norm() > tolerance ||
        (a.normal - b.normal).norm() > tolerance) {
      return false;
    }
  }
  return true;
}

}  // namespace

TimeStepper::SavedStep TimeStepper::SaveStep() const {
  SavedStep s;
  s.state = state_;
  s.robot_state = robot_state_;
  s.link_poses = link_poses_;
  s.step_link_poses = step_link_poses_;
  s.robot_M = robot_M_;
  s.robot_momentum = robot_momentum_;
  s.problem = problem_;
  s.contacts = contacts_;
  s.guess = guess_;
  return s;
}

void TimeStepper::RestoreStep(const SavedStep& s, bool with_problem) {
  state_ = s.state;
  robot_state_ = s.robot_state;
  link_poses_ = s.link_poses;
  step_link_poses_ = s.step_link_poses;
  robot_M_ = s.robot_M;
  robot_momentum_ = s.robot_momentum;
  guess_ = s.guess;
  if (!with_problem) return;
  problem_ = s.problem;
  contacts_ = s.contacts;
}

const SapProblem& TimeStepper::ProblemAtCurrentState() {
  StepInfo info;
  UpdateColliderPoses();
  Collide(&info);
  BuildProblem();
  return problem_;
}

void TimeStepper::Perturb(const SavedStep& saved, int nv, int i, double e) {
  // The state only: the caller builds the contacts and the problem again.
  RestoreStep(saved, /*with_problem=*/false);
  const bool velocity = i >= nv;
  if (velocity) i -= nv;
  // The tree of coordinate i and its index there.
  int t = static_cast<int>(tree_offsets_.size()) - 1;
  while (tree_offsets_[t] > i) --t;
  const int j = i - tree_offsets_[t];
  if (t < static_cast<int>(body_of_tree_.size())) {
    BodyState& s = state_[body_of_tree_[t]];
    if (velocity) {
      (j < 3 ? s.velocity : s.angular_velocity)(j % 3) += e;
    } else if (j < 3) {
      s.pose.position(j) += e;
    } else {
      Vector3 turn = Vector3::Zero();
      turn(j - 3) = e;
      s.pose.orientation =
          (Eigen::Quaterniond(Exp(turn)) * s.pose.orientation).normalized();
    }
    return;
  }
  const int r = robot_of_tree_[t];
  const MultibodyTree& mb = scene_.robots[r].description.tree;
  RobotState& st = robot_state_[r];
  const Eigen::VectorXd unit = Eigen::VectorXd::Unit(st.v.size(), j);
  if (velocity) {
    // The carried momentum p = M_prev v moves with v (M_prev held).
    st.v(j) += e;
    robot_momentum_[r] += e * robot_M_[r].col(j);
  } else {
    Eigen::VectorXd q_next;
    IntegratePositions(mb, st.q, unit, e, &q_next);
    st.q = q_next;
    CalcLinkPoses(mb, st.q, &link_poses_[r]);
  }
}

StepDerivatives TimeStepper::CalcStepDerivatives(
    const StepDerivativeOptions& options) {
  if (scene_.solver.model != SolverModel::kSap) {
    throw std::invalid_argument(
        "CalcStepDerivatives: the SAP model only (solver.model is the rigid "
        "QP)");
  }
  if (num_sleeping_ > 0) {
    throw std::invalid_argument(
        "CalcStepDerivatives: " + std::to_string(num_sleeping_) +
        " bodies are asleep (solver.sleep); wake them first (WakeUp)");
  }
  const bool fd = options.method == StepDerivativeMethod::kFiniteDifferences;
  auto pick = [](double given, double implicit, double whole, bool fd) {
    if (!(given >= 0) || !std::isfinite(given)) {
      throw std::invalid_argument(
          "CalcStepDerivatives: central-difference steps must be finite and "
          ">= 0 (0: the default)");
    }
    return given > 0 ? given : fd ? whole : implicit;
  };
  const bool central = options.central_differences;
  const double hq = pick(options.position_step, 1e-7, 1e-5, fd);
  const double hv = pick(options.velocity_step, 1e-7, 1e-5, fd);
  const double hu = pick(options.force_step, 1e-4, 1e-2, fd);
  const double dt = scene_.time_step;

  const SavedStep saved = SaveStep();
  StepDerivatives out;
  try {
    const SapProblem P0 = ProblemAtCurrentState();
    const std::vector<ContactPoint> contacts0 = contacts_;
    const SavedStep at_start = SaveStep();  // the problem built, as Step()
    const int nv = P0.num_velocities();
    SapSolverParameters params = sap_.parameters();
    params.rel_tolerance = options.rel_tolerance;
    params.threads = 1;
    SapSolver solver(params);
    auto solve = [&](const SapProblem& p, const Eigen::VectorXd* guess) {
      const SapSolverResults r = solver.Solve(p, guess);
      if (r.status != SapSolverStatus::kConverged) {
        Fail("step derivatives: the step's contact solve did not converge (" +
             std::string(ToString(r.status)) + ")");
      }
      return r;
    };
    const SapSolverResults r0 = solve(P0, &guess_);

    // Coordinate names.
    for (int body : body_of_tree_) {
      for (const char* c : {"x", "y", "z", "rx", "ry", "rz"}) {
        out.coordinates.push_back(scene_.bodies[body].name + "/" + c);
      }
    }
    for (size_t t = body_of_tree_.size(); t < P0.trees.size(); ++t) {
      const int r = robot_of_tree_[t];
      const MultibodyTree& mb = scene_.robots[r].description.tree;
      std::vector<std::string> names(mb.num_velocities());
      for (int i = 0; i < mb.num_links(); ++i) {
        const int vs = mb.velocity_start(i);
        const std::string prefix = scene_.robots[r].name + "/";
        switch (mb.joint(i).type) {
          case JointType::kFixed:
            break;
          case JointType::kRevolute:
          case JointType::kPrismatic:
            names[vs] = prefix + mb.joint(i).name;
            break;
          case JointType::kFloating: {
            int k = 0;
            for (const char* c : {"x", "y", "z", "rx", "ry", "rz"}) {
              names[vs + k++] = prefix + mb.link(i).name + "/" + c;
            }
            break;
          }
        }
      }
      out.coordinates.insert(out.coordinates.end(), names.begin(), names.end());
    }

    // PD targets: one per actuation row, in problem order (robots in scene
    // order).
    for (size_t r = 0; r < scene_.robots.size(); ++r) {
      const RobotSpec& spec = scene_.robots[r];
      if (tree_of_robot_[r] < 0) continue;
      for (const JointActuation& act : spec.actuation) {
        out.targets.push_back(spec.name + "/" +
                              spec.description.tree.joint(act.joint).name +
                              " target");
      }
    }
    const int num_targets = static_cast<int>(out.targets.size());
    // Row j of the actuation rows: its constraint and row.
    auto target_of = [&](SapProblem* p, int j) -> double& {
      for (ActuationConstraint& a : p->actuation) {
        if (j < a.target.size()) return a.target(j);
        j -= static_cast<int>(a.target.size());
      }
      throw std::logic_error("CalcStepDerivatives: no actuation row");
    };

    // The position update x+ from the current state and velocities v
    // (IntegrateBodies, IntegrateRobots), and its tangent difference.
    auto next_state = [&](const Eigen::VectorXd& v) {
      NextState x;
      x.v = v;
      for (size_t t = 0; t < body_of_tree_.size(); ++t) {
        const BodyState& s = state_[body_of_tree_[t]];
        const Pose p = AdvancePose(s.pose, v.segment<3>(6 * t),
                                   v.segment<3>(6 * t + 3), dt);
        x.poses.push_back(p);
      }
      for (size_t t = body_of_tree_.size(); t < P0.trees.size(); ++t) {
        const int r = robot_of_tree_[t];
        const MultibodyTree& mb = scene_.robots[r].description.tree;
        Eigen::VectorXd q_next;
        IntegratePositions(mb, robot_state_[r].q,
                           v.segment(tree_offsets_[t], mb.num_velocities()), dt,
                           &q_next);
        x.q.push_back(q_next);
      }
      return x;
    };
    auto difference = [&](const NextState& a, const NextState& b) {
      Eigen::VectorXd d(2 * nv);
      d.tail(nv) = a.v - b.v;
      for (size_t t = 0; t < body_of_tree_.size(); ++t) {
        d.segment<3>(6 * t) = a.poses[t].position - b.poses[t].position;
        d.segment<3>(6 * t + 3) =
            RotationDifference(a.poses[t].orientation, b.poses[t].orientation);
      }
      for (size_t t = body_of_tree_.size(); t < P0.trees.size(); ++t) {
        const int r = robot_of_tree_[t];
        const MultibodyTree& mb = scene_.robots[r].description.tree;
        const Eigen::VectorXd& qa = a.q[t - body_of_tree_.size()];
        const Eigen::VectorXd& qb = b.q[t - body_of_tree_.size()];
        for (int i = 0; i < mb.num_links(); ++i) {
          const int qs = mb.position_start(i);
          const int vs = tree_offsets_[t] + mb.velocity_start(i);
          switch (mb.joint(i).type) {
            case JointType::kFixed:
              break;
            case JointType::kRevolute:
            case JointType::kPrismatic:
              d(vs) = qa(qs) - qb(qs);
              break;
            case JointType::kFloating:
              d.segment<3>(vs) = qa.segment<3>(qs) - qb.segment<3>(qs);
              d.segment<3>(vs + 3) = RotationDifference(
                  FloatingQuaternionOf(qa, qs), FloatingQuaternionOf(qb, qs));
              break;
          }
        }
      }
      return d;
    };
    // u enters only v*: a generalized force e_j on tree t moves v*_t by
    // dt A_t^-1 e_j.
    // Each tree's A factored once (the force and velocity columns).
    std::vector<Eigen::LLT<Eigen::MatrixXd>> tree_llt(P0.trees.size());
    std::vector<char> factored(P0.trees.size(), 0);
    auto llt_of = [&](int t) -> const Eigen::LLT<Eigen::MatrixXd>& {
      if (!factored[t]) {
        tree_llt[t].compute(P0.trees[t].A);
        factored[t] = 1;
      }
      return tree_llt[t];
    };
    auto force_direction = [&](int j) {
      Eigen::VectorXd d = Eigen::VectorXd::Zero(nv);
      int t = 0;
      while (j >= tree_offsets_[t] + P0.trees[t].A.rows()) ++t;
      const int n = static_cast<int>(P0.trees[t].A.rows());
      d.segment(tree_offsets_[t], n) =
          dt * llt_of(t).solve(Eigen::VectorXd::Unit(n, j - tree_offsets_[t]));
      return d;
    };
    auto moved_problem = [&](int i, double e) {
      Perturb(saved, nv, i, e);
      return ProblemAtCurrentState();  // copied by the caller
    };
    auto name_failure = [&](int i, const std::string& why) {
      const std::string kind = i < nv ? "configuration" : "velocity";
      RestoreStep(saved);
      Fail("step derivatives: " + kind + " coordinate '" +
           out.coordinates[i % nv] + "': " + why);
    };

    out.A.resize(2 * nv, 2 * nv);
    out.B.resize(2 * nv, nv);
    if (!fd) {
      const SapSolverDerivatives lin(P0, r0, params);
      out.contact_regions = lin.regions();
      out.scaled_residual = lin.scaled_residual();
      // dq+ = Phi_q dq + dt Phi_v dv+ (IntegrateBodies: p + dt v,
      // exp(dt w) R; IntegrateRobots likewise per joint).
      // Phi_q and Phi_v are the identity but for one 3 x 3 block per
      // rotation (free bodies, floating bases): kept as blocks, applied in
      // O(nv) per column.
      struct RotationBlock {
        int offset;
        Matrix3 Phi_q, Phi_v;
      };
      std::vector<RotationBlock> blocks;
      auto rotation_block = [&](int o, const Vector3& w) {
        blocks.push_back({o, Exp(dt * w), LeftJacobian(dt * w)});
      };
      for (size_t t = 0; t < body_of_tree_.size(); ++t) {
        rotation_block(6 * t + 3, r0.v.segment<3>(6 * t + 3));
      }
      for (size_t t = body_of_tree_.size(); t < P0.trees.size(); ++t) {
        const MultibodyTree& mb =
            scene_.robots[robot_of_tree_[t]].description.tree;
        for (int i = 0; i < mb.num_links(); ++i) {
          if (mb.joint(i).type != JointType::kFloating) continue;
          const int o = tree_offsets_[t] + mb.velocity_start(i) + 3;
          rotation_block(o, r0.v.segment<3>(o));
        }
      }
      // dq+ of a column: dt Phi_v dv (+ Phi_q e_i for configuration
      // column i).
      auto position_change = [&](const Eigen::VectorXd& dv, int i) {
        Eigen::VectorXd dq = dt * dv;
        if (i >= 0) dq(i) += 1.0;
        for (const RotationBlock& b : blocks) {
          dq.segment<3>(b.offset) = dt * b.Phi_v * dv.segment<3>(b.offset);
          if (i >= b.offset && i < b.offset + 3) {
            dq.segment<3>(b.offset) += b.Phi_q.col(i - b.offset);
          }
        }
        return dq;
      };
      // How the contacts move with the state (docs/theory.md §21): a
      // contact whose features the narrow phase recorded moves in closed
      // form (sim/collision/contact_motion.h) with its two colliders'
      // velocity fields; the others are found again by collision detection
      // at the perturbed state (central differences).
      const int nc = static_cast<int>(contacts0.size());
      const int nt = static_cast<int>(P0.trees.size());
      // Each collider's velocity field per coordinate of its tree: rows
      // 0-2 the angular velocity, 3-5 the linear one (of the point at the
      // world origin), from its point Jacobians at 0, e_x and e_y.
      struct Field {
        int tree{-1};
        Eigen::Matrix<double, 6, Eigen::Dynamic> columns;
      };
      std::map<int, Field> fields;
      auto field_of = [&](int collider) -> const Field& {
        auto it = fields.find(collider);
        if (it != fields.end()) return it->second;
        Field f;
        Eigen::MatrixXd J0, Jx, Jy;
        const Matrix3 I = Matrix3::Identity();
        if (ColliderJacobian(collider, I, Vector3::Zero(), 1.0, &f.tree, &J0)) {
          ColliderJacobian(collider, I, Vector3::UnitX(), 1.0, &f.tree, &Jx);
          ColliderJacobian(collider, I, Vector3::UnitY(), 1.0, &f.tree, &Jy);
          // w x e_x = (0, w_z, -w_y), w x e_y = (-w_z, 0, w_x).
          f.columns.resize(6, J0.cols());
          f.columns.row(0) = Jy.row(2) - J0.row(2);
          f.columns.row(1) = J0.row(2) - Jx.row(2);
          f.columns.row(2) = Jx.row(1) - J0.row(1);
          f.columns.bottomRows(3) = J0;
        } else {
          f.tree = -1;
        }
        return fields.emplace(collider, std::move(f)).first->second;
      };
      std::vector<std::vector<int>> contacts_of_tree(nt);
      std::vector<std::vector<int>> differenced_of_tree(nt);
      for (int k = 0; k < nc; ++k) {
        const ContactPoint& c = contacts0[k];
        const bool closed = HasContactRate(c);
        if (!closed) out.differenced_contacts.push_back(k);
        for (int collider : {c.body_a, c.body_b}) {
          const int t = field_of(collider).tree;
          if (t < 0) continue;
          if (contacts_of_tree[t].empty() || contacts_of_tree[t].back() != k) {
            contacts_of_tree[t].push_back(k);
            if (!closed) differenced_of_tree[t].push_back(k);
          }
        }
      }
      // The problem at the state moved by e along coordinate i, its
      // contacts moved with it; *follows: whether the differenced contacts
      // found there are the nominal ones moved a little.
      auto moved_contacts_problem = [&](int i, double e,
                                        bool* follows) -> const SapProblem& {
        Perturb(saved, nv, i, e);
        UpdateColliderPoses();
        *follows = true;
        int t = nt - 1;
        while (tree_offsets_[t] > i) --t;
        const int j = i - tree_offsets_[t];
        std::vector<ContactPoint> moved = contacts0;
        if (!differenced_of_tree[t].empty()) {
          StepInfo info;
          Collide(&info);
          *follows = ContactsFollow(contacts_, contacts0, e > 0 ? e : -e,
                                    &differenced_of_tree[t]);
          if (*follows) {
            for (int k : differenced_of_tree[t]) moved[k] = contacts_[k];
          }
        }
        auto velocity = [&](int collider) {
          RigidVelocity u;
          const Field& f = field_of(collider);
          if (f.tree != t) return u;
          u.angular = f.columns.col(j).head<3>();
          u.linear = f.columns.col(j).tail<3>();
          return u;
        };
        std::vector<std::pair<int, ContactRate>> rates;
        for (int k : contacts_of_tree[t]) {
          ContactPoint& c = moved[k];
          if (!HasContactRate(c)) continue;
          const ContactRate r =
              CalcContactRate(c, velocity(c.body_a), velocity(c.body_b));
          rates.emplace_back(k, r);
          c.phi += e * r.phi;
          c.position += e * r.position;
          c.normal = (c.normal + e * r.normal).normalized();
        }
        contacts_ = std::move(moved);
        BuildProblem();
        // Between free bodies and the static world, a contact's Jacobian
        // blocks are J = s R(n) [I, -[p - c]x] (s = -1 for A, +1 for B), so
        // their rate is closed form too: s (R' [I, -[p - c]x] +
        // R [0, -[p' - c']x]), R' = ContactFrameRowsRate. The blocks are
        // set to J0 + e J' (a central difference returns J' exactly), and
        // v_n0 follows them. Robots' links keep the blocks built at the
        // perturbed state (their point Jacobians move with the joints).
        const int nb = static_cast<int>(scene_.bodies.size());
        for (const auto& entry : rates) {
          const int k = entry.first;
          const ContactRate& r = entry.second;
          const ContactPoint& c0 = contacts0[k];
          const Contact& nominal = P0.contacts[k];
          if (c0.body_a >= nb || c0.body_b >= nb ||
              !nominal.bias_velocity.isZero(0.0)) {
            continue;
          }
          Contact& c = problem_.contacts[k];
          const Matrix3 R = ContactFrameRows(c0.normal);
          const Matrix3 dR = ContactFrameRowsRate(c0.normal, r.normal);
          auto rate_of = [&](int body, double sign) {
            const Vector3 arm = c0.position - saved.state[body].pose.position;
            Vector3 dc = Vector3::Zero();
            if (tree_of_body_[body] == t && j < 3) dc(j) = 1.0;
            Eigen::Matrix<double, 3, 6> dJ;
            dJ.leftCols<3>() = sign * dR;
            dJ.rightCols<3>() =
                -sign * (dR * Skew(arm) + R * Skew(r.position - dc));
            return dJ;
          };
          // The blocks in BuildProblem's order: A's then B's, the static
          // side left out.
          std::vector<std::pair<int, double>> sides;
          if (tree_of_body_[c0.body_a] >= 0)
            sides.emplace_back(c0.body_a, -1.0);
          if (tree_of_body_[c0.body_b] >= 0) sides.emplace_back(c0.body_b, 1.0);
          c.first.J =
              nominal.first.J + e * rate_of(sides[0].first, sides[0].second);
          if (sides.size() == 2) {
            c.second->J = nominal.second->J +
                          e * rate_of(sides[1].first, sides[1].second);
          }
          c.normal_velocity0 =
              ContactVelocity(c, tree_offsets_, guess_)(kNormal);
        }
        return problem_;
      };
      // Velocity columns: the velocities move only v* and the contacts'
      // v_n0 (the geometry, A, the Jacobian blocks and the rows stay), so a
      // column is the free motion's rate and one back-substitution.
      for (int c = 0; c < nv; ++c) {
        int t = nt - 1;
        while (tree_offsets_[t] > c) --t;
        const int n = static_cast<int>(P0.trees[t].v_star.size());
        SapParameterVector d;
        d.v_star = Eigen::VectorXd::Zero(nv);
        d.v_star.segment(tree_offsets_[t], n) =
            FreeVelocityRate(c, hv, saved.robot_M, llt_of(t));
        // v_n0 = (J v)_n: its rate is the normal row's entry of c.
        d.normal_velocity0 = Eigen::VectorXd::Zero(nc);
        for (int k : contacts_of_tree[t]) {
          const Contact& contact = P0.contacts[k];
          for (const ContactJacobianBlock* b :
               {&contact.first, contact.second ? &*contact.second : nullptr}) {
            if (b != nullptr && b->tree == t) {
              d.normal_velocity0(k) += b->J(kNormal, c - tree_offsets_[t]);
            }
          }
        }
        const Eigen::VectorXd dv = lin.Apply(d).v;
        out.A.col(nv + c) << position_change(dv, -1), dv;
      }
      for (int i = 0; i < nv; ++i) {
        const double h = hq;
        // Forward differences of the data (the nominal problem the other
        // end), central ones when asked; where the contacts jump on the
        // forward side (faces in exact alignment, a contact at the margin),
        // the backward difference, and where they jump on both sides, the
        // held contacts below.
        bool plus_follows = true, minus_follows = true;
        const SapProblem* plus = &moved_contacts_problem(i, h, &plus_follows);
        const SapProblem* minus = nullptr;
        SapProblem plus_copy;
        if (central || !plus_follows) {
          plus_copy = *plus;  // problem_ is about to be built again
          plus = &plus_copy;
          minus = &moved_contacts_problem(i, -h, &minus_follows);
        }
        Eigen::VectorXd dv;
        bool done = false;
        if (central && plus_follows && minus_follows) {
          dv = lin.ApplyAlong(*plus, *minus, h).v;
          done = true;
        } else if (plus_follows || minus_follows) {
          dv = plus_follows ? lin.ApplyAlong(*plus, P0, 0.5 * h).v
                            : lin.ApplyAlong(P0, *minus, 0.5 * h).v;
          if (central || !plus_follows) out.one_sided.push_back(i);
          done = true;
        }
        if (!done) {
          // Both sides differ (faces in exact alignment turned either
          // way): the step's contacts held, moving with the bodies to first
          // order: phi0 changes by the normal velocity J_n e that
          // coordinate i's unit motion gives; frames and Jacobians held.
          SapProblem held_plus = *plus, held_minus = *minus;
          held_plus.contacts = P0.contacts;
          held_minus.contacts = P0.contacts;
          const int coordinate = i;
          for (size_t k = 0; k < P0.contacts.size(); ++k) {
            const Contact& c = P0.contacts[k];
            double normal = 0.0;
            auto add = [&](const ContactJacobianBlock& b) {
              const int o = tree_offsets_[b.tree];
              if (coordinate >= o && coordinate < o + b.J.cols()) {
                normal += b.J(kNormal, coordinate - o);
              }
            };
            add(c.first);
            if (c.second) add(*c.second);
            held_plus.contacts[k].phi0 += h * normal;
            held_minus.contacts[k].phi0 -= h * normal;
          }
          try {
            dv = lin.ApplyAlong(held_plus, held_minus, h).v;
            out.held_contacts.push_back(i);
          } catch (const std::invalid_argument& e) {
            name_failure(i, e.what());
          }
        }
        out.A.col(i).tail(nv) = dv;
        out.A.col(i).head(nv) = position_change(dv, i);
      }
      for (int j = 0; j < nv; ++j) {
        SapParameterVector d;
        d.v_star = force_direction(j);
        const Eigen::VectorXd dv = lin.Apply(d).v;
        out.B.col(j) << position_change(dv, -1), dv;
      }
      out.B_targets.resize(2 * nv, num_targets);
      for (int j = 0; j < num_targets; ++j) {
        SapParameterVector d;
        d.actuation_target = Eigen::VectorXd::Unit(num_targets, j);
        const Eigen::VectorXd dv = lin.Apply(d).v;
        out.B_targets.col(j) << position_change(dv, -1), dv;
      }
    } else {
      // Central differences of whole steps from the perturbed states.
      for (int i = 0; i < 2 * nv; ++i) {
        // The step is shrunk (to 1/100 at most) while the perturbed
        // contacts do not follow the nominal ones.
        double h = i < nv ? hq : hv;
        NextState x[2];
        for (int attempt = 0; attempt < 3; ++attempt) {
          if (attempt > 0) h *= 0.1;
          bool follow = true;
          for (int side = 0; side < 2; ++side) {
            const SapProblem p = moved_problem(i, side == 0 ? h : -h);
            follow = follow && ContactsFollow(contacts_, contacts0, h);
            x[side] = next_state(solve(p, &r0.v).v);
          }
          if (follow) break;
        }
        out.A.col(i) = difference(x[0], x[1]) / (2 * h);
      }
      RestoreStep(at_start);
      for (int j = 0; j < nv; ++j) {
        NextState x[2];
        for (int side = 0; side < 2; ++side) {
          SapProblem p = P0;
          const Eigen::VectorXd d = (side == 0 ? hu : -hu) * force_direction(j);
          int o = 0;
          for (Tree& tree : p.trees) {
            tree.v_star += d.segment(o, tree.v_star.size());
            o += static_cast<int>(tree.v_star.size());
          }
          x[side] = next_state(solve(p, &r0.v).v);
        }
        out.B.col(j) = difference(x[0], x[1]) / (2 * hu);
      }
      out.B_targets.resize(2 * nv, num_targets);
      for (int j = 0; j < num_targets; ++j) {
        NextState x[2];
        for (int side = 0; side < 2; ++side) {
          SapProblem p = P0;
          target_of(&p, j) += side == 0 ? hq : -hq;
          x[side] = next_state(solve(p, &r0.v).v);
        }
        out.B_targets.col(j) = difference(x[0], x[1]) / (2 * hq);
      }
      const SapSolverDerivatives lin(P0, r0, params);
      out.contact_regions = lin.regions();
      out.scaled_residual = lin.scaled_residual();
    }
  } catch (...) {
    RestoreStep(saved);
    throw;
  }
  RestoreStep(saved);
  return out;
}

}  // namespace sapcontact
