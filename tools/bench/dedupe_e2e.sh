#!/usr/bin/env bash
# End-to-end dedupe benchmarks (GPU machine; needs python3 with numpy for the inputs):
#  - `dedupe` of a 4 GiB u64 file with 50% duplicates vs cp of the same file;
#  - bitmap dedupe of a 16 GiB u32 file with --device-memory 1G vs cp.
# Our output is fsync'd before it is renamed into place (an atomic commit); cp's is not.
# So each case prints three rows: our default vs cp, --no-fsync vs cp, and our default
# vs `cp` followed by `sync FILE` of the copy (like for like). The phases of the default
# run (--stats-json) follow each case.
# Usage: tools/bench/dedupe_e2e.sh GXSORT [WORKDIR] [CASES]   (CASES: "u64 u32", the default)
set -euo pipefail
g=$1
work=$(mktemp -d "${2:-/tmp}/gxsort-dedupe-e2e.XXXXXX")
cases=${3:-u64 u32}
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
timeit() { local s e; s=$(now); "$@" >/dev/null; e=$(now); python3 -c "print(f'{$e-$s:.3f}')"; }
best() { python3 -c "import sys; print(min(map(float, sys.argv[1:])))" "$@"; }
row() { python3 -c "import sys; n,t,c=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]); print(f'| {n} | {t:.2f} | {c:.2f} | {t/c:.2f} |')" "$@"; }
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
      python3 -c "
import numpy as np, sys
n = 1 << 29
np.random.default_rng(1).integers(0, n // 2, n, dtype=np.uint64).tofile(sys.argv[1])" "$work/u64"
      bench "4 GiB u64, 50% duplicates" "$work/u64" --type u64 --device cuda
      rm -f "$work/u64" ;;
    u32)
      python3 -c "
import numpy as np, sys
rng = np.random.default_rng(2)
with open(sys.argv[1], 'wb') as f:
    for _ in range(16):
        rng.integers(0, 1 << 32, 1 << 28, dtype=np.uint32).tofile(f)" "$work/u32"
      bench "16 GiB u32, bitmap, --device-memory 1G" "$work/u32" --type u32 --strategy bitmap --device cuda --device-memory 1G
      rm -f "$work/u32" ;;
  esac
done
