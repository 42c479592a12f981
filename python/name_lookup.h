// Names given by Python callers (bodies, robots, joints, links) resolved
// against a scene's, with the nearest candidates in the error message:
//   ValueError("body: no body named 'blok_0_0_2' (nearest: block_0_0_2,
//   block_0_1_2, block_0_2_2, block_1_0_2, block_2_0_2 and 20 more)").
#pragma once

#include <string>
#include <vector>

namespace sapcontact::python {

/// "nearest: a, b, c and N more" over `candidates`: at most `limit` names,
/// ordered by edit distance to `name`, ties in the given order
/// (sapcontact::NearestNames, sim/scene/nearest_names.h, as the C++
/// TimeStepper's messages).
std::string NearestNamesText(const std::string& name,
                             const std::vector<std::string>& candidates,
                             size_t limit = 5);

/// The index of `name` in `candidates`, or a ValueError
/// "<argument>: no <what> named '<name>' (nearest: ...)".
int IndexOfName(const std::string& name,
                const std::vector<std::string>& candidates,
                const std::string& argument, const std::string& what);

}  // namespace sapcontact::python
