#include "sapcontact/solver/sap/sap_solver_derivatives.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "sapcontact/contact_model/constraint_regularization.h"
#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"

namespace sapcontact {

namespace {

const SapSolverResults& Converged(const SapSolverResults& results) {
  if (results.status != SapSolverStatus::kConverged) {
    throw std::invalid_argument(
        std::string("SapSolverDerivatives: the solve did not converge "
                    "(status ") +
        ToString(results.status) +
        "): derivatives by the implicit function theorem need the optimum");
  }
  return results;
}

void CheckSize(const Eigen::VectorXd& x, int n, const char* name) {
  if (x.size() != 0 && x.size() != n) {
    throw std::invalid_argument(std::string("SapSolverDerivatives: ") + name +
                                " has size " + std::to_string(x.size()) +
                                ", expected " + std::to_string(n) +
                                " (or 0 for zero)");
  }
}

double At(const Eigen::VectorXd& x, int i) {
  return x.size() == 0 ? 0.0 : x(i);
}

}  // namespace

SapSolverDerivatives::SapSolverDerivatives(const SapProblem& problem,
                                           const SapSolverResults& results,
                                           const SapSolverParameters& p)
    : SapSolverDerivatives(problem, Converged(results).v, p) {}

SapSolverDerivatives::~SapSolverDerivatives() = default;

SapSolverDerivatives::SapSolverDerivatives(const SapProblem& problem,
                                           const Eigen::VectorXd& v,
                                           const SapSolverParameters& p)
    : problem_(problem) {
  Validate(problem, /*check_positive_definite=*/false);
  nv_ = problem.num_velocities();
  nc_ = static_cast<int>(problem.contacts.size());
  if (v.size() != nv_ || !v.allFinite()) {
    throw std::invalid_argument("SapSolverDerivatives: v must have " +
                                std::to_string(nv_) + " finite entries (has " +
                                std::to_string(v.size()) + ")");
  }
  regularization_ = p.regularization;
  const RegularizationParameters& reg = regularization_;
  model_.Build(problem, reg);
  model_.Gather(v, &v_model_);
  model_.MultiplyJ(v_model_, &v_c_);
  model_.AddBias(&v_c_);
  model_.EvaluateConstraints(v_c_, &gamma_, &G_);

  // Optimality residual at v (the solver's scaled test, all islands).
  const int n = model_.num_velocities();
  Eigen::VectorXd r = v_model_ - model_.v_star(), Ar(n), jtg(n), Av(n);
  model_.MultiplyA(r, &Ar);
  model_.MultiplyA(v_model_, &Av);
  model_.MultiplyJTranspose(gamma_, &jtg);
  const Eigen::VectorXd& D = model_.scaling();
  const double scale =
      std::max(D.cwiseProduct(Av).norm(), D.cwiseProduct(jtg).norm());
  const double grad = D.cwiseProduct(Ar - jtg).norm();
  scaled_residual_ = scale > 0 ? grad / scale : grad;

  // Per contact: the impulse's partials at fixed v_c, and its region.
  const double dt = problem.time_step;
  partials_.resize(nc_);
  regions_.resize(nc_);
  for (int k = 0; k < nc_; ++k) {
    const Contact& c = problem.contacts[k];
    partials_[k] = ComputeContactImpulsePartials(
        c.parameters, reg, dt, model_.contacts()[k].w, c.phi0,
        c.normal_velocity0, v_c_.segment<3>(3 * k));
    regions_[k].region = partials_[k].region;
    regions_[k].boundary_distance = partials_[k].boundary_distance;
    regions_[k].near_rigid = partials_[k].near_rigid;
  }
  // The rows' d gamma / d dt and / d (their parameters) at fixed v_c, in
  // the model's row order (limits, holonomic, actuation;
  // SapModel::AddConstraints).
  const double beta = reg.constraint_near_rigid_threshold;
  const std::vector<ConstraintRow>& rows = model_.rows();
  row_dt_.resize(rows.size());
  row_partials_.assign(rows.size(), RowPartials{});
  int i = 0;
  const int r0 = model_.row_offset();
  auto impulse = [&](const ConstraintRowDerivative& d) {
    return RowImpulseDerivative(rows[i], d, v_c_(r0 + i));
  };
  auto next_row = [&](int kind) {
    row_partials_[i].kind = kind;
    row_partials_[i].index = num_rows_[kind]++;
    ++i;
  };
  for (const LimitConstraint& c : problem.limits) {
    for (int j = 0; j < c.g0.size(); ++j) {
      const double w = model_.row_delassus()[i];
      row_dt_(i) = impulse(LimitRowTimeStepDerivative(
          c.g0(j), c.stiffness, c.dissipation_time_scale, dt, w, beta));
      row_partials_[i].g0 =
          impulse(LimitRowGapDerivative(c.dissipation_time_scale, dt));
      next_row(0);
    }
  }
  for (const HolonomicConstraint& c : problem.holonomic) {
    for (int j = 0; j < c.g0.size(); ++j) {
      const double w = model_.row_delassus()[i];
      row_dt_(i) = impulse(HolonomicRowTimeStepDerivative(
          c.g0(j), c.stiffness, c.relaxation_time, dt, w, beta));
      row_partials_[i].g0 = impulse(HolonomicRowGapDerivative(
          c.stiffness, c.relaxation_time, dt, w, beta));
      next_row(1);
    }
  }
  for (const ActuationConstraint& c : problem.actuation) {
    for (int j = 0; j < c.position.size(); ++j) {
      const double w = model_.row_delassus()[i];
      const ActuationRowDerivatives a = ActuationRowParameterDerivatives(
          c.position(j), c.target(j), c.target_velocity(j), c.feedforward(j),
          c.kp(j), c.kd(j), c.effort_limit(j), dt, w, beta);
      row_dt_(i) = impulse(a.time_step);
      RowPartials& P = row_partials_[i];
      P.target = impulse(a.target);
      P.target_velocity = impulse(a.target_velocity);
      P.feedforward = impulse(a.feedforward);
      P.kp = impulse(a.kp);
      P.kd = impulse(a.kd);
      P.effort_limit = impulse(a.effort_limit);
      next_row(2);
    }
  }

  // H = A + J' G J at v, factored once.
  if (n > 0) {
    BlockSparseSymmetricMatrix H(model_.pattern());
    model_.AssembleHessian(G_, &H);
    factorization_ =
        MakeHessianFactorization(p.linear_solver, n, p.dense_size_threshold);
    if (!factorization_->Factor(H)) {
      throw std::invalid_argument(
          "SapSolverDerivatives: the Hessian at v is not numerically "
          "positive definite");
    }
  }
}

void SapSolverDerivatives::CheckRows(const SapParameterVector& d) const {
  CheckSize(d.limit_g0, num_rows_[0], "limit_g0");
  CheckSize(d.holonomic_g0, num_rows_[1], "holonomic_g0");
  CheckSize(d.actuation_target, num_rows_[2], "actuation_target");
  CheckSize(d.actuation_target_velocity, num_rows_[2],
            "actuation_target_velocity");
  CheckSize(d.actuation_feedforward, num_rows_[2], "actuation_feedforward");
  CheckSize(d.actuation_kp, num_rows_[2], "actuation_kp");
  CheckSize(d.actuation_kd, num_rows_[2], "actuation_kd");
  CheckSize(d.actuation_effort_limit, num_rows_[2], "actuation_effort_limit");
}

void SapSolverDerivatives::Solve(Eigen::VectorXd* b) const {
  if (factorization_) factorization_->SolveInPlace(b);
}

void SapSolverDerivatives::ParameterImpulses(const SapParameterVector& d,
                                             Eigen::VectorXd* psi) const {
  psi->setZero(model_.num_constraint_rows());
  for (int k = 0; k < nc_; ++k) {
    const ContactImpulsePartials& P = partials_[k];
    psi->segment<3>(3 * k) =
        P.phi0 * At(d.phi0, k) + P.stiffness * At(d.stiffness, k) +
        P.dissipation * At(d.dissipation, k) + P.friction * At(d.friction, k) +
        P.normal_velocity0 * At(d.normal_velocity0, k) +
        P.time_step * d.time_step;
  }
  const int r0 = model_.row_offset();
  for (size_t i = 0; i < row_partials_.size(); ++i) {
    const RowPartials& P = row_partials_[i];
    double& p = (*psi)(r0 + i);
    p = row_dt_(i) * d.time_step;
    if (P.kind == 0) {
      p += P.g0 * At(d.limit_g0, P.index);
    } else if (P.kind == 1) {
      p += P.g0 * At(d.holonomic_g0, P.index);
    } else {
      p += P.target * At(d.actuation_target, P.index) +
           P.target_velocity * At(d.actuation_target_velocity, P.index) +
           P.feedforward * At(d.actuation_feedforward, P.index) +
           P.kp * At(d.actuation_kp, P.index) +
           P.kd * At(d.actuation_kd, P.index) +
           P.effort_limit * At(d.actuation_effort_limit, P.index);
    }
  }
}

SapSolutionVector SapSolverDerivatives::Apply(
    const SapParameterVector& d) const {
  CheckSize(d.v_star, nv_, "v_star");
  CheckSize(d.phi0, nc_, "phi0");
  CheckSize(d.stiffness, nc_, "stiffness");
  CheckSize(d.dissipation, nc_, "dissipation");
  CheckSize(d.friction, nc_, "friction");
  CheckSize(d.normal_velocity0, nc_, "normal_velocity0");
  CheckRows(d);
  // H dv = A dv* + J' psi; d gamma = -G J dv + psi.
  Eigen::VectorXd psi, rhs, dv_star;
  ParameterImpulses(d, &psi);
  const int n = model_.num_velocities();
  model_.MultiplyJTranspose(psi, &rhs);
  if (d.v_star.size() > 0) {
    Eigen::VectorXd Adv(n);
    model_.Gather(d.v_star, &dv_star);
    model_.MultiplyA(dv_star, &Adv);
    rhs += Adv;
  }
  Solve(&rhs);
  SapSolutionVector out;
  // Trees outside every constraint keep v = v*.
  out.v = d.v_star.size() > 0 ? d.v_star : Eigen::VectorXd::Zero(nv_);
  model_.Scatter(rhs, &out.v);
  Eigen::VectorXd dv_c;
  model_.MultiplyJ(rhs, &dv_c);
  out.gamma.resize(3 * nc_);
  for (int k = 0; k < nc_; ++k) {
    out.gamma.segment<3>(3 * k) =
        psi.segment<3>(3 * k) - G_.contacts[k] * dv_c.segment<3>(3 * k);
  }
  return out;
}

SapParameterVector SapSolverDerivatives::ApplyTranspose(
    const SapSolutionVector& dL) const {
  CheckSize(dL.v, nv_, "dL/dv");
  CheckSize(dL.gamma, 3 * nc_, "dL/dgamma");
  // With a = dL/dv, c = dL/dgamma: a_bar = a - J' G' c, lambda = H^-1 a_bar,
  // dL/dv* = A lambda (plus a on trees outside every constraint), dL/dtheta
  // = P' (J lambda + c) (docs/theory.md §20).
  const int n = model_.num_velocities();
  const int rows = model_.num_constraint_rows();
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(n);
  if (dL.v.size() > 0) model_.Gather(dL.v, &lambda);
  Eigen::VectorXd Gc = Eigen::VectorXd::Zero(rows);
  if (dL.gamma.size() > 0) {
    for (int k = 0; k < nc_; ++k) {
      Gc.segment<3>(3 * k) =
          G_.contacts[k].transpose() * dL.gamma.segment<3>(3 * k);
    }
  }
  Eigen::VectorXd JtGc;
  model_.MultiplyJTranspose(Gc, &JtGc);
  lambda -= JtGc;
  Solve(&lambda);
  SapParameterVector g;
  g.v_star = dL.v.size() > 0 ? dL.v : Eigen::VectorXd::Zero(nv_);
  Eigen::VectorXd A_lambda(n);
  model_.MultiplyA(lambda, &A_lambda);
  model_.Scatter(A_lambda, &g.v_star);
  Eigen::VectorXd mu;  // J lambda + c, per constraint row
  model_.MultiplyJ(lambda, &mu);
  if (dL.gamma.size() > 0) mu.head(3 * nc_) += dL.gamma;
  g.phi0.resize(nc_);
  g.stiffness.resize(nc_);
  g.dissipation.resize(nc_);
  g.friction.resize(nc_);
  g.normal_velocity0.resize(nc_);
  g.time_step = 0.0;
  for (int k = 0; k < nc_; ++k) {
    const ContactImpulsePartials& P = partials_[k];
    const Vector3 m = mu.segment<3>(3 * k);
    g.phi0(k) = P.phi0.dot(m);
    g.stiffness(k) = P.stiffness.dot(m);
    g.dissipation(k) = P.dissipation.dot(m);
    g.friction(k) = P.friction.dot(m);
    g.normal_velocity0(k) = P.normal_velocity0.dot(m);
    g.time_step += P.time_step.dot(m);
  }
  g.time_step += row_dt_.dot(mu.tail(row_dt_.size()));
  g.limit_g0.setZero(num_rows_[0]);
  g.holonomic_g0.setZero(num_rows_[1]);
  for (Eigen::VectorXd* x : {&g.actuation_target, &g.actuation_target_velocity,
                             &g.actuation_feedforward, &g.actuation_kp,
                             &g.actuation_kd, &g.actuation_effort_limit}) {
    x->setZero(num_rows_[2]);
  }
  const int r0 = model_.row_offset();
  for (size_t i = 0; i < row_partials_.size(); ++i) {
    const RowPartials& P = row_partials_[i];
    const double m = mu(r0 + i);
    if (P.kind == 0) {
      g.limit_g0(P.index) = P.g0 * m;
    } else if (P.kind == 1) {
      g.holonomic_g0(P.index) = P.g0 * m;
    } else {
      g.actuation_target(P.index) = P.target * m;
      g.actuation_target_velocity(P.index) = P.target_velocity * m;
      g.actuation_feedforward(P.index) = P.feedforward * m;
      g.actuation_kp(P.index) = P.kp * m;
      g.actuation_kd(P.index) = P.kd * m;
      g.actuation_effort_limit(P.index) = P.effort_limit * m;
    }
  }
  return g;
}

SapSolutionJacobians SapSolverDerivatives::Jacobians() const {
  SapSolutionJacobians J;
  J.dv_dvstar.resize(nv_, nv_);
  J.dgamma_dvstar.resize(3 * nc_, nv_);
  SapParameterVector d;
  d.v_star = Eigen::VectorXd::Zero(nv_);
  for (int j = 0; j < nv_; ++j) {
    d.v_star(j) = 1.0;
    const SapSolutionVector s = Apply(d);
    J.dv_dvstar.col(j) = s.v;
    J.dgamma_dvstar.col(j) = s.gamma;
    d.v_star(j) = 0.0;
  }
  d.v_star.resize(0);
  auto per_entry = [&](Eigen::VectorXd SapParameterVector::*field, int count,
                       Eigen::MatrixXd* dv, Eigen::MatrixXd* dgamma) {
    dv->resize(nv_, count);
    dgamma->resize(3 * nc_, count);
    d.*field = Eigen::VectorXd::Zero(count);
    for (int k = 0; k < count; ++k) {
      (d.*field)(k) = 1.0;
      const SapSolutionVector s = Apply(d);
      dv->col(k) = s.v;
      dgamma->col(k) = s.gamma;
      (d.*field)(k) = 0.0;
    }
    (d.*field).resize(0);
  };
  using P = SapParameterVector;
  per_entry(&P::phi0, nc_, &J.dv_dphi0, &J.dgamma_dphi0);
  per_entry(&P::stiffness, nc_, &J.dv_dstiffness, &J.dgamma_dstiffness);
  per_entry(&P::dissipation, nc_, &J.dv_ddissipation, &J.dgamma_ddissipation);
  per_entry(&P::friction, nc_, &J.dv_dfriction, &J.dgamma_dfriction);
  per_entry(&P::limit_g0, num_rows_[0], &J.dv_dlimit_g0, &J.dgamma_dlimit_g0);
  per_entry(&P::holonomic_g0, num_rows_[1], &J.dv_dholonomic_g0,
            &J.dgamma_dholonomic_g0);
  const int na = num_rows_[2];
  per_entry(&P::actuation_target, na, &J.dv_dactuation_target,
            &J.dgamma_dactuation_target);
  per_entry(&P::actuation_target_velocity, na, &J.dv_dactuation_target_velocity,
            &J.dgamma_dactuation_target_velocity);
  per_entry(&P::actuation_feedforward, na, &J.dv_dactuation_feedforward,
            &J.dgamma_dactuation_feedforward);
  per_entry(&P::actuation_kp, na, &J.dv_dactuation_kp, &J.dgamma_dactuation_kp);
  per_entry(&P::actuation_kd, na, &J.dv_dactuation_kd, &J.dgamma_dactuation_kd);
  per_entry(&P::actuation_effort_limit, na, &J.dv_dactuation_effort_limit,
            &J.dgamma_dactuation_effort_limit);
  d.time_step = 1.0;
  const SapSolutionVector s = Apply(d);
  J.dv_dtime_step = s.v;
  J.dgamma_dtime_step = s.gamma;
  return J;
}

namespace {

// The constraint blocks of a problem in the model's order (contacts, then
// limits, holonomic, actuation): per block its first/second tree, Jacobian
// blocks and first stacked row.
struct Block {
  int tree_a{-1}, tree_b{-1};
  const Eigen::MatrixXd* J_a{nullptr};
  const Eigen::MatrixXd* J_b{nullptr};
  int row{0};
};

std::vector<Block> Blocks(const SapProblem& p) {
  std::vector<Block> blocks;
  int row = 0;
  for (const Contact& c : p.contacts) {
    blocks.push_back({c.first.tree, c.second ? c.second->tree : -1, &c.first.J,
                      c.second ? &c.second->J : nullptr, row});
    row += 3;
  }
  auto add = [&](const ConstraintJacobianBlock& first,
                 const std::optional<ConstraintJacobianBlock>& second) {
    blocks.push_back({first.tree, second ? second->tree : -1, &first.J,
                      second ? &second->J : nullptr, row});
    row += static_cast<int>(first.J.rows());
  };
  for (const LimitConstraint& c : p.limits) add(c.first, c.second);
  for (const HolonomicConstraint& c : p.holonomic) add(c.first, c.second);
  for (const ActuationConstraint& c : p.actuation) add(c.first, std::nullopt);
  return blocks;
}

void CheckSameShape(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                    const std::string& what) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    throw std::invalid_argument(
        "SapSolverDerivatives::ApplyAlong: " + what +
        " differs in size from the linearized problem's");
  }
}

}  // namespace

SapSolutionVector SapSolverDerivatives::ApplyAlong(const SapProblem& plus,
                                                   const SapProblem& minus,
                                                   double h) const {
  if (!(h > 0) || !std::isfinite(h)) {
    throw std::invalid_argument("SapSolverDerivatives::ApplyAlong: h = " +
                                std::to_string(h) + " (finite, > 0)");
  }
  const SapProblem& p0 = problem_;
  const std::vector<Block> b0 = Blocks(p0);
  for (const SapProblem* q : {&plus, &minus}) {
    if (q == &p0) continue;  // the linearized problem itself
    const std::vector<Block> b = Blocks(*q);
    bool same = q->trees.size() == p0.trees.size() &&
                q->contacts.size() == p0.contacts.size() &&
                b.size() == b0.size();
    for (size_t t = 0; same && t < p0.trees.size(); ++t) {
      same = q->trees[t].A.rows() == p0.trees[t].A.rows();
    }
    for (size_t i = 0; same && i < b0.size(); ++i) {
      same = b[i].tree_a == b0[i].tree_a && b[i].tree_b == b0[i].tree_b &&
             b[i].row == b0[i].row;
      if (same) CheckSameShape(*b[i].J_a, *b0[i].J_a, "a Jacobian block");
      if (same && b0[i].J_b)
        CheckSameShape(*b[i].J_b, *b0[i].J_b, "a Jacobian block");
    }
    if (!same) {
      throw std::invalid_argument(
          "SapSolverDerivatives::ApplyAlong: the perturbed problems must "
          "have the linearized problem's trees, contacts (on the same trees, "
          "in the same order) and constraint rows");
    }
    Validate(*q, /*check_positive_definite=*/false);
  }
  const std::vector<Block> bp = Blocks(plus), bm = Blocks(minus);
  const double inv2h = 0.5 / h;
  // What the model makes of the perturbed data: w per contact, the rows'
  // constants (the linearized model's own for the linearized problem: a
  // forward difference builds one model).
  SapModel built_plus, built_minus;
  auto model_of = [&](const SapProblem& q, SapModel* built) -> const SapModel& {
    if (&q == &p0) return model_;
    built->Build(q, regularization_);
    return *built;
  };
  const SapModel& mp = model_of(plus, &built_plus);
  const SapModel& mm = model_of(minus, &built_minus);

  const int n = model_.num_velocities();
  const int rows = model_.num_constraint_rows();
  // rhs = -dA (v - v*) + A dv* + dJ' gamma - J' G (dJ v + db) + J' psi.
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd dv_star_full(nv_);
  {
    int o = 0;
    for (size_t t = 0; t < p0.trees.size(); ++t) {
      const int nt = static_cast<int>(p0.trees[t].v_star.size());
      dv_star_full.segment(o, nt) =
          (plus.trees[t].v_star - minus.trees[t].v_star) * inv2h;
      const int pi = model_.participating_index(static_cast<int>(t));
      if (pi >= 0) {
        const int off = model_.offset(pi);
        const Eigen::MatrixXd dA = (plus.trees[t].A - minus.trees[t].A) * inv2h;
        rhs.segment(off, nt) +=
            p0.trees[t].A * dv_star_full.segment(o, nt) -
            dA * (v_model_.segment(off, nt) - model_.v_star().segment(off, nt));
      }
      o += nt;
    }
  }
  // Per block: the constraint velocity's change at fixed v (dJ v + db), and
  // dJ' gamma into rhs.
  Eigen::VectorXd dvc_fixed_v = Eigen::VectorXd::Zero(rows);
  auto segment = [&](int tree, Eigen::VectorXd& x) {
    const int pi = model_.participating_index(tree);
    return x.segment(model_.offset(pi), model_.size(pi));
  };
  auto v_of = [&](int tree) {
    const int pi = model_.participating_index(tree);
    return v_model_.segment(model_.offset(pi), model_.size(pi));
  };
  for (size_t i = 0; i < b0.size(); ++i) {
    const int m = static_cast<int>(b0[i].J_a->rows());
    const Eigen::MatrixXd dJa = (*bp[i].J_a - *bm[i].J_a) * inv2h;
    dvc_fixed_v.segment(b0[i].row, m) += dJa * v_of(b0[i].tree_a);
    segment(b0[i].tree_a, rhs) +=
        dJa.transpose() * gamma_.segment(b0[i].row, m);
    if (b0[i].J_b) {
      const Eigen::MatrixXd dJb = (*bp[i].J_b - *bm[i].J_b) * inv2h;
      dvc_fixed_v.segment(b0[i].row, m) += dJb * v_of(b0[i].tree_b);
      segment(b0[i].tree_b, rhs) +=
          dJb.transpose() * gamma_.segment(b0[i].row, m);
    }
  }
  // psi: the impulses' change at fixed v_c through the constants
  // (contacts: phi0, w, v_n0; rows: R, v_hat, bounds), and the bias
  // velocities' change (part of v_c at fixed v).
  Eigen::VectorXd psi = Eigen::VectorXd::Zero(rows);
  for (int k = 0; k < nc_; ++k) {
    const ContactImpulsePartials& P = partials_[k];
    const double dphi0 =
        (plus.contacts[k].phi0 - minus.contacts[k].phi0) * inv2h;
    const double dw = (mp.contacts()[k].w - mm.contacts()[k].w) * inv2h;
    const double dvn0 = (plus.contacts[k].normal_velocity0 -
                         minus.contacts[k].normal_velocity0) *
                        inv2h;
    psi.segment<3>(3 * k) =
        P.phi0 * dphi0 + P.delassus * dw + P.normal_velocity0 * dvn0;
    dvc_fixed_v.segment<3>(3 * k) +=
        (plus.contacts[k].bias_velocity - minus.contacts[k].bias_velocity) *
        inv2h;
  }
  const int r0 = model_.row_offset();
  for (int i = 0; i < static_cast<int>(model_.rows().size()); ++i) {
    const ConstraintRow& a = mp.rows()[i];
    const ConstraintRow& b = mm.rows()[i];
    ConstraintRowDerivative d;  // here: per unit of e, not of dt
    d.R = (a.R - b.R) * inv2h;
    d.v_hat = (a.v_hat - b.v_hat) * inv2h;
    d.lower = std::isfinite(a.lower) ? (a.lower - b.lower) * inv2h : 0.0;
    d.upper = std::isfinite(a.upper) ? (a.upper - b.upper) * inv2h : 0.0;
    psi(r0 + i) = RowImpulseDerivative(model_.rows()[i], d, v_c_(r0 + i));
  }
  // The impulses' total change at fixed v: psi - G (dJ v + db).
  Eigen::VectorXd dgamma_fixed_v = psi;
  for (int k = 0; k < nc_; ++k) {
    dgamma_fixed_v.segment<3>(3 * k) -=
        G_.contacts[k] * dvc_fixed_v.segment<3>(3 * k);
  }
  for (int i = 0; i < static_cast<int>(model_.rows().size()); ++i) {
    dgamma_fixed_v(r0 + i) -= G_.rows(i) * dvc_fixed_v(r0 + i);
  }
  Eigen::VectorXd jt;
  model_.MultiplyJTranspose(dgamma_fixed_v, &jt);
  rhs += jt;
  Solve(&rhs);
  SapSolutionVector out;
  out.v = dv_star_full;  // trees outside every constraint: v = v*
  model_.Scatter(rhs, &out.v);
  Eigen::VectorXd dv_c;
  model_.MultiplyJ(rhs, &dv_c);
  out.gamma.resize(3 * nc_);
  for (int k = 0; k < nc_; ++k) {
    out.gamma.segment<3>(3 * k) = dgamma_fixed_v.segment<3>(3 * k) -
                                  G_.contacts[k] * dv_c.segment<3>(3 * k);
  }
  return out;
}

}  // namespace sapcontact
