#!/usr/bin/env bash
# What a user would run instead of gxsort, timed in one run (issue 20), each a whole
# process as a user runs it, page cache warm, `sync` (untimed) between commands:
#   sort of a file of random u64 keys: cp, cp + sync FILE, gxsort on the GPU and on the
#     CPU (fsync'd, and --no-fsync), a numpy script (np.fromfile, np.sort, tofile) and a
#     CuPy script (np.fromfile, cp.asarray, sort on the GPU, cp.asnumpy, tofile);
#   dedupe of a file of u64 keys with few distinct values: gxsort dedupe (GPU, CPU),
#     np.unique and cupy.unique scripts.
# Prints a table: seconds, and the ratio to cp (and to cp + sync for fsync'd rows).
# Every output is compared with gxsort's (cmp); a peer whose module is missing is
# reported as skipped, not timed.
# Usage: tools/bench/peers.sh GXSORT [GiB=4] [WORKDIR=/tmp]
#   SMOKE=1 (CI): GXSORT $GXSORT by default, 1 "GiB" of 8 MiB
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
gib=${2:-4}
[[ $bench_smoke == 1 ]] && gib=${2:-1}
work=$(mktemp -d "${3:-$bench_tmp}/gxsort-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
keys=$((gib * 134217728 / bench_div))
now() { date +%s.%N; }
timeit() { local s; s=$(now); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }; python3 -c "print(f'{$(now)-$s:.3f}')"; }
has() { python3 -c "import $1" 2>/dev/null; }
rows=()
row() { rows+=("$1|$2|$3"); }  # label, seconds, "sync" when the output was on the disk at the end
# run LABEL SYNCED REFERENCE OUTPUT COMMAND...: times it, compares OUTPUT with REFERENCE.
run() {
  local label=$1 synced=$2 ref=$3 out=$4 s; shift 4
  rm -f "$out"; sync
  s=$(timeit "$@") || { row "$label (failed)" 0 ""; return; }
  if [[ -n $ref ]] && ! cmp -s "$out" "$ref"; then label="$label (OUTPUT DIFFERS)"; fi
  row "$label" "$s" "$synced"
  [[ $out == "$ref" ]] || rm -f "$out"
}
np_sort='import numpy as np, sys; a = np.fromfile(sys.argv[1], dtype="<u8"); a.sort(); a.tofile(sys.argv[2])'
cp_sort='import numpy as np, cupy as cp, sys; d = cp.asarray(np.fromfile(sys.argv[1], dtype="<u8")); d.sort(); cp.asnumpy(d).tofile(sys.argv[2])'
np_unique='import numpy as np, sys; np.unique(np.fromfile(sys.argv[1], dtype="<u8")).tofile(sys.argv[2])'
cp_unique='import numpy as np, cupy as cp, sys; cp.asnumpy(cp.unique(cp.asarray(np.fromfile(sys.argv[1], dtype="<u8")))).tofile(sys.argv[2])'
gpu=$("$g" info --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['gpus']))")

"$g" gen -o "$work/in" --count "$keys" --seed 9 -q
"$g" sort "$work/in" -o "$work/ref" --device cpu -q
run "cp" "" "" "$work/o" cp "$work/in" "$work/o"
run "cp + sync FILE" sync "" "$work/o" sh -c "cp '$work/in' '$work/o' && sync '$work/o'"
for d in cuda cpu; do
  [[ $d == cuda && $gpu == 0 ]] && { row "gxsort sort --device cuda: skipped, no GPU" 0 ""; continue; }
  run "gxsort sort --device $d" sync "$work/ref" "$work/o" "$g" sort "$work/in" -o "$work/o" --device "$d"
  run "gxsort sort --device $d --no-fsync" "" "$work/ref" "$work/o" "$g" sort "$work/in" -o "$work/o" --device "$d" --no-fsync
done
if has numpy; then run "numpy script (fromfile, sort, tofile)" "" "$work/ref" "$work/o" python3 -c "$np_sort" "$work/in" "$work/o"
else row "numpy script: skipped, no numpy" 0 ""; fi
if has cupy && [[ $gpu != 0 ]]; then run "CuPy script (fromfile, GPU sort, tofile)" "" "$work/ref" "$work/o" python3 -c "$cp_sort" "$work/in" "$work/o"
else row "CuPy script: skipped, no cupy or no GPU" 0 ""; fi
rm -f "$work/ref" "$work/in"

"$g" gen -o "$work/dup" --count "$keys" --seed 10 --dist few-unique -q
"$g" dedupe "$work/dup" -o "$work/uref" --device cpu -q
for d in cuda cpu; do
  [[ $d == cuda && $gpu == 0 ]] && continue
  run "gxsort dedupe --device $d (few unique)" sync "$work/uref" "$work/o" "$g" dedupe "$work/dup" -o "$work/o" --device "$d"
done
if has numpy; then run "np.unique script" "" "$work/uref" "$work/o" python3 -c "$np_unique" "$work/dup" "$work/o"; fi
if has cupy && [[ $gpu != 0 ]]; then run "cupy.unique script" "" "$work/uref" "$work/o" python3 -c "$cp_unique" "$work/dup" "$work/o"; fi

python3 - "$(bench_size "$gib")" "${rows[@]}" <<'PY'
import sys
gib, rows = sys.argv[1], [r.split("|") for r in sys.argv[2:]]
t = {label: float(s) for label, s, _ in rows}
cp, cps = t["cp"], t["cp + sync FILE"]
ratio = lambda a, b: f"{a / b:.2f}" if b else "n/a"  # a smoke run's cp can take 0.00 s
print(f"| {gib} u64 | s | vs cp | vs cp + sync |")
print("|---|---|---|---|")
for label, s, synced in rows:
    s = float(s)
    if s == 0: print(f"| {label} | | | |"); continue
    print(f"| {label} | {s:.2f} | {ratio(s, cp)} | {ratio(s, cps) if synced else ''} |")
PY
