#!/usr/bin/env bash
# End-to-end dedupe benchmarks (GPU machine; needs python3 with numpy for the inputs):
#  - `dedupe` of a 4 GiB u64 file with 50% duplicates vs cp of the same file;
#  - bitmap dedupe of a 16 GiB u32 file with --device-memory 1G vs cp.
# Usage: tools/bench/dedupe_e2e.sh GXSORT [WORKDIR]
set -euo pipefail
g=$1
work=$(mktemp -d "${2:-/tmp}/gxsort-dedupe-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
timeit() { local s e; s=$(now); "$@" >/dev/null; e=$(now); python3 -c "print(f'{$e-$s:.3f}')"; }
row() { python3 -c "import sys; n,t,c=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]); print(f'| {n} | {t:.2f} | {c:.2f} | {t/c:.2f} |')" "$@"; }
echo "| dedupe | s | cp s (best of 2) | ratio to cp |"
echo "|---|---|---|---|"
python3 -c "
import numpy as np, sys
n = 1 << 29
np.random.default_rng(1).integers(0, n // 2, n, dtype=np.uint64).tofile(sys.argv[1])" "$work/u64"
c1=$(timeit cp "$work/u64" "$work/cp"); rm -f "$work/cp"; c2=$(timeit cp "$work/u64" "$work/cp"); rm -f "$work/cp"
cp=$(python3 -c "print(min($c1,$c2))")
t=$(timeit "$g" dedupe "$work/u64" -o "$work/out" --device cuda)
row "4 GiB u64, 50% duplicates, --device cuda" "$t" "$cp"
"$g" check "$work/out" | grep -E "sorted|duplicate" | tr '\n' ' '; echo
rm -f "$work/out" "$work/u64"
python3 -c "
import numpy as np, sys
rng = np.random.default_rng(2)
with open(sys.argv[1], 'wb') as f:
    for _ in range(16):
        rng.integers(0, 1 << 32, 1 << 28, dtype=np.uint32).tofile(f)" "$work/u32"
c1=$(timeit cp "$work/u32" "$work/cp"); rm -f "$work/cp"; c2=$(timeit cp "$work/u32" "$work/cp"); rm -f "$work/cp"
cp=$(python3 -c "print(min($c1,$c2))")
t=$(timeit "$g" dedupe "$work/u32" -o "$work/out" --type u32 --strategy bitmap --device cuda --device-memory 1G)
row "16 GiB u32, bitmap, --device-memory 1G" "$t" "$cp"
"$g" check "$work/out" --type u32 | grep -E "records|sorted|duplicate" | tr '\n' ' '; echo
