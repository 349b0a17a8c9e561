#!/usr/bin/env bash
# Benchmark: gxsort's text lines against GNU sort and cp, measured in one run.
# Input: gen_lines' CSV-like text (about 80-byte lines, a quarter repeated). Jobs: plain
# lines, `-t, -k2,2n`, and `-u`; each by `LC_ALL=C sort --parallel=CORES -S 50%`, by gxsort
# in memory and by gxsort out of core (--memory a quarter of the input). Neither sort
# fsyncs here (gxsort --no-fsync), like cp; one more row is the default, fsync'd, sort
# against cp + sync. Every gxsort output is compared with GNU sort's (DIFFERS if not).
# Usage: tools/bench/lines.sh [gxsort-binary] [bytes] [work-dir]   (BENCH_REPS, default 1:
# each command's best of that many runs)
# Tiny mode: tools/bench/lines.sh BIN 200000 DIR, or SMOKE=1 (CI): 5 MB (ooc: its 1/4 over
# the 1 MiB least --memory), BIN $GXSORT
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
bytes=${2:-1000000000}
[[ $bench_smoke == 1 ]] && bytes=${2:-5000000}
gen=${GEN_LINES:-$(dirname "$g")/bench/gen_lines}
work=$(mktemp -d "${3:-${TMPDIR:-/tmp}}/gxsort-lines.XXXXXX")
trap 'rm -rf "$work"' EXIT
reps=${BENCH_REPS:-1}
cores=$(nproc)
"$gen" "$work/in.txt" "$bytes" 7
size=$(stat -c %s "$work/in.txt")
lines=$(wc -l <"$work/in.txt")
ooc=$((size / 4 > 1048576 ? size / 4 : 1048576))

now() { date +%s.%N; }
best() {  # COMMAND...: the best wall time of $reps runs, in seconds
  local i s e t b=""
  for ((i = 0; i < reps; i++)); do
    sync
    s=$(now); "$@" >/dev/null; e=$(now)
    t=$(python3 -c "print(f'{$e-$s:.3f}')")
    b=$(python3 -c "print(min(float('${b:-$t}'), $t))")
  done
  echo "$b"
}
ratio() { bench_ratio "$1" "$2"; }

cp_t=$(best cp "$work/in.txt" "$work/cp.txt")
cps_t=$(best sh -c "cp '$work/in.txt' '$work/cp.txt' && sync '$work/cp.txt'")
rm -f "$work/cp.txt"

echo "# text lines: $size bytes, $lines lines, $cores cores, $(date -u +%F), $(uname -n)"
echo "# cp $cp_t s, cp + sync $cps_t s; ooc: --memory $ooc"
echo "| job | GNU sort s | gxsort s | GNU / gxsort | gxsort / cp | gxsort ooc s | ooc / in memory |"
echo "|---|---|---|---|---|---|---|"
row() {  # NAME OPTIONS...: one job, all three ways
  local name=$1; shift
  local gnu_t gx_t ooc_t same=""
  gnu_t=$(best env LC_ALL=C sort --parallel="$cores" -S 50% -T "$work" "$@" "$work/in.txt" -o "$work/gnu.txt")
  gx_t=$(best "$g" sort --lines "$@" "$work/in.txt" -o "$work/gx.txt" --no-fsync -q -T "$work")
  cmp -s "$work/gnu.txt" "$work/gx.txt" || same=" DIFFERS"
  ooc_t=$(best "$g" sort --lines "$@" "$work/in.txt" -o "$work/gx.txt" --no-fsync -q -T "$work" --memory "$ooc")
  cmp -s "$work/gnu.txt" "$work/gx.txt" || same="$same DIFFERS(ooc)"
  echo "| $name$same | $gnu_t | $gx_t | $(ratio "$gnu_t" "$gx_t") | $(ratio "$gx_t" "$cp_t") | $ooc_t | $(ratio "$ooc_t" "$gx_t") |"
  rm -f "$work/gnu.txt" "$work/gx.txt"
}
row "lines"
row "-t, -k2,2n" -t, -k2,2n
row "-u" -u
sync_t=$(best "$g" sort --lines "$work/in.txt" -o "$work/gx.txt" -q -T "$work")
echo "# fsync'd (default) plain lines: $sync_t s, $(ratio "$sync_t" "$cps_t") x cp + sync"
