#include "sapcontact/fclib/fclib_file_check.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <vector>

namespace sapcontact::fclib_detail {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw FclibError(path + ": " + what);
}

// Turns off HDF5's automatic error-stack printing while in scope (a missing
// optional group is not an error worth printing).
class Hdf5Silencer {
 public:
  Hdf5Silencer() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~Hdf5Silencer() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  Hdf5Silencer(const Hdf5Silencer&) = delete;
  Hdf5Silencer& operator=(const Hdf5Silencer&) = delete;

 private:
  H5E_auto2_t func_{nullptr};
  void* data_{nullptr};
};

// An HDF5 identifier closed by `close` at scope exit.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

enum class Kind { kInteger, kNumeric, kString };

class FileChecker {
 public:
  explicit FileChecker(const std::string& path) : path_(path) {}

  void Open() {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) Fail(path_, "no such file");
    if (std::filesystem::is_directory(path_, ec)) {
      Fail(path_, "is a directory, not an FCLib (HDF5) file");
    }
    if (!std::filesystem::is_regular_file(path_, ec)) {
      Fail(path_, "not a regular file (a device, pipe or socket)");
    }
    file_size_ = std::filesystem::file_size(path_, ec);
    if (ec) Fail(path_, "cannot determine the file size");
    const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
    if (is_hdf5 < 0) Fail(path_, "cannot be opened (unreadable?)");
    if (is_hdf5 == 0) Fail(path_, "not an HDF5 file (FCLib files are HDF5)");
    file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file_ < 0) Fail(path_, "HDF5 cannot open the file");
  }
  ~FileChecker() {
    if (file_ >= 0) H5Fclose(file_);
  }

  // Whether every component of an absolute path exists.
  bool Exists(const std::string& name) const {
    size_t pos = 1;
    while (true) {
      const size_t slash = name.find('/', pos);
      const std::string prefix = name.substr(0, slash);
      if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      if (slash == std::string::npos) return true;
      pos = slash + 1;
    }
  }

  bool IsGroup(const std::string& name) const {
    if (!Exists(name)) return false;
    Handle g(H5Gopen2(file_, name.c_str(), H5P_DEFAULT), H5Gclose);
    return g.ok();
  }

  void RequireGroup(const std::string& name) const {
    if (!IsGroup(name)) Fail(path_, "missing group " + name);
  }

  // Checks that dataset `name` exists with `expected` elements (-1: any) of
  // the given kind; returns the number of elements.
  long long CheckDataset(const std::string& name, Kind kind,
                         long long expected) const {
    if (!Exists(name)) Fail(path_, "missing dataset " + name);
    Handle d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok()) Fail(path_, name + " is not a dataset");
    Handle type(H5Dget_type(d.get()), H5Tclose);
    Handle space(H5Dget_space(d.get()), H5Sclose);
    if (!type.ok() || !space.ok()) Fail(path_, name + ": unreadable dataset");
    const H5T_class_t cls = H5Tget_class(type.get());
    if (kind == Kind::kString) {
      if (cls != H5T_STRING) Fail(path_, name + " is not a string");
      if (H5Tis_variable_str(type.get()) > 0) {
        Fail(path_, name +
                        " is a variable-length string (libfclib reads only "
                        "fixed-length strings)");
      }
      const hssize_t n = H5Sget_simple_extent_npoints(space.get());
      if (n < 0 || n > 1024) Fail(path_, name + ": unreadable string data");
      ReadAll(d.get(), name, kind, n);
      return 1;
    }
    if (cls != H5T_INTEGER && (kind == Kind::kInteger || cls != H5T_FLOAT)) {
      Fail(path_,
           name + (kind == Kind::kInteger ? " is not an integer dataset"
                                          : " is not a numeric dataset"));
    }
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    if (n < 0) Fail(path_, name + ": unreadable dataspace");
    if (expected >= 0 && n != expected) {
      std::ostringstream os;
      os << name << ": " << n << " entries, expected " << expected;
      Fail(path_, os.str());
    }
    if (n > kFclibMaxEntries) {
      std::ostringstream os;
      os << name << ": " << n << " entries, more than the limit of "
         << kFclibMaxEntries << " per dataset (fclib/fclib_io.h)";
      Fail(path_, os.str());
    }
    ReadAll(d.get(), name, kind, n);
    return n;
  }

  // Reads the whole dataset as libfclib will (doubles or ints; strings in
  // their own type): damaged data (a flipped byte in a chunk, an address
  // beyond the end of the file) fails here, with the dataset's name,
  // instead of inside libfclib (which would exit the process).
  void ReadAll(hid_t dataset, const std::string& name, Kind kind,
               long long n) const {
    // Damaged metadata can claim gigabytes of storage, which HDF5 would
    // allocate before it fails: compare with the file first.
    Handle stored_type(H5Dget_type(dataset), H5Tclose);
    const size_t type_size =
        stored_type.ok() ? H5Tget_size(stored_type.get()) : 0;
    if (type_size == 0 || (kind != Kind::kString && type_size > 16)) {
      Fail(path_, name + ": invalid element size " + std::to_string(type_size) +
                      " (damaged file?)");
    }
    const hsize_t storage = H5Dget_storage_size(dataset);
    if (storage > file_size_) {
      Fail(path_, name + ": claims " + std::to_string(storage) +
                      " bytes of storage in a file of " +
                      std::to_string(file_size_) + " bytes (damaged file?)");
    }
    herr_t status = 0;
    if (kind == Kind::kString) {
      Handle type(H5Dget_type(dataset), H5Tclose);
      const size_t size = type.ok() ? H5Tget_size(type.get()) : 0;
      if (size == 0 || size > (1u << 20)) {
        Fail(path_, name + ": unreadable string type");
      }
      std::vector<char> buffer(size * static_cast<size_t>(std::max(n, 1LL)));
      status = H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       buffer.data());
    } else if (kind == Kind::kInteger) {
      std::vector<int> buffer(static_cast<size_t>(std::max(n, 1LL)));
      status = H5Dread(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       buffer.data());
    } else {
      std::vector<double> buffer(static_cast<size_t>(std::max(n, 1LL)));
      status = H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                       H5P_DEFAULT, buffer.data());
    }
    if (status < 0) {
      Fail(path_, name + ": the data cannot be read (damaged file?)");
    }
  }

  int ReadInt(const std::string& name) const {
    CheckDataset(name, Kind::kInteger, 1);
    Handle d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    int value = 0;
    if (H5Dread(d.get(), H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                &value) < 0) {
      Fail(path_, name + ": cannot be read as an int");
    }
    return value;
  }

  // Checks a sparse matrix group; returns (rows, cols).
  std::pair<int, int> CheckMatrix(const std::string& group) const {
    RequireGroup(group);
    const int nzmax = ReadInt(group + "/nzmax");
    const int m = ReadInt(group + "/m");
    const int n = ReadInt(group + "/n");
    const int nz = ReadInt(group + "/nz");
    std::ostringstream os;
    if (m <= 0 || n <= 0) {
      os << group << ": invalid size m = " << m << ", n = " << n;
      Fail(path_, os.str());
    }
    if (nzmax < 0) {
      os << group << "/nzmax = " << nzmax << " is negative";
      Fail(path_, os.str());
    }
    if (nz == -1) {
      CheckDataset(group + "/p", Kind::kInteger, static_cast<long long>(n) + 1);
      CheckDataset(group + "/i", Kind::kInteger, nzmax);
    } else if (nz == -2) {
      CheckDataset(group + "/p", Kind::kInteger, static_cast<long long>(m) + 1);
      CheckDataset(group + "/i", Kind::kInteger, nzmax);
    } else if (nz >= 0) {
      if (nz > nzmax) {
        os << group << ": nz = " << nz << " triplets exceed nzmax = " << nzmax;
        Fail(path_, os.str());
      }
      CheckDataset(group + "/p", Kind::kInteger, nz);
      CheckDataset(group + "/i", Kind::kInteger, nz);
    } else {
      os << group << "/nz = " << nz
         << " is not a storage type (-1 columns, -2 rows, >= 0 triplets)";
      Fail(path_, os.str());
    }
    CheckDataset(group + "/x", Kind::kNumeric, nzmax);
    // Optional matrix info: libfclib reads all of it when conditioning is
    // present.
    if (Exists(group + "/conditioning")) {
      CheckDataset(group + "/conditioning", Kind::kNumeric, 1);
      CheckDataset(group + "/determinant", Kind::kNumeric, 1);
      CheckDataset(group + "/rank", Kind::kInteger, 1);
      if (Exists(group + "/comment")) {
        CheckDataset(group + "/comment", Kind::kString, -1);
      }
    }
    return {m, n};
  }

  bool CheckInfo(const std::string& group) const {
    if (!Exists(group)) return false;
    RequireGroup(group);
    for (const char* field : {"/title", "/description", "/math_info"}) {
      if (Exists(group + field)) {
        CheckDataset(group + field, Kind::kString, -1);
      }
    }
    return true;
  }

  void CheckSpaceDim(const std::string& root) const {
    const int d = ReadInt(root + "/spacedim");
    if (d != 3) {
      Fail(path_, root + "/spacedim = " + std::to_string(d) +
                      ": only 3D problems (spacedim 3) are supported");
    }
  }

  // /solution with r, u of size nr and v of size nv (if nv > 0).
  bool CheckSolution(long long nr, long long nv) const {
    if (!Exists("/solution")) return false;
    RequireGroup("/solution");
    CheckDataset("/solution/u", Kind::kNumeric, nr);
    CheckDataset("/solution/r", Kind::kNumeric, nr);
    if (nv > 0) CheckDataset("/solution/v", Kind::kNumeric, nv);
    return true;
  }

  FclibFileLayout CheckLocal() const {
    FclibFileLayout layout;
    layout.kind = FclibProblemKind::kLocal;
    const std::string root = "/fclib_local";
    CheckSpaceDim(root);
    const auto [m, n] = CheckMatrix(root + "/W");
    if (m != n || m % 3 != 0) {
      Fail(path_, root + "/W is " + std::to_string(m) + " x " +
                      std::to_string(n) + ", expected 3 nc x 3 nc");
    }
    if (Exists(root + "/V") || Exists(root + "/R")) {
      Fail(path_, root +
                      "/V, R: local problems with equality constraints are "
                      "not supported");
    }
    RequireGroup(root + "/vectors");
    CheckDataset(root + "/vectors/q", Kind::kNumeric, m);
    CheckDataset(root + "/vectors/mu", Kind::kNumeric, m / 3);
    layout.has_info = CheckInfo(root + "/info");
    layout.has_solution = CheckSolution(n, 0);
    return layout;
  }

  FclibFileLayout CheckGlobal() const {
    FclibFileLayout layout;
    layout.kind = FclibProblemKind::kGlobal;
    const std::string root = "/fclib_global";
    CheckSpaceDim(root);
    const auto [mm, mn] = CheckMatrix(root + "/M");
    if (mm != mn) {
      Fail(path_, root + "/M is " + std::to_string(mm) + " x " +
                      std::to_string(mn) + ", expected square");
    }
    const auto [hm, hn] = CheckMatrix(root + "/H");
    if (hm != mm || hn % 3 != 0) {
      Fail(path_, root + "/H is " + std::to_string(hm) + " x " +
                      std::to_string(hn) + ", expected " + std::to_string(mm) +
                      " x 3 nc");
    }
    if (Exists(root + "/G")) {
      Fail(path_, root +
                      "/G: global problems with equality constraints are not "
                      "supported");
    }
    RequireGroup(root + "/vectors");
    CheckDataset(root + "/vectors/f", Kind::kNumeric, mm);
    CheckDataset(root + "/vectors/w", Kind::kNumeric, hn);
    CheckDataset(root + "/vectors/mu", Kind::kNumeric, hn / 3);
    layout.has_info = CheckInfo(root + "/info");
    layout.has_solution = CheckSolution(hn, mn);
    return layout;
  }

  FclibFileLayout Check() const {
    const bool local = IsGroup("/fclib_local");
    const bool global = IsGroup("/fclib_global");
    if (!local && !global) {
      Fail(path_,
           "no /fclib_local or /fclib_global group: not an FCLib problem file");
    }
    // libfclib's solution reader prefers the global problem; so do we.
    return global ? CheckGlobal() : CheckLocal();
  }

 private:
  std::string path_;
  hid_t file_{-1};
  std::uintmax_t file_size_{0};
};

}  // namespace

FclibFileLayout CheckFclibFile(const std::string& path) {
  Hdf5Silencer silence;
  FileChecker checker(path);
  checker.Open();
  return checker.Check();
}

void CreateEmptyHdf5File(const std::string& path) {
  Hdf5Silencer silence;
  const hid_t f =
      H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) Fail(path, "cannot create the file");
  if (H5Fclose(f) < 0) Fail(path, "cannot close the new file");
}

}  // namespace sapcontact::fclib_detail
