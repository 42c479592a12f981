#include "solver/cone_qp_interior_point.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "solver/second_order_cone.h"

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
        scaling_(m_),
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
  // y = (P + blockdiag(H_)) x.
  void MultiplyK(const Eigen::VectorXd& x, Eigen::VectorXd* y);
  // Initial point (CVXOPT coneqp): (P + T'T) x = -q, s = T x, z = -T x,
  // both shifted into the interior along e when needed.
  bool Initialize();
  // Solves the Newton system with right-hand sides (bx, bz, bs) = (-rx, -rz,
  // bs_); outputs dx_, dz_ and the scaled steps ds_scaled_ = W^-1 ds,
  // dz_scaled_ = W dz.
  void NewtonSolve();
  // sup alpha with lambda + alpha ds_scaled_, lambda + alpha dz_scaled_ in K.
  double MaxStep() const;
  // Tests x for a certificate of unboundedness.
  bool CertifyUnbounded(ConeQpIpmOutcome* out);
  void Measure(ConeQpIpmOutcome* out);

  const NormalizedConeQp& qp_;
  ConeQpKktSolver* kkt_;
  const ConeQpIpmSettings settings_;
  const int m_;
  std::vector<NtScaling> scaling_;
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

void InteriorPoint::MultiplyK(const Eigen::VectorXd& x, Eigen::VectorXd* y) {
  qp_.MultiplyP(x, y);
  for (int k = 0; k < m_; ++k) {
    const ConeBlock& c = qp_.cones[k];
    y->segment(c.offset, c.dim) +=
        H_[k].topLeftCorner(c.dim, c.dim) * x.segment(c.offset, c.dim);
  }
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
  return x_.allFinite();
}

void InteriorPoint::NewtonSolve() {
  // Scaled steps ds_scaled = W^-1 ds, dz_scaled = W dz. With u = lambda \ bs
  // the three equations  P dx - T dz = -rx,  -T dx + ds = -rz,
  // lambda o (dz_scaled + ds_scaled) = bs  give
  //   (P + T W^-2 T) dx = -rx + T W^-1 (u + W^-1 rz),
  //   ds = T dx - rz,  ds_scaled = W^-1 ds,  dz_scaled = u - ds_scaled,
  //   dz = W^-1 dz_scaled.
  // Only W^-1 is applied (never W^2 or W^-2 to a vector): near the cone
  // boundary cond(W) ~ 1/mu and products with W^2 lose all accuracy. The
  // second and third equations hold to rounding; the first holds to the
  // accuracy of the reduced solve (improved by iterative refinement).
  for (int k = 0; k < m_; ++k) {
    const NtScaling& sc = scaling_[k];
    const Vector3 u = JordanSolve(sc.lambda, Seg(bs_, k), sc.dim);
    SetSeg(k, u, &u_);
    SetSeg(k, sc.W_inverse * (u + sc.W_inverse * Seg(rz_, k)), &tmp_);
  }
  rhs_ = qp_.t.cwiseProduct(tmp_) - rx_;
  dx_ = rhs_;
  kkt_->Solve(&dx_);
  // Iterative refinement against K without regularization.
  double previous = kInfinity;
  const double target = 1e-15 * std::max(1.0, rhs_.norm());
  for (int i = 0; i < settings_.max_refinement_steps; ++i) {
    MultiplyK(dx_, &res_);
    res_ = rhs_ - res_;
    const double r = res_.norm();
    if (!(r > target) || !(r < 0.5 * previous)) break;
    previous = r;
    kkt_->Solve(&res_);
    dx_ += res_;
  }
  ds_ = qp_.t.cwiseProduct(dx_) - rz_;
  for (int k = 0; k < m_; ++k) {
    const NtScaling& sc = scaling_[k];
    const Vector3 dss = sc.W_inverse * Seg(ds_, k);
    const Vector3 dzs = Seg(u_, k) - dss;
    SetSeg(k, dss, &ds_scaled_);
    SetSeg(k, dzs, &dz_scaled_);
    SetSeg(k, sc.W_inverse * dzs, &dz_);
  }
}

double InteriorPoint::MaxStep() const {
  double alpha = kInfinity;
  for (int k = 0; k < m_; ++k) {
    const NtScaling& sc = scaling_[k];
    alpha = std::min(alpha, ConeMaxStep(sc.lambda, Seg(ds_scaled_, k), sc.dim));
    alpha = std::min(alpha, ConeMaxStep(sc.lambda, Seg(dz_scaled_, k), sc.dim));
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
  out->relative_gap =
      std::abs(s_.dot(z_)) / std::max(1.0, std::abs(out->primal_cost));
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
  auto finish = [&](ConeQpIpmStatus status, const std::string& reason) {
    out.status = status;
    out.reason = reason;
    out.x = x_;
    out.s = s_;
    out.z = z_;
    return out;
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
    for (int k = 0; k < m_; ++k) {
      const int dim = qp_.cones[k].dim;
      if (!(ConeMinEigenvalue(Seg(s_, k), dim) > 0.0) ||
          !(ConeMinEigenvalue(Seg(z_, k), dim) > 0.0)) {
        return finish(ConeQpIpmStatus::kNumericalError,
                      "an iterate left the interior of cone " +
                          std::to_string(k) + " at iteration " +
                          std::to_string(iter));
      }
    }
    if (out.primal_residual <= settings_.feasibility_tolerance &&
        out.dual_residual <= settings_.feasibility_tolerance &&
        out.relative_gap <= settings_.gap_tolerance) {
      return finish(ConeQpIpmStatus::kConverged, "converged");
    }
    if (x_.lpNorm<Eigen::Infinity>() > settings_.divergence_threshold) {
      out.x = x_;
      if (CertifyUnbounded(&out)) return finish(out.status, out.reason);
      return finish(ConeQpIpmStatus::kNumericalError,
                    "iterates diverge without a certificate of unboundedness");
    }
    if (iter == settings_.max_iterations) {
      if (CertifyUnbounded(&out)) return finish(out.status, out.reason);
      return finish(ConeQpIpmStatus::kMaxIterations,
                    "maximum number of iterations reached");
    }
    // Scaling and factorization.
    for (int k = 0; k < m_; ++k) {
      const ConeBlock& c = qp_.cones[k];
      if (!ComputeNtScaling(Seg(s_, k), Seg(z_, k), c.dim, &scaling_[k])) {
        return finish(ConeQpIpmStatus::kNumericalError,
                      "an iterate left the interior of cone " +
                          std::to_string(k) + " at iteration " +
                          std::to_string(iter));
      }
      const Vector3 t = Seg(qp_.t, k);
      const Matrix3& Wi = scaling_[k].W_inverse;
      H_[k] = t.asDiagonal() * (Wi * Wi) * t.asDiagonal();
    }
    if (!Factor()) {
      return finish(ConeQpIpmStatus::kNumericalError,
                    "the KKT matrix could not be factored at iteration " +
                        std::to_string(iter));
    }
    const double mu = s_.dot(z_) / m_;
    // Affine predictor: bs = -lambda o lambda.
    for (int k = 0; k < m_; ++k) {
      const NtScaling& sc = scaling_[k];
      SetSeg(k, -JordanProduct(sc.lambda, sc.lambda, sc.dim), &bs_);
    }
    NewtonSolve();
    const double alpha_affine = std::min(1.0, MaxStep());
    const double sigma = std::pow(1.0 - alpha_affine, 3);
    ds_affine_ = ds_scaled_;
    dz_affine_ = dz_scaled_;
    // Combined step: bs = -lambda o lambda - ds_a o dz_a + sigma mu e.
    for (int k = 0; k < m_; ++k) {
      const NtScaling& sc = scaling_[k];
      Vector3 b = -JordanProduct(sc.lambda, sc.lambda, sc.dim) -
                  JordanProduct(Seg(ds_affine_, k), Seg(dz_affine_, k), sc.dim);
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
