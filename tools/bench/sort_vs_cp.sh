#!/usr/bin/env bash
# Benchmark: gxsort sort of a u64 file in memory and out of core (--memory at 1/8 of
# the file), each as a ratio to `cp` of the same file measured in the same run: the
# default (fsync'd output) against cp and against cp + `sync FILE`, --no-fsync against cp.
# Every command runs twice; the table keeps the better time of each and shows both.
# Usage: tools/bench/sort_vs_cp.sh [gxsort-binary] [GiB] [--device cpu|cuda|auto] [extra sort options...]
# Prints a table and appends it, with date and machine, to docs/benchmarks.md when
# BENCH_RECORD=1.
set -euo pipefail
shopt -s inherit_errexit  # a failed sort or check inside $(...) stops the script
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

# `sync` (untimed) between commands: none pays for the writeback of the one before.
settle() { rm -f "$@"; sync; }
sync
cp1=$(time_cmd cp "$work/in.bin" "$work/cp.bin"); settle "$work/cp.bin"
cp2=$(time_cmd cp "$work/in.bin" "$work/cp.bin"); settle "$work/cp.bin"
cpt=$(best "$cp1" "$cp2")
# Like for like with the default sort, whose output is fsync'd before the rename.
cs1=$(time_cmd sh -c "cp '$work/in.bin' '$work/cp.bin' && sync '$work/cp.bin'"); settle "$work/cp.bin"
cs2=$(time_cmd sh -c "cp '$work/in.bin' '$work/cp.bin' && sync '$work/cp.bin'"); settle "$work/cp.bin"
cst=$(best "$cs1" "$cs2")
# Each sort, like cp, runs twice and keeps the better time: the first of two runs can
# meet memory this VM has handed back to its host, which is slow to touch again.
sort_best() {  # OPTIONS... : best time of two sorts, each output checked and removed
  local t1 t2
  t1=$(time_cmd "$g" sort "$work/in.bin" -o "$work/out.bin" "$@" "${extra[@]}")
  "$g" check "$work/out.bin" -q; settle "$work/out.bin"
  t2=$(time_cmd "$g" sort "$work/in.bin" -o "$work/out.bin" "$@" "${extra[@]}")
  "$g" check "$work/out.bin" -q; settle "$work/out.bin"
  echo "$t1 $t2"
}
ooc_mem=$(( bytes / 8 ))
r=$(sort_best); read -r mem1 mem2 <<<"$r"
r=$(sort_best --no-fsync); read -r memn1 memn2 <<<"$r"
r=$(sort_best --memory "$ooc_mem" -T "$work"); read -r ooc1 ooc2 <<<"$r"
r=$(sort_best --memory "$ooc_mem" -T "$work" --no-fsync); read -r oocn1 oocn2 <<<"$r"
mem_t=$(best "$mem1" "$mem2"); memn_t=$(best "$memn1" "$memn2")
ooc_t=$(best "$ooc1" "$ooc2"); oocn_t=$(best "$oocn1" "$oocn2")
plan=$("$g" plan "$work/in.bin" --memory "$ooc_mem" --json "${extra[@]}")
runs=$(echo "$plan" | python3 -c "import json,sys; p=json.load(sys.stdin); print(p['runs'], len(p['levels']))")

machine="$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -m)"
gpu=$(command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "no GPU")
table=$(python3 - "$gib" "$cp1" "$cp2" "$cpt" "$cst" "$mem_t" "$memn_t" "$ooc_t" "$oocn_t" "$runs" "${extra[*]:-}" \
        "$cs1 $cs2 $mem1 $mem2 $memn1 $memn2 $ooc1 $ooc2 $oocn1 $oocn2" <<'PY'
import sys
gib, cp1, cp2, cpt, cst, mem, memn, ooc, oocn = sys.argv[1], *map(float, sys.argv[2:10])
runs, levels = sys.argv[10].split()
extra = sys.argv[11]
cs1, cs2, m1, m2, mn1, mn2, o1, o2, on1, on2 = map(float, sys.argv[12].split())
both = lambda a, b: f" (best of {a:.2f}, {b:.2f})"
mb = int(gib) * 2**30 / 1e6
ooc_label = f"--memory 1/8 ({runs} runs, {levels} merge level{'s' if levels != '1' else ''})"
# Default rows (fsync'd output) against cp and against cp + sync FILE (like for like);
# --no-fsync rows against cp only (neither waits for the disk).
print(f"| {gib} GiB u64, options `{extra or '-'}` | time (s) | MB/s | vs cp | vs cp + sync |")
print("|---|---|---|---|---|")
print(f"| cp (best of {cp1:.2f}, {cp2:.2f}) | {cpt:.2f} | {mb/cpt:.0f} | 1.00 | |")
print(f"| cp + sync FILE{both(cs1, cs2)} | {cst:.2f} | {mb/cst:.0f} | | 1.00 |")
print(f"| gxsort sort, in memory{both(m1, m2)} | {mem:.2f} | {mb/mem:.0f} | {mem/cpt:.2f} | {mem/cst:.2f} |")
print(f"| gxsort sort, in memory, --no-fsync{both(mn1, mn2)} | {memn:.2f} | {mb/memn:.0f} | {memn/cpt:.2f} | |")
print(f"| gxsort sort, {ooc_label}{both(o1, o2)} | {ooc:.2f} | {mb/ooc:.0f} | {ooc/cpt:.2f} | {ooc/cst:.2f} |")
print(f"| gxsort sort, {ooc_label}, --no-fsync{both(on1, on2)} | {oocn:.2f} | {mb/oocn:.0f} | {oocn/cpt:.2f} | |")
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
