#!/usr/bin/env bash
# BFS benchmark: R-MAT (Graph500 Kronecker) edge lists, edge factor 16, symmetrized;
# 16 random sources (vertices with edges) per device; `graph build` time vs `cp` of the
# edge list. Prints one table row per scale.
#   usage: tools/bench/bfs_bench.sh /path/to/gxsort [SCALE...]   (default scale 22)
#   env: WORK (scratch dir, default $TMPDIR or /tmp), SOURCES (default 16)
set -euo pipefail
GX=${1:?usage: $0 /path/to/gxsort [SCALE...]}
shift
SCALES=("${@:-22}")
SOURCES=${SOURCES:-16}
WORK=$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/gxsort-bfs-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
mean_of() { grep "^mean of" "$1" | sed -E 's/.*time ([0-9.]+) ms, ([0-9.]+) GTEPS.*/\1 \2/'; }
single() { grep "^source" "$1" | head -1 | sed -E 's/.*time ([0-9.]+) ms, ([0-9.]+) GTEPS.*/\1 \2/'; }

rows=()
for S in "${SCALES[@]}"; do
  E="$WORK/rmat$S.bin32"; G="$WORK/rmat$S.csr"
  "$GX" gen --graph rmat --scale "$S" --edge-factor 16 --seed 1 -o "$E" -q
  cat "$E" >/dev/null
  t0=$(now); cp "$E" "$WORK/copy.bin"; sync "$WORK/copy.bin"; t1=$(now); rm -f "$WORK/copy.bin"
  t2=$(now); "$GX" graph build "$E" --symmetrize -o "$G" --tmp-dir "$WORK" -q; t3=$(now)
  cp_s=$(awk "BEGIN{print $t1 - $t0}"); build_s=$(awk "BEGIN{print $t3 - $t2}")
  for dev in cuda cpu; do
    if "$GX" bfs "$G" --random-sources "$SOURCES" --seed 7 --device $dev -q >/dev/null 2>&1 || [[ $dev == cpu ]]; then
      "$GX" bfs "$G" --random-sources "$SOURCES" --seed 7 --device $dev >"$WORK/$dev.out" 2>&1 || true
    else
      echo "n/a" >"$WORK/$dev.out"
    fi
  done
  head -1 "$WORK/cpu.out" >&2
  read -r cuda_ms cuda_gteps < <(mean_of "$WORK/cuda.out" || echo "n/a n/a") || true
  read -r cpu_ms cpu_gteps < <(mean_of "$WORK/cpu.out" || echo "n/a n/a") || true
  rows+=("$(printf '| %5s | %10s | %12s | %10s | %12s | %10s | %8.2f s | %8.2f s | %6.1f |' "$S" "$(stat -c %s "$E")" \
    "${cuda_ms:-n/a}" "${cuda_gteps:-n/a}" "${cpu_ms:-n/a}" "${cpu_gteps:-n/a}" "$build_s" "$cp_s" "$(awk "BEGIN{print $build_s / $cp_s}")")")
  rm -f "$E" "$G"
done
echo "R-MAT edge factor 16, symmetrized, $SOURCES random sources; BFS time = mean per search (graph resident)"
echo "| scale | input B    | cuda ms/BFS  | cuda GTEPS | cpu ms/BFS   | cpu GTEPS  | build      | cp         | build/cp |"
echo "|-------|------------|--------------|------------|--------------|------------|------------|------------|--------|"
printf '%s\n' "${rows[@]}"
