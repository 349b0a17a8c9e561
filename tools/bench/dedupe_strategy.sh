#!/usr/bin/env bash
# Where `dedupe --strategy auto` should switch between the sort and the bitmap (issue 20):
# for flat u32 keys uniform in [0, R), prints the seconds of --strategy sort, bitmap and
# auto (whole processes, best of --reps, page cache warm, --no-fsync) and what auto chose
# (the "mode" of its --stats-json: "bitmap" or "sort -u (in-memory)" / "(merge)" ...).
# Needs python3 with numpy for the inputs (tools/bench/gen_u32_range.py).
# Usage: tools/bench/dedupe_strategy.sh GXSORT [--device cpu|cuda] [--memory SIZE]
#          [--reps K] [--work DIR] [--points "N:R N:R ..."]
#   N and R are numbers (1e8, 3e7) or, for R, "n" (R = N), "16n" or "full" (2^32).
#   The default points: the PBBS randomSeq case (1e8:n), wide ranges, and narrow ones on
#   both sides of the CPU's span crossover (2^24); add --memory 1G for the out-of-core sort.
#   SMOKE=1 (CI): GXSORT optional ($GXSORT), --reps 1, --memory 1M, two points of 1e5 keys
set -euo pipefail
source "$(dirname "$0")/common.bash"
g=$(readlink -f "${1:-$bench_gxsort}"); shift $(($# > 0))
device=cpu memory="" reps=3 work=${TMPDIR:-/tmp}
points="1e7:n 3e7:n 1e8:n 1e8:full 1e8:1e6 1e8:16777216 1e8:67108864 3e8:n 3e8:full 3e8:1e6"
[[ $bench_smoke == 1 ]] && memory=1M reps=1 points="1e5:n 1e5:full"
while (($#)); do
  case $1 in
    --device) device=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --points) points=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(dirname "$(readlink -f "$0")")
py=python3
$py -c "import numpy" 2>/dev/null || py=/usr/bin/python3  # a pyenv python3 may lack numpy
$py -c "import numpy" 2>/dev/null || { echo "$bench_name: needs python3 with numpy (the inputs); skipped"; exit 0; }
bench_device "$g" "$device"
device=$bench_dev
dir=$(mktemp -d "$work/gxsort-dedupe-strategy.XXXXXX")
trap 'rm -rf "$dir"' EXIT
opts=(--type u32 --device "$device" --no-fsync -q)
[[ -n $memory ]] && opts+=(--memory "$memory")
now() { date +%s.%N; }
# times: the least seconds of $reps runs of each of sort, bitmap and auto, the three taken in
# turn in every round (so a busy moment of the machine touches all three alike).
times() {
  local -A b=()
  local s e t st
  for ((r = 0; r < reps; ++r)); do
    for st in sort bitmap auto; do
      s=$(now); "$g" dedupe "$dir/in" -o "$dir/out" "${opts[@]}" --strategy "$st"; e=$(now)
      t=$($py -c "print(f'{$e - $s:.2f}')")
      b[$st]=$($py -c "print(min(${b[$st]:-1e9}, $t))")
      rm -f "$dir/out"
    done
  done
  echo "${b[sort]} ${b[bitmap]} ${b[auto]}"
}
echo "gxsort dedupe --type u32 --device $device${memory:+ --memory $memory} --no-fsync, best of $reps (tools at $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date +%F))"
echo "| keys | range | sort s | bitmap s | auto s | auto chose | distinct |"
echo "|---|---|---|---|---|---|---|"
for p in $points; do
  n=${p%%:*} r=${p#*:}
  nn=$($py -c "print(int(float('$n')))")
  case $r in
    n) rr=$nn ;;
    16n) rr=$($py -c "print(min(16 * $nn, 1 << 32))") ;;
    full) rr=$((1 << 32)) ;;
    *) rr=$($py -c "print(int(float('$r')))") ;;
  esac
  $py "$here/gen_u32_range.py" "$dir/in" "$nn" "$rr"
  cat "$dir/in" >/dev/null
  read -r ts tb ta < <(times)
  "$g" dedupe "$dir/in" -o "$dir/out" "${opts[@]}" --stats-json "$dir/s.json"
  chose=$($py -c "import json,sys; print(json.load(open(sys.argv[1]))['mode'])" "$dir/s.json")
  distinct=$(($(stat -c %s "$dir/out") / 4))
  rm -f "$dir/out" "$dir/in"
  label=$r; [[ $r == full ]] && label="2^32"
  echo "| $n | $label | $ts | $tb | $ta | $chose | $distinct |"
done
