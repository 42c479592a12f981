// Reduction of a contact manifold to at most kMaxManifoldPoints points
// (sim/collision/narrow_phase.h): the deepest point, then the point farthest
// from it, then the point making the triangle of largest area with them,
// then the point adding the largest area to the triangle's convex hull (the
// largest quadrilateral; in the triangle's plane). Ties (values within 1e-9
// relative, and phi within `length_tolerance` of the deepest) go to the
// earliest point, so a manifold of a resting body keeps the same points step
// after step. The kept points stay in that order; the others are removed.
#pragma once

#include <cstddef>
#include <vector>

#include "sapcontact/sim/collision/contact_point.h"

namespace sapcontact {

inline constexpr int kMaxManifoldPoints = 4;

/// Reduces (*contacts)[first ..] to at most kMaxManifoldPoints contacts by
/// the rule above; does nothing when there are that many or fewer. Does not
/// allocate.
void ReduceManifold(std::vector<ContactPoint>* contacts, size_t first,
                    double length_tolerance);

}  // namespace sapcontact
