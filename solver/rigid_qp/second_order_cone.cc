#include "sapcontact/solver/rigid_qp/second_order_cone.h"

#include <algorithm>
#include <cmath>

namespace sapcontact {
namespace {

constexpr double kConeInfinity = std::numeric_limits<double>::infinity();

double TailNorm(const Vector3& x) { return std::hypot(x(1), x(2)); }

// x'Jy for dim 3.
double JDot(const Vector3& x, const Vector3& y) {
  return x(0) * y(0) - x(1) * y(1) - x(2) * y(2);
}

}  // namespace

double ConeMinEigenvalue(const Vector3& x, int dim) {
  return dim == 1 ? x(0) : x(0) - TailNorm(x);
}

double ConeJNorm(const Vector3& x, int dim) {
  if (dim == 1) return x(0) > 0.0 ? x(0) : std::nan("");
  const double r = TailNorm(x);
  const double lo = x(0) - r;
  if (!(lo > 0.0)) return std::nan("");
  return std::sqrt(lo * (x(0) + r));
}

Vector3 JordanProduct(const Vector3& x, const Vector3& y, int dim) {
  if (dim == 1) return Vector3(x(0) * y(0), 0.0, 0.0);
  Vector3 r;
  r(0) = x.dot(y);
  r.tail<2>() = x(0) * y.tail<2>() + y(0) * x.tail<2>();
  return r;
}

Vector3 JordanSolve(const Vector3& lambda, const Vector3& w, int dim) {
  if (dim == 1) return Vector3(w(0) / lambda(0), 0.0, 0.0);
  // lambda o y = w:  y0 = (lambda0 w0 - lambda1'w1) / det,
  //                  y1 = (w1 - y0 lambda1) / lambda0.
  const double det = ConeJNorm(lambda, 3) * ConeJNorm(lambda, 3);
  Vector3 y;
  y(0) = (lambda(0) * w(0) - lambda.tail<2>().dot(w.tail<2>())) / det;
  y.tail<2>() = (w.tail<2>() - y(0) * lambda.tail<2>()) / lambda(0);
  return y;
}

double ConeMaxStep(const Vector3& x, const Vector3& d, int dim) {
  if (dim == 1) return d(0) < 0.0 ? -x(0) / d(0) : kConeInfinity;
  // Necessary: the first component stays >= 0 (this also covers rays through
  // the apex, where f below has a double root).
  const double axis_limit = d(0) < 0.0 ? -x(0) / d(0) : kConeInfinity;
  // f(alpha) = a alpha^2 + 2 b alpha + c, with c = x'Jx > 0. The ray leaves
  // the cone at the smallest positive root of f.
  const double a = JDot(d, d);
  const double b = JDot(x, d);
  const double r = TailNorm(x);
  const double c = (x(0) - r) * (x(0) + r);
  if (a < 0.0) {
    const double sq = std::sqrt(b * b - a * c);  // > |b|
    return std::min(axis_limit, b <= 0.0 ? c / (sq - b) : (b + sq) / (-a));
  }
  if (b >= 0.0) return axis_limit;
  const double disc = b * b - a * c;
  // f > 0 for all alpha: the ray never meets the boundary of K or -K.
  if (disc < -1e-12 * b * b) return axis_limit;
  return std::min(axis_limit, c / (-b + std::sqrt(std::max(disc, 0.0))));
}

bool ComputeNtScaling(const Vector3& s, const Vector3& z, int dim,
                      NtScaling* scaling) {
  scaling->dim = dim;
  if (ConeMinEigenvalue(s, dim) <= 0.0 || ConeMinEigenvalue(z, dim) <= 0.0) {
    return false;
  }
  if (dim == 1) {
    const double w = std::sqrt(s(0) / z(0));
    scaling->W.setZero();
    scaling->W_inverse.setZero();
    scaling->W(0, 0) = w;
    scaling->W_inverse(0, 0) = 1.0 / w;
    scaling->lambda = Vector3(std::sqrt(s(0) * z(0)), 0.0, 0.0);
    return true;
  }
  const double sn = ConeJNorm(s, 3);
  const double zn = ConeJNorm(z, 3);
  const Vector3 sb = s / sn;
  const Vector3 zb = z / zn;
  const double gamma = std::sqrt(0.5 * (1.0 + sb.dot(zb)));
  const Vector3 Jzb(zb(0), -zb(1), -zb(2));
  // The normalized NT point w (w'Jw = 1, P(w) zb = sb with P the quadratic
  // representation); W = eta P(w^(1/2)) = eta [w0 w1'; w1 I + w1 w1'/(1+w0)]
  // and W^-1 = J W J / eta^2.
  const Vector3 w = (sb + Jzb) / (2.0 * gamma);
  const double eta = std::sqrt(sn / zn);
  Matrix3 Wb;
  Wb(0, 0) = w(0);
  Wb.block<1, 2>(0, 1) = w.tail<2>().transpose();
  Wb.block<2, 1>(1, 0) = w.tail<2>();
  Wb.block<2, 2>(1, 1) = Eigen::Matrix2d::Identity() +
                         w.tail<2>() * w.tail<2>().transpose() / (1.0 + w(0));
  const Vector3 Jd(1.0, -1.0, -1.0);
  scaling->W = eta * Wb;
  scaling->W_inverse = Jd.asDiagonal() * Wb * Jd.asDiagonal() / eta;
  scaling->lambda = scaling->W * z;
  return ConeMinEigenvalue(scaling->lambda, 3) > 0.0;
}

}  // namespace sapcontact
