#!/usr/bin/env bash
# A/B of two gxsort binaries on the in-memory sort, the same options for both (no
# --stats-json), alternated in each round, page cache warm, `sync` (untimed) before each
# command, outputs compared: 4 GiB of u64, 4 GB of gensort, 4 GiB of 16-byte records;
# which binary runs first alternates from round to round.
#   tools/bench/ab_in_memory.sh NEW OLD [GiB=4] [WORKDIR=/tmp]
#   ROUNDS=4   DEVICE=cuda|cpu (default cuda)   GIB=0.01 for a tiny run
#   SMOKE=1 (CI): NEW and OLD default to one binary, 0.001 GiB, two rounds, cpu without a GPU
#   ONLY=u64 (a name's first word: u64, gensort, 16-byte) runs that input alone
#   EXTRA="--memory 2G" adds options to every timed sort (out of core: a budget below
#   the input); the reference is then sorted by OLD with the same EXTRA
set -euo pipefail
source "$(dirname "$0")/common.bash"
new=${1:-$bench_gxsort} old=${2:-${1:-$bench_gxsort}} gib=${3:-4}
[[ $bench_smoke == 1 ]] && gib=${3:-0.001} ROUNDS=${ROUNDS:-2}
work=$(mktemp -d "${4:-$bench_tmp}/gxsort-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_device "$new" "${DEVICE:-cuda}"
dev=$bench_dev
now() { date +%s.%N; }
count() { python3 -c "print(max(1, int($gib * $1)))"; }
formats=("u64|--count $(count 134217728)|--type u64"
         "gensort|--format gensort --count $(count 10000000)|--format gensort"
         "16-byte records|--record-size 16 --key-offset 0 --key-type u64 --count $(count 67108864)|--record-size 16 --key-offset 0 --key-type u64")
timed() {  # timed BINARY OPTS...: seconds of one sort of $in into $work/o
  local b=$1 t; shift
  rm -f "$work/o"; sync
  t=$(now); "$b" sort "$in" -o "$work/o" "$@" ${EXTRA:-} --device "$dev" --no-fsync -q; python3 -c "print(f'{$(now) - $t:.3f}')"
}
echo "| input | NEW s (each round) | OLD s (each round) | NEW median / OLD median |"
echo "|---|---|---|---|"
for f in "${formats[@]}"; do
  IFS='|' read -r name genopt sortopt <<< "$f"
  [[ -z ${ONLY:-} || ${name%% *} == "$ONLY" ]] || continue
  in=$work/in
  read -r -a gopts <<< "$genopt"; read -r -a sopts <<< "$sortopt"
  "$new" gen -o "$in" "${gopts[@]}" --seed 7 -q
  "$old" sort "$in" -o "$work/ref" "${sopts[@]}" ${EXTRA:-} --device cpu --no-fsync -q
  a=() b=()
  # The one that runs first in a round measured ~6% slower on the H200 host whichever it
  # was (2026-11-29): odd rounds run NEW first, even rounds OLD first.
  for ((r = 1; r <= ${ROUNDS:-4}; r++)); do
    if ((r % 2)); then
      a+=("$(timed "$new" "${sopts[@]}")"); cmp -s "$work/o" "$work/ref" || a[-1]+="(DIFFERS)"
    fi
    b+=("$(timed "$old" "${sopts[@]}")"); cmp -s "$work/o" "$work/ref" || b[-1]+="(DIFFERS)"
    if ! ((r % 2)); then
      a+=("$(timed "$new" "${sopts[@]}")"); cmp -s "$work/o" "$work/ref" || a[-1]+="(DIFFERS)"
    fi
  done
  med() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}'; }
  echo "| $name | ${a[*]} | ${b[*]} | $(bench_ratio "$(med "${a[@]}")" "$(med "${b[@]}")") |"
  rm -f "$in" "$work/ref" "$work/o"
done
