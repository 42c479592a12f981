#include "sapcontact/collision/collision.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sapcontact/collision/narrow_phase.h"
#include "sapcontact/parallel/thread_pool.h"

namespace sapcontact {
namespace {

// Pairs per block of the concurrent narrow phase (a block is handed to one
// thread; a few microseconds of work).
constexpr int kPairsPerBlock = 16;
// Fewer pairs than this are tested on the calling thread.
constexpr int kMinParallelPairs = 32 * kPairsPerBlock;

}  // namespace

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

void CollisionDetector::SetResting(const std::vector<bool>& resting) {
  if (!resting.empty() && resting.size() != bodies_.size()) {
    throw std::invalid_argument(
        "SetResting: " + std::to_string(resting.size()) + " flags for " +
        std::to_string(bodies_.size()) + " bodies");
  }
  resting_ = resting;
  // Every body resting: no pair is tested (a moving kinematic body, fixed
  // but not resting, still meets resting free bodies).
  quiet_ = !resting_.empty() &&
           std::find(resting_.begin(), resting_.end(), false) == resting_.end();
}

CollisionDetector::~CollisionDetector() = default;
CollisionDetector::CollisionDetector(CollisionDetector&&) noexcept = default;
CollisionDetector& CollisionDetector::operator=(CollisionDetector&&) noexcept =
    default;

void CollisionDetector::SetThreads(int threads) {
  if (threads < 1) {
    throw std::invalid_argument("SetThreads: " + std::to_string(threads) +
                                " threads (must be >= 1)");
  }
  if (threads == this->threads()) return;
  pool_.reset();
  if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
}

int CollisionDetector::threads() const {
  const ThreadPool* pool = shared_pool_ ? shared_pool_ : pool_.get();
  return pool ? pool->threads() : 1;
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
  if (quiet_) {  // nothing moves: no pair can have a new contact
    contacts_.clear();
    broad_phase_.FindPairs({}, {});
    return contacts_;
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
  const auto& pairs =
      broad_phase_.FindPairs(aabbs_, fixed_, options.max_pairs, resting_);
  // One pair's contacts appended to *out.
  auto collide_pair = [&](int i, int j, std::vector<ContactPoint>* out) {
    if (!excluded_.empty() &&
        std::binary_search(excluded_.begin(), excluded_.end(),
                           std::make_pair(std::min(i, j), std::max(i, j)))) {
      return;
    }
    // A fixed body is A; otherwise the smaller index (i < j) is A.
    const int a = fixed_[j] ? j : i;
    const int b = a == i ? j : i;
    const size_t first = out->size();
    Collide(bodies_[a].shape, poses[a], bodies_[b].shape, poses[b],
            options.margin + bound(i) + bound(j), out);
    for (size_t k = first; k < out->size(); ++k) {
      (*out)[k].body_a = a;
      (*out)[k].body_b = b;
    }
  };
  // Beyond max_contacts: the pair that crossed it is the one of the first
  // contact past the limit (a pair's contacts are contiguous).
  auto check_limit = [&]() {
    if (contacts_.size() <= options.max_contacts) return;
    const int a = contacts_[options.max_contacts].body_a;
    const int b = contacts_[options.max_contacts].body_b;
    contacts_.clear();
    throw CollisionLimitError(
        "more than " + std::to_string(options.max_contacts) +
            " contacts, the limit; reached at bodies " + std::to_string(a) +
            " and " + std::to_string(b),
        a, b);
  };
  const int num_pairs = static_cast<int>(pairs.size());
  ThreadPool* pool = shared_pool_ ? shared_pool_ : pool_.get();
  if (pool == nullptr || pool->threads() == 1 ||
      num_pairs < kMinParallelPairs) {  // one thread
    contacts_.clear();
    for (const auto& [i, j] : pairs) {
      collide_pair(i, j, &contacts_);
      check_limit();
    }
    return contacts_;
  }
  // Blocks of pairs on the pool's threads (the narrow phase keeps its
  // scratch in thread_local storage), then copied in pair order to their
  // places in contacts_, also on the pool.
  const int blocks = (num_pairs + kPairsPerBlock - 1) / kPairsPerBlock;
  if (static_cast<int>(block_contacts_.size()) < blocks) {
    block_contacts_.resize(blocks);
  }
  pool->ForEach(blocks, [&](int block, int) {
    std::vector<ContactPoint>& out = block_contacts_[block].contacts;
    out.clear();
    const int end = std::min(num_pairs, (block + 1) * kPairsPerBlock);
    for (int p = block * kPairsPerBlock; p < end; ++p) {
      collide_pair(pairs[p].first, pairs[p].second, &out);
      // A block alone past the limit stops early (the merge names the pair).
      if (out.size() > options.max_contacts) return;
    }
  });
  block_offsets_.resize(blocks + 1);
  block_offsets_[0] = 0;
  for (int block = 0; block < blocks; ++block) {
    block_offsets_[block + 1] =
        block_offsets_[block] + block_contacts_[block].contacts.size();
  }
  if (block_offsets_[blocks] > options.max_contacts) {
    // Past the limit: merged in order up to the pair that crossed it.
    contacts_.clear();
    for (int block = 0; block < blocks; ++block) {
      const std::vector<ContactPoint>& found = block_contacts_[block].contacts;
      contacts_.insert(contacts_.end(), found.begin(), found.end());
      check_limit();
    }
  }
  // contacts_ keeps its size from the last call: resizing constructs only
  // the contacts beyond it.
  contacts_.resize(block_offsets_[blocks]);
  pool->ForEach(blocks, [&](int block, int) {
    const std::vector<ContactPoint>& found = block_contacts_[block].contacts;
    std::copy(found.begin(), found.end(),
              contacts_.begin() + block_offsets_[block]);
  });
  return contacts_;
}

}  // namespace sapcontact
