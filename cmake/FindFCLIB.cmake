# FindFCLIB: libfclib (FCLib frictional-contact problem files) and the HDF5 C
# library it is built on, as the imported target FCLIB::FCLIB. sapcontact's
# fclib module also calls HDF5 directly (to check a file before libfclib
# reads it), so the target carries both. Debian: libfclib-dev, libhdf5-dev.
#
# Result variables: FCLIB_FOUND, FCLIB_INCLUDE_DIR, FCLIB_LIBRARY,
# HDF5_C_INCLUDE_DIR, HDF5_C_LIBRARY.
find_path(FCLIB_INCLUDE_DIR fclib.h)
find_library(FCLIB_LIBRARY fclib)
find_path(HDF5_C_INCLUDE_DIR hdf5.h PATH_SUFFIXES hdf5/serial)
find_library(HDF5_C_LIBRARY NAMES hdf5_serial hdf5)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(FCLIB
  REQUIRED_VARS FCLIB_LIBRARY FCLIB_INCLUDE_DIR HDF5_C_LIBRARY
                HDF5_C_INCLUDE_DIR)
mark_as_advanced(FCLIB_INCLUDE_DIR FCLIB_LIBRARY HDF5_C_INCLUDE_DIR
                 HDF5_C_LIBRARY)

if(FCLIB_FOUND AND NOT TARGET FCLIB::FCLIB)
  add_library(FCLIB::HDF5 UNKNOWN IMPORTED)
  set_target_properties(FCLIB::HDF5 PROPERTIES
    IMPORTED_LOCATION "${HDF5_C_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HDF5_C_INCLUDE_DIR}")
  add_library(FCLIB::FCLIB UNKNOWN IMPORTED)
  set_target_properties(FCLIB::FCLIB PROPERTIES
    IMPORTED_LOCATION "${FCLIB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${FCLIB_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES FCLIB::HDF5)
endif()
