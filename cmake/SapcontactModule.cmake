# sapcontact_add_module(<name> COMPONENT <component>
#                       [PUBLIC <deps>...] [PRIVATE <deps>...])
#
# One library per module folder (the folder of the calling CMakeLists.txt):
# target sapcontact_<name>, alias sapcontact::<name>, built from the folder's
# *.cc; its *.h are installed to include/sapcontact/<folder> and reached as
# <sapcontact/<folder>/<file>.h> both in the build tree (a link farm in
# ${SAPCONTACT_INCLUDE_DIR}, see the top-level CMakeLists.txt) and after
# installation. PRIVATE dependencies that are header-only build tools (e.g.
# nlohmann_json) should be wrapped in $<BUILD_INTERFACE:...> by the caller.
# The target joins the export set of <component> (find_package COMPONENTS).
function(sapcontact_add_module name)
  cmake_parse_arguments(M "" "COMPONENT" "PUBLIC;PRIVATE" ${ARGN})
  if(NOT M_COMPONENT)
    message(FATAL_ERROR "sapcontact_add_module(${name}): COMPONENT missing")
  endif()
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  set(target sapcontact_${name})
  add_library(${target} ${sources} ${headers})
  add_library(sapcontact::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${name}
    OUTPUT_NAME sapcontact_${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${SAPCONTACT_INCLUDE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${M_PUBLIC} PRIVATE ${M_PRIVATE})
  target_compile_options(${target} PRIVATE ${SAPCONTACT_WARNINGS}
                         ${SAPCONTACT_FUZZER_COVERAGE})
  # For tests/layering: the module's folder and the modules it links.
  set_property(GLOBAL APPEND PROPERTY SAPCONTACT_MODULES ${target})
  set_property(GLOBAL PROPERTY SAPCONTACT_FOLDER_${target} ${folder})
  set(deps "")
  foreach(dep ${M_PUBLIC} ${M_PRIVATE})
    if(dep MATCHES "^sapcontact_")
      list(APPEND deps ${dep})
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY SAPCONTACT_DEPS_${target} "${deps}")
  if(SAPCONTACT_INSTALL)
    install(TARGETS ${target} EXPORT sapcontact_${M_COMPONENT}_targets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
      RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    install(FILES ${headers}
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sapcontact/${folder})
  endif()
endfunction()

# sapcontact_add_component(<component> <modules>...)
#
# The component target sapcontact::<component>: an INTERFACE library that
# links the given module targets (for a component of one module, e.g. fclib,
# the module target itself is the component and this is not called).
function(sapcontact_add_component component)
  set(target sapcontact_${component})
  add_library(${target} INTERFACE)
  add_library(sapcontact::${component} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component})
  target_link_libraries(${target} INTERFACE ${ARGN})
  if(SAPCONTACT_INSTALL)
    install(TARGETS ${target} EXPORT sapcontact_${component}_targets)
  endif()
endfunction()
