// The reciprocal 1-norm condition estimate of a symmetric positive definite
// matrix from its Cholesky factor, without allocating: the estimate Eigen's
// LLT::rcond() computes (Hager's method, LAPACK's dpocon, with Higham's
// alternating-sign vector), for callers that factor in place in reused
// storage (SapSolver's dense islands: no allocation per Newton iteration).
#pragma once

#include <Eigen/Core>

namespace sapcontact {

/// ||A||_1 (the largest absolute column sum) of the symmetric matrix whose
/// lower triangle is that of `a`.
double SymmetricL1Norm(const Eigen::Ref<const Eigen::MatrixXd>& a);

/// An estimate of 1 / (||A||_1 ||A^-1||_1) for A = L L' with L the lower
/// triangle of `factor` (n x n) and `a_l1_norm` = ||A||_1 (take it before
/// factoring in place): never above the true value by more than the
/// estimator's usual factor (it bounds ||A^-1||_1 from below), 0 for
/// n = 0. `workspace` must hold 3 n doubles.
double CholeskyReciprocalCondition(
    const Eigen::Ref<const Eigen::MatrixXd>& factor, double a_l1_norm,
    double* workspace);

}  // namespace sapcontact
