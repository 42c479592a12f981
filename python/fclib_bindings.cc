// Python bindings of FCLib problem files (fclib/): reading a local or global
// problem and solving it with the rigid-contact QP or SAP, with FCLib's
// residuals. FCLib's own conventions are kept: r, u and v are flat vectors
// (3 per contact, normal first, contact-major), as in the file.
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "python/bindings.h"
#include "python/numpy_arguments.h"
#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/fclib/fclib_solver.h"

namespace sapcontact::python {
namespace {

struct PyFclibProblem {
  std::string path;
  FclibProblemKind kind{FclibProblemKind::kLocal};
  FclibLocalProblem local;
  FclibGlobalProblem global;

  const FclibInfo& info() const {
    return kind == FclibProblemKind::kLocal ? local.info : global.info;
  }
  const std::optional<FclibSolution>& solution() const {
    return kind == FclibProblemKind::kLocal ? local.solution : global.solution;
  }
  // A sparse matrix of the problem by name ("W"; "M", "H").
  const Eigen::SparseMatrix<double>& Matrix(const std::string& name) const {
    if (kind == FclibProblemKind::kLocal && name == "W") return local.W;
    if (kind == FclibProblemKind::kGlobal && name == "M") return global.M;
    if (kind == FclibProblemKind::kGlobal && name == "H") return global.H;
    throw py::value_error("name: '" + name + "' is not a matrix of this " +
                          (kind == FclibProblemKind::kLocal
                               ? "local problem (W)"
                               : "global problem (M, H)"));
  }
};

struct PyFclibResult {
  FclibSolveResult r;
};

// Reads `path` (called with the GIL held; releases it while reading).
PyFclibProblem ReadFclib(const std::string& path) {
  PyFclibProblem p;
  p.path = path;
  py::gil_scoped_release release;
  // In a child process first: libfclib ends the process on some HDF5
  // errors (fclib/fclib_io.h).
  ProbeFclibFile(path);
  p.kind = DetectFclibProblemKind(path);
  if (p.kind == FclibProblemKind::kLocal) {
    p.local = ReadFclibLocal(path);
  } else {
    p.global = ReadFclibGlobal(path);
  }
  return p;
}

py::dict SolutionDict(const FclibSolution& s) {
  py::dict d;
  d["r"] = ToNumpy(s.r);
  d["u"] = ToNumpy(s.u);
  d["v"] = ToNumpy(s.v);
  return d;
}

}  // namespace

void DefineFclib(py::module_& m) {
  py::class_<PyFclibProblem>(
      m, "FclibProblem",
      "A frictional-contact problem read from an FCLib HDF5 file "
      "(read_fclib). Local: u = W r + q; global: M v = H r + f, u = H' v + "
      "w; r in the friction cones of mu. Vectors are flat, 3 per contact "
      "(normal first). Matrices: dense(name) or csc(name).")
      .def_readonly("path", &PyFclibProblem::path)
      .def_property_readonly(
          "kind",
          [](const PyFclibProblem& p) {
            return p.kind == FclibProblemKind::kLocal ? "local" : "global";
          },
          "'local' or 'global'.")
      .def_property_readonly("num_contacts",
                             [](const PyFclibProblem& p) {
                               return p.kind == FclibProblemKind::kLocal
                                          ? p.local.num_contacts()
                                          : p.global.num_contacts();
                             })
      .def_property_readonly(
          "title", [](const PyFclibProblem& p) { return p.info().title; })
      .def_property_readonly(
          "description",
          [](const PyFclibProblem& p) { return p.info().description; })
      .def_property_readonly(
          "mu",
          [](const PyFclibProblem& p) {
            return ToNumpy(p.kind == FclibProblemKind::kLocal ? p.local.mu
                                                              : p.global.mu);
          },
          "Friction coefficients (nc,).")
      .def_property_readonly(
          "q",
          [](const PyFclibProblem& p) -> py::object {
            if (p.kind != FclibProblemKind::kLocal) return py::none();
            return ToNumpy(p.local.q);
          },
          "Local problems: q (3 nc,) [m/s]; None for global ones.")
      .def_property_readonly(
          "f",
          [](const PyFclibProblem& p) -> py::object {
            if (p.kind != FclibProblemKind::kGlobal) return py::none();
            return ToNumpy(p.global.f);
          },
          "Global problems: f (nv,); None for local ones.")
      .def_property_readonly(
          "w",
          [](const PyFclibProblem& p) -> py::object {
            if (p.kind != FclibProblemKind::kGlobal) return py::none();
            return ToNumpy(p.global.w);
          },
          "Global problems: w (3 nc,); None for local ones.")
      .def_property_readonly(
          "solution",
          [](const PyFclibProblem& p) -> py::object {
            if (!p.solution()) return py::none();
            return SolutionDict(*p.solution());
          },
          "The reference solution stored in the file as a dict of r, u, v "
          "(flat arrays), or None.")
      .def(
          "dense",
          [](const PyFclibProblem& p, const std::string& name) {
            return ToNumpy(Eigen::MatrixXd(p.Matrix(name)));
          },
          py::arg("name"),
          "A matrix ('W' of a local problem; 'M' or 'H' of a global one) as "
          "a dense float64 array.")
      .def(
          "csc",
          [](const PyFclibProblem& p, const std::string& name) {
            Eigen::SparseMatrix<double> a = p.Matrix(name);
            a.makeCompressed();
            const Eigen::Index nnz = a.nonZeros();
            py::array_t<double> data(nnz);
            py::array_t<int> indices(nnz), indptr(a.cols() + 1);
            for (Eigen::Index i = 0; i < nnz; ++i) {
              data.mutable_at(i) = a.valuePtr()[i];
              indices.mutable_at(i) = a.innerIndexPtr()[i];
            }
            for (Eigen::Index j = 0; j <= a.cols(); ++j) {
              indptr.mutable_at(j) = a.outerIndexPtr()[j];
            }
            return py::make_tuple(data, indices, indptr,
                                  py::make_tuple(a.rows(), a.cols()));
          },
          py::arg("name"),
          "A matrix in compressed sparse columns: (data, indices, indptr, "
          "shape), as scipy.sparse.csc_matrix((data, indices, indptr), "
          "shape) takes it.")
      .def("__repr__", [](const PyFclibProblem& p) {
        return std::string("<sapcontact.FclibProblem ") +
               (p.kind == FclibProblemKind::kLocal ? "local" : "global") +
               " '" + p.path + "'>";
      });

  m.def(
      "read_fclib",
      [](const py::object& path) {
        return ReadFclib(PathArgument(path, "path"));
      },
      py::arg("path"),
      "Reads an FCLib HDF5 file (local or global problem). Raises ValueError "
      "naming the file and the item for a missing, damaged or unsupported "
      "file.");

  py::class_<PyFclibResult>(
      m, "FclibResults",
      "Result of solve_fclib: status, success, message, iterations, "
      "solve_time_s [s], r (3 nc,) [N*s] and v (global problems), and "
      "FCLib's residuals (convex_residual, coulomb_residual: relative; "
      "objective).")
      .def_property_readonly(
          "solver", [](const PyFclibResult& r) { return ToString(r.r.solver); })
      .def_property_readonly("status",
                             [](const PyFclibResult& r) { return r.r.status; })
      .def_property_readonly("success",
                             [](const PyFclibResult& r) { return r.r.success; })
      .def_property_readonly("message",
                             [](const PyFclibResult& r) { return r.r.message; })
      .def_property_readonly(
          "contacts", [](const PyFclibResult& r) { return r.r.contacts; })
      .def_property_readonly(
          "iterations", [](const PyFclibResult& r) { return r.r.iterations; })
      .def_property_readonly(
          "refinement_iterations",
          [](const PyFclibResult& r) { return r.r.refinement_iterations; })
      .def_property_readonly(
          "solve_time_s",
          [](const PyFclibResult& r) { return r.r.solve_time_s; })
      .def_property_readonly(
          "r", [](const PyFclibResult& r) { return ToNumpy(r.r.r); })
      .def_property_readonly(
          "v", [](const PyFclibResult& r) { return ToNumpy(r.r.v); })
      .def_property_readonly(
          "u", [](const PyFclibResult& r) { return ToNumpy(r.r.residuals.u); })
      .def_property_readonly(
          "objective",
          [](const PyFclibResult& r) { return r.r.residuals.objective; })
      .def_property_readonly(
          "convex_residual",
          [](const PyFclibResult& r) { return r.r.residuals.convex_residual; })
      .def_property_readonly(
          "coulomb_residual",
          [](const PyFclibResult& r) { return r.r.residuals.coulomb_residual; })
      .def("__repr__", [](const PyFclibResult& r) {
        return "<sapcontact.FclibResults " + r.r.status + " coulomb_residual=" +
               std::string(
                   py::repr(py::float_(r.r.residuals.coulomb_residual))) +
               ">";
      });

  m.def(
      "solve_fclib",
      [](const py::object& problem, const std::string& solver, bool refine,
         const py::object& sap_parameters, bool continuation) {
        FclibSolverOptions options;
        if (solver == "rigid") {
          options.solver = FclibSolverKind::kRigid;
        } else if (solver == "sap") {
          options.solver = FclibSolverKind::kSap;
        } else {
          throw py::value_error("solver: '" + solver +
                                "' is not one of 'rigid', 'sap'");
        }
        PyFclibProblem read;
        const PyFclibProblem* p = nullptr;
        if (py::isinstance<PyFclibProblem>(problem)) {
          p = &problem.cast<const PyFclibProblem&>();
        } else {
          read = ReadFclib(PathArgument(problem, "problem"));
          p = &read;
        }
        options.refine = refine;
        options.continuation = continuation;
        if (py::isinstance<py::dict>(sap_parameters)) {
          options.sap =
              FromKeywords(options.sap, sap_parameters.cast<py::dict>(),
                           "SapSolverParameters");
        } else if (!sap_parameters.is_none()) {
          options.sap = CastArgument<SapSolverParameters>(
              sap_parameters, "sap_parameters",
              "SapSolverParameters or a dict of its fields");
        }
        Validate(options.sap);
        PyFclibResult out;
        {
          py::gil_scoped_release release;
          out.r = p->kind == FclibProblemKind::kLocal
                      ? SolveFclibLocal(p->local, options)
                      : SolveFclibGlobal(p->global, options);
        }
        return out;
      },
      py::arg("problem"), py::arg("solver") = "rigid", py::arg("refine") = true,
      py::arg("sap_parameters") = py::none(), py::arg("continuation") = true,
      "Solves an FCLib problem (an FclibProblem or a file path) with the "
      "rigid-contact QP ('rigid', default; refined on the Coulomb law by a "
      "natural-map Newton method when refine is True) or SAP in its stiff "
      "limit ('sap', as sapsim fclib --solver sap: beta = 1e-3, sigma = "
      "1e-6, rel_tolerance = 1e-8, max_iterations = 200, reached by "
      "continuation from (1, 1e-3) unless continuation is False). "
      "sap_parameters: a dict of SapSolverParameters fields replacing "
      "those stiff-limit defaults (e.g. {'rel_tolerance': 1e-10}), or a "
      "whole SapSolverParameters (its own defaults are SAP's compliant "
      "ones, beta = 1: not the stiff limit). Returns FclibResults with "
      "FCLib's residuals; a failed solve is reported in status, not "
      "raised.");
}

}  // namespace sapcontact::python
