#include "python/name_lookup.h"

#include <pybind11/pybind11.h>

#include <algorithm>
#include <utility>

namespace sapcontact::python {
namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // row i-1, column j-1
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];  // row i-1, column j
      row[j] = std::min(
          {up + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string NearestNamesText(const std::string& name,
                             const std::vector<std::string>& candidates,
                             size_t limit) {
  if (candidates.empty()) return "nearest: none";
  std::vector<std::pair<size_t, size_t>> order;  // (distance, index)
  for (size_t i = 0; i < candidates.size(); ++i) {
    order.emplace_back(EditDistance(name, candidates[i]), i);
  }
  std::stable_sort(
      order.begin(), order.end(),
      [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string text = "nearest: ";
  const size_t shown = std::min(limit, order.size());
  for (size_t k = 0; k < shown; ++k) {
    text += (k > 0 ? ", " : "") + candidates[order[k].second];
  }
  if (order.size() > shown) {
    text += " and " + std::to_string(order.size() - shown) + " more";
  }
  return text;
}

int IndexOfName(const std::string& name,
                const std::vector<std::string>& candidates,
                const std::string& argument, const std::string& what) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i] == name) return static_cast<int>(i);
  }
  throw pybind11::value_error(argument + ": no " + what + " named '" + name +
                              "' (" + NearestNamesText(name, candidates) + ")");
}

}  // namespace sapcontact::python
