// SapModel's operators on velocity and constraint vectors, used by every
// Newton iteration (docs/theory.md §7-8): gathering and scattering between
// the problem's and the model's velocity order, the products with A, J and
// J' (whole model or one island), the constraints' cost, impulses and
// Hessian blocks G at v_c, and the assembly of H = A + J' G J into the
// block-sparse matrix. How the model is built (trees, contacts,
// regularization, patches, islands) is in sap_model.cc.
#include <vector>

#include "sapcontact/solver/sap/sap_model.h"

namespace sapcontact {

namespace {

// out_t += J_t' gamma_m for each side t of a limit, holonomic or actuation
// constraint m (rows from row_offset on in gamma).
void AddConstraintJTranspose(const SapModel::ModelConstraint& m,
                             const Eigen::VectorXd& gamma, int row_offset,
                             const std::vector<int>& offsets,
                             const std::vector<int>& sizes,
                             Eigen::VectorXd* out) {
  const auto g = gamma.segment(row_offset + m.first_row, m.rows);
  out->segment(offsets[m.tree_a], sizes[m.tree_a]).noalias() +=
      m.J_a->transpose() * g;
  if (m.J_b) {
    out->segment(offsets[m.tree_b], sizes[m.tree_b]).noalias() +=
        m.J_b->transpose() * g;
  }
}

}  // namespace

void SapModel::Gather(const Eigen::VectorXd& v_full, Eigen::VectorXd* v) const {
  v->resize(num_velocities_);
  for (int p = 0; p < num_trees(); ++p) {
    v->segment(offsets_[p], sizes_[p]) =
        v_full.segment(full_offsets_[p], sizes_[p]);
  }
}

void SapModel::Scatter(const Eigen::VectorXd& v,
                       Eigen::VectorXd* v_full) const {
  for (int p = 0; p < num_trees(); ++p) {
    v_full->segment(full_offsets_[p], sizes_[p]) =
        v.segment(offsets_[p], sizes_[p]);
  }
}

void SapModel::MultiplyA(const Eigen::VectorXd& x, Eigen::VectorXd* y) const {
  y->resize(num_velocities_);
  for (int p = 0; p < num_trees(); ++p) {
    y->segment(offsets_[p], sizes_[p]).noalias() =
        problem_->trees[tree_of_[p]].A * x.segment(offsets_[p], sizes_[p]);
  }
}

void SapModel::MultiplyJ(const Eigen::VectorXd& v, Eigen::VectorXd* v_c) const {
  v_c->resize(num_constraint_rows());
  for (const ModelConstraint& m : constraints_) {
    auto vc = v_c->segment(row_offset() + m.first_row, m.rows);
    vc.noalias() = *m.J_a * v.segment(offsets_[m.tree_a], sizes_[m.tree_a]);
    if (m.J_b) {
      vc.noalias() += *m.J_b * v.segment(offsets_[m.tree_b], sizes_[m.tree_b]);
    }
  }
  for (int k = 0; k < num_contacts(); ++k) {
    const ModelContact& m = contacts_[k];
    auto vc = v_c->segment<3>(3 * k);
    vc.noalias() =
        m.J_a->lazyProduct(v.segment(offsets_[m.tree_a], sizes_[m.tree_a]));
    if (m.J_b) {
      vc.noalias() +=
          m.J_b->lazyProduct(v.segment(offsets_[m.tree_b], sizes_[m.tree_b]));
    }
  }
}

void SapModel::AddBias(Eigen::VectorXd* v_c) const {
  if (!has_bias_) return;
  for (int k = 0; k < num_contacts(); ++k) {
    v_c->segment<3>(3 * k) += contacts_[k].bias;
  }
}

void SapModel::AddBias(const Island& island, Eigen::VectorXd* v_c) const {
  if (!has_bias_) return;
  for (int k : island.contacts) v_c->segment<3>(3 * k) += contacts_[k].bias;
}

void SapModel::MultiplyJTranspose(const Eigen::VectorXd& gamma,
                                  Eigen::VectorXd* out) const {
  out->setZero(num_velocities_);
  for (const ModelConstraint& m : constraints_) {
    AddConstraintJTranspose(m, gamma, row_offset(), offsets_, sizes_, out);
  }
  for (int k = 0; k < num_contacts(); ++k) {
    const ModelContact& m = contacts_[k];
    const auto g = gamma.segment<3>(3 * k);
    out->segment(offsets_[m.tree_a], sizes_[m.tree_a]).noalias() +=
        m.J_a->transpose().lazyProduct(g);
    if (m.J_b) {
      out->segment(offsets_[m.tree_b], sizes_[m.tree_b]).noalias() +=
          m.J_b->transpose().lazyProduct(g);
    }
  }
}

double SapModel::EvaluateConstraints(const Eigen::VectorXd& v_c,
                                     Eigen::VectorXd* gamma,
                                     ConstraintHessians* G) const {
  gamma->resize(num_constraint_rows());
  if (G) {
    G->contacts.resize(num_contacts());
    G->rows.resize(rows_.size());
  }
  double cost = 0.0;
  ContactConstraintState s;
  for (int k = 0; k < num_contacts(); ++k) {
    contacts_[k].constraint.Evaluate(v_c.segment<3>(3 * k), G != nullptr, &s);
    gamma->segment<3>(3 * k) = s.gamma;
    if (G) G->contacts[k] = s.G;
    cost += s.cost;
  }
  const int r0 = row_offset();
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const ConstraintRowState r = rows_[i].Evaluate(v_c(r0 + i));
    (*gamma)(r0 + i) = r.gamma;
    if (G) G->rows(i) = r.G;
    cost += r.cost;
  }
  return cost;
}

namespace {

using Matrix36 = Eigen::Matrix<double, 3, 6>;
using Matrix63 = Eigen::Matrix<double, 6, 3>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using Vector6 = Eigen::Matrix<double, 6, 1>;

// block += Ji' G Jj for 3 x n Jacobian blocks of any sizes: lazy products
// (these blocks are tiny, and Eigen's general GEMM path costs more than the
// flops).
void AddJtGJ(const Eigen::MatrixXd& Ji, const Matrix3& G,
             const Eigen::MatrixXd& Jj, Eigen::MatrixXd* GJ_workspace,
             Eigen::MatrixXd* block) {
  GJ_workspace->noalias() = G.lazyProduct(Jj);
  block->noalias() += Ji.transpose().lazyProduct(*GJ_workspace);
}

}  // namespace

void SapModel::AssembleHessian(const ConstraintHessians& G,
                               BlockSparseSymmetricMatrix* H) const {
  for (const Island& island : islands_) AssembleHessian(island, G, H);
}

void SapModel::MultiplyA(const Island& island, const Eigen::VectorXd& x,
                         Eigen::VectorXd* y) const {
  for (int p : island.trees) {
    const Eigen::MatrixXd& A = problem_->trees[tree_of_[p]].A;
    if (sizes_[p] == 6) {  // a free body: fixed size, no GEMV call
      y->segment<6>(offsets_[p]).noalias() =
          Eigen::Map<const Matrix6>(A.data()) * x.segment<6>(offsets_[p]);
    } else {
      y->segment(offsets_[p], sizes_[p]).noalias() =
          A * x.segment(offsets_[p], sizes_[p]);
    }
  }
}

void SapModel::MultiplyJ(const Island& island, const Eigen::VectorXd& v,
                         Eigen::VectorXd* v_c) const {
  // J_t v_t of one side of a contact (fixed size for free bodies).
  auto product = [&](const Eigen::MatrixXd& J, int p) -> Vector3 {
    if (sizes_[p] == 6) {
      return Eigen::Map<const Matrix36>(J.data()) * v.segment<6>(offsets_[p]);
    }
    return J.lazyProduct(v.segment(offsets_[p], sizes_[p]));
  };
  for (int k : island.contacts) {
    const ModelContact& m = contacts_[k];
    Vector3 vc = product(*m.J_a, m.tree_a);
    if (m.J_b) vc += product(*m.J_b, m.tree_b);
    v_c->segment<3>(3 * k) = vc;
  }
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    auto vc = v_c->segment(row_offset() + m.first_row, m.rows);
    vc.noalias() = *m.J_a * v.segment(offsets_[m.tree_a], sizes_[m.tree_a]);
    if (m.J_b) {
      vc.noalias() += *m.J_b * v.segment(offsets_[m.tree_b], sizes_[m.tree_b]);
    }
  }
}

void SapModel::MultiplyJTranspose(const Island& island,
                                  const Eigen::VectorXd& gamma,
                                  Eigen::VectorXd* out) const {
  for (int p : island.trees) out->segment(offsets_[p], sizes_[p]).setZero();
  // out_t += J_t' g of one side of a contact (fixed size for free bodies).
  auto add = [&](const Eigen::MatrixXd& J, int p, const Vector3& g) {
    if (sizes_[p] == 6) {
      out->segment<6>(offsets_[p]).noalias() +=
          Eigen::Map<const Matrix36>(J.data()).transpose() * g;
    } else {
      out->segment(offsets_[p], sizes_[p]).noalias() +=
          J.transpose().lazyProduct(g);
    }
  };
  for (int k : island.contacts) {
    const ModelContact& m = contacts_[k];
    const Vector3 g = gamma.segment<3>(3 * k);
    add(*m.J_a, m.tree_a, g);
    if (m.J_b) add(*m.J_b, m.tree_b, g);
  }
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    AddConstraintJTranspose(m, gamma, row_offset(), offsets_, sizes_, out);
  }
}

double SapModel::EvaluateConstraints(
    const Island& island, const Eigen::VectorXd& v_c, Eigen::VectorXd* gamma,
    ConstraintHessians* G, std::vector<ProjectionRegion>* regions) const {
  double cost = 0.0;
  ContactConstraintState s;
  for (int k : island.contacts) {
    contacts_[k].constraint.Evaluate(v_c.segment<3>(3 * k), G != nullptr, &s);
    gamma->segment<3>(3 * k) = s.gamma;
    if (G) G->contacts[k] = s.G;
    if (regions) (*regions)[k] = s.region;
    cost += s.cost;
  }
  const int r0 = row_offset();
  for (int k : island.constraints) {
    const ModelConstraint& m = constraints_[k];
    for (int i = m.first_row; i < m.first_row + m.rows; ++i) {
      const ConstraintRowState r = rows_[i].Evaluate(v_c(r0 + i));
      (*gamma)(r0 + i) = r.gamma;
      if (G) G->rows(i) = r.G;
      cost += r.cost;
    }
  }
  return cost;
}

void SapModel::AssembleWideTree(int p, const std::vector<Matrix3>& G,
                                Eigen::MatrixXd* block) const {
  const WideTree& w = wide_trees_[wide_of_tree_[p]];
  const int m = static_cast<int>(w.contacts.size());
  // Only contacts with G != 0 contribute (separated ones have G = 0): their
  // rows J_k and G_k J_k are packed first.
  w.GJ.resize(3 * m, sizes_[p]);
  w.J_active.resize(3 * m, sizes_[p]);
  int rows = 0;
  for (int i = 0; i < m; ++i) {
    const Matrix3& Gk = G[w.contacts[i]];
    if ((Gk.array() == 0.0).all()) continue;
    w.J_active.middleRows<3>(rows) = w.J.middleRows<3>(3 * i);
    w.GJ.middleRows<3>(rows).noalias() = Gk * w.J.middleRows<3>(3 * i);
    rows += 3;
  }
  if (rows == 0) return;
  // Only the lower triangle: every reader of a BlockSparseSymmetricMatrix
  // uses only that (block_sparse_symmetric_matrix.h).
  block->triangularView<Eigen::Lower>() +=
      w.J_active.topRows(rows).transpose() * w.GJ.topRows(rows);
}

void SapModel::AssembleHessian(const Island& island,
                               const ConstraintHessians& Gs,
                               BlockSparseSymmetricMatrix* H) const {
  const std::vector<Matrix3>& G = Gs.contacts;
  // G J workspace of trees that are not free bodies, one per thread
  // (islands are assembled concurrently: SapSolverParameters::threads).
  thread_local Eigen::MatrixXd gj;
  for (int p : island.trees) {
    H->diagonal_block(p) = problem_->trees[tree_of_[p]].A;
    if (wide_of_tree_[p] >= 0) AssembleWideTree(p, G, &H->diagonal_block(p));
  }
  for (int patch_index : island.patches) {
    const Patch& patch = patches_[patch_index];
    Eigen::MatrixXd* off =
        patch.off_diagonal_block >= 0
            ? &H->off_diagonal_block(patch.off_diagonal_block)
            : nullptr;
    if (off) off->setZero();
    // Limits, holonomic constraints, actuation: J' diag(g) J row by row.
    for (int k : patch.constraints) {
      const ModelConstraint& m = constraints_[k];
      for (int i = 0; i < m.rows; ++i) {
        const double g = Gs.rows(m.first_row + i);
        if (g == 0.0) continue;
        const auto ja = m.J_a->row(i);
        H->diagonal_block(m.tree_a).noalias() += g * ja.transpose() * ja;
        if (!m.J_b) continue;
        const auto jb = m.J_b->row(i);
        H->diagonal_block(m.tree_b).noalias() += g * jb.transpose() * jb;
        if (m.tree_a > m.tree_b) {
          off->noalias() += g * ja.transpose() * jb;
        } else {
          off->noalias() += g * jb.transpose() * ja;
        }
      }
    }
    for (int k : patch.contacts) {
      const ModelContact& m = contacts_[k];
      const bool wide_a = wide_of_tree_[m.tree_a] >= 0;
      const bool wide_b = m.J_b && wide_of_tree_[m.tree_b] >= 0;
      if (sizes_[m.tree_a] == 6 && (!m.J_b || sizes_[m.tree_b] == 6)) {
        // Free bodies: with T = J' (6 x 3) and U = J' G = (G J)' (G is
        // symmetric), J_i' G J_j = T_i U_j': each column of a block is
        // three vectorized 6-element axpys (half the instructions of
        // forming J_i' (G J_j) from the 3 x 6 blocks).
        const Matrix63 Ta =
            Eigen::Map<const Matrix36>(m.J_a->data()).transpose();
        const Matrix63 Ua = Ta * G[k];
        Eigen::Map<Matrix6>(H->diagonal_block(m.tree_a).data()).noalias() +=
            Ta * Ua.transpose();
        if (m.J_b) {
          const Matrix63 Tb =
              Eigen::Map<const Matrix36>(m.J_b->data()).transpose();
          const Matrix63 Ub = Tb * G[k];
          Eigen::Map<Matrix6>(H->diagonal_block(m.tree_b).data()).noalias() +=
              Tb * Ub.transpose();
          // The coupling block (i, j), i > j: J_i' G J_j.
          Eigen::Map<Matrix6>(off->data()).noalias() +=
              m.tree_a > m.tree_b ? (Ta * Ub.transpose()).eval()
                                  : (Tb * Ua.transpose()).eval();
        }
        continue;
      }
      // J' G J restricted to this contact's trees: diagonal blocks
      // J_a' G J_a (+ J_b' G J_b) and the coupling block (i, j), i > j,
      // J_i' G J_j.
      if (!wide_a) {
        AddJtGJ(*m.J_a, G[k], *m.J_a, &gj, &H->diagonal_block(m.tree_a));
      }
      if (m.J_b) {
        if (!wide_b) {
          AddJtGJ(*m.J_b, G[k], *m.J_b, &gj, &H->diagonal_block(m.tree_b));
        }
        if (m.tree_a > m.tree_b) {
          AddJtGJ(*m.J_a, G[k], *m.J_b, &gj, off);
        } else {
          AddJtGJ(*m.J_b, G[k], *m.J_a, &gj, off);
        }
      }
    }
  }
}

}  // namespace sapcontact
