#!/usr/bin/env bash
# Benchmark: what journalling a resumable job costs, and what a resume saves (issue 17).
#  1. The out-of-core sort of a u64 file (--memory 1/8), --ooc merge and --ooc partition,
#     by BASE (a binary without journals) and NEW, runs interleaved, best of BENCH_REPS.
#  2. For each method: a fresh run of NEW timed (T), then one killed (-9) at 80% of T and
#     the same command with --resume timed, against T.
# Usage: tools/bench/resume_cost.sh BASE NEW [GiB] [extra sort options...]
#   BASE "nojournal": NEW itself with GXSORT_BENCH_NO_JOURNAL=1 (no job directory, no
#   journal, no checkpoints; all else the same binary): the journal's cost alone.
# Env: BENCH_REPS (3), BENCH_DIR (the work directory's parent: $TMPDIR or /tmp),
#      METHODS ("merge partition"), MEM (--memory; default 1/8 of the input).
# SMOKE=1 (CI): BASE nojournal and NEW $GXSORT by default, 2 "GiB" of 8 MiB, one run of each
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/common.bash"
base=${1:-nojournal} new=${2:-$bench_gxsort} gib=${3:-2}
shift $(( $# >= 3 ? 3 : $# ))
extra=("$@")
reps=${BENCH_REPS:-3}
[[ $bench_smoke == 1 ]] && reps=${BENCH_REPS:-1}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gxsort-resume.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work  # the list of directories a killed sort leaves for `gxsort clean`, removed with $work
keys=$(( gib * 134217728 / bench_div ))
mem=${MEM:-$(( keys * 8 / 8 ))}
methods=${METHODS:-merge partition}
"$new" gen -o "$work/in.bin" --count "$keys" --seed 7 -q
mkdir -p "$work/T"
now() { date +%s.%N; }
time_cmd() {  # COMMAND...: its seconds; a failure is said on stderr (the time is still shown)
  local s e; s=$(now); "$@" >/dev/null 2>"$work/err" || echo "resume_cost: FAILED: $* ($(tail -1 "$work/err"))" >&2
  e=$(now); python3 -c "print(f'{$e-$s:.3f}')"
}
settle() { rm -rf "$work/out.bin" "$work"/T/.gxsort* "$work"/.gxsort*; sync; }
run() {  # BIN METHOD [--resume]
  if [[ $1 == nojournal ]]; then GXSORT_BENCH_NO_JOURNAL=1 run "$new" "${@:2}"; return; fi
  "$1" sort "$work/in.bin" -o "$work/out.bin" --memory "$mem" --ooc "$2" -T "$work/T" -q "${@:3}" "${extra[@]}"
}
declare -A best
sync
for ((i = 0; i < reps; i++)); do
  for m in $methods; do
    for b in base new; do
      bin=$base; [[ $b == new ]] && bin=$new
      t=$(time_cmd run "$bin" $m); settle
      k="$b $m"; best[$k]=$(python3 -c "print(min(${best[$k]:-1e9}, $t))")
    done
  done
done
echo "| $(bench_size "$gib") u64, --memory $mem ${extra[*]} | without journal (BASE) | with journal (NEW) | cost |"
echo "|---|---|---|---|"
for m in $methods; do
  python3 -c "b, n = ${best[base $m]}, ${best[new $m]}; print(f'| --ooc $m, best of $reps | {b:.2f} s | {n:.2f} s | {100 * (n - b) / b:+.1f}% |')"
done
echo
echo "| $(bench_size "$gib") u64, NEW | fresh run | killed at 80% | --resume | resume / fresh |"
echo "|---|---|---|---|---|"
for m in $methods; do
  fresh=$(time_cmd run "$new" $m); settle
  at=$(python3 -c "print($fresh * 0.8)")
  # gxsort itself in the background (not a subshell), so kill -9 reaches it
  "$new" sort "$work/in.bin" -o "$work/out.bin" --memory "$mem" --ooc $m -T "$work/T" -q "${extra[@]}" & pid=$!
  sleep "$at"; kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
  kept=$(grep -c . "$work"/T/.gxsort-job.*/journal 2>/dev/null || echo 0)
  res=$(time_cmd run "$new" $m --resume)
  "$new" check "$work/out.bin" -q && ok=checked || ok=UNSORTED
  settle
  python3 -c "print(f'| --ooc $m | {$fresh:.2f} s | at {$at:.2f} s ($kept journal entries) | {$res:.2f} s ($ok) | {$res / $fresh:.2f} |')"
done
