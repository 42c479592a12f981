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
// type class of every dataset libfclib will read), and only a file that
// passes is handed to libfclib; its contents are then checked (indices,
// finiteness, mu >= 0). Every problem is reported as FclibError naming the
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
/// finiteness, mu >= 0). @throws FclibError naming the file and the field.
void WriteFclibLocal(const std::string& path, const FclibLocalProblem& problem);

/// As WriteFclibLocal for a global problem.
void WriteFclibGlobal(const std::string& path,
                      const FclibGlobalProblem& problem);

/// The problem name used in tables: the file name without directories and
/// without the extension .hdf5 (or .h5).
std::string FclibProblemName(const std::string& path);

}  // namespace sapcontact
