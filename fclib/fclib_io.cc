#include "sapcontact/fclib/fclib_io.h"

// fclib.h declares C functions without an extern "C" guard.
extern "C" {
#include <fclib.h>
}

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <vector>

#include "sapcontact/fclib/fclib_file_check.h"

namespace sapcontact {
namespace {

using fclib_detail::CheckFclibFile;
using fclib_detail::FclibFileLayout;

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw FclibError(path + ": " + what);
}

// libfclib 3.1's delete functions free the members and the info struct but
// not the problem struct itself: complete them here.
struct LocalDeleter {
  void operator()(fclib_local* p) const {
    if (!p) return;
    fclib_delete_local(p);
    std::free(p);
  }
};
struct GlobalDeleter {
  void operator()(fclib_global* p) const {
    if (!p) return;
    fclib_delete_global(p);
    std::free(p);
  }
};
struct SolutionDeleter {
  void operator()(fclib_solution* s) const {
    if (s) fclib_delete_solutions(s, 1);
  }
};

// Converts a libfclib matrix (CSparse layout, see fclib_io.h), checking
// indices and values.
Eigen::SparseMatrix<double> ToEigen(const fclib_matrix& a,
                                    const std::string& path,
                                    const std::string& name) {
  std::vector<Eigen::Triplet<double>> t;
  auto check_value = [&](int k) {
    if (!std::isfinite(a.x[k])) {
      std::ostringstream os;
      os << name << "/x[" << k << "] = " << a.x[k] << " is not finite";
      Fail(path, os.str());
    }
    if (std::abs(a.x[k]) > kFclibMaxAbsValue) {
      std::ostringstream os;
      os << name << "/x[" << k << "] = " << a.x[k]
         << " is out of range (|x| <= " << kFclibMaxAbsValue
         << "; damaged file?)";
      Fail(path, os.str());
    }
  };
  auto check_index = [&](const char* field, int k, int value, int bound) {
    if (value < 0 || value >= bound) {
      std::ostringstream os;
      os << name << "/" << field << "[" << k << "] = " << value
         << " out of range [0, " << bound << ")";
      Fail(path, os.str());
    }
  };
  if (a.nz >= 0) {  // triplets: i rows, p columns
    t.reserve(a.nz);
    for (int k = 0; k < a.nz; ++k) {
      check_index("i", k, a.i[k], a.m);
      check_index("p", k, a.p[k], a.n);
      check_value(k);
      t.emplace_back(a.i[k], a.p[k], a.x[k]);
    }
  } else {
    const bool csc = a.nz == -1;
    const int outer = csc ? a.n : a.m, inner = csc ? a.m : a.n;
    if (a.p[0] != 0 || a.p[outer] > a.nzmax) {
      std::ostringstream os;
      os << name << "/p: p[0] = " << a.p[0] << ", p[" << outer
         << "] = " << a.p[outer] << " (nzmax " << a.nzmax << ")";
      Fail(path, os.str());
    }
    t.reserve(a.p[outer]);
    for (int j = 0; j < outer; ++j) {
      if (a.p[j + 1] < a.p[j]) {
        Fail(path, name + "/p is not non-decreasing at " + std::to_string(j));
      }
      for (int k = a.p[j]; k < a.p[j + 1]; ++k) {
        check_index("i", k, a.i[k], inner);
        check_value(k);
        if (csc) {
          t.emplace_back(a.i[k], j, a.x[k]);
        } else {
          t.emplace_back(j, a.i[k], a.x[k]);
        }
      }
    }
  }
  Eigen::SparseMatrix<double> out(a.m, a.n);
  out.setFromTriplets(t.begin(), t.end());
  return out;
}

Eigen::VectorXd ToVector(const double* x, int n, const std::string& path,
                         const std::string& name) {
  Eigen::VectorXd v(n);
  for (int k = 0; k < n; ++k) {
    if (!std::isfinite(x[k])) {
      std::ostringstream os;
      os << name << "[" << k << "] = " << x[k] << " is not finite";
      Fail(path, os.str());
    }
    if (std::abs(x[k]) > kFclibMaxAbsValue) {
      std::ostringstream os;
      os << name << "[" << k << "] = " << x[k]
         << " is out of range (|x| <= " << kFclibMaxAbsValue
         << "; damaged file?)";
      Fail(path, os.str());
    }
    v(k) = x[k];
  }
  return v;
}

void CheckFriction(const Eigen::VectorXd& mu, const std::string& path,
                   const std::string& name) {
  for (int k = 0; k < mu.size(); ++k) {
    if (!(mu(k) >= 0.0)) {
      std::ostringstream os;
      os << name << "[" << k << "] = " << mu(k) << " is negative";
      Fail(path, os.str());
    }
  }
}

FclibInfo ToInfo(const fclib_info* info) {
  FclibInfo out;
  if (!info) return out;
  if (info->title) out.title = info->title;
  if (info->description) out.description = info->description;
  if (info->math_info) out.math_info = info->math_info;
  return out;
}

std::optional<FclibSolution> ReadSolution(const std::string& path, int nr,
                                          int nv) {
  std::unique_ptr<fclib_solution, SolutionDeleter> s(
      fclib_read_solution(path.c_str()));
  if (!s) Fail(path, "libfclib could not read /solution");
  FclibSolution out;
  out.r = ToVector(s->r, nr, path, "/solution/r");
  out.u = ToVector(s->u, nr, path, "/solution/u");
  if (nv > 0 && s->v) out.v = ToVector(s->v, nv, path, "/solution/v");
  return out;
}

// --- Writing ------------------------------------------------------------

// A CSC copy of an Eigen matrix in libfclib's struct (owning the arrays).
struct CscMatrix {
  std::vector<int> p, i;
  std::vector<double> x;
  fclib_matrix m{};

  explicit CscMatrix(const Eigen::SparseMatrix<double>& a) {
    Eigen::SparseMatrix<double> c = a;
    c.makeCompressed();
    p.assign(c.outerIndexPtr(), c.outerIndexPtr() + c.cols() + 1);
    i.assign(c.innerIndexPtr(), c.innerIndexPtr() + c.nonZeros());
    x.assign(c.valuePtr(), c.valuePtr() + c.nonZeros());
    // libfclib writes nzmax entries of i and x; never 0-sized datasets.
    if (i.empty()) {
      i.push_back(0);
      x.push_back(0.0);
    }
    m.nzmax = static_cast<int>(x.size());
    m.m = static_cast<int>(c.rows());
    m.n = static_cast<int>(c.cols());
    m.p = p.data();
    m.i = i.data();
    m.x = x.data();
    m.nz = -1;
    m.info = nullptr;
  }
};

// Owning copies of the info strings.
struct InfoStrings {
  std::vector<char> title, description, math_info;
  fclib_info info{};

  explicit InfoStrings(const FclibInfo& in) {
    auto copy = [](const std::string& s) {
      std::vector<char> v(s.begin(), s.end());
      v.push_back('\0');
      return v;
    };
    title = copy(in.title);
    description = copy(in.description);
    math_info = copy(in.math_info);
    info.title = title.data();
    info.description = description.data();
    info.math_info = math_info.data();
  }
};

void CheckVector(const Eigen::VectorXd& v, long long n, const std::string& path,
                 const std::string& name) {
  if (v.size() != n) {
    std::ostringstream os;
    os << name << " has " << v.size() << " entries, expected " << n;
    Fail(path, os.str());
  }
  if (!v.allFinite()) Fail(path, name + " has non-finite entries");
  // The reader's range (kFclibMaxAbsValue): what is written reads back.
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    if (std::abs(v[k]) > kFclibMaxAbsValue) {
      std::ostringstream os;
      os << name << "[" << k << "] = " << v[k]
         << " is out of range (|x| <= " << kFclibMaxAbsValue << ")";
      Fail(path, os.str());
    }
  }
}

void CheckMatrixValues(const Eigen::SparseMatrix<double>& a,
                       const std::string& path, const std::string& name) {
  for (int k = 0; k < a.outerSize(); ++k) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(a, k); it; ++it) {
      if (!std::isfinite(it.value())) {
        Fail(path, name + " has non-finite entries");
      }
      if (std::abs(it.value()) > kFclibMaxAbsValue) {
        std::ostringstream os;
        os << name << "(" << it.row() << ", " << it.col()
           << ") = " << it.value()
           << " is out of range (|x| <= " << kFclibMaxAbsValue << ")";
        Fail(path, os.str());
      }
    }
  }
}

void PrepareOutput(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  fclib_detail::CreateEmptyHdf5File(path);
}

void WriteSolution(const std::string& path, const FclibSolution& s, int nr,
                   int nv) {
  CheckVector(s.r, nr, path, "solution r");
  CheckVector(s.u, nr, path, "solution u");
  Eigen::VectorXd r = s.r, u = s.u, v = s.v;
  fclib_solution sol{};
  sol.r = r.data();
  sol.u = u.data();
  if (nv > 0) {
    CheckVector(v, nv, path, "solution v");
    sol.v = v.data();
  }
  if (!fclib_write_solution(&sol, path.c_str())) {
    Fail(path, "libfclib failed to write /solution");
  }
}

}  // namespace

std::string FclibProblemName(const std::string& path) {
  std::filesystem::path p(path);
  std::string name = p.filename().string();
  for (const std::string ext : {".hdf5", ".h5"}) {
    if (name.size() > ext.size() &&
        name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
      return name.substr(0, name.size() - ext.size());
    }
  }
  return name;
}

FclibProblemKind DetectFclibProblemKind(const std::string& path) {
  return CheckFclibFile(path).kind;
}

FclibLocalProblem ReadFclibLocal(const std::string& path) {
  const FclibFileLayout layout = CheckFclibFile(path);
  if (layout.kind != FclibProblemKind::kLocal) {
    Fail(path, "holds a global problem (/fclib_global), not a local one");
  }
  std::unique_ptr<fclib_local, LocalDeleter> p(fclib_read_local(path.c_str()));
  if (!p || !p->W || !p->q || !p->mu) {
    Fail(path, "libfclib could not read the local problem");
  }
  FclibLocalProblem out;
  out.W = ToEigen(*p->W, path, "/fclib_local/W");
  const int n = p->W->m, nc = n / 3;
  out.q = ToVector(p->q, n, path, "/fclib_local/vectors/q");
  out.mu = ToVector(p->mu, nc, path, "/fclib_local/vectors/mu");
  CheckFriction(out.mu, path, "/fclib_local/vectors/mu");
  out.info = ToInfo(p->info);
  if (layout.has_solution) out.solution = ReadSolution(path, n, 0);
  return out;
}

FclibGlobalProblem ReadFclibGlobal(const std::string& path) {
  const FclibFileLayout layout = CheckFclibFile(path);
  if (layout.kind != FclibProblemKind::kGlobal) {
    Fail(path, "holds a local problem (/fclib_local), not a global one");
  }
  std::unique_ptr<fclib_global, GlobalDeleter> p(
      fclib_read_global(path.c_str()));
  if (!p || !p->M || !p->H || !p->f || !p->w || !p->mu) {
    Fail(path, "libfclib could not read the global problem");
  }
  FclibGlobalProblem out;
  out.M = ToEigen(*p->M, path, "/fclib_global/M");
  out.H = ToEigen(*p->H, path, "/fclib_global/H");
  const int nv = p->M->m, n = p->H->n, nc = n / 3;
  out.f = ToVector(p->f, nv, path, "/fclib_global/vectors/f");
  out.w = ToVector(p->w, n, path, "/fclib_global/vectors/w");
  out.mu = ToVector(p->mu, nc, path, "/fclib_global/vectors/mu");
  CheckFriction(out.mu, path, "/fclib_global/vectors/mu");
  out.info = ToInfo(p->info);
  if (layout.has_solution) out.solution = ReadSolution(path, n, nv);
  return out;
}

void WriteFclibLocal(const std::string& path,
                     const FclibLocalProblem& problem) {
  const long long nc = problem.mu.size();
  if (nc <= 0) Fail(path, "cannot write a problem without contacts");
  if (problem.W.rows() != 3 * nc || problem.W.cols() != 3 * nc) {
    std::ostringstream os;
    os << "W is " << problem.W.rows() << " x " << problem.W.cols()
       << ", expected " << 3 * nc << " x " << 3 * nc << " (nc = mu.size())";
    Fail(path, os.str());
  }
  CheckMatrixValues(problem.W, path, "W");
  CheckVector(problem.q, 3 * nc, path, "q");
  CheckVector(problem.mu, nc, path, "mu");
  CheckFriction(problem.mu, path, "mu");
  CscMatrix W(problem.W);
  InfoStrings info(problem.info);
  Eigen::VectorXd q = problem.q, mu = problem.mu;
  fclib_local p{};
  p.W = &W.m;
  p.q = q.data();
  p.mu = mu.data();
  p.spacedim = 3;
  p.info = &info.info;
  PrepareOutput(path);
  if (!fclib_write_local(&p, path.c_str())) {
    Fail(path, "libfclib failed to write the local problem");
  }
  if (problem.solution) {
    WriteSolution(path, *problem.solution, static_cast<int>(3 * nc), 0);
  }
}

void WriteFclibGlobal(const std::string& path,
                      const FclibGlobalProblem& problem) {
  const long long nc = problem.mu.size(), nv = problem.M.rows();
  if (nc <= 0) Fail(path, "cannot write a problem without contacts");
  if (nv <= 0 || problem.M.cols() != nv) Fail(path, "M must be square");
  if (problem.H.rows() != nv || problem.H.cols() != 3 * nc) {
    std::ostringstream os;
    os << "H is " << problem.H.rows() << " x " << problem.H.cols()
       << ", expected " << nv << " x " << 3 * nc;
    Fail(path, os.str());
  }
  CheckMatrixValues(problem.M, path, "M");
  CheckMatrixValues(problem.H, path, "H");
  CheckVector(problem.f, nv, path, "f");
  CheckVector(problem.w, 3 * nc, path, "w");
  CheckVector(problem.mu, nc, path, "mu");
  CheckFriction(problem.mu, path, "mu");
  CscMatrix M(problem.M), H(problem.H);
  InfoStrings info(problem.info);
  Eigen::VectorXd f = problem.f, w = problem.w, mu = problem.mu;
  fclib_global p{};
  p.M = &M.m;
  p.H = &H.m;
  p.f = f.data();
  p.w = w.data();
  p.mu = mu.data();
  p.spacedim = 3;
  p.info = &info.info;
  PrepareOutput(path);
  if (!fclib_write_global(&p, path.c_str())) {
    Fail(path, "libfclib failed to write the global problem");
  }
  if (problem.solution) {
    WriteSolution(path, *problem.solution, static_cast<int>(3 * nc),
                  static_cast<int>(nv));
  }
}

}  // namespace sapcontact
