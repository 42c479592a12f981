#include "sapcontact/solver/linear_algebra/cholesky_condition_estimate.h"

#include <algorithm>
#include <cmath>

namespace sapcontact {

double SymmetricL1Norm(const Eigen::Ref<const Eigen::MatrixXd>& a) {
  const Eigen::Index n = a.rows();
  double norm = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    // Column j of the symmetric matrix: a(j.., j) below, a(j, ..j) above.
    const double sum =
        a.col(j).tail(n - j).lpNorm<1>() + a.row(j).head(j).lpNorm<1>();
    norm = std::max(norm, sum);
  }
  return norm;
}

double CholeskyReciprocalCondition(
    const Eigen::Ref<const Eigen::MatrixXd>& factor, double a_l1_norm,
    double* workspace) {
  const Eigen::Index n = factor.rows();
  if (n == 0) return 0.0;
  Eigen::Map<Eigen::VectorXd> v(workspace, n), sign(workspace + n, n),
      old_sign(workspace + 2 * n, n);
  const auto L = factor.triangularView<Eigen::Lower>();
  // v <- A^-1 v = L^-T L^-1 v, in place. A is symmetric: A^-T = A^-1.
  auto solve = [&](Eigen::Map<Eigen::VectorXd>& x) {
    L.solveInPlace(x);
    L.transpose().solveInPlace(x);
  };
  // Hager's gradient ascent of ||A^-1 x||_1 over ||x||_1 = 1 (the optimum
  // is at a unit vector), from x = (1, ..., 1) / n.
  v.setConstant(1.0 / static_cast<double>(n));
  solve(v);
  double lower_bound = v.lpNorm<1>();
  if (n > 1) {
    double old_lower_bound = lower_bound;
    Eigen::Index j = -1, old_j = -1;
    for (int k = 0; k < 4; ++k) {
      for (Eigen::Index i = 0; i < n; ++i) sign[i] = v[i] < 0.0 ? -1.0 : 1.0;
      if (k > 0 && sign == old_sign) break;  // stagnated
      v = sign;
      solve(v);
      v.cwiseAbs().maxCoeff(&j);
      if (j == old_j) break;  // stagnated
      v.setZero();
      v[j] = 1.0;
      solve(v);
      lower_bound = v.lpNorm<1>();
      if (lower_bound <= old_lower_bound) break;  // no ascent
      old_sign = sign;
      old_j = j;
      old_lower_bound = lower_bound;
    }
    // Higham's independent estimate from x_i = (-1)^i (1 + i / (n - 1)).
    for (Eigen::Index i = 0; i < n; ++i) {
      v[i] = (i % 2 == 0 ? 1.0 : -1.0) *
             (1.0 + static_cast<double>(i) / static_cast<double>(n - 1));
    }
    solve(v);
    lower_bound = std::max(
        lower_bound, 2.0 * v.lpNorm<1>() / (3.0 * static_cast<double>(n)));
  }
  return lower_bound == 0.0 ? 0.0 : (1.0 / lower_bound) / a_l1_norm;
}

}  // namespace sapcontact
