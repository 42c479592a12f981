// Reduction of a contact manifold to at most kMaxManifoldPoints points
// (collision/narrow_phase.h): the deepest point, then the point farthest
// from it, then the point making the triangle of largest area with them,
// then the point adding the largest area to the triangle's convex hull (the
// largest quadrilateral; among equal areas the one farthest from the third
// point, the most symmetric). Each distance and area is weighted by the
// point's depth, w = (margin - phi) / (margin - phi_min - length_tolerance)
// clamped to [0, 1]: 1 within length_tolerance of the deepest and 0 at the
// margin: a curved bottom's points at the edge of the margin
// band (speculative, carrying no force at rest, and entering and leaving
// the band as the body moves by round-off) are not preferred to the
// supporting points near the deepest, which keeps a resting body's points
// from step to step. Ties (values within 1e-9 relative; phi within
// `length_tolerance` of the deepest) go to the earliest point: callers list
// points in a body-fixed order. The kept points stay in rule order; the
// others are removed.
#pragma once

#include <cstddef>
#include <vector>

#include "sapcontact/collision/contact_point.h"

namespace sapcontact {

inline constexpr int kMaxManifoldPoints = 4;

/// Reduces (*contacts)[first ..] (each with phi <= margin) to at most
/// kMaxManifoldPoints contacts by the rule above; does nothing when there
/// are that many or fewer. Does not allocate.
void ReduceManifold(std::vector<ContactPoint>* contacts, size_t first,
                    double margin, double length_tolerance);

}  // namespace sapcontact
