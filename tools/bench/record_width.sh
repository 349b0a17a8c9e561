#!/usr/bin/env bash
# The in-memory sort by record width, GPU against the CPU backend (issue 20: where does
# the device stop paying?): 4 GiB of records of 8, 16, 32, 64 and 100 bytes (u64 key at
# byte 0; 100 B: gensort), each a whole process as a user runs it, --no-fsync, page cache
# warm, `sync` (untimed) between commands, rounds interleaved (GPU, CPU); the outputs
# compared (cmp). Prints seconds per round and the ratio GPU / CPU of the best runs.
#   tools/bench/record_width.sh GXSORT [GiB=4] [WORKDIR=/tmp]     ROUNDS=2   WIDTHS="8 16 32 64 100"
#   DEVICE=cpu runs the "GPU" column on the CPU backend (tries the script without a GPU)
#   SMOKE=1 (CI): GXSORT $GXSORT by default, 1 "GiB" of 8 MiB, one round, cpu without a GPU
set -euo pipefail
source "$(dirname "$0")/common.bash"
g=${1:-$bench_gxsort}
gib=${2:-4}
[[ $bench_smoke == 1 ]] && gib=${2:-1} ROUNDS=${ROUNDS:-1}
work=$(mktemp -d "${3:-$bench_tmp}/gxsort-width.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_device "$g" "${DEVICE:-cuda}"
now() { date +%s.%N; }
timed() {  # COMMAND...: its seconds, after a sync
  local t
  sync; t=$(now); "$@" >/dev/null; python3 -c "print(f'{$(now) - $t:.2f}')"
}
format() {  # width: the format options
  case $1 in
    8) echo "--type u64" ;;
    100) echo "--format gensort" ;;
    *) echo "--record-size $1 --key-offset 0 --key-type u64" ;;
  esac
}
echo "| record | size | GPU s (rounds) | CPU s (rounds) | GPU / CPU (best) | outputs |"
echo "|---|---|---|---|---|---|"
for w in ${WIDTHS:-8 16 32 64 100}; do
  read -r -a fmt <<< "$(format "$w")"
  "$g" gen -o "$work/in" "${fmt[@]}" --count $((gib * 1073741824 / bench_div / w)) --seed 5 -q
  gpu=() cpu=() same=yes
  for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    gpu+=("$(timed "$g" sort "$work/in" -o "$work/gpu" "${fmt[@]}" --device "$bench_dev" --no-fsync -q)")
    cpu+=("$(timed "$g" sort "$work/in" -o "$work/cpu" "${fmt[@]}" --device cpu --no-fsync -q)")
    cmp -s "$work/gpu" "$work/cpu" || same=DIFFERENT
    rm -f "$work/gpu" "$work/cpu"
  done
  best() { printf '%s\n' "$@" | sort -n | head -1; }
  echo "| $w B | $(bench_size "$gib") | ${gpu[*]} | ${cpu[*]} | $(bench_ratio "$(best "${gpu[@]}")" "$(best "${cpu[@]}")") | $same |"
  rm -f "$work/in"
done
