#!/usr/bin/env bash
# Benchmark: gxsort sort of a u64 file in memory and out of core (--memory at 1/8 of
# the file), each as a ratio to `cp` of the same file measured in the same run.
# Usage: tools/bench/sort_vs_cp.sh [gxsort-binary] [GiB] [--device cpu|cuda|auto] [extra sort options...]
# Prints a table and appends it, with date and machine, to docs/benchmarks.md when
# BENCH_RECORD=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
g=${1:-$here/build/gxsort}
gib=${2:-2}
shift $(( $# >= 2 ? 2 : $# ))
extra=("$@")
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gxsort-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
keys=$(( gib * 134217728 ))
bytes=$(( keys * 8 ))
"$g" gen -o "$work/in.bin" --count "$keys" --dist uniform --seed 7 -q

now() { date +%s.%N; }
time_cmd() { local s e; s=$(now); "$@" >/dev/null; e=$(now); python3 -c "print(f'{$e-$s:.3f}')"; }
best() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }

cp1=$(time_cmd cp "$work/in.bin" "$work/cp.bin"); rm -f "$work/cp.bin"
cp2=$(time_cmd cp "$work/in.bin" "$work/cp.bin"); rm -f "$work/cp.bin"
cpt=$(best "$cp1" "$cp2")
mem_t=$(time_cmd "$g" sort "$work/in.bin" -o "$work/out.bin" "${extra[@]}")
"$g" check "$work/out.bin" -q
rm -f "$work/out.bin"
ooc_mem=$(( bytes / 8 ))
ooc_t=$(time_cmd "$g" sort "$work/in.bin" -o "$work/out.bin" --memory "$ooc_mem" -T "$work" "${extra[@]}")
"$g" check "$work/out.bin" -q
plan=$("$g" plan "$work/in.bin" --memory "$ooc_mem" --json "${extra[@]}")
runs=$(echo "$plan" | python3 -c "import json,sys; p=json.load(sys.stdin); print(p['runs'], len(p['levels']))")

machine="$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -m)"
gpu=$(command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "no GPU")
table=$(python3 - "$gib" "$cp1" "$cp2" "$cpt" "$mem_t" "$ooc_t" "$runs" "${extra[*]:-}" <<'PY'
import sys
gib, cp1, cp2, cpt, mem, ooc = sys.argv[1], *map(float, sys.argv[2:7])
runs, levels = sys.argv[7].split()
extra = sys.argv[8]
mb = int(gib) * 2**30 / 1e6
print(f"| {gib} GiB u64, options `{extra or '-'}` | time (s) | MB/s | ratio to cp |")
print("|---|---|---|---|")
print(f"| cp (best of {cp1:.2f}, {cp2:.2f}) | {cpt:.2f} | {mb/cpt:.0f} | 1.00 |")
print(f"| gxsort sort, in memory | {mem:.2f} | {mb/mem:.0f} | {mem/cpt:.2f} |")
print(f"| gxsort sort, --memory 1/8 ({runs} runs, {levels} merge level{'s' if levels != '1' else ''}) | {ooc:.2f} | {mb/ooc:.0f} | {ooc/cpt:.2f} |")
PY
)
echo "$table"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
  {
    echo
    echo "### sort vs cp, $(date -u +%Y-%m-%d), $machine, $gpu"
    echo
    echo "Command: \`tools/bench/sort_vs_cp.sh $g $gib ${extra[*]:-}\`"
    echo
    echo "$table"
  } >> "$here/docs/benchmarks.md"
fi
