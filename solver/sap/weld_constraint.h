// A weld: frame Q (on tree B) held at frame P (on tree A, or the world) as a
// six-row holonomic constraint of the SAP problem (docs/theory.md §17).
//   g = (p_WQ - p_WP, theta)  with theta the rotation vector of R_WQ R_WP'
// (world frame; |theta| < pi), and rows J = J_WQ - J_WP of the frames'
// Jacobians (rows 0-2 the linear velocity of the frame origin, rows 3-5 the
// angular velocity, world frame), so dg/dt = J v to first order in g.
#pragma once

#include <Eigen/Geometry>

#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

/// One side of a weld: a frame's world pose and, for a frame on a tree, the
/// tree's index and the frame's 6 x n_t Jacobian (tree -1: the world, J
/// ignored).
struct WeldFrame {
  Eigen::Isometry3d pose{Eigen::Isometry3d::Identity()};
  int tree{-1};
  Eigen::MatrixXd J;
};

/// The holonomic constraint welding `q` to `p` (at least one on a tree).
/// Stiffness inf (near-rigid) unless changed on the result.
/// @throws std::invalid_argument if both frames are on the world or on the
///         same tree, or a Jacobian is not 6 x n (n checked by Validate()).
HolonomicConstraint MakeWeldConstraint(const WeldFrame& p, const WeldFrame& q,
                                       const std::string& name = "");

}  // namespace sapcontact
