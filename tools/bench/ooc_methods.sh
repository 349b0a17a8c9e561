#!/usr/bin/env bash
# Benchmark: the two out-of-core methods side by side, `--ooc merge` (runs + merge tree)
# and `--ooc partition` (key-range buckets, each sorted in memory), on one u64 file,
# with `cp` of the same file measured in the same run. Runs are interleaved (merge,
# partition, merge, ...) so that drift hits both alike; the table keeps the best of each.
# Usage: tools/bench/ooc_methods.sh [gxsort-binary] [GiB] [--memory M] [extra sort options...]
# (default --memory: 1/8 of the file). BENCH_REPS (default 3) runs of each.
# SMOKE=1 (CI): 2 "GiB" of 8 MiB (--memory 2 MiB), one run of each
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
gib=${2:-2}
shift $(( $# >= 2 ? 2 : $# ))
extra=("$@")
reps=${BENCH_REPS:-3}
[[ $bench_smoke == 1 ]] && reps=${BENCH_REPS:-1}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gxsort-ooc.XXXXXX")
trap 'rm -rf "$work"' EXIT
keys=$(( gib * 134217728 / bench_div ))
memory=()
[[ " ${extra[*]:-} " == *" --memory "* ]] || memory=(--memory $(( keys * 8 / 8 )))
"$g" gen -o "$work/in.bin" --count "$keys" --dist uniform --seed 7 -q

now() { date +%s.%N; }
time_cmd() { local s e; s=$(now); "$@" >/dev/null; e=$(now); python3 -c "print(f'{$e-$s:.3f}')"; }
settle() { rm -f "$@"; sync; }
sync
cp_t=() merge_t=() part_t=()
for ((i = 0; i < reps; i++)); do
  cp_t+=("$(time_cmd cp "$work/in.bin" "$work/cp.bin")"); settle "$work/cp.bin"
  for m in merge partition; do
    t=$(time_cmd "$g" sort "$work/in.bin" -o "$work/out.bin" -T "$work" --ooc "$m" "${memory[@]}" "${extra[@]}")
    "$g" check "$work/out.bin" -q; settle "$work/out.bin"
    if [[ $m == merge ]]; then merge_t+=("$t"); else part_t+=("$t"); fi
  done
done
shape() { "$g" plan "$work/in.bin" --json --ooc "$1" "${memory[@]}" "${extra[@]}" | python3 -c "
import json, sys
p = json.load(sys.stdin)
print(f\"{p['buckets']} buckets\" if p['mode'] == 'partition' else f\"{p['runs']} runs, {len(p['levels'])} merge levels\")"; }
python3 - "$gib" "${memory[*]:-} ${extra[*]:-}" "$(shape merge)" "$(shape partition)" "${cp_t[*]}" "${merge_t[*]}" "${part_t[*]}" "$bench_div" <<'PY'
import sys
gib, opts, merge_shape, part_shape = sys.argv[1:5]
cp, merge, part = ([max(float(x), 1e-3) for x in a.split()] for a in sys.argv[5:8])
mb = int(gib) * 2**30 / int(sys.argv[8]) / 1e6
size = f"{gib} GiB" if sys.argv[8] == "1" else f"{mb:.3g} MB"
label = lambda ts: ", ".join(f"{t:.2f}" for t in ts)
print(f"| {size} u64, `{opts.strip()}` | best (s) | all (s) | MB/s | vs cp |")
print("|---|---|---|---|---|")
print(f"| cp | {min(cp):.2f} | {label(cp)} | {mb/min(cp):.0f} | 1.00 |")
for name, ts in ((f"--ooc merge ({merge_shape})", merge), (f"--ooc partition ({part_shape})", part)):
    print(f"| {name} | {min(ts):.2f} | {label(ts)} | {mb/min(ts):.0f} | {min(ts)/min(cp):.2f} |")
PY
