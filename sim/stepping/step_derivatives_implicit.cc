// The implicit step derivatives (docs/theory.md §21): the step's solve
// differentiated by the implicit function theorem
// (solver/sap/sap_solver_derivatives.h), with the velocity columns in
// closed form (the free motion's rate), the contacts moved in closed form
// from their features (collision/contact_motion.h) and forward or
// central differences of the rest of the problem's construction along each
// configuration coordinate.
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sapcontact/collision/contact_motion.h"
#include "sapcontact/geometry/pose.h"
#include "sapcontact/sim/stepping/contact_velocity.h"
#include "sapcontact/sim/stepping/step_derivative_work.h"
#include "sapcontact/sim/stepping/time_stepper.h"
#include "sapcontact/solver/sap/sap_solver_derivatives.h"

namespace sapcontact {
namespace {

// The left Jacobian of SO(3) at phi: exp(phi + d) = exp(J_l(phi) d) exp(phi)
// to first order.
Matrix3 LeftJacobian(const Vector3& phi) {
  const double t = phi.norm();
  const Matrix3 K = CrossMatrix(phi);
  if (t < 1e-4) return Matrix3::Identity() + 0.5 * K + K * K / 6.0;
  return Matrix3::Identity() + (1.0 - std::cos(t)) / (t * t) * K +
         (t - std::sin(t)) / (t * t * t) * K * K;
}

}  // namespace

void TimeStepper::ImplicitStepDerivatives(StepDerivativeWork* w,
                                          const SavedStep& saved,
                                          StepDerivatives* result) {
  StepDerivatives& out = *result;
  const SapProblem& P0 = w->P0;
  const std::vector<ContactPoint>& contacts0 = w->contacts0;
  const SapSolverResults& r0 = w->r0;
  const int nv = w->nv, num_targets = w->num_targets;
  const double dt = w->dt, hq = w->hq, hv = w->hv;
  const bool central = w->central;
  auto llt_of = [w](int t) -> const Eigen::LLT<Eigen::MatrixXd>& {
    return w->Llt(t);
  };
  auto name_failure = [&](int i, const std::string& why) {
    const std::string kind = i < nv ? "configuration" : "velocity";
    RestoreStep(saved);
    Fail("step derivatives: " + kind + " coordinate '" +
         out.coordinates[i % nv] + "': " + why);
  };
  const SapSolverDerivatives lin(P0, r0, w->params);
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
    blocks.push_back({o, RotationExp(dt * w), LeftJacobian(dt * w)});
  };
  for (size_t t = 0; t < layout_.body_of_tree.size(); ++t) {
    rotation_block(6 * t + 3, r0.v.segment<3>(6 * t + 3));
  }
  for (size_t t = layout_.body_of_tree.size(); t < P0.trees.size(); ++t) {
    const MultibodyTree& mb =
        scene_.robots[layout_.robot_of_tree[t]].description.tree;
    for (int i = 0; i < mb.num_links(); ++i) {
      if (mb.joint(i).type != JointType::kFloating) continue;
      const int o = layout_.tree_offsets[t] + mb.velocity_start(i) + 3;
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
  // form (collision/contact_motion.h) with its two colliders'
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
    while (layout_.tree_offsets[t] > i) --t;
    const int j = i - layout_.tree_offsets[t];
    std::vector<ContactPoint> moved = contacts0;
    if (!differenced_of_tree[t].empty()) {
      StepInfo info;
      Collide(&info);
      *follows = ContactsFollow(last_.contacts, contacts0, e > 0 ? e : -e,
                                &differenced_of_tree[t]);
      if (*follows) {
        for (int k : differenced_of_tree[t]) moved[k] = last_.contacts[k];
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
    last_.contacts = std::move(moved);
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
      Contact& c = last_.problem.contacts[k];
      const Matrix3 R = ContactFrameRows(c0.normal);
      const Matrix3 dR = ContactFrameRowsRate(c0.normal, r.normal);
      auto rate_of = [&](int body, double sign) {
        const Vector3 arm = c0.position - saved.step.state[body].pose.position;
        Vector3 dc = Vector3::Zero();
        if (layout_.tree_of_body[body] == t && j < 3) dc(j) = 1.0;
        Eigen::Matrix<double, 3, 6> dJ;
        dJ.leftCols<3>() = sign * dR;
        dJ.rightCols<3>() =
            -sign * (dR * CrossMatrix(arm) + R * CrossMatrix(r.position - dc));
        return dJ;
      };
      // The blocks in BuildProblem's order: A's then B's, the static
      // side left out.
      std::vector<std::pair<int, double>> sides;
      if (layout_.tree_of_body[c0.body_a] >= 0)
        sides.emplace_back(c0.body_a, -1.0);
      if (layout_.tree_of_body[c0.body_b] >= 0)
        sides.emplace_back(c0.body_b, 1.0);
      c.first.J =
          nominal.first.J + e * rate_of(sides[0].first, sides[0].second);
      if (sides.size() == 2) {
        c.second->J =
            nominal.second->J + e * rate_of(sides[1].first, sides[1].second);
      }
      c.normal_velocity0 =
          ContactVelocity(c, layout_.tree_offsets, step_.guess)(kNormal);
    }
    return last_.problem;
  };
  // Velocity columns: the velocities move only v* and the contacts'
  // v_n0 (the geometry, A, the Jacobian blocks and the rows stay), so a
  // column is the free motion's rate and one back-substitution.
  for (int c = 0; c < nv; ++c) {
    int t = nt - 1;
    while (layout_.tree_offsets[t] > c) --t;
    const int n = static_cast<int>(P0.trees[t].v_star.size());
    SapParameterVector d;
    d.v_star = Eigen::VectorXd::Zero(nv);
    d.v_star.segment(layout_.tree_offsets[t], n) =
        FreeVelocityRate(c, hv, saved.step.robot_M, llt_of(t));
    // v_n0 = (J v)_n: its rate is the normal row's entry of c.
    d.normal_velocity0 = Eigen::VectorXd::Zero(nc);
    for (int k : contacts_of_tree[t]) {
      const Contact& contact = P0.contacts[k];
      for (const ContactJacobianBlock* b :
           {&contact.first, contact.second ? &*contact.second : nullptr}) {
        if (b != nullptr && b->tree == t) {
          d.normal_velocity0(k) += b->J(kNormal, c - layout_.tree_offsets[t]);
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
      plus_copy = *plus;  // last_.problem is about to be built again
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
          const int o = layout_.tree_offsets[b.tree];
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
    d.v_star = w->ForceDirection(j);
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
}

}  // namespace sapcontact
