// Random rigid-contact problems with a known solution, for the rigid-QP
// tests. W = J A^-1 J' comes from a random SapProblem (random SPD tree
// matrices and Jacobian blocks; every tree has 3 (number of its contacts) + 1
// DOFs, so J has full row rank and W is positive definite). The constraint
// velocity c is then constructed from a designed KKT point (l*, u*) with a
// prescribed mode per contact: c = u* - W l*. Because W is positive
// definite, l* is THE optimum.
#pragma once

#include <Eigen/Core>
#include <random>
#include <vector>

#include "sapcontact/solver/rigid_qp/contact_kkt_checker.h"
#include "sapcontact/solver/rigid_qp/delassus_operator.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {
namespace testing_rigid_qp {

struct RandomRigidProblem {
  SapProblem sap;
  RigidContactProblem rigid;
  Eigen::VectorXd l_star;  // the known optimum [N*s]
  std::vector<ContactMode> modes;
};

inline Eigen::MatrixXd RandomSpd(int n, std::mt19937* rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  Eigen::MatrixXd B(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = g(*rng);
  return B * B.transpose() / n + Eigen::MatrixXd::Identity(n, n);
}

// A random SapProblem with nc contacts (random trees, one or two per
// contact), friction in [0, 1.5] (about 15% exactly 0). Every tree has
// dofs_per_contact * (its contacts) + 1 DOFs (>= 3 keeps J of full row rank;
// more DOFs make W better conditioned).
inline SapProblem RandomSapProblem(int nc, std::mt19937* rng,
                                   int dofs_per_contact = 3) {
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  const int nt = std::max(1, nc / 2);
  std::uniform_int_distribution<int> pick(0, nt - 1);
  std::vector<std::pair<int, int>> trees_of(nc);
  std::vector<int> count(nt, 0);
  for (int k = 0; k < nc; ++k) {
    const int a = pick(*rng);
    int b = -1;
    if (nt > 1 && unif(*rng) < 0.5) {
      do b = pick(*rng);
      while (b == a);
    }
    trees_of[k] = {a, b};
    ++count[a];
    if (b >= 0) ++count[b];
  }
  SapProblem p;
  p.time_step = 1e-3;
  for (int t = 0; t < nt; ++t) {
    const int n = dofs_per_contact * count[t] + 1;
    Tree tree;
    tree.A = RandomSpd(n, rng);
    tree.v_star = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) tree.v_star(i) = g(*rng);
    p.trees.push_back(tree);
  }
  auto block = [&](int t) {
    ContactJacobianBlock b;
    b.tree = t;
    b.J.resize(3, p.trees[t].A.rows());
    for (int j = 0; j < b.J.cols(); ++j)
      for (int i = 0; i < 3; ++i) b.J(i, j) = g(*rng);
    return b;
  };
  for (int k = 0; k < nc; ++k) {
    Contact c;
    c.first = block(trees_of[k].first);
    if (trees_of[k].second >= 0) c.second = block(trees_of[k].second);
    c.phi0 = -1e-3 * unif(*rng);
    c.parameters.stiffness = std::numeric_limits<double>::infinity();
    c.parameters.dissipation_time_scale = 0.0;
    c.parameters.friction = unif(*rng) < 0.15 ? 0.0 : 1.5 * unif(*rng);
    p.contacts.push_back(c);
  }
  return p;
}

// Designs (l*, u*) with modes cycling through separating, sticking and
// sliding (frictionless contacts: separating or sliding with u_t != 0), and
// sets rigid.c = u* - W l*.
inline RandomRigidProblem MakeRandomRigidProblem(int nc, unsigned seed,
                                                 bool sparse) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  RandomRigidProblem out;
  out.sap = RandomSapProblem(nc, &rng);
  out.rigid = MakeRigidContactProblem(out.sap, sparse);
  out.l_star = Eigen::VectorXd::Zero(3 * nc);
  Eigen::VectorXd u = Eigen::VectorXd::Zero(3 * nc);
  out.modes.resize(nc);
  for (int k = 0; k < nc; ++k) {
    const double mu = out.rigid.mu(k);
    int mode = k % 3;  // 0 separating, 1 sticking, 2 sliding
    if (mu == 0.0 && mode == 1) mode = 2;
    Eigen::Vector2d t(g(rng), g(rng));
    t.normalize();
    Eigen::Vector3d l = Eigen::Vector3d::Zero(), v = Eigen::Vector3d::Zero();
    if (mode == 0) {
      const double ut = 0.2 + unif(rng);
      v << mu * ut + 0.2 + unif(rng), ut * t;
      out.modes[k] = ContactMode::kSeparating;
    } else if (mode == 1) {
      const double ln = 0.5 + unif(rng);
      l << ln, (0.2 + 0.6 * unif(rng)) * mu * ln * t;
      out.modes[k] = ContactMode::kSticking;
    } else {
      const double ln = 0.5 + unif(rng);
      const double slip = 0.2 + unif(rng);
      l << ln, mu * ln * t;
      Eigen::Vector2d ut = -slip * t;
      if (mu == 0.0) ut = slip * Eigen::Vector2d(g(rng), g(rng)).normalized();
      v << mu * slip, ut;
      out.modes[k] = ContactMode::kSliding;
    }
    out.l_star.segment<3>(3 * k) = l;
    u.segment<3>(3 * k) = v;
  }
  out.rigid.c = u - out.rigid.MultiplyW(out.l_star);
  return out;
}

}  // namespace testing_rigid_qp
}  // namespace sapcontact
