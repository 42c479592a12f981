// Arguments from Python to Eigen and results back to numpy, with errors that
// name the argument: a TypeError for something that is not an array of real
// numbers (strings, complex, objects), a ValueError for a wrong shape.
// Integer and boolean-free real arrays, lists and scalars are accepted and
// converted to float64. The conversions copy (Python keeps its arrays).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <string>

namespace sapcontact::python {

namespace py = pybind11;

/// A real 2-D array of shape (rows, cols); -1 accepts any size.
Eigen::MatrixXd ToMatrix(py::handle value, const std::string& name,
                         int rows = -1, int cols = -1);

/// A real 1-D array of `size` entries (-1: any). A Python scalar is an
/// array of one entry.
Eigen::VectorXd ToVector(py::handle value, const std::string& name,
                         int size = -1);

/// A 3-vector (a 1-D array of 3 entries).
Eigen::Vector3d ToVector3(py::handle value, const std::string& name);

/// A float64 numpy array with a copy of v, shape (v.size(),).
py::array_t<double> ToNumpy(const Eigen::VectorXd& v);

/// A float64 numpy array of shape (v.size() / 3, 3): the stacked 3-vectors of
/// v (contact-major, as in contact_model/conventions.h), one per row.
py::array_t<double> ToNumpyRows3(const Eigen::VectorXd& v);

/// A float64 numpy array with a copy of m, shape (rows, cols).
py::array_t<double> ToNumpy(const Eigen::MatrixXd& m);

}  // namespace sapcontact::python
