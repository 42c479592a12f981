#include "python/numpy_arguments.h"

#include <cstring>
#include <sstream>

namespace sapcontact::python {
namespace {

std::string ShapeText(const py::array& a) {
  std::ostringstream s;
  s << "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    s << (i ? ", " : "") << a.shape(i);
  }
  s << (a.ndim() == 1 ? ",)" : ")");
  return s.str();
}

std::string Size(int n) { return n < 0 ? "n" : std::to_string(n); }

// numpy.asarray(value) as float64, after checking that its dtype is real.
py::array_t<double> RealArray(py::handle value, const std::string& name) {
  if (value.is_none()) {
    throw py::type_error(name +
                         ": expected an array of real numbers, got None");
  }
  py::array a;
  try {
    a = py::module_::import("numpy").attr("asarray")(value);
  } catch (py::error_already_set&) {
    throw py::type_error(
        name + ": expected an array of real numbers, got " +
        std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(name +
                         ": expected an array of real numbers (float64"
                         " or integer), got dtype " +
                         std::string(py::str(a.dtype())));
  }
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
      a);
}

}  // namespace

Eigen::MatrixXd ToMatrix(py::handle value, const std::string& name, int rows,
                         int cols) {
  const py::array_t<double> a = RealArray(value, name);
  if (a.ndim() != 2 || (rows >= 0 && a.shape(0) != rows) ||
      (cols >= 0 && a.shape(1) != cols)) {
    throw py::value_error(name + ": expected a 2-D array of shape (" +
                          Size(rows) + ", " + Size(cols) + "), got shape " +
                          ShapeText(a));
  }
  const auto r = a.unchecked<2>();
  Eigen::MatrixXd m(a.shape(0), a.shape(1));
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    for (py::ssize_t j = 0; j < a.shape(1); ++j) m(i, j) = r(i, j);
  }
  return m;
}

Eigen::VectorXd ToVector(py::handle value, const std::string& name, int size) {
  const py::array_t<double> a = RealArray(value, name);
  if (a.ndim() == 0 && (size < 0 || size == 1)) {
    return Eigen::VectorXd::Constant(1, *a.data());
  }
  if (a.ndim() != 1 || (size >= 0 && a.shape(0) != size)) {
    throw py::value_error(name + ": expected a 1-D array of shape (" +
                          Size(size) + ",), got shape " + ShapeText(a));
  }
  Eigen::VectorXd v(a.shape(0));
  if (v.size() > 0) {
    std::memcpy(v.data(), a.data(), sizeof(double) * v.size());
  }
  return v;
}

Eigen::Vector3d ToVector3(py::handle value, const std::string& name) {
  return ToVector(value, name, 3);
}

py::array_t<double> ToNumpy(const Eigen::VectorXd& v) {
  py::array_t<double> a(v.size());
  if (v.size() > 0) {
    std::memcpy(a.mutable_data(), v.data(), sizeof(double) * v.size());
  }
  return a;
}

py::array_t<double> ToNumpyRows3(const Eigen::VectorXd& v) {
  py::array_t<double> a(
      {static_cast<py::ssize_t>(v.size() / 3), static_cast<py::ssize_t>(3)});
  if (v.size() > 0) {
    std::memcpy(a.mutable_data(), v.data(), sizeof(double) * v.size());
  }
  return a;
}

py::array_t<double> ToNumpy(const Eigen::MatrixXd& m) {
  py::array_t<double> a(
      {static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  auto w = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) w(i, j) = m(i, j);
  }
  return a;
}

}  // namespace sapcontact::python
