// Docstrings for help(): pybind11 keeps each paragraph of a docstring as one
// long line, which pydoc prints as it is. WrapDocstrings rewraps every
// docstring of the module at 72 columns (indentation kept, signature lines
// left whole) and spells the classes as sapcontact.X rather than
// sapcontact._sapcontact.X (the package re-exports them).
#include <Python.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "python/bindings.h"

namespace sapcontact::python {
namespace {

constexpr size_t kWidth = 72;

void ReplaceAll(std::string* s, const std::string& from,
                const std::string& to) {
  for (size_t i = s->find(from); i != std::string::npos;
       i = s->find(from, i + to.size())) {
    s->replace(i, from.size(), to);
  }
}

// A signature line of pybind11 ("name(self: ...) -> T", or "1. name(...)"
// of an overload): kept whole, as pydoc and editors read it.
bool IsSignature(const std::string& line) {
  size_t i = 0;
  while (i < line.size() &&
         (std::isdigit(line[i]) || line[i] == '.' || line[i] == ' ')) {
    ++i;
  }
  const size_t open = line.find('(', i);
  if (open == std::string::npos || open == i) return false;
  for (size_t k = i; k < open; ++k) {
    if (!(std::isalnum(line[k]) || line[k] == '_')) return false;
  }
  return line.find(") -> ") != std::string::npos;
}

std::string WrapLine(const std::string& line) {
  if (line.size() <= kWidth || IsSignature(line)) return line;
  const size_t indent = line.find_first_not_of(' ');
  const std::string prefix(indent == std::string::npos ? 0 : indent, ' ');
  std::istringstream words(line);
  std::string word, out, current = prefix;
  while (words >> word) {
    if (current.size() > prefix.size() &&
        current.size() + 1 + word.size() > kWidth) {
      out += current + "\n";
      current = prefix;
    }
    if (current.size() > prefix.size()) current += " ";
    current += word;
  }
  return out + current;
}

std::string Wrap(std::string doc) {
  ReplaceAll(&doc, "sapcontact._sapcontact.", "sapcontact.");
  std::string out;
  size_t start = 0;
  while (start <= doc.size()) {
    size_t end = doc.find('\n', start);
    if (end == std::string::npos) end = doc.size();
    out += WrapLine(doc.substr(start, end - start));
    if (end < doc.size()) out += "\n";
    start = end + 1;
  }
  return out;
}

// A builtin function's docstring, rewritten in place (as pybind11 itself
// does when it chains overloads: the old text freed, the new one strdup'ed).
void WrapFunction(PyObject* f) {
  if (f == nullptr || !PyCFunction_Check(f)) return;
  auto* func = reinterpret_cast<PyCFunctionObject*>(f);
  if (func->m_ml->ml_doc == nullptr) return;
  const std::string wrapped = Wrap(func->m_ml->ml_doc);
  std::free(const_cast<char*>(func->m_ml->ml_doc));
  func->m_ml->ml_doc = strdup(wrapped.c_str());
}

void WrapAttribute(py::handle value) {
  PyObject* v = value.ptr();
  if (PyCFunction_Check(v)) {
    WrapFunction(v);
  } else if (PyInstanceMethod_Check(v)) {
    WrapFunction(PyInstanceMethod_GET_FUNCTION(v));
  } else if (py::isinstance(
                 value, py::module_::import("builtins").attr("staticmethod"))) {
    WrapFunction(value.attr("__func__").ptr());
  } else if (py::isinstance(value,
                            py::module_::import("builtins").attr("property"))) {
    const py::object doc = value.attr("__doc__");
    if (py::isinstance<py::str>(doc)) {
      py::setattr(value, "__doc__", py::str(Wrap(doc.cast<std::string>())));
    }
  }
}

}  // namespace

void WrapDocstrings(py::module_& m) {
  const std::string module_name = m.attr("__name__").cast<std::string>();
  for (const auto& item : m.attr("__dict__").cast<py::dict>()) {
    const py::handle value = item.second;
    if (PyType_Check(value.ptr()) && py::hasattr(value, "__module__") &&
        value.attr("__module__").cast<std::string>() == module_name) {
      const py::object doc = value.attr("__doc__");
      if (py::isinstance<py::str>(doc)) {
        try {
          py::setattr(value, "__doc__", py::str(Wrap(doc.cast<std::string>())));
        } catch (py::error_already_set&) {
          // py::enum_ classes compute __doc__ (a property without setter).
        }
      }
      for (const auto& member : value.attr("__dict__").cast<py::dict>()) {
        WrapAttribute(member.second);
      }
      py::setattr(value, "__module__", py::str("sapcontact"));
    } else {
      WrapAttribute(value);
    }
  }
}

}  // namespace sapcontact::python
