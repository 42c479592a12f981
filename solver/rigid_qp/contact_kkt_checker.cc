#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sapcontact {

const char* ToString(ContactMode mode) {
  switch (mode) {
    case ContactMode::kSeparating:
      return "separating";
    case ContactMode::kSticking:
      return "sticking";
    case ContactMode::kSliding:
      return "sliding";
  }
  return "unknown";
}

int KktReport::Count(ContactMode mode) const {
  return static_cast<int>(std::count_if(
      contacts.begin(), contacts.end(),
      [mode](const ContactKktMeasures& c) { return c.mode == mode; }));
}

double DistanceToFrictionCone(const Eigen::Vector3d& x, double mu) {
  const double n = x(0);
  const double r = std::hypot(x(1), x(2));
  if (r <= mu * n) return 0.0;
  if (mu * r <= -n) return x.norm();  // in the polar cone: projects to 0
  return (r - mu * n) / std::sqrt(1.0 + mu * mu);
}

double DistanceToDualFrictionCone(const Eigen::Vector3d& u, double mu) {
  const double n = u(0);
  const double r = std::hypot(u(1), u(2));
  if (n >= mu * r) return 0.0;
  if (r <= -mu * n) return u.norm();  // in the polar cone -F: projects to 0
  return (mu * r - n) / std::sqrt(1.0 + mu * mu);
}

KktReport CheckRigidContactKkt(const RigidContactProblem& p,
                               const Eigen::VectorXd& l,
                               double mode_tolerance) {
  const int nc = p.num_contacts();
  const int n = 3 * nc;
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("CheckRigidContactKkt: " + what);
  };
  if (p.rows() != n || p.cols() != n || p.c.size() != n) {
    std::ostringstream os;
    os << "problem sizes W " << p.rows() << " x " << p.cols() << ", c "
       << p.c.size() << " do not match 3 nc = " << n << " (mu.size() = " << nc
       << ")";
    fail(os.str());
  }
  if (l.size() != n) {
    fail("impulses has size " + std::to_string(l.size()) + ", expected " +
         std::to_string(n));
  }
  if (!l.allFinite()) fail("impulses has non-finite entries");

  KktReport report;
  const Eigen::VectorXd Wl = p.MultiplyW(l);
  report.u = Wl + p.c;
  report.total_complementarity = l.dot(report.u);
  const double c_inf = n > 0 ? p.c.lpNorm<Eigen::Infinity>() : 0.0;
  const double wl_inf = n > 0 ? Wl.lpNorm<Eigen::Infinity>() : 0.0;
  double V = std::max(c_inf, wl_inf);
  if (!(V > 0.0)) V = 1.0;
  const double w_max = n > 0 ? p.WDiagonal().maxCoeff() : 0.0;
  double L = n > 0 ? l.lpNorm<Eigen::Infinity>() : 0.0;
  if (w_max > 0.0) L = std::max(L, V / w_max);
  if (!(L > 0.0)) L = 1.0;
  report.impulse_scale = L;
  report.velocity_scale = V;

  report.contacts.resize(nc);
  for (int i = 0; i < nc; ++i) {
    const Eigen::Vector3d li = l.segment<3>(3 * i);
    const Eigen::Vector3d ui = report.u.segment<3>(3 * i);
    const double mu = p.mu(i);
    ContactKktMeasures& m = report.contacts[i];
    m.primal_violation = DistanceToFrictionCone(li, mu);
    m.dual_violation = DistanceToDualFrictionCone(ui, mu);
    m.complementarity = li.dot(ui);
    const double np = m.primal_violation / L;
    const double nd = m.dual_violation / V;
    const double nk = std::abs(m.complementarity) / (L * V);
    m.normalized_worst = std::max({np, nd, nk});
    report.max_primal_violation = std::max(report.max_primal_violation, np);
    report.max_dual_violation = std::max(report.max_dual_violation, nd);
    report.max_complementarity = std::max(report.max_complementarity, nk);
    if (report.worst_contact < 0 ||
        m.normalized_worst > report.worst_violation) {
      report.worst_violation = m.normalized_worst;
      report.worst_contact = i;
    }
    if (li.norm() <= mode_tolerance * L) {
      m.mode = ContactMode::kSeparating;
    } else if (ui.norm() <= mode_tolerance * V) {
      m.mode = ContactMode::kSticking;
    } else {
      m.mode = ContactMode::kSliding;
    }
  }
  return report;
}

}  // namespace sapcontact
