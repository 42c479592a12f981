// The velocity of a contact of a step's problem.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

/// The contact velocity v_c = J v + bias_velocity [m/s] of contact c
/// (contact frame: rows n, t1, t2, contact_model/conventions.h; B relative
/// to A) at the stacked generalized velocities v, `tree_offsets` the
/// trees' offsets in v (SapProblem::TreeOffsets). Bitwise Eigen's J * v
/// plus the bias, without the product kernel's dispatch; no allocation.
Vector3 ContactVelocity(const Contact& c, const std::vector<int>& tree_offsets,
                        const Eigen::VectorXd& v);

}  // namespace sapcontact
