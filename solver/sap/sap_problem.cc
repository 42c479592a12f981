#include "sapcontact/solver/sap/sap_problem.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sapcontact {
namespace {

std::string TreeLabel(const SapProblem& p, int t) {
  std::ostringstream os;
  os << "tree " << t;
  if (!p.trees[t].name.empty()) os << " ('" << p.trees[t].name << "')";
  return os.str();
}

std::string ContactLabel(const SapProblem& p, int k) {
  std::ostringstream os;
  os << "contact " << k;
  if (!p.contacts[k].name.empty()) os << " ('" << p.contacts[k].name << "')";
  return os.str();
}

[[noreturn]] void Throw(const std::string& what) {
  throw std::invalid_argument(what);
}

void ValidateBlock(const SapProblem& p, int k, const ContactJacobianBlock& b,
                   const char* which) {
  // The checks are cheap; the message is built only on failure.
  const int nt = static_cast<int>(p.trees.size());
  const bool tree_ok = b.tree >= 0 && b.tree < nt;
  const int n = tree_ok ? static_cast<int>(p.trees[b.tree].A.rows()) : 0;
  const bool shape_ok = tree_ok && b.J.rows() == 3 && b.J.cols() == n;
  if (shape_ok && b.J.allFinite()) return;
  std::ostringstream os;
  os << ContactLabel(p, k) << ": " << which << " Jacobian block ";
  if (!tree_ok) {
    os << "names tree " << b.tree << ", which does not exist (" << nt
       << " trees)";
  } else if (!shape_ok) {
    os << "is " << b.J.rows() << " x " << b.J.cols() << ", expected 3 x " << n
       << " for " << TreeLabel(p, b.tree);
  } else {
    os << "has non-finite entries";
  }
  Throw(os.str());
}

// "limit 3 ('arm/joint2 lower limit')": a constraint's name in messages,
// made into a string only when one is thrown (Validate runs every step).
struct ConstraintLabel {
  const char* kind;
  int k;
  const std::string& name;
};

std::ostream& operator<<(std::ostream& os, const ConstraintLabel& l) {
  os << l.kind << " " << l.k;
  if (!l.name.empty()) os << " ('" << l.name << "')";
  return os;
}

std::string operator+(const ConstraintLabel& l, const char* text) {
  std::ostringstream os;
  os << l << text;
  return os.str();
}

// A constraint's Jacobian blocks: existing, distinct trees, m x n_t, finite.
void ValidateConstraintBlocks(
    const SapProblem& p, const ConstraintLabel& label, int m,
    const ConstraintJacobianBlock& first,
    const std::optional<ConstraintJacobianBlock>& second) {
  const int nt = static_cast<int>(p.trees.size());
  auto check = [&](const ConstraintJacobianBlock& b, const char* which) {
    if (b.tree < 0 || b.tree >= nt) {
      Throw(label + ": " + which + " Jacobian block names tree " +
            std::to_string(b.tree) + ", which does not exist (" +
            std::to_string(nt) + " trees)");
    }
    const int n = static_cast<int>(p.trees[b.tree].A.rows());
    if (b.J.rows() != m || b.J.cols() != n) {
      Throw(label + ": " + which + " Jacobian block is " +
            std::to_string(b.J.rows()) + " x " + std::to_string(b.J.cols()) +
            ", expected " + std::to_string(m) + " x " + std::to_string(n) +
            " for " + TreeLabel(p, b.tree));
    }
    if (!b.J.allFinite()) {
      Throw(label + ": " + which + " Jacobian block has non-finite entries");
    }
  };
  if (m <= 0) Throw(label + ": has no rows");
  check(first, "first");
  if (second) {
    check(*second, "second");
    if (second->tree == first.tree) {
      Throw(label + ": both Jacobian blocks name tree " +
            std::to_string(first.tree));
    }
  }
}

void ValidateVector(const ConstraintLabel& label, const char* field,
                    const Eigen::VectorXd& x, int m, bool allow_inf) {
  if (x.size() != m) {
    Throw(label + ": " + field + " has " + std::to_string(x.size()) +
          " entries, expected " + std::to_string(m));
  }
  for (int i = 0; i < m; ++i) {
    if (std::isnan(x(i)) || (!allow_inf && std::isinf(x(i)))) {
      std::ostringstream os;
      os << label << ": " << field << "(" << i << ") = " << x(i)
         << (allow_inf ? " is NaN" : " is not finite");
      Throw(os.str());
    }
  }
}

void ValidateStiffness(const ConstraintLabel& label, double k) {
  if (!(k > 0)) {
    std::ostringstream os;
    os << label << ": stiffness = " << k << " (must be > 0 or inf)";
    Throw(os.str());
  }
}

}  // namespace

int SapProblem::num_velocities() const {
  int n = 0;
  for (const Tree& t : trees) n += static_cast<int>(t.A.rows());
  return n;
}

std::vector<int> SapProblem::TreeOffsets() const {
  std::vector<int> offsets(trees.size());
  int n = 0;
  for (size_t t = 0; t < trees.size(); ++t) {
    offsets[t] = n;
    n += static_cast<int>(trees[t].A.rows());
  }
  return offsets;
}

void Validate(const SapProblem& p, bool check_positive_definite) {
  ValidateTimeStep(p.time_step, "problem");
  for (int t = 0; t < static_cast<int>(p.trees.size()); ++t) {
    const Tree& tree = p.trees[t];
    const auto label = [&] { return TreeLabel(p, t); };
    if (tree.A.rows() == 0 || tree.A.rows() != tree.A.cols()) {
      Throw(label() + ": matrix A is " + std::to_string(tree.A.rows()) + " x " +
            std::to_string(tree.A.cols()) + ", expected square and non-empty");
    }
    if (!tree.A.allFinite())
      Throw(label() + ": matrix A has non-finite entries");
    if (tree.v_star.size() != tree.A.rows()) {
      Throw(label() + ": v_star has size " +
            std::to_string(tree.v_star.size()) + ", expected " +
            std::to_string(tree.A.rows()));
    }
    if (!tree.v_star.allFinite()) {
      Throw(label() + ": v_star has non-finite entries");
    }
    const double asym = (tree.A - tree.A.transpose()).norm();  // n_t^2, tiny
    if (asym > 1e-10 * tree.A.norm()) {
      std::ostringstream os;
      os << label() << ": matrix A is not symmetric (||A - A'||_F / ||A||_F = "
         << asym / tree.A.norm() << ")";
      Throw(os.str());
    }
    if (check_positive_definite &&
        Eigen::LLT<Eigen::MatrixXd>(tree.A).info() != Eigen::Success) {
      Throw(label() + ": matrix A is not positive definite");
    }
  }
  for (int k = 0; k < static_cast<int>(p.contacts.size()); ++k) {
    const Contact& c = p.contacts[k];
    ValidateBlock(p, k, c.first, "first");
    if (c.second) {
      ValidateBlock(p, k, *c.second, "second");
      if (c.second->tree == c.first.tree) {
        Throw(ContactLabel(p, k) + ": both Jacobian blocks name tree " +
              std::to_string(c.first.tree) +
              " (a single-tree contact has only the first block)");
      }
    }
    if (!c.bias_velocity.allFinite()) {
      Throw(ContactLabel(p, k) + ": bias_velocity has non-finite entries");
    }
    if (!std::isfinite(c.phi0)) {  // (message built only on failure)
      std::ostringstream os;
      os << ContactLabel(p, k) << ": invalid phi0 = " << c.phi0
         << " (must be finite)";
      Throw(os.str());
    }
    if (!std::isfinite(c.normal_velocity0)) {
      std::ostringstream os;
      os << ContactLabel(p, k)
         << ": invalid normal_velocity0 = " << c.normal_velocity0
         << " (must be finite)";
      Throw(os.str());
    }
    try {
      Validate(c.parameters);
    } catch (const std::invalid_argument& e) {
      Throw(ContactLabel(p, k) + ": " + e.what());
    }
  }
  for (int k = 0; k < static_cast<int>(p.limits.size()); ++k) {
    const LimitConstraint& c = p.limits[k];
    const ConstraintLabel label{"limit", k, c.name};
    const int m = static_cast<int>(c.g0.size());
    ValidateConstraintBlocks(p, label, m, c.first, c.second);
    ValidateVector(label, "g0", c.g0, m, false);
    ValidateStiffness(label, c.stiffness);
    if (std::isnan(c.dissipation_time_scale) ||
        std::isinf(c.dissipation_time_scale)) {
      Throw(label + ": dissipation_time_scale must be finite (< 0: dt)");
    }
  }
  for (int k = 0; k < static_cast<int>(p.holonomic.size()); ++k) {
    const HolonomicConstraint& c = p.holonomic[k];
    const ConstraintLabel label{"holonomic constraint", k, c.name};
    const int m = static_cast<int>(c.g0.size());
    ValidateConstraintBlocks(p, label, m, c.first, c.second);
    ValidateVector(label, "g0", c.g0, m, false);
    ValidateStiffness(label, c.stiffness);
    if (!(c.relaxation_time >= 0) || std::isinf(c.relaxation_time)) {
      Throw(label + ": relaxation_time must be finite and >= 0");
    }
    if (c.impulse_lower.size() != 0 || c.impulse_upper.size() != 0) {
      ValidateVector(label, "impulse_lower", c.impulse_lower, m, true);
      ValidateVector(label, "impulse_upper", c.impulse_upper, m, true);
      for (int i = 0; i < m; ++i) {
        if (!(c.impulse_lower(i) <= c.impulse_upper(i))) {
          Throw(label + ": impulse_lower(" + std::to_string(i) +
                ") > impulse_upper(" + std::to_string(i) + ")");
        }
      }
    }
  }
  for (int k = 0; k < static_cast<int>(p.actuation.size()); ++k) {
    const ActuationConstraint& c = p.actuation[k];
    const ConstraintLabel label{"actuation", k, c.name};
    const int m = static_cast<int>(c.position.size());
    ValidateConstraintBlocks(p, label, m, c.first, std::nullopt);
    ValidateVector(label, "position", c.position, m, false);
    ValidateVector(label, "target", c.target, m, false);
    ValidateVector(label, "target_velocity", c.target_velocity, m, false);
    ValidateVector(label, "feedforward", c.feedforward, m, false);
    ValidateVector(label, "kp", c.kp, m, false);
    ValidateVector(label, "kd", c.kd, m, false);
    ValidateVector(label, "effort_limit", c.effort_limit, m, true);
    for (int i = 0; i < m; ++i) {
      if (!(c.kp(i) >= 0) || !(c.kd(i) >= 0) || !(c.kp(i) + c.kd(i) > 0)) {
        Throw(label + ": row " + std::to_string(i) +
              ": gains must be kp >= 0, kd >= 0, kp + kd > 0");
      }
      if (!(c.effort_limit(i) > 0)) {
        Throw(label + ": effort_limit(" + std::to_string(i) +
              ") must be > 0 (inf: none)");
      }
    }
  }
}

Eigen::MatrixXd DenseContactJacobian(const SapProblem& p) {
  const std::vector<int> offsets = p.TreeOffsets();
  Eigen::MatrixXd J =
      Eigen::MatrixXd::Zero(3 * p.contacts.size(), p.num_velocities());
  for (size_t k = 0; k < p.contacts.size(); ++k) {
    const Contact& c = p.contacts[k];
    J.block(3 * k, offsets[c.first.tree], 3, c.first.J.cols()) += c.first.J;
    if (c.second) {
      J.block(3 * k, offsets[c.second->tree], 3, c.second->J.cols()) +=
          c.second->J;
    }
  }
  return J;
}

Eigen::MatrixXd DenseA(const SapProblem& p) {
  const int n = p.num_velocities();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  int off = 0;
  for (const Tree& t : p.trees) {
    A.block(off, off, t.A.rows(), t.A.rows()) = t.A;
    off += static_cast<int>(t.A.rows());
  }
  return A;
}

Eigen::VectorXd StackedVStar(const SapProblem& p) {
  Eigen::VectorXd v;
  StackedVStar(p, &v);
  return v;
}

void StackedVStar(const SapProblem& p, Eigen::VectorXd* v) {
  v->resize(p.num_velocities());
  int off = 0;
  for (const Tree& t : p.trees) {
    v->segment(off, t.v_star.size()) = t.v_star;
    off += static_cast<int>(t.v_star.size());
  }
}

}  // namespace sapcontact
