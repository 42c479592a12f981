# Install rules beyond the per-module ones of SapcontactModule.cmake: the
# sapcontact::sapcontact target, one CMake export file per component, the
# package configuration and version files, the Find modules they use,
# pkg-config files (README "Use the solver in your CMake project") and
# LICENSE (share/doc/sapcontact).
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
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# pkg-config: sapcontact.pc (every component built) and
# sapcontact-<component>.pc for each component, generated from the targets'
# dependencies (cmake/SapcontactPkgConfig.cmake).
include(SapcontactPkgConfig)
set(SAPCONTACT_PC_DESCRIPTION_parallel
  "sapcontact thread pool (solver, collision detector, sweeps)")
set(SAPCONTACT_PC_DESCRIPTION_solver
  "SAP convex compliant-contact solver and rigid-contact cone QP")
set(SAPCONTACT_PC_DESCRIPTION_multibody
  "sapcontact kinematic trees: mass matrix, bias forces, Jacobians")
set(SAPCONTACT_PC_DESCRIPTION_geometry
  "sapcontact geometry: shapes, poses, mass properties, meshes, convex hulls")
set(SAPCONTACT_PC_DESCRIPTION_collision
  "sapcontact collision detection: broad phase, contact manifolds")
set(SAPCONTACT_PC_DESCRIPTION_fclib "sapcontact FCLib problem files")
set(SAPCONTACT_PC_DESCRIPTION_sim
  "sapcontact simulator: scenes, URDF robots, time stepping")
set(SAPCONTACT_PC_DESCRIPTION_studies
  "sapcontact parameter sweeps, metrics and plots")
foreach(component ${SAPCONTACT_COMPONENTS})
  sapcontact_write_pkg_config(sapcontact_${component}
    sapcontact-${component} "${SAPCONTACT_PC_DESCRIPTION_${component}}")
endforeach()
string(REPLACE ";" ", " components "${SAPCONTACT_COMPONENTS}")
sapcontact_write_pkg_config(sapcontact sapcontact
  "sapcontact: every component built (${components})")
