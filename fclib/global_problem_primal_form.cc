#include "sapcontact/fclib/global_problem_primal_form.h"

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sapcontact/contact_model/conventions.h"
#include "sapcontact/solver/sap/disjoint_sets.h"

namespace sapcontact {
namespace {

using SpMat = Eigen::SparseMatrix<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void Fail(const std::string& what) {
  throw std::invalid_argument("global primal form: " + what);
}

void CheckSizes(const FclibGlobalProblem& g) {
  const Eigen::Index n = g.M.rows(), nc = g.mu.size();
  std::ostringstream os;
  if (nc == 0)
    os << "no contacts";
  else if (g.M.cols() != n || n == 0)
    os << "M must be square and non-empty";
  else if (g.H.rows() != n || g.H.cols() != 3 * nc) {
    os << "H is " << g.H.rows() << " x " << g.H.cols() << ", expected " << n
       << " x " << 3 * nc;
  } else if (g.f.size() != n || !g.f.allFinite()) {
    os << "f must have " << n << " finite entries";
  } else if (g.w.size() != 3 * nc || !g.w.allFinite()) {
    os << "w must have " << 3 * nc << " finite entries";
  } else if (!g.mu.allFinite() || (g.mu.array() < 0).any()) {
    os << "mu must be finite and >= 0";
  }
  if (!os.str().empty()) Fail(os.str());
}

}  // namespace

GlobalPrimalForm MakeGlobalPrimalForm(const FclibGlobalProblem& g,
                                      const PrimalFormOptions& options) {
  CheckSizes(g);
  const int n = static_cast<int>(g.M.rows());
  const int nc = static_cast<int>(g.mu.size());
  // Trees: components of M's graph.
  DisjointSets components(n);
  for (int j = 0; j < g.M.outerSize(); ++j) {
    for (SpMat::InnerIterator it(g.M, j); it; ++it) {
      if (it.value() != 0.0) components.Unite(static_cast<int>(it.row()), j);
    }
  }
  std::vector<std::vector<int>> contact_dofs(nc);
  for (int k = 0; k < nc; ++k) {
    for (int c = 0; c < 3; ++c) {
      for (SpMat::InnerIterator it(g.H, 3 * k + c); it; ++it) {
        if (it.value() != 0.0) {
          contact_dofs[k].push_back(static_cast<int>(it.row()));
        }
      }
    }
    if (contact_dofs[k].empty()) {
      Fail("contact " + std::to_string(k) + " has all-zero columns in H");
    }
    // Merge when the contact touches more than two trees.
    std::vector<int> roots;
    for (int d : contact_dofs[k]) roots.push_back(components.Find(d));
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    if (roots.size() > 2) {
      for (int r : roots) components.Unite(roots[0], r);
    }
  }
  std::map<int, int> tree_of_root;
  std::vector<int> tree_of_dof(n), local_of_dof(n);
  std::vector<std::vector<int>> tree_dofs;
  for (int d = 0; d < n; ++d) {
    const int root = components.Find(d);
    auto [it, inserted] =
        tree_of_root.emplace(root, static_cast<int>(tree_dofs.size()));
    if (inserted) tree_dofs.emplace_back();
    tree_of_dof[d] = it->second;
    local_of_dof[d] = static_cast<int>(tree_dofs[it->second].size());
    tree_dofs[it->second].push_back(d);
  }
  const int nt = static_cast<int>(tree_dofs.size());
  GlobalPrimalForm out;
  SapProblem& p = out.problem;
  p.time_step = 1.0;
  p.trees.resize(nt);
  std::vector<Eigen::LLT<Eigen::MatrixXd>> llt(nt);
  for (int t = 0; t < nt; ++t) {
    const std::vector<int>& dofs = tree_dofs[t];
    const int m = static_cast<int>(dofs.size());
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(m, m);
    Eigen::VectorXd f(m);
    for (int b = 0; b < m; ++b) {
      f(b) = g.f(dofs[b]);
      for (SpMat::InnerIterator it(g.M, dofs[b]); it; ++it) {
        // Same component, so the row is in this tree.
        A(local_of_dof[it.row()], b) = it.value();
      }
    }
    llt[t].compute(A);
    if (llt[t].info() != Eigen::Success) {
      Fail("M is not positive definite on the tree of DOF " +
           std::to_string(dofs[0]));
    }
    p.trees[t].A = A;
    p.trees[t].v_star = llt[t].solve(f);
    p.trees[t].name = "tree of DOF " + std::to_string(dofs[0]);
  }
  // Contacts: Jacobian blocks per tree, Delassus diagonal, q = J v* + w.
  p.contacts.resize(nc);
  Eigen::VectorXd q = g.w;
  double omega = 0.0;
  for (int k = 0; k < nc; ++k) {
    std::vector<int> trees;
    for (int d : contact_dofs[k]) trees.push_back(tree_of_dof[d]);
    std::sort(trees.begin(), trees.end());
    trees.erase(std::unique(trees.begin(), trees.end()), trees.end());
    Contact& c = p.contacts[k];
    Matrix3 Wkk = Matrix3::Zero();
    for (size_t a = 0; a < trees.size(); ++a) {
      const int t = trees[a];
      const std::vector<int>& dofs = tree_dofs[t];
      Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, dofs.size());
      for (int r = 0; r < 3; ++r) {
        for (SpMat::InnerIterator it(g.H, 3 * k + r); it; ++it) {
          if (tree_of_dof[it.row()] == t)
            J(r, local_of_dof[it.row()]) = it.value();
        }
      }
      q.segment<3>(3 * k) += J * p.trees[t].v_star;
      Wkk += J * llt[t].solve(J.transpose());
      if (a == 0) {
        c.first = {t, J};
      } else {
        c.second = ContactJacobianBlock{t, J};
      }
    }
    omega = std::max(omega, Wkk.diagonal().maxCoeff());
    c.parameters = ContactParameters{kInf, 0.0, g.mu(k)};
    c.name = "contact " + std::to_string(k);
  }
  if (!(omega > 0)) Fail("W = H' M^-1 H has no positive diagonal entry");
  const double nu =
      q.lpNorm<Eigen::Infinity>() > 0 ? q.lpNorm<Eigen::Infinity>() : 1.0;
  out.velocity_scale = nu;
  out.impulse_scale = nu / omega;
  // Scale: A = omega M, v* / nu, w / nu.
  for (Tree& t : p.trees) {
    t.A *= omega;
    t.v_star /= nu;
  }
  const Eigen::VectorXd w = g.w / nu;
  for (int k = 0; k < nc; ++k) p.contacts[k].phi0 = w(3 * k) * p.time_step;
  // Tangential w: one offset DOF per tree (the contact's first tree).
  std::vector<std::vector<int>> offset_contacts(nt);
  const double w_scale = std::max(w.lpNorm<Eigen::Infinity>(), 1e-300);
  for (int k = 0; k < nc; ++k) {
    if (Tangential(w.segment<3>(3 * k)).norm() >
        options.range_tolerance * w_scale) {
      offset_contacts[p.contacts[k].first.tree].push_back(k);
    }
  }
  const double eps = options.offset_dof_weight;  // W is O(1) after scaling
  for (int t = 0; t < nt; ++t) {
    if (offset_contacts[t].empty()) continue;
    double snorm = 0.0;
    for (int k : offset_contacts[t]) {
      snorm += Tangential(w.segment<3>(3 * k)).squaredNorm();
    }
    snorm = std::sqrt(snorm);
    Tree& tree = p.trees[t];
    const int m = static_cast<int>(tree.v_star.size());
    tree.A.conservativeResize(m + 1, m + 1);
    tree.A.row(m).setZero();
    tree.A.col(m).setZero();
    tree.A(m, m) = 1.0;
    tree.v_star.conservativeResize(m + 1);
    tree.v_star(m) = snorm / std::sqrt(eps);
    for (int k = 0; k < nc; ++k) {
      for (ContactJacobianBlock* b :
           {&p.contacts[k].first,
            p.contacts[k].second ? &*p.contacts[k].second : nullptr}) {
        if (b == nullptr || b->tree != t) continue;
        b->J.conservativeResize(3, m + 1);
        b->J.col(m).setZero();
      }
    }
    for (int k : offset_contacts[t]) {
      Eigen::MatrixXd& J = p.contacts[k].first.J;
      J(kTangent1, m) = std::sqrt(eps) * w(3 * k + kTangent1) / snorm;
      J(kTangent2, m) = std::sqrt(eps) * w(3 * k + kTangent2) / snorm;
    }
    ++out.offset_dofs;
  }
  for (int t = 0; t < nt; ++t) {
    for (int d : tree_dofs[t]) out.dof_of_velocity.push_back(d);
    if (!offset_contacts[t].empty()) out.dof_of_velocity.push_back(-1);
  }
  return out;
}

Eigen::VectorXd GlobalVelocities(const GlobalPrimalForm& form,
                                 const Eigen::VectorXd& v_sap) {
  int n = 0;
  for (int d : form.dof_of_velocity) n = std::max(n, d + 1);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n);
  for (size_t k = 0;
       k < form.dof_of_velocity.size() && k < static_cast<size_t>(v_sap.size());
       ++k) {
    if (form.dof_of_velocity[k] >= 0) {
      v(form.dof_of_velocity[k]) = form.velocity_scale * v_sap(k);
    }
  }
  return v;
}

FclibLocalProblem CondenseGlobalProblem(const FclibGlobalProblem& g) {
  CheckSizes(g);
  Eigen::SimplicialLDLT<SpMat> ldlt(g.M);
  if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().array() > 0).all()) {
    throw std::invalid_argument(
        "condensing the global problem: M is not positive definite");
  }
  FclibLocalProblem out;
  const SpMat X = ldlt.solve(g.H);
  out.W = SpMat(g.H.transpose()) * X;
  out.W.makeCompressed();
  out.q = g.H.transpose() * ldlt.solve(g.f) + g.w;
  out.mu = g.mu;
  out.info = g.info;
  if (g.solution) {
    FclibSolution s;
    s.r = g.solution->r;
    s.u = g.solution->u;
    out.solution = s;
  }
  return out;
}

}  // namespace sapcontact
