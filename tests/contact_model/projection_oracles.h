// Independent oracles for tests of the friction-cone projection: a
// brute-force R-norm projection and random sampling of y in each region.
#pragma once

#include <cmath>
#include <random>

#include "sapcontact/contact_model/conventions.h"

namespace sapcontact::testing {

/// Brute-force argmin_{g in F} ||g - y||_R, independent of the analytic
/// formula: if y is in F the answer is y; otherwise the minimizer lies on the
/// boundary g = s (1, mu cos(th), mu sin(th)), s >= 0. For fixed th the cost is
/// quadratic in s (closed-form minimizer, clamped at 0); th is found by a
/// dense scan followed by golden-section refinement.
inline Vector3 BruteForceProjection(const Vector3& y, double mu, double R_n,
                                    double R_t) {
  if (std::hypot(y(1), y(2)) <= mu * y(0)) return y;
  auto best_for = [&](double th, Vector3* g) {
    const Vector3 d(1.0, mu * std::cos(th), mu * std::sin(th));
    const Vector3 Rd(R_n * d(0), R_t * d(1), R_t * d(2));
    const double s = std::max(0.0, Rd.dot(y) / Rd.dot(d));
    *g = s * d;
    const Vector3 e = *g - y;
    return R_n * e(0) * e(0) + R_t * (e(1) * e(1) + e(2) * e(2));
  };
  Vector3 g;
  const int n = 720;
  double best = 1e300, best_th = 0.0;
  for (int i = 0; i < n; ++i) {
    const double th = 2 * M_PI * i / n;
    const double f = best_for(th, &g);
    if (f < best) best = f, best_th = th;
  }
  double a = best_th - 2 * M_PI / n, b = best_th + 2 * M_PI / n;
  const double r = 0.5 * (std::sqrt(5.0) - 1.0);
  for (int it = 0; it < 200; ++it) {
    const double c = b - r * (b - a), d = a + r * (b - a);
    if (best_for(c, &g) < best_for(d, &g)) {
      b = d;
    } else {
      a = c;
    }
  }
  best_for(0.5 * (a + b), &g);
  return g;
}

/// Exact region of y (no soft norm) and its relative distance to the nearest
/// region boundary, to keep finite differences away from the kinks.
struct RegionInfo {
  int region;     // 1, 2 or 3 as in SAP paper App. C.
  double margin;  // min relative distance to the I/II and II/III boundaries.
};

inline RegionInfo ClassifyExact(const Vector3& y, double mu, double ratio) {
  const double yn = y(0), yr = std::hypot(y(1), y(2));
  const double scale = y.norm() + 1e-300;
  // Signed distances (up to positive factors) to the two boundaries.
  const double d1 = (mu * yn - yr) / std::sqrt(1 + mu * mu) / scale;
  const double d3 =
      (-yn - mu * ratio * yr) / std::sqrt(1 + mu * mu * ratio * ratio) / scale;
  RegionInfo info;
  info.region = d1 >= 0 ? 1 : (d3 > 0 ? 3 : 2);
  info.margin = std::min(std::abs(d1), std::abs(d3));
  return info;
}

/// A random sample of a contact: mu, R and y.
struct ProjectionSample {
  double mu, R_n, R_t;
  Vector3 y;
};

inline ProjectionSample RandomSample(std::mt19937* rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ProjectionSample s;
  s.mu = u(*rng) < 0.05 ? 0.0 : 2.0 * u(*rng);
  s.R_n = std::pow(10.0, -4.0 + 6.0 * u(*rng));
  s.R_t = s.R_n * std::pow(10.0, -4.0 + 4.0 * u(*rng));
  const double scale = std::pow(10.0, -2.0 + 4.0 * u(*rng));
  s.y = scale * Vector3(2 * u(*rng) - 1, 2 * u(*rng) - 1, 2 * u(*rng) - 1);
  return s;
}

}  // namespace sapcontact::testing
