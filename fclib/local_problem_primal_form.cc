#include "sapcontact/fclib/local_problem_primal_form.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/fclib/fclib_residuals.h"
#include "sapcontact/solver/sap/disjoint_sets.h"

namespace sapcontact {
namespace {

constexpr double kRigidStiffness = std::numeric_limits<double>::infinity();

// Contacts of each connected component of the contact graph of S, in
// increasing order; components ordered by their first contact.
std::vector<std::vector<int>> Components(const Eigen::SparseMatrix<double>& S,
                                         int nc) {
  DisjointSets components(nc);
  for (int j = 0; j < S.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(S, j); it; ++it) {
      if (it.value() != 0.0) {
        components.Unite(static_cast<int>(it.row()) / 3, j / 3);
      }
    }
  }
  std::vector<int> index(nc, -1);
  std::vector<std::vector<int>> out;
  for (int i = 0; i < nc; ++i) {
    const int root = components.Find(i);
    if (index[root] < 0) {
      index[root] = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[index[root]].push_back(i);
  }
  return out;
}

// Wb ~ L L' by Cholesky with diagonal pivoting (outer-product form), stopped
// when the largest remaining pivot is <= tolerance * the first (largest)
// one. Rows of L are in Wb's order (the permutation is folded in).
struct PivotedCholesky {
  Eigen::MatrixXd L;
  double max_pivot{0.0};
  /// Sum of |remaining diagonal| / max_pivot at the stop (the trace of the
  /// dropped Schur complement for PSD Wb), and its smallest entry /
  /// max_pivot (negative: Wb indefinite).
  double dropped_trace{0.0};
  double min_dropped{0.0};
};

PivotedCholesky FactorPsd(const Eigen::MatrixXd& Wb, double tolerance) {
  const int n = static_cast<int>(Wb.rows());
  PivotedCholesky out;
  Eigen::VectorXd d = Wb.diagonal();
  std::vector<char> used(n, 0);
  Eigen::MatrixXd L(n, n);
  int k = 0;
  for (; k < n; ++k) {
    int p = -1;
    for (int i = 0; i < n; ++i) {
      if (!used[i] && (p < 0 || d(i) > d(p))) p = i;
    }
    if (k == 0) out.max_pivot = d(p);
    if (!(d(p) > tolerance * out.max_pivot)) break;
    used[p] = 1;
    const double pivot = std::sqrt(d(p));
    // Column k: (Wb(:, p) - L(:, 0:k) L(p, 0:k)') / pivot.
    L.col(k) = Wb.col(p);
    if (k > 0) {
      L.col(k).noalias() -= L.leftCols(k) * L.row(p).head(k).transpose();
    }
    L.col(k) /= pivot;
    for (int i = 0; i < n; ++i) {
      if (used[i]) {
        if (i != p) L(i, k) = 0.0;
      } else {
        d(i) -= L(i, k) * L(i, k);
      }
    }
    L(p, k) = pivot;
  }
  out.L = L.leftCols(k);
  if (out.max_pivot > 0) {
    for (int i = 0; i < n; ++i) {
      if (used[i]) continue;
      out.dropped_trace += std::abs(d(i)) / out.max_pivot;
      out.min_dropped = std::min(out.min_dropped, d(i) / out.max_pivot);
    }
  }
  return out;
}

// J = Q1 T with J J' ~ Wb, Q1 (n x r) orthonormal, T (r x r) upper
// triangular: by pivoted Cholesky and QR, or (when the pivoted Cholesky
// meets a negative pivot: Wb indefinite) by eigendecomposition, with T
// diagonal.
struct ComponentFactor {
  Eigen::MatrixXd J, Q1, T;
  double scale{0.0};  // largest pivot or eigenvalue
  double dropped_trace{0.0};
  double min_dropped{0.0};
  bool eigendecomposition{false};
};

ComponentFactor FactorComponent(const Eigen::MatrixXd& Wb,
                                const PrimalFormOptions& options) {
  ComponentFactor f;
  PivotedCholesky chol = FactorPsd(Wb, options.rank_tolerance);
  if (chol.min_dropped >= -options.indefinite_tolerance) {
    const int r = static_cast<int>(chol.L.cols());
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(chol.L);
    f.Q1 = qr.householderQ() * Eigen::MatrixXd::Identity(Wb.rows(), r);
    f.T = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    f.J = std::move(chol.L);
    f.scale = chol.max_pivot;
    f.dropped_trace = chol.dropped_trace;
    f.min_dropped = chol.min_dropped;
    return f;
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Wb);
  if (es.info() != Eigen::Success) {
    throw std::invalid_argument(
        "local primal form: eigendecomposition of W failed");
  }
  const Eigen::VectorXd& lambda = es.eigenvalues();  // ascending
  const int n = static_cast<int>(Wb.rows());
  f.scale = lambda(n - 1);
  int r = 0;
  for (int k = 0; k < n; ++k) {
    if (lambda(k) > options.rank_tolerance * f.scale) {
      ++r;
    } else {
      f.dropped_trace += std::abs(lambda(k)) / f.scale;
      f.min_dropped = std::min(f.min_dropped, lambda(k) / f.scale);
    }
  }
  f.Q1 = es.eigenvectors().rightCols(r);
  f.T = lambda.tail(r).cwiseSqrt().asDiagonal();
  f.J = f.Q1 * f.T;
  f.eigendecomposition = true;
  return f;
}

void CheckInput(const Eigen::SparseMatrix<double>& W, const Eigen::VectorXd& q,
                const Eigen::VectorXd& mu) {
  const Eigen::Index n = 3 * mu.size();
  std::ostringstream os;
  if (mu.size() == 0)
    os << "no contacts";
  else if (W.rows() != n || W.cols() != n) {
    os << "W is " << W.rows() << " x " << W.cols() << ", expected " << n
       << " x " << n;
  } else if (q.size() != n) {
    os << "q has " << q.size() << " entries, expected " << n;
  } else if (!q.allFinite()) {
    os << "q has non-finite entries";
  } else if (!mu.allFinite() || (mu.array() < 0).any()) {
    os << "mu must be finite and >= 0";
  }
  if (!os.str().empty()) {
    throw std::invalid_argument("local primal form: " + os.str());
  }
}

}  // namespace

LocalPrimalForm MakeLocalPrimalForm(const Eigen::SparseMatrix<double>& W,
                                    const Eigen::VectorXd& q,
                                    const Eigen::VectorXd& mu,
                                    const PrimalFormOptions& options) {
  CheckInput(W, q, mu);
  const int nc = static_cast<int>(mu.size());
  const Eigen::SparseMatrix<double> S = SymmetricPart(W);
  LocalPrimalForm out;
  // 1. Scaling.
  const Eigen::VectorXd diag = S.diagonal();
  if (!diag.allFinite()) {
    throw std::invalid_argument("local primal form: W has non-finite entries");
  }
  for (int i = 0; i < nc; ++i) {
    if (diag.segment<3>(3 * i).maxCoeff() <= 0.0) {
      std::ostringstream os;
      os << "local primal form: contact " << i
         << " has a diagonal block of W without a positive entry (max "
         << diag.segment<3>(3 * i).maxCoeff()
         << "): SAP needs a positive Delassus estimate per contact";
      throw std::invalid_argument(os.str());
    }
  }
  out.w_scale = diag.maxCoeff();
  out.q_scale =
      q.lpNorm<Eigen::Infinity>() > 0 ? q.lpNorm<Eigen::Infinity>() : 1.0;
  out.impulse_scale = out.q_scale / out.w_scale;
  const Eigen::VectorXd qn = q / out.q_scale;

  // 2. Components.
  const std::vector<std::vector<int>> comps = Components(S, nc);
  out.components = static_cast<int>(comps.size());
  SapProblem& p = out.problem;
  p.time_step = 1.0;
  p.trees.resize(comps.size());
  p.contacts.resize(nc);
  std::vector<int> local(nc, -1);
  for (size_t b = 0; b < comps.size(); ++b) {
    const std::vector<int>& cs = comps[b];
    const int m = static_cast<int>(cs.size()), n = 3 * m;
    for (int l = 0; l < m; ++l) local[cs[l]] = l;
    Eigen::MatrixXd Wb = Eigen::MatrixXd::Zero(n, n);
    Eigen::VectorXd qb(n);
    for (int l = 0; l < m; ++l) {
      qb.segment<3>(3 * l) = qn.segment<3>(3 * cs[l]);
      for (int c = 0; c < 3; ++c) {
        const int col = 3 * cs[l] + c;
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it) {
          const int row = static_cast<int>(it.row());
          Wb(3 * local[row / 3] + row % 3, 3 * l + c) =
              it.value() / out.w_scale;
        }
      }
    }
    // 3. The factor J = Q1 T of Wb.
    const ComponentFactor f = FactorComponent(Wb, options);
    const int kept = static_cast<int>(f.J.cols());
    if (kept == 0) {
      throw std::invalid_argument(
          "local primal form: W is zero on the component of contact " +
          std::to_string(cs[0]));
    }
    out.rank += kept;
    out.dropped_trace = std::max(out.dropped_trace, f.dropped_trace);
    out.min_dropped_pivot = std::min(out.min_dropped_pivot, f.min_dropped);
    if (f.eigendecomposition) ++out.eigendecompositions;
    // 4. Normal offsets b (v_hat_n = b): minimize ||P0 (qb + E_n b)||^2 +
    // alpha^2 ||b||^2 with P0 = I - Q1 Q1'. Normal equations:
    // (I - Q1n Q1n' + alpha^2 I) b = -(qb_n - Q1n Q1' qb), Q1n = normal rows.
    Eigen::VectorXd bn = Eigen::VectorXd::Zero(m);
    Eigen::VectorXd target = qb;
    if (kept < n) {
      Eigen::MatrixXd Q1n(m, kept);
      Eigen::VectorXd qbn(m);
      for (int l = 0; l < m; ++l) {
        Q1n.row(l) = f.Q1.row(3 * l + kNormal);
        qbn(l) = qb(3 * l + kNormal);
      }
      const double a2 =
          options.normal_offset_damping * options.normal_offset_damping;
      Eigen::MatrixXd G = -Q1n * Q1n.transpose();
      G.diagonal().array() += 1.0 + a2;
      const Eigen::VectorXd rhs = -(qbn - Q1n * (f.Q1.transpose() * qb));
      bn = G.ldlt().solve(rhs);
      for (int l = 0; l < m; ++l) target(3 * l + kNormal) += bn(l);
    }
    // v* = T^-1 Q1' target (least squares J v* = target) and the rest.
    const Eigen::VectorXd v_star =
        f.T.triangularView<Eigen::Upper>().solve(f.Q1.transpose() * target);
    const Eigen::VectorXd s = target - f.J * v_star;
    const double qnorm = qb.norm();
    const double rel = qnorm > 0 ? s.norm() / qnorm : 0.0;
    out.range_residual = std::max(out.range_residual, rel);
    // 5. Offset DOF for what v_hat cannot absorb.
    const bool offset = rel > options.range_tolerance;
    const int nv = kept + (offset ? 1 : 0);
    Eigen::MatrixXd J(n, nv);
    J.leftCols(kept) = f.J;
    Tree& tree = p.trees[b];
    tree.A = Eigen::MatrixXd::Identity(nv, nv);
    tree.v_star.resize(nv);
    tree.v_star.head(kept) = v_star;
    tree.name = "component " + std::to_string(b);
    if (offset) {
      const double eps = options.offset_dof_weight * f.scale;
      const double snorm = s.norm();
      J.col(kept) = (std::sqrt(eps) / snorm) * s;
      tree.v_star(kept) = snorm / std::sqrt(eps);
      ++out.offset_dofs;
    }
    for (int l = 0; l < m; ++l) {
      Contact& c = p.contacts[cs[l]];
      c.first = {static_cast<int>(b), J.middleRows(3 * l, 3)};
      c.second.reset();
      c.phi0 = -bn(l) * p.time_step;  // v_hat_n = -phi0 / dt = b
      c.parameters = ContactParameters{kRigidStiffness, 0.0, mu(cs[l])};
      c.name = "contact " + std::to_string(cs[l]);
    }
  }
  return out;
}

}  // namespace sapcontact
