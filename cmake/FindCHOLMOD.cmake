# FindCHOLMOD: CHOLMOD (SuiteSparse) as the imported target CHOLMOD::CHOLMOD.
# Debian's SuiteSparse 5.x (libsuitesparse-dev) ships no CMake package, so
# the header and the libraries are located directly. BLAS and LAPACK are
# linked by libcholmod itself.
#
# Result variables: CHOLMOD_FOUND, CHOLMOD_INCLUDE_DIR, CHOLMOD_LIBRARY,
# SUITESPARSECONFIG_LIBRARY, CHOLMOD_OPENMP_LIBRARIES (empty without an
# OpenMP runtime).
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY cholmod)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CHOLMOD
  REQUIRED_VARS CHOLMOD_LIBRARY SUITESPARSECONFIG_LIBRARY CHOLMOD_INCLUDE_DIR)
mark_as_advanced(CHOLMOD_INCLUDE_DIR CHOLMOD_LIBRARY SUITESPARSECONFIG_LIBRARY)
find_package(OpenMP QUIET COMPONENTS CXX)
set(CHOLMOD_OPENMP_LIBRARIES "")
if(OpenMP_CXX_FOUND)
  set(CHOLMOD_OPENMP_LIBRARIES ${OpenMP_CXX_LIBRARIES})
endif()

if(CHOLMOD_FOUND AND NOT TARGET CHOLMOD::CHOLMOD)
  add_library(CHOLMOD::SuiteSparseConfig UNKNOWN IMPORTED)
  set_target_properties(CHOLMOD::SuiteSparseConfig PROPERTIES
    IMPORTED_LOCATION "${SUITESPARSECONFIG_LIBRARY}")
  add_library(CHOLMOD::CHOLMOD UNKNOWN IMPORTED)
  set_target_properties(CHOLMOD::CHOLMOD PROPERTIES
    IMPORTED_LOCATION "${CHOLMOD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "CHOLMOD::SuiteSparseConfig;${CHOLMOD_OPENMP_LIBRARIES}")
endif()
