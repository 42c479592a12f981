#include "sapcontact/sim/collision/collision.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sapcontact/sim/collision/narrow_phase.h"

namespace sapcontact {

double MotionBound(const Shape& shape, const Vector3& v, const Vector3& w,
                   double dt) {
  const double angular = w.norm() > 0.0 ? w.norm() * BoundingRadius(shape)
                                        : 0.0;  // a plane never rotates here
  return dt * (v.norm() + angular);
}

CollisionDetector::CollisionDetector(std::vector<CollisionGeometry> bodies)
    : bodies_(std::move(bodies)) {
  fixed_.resize(bodies_.size());
  for (size_t i = 0; i < bodies_.size(); ++i) {
    const std::string context = "collision body " + std::to_string(i);
    Validate(bodies_[i].shape, context);
    if (bodies_[i].shape.type == ShapeType::kPlane && !bodies_[i].fixed) {
      throw std::invalid_argument(context +
                                  ": a plane must be on a fixed body");
    }
    fixed_[i] = bodies_[i].fixed;
  }
}

void CollisionDetector::SetExcludedPairs(
    std::vector<std::pair<int, int>> pairs) {
  const int n = static_cast<int>(bodies_.size());
  for (auto& [a, b] : pairs) {
    if (a < 0 || b < 0 || a >= n || b >= n) {
      throw std::invalid_argument("SetExcludedPairs: pair (" +
                                  std::to_string(a) + ", " + std::to_string(b) +
                                  ") names a body out of range");
    }
    if (a > b) std::swap(a, b);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  excluded_ = std::move(pairs);
}

const std::vector<ContactPoint>& CollisionDetector::FindContacts(
    const std::vector<Pose>& poses, const CollisionOptions& options,
    const std::vector<double>& motion_bounds) {
  const size_t n = bodies_.size();
  if (poses.size() != n) {
    std::ostringstream os;
    os << "FindContacts: " << poses.size() << " poses for " << n << " bodies";
    throw std::invalid_argument(os.str());
  }
  if (!motion_bounds.empty() && motion_bounds.size() != n) {
    std::ostringstream os;
    os << "FindContacts: " << motion_bounds.size() << " motion bounds for " << n
       << " bodies";
    throw std::invalid_argument(os.str());
  }
  if (!(options.margin >= 0.0) || !std::isfinite(options.margin)) {
    throw std::invalid_argument(
        "FindContacts: margin must be finite and >= 0 m");
  }
  auto bound = [&](size_t i) {
    return motion_bounds.empty() ? 0.0 : motion_bounds[i];
  };
  aabbs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!poses[i].position.allFinite() ||
        !poses[i].orientation.coeffs().allFinite()) {
      throw std::invalid_argument("FindContacts: body " + std::to_string(i) +
                                  ": non-finite pose");
    }
    if (!(bound(i) >= 0.0) || !std::isfinite(bound(i))) {
      throw std::invalid_argument("FindContacts: body " + std::to_string(i) +
                                  ": invalid motion bound (must be finite "
                                  "and >= 0 m)");
    }
    aabbs_[i] = ComputeAabb(bodies_[i].shape, poses[i],
                            0.5 * options.margin + bound(i));
  }
  const auto& pairs = broad_phase_.FindPairs(aabbs_, fixed_, options.max_pairs);
  contacts_.clear();
  for (const auto& [i, j] : pairs) {
    if (!excluded_.empty() &&
        std::binary_search(excluded_.begin(), excluded_.end(),
                           std::make_pair(std::min(i, j), std::max(i, j)))) {
      continue;
    }
    // A fixed body is A; otherwise the smaller index (i < j) is A.
    const int a = fixed_[j] ? j : i;
    const int b = a == i ? j : i;
    const size_t first = contacts_.size();
    Collide(bodies_[a].shape, poses[a], bodies_[b].shape, poses[b],
            options.margin + bound(i) + bound(j), &contacts_);
    for (size_t k = first; k < contacts_.size(); ++k) {
      contacts_[k].body_a = a;
      contacts_[k].body_b = b;
    }
    if (contacts_.size() > options.max_contacts) {
      contacts_.clear();
      throw CollisionLimitError(
          "more than " + std::to_string(options.max_contacts) +
              " contacts, the limit; reached at bodies " + std::to_string(a) +
              " and " + std::to_string(b),
          a, b);
    }
  }
  return contacts_;
}

}  // namespace sapcontact
