// Nearest-name suggestions for error messages: "no body named 'blok_0_0_2'
// (nearest: block_0_0_2, block_0_1_2 and 7 more)". Shared by the scene
// loader's and the simulator's name lookups (sim/stepping/time_stepper.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sapcontact {

/// The Levenshtein (edit) distance between a and b: the least number of
/// single-character insertions, deletions and substitutions turning a into
/// b (case-sensitive, byte-wise).
size_t EditDistance(const std::string& a, const std::string& b);

/// Up to `limit` of `candidates`, nearest to `name` first by EditDistance
/// (ties keep the order given), joined by ", ", then " and N more" when
/// candidates were left out: "block_0_0_2, block_0_1_2 and 7 more".
/// "(none)" when there are no candidates; limit 0 lists none ("and N
/// more" only).
std::string NearestNames(const std::string& name,
                         const std::vector<std::string>& candidates,
                         size_t limit = 5);

}  // namespace sapcontact
