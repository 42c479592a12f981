// Fuzz target: the FCLib reader with its file and content checks, problem
// validation and both FCLib solvers.
//
// Input: the first byte chooses the mode.
//   - 'H' (raw file): the rest is an HDF5 file, read the documented way for
//     untrusted files: ProbeFclibFile (the checks and libfclib in a child
//     process, fclib/fclib_io.h), then, if it passes, in process.
//   - anything else (structured): the bytes decode a small local or global
//     problem (sizes, sparse entries, values including 0, inf, NaN and
//     1e300), written with WriteFclibLocal/Global and read back.
// Rules:
//   - reading and writing throw only FclibError; a problem written and read
//     back is the same problem bit for bit;
//   - every problem read is solved by the rigid QP or SAP (the byte after
//     the sizes chooses) with a status; impulses and velocities are finite.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sapcontact/fclib/fclib_io.h"
#include "sapcontact/fclib/fclib_solver.h"
#include "tests/fuzz/targets/fuzz_target.h"

namespace sapcontact {
namespace {

std::string TempFile() {
  static const std::string dir = fuzz::ProcessTempDir("fclib_fuzzer");
  return dir + "/problem.hdf5";
}

void CheckSolved(const FclibSolveResult& r, int nc) {
  SAPCONTACT_FUZZ_CHECK(!r.status.empty(), "a solve without a status");
  if (r.r.size() == 0) return;  // reported error
  const std::string what = std::string(ToString(r.solver)) + " solve, status " +
                           r.status + ": " + r.message;
  SAPCONTACT_FUZZ_CHECK(r.r.size() == 3 * nc, "impulses of the wrong size");
  SAPCONTACT_FUZZ_CHECK(fuzz::AllFinite(r.r), "non-finite impulses, " + what);
  SAPCONTACT_FUZZ_CHECK(fuzz::AllFinite(r.v), "non-finite velocities, " + what);
}

FclibSolverOptions Options(fuzz::ByteReader* in) {
  FclibSolverOptions o;
  o.solver = in->Bool() ? FclibSolverKind::kSap : FclibSolverKind::kRigid;
  o.sap_contact_space = in->Bool();
  o.continuation = in->Bool();
  o.sap.max_iterations = in->Int(1, 60);
  o.rigid.max_iterations = in->Int(1, 60);
  return o;
}

Eigen::SparseMatrix<double> Sparse(fuzz::ByteReader* in, int rows, int cols,
                                   bool diagonal_first) {
  std::vector<Eigen::Triplet<double>> t;
  if (diagonal_first) {
    for (int i = 0; i < std::min(rows, cols); ++i) {
      t.emplace_back(i, i, in->Real(0.1, 10.0));
    }
  }
  const int extra = in->Int(0, 3 * std::max(rows, cols));
  for (int k = 0; k < extra; ++k) {
    const int i = in->Int(0, rows - 1), j = in->Int(0, cols - 1);
    const double v = in->Real(-5.0, 5.0);
    t.emplace_back(i, j, v);
    if (diagonal_first && rows == cols && i != j) t.emplace_back(j, i, v);
  }
  Eigen::SparseMatrix<double> m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

Eigen::VectorXd Vector(fuzz::ByteReader* in, int n, double lo, double hi) {
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = in->Real(lo, hi);
  return v;
}

bool Same(const Eigen::SparseMatrix<double>& a,
          const Eigen::SparseMatrix<double>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  const Eigen::MatrixXd da(a), db(b);
  return (da.array() == db.array()).all();
}

// ProbeFclibFile's child ends with exit(1) when libfclib gives up on a file;
// libFuzzer's own exit handler would take that for a finding of the fuzzer
// process it was forked from. This handler, registered after libFuzzer's,
// runs first and ends a child at once with the same status.
void EndProbeChildrenQuietly() {
  static const pid_t fuzzer = ::getpid();
  static const bool registered = [] {
    std::atexit([] {
      if (::getpid() != fuzzer) ::_exit(1);
    });
    return true;
  }();
  (void)registered;
}

void Raw(const uint8_t* data, std::size_t size) {
  EndProbeChildrenQuietly();
  const std::string path = TempFile();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data),
            static_cast<std::streamsize>(size));
  }
  try {
    ProbeFclibFile(path, 10.0);
    FclibSolverOptions o;
    o.sap.max_iterations = 30;
    o.rigid.max_iterations = 30;
    if (DetectFclibProblemKind(path) == FclibProblemKind::kLocal) {
      const FclibLocalProblem p = ReadFclibLocal(path);
      if (p.num_contacts() <= 16) {
        CheckSolved(SolveFclibLocal(p, o), p.num_contacts());
      }
    } else {
      const FclibGlobalProblem p = ReadFclibGlobal(path);
      if (p.num_contacts() <= 16 && p.M.rows() <= 96) {
        CheckSolved(SolveFclibGlobal(p, o), p.num_contacts());
      }
    }
  } catch (const FclibError&) {
  }
}

void Structured(fuzz::ByteReader* in) {
  const std::string path = TempFile();
  const bool global = in->Bool();
  const int nc = in->Int(1, 6);
  const FclibSolverOptions options = Options(in);
  if (!global) {
    FclibLocalProblem p;
    p.W = Sparse(in, 3 * nc, 3 * nc, in->Byte() % 4 != 0);
    p.q = Vector(in, 3 * nc, -1.0, 1.0);
    p.mu = Vector(in, nc, 0.0, 1.5);
    try {
      WriteFclibLocal(path, p);
    } catch (const FclibError&) {
      return;  // rejected before writing
    }
    FclibLocalProblem back;
    try {
      back = ReadFclibLocal(path);
    } catch (const FclibError& e) {
      fuzz::Broken("a written local problem reads back", e.what());
    }
    SAPCONTACT_FUZZ_CHECK(Same(p.W, back.W) && p.q == back.q && p.mu == back.mu,
                          "local problem round trip");
    CheckSolved(SolveFclibLocal(back, options), nc);
  } else {
    FclibGlobalProblem p;
    const int n = in->Int(1, 12);
    p.M = Sparse(in, n, n, in->Byte() % 4 != 0);
    p.H = Sparse(in, n, 3 * nc, false);
    p.f = Vector(in, n, -1.0, 1.0);
    p.w = Vector(in, 3 * nc, -1.0, 1.0);
    p.mu = Vector(in, nc, 0.0, 1.5);
    try {
      WriteFclibGlobal(path, p);
    } catch (const FclibError&) {
      return;
    }
    FclibGlobalProblem back;
    try {
      back = ReadFclibGlobal(path);
    } catch (const FclibError& e) {
      fuzz::Broken("a written global problem reads back", e.what());
    }
    SAPCONTACT_FUZZ_CHECK(Same(p.M, back.M) && Same(p.H, back.H) &&
                              p.f == back.f && p.w == back.w && p.mu == back.mu,
                          "global problem round trip");
    CheckSolved(SolveFclibGlobal(back, options), nc);
  }
}

}  // namespace
}  // namespace sapcontact

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > 0 && data[0] == 'H') {
    sapcontact::Raw(data + 1, size - 1);
  } else {
    sapcontact::fuzz::ByteReader in(data, size);
    in.Byte();
    sapcontact::Structured(&in);
  }
  return 0;
}
