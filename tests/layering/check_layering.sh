#!/usr/bin/env bash
# check_layering.sh SOURCE_DIR MODULE_DEPENDENCIES_FILE
#
# Fails (exit 1, naming file, line and include) when
#  - a library file includes "sapcontact/<folder>/..." of a module its own
#    module does not link (directly or transitively: the CMake dependencies
#    are the layering, README "Layout"), or includes through the repository
#    root ("solver/...", "tests/...", "bench/...") instead of the
#    <sapcontact/...> spelling;
#  - a .cc or .h of the library (parallel, contact_model, solver, multibody,
#    geometry, collision, fclib, sim, studies) sits outside a module folder
#    (a folder with a CMake module target).
set -euo pipefail
src=$1 deps_file=$2
cd "$src"
declare -A allowed
while IFS=: read -r folder rest; do
  allowed[$folder]="$folder $rest"
done < "$deps_file"

status=0
checked=0
while IFS= read -r file; do
  folder=$(dirname "$file")
  if [[ -z ${allowed[$folder]+x} ]]; then
    echo "$file: not in a module folder (no sapcontact_add_module there)"
    status=1
    continue
  fi
  while IFS=: read -r line text; do
    inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/' <<< "$text")
    checked=$((checked + 1))
    if [[ $inc == sapcontact/* ]]; then
      target=$(dirname "${inc#sapcontact/}")
      ok=0
      for a in ${allowed[$folder]}; do [[ $a == "$target" ]] && ok=1; done
      if ((!ok)); then
        echo "$file:$line: includes $inc, but module $folder does not link" \
          "module $target (allowed: ${allowed[$folder]})"
        status=1
      fi
    elif [[ $inc =~ ^(parallel|contact_model|solver|multibody|geometry|collision|fclib|sim|studies|tests|bench|sapsim|examples)/ ]]; then
      echo "$file:$line: includes \"$inc\" through the repository root;" \
        "use <sapcontact/...>"
      status=1
    fi
  done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include' "$file" || true)
done < <(find parallel contact_model solver multibody geometry collision fclib sim studies -name '*.cc' -o -name '*.h' | sort)
echo "layering: $(wc -l < "$deps_file") modules, $checked includes checked"
exit $status
