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

# Forbidden in a collision-only program's link line and loaded libraries:
# the scene and robot formats (yaml-cpp, urdfdom and what it links), the
# solver's CHOLMOD, FCLib's files.
check_collision_only() {  # $1: binary, $2: link command file
  local forbidden='yaml|urdf|tinyxml|console_bridge|cholmod|hdf5|fclib'
  echo "-- link line of $(basename "$1"): $(tr -s ' \n' ' ' < "$2")"
  if grep -E -o "$forbidden" "$2" | head -1 | grep -q .; then
    fail "$(basename "$1") links $(grep -E -o "$forbidden" "$2" | sort -u | tr '\n' ' ')"
  fi
  ldd "$1" > "$tmp/ldd.txt"
  echo "-- ldd $(basename "$1"): $(awk '{print $1}' "$tmp/ldd.txt" | tr '\n' ' ')"
  if grep -E "$forbidden" "$tmp/ldd.txt"; then
    fail "$(basename "$1") loads yaml-cpp, urdfdom, CHOLMOD, HDF5 or libfclib"
  fi
}

# One program per component (project/), what it is run with, and how; every
# installed component has its sapcontact-<component>.pc.
components=(parallel solver multibody geometry collision fclib sim studies)
declare -A sources=([parallel]=parallel_consumer.cc [solver]=two_box_stack.cc
  [multibody]=multibody_consumer.cc [geometry]=geometry_consumer.cc
  [collision]=collision_consumer.cc [fclib]=fclib_consumer.cc
  [sim]=sim_consumer.cc [studies]=studies_consumer.cc)
run_consumer() {  # $1: what, $2: binary
  local c arg=()
  c=$(basename "$2"); c=${c%%_*}
  case $c in
    fclib) arg=("$tmp/fclib_$RANDOM.hdf5") ;;
    sim|studies) arg=("$src/config/scenes") ;;
  esac
  "$2" "${arg[@]}" > "$tmp/run.log" 2>&1 \
    || { cat "$tmp/run.log"; fail "$1"; }
  echo "-- ran $1: $(tail -1 "$tmp/run.log")"
}

case $mode in
installed)
  prefix=$tmp/prefix
  cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
  echo "-- installed into $prefix: $(wc -l < "$build/install_manifest.txt") files"
  for f in include/sapcontact/solver/sap/sap_solver.h \
           include/sapcontact/contact_model/conventions.h \
           include/sapcontact/sim/stepping/time_stepper.h \
           include/sapcontact/parallel/thread_pool.h \
           include/sapcontact/geometry/shapes.h \
           include/sapcontact/collision/collision.h \
           lib/pkgconfig/sapcontact-collision.pc \
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

  # CMake package: one program per component (project/component), the
  # repository's examples, everything.
  t0=$SECONDS
  cmake -S "$here/project" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DSAPCONTACT_EXAMPLES_DIR="$src/examples" -DCMAKE_BUILD_TYPE=Release \
    > "$tmp/configure.log" || { cat "$tmp/configure.log"; fail "configure"; }
  cmake --build "$tmp/consumer" -j "$jobs" > "$tmp/build.log" \
    || { cat "$tmp/build.log"; fail "build"; }
  echo "-- CMake package: configured and built in $((SECONDS - t0)) s"
  for c in "${components[@]}"; do
    run_consumer "$c (find_package COMPONENTS $c)" "$tmp/consumer/${c}_consumer"
  done
  run_consumer "embedding_example (installed)" "$tmp/consumer/embedding_example"
  run_consumer "scene_stepping_example (installed)" \
    "$tmp/consumer/scene_stepping_example"
  run_consumer "articulated_tree_example (sapcontact::sapcontact)" \
    "$tmp/consumer/articulated_tree_example"
  check_solver_only "$tmp/consumer/solver_consumer" \
    "$tmp/consumer/component_solver/CMakeFiles/solver_consumer.dir/link.txt"
  check_collision_only "$tmp/consumer/collision_consumer" \
    "$tmp/consumer/component_collision/CMakeFiles/collision_consumer.dir/link.txt"

  # pkg-config: every installed .pc is one of ours and names our libraries
  # only; sapcontact.pc links every installed library; each component's
  # program is compiled with sapcontact-<component>.pc and linked once with
  # it and once with sapcontact.pc, and both binaries run.
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  # With shared libraries (BUILD_SHARED_LIBS=ON) the pkg-config builds have
  # no run path to the prefix.
  export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  expected_pc=$( (printf 'sapcontact-%s.pc\n' "${components[@]}";
                  echo sapcontact.pc) | sort)
  [[ $(ls "$prefix/lib/pkgconfig" | sort) == "$expected_pc" ]] \
    || fail "installed .pc files: $(ls "$prefix/lib/pkgconfig" | tr '\n' ' ')"
  all_libs=$(pkg-config --libs sapcontact) || fail "pkg-config sapcontact"
  all_cflags=$(pkg-config --cflags sapcontact)
  echo "-- pkg-config --cflags --libs sapcontact: $all_cflags $all_libs"
  for lib in "$prefix"/lib/libsapcontact_*; do
    name=$(basename "$lib"); name=${name#lib}; name=${name%%.*}
    [[ " $all_libs " == *" -l$name "* ]] \
      || fail "sapcontact.pc does not link the installed $(basename "$lib")"
  done
  t0=$SECONDS
  mkdir -p "$tmp/pc"
  for c in "${components[@]}"; do
    flags=$(pkg-config --cflags sapcontact-$c) \
      || fail "pkg-config --cflags sapcontact-$c"
    for f in $flags; do
      [[ " $all_cflags " == *" $f "* ]] \
        || fail "sapcontact.pc lacks sapcontact-$c.pc's flag $f"
    done
    libs=$(pkg-config --libs sapcontact-$c) || fail "pkg-config sapcontact-$c"
    echo "-- pkg-config --cflags --libs sapcontact-$c: $flags $libs"
    echo "g++ $flags $libs" > "$tmp/pc/$c.link.txt"
    (
      # shellcheck disable=SC2086
      g++ -std=c++17 -O2 -c "$here/project/${sources[$c]}" -o "$tmp/pc/$c.o" \
        $flags > "$tmp/pc/$c.log" 2>&1 \
      && g++ "$tmp/pc/$c.o" -o "$tmp/pc/${c}_consumer" $libs \
        >> "$tmp/pc/$c.log" 2>&1 \
      && g++ "$tmp/pc/$c.o" -o "$tmp/pc/${c}_consumer_all" $all_libs \
        >> "$tmp/pc/$c.log" 2>&1
    ) &
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  done
  wait
  for c in "${components[@]}"; do
    [[ -x $tmp/pc/${c}_consumer && -x $tmp/pc/${c}_consumer_all ]] \
      || { cat "$tmp/pc/$c.log"; fail "build $c with pkg-config"; }
  done
  echo "-- pkg-config: compiled and linked in $((SECONDS - t0)) s"
  for c in "${components[@]}"; do
    run_consumer "$c (pkg-config sapcontact-$c)" "$tmp/pc/${c}_consumer"
    run_consumer "$c (pkg-config sapcontact)" "$tmp/pc/${c}_consumer_all"
  done
  check_solver_only "$tmp/pc/solver_consumer" "$tmp/pc/solver.link.txt"
  check_collision_only "$tmp/pc/collision_consumer" "$tmp/pc/collision.link.txt"
  if grep -E -o 'cholmod|yaml|hdf5|fclib|sapcontact_sap' "$tmp/pc/multibody.link.txt"; then
    fail "sapcontact-multibody.pc links more than the multibody library"
  fi
  if grep -E -o 'cholmod|yaml|urdf|hdf5|fclib|assimp|qhull|-lsapcontact_[a-oq-z]' "$tmp/pc/parallel.link.txt"; then
    fail "sapcontact-parallel.pc links more than the thread pool"
  fi

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
