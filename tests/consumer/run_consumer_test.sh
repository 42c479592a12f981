#!/usr/bin/env bash
# The consumer tests (tests/consumer/README.md), registered with CTest by
# tests/consumer/CMakeLists.txt:
#   run_consumer_test.sh installed  SOURCE_DIR BUILD_DIR
#   run_consumer_test.sh subproject SOURCE_DIR BUILD_DIR
# Exit status 0 when every check holds; each failure says what it was.
set -euo pipefail
mode=$1 src=$(cd "$2" && pwd) build=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sapcontact_consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc)
fail() { echo "FAIL: $*" >&2; exit 1; }

# Forbidden in a solver-only program's link line and loaded libraries.
check_solver_only() {  # $1: binary, $2: link command file
  echo "-- link line of $(basename "$1"): $(tr -s ' \n' ' ' < "$2")"
  if grep -E -o 'yaml-cpp|hdf5|fclib' "$2" | head -1 | grep -q .; then
    fail "$(basename "$1") links $(grep -E -o 'yaml-cpp|hdf5|fclib' "$2" | sort -u | tr '\n' ' ')"
  fi
  ldd "$1" > "$tmp/ldd.txt"
  echo "-- ldd $(basename "$1"): $(awk '{print $1}' "$tmp/ldd.txt" | tr '\n' ' ')"
  if grep -E 'yaml|hdf5|fclib' "$tmp/ldd.txt"; then
    fail "$(basename "$1") loads yaml-cpp, HDF5 or libfclib"
  fi
}

case $mode in
installed)
  prefix=$tmp/prefix
  cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
  echo "-- installed into $prefix: $(wc -l < "$build/install_manifest.txt") files"
  for f in include/sapcontact/solver/sap/sap_solver.h \
           include/sapcontact/contact_model/conventions.h \
           include/sapcontact/sim/stepping/time_stepper.h \
           lib/cmake/sapcontact/sapcontactConfig.cmake \
           lib/cmake/sapcontact/sapcontactConfigVersion.cmake \
           lib/pkgconfig/sapcontact-solver.pc lib/pkgconfig/sapcontact.pc \
           bin/sapsim; do
    [[ -e $prefix/$f ]] || fail "not installed: $f"
  done
  for d in tests bench examples; do
    [[ ! -e $prefix/include/sapcontact/$d ]] || fail "installed include/sapcontact/$d"
  done
  "$prefix/bin/sapsim" --help > /dev/null || fail "installed sapsim --help"

  # CMake package: solver-only program, the repository's examples, everything.
  cmake -S "$here/project" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DSAPCONTACT_EXAMPLES_DIR="$src/examples" -DCMAKE_BUILD_TYPE=Release \
    > "$tmp/configure.log" || { cat "$tmp/configure.log"; fail "configure"; }
  cmake --build "$tmp/consumer" -j "$jobs" > "$tmp/build.log" \
    || { cat "$tmp/build.log"; fail "build"; }
  "$tmp/consumer/two_box_stack" || fail "two_box_stack (CMake package)"
  "$tmp/consumer/embedding_example" || fail "embedding_example (installed)"
  "$tmp/consumer/scene_stepping_example" > /dev/null \
    || fail "scene_stepping_example (installed)"
  check_solver_only "$tmp/consumer/two_box_stack" \
    "$tmp/consumer/CMakeFiles/two_box_stack.dir/link.txt"

  # pkg-config.
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  flags=$(pkg-config --cflags --libs sapcontact-solver)
  echo "-- pkg-config --cflags --libs sapcontact-solver: $flags"
  echo "g++ -std=c++17 -O2 $here/project/two_box_stack.cc $flags" \
    > "$tmp/pkgconfig_link.txt"
  # shellcheck disable=SC2086
  g++ -std=c++17 -O2 "$here/project/two_box_stack.cc" -o "$tmp/two_box_stack_pc" \
    $flags || fail "build with pkg-config"
  "$tmp/two_box_stack_pc" > /dev/null || fail "two_box_stack (pkg-config)"
  check_solver_only "$tmp/two_box_stack_pc" "$tmp/pkgconfig_link.txt"

  # The version file: 0.2 is accepted above; another minor version is not.
  mkdir -p "$tmp/v"
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(v CXX)\nfind_package(sapcontact 0.3 CONFIG REQUIRED)\n' \
    > "$tmp/v/CMakeLists.txt"
  if cmake -S "$tmp/v" -B "$tmp/v/build" -DCMAKE_PREFIX_PATH="$prefix" \
      > "$tmp/v.log" 2>&1; then
    fail "find_package(sapcontact 0.3) accepted version 0.2"
  fi
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(v CXX)\nfind_package(sapcontact 0.2 CONFIG REQUIRED COMPONENTS physics)\n' \
    > "$tmp/v/CMakeLists.txt"
  rm -rf "$tmp/v/build"
  if cmake -S "$tmp/v" -B "$tmp/v/build" -DCMAKE_PREFIX_PATH="$prefix" \
      > "$tmp/v.log" 2>&1; then
    fail "find_package(sapcontact COMPONENTS physics) succeeded"
  fi
  ;;
subproject)
  cmake -S "$here/subproject" -B "$tmp/parent" -DSAPCONTACT_SOURCE_DIR="$src" \
    > "$tmp/configure.log" || { cat "$tmp/configure.log"; fail "configure"; }
  cmake --build "$tmp/parent" -j "$jobs" --target two_box_stack \
    > "$tmp/build.log" || { cat "$tmp/build.log"; fail "build"; }
  "$tmp/parent/two_box_stack" || fail "two_box_stack (subproject)"
  check_solver_only "$tmp/parent/two_box_stack" \
    "$tmp/parent/CMakeFiles/two_box_stack.dir/link.txt"
  ;;
*)
  fail "usage: $0 installed|subproject SOURCE_DIR BUILD_DIR"
  ;;
esac
echo "consumer test ($mode): all checks passed"
