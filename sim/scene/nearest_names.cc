#include "sapcontact/sim/scene/nearest_names.h"

#include <algorithm>
#include <numeric>

namespace sapcontact {

size_t EditDistance(const std::string& a, const std::string& b) {
  // One row of the dynamic-programming table at a time.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // table(i - 1, j - 1)
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];  // table(i - 1, j)
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({up + 1, row[j - 1] + 1, substitute});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string NearestNames(const std::string& name,
                         const std::vector<std::string>& candidates,
                         size_t limit) {
  if (candidates.empty()) return "(none)";
  std::vector<size_t> distance(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    distance[i] = EditDistance(name, candidates[i]);
  }
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return distance[x] < distance[y];
  });
  const size_t shown = std::min(limit, candidates.size());
  std::string list;
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) list += ", ";
    list += candidates[order[i]];
  }
  if (shown < candidates.size()) {
    if (!list.empty()) list += " ";
    list += "and " + std::to_string(candidates.size() - shown) + " more";
  }
  return list;
}

}  // namespace sapcontact
