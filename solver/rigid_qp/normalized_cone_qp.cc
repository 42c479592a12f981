#include "sapcontact/solver/rigid_qp/normalized_cone_qp.h"

#include <algorithm>
#include <cmath>

namespace sapcontact {

void NormalizedConeQp::MultiplyP(const Eigen::VectorXd& x,
                                 Eigen::VectorXd* y) const {
  if (sparse) {
    y->noalias() = P_lower.selfadjointView<Eigen::Lower>() * x;
  } else {
    y->noalias() = P * x;
  }
}

NormalizedConeQp NormalizeRigidContactProblem(const RigidContactProblem& p,
                                              bool sparse) {
  NormalizedConeQp qp;
  const int nc = p.num_contacts();
  qp.num_contacts = nc;
  qp.sparse = sparse;
  qp.d = PerContactJacobiScaling(p);

  // Variable layout and cones.
  std::vector<int> reduced_index(3 * nc, -1);
  std::vector<double> t;
  for (int i = 0; i < nc; ++i) {
    const double mu = p.mu(i);
    ConeBlock cone;
    cone.offset = qp.n;
    cone.contact = i;
    if (mu > 0.0) {
      cone.dim = 3;
      const double m = std::max(1.0, mu);
      t.push_back(mu / m);
      t.push_back(1.0 / m);
      t.push_back(1.0 / m);
    } else {
      cone.dim = 1;
      t.push_back(1.0);
    }
    for (int k = 0; k < cone.dim; ++k) {
      reduced_index[3 * i + k] = qp.n + k;
      qp.full_index.push_back(3 * i + k);
    }
    qp.n += cone.dim;
    qp.cones.push_back(cone);
  }
  qp.t = Eigen::Map<const Eigen::VectorXd>(t.data(), qp.n);

  // q = D c / beta on the kept variables.
  Eigen::VectorXd dc(qp.n);
  for (int r = 0; r < qp.n; ++r) {
    const int f = qp.full_index[r];
    dc(r) = qp.d(f / 3) * p.c(f);
  }
  qp.beta = qp.n > 0 ? dc.cwiseAbs().maxCoeff() : 0.0;
  if (qp.beta == 0.0) return qp;
  qp.q = dc / qp.beta;

  // P = D W D restricted to the kept variables.
  if (sparse) {
    std::vector<Eigen::Triplet<double>> triplets;
    auto add = [&](int row, int col, double v) {
      const int r = reduced_index[row];
      const int c = reduced_index[col];
      if (r < 0 || c < 0 || r < c || v == 0.0) return;
      triplets.emplace_back(r, c, qp.d(row / 3) * v * qp.d(col / 3));
    };
    if (p.use_sparse_storage) {
      triplets.reserve(p.W_sparse.nonZeros() / 2 + qp.n);
      for (int k = 0; k < p.W_sparse.outerSize(); ++k) {
        for (Eigen::SparseMatrix<double>::InnerIterator it(p.W_sparse, k); it;
             ++it) {
          add(it.row(), it.col(), it.value());
        }
      }
    } else {
      for (int j = 0; j < p.W.cols(); ++j) {
        for (int i = j; i < p.W.rows(); ++i) add(i, j, p.W(i, j));
      }
    }
    qp.P_lower.resize(qp.n, qp.n);
    qp.P_lower.setFromTriplets(triplets.begin(), triplets.end());
    qp.P_lower.makeCompressed();
  } else {
    qp.P.resize(qp.n, qp.n);
    if (p.use_sparse_storage) {
      qp.P.setZero();
      for (int k = 0; k < p.W_sparse.outerSize(); ++k) {
        for (Eigen::SparseMatrix<double>::InnerIterator it(p.W_sparse, k); it;
             ++it) {
          const int r = reduced_index[it.row()];
          const int c = reduced_index[it.col()];
          if (r < 0 || c < 0) continue;
          qp.P(r, c) += qp.d(it.row() / 3) * it.value() * qp.d(it.col() / 3);
        }
      }
    } else {
      for (int c = 0; c < qp.n; ++c) {
        const int fc = qp.full_index[c];
        for (int r = 0; r < qp.n; ++r) {
          const int fr = qp.full_index[r];
          qp.P(r, c) = qp.d(fr / 3) * p.W(fr, fc) * qp.d(fc / 3);
        }
      }
    }
    // Exact symmetry (W is symmetric up to the validation tolerance).
    qp.P = (0.5 * (qp.P + qp.P.transpose())).eval();
  }
  return qp;
}

Eigen::VectorXd ImpulsesFromNormalized(const NormalizedConeQp& qp,
                                       const Eigen::VectorXd& x) {
  Eigen::VectorXd l = Eigen::VectorXd::Zero(3 * qp.num_contacts);
  for (int r = 0; r < qp.n; ++r) {
    const int f = qp.full_index[r];
    l(f) = qp.beta * qp.d(f / 3) * x(r);
  }
  return l;
}

Eigen::VectorXd NormalizedFromImpulses(const NormalizedConeQp& qp,
                                       const Eigen::VectorXd& l) {
  Eigen::VectorXd x(qp.n);
  for (int r = 0; r < qp.n; ++r) {
    const int f = qp.full_index[r];
    x(r) = l(f) / (qp.beta * qp.d(f / 3));
  }
  return x;
}

}  // namespace sapcontact
