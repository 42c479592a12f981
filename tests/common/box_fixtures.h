// Synthetic SAP problems made of unit boxes (free bodies, 6 DOFs each, with
// generalized velocity (v, w) in the world frame) for benchmarks and scaling
// tests. Structure:
//   - Chain(N): N boxes in a row on the ground, each touching the next face
//     to face (4 contacts per face) and the ground (4 contacts per box); the
//     tree/patch graph is a path (no fill-in in Cholesky).
//   - Grid(N): N x N boxes on the ground with 4 ground contacts each and 4
//     contacts per shared face with the x and y neighbours; a 2-D graph.
// The contacts are slightly penetrating and gravity acts. Each box starts
// with a pseudo-random horizontal velocity of up to `jiggle` m/s (a fixed
// sequence), so that ground contacts slide or stick and neighbours push or
// separate: local physics whose difficulty does not grow with N. With
// jiggle = 0 the boxes rest and one Newton step is exact.
#pragma once

#include <Eigen/Core>
#include <array>

#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact::fixtures {

struct BoxSetup {
  double mass{1.0};    // kg
  double size{0.1};    // m, edge length
  double dt{1e-3};     // s
  double g{9.81};      // m/s^2
  double jiggle{0.0};  // m/s: amplitude of the initial velocities
  ContactParameters contact{1e6, 0.01, 0.5};
};

// 3 x 6 Jacobian of the velocity of world point `r` (relative to the centre
// of mass) projected on the contact frame whose rows are (n, t1, t2).
inline Eigen::MatrixXd PointJacobian(const Eigen::Vector3d& r,
                                     const Eigen::Matrix3d& frame_rows) {
  Eigen::Matrix<double, 3, 6> point;
  Eigen::Matrix3d skew;
  skew << 0, -r(2), r(1), r(2), 0, -r(0), -r(1), r(0), 0;
  point << Eigen::Matrix3d::Identity(), -skew;
  return frame_rows * point;
}

class BoxWorld {
 public:
  explicit BoxWorld(const BoxSetup& s) : s_(s) { problem_.time_step = s.dt; }

  // Adds a box with centre c; returns its tree index.
  int AddBox(const Eigen::Vector3d& c, const Eigen::Vector3d& v0) {
    Tree t;
    t.A = Eigen::MatrixXd::Zero(6, 6);
    const double I = s_.mass * s_.size * s_.size / 6.0;
    t.A.diagonal() << s_.mass, s_.mass, s_.mass, I, I, I;
    t.v_star = Eigen::VectorXd::Zero(6);
    t.v_star.head<3>() = v0;
    t.v_star(2) -= s_.g * s_.dt;
    problem_.trees.push_back(t);
    centres_.push_back(c);
    return static_cast<int>(problem_.trees.size()) - 1;
  }
  // 4 ground contacts at the bottom corners (normal +z).
  void AddGroundContacts(int b) {
    Eigen::Matrix3d rows;
    rows << 0, 0, 1, 1, 0, 0, 0, 1, 0;  // n = z, t1 = x, t2 = y
    const double h = 0.5 * s_.size;
    for (double x : {-h, h}) {
      for (double y : {-h, h}) {
        Contact c;
        c.first = {b, PointJacobian(Eigen::Vector3d(x, y, -h), rows)};
        c.phi0 = -1e-5;
        c.parameters = s_.contact;
        problem_.contacts.push_back(c);
      }
    }
  }
  // 4 contacts on the face shared by boxes a and b, b at +axis of a (axis 0
  // = x or 1 = y); the normal points from a to b.
  void AddFaceContacts(int a, int b, int axis) {
    Eigen::Matrix3d rows;
    if (axis == 0) {
      rows << 1, 0, 0, 0, 1, 0, 0, 0, 1;  // n = x, t1 = y, t2 = z
    } else {
      rows << 0, 1, 0, 0, 0, 1, 1, 0, 0;  // n = y, t1 = z, t2 = x
    }
    const double h = 0.5 * s_.size;
    const Eigen::Vector3d mid = 0.5 * (centres_[a] + centres_[b]);
    const int u = (axis + 1) % 3, w = (axis + 2) % 3;
    for (double p : {-0.8 * h, 0.8 * h}) {
      for (double q : {-0.8 * h, 0.8 * h}) {
        Eigen::Vector3d x = mid;
        x(u) += p;
        x(w) += q;
        Contact c;
        c.first = {a, -PointJacobian(x - centres_[a], rows)};
        c.second =
            ContactJacobianBlock{b, PointJacobian(x - centres_[b], rows)};
        c.phi0 = -1e-6;
        c.parameters = s_.contact;
        problem_.contacts.push_back(c);
      }
    }
  }
  const SapProblem& problem() const { return problem_; }

 private:
  BoxSetup s_;
  SapProblem problem_;
  std::vector<Eigen::Vector3d> centres_;
};

// Deterministic pseudo-random horizontal velocity of box i in [-a, a]^2.
inline Eigen::Vector3d Jiggle(int i, double a) {
  auto u = [](unsigned x) {  // integer hash to [0, 1)
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x / 4294967296.0;
  };
  const unsigned k = 2u * static_cast<unsigned>(i);
  return Eigen::Vector3d(a * (2 * u(k) - 1), a * (2 * u(k + 1) - 1), 0.0);
}

inline SapProblem Chain(int n, const BoxSetup& s = {}) {
  BoxWorld w(s);
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d v0 = Jiggle(i, s.jiggle);
    w.AddBox(Eigen::Vector3d(i * s.size, 0, 0.5 * s.size), v0);
    w.AddGroundContacts(i);
    if (i > 0) w.AddFaceContacts(i - 1, i, 0);
  }
  return w.problem();
}

inline SapProblem Grid(int n, const BoxSetup& s = {}) {
  BoxWorld w(s);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const Eigen::Vector3d v0 = Jiggle(i * n + j, s.jiggle);
      const int b =
          w.AddBox(Eigen::Vector3d(i * s.size, j * s.size, 0.5 * s.size), v0);
      w.AddGroundContacts(b);
      if (i > 0) w.AddFaceContacts(b - n, b, 0);
      if (j > 0) w.AddFaceContacts(b - 1, b, 1);
    }
  }
  return w.problem();
}

}  // namespace sapcontact::fixtures
