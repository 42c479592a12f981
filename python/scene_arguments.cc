// Arguments shared by run_scene, Simulation and sweep: file paths (str or
// os.PathLike) and scene overrides ({key: value} or ['key=value', ...]).
#include <cmath>
#include <string>
#include <vector>

#include "python/bindings.h"

namespace sapcontact::python {
namespace {

// The text of one override value: numbers as Python's repr (exact;
// infinity as YAML's .inf), bools as true/false, sequences as YAML flow
// lists, strings as given.
std::string OverrideValue(py::handle value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) {
    return value.cast<bool>() ? "true" : "false";
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::float_>(value)) {
    const double x = value.cast<double>();
    if (std::isinf(x)) return x > 0 ? ".inf" : "-.inf";  // YAML's spelling
    if (std::isnan(x)) return ".nan";
  }
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return py::repr(value).cast<std::string>();
  }
  if (py::hasattr(value, "dtype") && py::hasattr(value, "item") &&
      py::len(py::module_::import("numpy").attr("shape")(value)) == 0) {
    return OverrideValue(value.attr("item")(), key);  // numpy scalar
  }
  if (py::isinstance<py::sequence>(value) || py::hasattr(value, "__array__")) {
    std::string text = "[";
    bool first = true;
    for (py::handle item : py::iter(value)) {
      text += (first ? "" : ", ") + OverrideValue(item, key);
      first = false;
    }
    return text + "]";
  }
  throw py::type_error(
      "overrides['" + key +
      "']: expected a number, bool, string or list, got " +
      py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

}  // namespace

std::string PathArgument(py::handle value, const std::string& name) {
  try {
    return py::module_::import("os").attr("fspath")(value).cast<std::string>();
  } catch (py::error_already_set&) {
    throw py::type_error(
        name + ": expected a path (str or os.PathLike), got " +
        py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  }
}

std::vector<std::string> OverrideList(const py::object& overrides) {
  std::vector<std::string> out;
  if (overrides.is_none()) return out;
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& item : overrides.cast<py::dict>()) {
      const std::string key = py::str(item.first);
      out.push_back(key + "=" + OverrideValue(item.second, key));
    }
    return out;
  }
  if (py::isinstance<py::str>(overrides)) {
    throw py::type_error(
        "overrides: expected a dict {key: value} or a list of 'key=value' "
        "strings, got a single string");
  }
  for (py::handle item : py::iter(overrides)) {
    if (!py::isinstance<py::str>(item)) {
      throw py::type_error(
          "overrides: expected a dict {key: value} or a list of 'key=value' "
          "strings");
    }
    out.push_back(item.cast<std::string>());
  }
  return out;
}

}  // namespace sapcontact::python
