#include "python/name_lookup.h"

#include <pybind11/pybind11.h>

#include "sapcontact/sim/scene/nearest_names.h"

namespace sapcontact::python {

std::string NearestNamesText(const std::string& name,
                             const std::vector<std::string>& candidates,
                             size_t limit) {
  return "nearest: " + NearestNames(name, candidates, limit);
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
