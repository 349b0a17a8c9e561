#!/usr/bin/env bash
# End-to-end dedupe benchmarks (GPU machine; needs python3 with numpy for the inputs):
#  - `dedupe` of a 4 GiB u64 file with 50% duplicates vs cp of the same file;
#  - bitmap dedupe of a 16 GiB u32 file with --device-memory 1G vs cp.
# Our output is fsync'd before it is renamed into place (an atomic commit); cp's is not.
# So each case prints three rows: our default vs cp, --no-fsync vs cp, and our default
# vs `cp` followed by `sync FILE` of the copy (like for like). The phases of the default
# run (--stats-json) follow each case.
# Usage: tools/bench/dedupe_e2e.sh GXSORT [WORKDIR] [CASES]   (CASES: "u64 u32", the default)
#   SMOKE=1 (CI): 4 MiB and 16 MiB, cpu without a GPU, $GXSORT by default; the bitmap case keeps
#   --device-memory 1G (the bitmap is 512 MiB at any input size: a GPU budget of 1M cannot hold it)
set -euo pipefail
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
bench_device "$g" cuda
py=python3
$py -c "import numpy" 2>/dev/null || py=/usr/bin/python3  # a pyenv python3 may lack numpy
$py -c "import numpy" 2>/dev/null || { echo "$bench_name: needs python3 with numpy (the inputs); skipped"; exit 0; }
work=$(mktemp -d "${2:-$bench_tmp}/gxsort-dedupe-e2e.XXXXXX")
cases=${3:-u64 u32}
div=$((bench_div == 1 ? 1 : 1024))  # the inputs' sizes are divided by this (smoke: MiB for GiB)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
# A failed command fails timeit, and so the script (set -e) before it prints a row for it.
timeit() { local s e; s=$(now); "$@" >/dev/null || return; e=$(now); python3 -c "print(f'{$e-$s:.3f}')"; }
best() { python3 -c "import sys; print(min(map(float, sys.argv[1:])))" "$@"; }
row() { python3 -c "import sys; n,t,c=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]); print(f'| {n} | {t:.2f} | {c:.2f} | {f\"{t/c:.2f}\" if c else \"n/a\"} |')" "$@"; }
phases() {
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('  phases:', s.get('mode',''), '; '.join(f\"{p['name']} {p['seconds']:.2f}\" for p in s['phases']))" "$1" || true
}
cp_sync() { cp "$1" "$2" && sync "$2"; }

# bench NAME INPUT GXSORT-ARGS...: the rows of one case.
bench() {
  local name=$1 in=$2; shift 2
  local c1 c2 cp t tn cs
  c1=$(timeit cp "$in" "$work/cp"); rm -f "$work/cp"; c2=$(timeit cp "$in" "$work/cp"); rm -f "$work/cp"
  cp=$(best "$c1" "$c2")
  t=$(timeit "$g" dedupe "$in" -o "$work/out" "$@" --stats-json "$work/stats.json")
  row "$name, default (fsync) vs cp" "$t" "$cp"
  phases "$work/stats.json"
  "$g" check "$work/out" "${@:1:2}" | grep -E "records|sorted|duplicate" | tr '\n' ' '; echo
  rm -f "$work/out"
  tn=$(timeit "$g" dedupe "$in" -o "$work/out" "$@" --no-fsync)
  row "$name, --no-fsync vs cp" "$tn" "$cp"
  rm -f "$work/out"
  cs=$(timeit cp_sync "$in" "$work/cp"); rm -f "$work/cp"
  row "$name, default vs cp + sync FILE" "$t" "$cs"
}

echo "| dedupe | s | peer s | ratio |"
echo "|---|---|---|---|"
for c in $cases; do
  case $c in
    u64)
      $py -c "
import numpy as np, sys
n = (1 << 29) // $div
np.random.default_rng(1).integers(0, n // 2, n, dtype=np.uint64).tofile(sys.argv[1])" "$work/u64"
      bench "$((4096 / div)) MiB u64, 50% duplicates" "$work/u64" --type u64 --device "$bench_dev"
      rm -f "$work/u64" ;;
    u32)
      $py -c "
import numpy as np, sys
rng = np.random.default_rng(2)
with open(sys.argv[1], 'wb') as f:
    for _ in range(16):
        rng.integers(0, 1 << 32, (1 << 28) // $div, dtype=np.uint32).tofile(f)" "$work/u32"
      bench "$((16384 / div)) MiB u32, bitmap, --device-memory 1G" "$work/u32" \
        --type u32 --strategy bitmap --device "$bench_dev" --device-memory 1G
      rm -f "$work/u32" ;;
  esac
done
