# Install rules beyond the per-module ones of SapcontactModule.cmake: the
# sapcontact::sapcontact target, one CMake export file per component, the
# package configuration and version files, the Find modules they use, and
# pkg-config files (README "Use the solver in your CMake project").
include(CMakePackageConfigHelpers)
set(SAPCONTACT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sapcontact)

install(TARGETS sapcontact EXPORT sapcontact_all_targets)
foreach(export ${SAPCONTACT_COMPONENTS} all)
  install(EXPORT sapcontact_${export}_targets
    NAMESPACE sapcontact::
    FILE sapcontact_${export}_targets.cmake
    DESTINATION ${SAPCONTACT_CMAKE_DIR})
endforeach()

configure_package_config_file(cmake/sapcontactConfig.cmake.in
  ${PROJECT_BINARY_DIR}/sapcontactConfig.cmake
  INSTALL_DESTINATION ${SAPCONTACT_CMAKE_DIR})
# 0.x: a minor version may change the API, so 0.2 accepts 0.2.* only.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/sapcontactConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/sapcontactConfig.cmake
  ${PROJECT_BINARY_DIR}/sapcontactConfigVersion.cmake
  cmake/FindCHOLMOD.cmake
  cmake/FindFCLIB.cmake
  DESTINATION ${SAPCONTACT_CMAKE_DIR})

# pkg-config: sapcontact-solver.pc (the solver component) and sapcontact.pc
# (every component built). Static archives need their dependencies on the
# link line, so they are in Libs, in link order.
file(RELATIVE_PATH SAPCONTACT_PC_PREFIX_FROM_PCDIR
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" SAPCONTACT_PC_PREFIX_FROM_PCDIR
  "${SAPCONTACT_PC_PREFIX_FROM_PCDIR}")
set(SAPCONTACT_PC_SOLVER_LIBS
  "-lsapcontact_rigid_qp -lsapcontact_sap -lsapcontact_linear_algebra -lsapcontact_contact_model")
set(SAPCONTACT_PC_CHOLMOD_LIBS "-lcholmod -lsuitesparseconfig")
if(CHOLMOD_OPENMP_LIBRARIES)  # openmp_thread_scope.cc calls the runtime
  string(APPEND SAPCONTACT_PC_CHOLMOD_LIBS " -lgomp")
endif()
set(SAPCONTACT_PC_NAME "sapcontact-solver")
set(SAPCONTACT_PC_DESCRIPTION
  "SAP convex compliant-contact solver and rigid-contact cone QP")
set(SAPCONTACT_PC_REQUIRES "eigen3")
set(SAPCONTACT_PC_LIBS
  "${SAPCONTACT_PC_SOLVER_LIBS} ${SAPCONTACT_PC_CHOLMOD_LIBS}")
set(SAPCONTACT_PC_CFLAGS "-I${CHOLMOD_INCLUDE_DIR}")
configure_file(cmake/sapcontact.pc.in
  ${PROJECT_BINARY_DIR}/sapcontact-solver.pc @ONLY)

set(SAPCONTACT_PC_NAME "sapcontact")
set(SAPCONTACT_PC_DESCRIPTION "sapcontact: every component built (${SAPCONTACT_COMPONENTS})")
set(all_libs "")
set(SAPCONTACT_PC_REQUIRES "eigen3")
if(SAPCONTACT_BUILD_STUDIES)
  string(APPEND all_libs "-lsapcontact_studies ")
endif()
if(SAPCONTACT_BUILD_SIM)
  string(APPEND all_libs
    "-lsapcontact_sim_replay -lsapcontact_sim_stepping -lsapcontact_sim_scene -lsapcontact_sim_collision -lsapcontact_sim_geometry ")
  string(APPEND SAPCONTACT_PC_REQUIRES " yaml-cpp assimp qhull_r")
endif()
if(SAPCONTACT_BUILD_FCLIB)
  string(APPEND all_libs "-lsapcontact_fclib ")
endif()
string(APPEND all_libs "${SAPCONTACT_PC_SOLVER_LIBS}")
if(SAPCONTACT_BUILD_FCLIB)
  string(APPEND all_libs " ${FCLIB_LIBRARY} ${HDF5_C_LIBRARY}")
endif()
set(SAPCONTACT_PC_LIBS "${all_libs} ${SAPCONTACT_PC_CHOLMOD_LIBS}")
configure_file(cmake/sapcontact.pc.in ${PROJECT_BINARY_DIR}/sapcontact.pc
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sapcontact-solver.pc
  ${PROJECT_BINARY_DIR}/sapcontact.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
