// Structural check of FCLib files with the HDF5 C API, before libfclib reads
// them (libfclib exits the process on any HDF5 failure and sizes its buffers
// from other datasets; see fclib/fclib_io.h). Internal to fclib_io.cc and
// its tests.
#pragma once

#include <string>

#include "sapcontact/fclib/fclib_io.h"

namespace sapcontact::fclib_detail {

/// What the check found besides "the file is readable by libfclib".
struct FclibFileLayout {
  FclibProblemKind kind{FclibProblemKind::kLocal};
  /// A /solution group with the datasets libfclib reads is present.
  bool has_solution{false};
  /// /fclib_*/info is present (libfclib then allocates the info struct).
  bool has_info{false};
};

/// Checks that `path` is an HDF5 file holding an FCLib local or global
/// problem in 3D that libfclib can read without failing: every dataset it
/// reads exists with the size it will allocate, index and size datasets are
/// integers, value datasets are numeric, info strings are fixed-length.
/// Unsupported content (spacedim != 3, V/R or G/b) is rejected.
/// @throws FclibError naming the file and the item.
FclibFileLayout CheckFclibFile(const std::string& path);

/// Creates (truncates) an empty HDF5 file at `path`.
/// @throws FclibError if it cannot be created.
void CreateEmptyHdf5File(const std::string& path);

}  // namespace sapcontact::fclib_detail
