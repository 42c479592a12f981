// Reading and writing FCLib problem files (HDF5) with libfclib.
//
// FCLib (V. Acary, M. Bremond, T. Koziara, F. Perignon, "FCLIB: a collection
// of discrete 3D Frictional Contact problems", INRIA RT-0444, 2014) stores
// frozen frictional-contact problems; ../shared/fclib/README.md states the
// layout and conventions used here. Per contact the FCLib ordering is ours,
// normal first (n, t1, t2), contact-major (contact_model/conventions.h); the
// reaction r is our impulse gamma and u our constraint velocity v_c. Only
// space dimension 3 is supported.
//
//   local  problem (W, q, mu):        u = W r + q,
//   global problem (M, H, f, w, mu):  M v = H r + f,  u = H' v + w,
//   both with r_i in K_i = { ||r_t,i|| <= mu_i r_n,i } and the Coulomb law
//   (or its convex relaxation, fclib/fclib_residuals.h).
//
// Sparse matrices: libfclib's struct is CSparse's layout and is read as such
// (as Siconos does): nz = -1 compressed columns (p: n+1 column pointers, i:
// row indices), nz = -2 compressed rows (p: m+1 row pointers, i: column
// indices), nz >= 0 triplets (i: row indices, p: column indices, nz
// entries). Duplicate entries are summed.
//
// Errors. libfclib terminates the process (exit(1)) on any HDF5 failure and
// reads datasets into buffers sized from other datasets. Every file is
// therefore checked with the HDF5 C API first (existence, rank, size and
// type class of every dataset libfclib will read, then every such dataset
// read in full, so that damaged data fails here; at most kFclibMaxEntries
// entries per dataset), and only a file that passes is handed to libfclib;
// its contents are then checked (indices, finite values of magnitude at
// most kFclibMaxAbsValue, mu >= 0). A damaged file can still fail inside
// HDF5 or libfclib in ways no check foresees (damaged metadata read in
// another order): ProbeFclibFile reads it in a child process first, so
// that nothing can end or hang the calling process (sapsim fclib does this
// for every file). Every problem is reported as FclibError naming the
// file and the item ("/fclib_local/W/p: 10 entries, expected 13"). Not
// supported (FclibError): space dimension 2, local problems with V, R
// (equality constraints), global problems with G, b, variable-length info
// strings (libfclib reads fixed-length strings only).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <optional>
#include <stdexcept>
#include <string>

namespace sapcontact {

/// A bad or unsupported FCLib file, or a failed write. what() names the file
/// and the problem.
class FclibError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// At most this many entries per dataset (2^26: 512 MiB of doubles), checked
/// before anything is allocated for them.
constexpr long long kFclibMaxEntries = 1LL << 26;
/// Values of W, q, mu, M, H, f, w and of a stored solution must be finite
/// and at most this in magnitude (their squares and products must not
/// overflow: a damaged exponent byte gives e.g. 4.55e306).
constexpr double kFclibMaxAbsValue = 1e150;

/// Which problem a file holds.
enum class FclibProblemKind { kLocal, kGlobal };

/// FCLib's free-text description of a problem (/fclib_*/info).
struct FclibInfo {
  std::string title;
  std::string description;
  std::string math_info;
};

/// A solution stored with a problem (/solution): r and u (3 nc), and for a
/// global problem v (n). Empty vectors when not stored.
struct FclibSolution {
  Eigen::VectorXd r;
  Eigen::VectorXd u;
  Eigen::VectorXd v;
};

/// FCLib local problem: u = W r + q. W is kept exactly as stored (it may be
/// slightly asymmetric or indefinite; see fclib/fclib_residuals.h).
struct FclibLocalProblem {
  /// Delassus operator, 3 nc x 3 nc [1/kg].
  Eigen::SparseMatrix<double> W;
  /// Free velocity, 3 nc [m/s] (q_n < 0: approaching).
  Eigen::VectorXd q;
  /// Friction coefficients, nc [-].
  Eigen::VectorXd mu;
  FclibInfo info;
  std::optional<FclibSolution> solution;

  int num_contacts() const { return static_cast<int>(mu.size()); }
};

/// FCLib global problem: M v = H r + f, u = H' v + w (no G, b).
struct FclibGlobalProblem {
  /// Mass (iteration) matrix, n x n, symmetric positive definite.
  Eigen::SparseMatrix<double> M;
  /// Transposed contact Jacobian, n x 3 nc.
  Eigen::SparseMatrix<double> H;
  /// Generalized free momentum f (n) and contact velocity offset w (3 nc).
  Eigen::VectorXd f;
  Eigen::VectorXd w;
  Eigen::VectorXd mu;
  FclibInfo info;
  std::optional<FclibSolution> solution;

  int num_contacts() const { return static_cast<int>(mu.size()); }
};

/// The kind of problem in `path` (checks that it is an HDF5 file with a
/// /fclib_local or /fclib_global group). @throws FclibError.
FclibProblemKind DetectFclibProblemKind(const std::string& path);

/// Reads a local problem, and /solution if present. @throws FclibError.
FclibLocalProblem ReadFclibLocal(const std::string& path);

/// Reads a global problem, and /solution if present. @throws FclibError.
FclibGlobalProblem ReadFclibGlobal(const std::string& path);

/// Writes `problem` (and its solution, if any) to `path` with libfclib
/// (compressed columns). An existing file at `path` is replaced (libfclib
/// stores one problem per file). The problem is checked first (sizes,
/// finite values of magnitude at most kFclibMaxAbsValue, the reader's range,
/// so that every file written reads back; mu >= 0). @throws FclibError
/// naming the file and the field.
void WriteFclibLocal(const std::string& path, const FclibLocalProblem& problem);

/// As WriteFclibLocal for a global problem.
void WriteFclibGlobal(const std::string& path,
                      const FclibGlobalProblem& problem);

/// Reads `path` (CheckFclibFile, libfclib and the content checks, as
/// ReadFclibLocal/ReadFclibGlobal do) in a forked child process and
/// reports how that went, so that untrusted files can be read in a process
/// that must survive: when the read fails, the child exits (libfclib
/// exit(1)s on HDF5 failures), crashes or runs longer than `timeout_s`
/// (then it is killed), an FclibError names the file and what happened,
/// with the last message libfclib or HDF5 printed. Success means the same
/// read in this process will succeed (it is deterministic). POSIX; call it
/// from a single-threaded process (fork copies only the calling thread: a
/// lock held by another thread would make the child hang until the
/// time-out). @throws FclibError.
void ProbeFclibFile(const std::string& path, double timeout_s = 60.0);

/// The problem name used in tables: the file name without directories and
/// without the extension .hdf5 (or .h5).
std::string FclibProblemName(const std::string& path);

}  // namespace sapcontact
