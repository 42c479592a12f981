#include "sapcontact/solver/rigid_qp/delassus_operator.h"

#include <Eigen/Cholesky>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/contact_model/regularization.h"

namespace sapcontact {
namespace {

// The Jacobian blocks acting on each tree: (contact index, block).
using TreeBlocks =
    std::vector<std::vector<std::pair<int, const Eigen::MatrixXd*>>>;

TreeBlocks BlocksByTree(const SapProblem& p) {
  TreeBlocks by_tree(p.trees.size());
  for (int k = 0; k < static_cast<int>(p.contacts.size()); ++k) {
    const Contact& c = p.contacts[k];
    by_tree[c.first.tree].emplace_back(k, &c.first.J);
    if (c.second) by_tree[c.second->tree].emplace_back(k, &c.second->J);
  }
  return by_tree;
}

}  // namespace

RigidContactProblem MakeRigidContactProblem(const SapProblem& p, bool sparse) {
  Validate(p);
  if (!p.limits.empty() || !p.holonomic.empty() || !p.actuation.empty()) {
    throw std::invalid_argument(
        "the rigid-contact QP takes contacts only: this problem has limit, "
        "holonomic or actuation constraints (use the SAP solver)");
  }
  const int nc = static_cast<int>(p.contacts.size());
  const TreeBlocks by_tree = BlocksByTree(p);

  Eigen::MatrixXd W_dense;
  std::vector<Eigen::Triplet<double>> triplets;
  if (!sparse) W_dense.setZero(3 * nc, 3 * nc);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const auto& blocks = by_tree[t];
    if (blocks.empty()) continue;
    const Eigen::MatrixXd& A = p.trees[t].A;
    const int m = static_cast<int>(blocks.size());
    Eigen::MatrixXd Y(A.rows(), 3 * m);
    for (int a = 0; a < m; ++a)
      Y.middleCols<3>(3 * a) = blocks[a].second->transpose();
    const Eigen::LLT<Eigen::MatrixXd> llt(A);
    llt.matrixL().solveInPlace(Y);                // Y = L^-1 J_t'
    const Eigen::MatrixXd G = Y.transpose() * Y;  // J_t A_t^-1 J_t'
    for (int a = 0; a < m; ++a) {
      const int ka = blocks[a].first;
      for (int b = 0; b < m; ++b) {
        const int kb = blocks[b].first;
        if (sparse) {
          for (int j = 0; j < 3; ++j) {
            for (int i = 0; i < 3; ++i) {
              triplets.emplace_back(3 * ka + i, 3 * kb + j,
                                    G(3 * a + i, 3 * b + j));
            }
          }
        } else {
          W_dense.block<3, 3>(3 * ka, 3 * kb) += G.block<3, 3>(3 * a, 3 * b);
        }
      }
    }
  }

  Eigen::VectorXd c(3 * nc);
  Eigen::VectorXd mu(nc);
  for (int k = 0; k < nc; ++k) {
    const Contact& contact = p.contacts[k];
    Vector3 v = contact.first.J * p.trees[contact.first.tree].v_star +
                contact.bias_velocity;
    if (contact.second) {
      v += contact.second->J * p.trees[contact.second->tree].v_star;
    }
    v(kNormal) -= NormalStabilizationVelocity(
        contact.phi0, p.time_step, contact.parameters.dissipation_time_scale);
    c.segment<3>(3 * k) = v;
    mu(k) = contact.parameters.friction;
  }

  if (!sparse) {
    return MakeDenseRigidContactProblem(std::move(W_dense), std::move(c),
                                        std::move(mu));
  }
  Eigen::SparseMatrix<double> W(3 * nc, 3 * nc);
  W.setFromTriplets(triplets.begin(), triplets.end());
  return MakeSparseRigidContactProblem(std::move(W), std::move(c),
                                       std::move(mu));
}

Eigen::VectorXd PostStepVelocities(const SapProblem& p,
                                   const Eigen::VectorXd& impulses) {
  const int nc = static_cast<int>(p.contacts.size());
  if (impulses.size() != 3 * nc) {
    throw std::invalid_argument("PostStepVelocities: impulses has size " +
                                std::to_string(impulses.size()) +
                                ", expected 3 nc = " + std::to_string(3 * nc));
  }
  const TreeBlocks by_tree = BlocksByTree(p);
  const std::vector<int> offsets = p.TreeOffsets();
  Eigen::VectorXd v = StackedVStar(p);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    if (by_tree[t].empty()) continue;
    const Eigen::MatrixXd& A = p.trees[t].A;
    Eigen::VectorXd g = Eigen::VectorXd::Zero(A.rows());
    for (const auto& [k, J] : by_tree[t]) {
      g += J->transpose() * impulses.segment<3>(3 * k);
    }
    v.segment(offsets[t], A.rows()) += Eigen::LLT<Eigen::MatrixXd>(A).solve(g);
  }
  return v;
}

}  // namespace sapcontact
