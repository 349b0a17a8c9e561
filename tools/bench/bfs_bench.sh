#!/usr/bin/env bash
# BFS benchmark: R-MAT (Graph500 Kronecker) edge lists, edge factor 16, symmetrized;
# 16 random sources (vertices with edges), the same on every backend:
#   cuda      the graph resident on the GPU
#   cuda 1/4  --device-memory = a quarter of the CSR file: the neighbors are streamed
#   cpu       the CPU backend (direction-optimizing, --threads $THREADS)
# and `graph build` time against `cp` of the edge list. One table row per scale.
# GTEPS two ways: "stored" counts every stored CSR edge of the reached vertices (a
# symmetrized undirected edge twice); "G500" counts as Graph500 does, the undirected
# input edges within the traversed component = stored / 2. The goals use G500.
#   usage: tools/bench/bfs_bench.sh /path/to/gxsort [SCALE...]   (default scale 22)
#   env: WORK (scratch dir, default $TMPDIR or /tmp), SOURCES (default 16), THREADS (default 16),
#        PROFILE=1: also a per-level profile of 3 in-memory GPU searches (GXSORT_BFS_PROFILE:
#        each level's mode, frontier, edges and time, the device synchronized per level),
#        GXSORT_BFS_ALPHA / GXSORT_BFS_BETA / GXSORT_BFS_BU: GPU switch points (cuda/graph/bfs_cuda.cu);
#        ALPHA and BETA (and GXSORT_BFS_MINBU) set the CPU search's too (lib/src/graph/bfs_cpu.cpp)
#   SMOKE=1 (CI): scale 14, 2 sources, 2 threads, the binary $GXSORT by default; without a GPU
#        (here or in the binary) the cuda columns are n/a. The 1/4 run needs a quarter of the CSR
#        to hold the per-vertex arrays the streamed search keeps on the device and two partition
#        buffers: at scale 8 they need 15360 bytes of a quarter's 4806, at scale 14 402688 of 458328
#        (13 is the least scale where it fits, by 6%)
set -euo pipefail
source "$(dirname "$0")/common.bash"
if [[ $bench_smoke == 1 ]]; then
  GX=${1:-$bench_gxsort}
  SCALES=("${@:2}") SOURCES=${SOURCES:-2} THREADS=${THREADS:-2}
  [[ ${#SCALES[@]} -gt 0 ]] || SCALES=(14)
else
  GX=${1:?usage: $0 /path/to/gxsort [SCALE...]}
  shift
  SCALES=("${@:-22}")
fi
SOURCES=${SOURCES:-16}
THREADS=${THREADS:-16}
gpus=$(bench_info "$GX" "len(j['gpus'])")
[[ $gpus != 0 ]] || echo "bfs_bench: no GPU: the cuda columns are n/a" >&2
WORK=$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/gxsort-bfs-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
# "ms stored_gteps g500_gteps" from the mean line, or "n/a n/a n/a"
mean_of() {
  local l
  l=$(grep "^mean of" "$1" 2>/dev/null) || { echo "n/a n/a n/a"; return; }
  sed -E 's/.*time ([0-9.]+) ms, ([0-9.]+) GTEPS; undirected ([0-9.]+) GTEPS.*/\1 \2 \3/' <<<"$l"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.1f", a / b; else print "n/a" }'; }

rows=()
for S in "${SCALES[@]}"; do
  E="$WORK/rmat$S.bin32"; G="$WORK/rmat$S.csr"
  t0=$(now); "$GX" gen --graph rmat --scale "$S" --edge-factor 16 --seed 1 -o "$E" -q; t1=$(now)
  gen_s=$(awk "BEGIN{print $t1 - $t0}")
  cat "$E" >/dev/null
  t0=$(now); cp "$E" "$WORK/copy.bin"; sync "$WORK/copy.bin"; t1=$(now); rm -f "$WORK/copy.bin"
  t2=$(now); "$GX" graph build "$E" --symmetrize -o "$G" --tmp-dir "$WORK" -q --stats-json "$WORK/build.json" || exit 1; t3=$(now)
  echo "scale $S build phases: $(grep -o '"phases".*' "$WORK/build.json" | tr -d '{}[]"' | cut -c1-400)" >&2
  cp_s=$(awk "BEGIN{print $t1 - $t0}"); build_s=$(awk "BEGIN{print $t3 - $t2}")
  rm -f "$E"
  csr_bytes=$(stat -c %s "$G")
  quarter=$((csr_bytes / 4))
  run() {  # name, extra options
    local name=$1; shift
    "$GX" bfs "$G" --random-sources "$SOURCES" --seed 7 "$@" >"$WORK/$name.out" 2>&1 || echo "($name failed: $(tail -1 "$WORK/$name.out"))" >&2
    grep -m1 "^graph:" "$WORK/$name.out" >&2 || true
    grep -m1 "neighbors streamed" "$WORK/$name.out" >&2 || true
  }
  if [[ $gpus != 0 ]]; then
    run cuda --device cuda
    if [[ ${PROFILE:-0} == 1 ]]; then
      GXSORT_BFS_PROFILE=1 "$GX" bfs "$G" --random-sources 3 --seed 7 --device cuda 2>&1 | grep -v "^source\|^mean\|^graph" >&2 || true
    fi
    run cuda4 --device cuda --device-memory "$quarter"
  fi
  run cpu --device cpu --threads "$THREADS"
  read -r g_ms g_st g_500 < <(mean_of "$WORK/cuda.out")
  read -r q_ms q_st q_500 < <(mean_of "$WORK/cuda4.out")
  read -r c_ms c_st c_500 < <(mean_of "$WORK/cpu.out")
  echo "scale $S: gen ${gen_s}s, CSR $csr_bytes B, --device-memory $quarter for the 1/4 run" >&2
  rows+=("$(printf '| %2s | %6.0f MiB | %7.2f s | %6.2f s | %5.1f | %8s | %6s | %6s | %8s | %6s | %8s | %6s | %6s | %6s |' \
    "$S" "$(awk "BEGIN{print $csr_bytes / 1048576}")" "$build_s" "$cp_s" "$(awk "BEGIN{print $build_s / $cp_s}")" \
    "$g_ms" "$g_500" "$g_st" "$q_ms" "$q_500" "$c_ms" "$c_500" "$(ratio "$c_ms" "$g_ms")" "$(ratio "$c_ms" "$q_ms")")")
  echo "${rows[-1]}" >&2
  rm -f "$G"
done
echo "R-MAT edge factor 16, symmetrized, $SOURCES random sources; ms = mean time of one search (graph loaded; cuda: on the device"
echo "or streamed); G500 = GTEPS of the undirected stored edges (stored/2; Graph500 counts input tuples: docs/graph.md), stored = stored CSR edges; cpu: $THREADS threads"
echo "| S  | CSR        | build     | cp       | b/cp  | cuda ms  | G500   | stored | 1/4 ms   | G500   | cpu ms   | G500   | cpu/cuda | cpu/(1/4) |"
echo "|----|------------|-----------|----------|-------|----------|--------|--------|----------|--------|----------|--------|--------|--------|"
printf '%s\n' "${rows[@]}"
