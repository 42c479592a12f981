# pkg-config files generated from the CMake targets' link dependencies, so
# that they list what the installed libraries really need and cannot drift
# from the CMake package:
#
#   sapcontact_write_pkg_config(<target> <name> <description>)
#
# writes ${PROJECT_BINARY_DIR}/<name>.pc for <target> (a module or component
# target, or sapcontact: everything) and installs it to <libdir>/pkgconfig.
#
# The target's dependency graph is walked (LINK_LIBRARIES of our libraries:
# PUBLIC and PRIVATE; INTERFACE_LINK_LIBRARIES of interface and imported
# targets). Each node becomes
#   - one of our libraries: -lsapcontact_<module>;
#   - an imported target that a pkg-config module describes (the table
#     below): that module, in Requires;
#   - any other imported target (our FindCHOLMOD, FindFCLIB) or a plain
#     library: -l<name> from its file (-L<dir> unless the compiler searches
#     there), then its own INTERFACE_LINK_LIBRARIES.
# $<BUILD_INTERFACE:...> entries (header-only build tools such as
# nlohmann_json) are left out; any other generator expression stops the
# configure so that it is handled here rather than dropped.
#
# Static libraries (the default; BUILD_SHARED_LIBS=OFF) carry none of their
# dependencies, so everything is in Libs and Requires, the libraries in link
# order (a library before the ones it needs: reversed depth-first post-order
# of the graph), and `pkg-config --libs` links a program. Shared libraries
# record their own dependencies: Libs and Requires hold what the public
# interface needs (our libraries, PUBLIC dependencies), Libs.private and
# Requires.private the rest (for `pkg-config --static`).
# Cflags: the installed include folder, the include folders of non-pkg-config
# imported targets on PUBLIC paths, and those of the Requires modules.

# Imported target -> pkg-config module(s). urdfdom.pc does not list
# tinyxml, which sim/robot calls directly and urdfdom's CMake target links.
set(SAPCONTACT_PC_MODULE_Eigen3::Eigen "eigen3 >= 3.3")
set(SAPCONTACT_PC_MODULE_yaml-cpp "yaml-cpp")
set(SAPCONTACT_PC_MODULE_yaml-cpp::yaml-cpp "yaml-cpp")
set(SAPCONTACT_PC_MODULE_assimp::assimp "assimp")
set(SAPCONTACT_PC_MODULE_Qhull::qhull_r "qhull_r")
set(SAPCONTACT_PC_MODULE_urdfdom::urdfdom_model
    "urdfdom;console_bridge;tinyxml")
set(SAPCONTACT_PC_MODULE_sdformat12::sdformat12 "sdformat12")

# Plain library (file path or name) -> link flags.
function(_sapcontact_pc_library_flags item out)
  if(item MATCHES "^-")
    set(${out} "${item}" PARENT_SCOPE)
    return()
  endif()
  if(NOT IS_ABSOLUTE "${item}")
    set(${out} "-l${item}" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(dir "${item}" DIRECTORY)
  get_filename_component(file "${item}" NAME)
  if(NOT file MATCHES "^lib([^.]+)\\.(a|so)(\\.[0-9.]+)?$")
    message(FATAL_ERROR "pkg-config: cannot name the library ${item}")
  endif()
  set(flags "-l${CMAKE_MATCH_1}")
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(flags "-L${dir} ${flags}")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# The file of an imported target (IMPORTED_LOCATION, else that of its first
# imported configuration), empty for an interface target.
function(_sapcontact_pc_imported_location target out)
  get_target_property(type ${target} TYPE)
  set(location "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(location ${target} IMPORTED_LOCATION)
    if(NOT location)
      get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
      if(configs)
        list(GET configs 0 config)
        get_target_property(location ${target} IMPORTED_LOCATION_${config})
      endif()
    endif()
    if(NOT location)
      message(FATAL_ERROR "pkg-config: imported target ${target} has no "
                          "file and no pkg-config module (cmake/"
                          "SapcontactPkgConfig.cmake)")
    endif()
  endif()
  set(${out} "${location}" PARENT_SCOPE)
endfunction()

# The dependencies of `target`: all of them (PUBLIC and PRIVATE) or, with
# public_only, those of its usage requirements.
function(_sapcontact_pc_edges target public_only out)
  get_target_property(type ${target} TYPE)
  get_target_property(imported ${target} IMPORTED)
  if(imported OR type STREQUAL "INTERFACE_LIBRARY" OR public_only)
    get_target_property(raw ${target} INTERFACE_LINK_LIBRARIES)
  else()
    get_target_property(raw ${target} LINK_LIBRARIES)
  endif()
  set(items "")
  foreach(item IN LISTS raw)
    if(item MATCHES "^\\$<BUILD_INTERFACE:")
      continue()
    elseif(item MATCHES "^\\$<INSTALL_INTERFACE:(.*)>$")
      set(item "${CMAKE_MATCH_1}")
    elseif(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
      if(public_only)
        continue()
      endif()
      set(item "${CMAKE_MATCH_1}")
    elseif(item MATCHES "\\$<")
      message(FATAL_ERROR "pkg-config: ${target} links '${item}', a "
                          "generator expression cmake/"
                          "SapcontactPkgConfig.cmake does not handle")
    endif()
    if(item)
      list(APPEND items "${item}")
    endif()
  endforeach()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# Depth-first walk from `item`; appends nodes in post-order to the global
# property _SAPCONTACT_PC_ORDER. Node kinds: T:<our library>,
# P:<pkg-config module>, L:<link flags>, I:<include folder>.
function(_sapcontact_pc_visit item public_only)
  set(node "")
  set(children "")
  if(TARGET ${item})
    get_target_property(aliased ${item} ALIASED_TARGET)
    if(aliased)
      set(item ${aliased})
    endif()
    get_target_property(imported ${item} IMPORTED)
    get_target_property(type ${item} TYPE)
    if(DEFINED SAPCONTACT_PC_MODULE_${item})
      set(node "P:${item}")
    elseif(imported)
      _sapcontact_pc_imported_location(${item} location)
      if(location)
        _sapcontact_pc_library_flags("${location}" flags)
        set(node "L:${flags}")
      else()
        set(node "X:${item}")  # interface-only: its dependencies count
      endif()
      _sapcontact_pc_edges(${item} ${public_only} children)
    else()
      set(node "T:${item}")
      _sapcontact_pc_edges(${item} ${public_only} children)
    endif()
    if(imported AND NOT DEFINED SAPCONTACT_PC_MODULE_${item})
      get_target_property(dirs ${item} INTERFACE_INCLUDE_DIRECTORIES)
      foreach(dir IN LISTS dirs)
        if(dir AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
          set_property(GLOBAL APPEND PROPERTY _SAPCONTACT_PC_INCLUDES "${dir}")
        endif()
      endforeach()
    endif()
  else()
    _sapcontact_pc_library_flags("${item}" flags)
    set(node "L:${flags}")
  endif()
  get_property(visited GLOBAL PROPERTY _SAPCONTACT_PC_VISITED)
  if(node IN_LIST visited)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _SAPCONTACT_PC_VISITED "${node}")
  # Children last to first: the reversed post-order then keeps their
  # declared order where the graph allows.
  list(REVERSE children)
  foreach(child IN LISTS children)
    _sapcontact_pc_visit("${child}" ${public_only})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY _SAPCONTACT_PC_ORDER "${node}")
endfunction()

# Nodes reachable from `target` in link order (dependents first), and the
# include folders met on the way.
function(_sapcontact_pc_walk target public_only out_nodes out_includes)
  set_property(GLOBAL PROPERTY _SAPCONTACT_PC_VISITED "")
  set_property(GLOBAL PROPERTY _SAPCONTACT_PC_ORDER "")
  set_property(GLOBAL PROPERTY _SAPCONTACT_PC_INCLUDES "")
  _sapcontact_pc_visit(${target} ${public_only})
  get_property(order GLOBAL PROPERTY _SAPCONTACT_PC_ORDER)
  get_property(includes GLOBAL PROPERTY _SAPCONTACT_PC_INCLUDES)
  list(REVERSE order)
  list(REMOVE_DUPLICATES includes)
  set(${out_nodes} "${order}" PARENT_SCOPE)
  set(${out_includes} "${includes}" PARENT_SCOPE)
endfunction()

function(sapcontact_write_pkg_config target name description)
  _sapcontact_pc_walk(${target} FALSE all_nodes unused)
  _sapcontact_pc_walk(${target} TRUE public_nodes public_includes)
  # Static when any of our libraries in the graph is.
  set(static FALSE)
  foreach(node IN LISTS all_nodes)
    if(node MATCHES "^T:(.*)")
      get_target_property(type ${CMAKE_MATCH_1} TYPE)
      if(type STREQUAL "STATIC_LIBRARY")
        set(static TRUE)
      endif()
    endif()
  endforeach()
  set(libs "-L\${libdir}")
  set(libs_private "")
  set(requires "")
  set(requires_private "")
  foreach(node IN LISTS all_nodes)
    set(public FALSE)
    if(static OR node IN_LIST public_nodes)
      set(public TRUE)
    endif()
    if(node MATCHES "^T:(.*)")
      get_target_property(type ${CMAKE_MATCH_1} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(output ${CMAKE_MATCH_1} OUTPUT_NAME)
        string(APPEND libs " -l${output}")
      endif()
    elseif(node MATCHES "^L:(.*)")
      if(public)
        string(APPEND libs " ${CMAKE_MATCH_1}")
      else()
        string(APPEND libs_private " ${CMAKE_MATCH_1}")
      endif()
    elseif(node MATCHES "^P:(.*)")
      if(public)
        list(APPEND requires ${SAPCONTACT_PC_MODULE_${CMAKE_MATCH_1}})
      else()
        list(APPEND requires_private ${SAPCONTACT_PC_MODULE_${CMAKE_MATCH_1}})
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES requires)
  list(REMOVE_DUPLICATES requires_private)
  if(requires AND requires_private)
    list(REMOVE_ITEM requires_private ${requires})
  endif()
  # A module that pkg-config cannot find makes the file unusable here.
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_EXECUTABLE)
    foreach(module IN LISTS requires requires_private)
      string(REGEX REPLACE " .*" "" module "${module}")
      execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists ${module}
                      RESULT_VARIABLE missing)
      if(missing)
        message(WARNING "${name}.pc requires the pkg-config module "
                        "${module}, which pkg-config does not find")
      endif()
    endforeach()
  endif()
  string(REPLACE ";" ", " requires "${requires}")
  string(REPLACE ";" ", " requires_private "${requires_private}")
  set(cflags "-I\${includedir}")
  foreach(dir IN LISTS public_includes)
    string(APPEND cflags " -I${dir}")
  endforeach()
  string(STRIP "${libs_private}" libs_private)

  # Relocatable: the prefix is found relative to the .pc file.
  file(RELATIVE_PATH prefix_from_pcdir
       /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" prefix_from_pcdir "${prefix_from_pcdir}")
  if(static)
    set(kind "static libraries: every dependency is in Libs and Requires")
  else()
    set(kind "shared libraries: link with --static for the private part")
  endif()
  # The licence first, as a comment: pkg-config has no field for it.
  set(text "# SPDX-License-Identifier: ${sapcontact_SPDX_LICENSE}
# Generated by cmake/SapcontactPkgConfig.cmake from the CMake \
target ${target}
# (${kind}).
prefix=\${pcfiledir}/${prefix_from_pcdir}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ${name}
Description: ${description}
Version: ${PROJECT_VERSION}
")
  if(requires)
    string(APPEND text "Requires: ${requires}\n")
  endif()
  if(requires_private)
    string(APPEND text "Requires.private: ${requires_private}\n")
  endif()
  string(APPEND text "Cflags: ${cflags}\nLibs: ${libs}\n")
  if(libs_private)
    string(APPEND text "Libs.private: ${libs_private}\n")
  endif()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
       CONTENT "${text}")
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
