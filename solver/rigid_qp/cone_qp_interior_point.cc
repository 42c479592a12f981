#include "sapcontact/solver/rigid_qp/cone_qp_interior_point.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "sapcontact/solver/rigid_qp/second_order_cone.h"

namespace sapcontact {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Regularizations tried, in order, when K does not factor; relative to the
// unit diagonal of the Jacobi-scaled K (see ConeQpKktSolver::Factor).
constexpr double kRegularizations[] = {0.0, 1e-14, 1e-12, 1e-10, 1e-8};

class InteriorPoint {
 public:
  InteriorPoint(const NormalizedConeQp& qp, ConeQpKktSolver* kkt,
                const ConeQpIpmSettings& settings)
      : qp_(qp),
        kkt_(kkt),
        settings_(settings),
        m_(static_cast<int>(qp.cones.size())),
        W_(m_, Matrix3::Zero()),
        Winv_(m_, Matrix3::Zero()),
        lambda_(m_, Vector3::Zero()),
        H_(m_, Matrix3::Zero()) {
    const int n = qp.n;
    for (Eigen::VectorXd* v :
         {&x_, &s_, &z_, &rx_, &rz_, &Px_, &dx_, &dz_, &ds_, &u_, &ds_scaled_,
          &dz_scaled_, &ds_affine_, &dz_affine_, &bs_, &rhs_, &res_, &tmp_}) {
      v->setZero(n);
    }
  }

  ConeQpIpmOutcome Run();

 private:
  Vector3 Seg(const Eigen::VectorXd& v, int k) const {
    const ConeBlock& c = qp_.cones[k];
    Vector3 r = Vector3::Zero();
    r.head(c.dim) = v.segment(c.offset, c.dim);
    return r;
  }
  void SetSeg(int k, const Vector3& value, Eigen::VectorXd* v) const {
    const ConeBlock& c = qp_.cones[k];
    v->segment(c.offset, c.dim) = value.head(c.dim);
  }

  // Factors K = P + blockdiag(H_) (+ regularization on failure).
  bool Factor();
  // Initial point (CVXOPT coneqp): (P + T'T) x = -q, s = T x, z = -T x,
  // both shifted into the interior along e when needed.
  bool Initialize();
  // Solves the Newton system with right-hand sides (bx, bz, bs) = (-rx, -rz,
  // bs_); outputs dx_, dz_ and the scaled steps ds_scaled_ = W^-1 ds,
  // dz_scaled_ = W dz.
  void NewtonSolve();
  // ds_, ds_scaled_, dz_scaled_, dz_ from dx_ and u_.
  void RecoverSteps();
  // sup alpha with lambda + alpha ds_scaled_, lambda + alpha dz_scaled_ in K.
  double MaxStep() const;
  // After a step alpha: the NT scaling Wt of the scaled iterates
  // (lambda + alpha ds_scaled, lambda + alpha dz_scaled) gives W <- Wt W,
  // W^-1 <- W^-1 Wt^-1, lambda <- Wt (lambda + alpha dz_scaled). False if a
  // scaled iterate is not interior.
  bool UpdateScaling(double alpha);
  // Tests x for a certificate of unboundedness.
  bool CertifyUnbounded(ConeQpIpmOutcome* out);
  void Measure(ConeQpIpmOutcome* out);

  const NormalizedConeQp& qp_;
  ConeQpKktSolver* kkt_;
  const ConeQpIpmSettings settings_;
  const int m_;
  // Scaling state of each cone (CVXOPT-style): W_k with W_k z_k =
  // W_k^-T s_k = lambda_k, its inverse, and lambda_k. Updated
  // multiplicatively from the scaled iterates (see UpdateScaling), never
  // recomputed from s and z: near the cone boundary s and z have lost the
  // digits of s0 - |s1| that the scaling needs, the scaled iterates have not.
  std::vector<Matrix3> W_, Winv_;
  std::vector<Vector3> lambda_;
  std::vector<Matrix3> H_;
  Eigen::VectorXd x_, s_, z_, rx_, rz_, Px_, dx_, dz_, ds_, u_, ds_scaled_,
      dz_scaled_, ds_affine_, dz_affine_, bs_, rhs_, res_, tmp_;
};

bool InteriorPoint::Factor() {
  for (double reg : kRegularizations) {
    if (kkt_->Factor(H_, reg)) return true;
  }
  return false;
}

bool InteriorPoint::Initialize() {
  for (int k = 0; k < m_; ++k) {
    const ConeBlock& c = qp_.cones[k];
    H_[k].setZero();
    for (int i = 0; i < c.dim; ++i) {
      H_[k](i, i) = qp_.t(c.offset + i) * qp_.t(c.offset + i);
    }
  }
  if (!Factor()) return false;
  x_ = -qp_.q;
  kkt_->Solve(&x_);
  s_ = qp_.t.cwiseProduct(x_);
  z_ = -s_;
  double shift_s = -kInfinity, shift_z = -kInfinity;
  for (int k = 0; k < m_; ++k) {
    const int dim = qp_.cones[k].dim;
    shift_s = std::max(shift_s, -ConeMinEigenvalue(Seg(s_, k), dim));
    shift_z = std::max(shift_z, -ConeMinEigenvalue(Seg(z_, k), dim));
  }
  const double tiny_s = -1e-8 * std::max(1.0, s_.norm());
  const double tiny_z = -1e-8 * std::max(1.0, z_.norm());
  for (int k = 0; k < m_; ++k) {
    const int o = qp_.cones[k].offset;
    if (shift_s >= tiny_s) s_(o) += 1.0 + shift_s;
    if (shift_z >= tiny_z) z_(o) += 1.0 + shift_z;
  }
  if (!x_.allFinite()) return false;
  for (int k = 0; k < m_; ++k) {
    NtScaling sc;
    if (!ComputeNtScaling(Seg(s_, k), Seg(z_, k), qp_.cones[k].dim, &sc)) {
      return false;
    }
    W_[k] = sc.W;
    Winv_[k] = sc.W_inverse;
    lambda_[k] = sc.lambda;
  }
  return true;
}

bool InteriorPoint::UpdateScaling(double alpha) {
  for (int k = 0; k < m_; ++k) {
    const int dim = qp_.cones[k].dim;
    const Vector3 s = lambda_[k] + alpha * Seg(ds_scaled_, k);
    const Vector3 z = lambda_[k] + alpha * Seg(dz_scaled_, k);
    NtScaling sc;
    if (!ComputeNtScaling(s, z, dim, &sc)) return false;
    W_[k] = (sc.W * W_[k]).eval();
    Winv_[k] = (Winv_[k] * sc.W_inverse).eval();
    lambda_[k] = sc.lambda;
  }
  return true;
}

void InteriorPoint::NewtonSolve() {
  // Scaled steps ds_scaled = W^-T ds, dz_scaled = W dz. With u = lambda \ bs
  // the three equations  P dx - T dz = -rx,  -T dx + ds = -rz,
  // lambda o (dz_scaled + ds_scaled) = bs  give
  //   K dx = -rx + T W^-1 (u + W^-T rz),  K = P + T W^-1 W^-T T,
  //   ds = T dx - rz,  ds_scaled = W^-T ds,  dz_scaled = u - ds_scaled,
  //   dz = W^-1 dz_scaled.
  // Only W^-1 is applied (never W'W or its inverse to a vector): near the
  // cone boundary cond(W) ~ 1/mu and such products lose all accuracy. The
  // second and third equations hold to rounding by construction; the first
  // (the dual residual) is enforced by iterative refinement on its own
  // residual P dx - T dz(dx) + rx, evaluated exactly as the step is.
  for (int k = 0; k < m_; ++k) {
    const Vector3 u = JordanSolve(lambda_[k], Seg(bs_, k), qp_.cones[k].dim);
    SetSeg(k, u, &u_);
    SetSeg(k, Winv_[k] * (u + Winv_[k].transpose() * Seg(rz_, k)), &tmp_);
  }
  rhs_ = qp_.t.cwiseProduct(tmp_) - rx_;
  dx_ = rhs_;
  kkt_->Solve(&dx_);
  double previous = kInfinity;
  const double target = 1e-15 * std::max(1.0, rx_.norm());
  for (int i = 0;; ++i) {
    RecoverSteps();
    if (i == settings_.max_refinement_steps) break;
    // res = -(P dx - T dz + rx), the residual of the first equation.
    qp_.MultiplyP(dx_, &res_);
    res_ = qp_.t.cwiseProduct(dz_) - res_ - rx_;
    const double r = res_.norm();
    if (!(r > target) || !(r < 0.5 * previous)) break;
    previous = r;
    kkt_->Solve(&res_);
    dx_ += res_;
  }
}

void InteriorPoint::RecoverSteps() {
  ds_ = qp_.t.cwiseProduct(dx_) - rz_;
  for (int k = 0; k < m_; ++k) {
    const Vector3 dss = Winv_[k].transpose() * Seg(ds_, k);
    const Vector3 dzs = Seg(u_, k) - dss;
    SetSeg(k, dss, &ds_scaled_);
    SetSeg(k, dzs, &dz_scaled_);
    SetSeg(k, Winv_[k] * dzs, &dz_);
  }
}

double InteriorPoint::MaxStep() const {
  double alpha = kInfinity;
  for (int k = 0; k < m_; ++k) {
    const int dim = qp_.cones[k].dim;
    alpha = std::min(alpha, ConeMaxStep(lambda_[k], Seg(ds_scaled_, k), dim));
    alpha = std::min(alpha, ConeMaxStep(lambda_[k], Seg(dz_scaled_, k), dim));
  }
  return alpha;
}

void InteriorPoint::Measure(ConeQpIpmOutcome* out) {
  qp_.MultiplyP(x_, &Px_);
  rx_ = Px_ + qp_.q - qp_.t.cwiseProduct(z_);
  tmp_ = qp_.t.cwiseProduct(x_);
  rz_ = s_ - tmp_;
  out->primal_cost = 0.5 * x_.dot(Px_) + qp_.q.dot(x_);
  out->primal_residual = rz_.norm() / std::max(1.0, tmp_.norm());
  out->dual_residual = rx_.norm() / std::max(1.0, qp_.q.norm());
  const double scale = std::max(1.0, std::abs(out->primal_cost));
  out->relative_gap = std::abs(s_.dot(z_)) / scale;
  // Complementarity as the norm of the Jordan product s o z (0 iff s'z = 0
  // for s, z in the cone), not just its trace s'z: at a sliding contact s'z
  // is quadratic in the angle between s and the reflection of z, the tail
  // s0 z1 + z0 s1 is linear in it.
  double jordan = 0.0;
  for (int k = 0; k < m_; ++k) {
    const int dim = qp_.cones[k].dim;
    jordan += JordanProduct(Seg(s_, k), Seg(z_, k), dim).norm();
  }
  out->relative_complementarity = jordan / scale;
}

bool InteriorPoint::CertifyUnbounded(ConeQpIpmOutcome* out) {
  const double norm = x_.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) return false;
  const Eigen::VectorXd d = x_ / norm;
  Eigen::VectorXd Pd(qp_.n);
  qp_.MultiplyP(d, &Pd);
  const double qd = qp_.q.dot(d);
  const Eigen::VectorXd td = qp_.t.cwiseProduct(d);
  double cone_violation = 0.0;
  for (int k = 0; k < m_; ++k) {
    cone_violation = std::max(cone_violation,
                              -ConeMinEigenvalue(Seg(td, k), qp_.cones[k].dim));
  }
  constexpr double kTol = 1e-6;
  if (qd < -kTol && Pd.norm() <= kTol * std::abs(qd) &&
      cone_violation <= kTol * std::abs(qd)) {
    out->unbounded_direction = d;
    std::ostringstream os;
    os << "dual infeasible: the QP is unbounded below along a direction d "
          "in the friction cones with ||W d|| ~ 0 and c'd < 0 (normalized: "
          "q'd = "
       << qd << ", ||P d|| = " << Pd.norm() << ")";
    out->reason = os.str();
    out->status = ConeQpIpmStatus::kUnbounded;
    return true;
  }
  return false;
}

ConeQpIpmOutcome InteriorPoint::Run() {
  ConeQpIpmOutcome out;
  // The best converged iterate (smallest Jordan complementarity), kept
  // during the polishing iterations.
  ConeQpIpmOutcome best;
  bool have_best = false;
  int polish = 0;
  // The iterate of smallest merit max(residuals / tol, gap / gap_tol), and
  // the last iteration that halved it (stall detection).
  ConeQpIpmOutcome best_merit;
  double best_merit_value = kInfinity;
  int last_improvement = 0;
  auto snapshot = [&](ConeQpIpmOutcome* o) {
    *o = out;
    o->x = x_;
    o->s = s_;
    o->z = z_;
  };
  // Ends without a strictly converged iterate: the best-merit iterate is
  // returned, as kConvergedReducedAccuracy if it meets the reduced
  // tolerance, else with `status`.
  auto finish = [&](ConeQpIpmStatus status, const std::string& reason) {
    if (have_best) return best;
    if (best_merit_value == kInfinity) snapshot(&best_merit);
    ConeQpIpmOutcome r = best_merit;
    const double tol = settings_.reduced_tolerance;
    if (r.primal_residual <= tol && r.dual_residual <= tol &&
        r.relative_gap <= tol) {
      r.status = ConeQpIpmStatus::kConvergedReducedAccuracy;
      std::ostringstream os;
      os << "converged to reduced accuracy (primal " << r.primal_residual
         << ", dual " << r.dual_residual << ", gap " << r.relative_gap
         << " <= " << tol << "; the tolerances were not reached: " << reason
         << ")";
      r.reason = os.str();
    } else {
      r.status = status;
      r.reason = reason;
    }
    return r;
  };
  if (!Initialize()) {
    return finish(ConeQpIpmStatus::kNumericalError,
                  "the initial KKT system could not be factored");
  }
  for (int iter = 0;; ++iter) {
    out.iterations = iter;
    Measure(&out);
    if (!std::isfinite(out.primal_residual) ||
        !std::isfinite(out.dual_residual) || !std::isfinite(out.relative_gap)) {
      return finish(
          ConeQpIpmStatus::kNumericalError,
          "non-finite residuals at iteration " + std::to_string(iter));
    }
    const double merit =
        std::max({out.primal_residual / settings_.feasibility_tolerance,
                  out.dual_residual / settings_.feasibility_tolerance,
                  out.relative_gap / settings_.gap_tolerance});
    if (merit < best_merit_value) {
      if (merit < 0.5 * best_merit_value) last_improvement = iter;
      best_merit_value = merit;
      snapshot(&best_merit);
    }
    if (merit <= 1.0) {  // converged
      if (!have_best ||
          out.relative_complementarity < best.relative_complementarity) {
        snapshot(&best);
        best.status = ConeQpIpmStatus::kConverged;
        best.reason = "converged";
        have_best = true;
      }
      if (out.relative_complementarity <= settings_.gap_tolerance ||
          polish >= settings_.max_polish_iterations) {
        return best;
      }
      ++polish;
    } else if (have_best) {
      return best;  // polishing lost the residual tolerances
    }
    if (x_.lpNorm<Eigen::Infinity>() > settings_.divergence_threshold) {
      if (CertifyUnbounded(&out)) {
        out.x = x_;
        out.s = s_;
        out.z = z_;
        return out;
      }
      return finish(ConeQpIpmStatus::kNumericalError,
                    "iterates diverge without a certificate of unboundedness");
    }
    if (iter == settings_.max_iterations) {
      if (!have_best && CertifyUnbounded(&out)) {
        out.x = x_;
        out.s = s_;
        out.z = z_;
        return out;
      }
      return finish(ConeQpIpmStatus::kMaxIterations,
                    "maximum number of iterations reached");
    }
    // Stall: stuck within the reduced tolerance (far from it, slow phases
    // are normal and only the iteration limit applies).
    const bool near =
        best_merit.primal_residual <= settings_.reduced_tolerance &&
        best_merit.dual_residual <= settings_.reduced_tolerance &&
        best_merit.relative_gap <= settings_.reduced_tolerance;
    if (!have_best && near &&
        iter - last_improvement >= settings_.stall_iterations) {
      return finish(ConeQpIpmStatus::kNumericalError,
                    "no progress in " +
                        std::to_string(iter - last_improvement) +
                        " iterations (stalled at iteration " +
                        std::to_string(iter) + ")");
    }
    // H_k = T (W_k'W_k)^-1 T and factorization.
    for (int k = 0; k < m_; ++k) {
      const Vector3 t = Seg(qp_.t, k);
      H_[k] =
          t.asDiagonal() * (Winv_[k] * Winv_[k].transpose()) * t.asDiagonal();
    }
    if (!Factor()) {
      return finish(ConeQpIpmStatus::kNumericalError,
                    "the KKT matrix could not be factored at iteration " +
                        std::to_string(iter));
    }
    double mu = 0.0;  // lambda'lambda / m (= s'z / m)
    for (int k = 0; k < m_; ++k) mu += lambda_[k].squaredNorm() / m_;
    // Affine predictor: bs = -lambda o lambda.
    for (int k = 0; k < m_; ++k) {
      const int dim = qp_.cones[k].dim;
      SetSeg(k, -JordanProduct(lambda_[k], lambda_[k], dim), &bs_);
    }
    NewtonSolve();
    const double alpha_affine = std::min(1.0, MaxStep());
    const double sigma = std::pow(1.0 - alpha_affine, 3);
    ds_affine_ = ds_scaled_;
    dz_affine_ = dz_scaled_;
    // Combined step: bs = -lambda o lambda - ds_a o dz_a + sigma mu e.
    for (int k = 0; k < m_; ++k) {
      const int dim = qp_.cones[k].dim;
      Vector3 b = -JordanProduct(lambda_[k], lambda_[k], dim) -
                  JordanProduct(Seg(ds_affine_, k), Seg(dz_affine_, k), dim);
      b(0) += sigma * mu;
      SetSeg(k, b, &bs_);
    }
    NewtonSolve();
    const double alpha = std::min(1.0, settings_.step_fraction * MaxStep());
    if (!(alpha > 0.0) || !dx_.allFinite() || !dz_.allFinite()) {
      return finish(ConeQpIpmStatus::kNumericalError,
                    "no progress possible (step " + std::to_string(alpha) +
                        ") at iteration " + std::to_string(iter));
    }
    if (!UpdateScaling(alpha)) {
      return finish(ConeQpIpmStatus::kNumericalError,
                    "a scaled iterate left the interior of its cone at "
                    "iteration " +
                        std::to_string(iter));
    }
    x_ += alpha * dx_;
    s_ += alpha * ds_;
    z_ += alpha * dz_;
  }
}

}  // namespace

ConeQpIpmOutcome SolveNormalizedConeQp(const NormalizedConeQp& qp,
                                       ConeQpKktSolver* kkt,
                                       const ConeQpIpmSettings& settings) {
  InteriorPoint ipm(qp, kkt, settings);
  return ipm.Run();
}

}  // namespace sapcontact
