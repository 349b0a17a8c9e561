#!/usr/bin/env bash
# The library's layers, kept by CI (ctest lint_layers): every #include "..." in lib/src,
# lib/include and cuda/ names a header of its own folder or of a folder on a lower level
# of lib/layers.txt, the one table of the layers (lib/CMakeLists.txt builds its targets
# from it too). An include of a folder above, or of another folder of the same level, is
# a breach; so is cuda/ included from outside it, or a folder of lib/src the table lacks.
# With --links, the built archives (libgxsort_FOLDER.a) are checked the same way: a call
# into a folder above or beside (a function a public header declares and a higher folder
# defines, which no include shows) is a breach.
#   tools/check-layers.sh [repo root]                       exit 1 with a line per breach
#   tools/check-layers.sh --links BUILD-DIR [repo root]     the same for the archives' calls
#   tools/check-layers.sh --self-test [repo root]           plants breaches in a copy, expects each found
set -uo pipefail

# levels ROOT: "FOLDER LEVEL" lines of ROOT/lib/layers.txt, level 0 at the bottom.
levels() {
  awk '/^[a-z]/ { for (i = 1; i <= NF; ++i) print $i, n + 0; ++n }' "$1/lib/layers.txt"
}

# check ROOT: the breaches of the tree at ROOT, one line each; status 1 when there is one.
check() {
  local root=$1 bad=0 line folder n
  declare -A level=()
  while read -r folder n; do level[$folder]=$n; done < <(levels "$root")
  breach() { echo "check-layers: $1"; bad=1; }
  local dir
  for dir in "$root"/lib/src/*/; do
    folder=$(basename "$dir")
    [[ -n ${level[$folder]+x} ]] || breach "lib/src/$folder: a folder lib/layers.txt does not name (no target builds it)"
  done
  local file rel from at text inc target hit cuda_dir
  while IFS= read -r file; do
    rel=${file#"$root"/}
    case $rel in
      lib/src/*) from=${rel#lib/src/}; from=${from%%/*} ;;
      lib/include/*) from=gxsort ;;
      cuda/*) from=cuda ;;
    esac
    [[ -n ${level[$from]+x} ]] || continue  # reported above
    cuda_dir=()
    [[ $from != cuda ]] || cuda_dir=("$root/cuda")
    while IFS=: read -r at text; do
      [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
      inc=${BASH_REMATCH[1]}
      # Where the compiler finds it: beside the file, in cuda/ (the CUDA backend's own
      # include directory), then the folders of lib/src and lib/include.
      hit=""
      for dir in "${file%/*}" "${cuda_dir[@]}" "$root/lib/src" "$root/lib/include"; do
        if [[ -f $dir/$inc ]]; then hit=$dir/$inc; break; fi
      done
      [[ -n $hit ]] || continue  # not the project's (a system or CUDA header)
      [[ $hit != */../* ]] || hit=$(realpath -m "$hit")
      case ${hit#"$root"/} in
        lib/src/*) target=${hit#"$root"/lib/src/}; target=${target%%/*} ;;
        lib/include/*) target=gxsort ;;
        cuda/*) target=cuda ;;
        *) breach "$rel:$at: includes \"$inc\", outside the library"; continue ;;
      esac
      [[ $target == "$from" ]] && continue
      if [[ -z ${level[$target]+x} ]]; then
        breach "$rel:$at: includes \"$inc\" of $target/, a folder lib/layers.txt does not name"
      elif [[ $target == cuda ]]; then
        breach "$rel:$at: includes \"$inc\": cuda/ is private to the CUDA backend (the Backend is its interface)"
      elif ((level[$target] > level[$from])); then
        breach "$rel:$at: includes \"$inc\": $target/ is a layer above $from/ (lib/layers.txt)"
      elif ((level[$target] == level[$from])); then
        breach "$rel:$at: includes \"$inc\": $target/ is on $from/'s own level, not below it (lib/layers.txt)"
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
  done < <(find "$root/lib/src" "$root/lib/include" "$root/cuda" -type f \
             \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
  return $bad
}

# links ROOT BUILD: calls between the archives under BUILD that go up or sideways.
links() {
  local root=$1 build=$2 archive folder
  local symbols
  symbols=$(for archive in $(find "$build" -name 'libgxsort_*.a' | sort); do
    folder=${archive##*/libgxsort_}; folder=${folder%.a}
    [[ $folder != cdp ]] || folder=cuda  # the CUDA backend's relocatable kernels
    nm -g --defined-only "$archive" 2>/dev/null | awk -v f="$folder" 'NF == 3 && $2 ~ /^[TDBRu]$/ { print "def", f, $3 }'
    nm -u "$archive" 2>/dev/null | awk -v f="$folder" 'NF == 2 { print "use", f, $2 }'
  done)
  [[ -n $symbols ]] || { echo "check-layers: no libgxsort_*.a under $build"; return 1; }
  { levels "$root"; echo "--"; echo "$symbols"; } | awk '
    $0 == "--" { table = 1; next }
    !table { level[$1] = $2; next }
    $1 == "def" { if (!($3 in owner)) owner[$3] = $2; next }
    { use[$2 " " $3] = 1 }
    END {
      for (u in use) {
        split(u, p, " "); from = p[1]; sym = p[2]; to = owner[sym]
        if (to == "" || to == from || !(from in level) || !(to in level)) continue
        if (level[to] >= level[from]) print from, to, sym
      }
    }' | sort | while read -r from to sym; do
      echo "check-layers: libgxsort_$from.a calls $(c++filt "$sym"), defined in $to/, not a layer below $from/ (lib/layers.txt)"
    done | grep . && return 1
  echo "check-layers: links ok"
}

# self_test ROOT: a clean copy passes; each planted breach fails, naming its file and line.
self_test() {
  local root=$1 failed=0
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  # plant FILE LINE-TEXT WHAT: FILE (a copy) gains LINE-TEXT at its end; the check must
  # fail and name FILE and that line.
  plant() {
    local file=$1 text=$2 what=$3 out line
    rm -rf "$tmp/tree" && mkdir -p "$tmp/tree/lib" || exit 2
    cp -r "$root/lib/src" "$root/lib/include" "$root/lib/layers.txt" "$tmp/tree/lib/" && cp -r "$root/cuda" "$tmp/tree/" || exit 2
    if [[ -n $file ]]; then
      echo "$text" >> "$tmp/tree/$file"
      line=$(wc -l < "$tmp/tree/$file")
    fi
    out=$(check "$tmp/tree")
    if [[ -z $file ]]; then
      [[ -z $out ]] || { echo "check-layers self-test: the clean copy fails: $out"; failed=1; }
    elif ! grep -q "^check-layers: $file:$line: " <<< "$out"; then
      echo "check-layers self-test: $what in $file:$line not found (got: ${out:-nothing})"
      failed=1
    fi
  }
  # A call from platform/ into engine/, in two archives of one object each.
  mkdir -p "$tmp/links" && cd "$tmp/links" || exit 2
  echo 'void gxsort_self_test_above() {}' > above.cpp
  echo 'void gxsort_self_test_above(); void gxsort_self_test_below() { gxsort_self_test_above(); }' > below.cpp
  ${CXX:-c++} -c above.cpp below.cpp && ar qc libgxsort_engine.a above.o && ar qc libgxsort_platform.a below.o || exit 2
  cd - > /dev/null || exit 2
  if ! grep -q '^check-layers: libgxsort_platform.a calls gxsort_self_test_above(), defined in engine/' <<< "$(links "$root" "$tmp/links")"; then
    echo "check-layers self-test: a call from platform/ into engine/ not found"
    failed=1
  fi
  plant "" "" "nothing"
  plant lib/src/platform/sizes.cpp '#include "engine/engine.hpp"' "an include going up"
  plant lib/src/io/file.cpp '#include "kernels/radix_sort.hpp"' "an include sideways"
  plant lib/include/gxsort/format.hpp '#include "io/file.hpp"' "a public header including lib/src"
  plant cuda/cuda_backend.cu '#include "engine/group_pass.hpp"' "the CUDA backend including the engine"
  plant lib/src/device/backend_select.cpp '#include "../../../cuda/cuda_backend.cuh"' "a cuda header outside cuda/"
  ((failed)) || echo "check-layers self-test: ok"
  return $failed
}

if [[ ${1:-} == --links ]]; then
  links "$(realpath "${3:-$(dirname "$0")/..}")" "$2"
  exit
fi
if [[ ${1:-} == --self-test ]]; then
  self_test "$(realpath "${2:-$(dirname "$0")/..}")"
  exit
fi
root=$(realpath "${1:-$(dirname "$0")/..}")
check "$root" && echo "check-layers: ok"
