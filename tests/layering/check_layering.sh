#!/usr/bin/env bash
# check_layering.sh SOURCE_DIR MODULE_DEPENDENCIES_FILE MODULE_LINKS_FILE
#                   PILLARS_FILE
#
# Fails (exit 1, naming what is wrong) when
#  - a module links (CMake) a module outside its own pillar and the pillars
#    PILLARS_FILE lets it link, the pillars' "may link" relation or the
#    modules' links have a cycle, or a module folder is in no pillar or in
#    two (the direction of the dependencies, tests/layering/pillars.txt);
#  - a library file includes "sapcontact/<folder>/..." of a module its own
#    module does not link (directly or transitively: the CMake dependencies
#    are the layering, README "Layout"), or includes through the repository
#    root ("solver/...", "tests/...", "bench/...") instead of the
#    <sapcontact/...> spelling;
#  - a .cc or .h under a top-level folder of the library (those of the
#    pillars' modules) sits outside a module folder (a folder with a CMake
#    module target).
set -euo pipefail
src=$1 deps_file=$2 links_file=$3 pillars_file=$4
cd "$src"
declare -A allowed
while IFS=: read -r folder rest; do
  allowed[$folder]="$folder $rest"
done < "$deps_file"

status=0

# --- The direction: pillars.txt against the modules' direct links. --------
declare -A pillar_of may_link
pillars=()
while IFS= read -r line; do
  [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
  if [[ ! $line =~ ^([a-z_]+):([^|]*)\|(.*)$ ]]; then
    echo "$pillars_file: malformed line: $line"
    exit 1
  fi
  pillar=${BASH_REMATCH[1]}
  pillars+=("$pillar")
  read -r -a linked <<< "${BASH_REMATCH[3]}"
  may_link[$pillar]="${linked[*]}"
  for folder in ${BASH_REMATCH[2]}; do
    if [[ -n ${pillar_of[$folder]+x} ]]; then
      echo "$pillars_file: module $folder is in pillars ${pillar_of[$folder]} and $pillar"
      status=1
    fi
    pillar_of[$folder]=$pillar
  done
done < "$pillars_file"
for pillar in "${pillars[@]}"; do
  for other in ${may_link[$pillar]}; do
    if [[ -z ${may_link[$other]+x} ]]; then
      echo "$pillars_file: pillar $pillar may link $other, which is no pillar"
      status=1
    fi
  done
done
for folder in "${!pillar_of[@]}"; do
  if [[ -z ${allowed[$folder]+x} ]]; then
    echo "$pillars_file: $folder is not a module folder (no sapcontact_add_module there)"
    status=1
  fi
done
declare -A links
num_links=0
while IFS=: read -r folder rest; do
  links[$folder]=$rest
  mine=${pillar_of[$folder]:-}
  if [[ -z $mine ]]; then
    echo "module $folder is in no pillar of $pillars_file"
    status=1
    continue
  fi
  for dep in $rest; do
    num_links=$((num_links + 1))
    theirs=${pillar_of[$dep]:-}
    [[ $theirs == "$mine" ]] && continue
    if [[ " ${may_link[$mine]} " != *" $theirs "* ]]; then
      echo "module $folder (pillar $mine) links $dep (pillar ${theirs:-none}):" \
        "against the direction of $pillars_file ($mine may link: ${may_link[$mine]:-nothing})"
      status=1
    fi
  done
done < "$links_file"
# No cycle: depth-first search over a graph given as an associative array
# "node -> successors"; on a cycle, cycle_path names it (a -> b -> a).
declare -A state
cycle_path=""
cycle_in() {  # $1: name of the array, $2: node, $3: the path to it
  local -n graph=$1
  local node=$2 path="$3 -> $2" next
  state[$node]=active
  for next in ${graph[$node]:-}; do
    if [[ ${state[$next]:-} == active ]]; then
      cycle_path="${path#* -> }"
      cycle_path="$next${cycle_path#*$next} -> $next"
      return 0
    elif [[ -z ${state[$next]:-} ]] && cycle_in "$1" "$next" "$path"; then
      return 0
    fi
  done
  state[$node]=done
  return 1
}
for kind in may_link links; do
  state=()
  declare -n graph=$kind
  for node in "${!graph[@]}"; do
    if [[ -z ${state[$node]:-} ]] && cycle_in "$kind" "$node" ""; then
      echo "a cycle in the ${kind/may_link/pillars\' may-link relation}: $cycle_path"
      status=1
      break
    fi
  done
  unset -n graph
done
roots=$(for folder in "${!pillar_of[@]}"; do echo "${folder%%/*}"; done | sort -u)

# --- Includes. ------------------------------------------------------------
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
done < <(find $roots -name '*.cc' -o -name '*.h' | sort)
echo "layering: $(wc -l < "$deps_file") modules in ${#pillars[@]} pillars," \
  "$num_links module links and $checked includes checked"
exit $status
